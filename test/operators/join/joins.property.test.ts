/**
 * Properties of the join operators against batch recomputation.
 *
 * - Regular join, every join type and every state view: for random changelogs on both sides
 *   (inserts, updates, deletes, duplicate rows and keys, NULL keys), interleaved and batched at
 *   random, optionally restored from a snapshot mid-stream, the output is a well-formed
 *   changelog whose materialization is the join of the rows still live, recomputed from scratch.
 *   The same for the regular SEMI / ANTI join, with `=`, `IS NOT DISTINCT FROM` (INTERSECT,
 *   EXCEPT) and NOT IN's null-aware condition.
 * - Interval, temporal and window joins (insert-only inputs, rows never behind the watermark):
 *   the output equals the batch join over the same rows.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { ChangeRow } from '../../../shared/core/row.ts';
import type { Row, Schema, Value } from '../../../shared/core/types.ts';
import { schemaOf } from '../../../shared/core/type-parse.ts';
import type { Expr } from '../../../shared/plan/expr.ts';
import { call, col, le } from '../../../shared/plan/expr-build.ts';
import { createStreamingJoinOperator, type StreamingJoinSpec } from '../../../shared/operators/join/streaming-join.ts';
import { createIntervalJoinOperator } from '../../../shared/operators/join/interval-join.ts';
import { createTemporalJoinOperator } from '../../../shared/operators/join/temporal-join.ts';
import { createWindowJoinOperator } from '../../../shared/operators/join/window-join.ts';
import type { JoinInputSpec } from '../../../shared/operators/join/record-state-views.ts';
import type { JoinType, OuterJoinType } from '../../../shared/operators/join/join-spec.ts';
import type { InputSide, Operator } from '../../../shared/operators/operator.ts';
import { OperatorHarness, del, formatRow, insert, materialize, updateAfter, updateBefore } from '../../harness/index.ts';

const left = schemaOf({ id: 'INT NOT NULL', k: 'INT', v: 'INT' });
const right = schemaOf({ rid: 'INT NOT NULL', k: 'INT', w: 'INT' });
const OUTER_TYPES: readonly OuterJoinType[] = ['INNER', 'LEFT', 'RIGHT', 'FULL'];

/** Canonical text of a multiset of rows, for comparison regardless of order. */
const bag = (rows: readonly Row[]): string[] => rows.map(formatRow).sort();

/** The joined row the operators build: left columns, then right columns renamed on a clash. */
function joinRow(l: Row | null, r: Row | null): Row {
  return { id: l?.id ?? null, k: l?.k ?? null, v: l?.v ?? null, rid: r?.rid ?? null, k0: r?.k ?? null, w: r?.w ?? null };
}

/** Batch semantics of an equi-join on k (NULL never equal) with an optional residual `v <= w`. */
function batchJoin(type: JoinType, lefts: readonly Row[], rights: readonly Row[], residual: boolean): Row[] {
  const matches = (l: Row, r: Row): boolean =>
    l.k !== null && l.k === r.k && (!residual || (l.v !== null && r.w !== null && (l.v as number) <= (r.w as number)));
  const out: Row[] = [];
  for (const l of lefts) {
    const found = rights.filter((r) => matches(l, r));
    if (type === 'SEMI') {
      if (found.length > 0) out.push(l);
      continue;
    }
    if (type === 'ANTI') {
      if (found.length === 0) out.push(l);
      continue;
    }
    for (const r of found) out.push(joinRow(l, r));
    if (found.length === 0 && (type === 'LEFT' || type === 'FULL')) out.push(joinRow(l, null));
  }
  if (type === 'RIGHT' || type === 'FULL') for (const r of rights) if (!lefts.some((l) => matches(l, r))) out.push(joinRow(null, r));
  return out;
}

// ---- Regular join over changelogs ----

/** Which uniqueness a side's generated changelog keeps, matching its state view. */
type Uniqueness = 'none' | 'id' | 'joinKey';
const viewOf = (u: Uniqueness, idColumn: string): JoinInputSpec =>
  u === 'none' ? { type: 'NoUniqueKey' } : u === 'id' ? { type: 'HasUniqueKey', uniqueKey: [idColumn] } : { type: 'JoinKeyContainsUniqueKey' };

type Command = { readonly side: InputSide; readonly op: 'insert' | 'delete' | 'update'; readonly pick: number; readonly row: Row };

const valueArb = (max: number): fc.Arbitrary<Value> => fc.option(fc.integer({ min: 0, max }), { nil: null, freq: 5 });
const commandArb: fc.Arbitrary<Command> = fc.record({
  side: fc.constantFrom<InputSide>('left', 'right'),
  op: fc.constantFrom<'insert' | 'delete' | 'update'>('insert', 'insert', 'insert', 'delete', 'update'),
  pick: fc.nat(),
  row: fc.record({ id: fc.integer({ min: 0, max: 4 }), k: valueArb(3), v: valueArb(4) }),
});

/**
 * Turns commands into one valid interleaved changelog: only live rows are retracted, updates are
 * `-U` then `+U`, and a side's uniqueness (by id, or by join key) holds among its live rows. A
 * NULL join key is unique too when the keys compare `IS NOT DISTINCT FROM` (`nullKeys`: NULL is
 * then a key value of its own, as a NULL group of an upstream GROUP BY is).
 */
function buildChangelog(commands: readonly Command[], unique: Record<InputSide, Uniqueness>, nullKeys = false): { changes: { side: InputSide; change: ChangeRow }[]; live: Record<InputSide, Row[]> } {
  const live: Record<InputSide, Row[]> = { left: [], right: [] };
  const changes: { side: InputSide; change: ChangeRow }[] = [];
  for (const c of commands) {
    const rows = live[c.side];
    const row: Row = c.side === 'left' ? c.row : { rid: c.row.id ?? null, k: c.row.k ?? null, w: c.row.v ?? null };
    const idOf = (r: Row): Value => (c.side === 'left' ? r.id : r.rid) ?? null;
    const clashes = (r: Row, except?: Row): boolean =>
      rows.some((x) => x !== except && (unique[c.side] === 'id' ? idOf(x) === idOf(r) : unique[c.side] === 'joinKey' ? (nullKeys || x.k !== null) && x.k === r.k : false));
    if (c.op === 'insert' || rows.length === 0) {
      if (c.op !== 'insert' || clashes(row)) continue;
      rows.push(row);
      changes.push({ side: c.side, change: insert(row) });
      continue;
    }
    const index = c.pick % rows.length;
    const old = rows[index] as Row;
    if (c.op === 'delete') {
      rows.splice(index, 1);
      changes.push({ side: c.side, change: del(old) });
      continue;
    }
    // An update keeps the row's unique key when the side has one.
    const next: Row =
      unique[c.side] === 'id' ? { ...row, ...(c.side === 'left' ? { id: old.id ?? null } : { rid: old.rid ?? null }) } : unique[c.side] === 'joinKey' ? { ...row, k: old.k ?? null } : row;
    if (clashes(next, old)) continue;
    rows[index] = next;
    changes.push({ side: c.side, change: updateBefore(old) }, { side: c.side, change: updateAfter(next) });
  }
  return { changes, live };
}

/** Feeds side-tagged changes in runs of one side, cut into batches at the given sizes. */
async function feed(h: OperatorHarness, changes: readonly { side: InputSide; change: ChangeRow }[], cuts: readonly number[]): Promise<void> {
  let i = 0;
  let c = 0;
  while (i < changes.length) {
    const side = (changes[i] as { side: InputSide }).side;
    const size = Math.max(1, cuts[c++ % Math.max(1, cuts.length)] ?? 1);
    const batch: ChangeRow[] = [];
    while (i < changes.length && batch.length < size && (changes[i] as { side: InputSide }).side === side) batch.push((changes[i++] as { change: ChangeRow }).change);
    await h.processBatch(batch, side);
  }
}

describe('Property: regular join = batch join of the live rows, well-formed changelog', () => {
  it('holds for every join type, state view, residual condition, batching and restore', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...OUTER_TYPES),
        fc.constantFrom<Uniqueness>('none', 'id', 'joinKey'),
        fc.constantFrom<Uniqueness>('none', 'id', 'joinKey'),
        fc.boolean(),
        fc.array(commandArb, { maxLength: 60 }),
        fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 6 }),
        fc.option(fc.nat(), { nil: undefined }),
        async (joinType, lu, ru, residual, commands, cuts, restoreAt) => {
          const spec: StreamingJoinSpec = {
            joinType,
            leftSchema: left,
            rightSchema: right,
            leftKeys: ['k'],
            rightKeys: ['k'],
            leftInput: viewOf(lu, 'id'),
            rightInput: viewOf(ru, 'rid'),
            ...(residual ? { condition: le(col('v'), col('w')) as Expr } : {}),
          };
          const { changes, live } = buildChangelog(commands, { left: lu, right: ru });
          const factory = (): Operator => createStreamingJoinOperator(spec);
          let h = await OperatorHarness.open(factory);
          const split = restoreAt === undefined ? changes.length : restoreAt % (changes.length + 1);
          await feed(h, changes.slice(0, split), cuts);
          const before = h.output();
          h = await OperatorHarness.restore(factory, h.snapshot());
          await feed(h, changes.slice(split), cuts);
          const output = [...before, ...h.output()];
          expect(bag(materialize(output))).toEqual(bag(batchJoin(joinType, live.left, live.right, residual)));
        },
      ),
      { numRuns: 400 },
    );
  });
});

/** How a SEMI / ANTI join compares the key: `=`, `IS NOT DISTINCT FROM`, or NOT IN's null-aware condition. */
type KeyMode = 'equals' | 'notDistinct' | 'nullAware';

/** Batch semantics of a SEMI / ANTI join on k under a key mode, with an optional residual `v <= w`. */
function batchSemiAnti(type: 'SEMI' | 'ANTI', mode: KeyMode, lefts: readonly Row[], rights: readonly Row[], residual: boolean): Row[] {
  const keyMatches = (l: Row, r: Row): boolean => (mode === 'equals' ? l.k !== null && l.k === r.k : mode === 'notDistinct' ? l.k === r.k : l.k === null || r.k === null || l.k === r.k);
  const matches = (l: Row, r: Row): boolean => keyMatches(l, r) && (!residual || (l.v !== null && r.w !== null && (l.v as number) <= (r.w as number)));
  return lefts.filter((l) => rights.some((r) => matches(l, r)) === (type === 'SEMI'));
}

describe('Property: regular SEMI / ANTI join = batch recomputation of the live rows, well-formed changelog', () => {
  it('holds for both types, every state view, =, IS NOT DISTINCT FROM and null-aware keys, residual conditions, batching and restore', async () => {
    const nullAware = call('OR', call('IS NULL', col('k')), call('IS NULL', col('k0')), call('=', col('k'), col('k0'))) as Expr;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<'SEMI' | 'ANTI'>('SEMI', 'ANTI'),
        fc.constantFrom<KeyMode>('equals', 'notDistinct', 'nullAware'),
        fc.constantFrom<Uniqueness>('none', 'id', 'joinKey'),
        fc.constantFrom<Uniqueness>('none', 'id', 'joinKey'),
        fc.boolean(),
        fc.array(commandArb, { maxLength: 60 }),
        fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 6 }),
        fc.option(fc.nat(), { nil: undefined }),
        async (joinType, mode, lu, ru, residual, commands, cuts, restoreAt) => {
          // Without a key (null-aware) a side unique on the join key is unique on nothing the join reads.
          const lv = mode === 'nullAware' && lu === 'joinKey' ? 'none' : lu;
          const rv = mode === 'nullAware' && ru === 'joinKey' ? 'none' : ru;
          const conditions = [...(mode === 'nullAware' ? [nullAware] : []), ...(residual ? [le(col('v'), col('w')) as Expr] : [])];
          const spec: StreamingJoinSpec = {
            joinType,
            leftSchema: left,
            rightSchema: right,
            leftKeys: mode === 'nullAware' ? [] : ['k'],
            rightKeys: mode === 'nullAware' ? [] : ['k'],
            ...(mode === 'notDistinct' ? { nullSafeKeys: [true] } : {}),
            leftInput: viewOf(lv, 'id'),
            rightInput: viewOf(rv, 'rid'),
            ...(conditions.length > 0 ? { condition: conditions.length === 1 ? conditions[0] : (call('AND', ...(conditions as [Expr, Expr])) as Expr) } : {}),
          };
          const { changes, live } = buildChangelog(commands, { left: lv, right: rv }, mode === 'notDistinct');
          const factory = (): Operator => createStreamingJoinOperator(spec);
          let h = await OperatorHarness.open(factory);
          const split = restoreAt === undefined ? changes.length : restoreAt % (changes.length + 1);
          await feed(h, changes.slice(0, split), cuts);
          const before = h.output();
          h = await OperatorHarness.restore(factory, h.snapshot());
          await feed(h, changes.slice(split), cuts);
          const output = [...before, ...h.output()];
          expect(bag(materialize(output))).toEqual(bag(batchSemiAnti(joinType, mode, live.left, live.right, residual)));
        },
      ),
      { numRuns: 400 },
    );
  });
});

// ---- Time-based joins over insert-only inputs ----

/** A row with a time, of one side, and the watermark before it arrives. */
interface Timed {
  readonly side: InputSide;
  readonly t: number;
  readonly k: Value;
  readonly v: Value;
}

const timedArb: fc.Arbitrary<Timed[]> = fc.array(
  fc.record({ side: fc.constantFrom<InputSide>('left', 'right'), t: fc.integer({ min: 0, max: 60 }), k: valueArb(2), v: valueArb(3) }),
  { maxLength: 40 },
);

/** Interleaves watermarks (held `lag` behind the largest time so far) and drops rows they passed. */
function withWatermarks(rows: readonly Timed[], lag: number, late: (row: Timed, watermark: number) => boolean): { steps: ({ row: Timed } | { watermark: number })[]; kept: Timed[] } {
  const steps: ({ row: Timed } | { watermark: number })[] = [];
  const kept: Timed[] = [];
  let max = -Infinity;
  let watermark = -Infinity;
  for (const row of rows) {
    if (!late(row, watermark)) {
      steps.push({ row });
      kept.push(row);
    }
    max = Math.max(max, row.t);
    if (max - lag > watermark) {
      watermark = max - lag;
      steps.push({ watermark });
    }
  }
  return { steps, kept };
}

async function play(h: OperatorHarness, steps: readonly ({ row: Timed } | { watermark: number })[], toRow: (t: Timed, i: number) => Row): Promise<void> {
  let i = 0;
  for (const step of steps) {
    if ('watermark' in step) await h.processWatermark(step.watermark);
    else await h.processBatch([insert(toRow(step.row, i++))], step.row.side);
  }
  await h.endInput();
}

const ts = { root: 'TIMESTAMP', nullable: false, precision: 3 } as const;
const timedSchema = (id: string, value: string): Schema => ({ fields: [{ name: id, type: { root: 'INT', nullable: false } }, { name: 't', type: ts, timeAttribute: 'rowtime' }, ...schemaOf({ k: 'INT', [value]: 'INT' }).fields] });

describe('Property: interval join = batch interval join', () => {
  it('holds for every join type and random bounds when no row is behind the watermark', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...OUTER_TYPES), fc.integer({ min: -8, max: 4 }), fc.integer({ min: 0, max: 8 }), fc.integer({ min: 0, max: 10 }), timedArb, async (joinType, lower, span, lag, rows) => {
        const upper = lower + span;
        const ls = timedSchema('id', 'v');
        const rs = timedSchema('rid', 'w');
        const h = await OperatorHarness.open(() =>
          createIntervalJoinOperator({ joinType, leftSchema: ls, rightSchema: rs, leftKeys: ['k'], rightKeys: ['k'], timeDomain: 'event', leftTimeColumn: 't', rightTimeColumn: 't', leftLowerBoundMs: lower, leftUpperBoundMs: upper }),
        );
        const { steps, kept } = withWatermarks(rows, lag, (row, wm) => row.t <= wm);
        const toRow = (r: Timed, i: number): Row => (r.side === 'left' ? { id: i, t: r.t, k: r.k, v: r.v } : { rid: i, t: r.t, k: r.k, w: r.v });
        await play(h, steps, toRow);
        const indexed = kept.map((r, i) => ({ r, row: toRow(r, i) }));
        const lefts = indexed.filter((x) => x.r.side === 'left');
        const rights = indexed.filter((x) => x.r.side === 'right');
        const m = (l: Row, r: Row): boolean => l.k !== null && l.k === r.k && (r.t as number) + lower <= (l.t as number) && (l.t as number) <= (r.t as number) + upper;
        const pad = (l: Row | null, r: Row | null): Row => ({ id: l?.id ?? null, t: l?.t ?? null, k: l?.k ?? null, v: l?.v ?? null, rid: r?.rid ?? null, t0: r?.t ?? null, k0: r?.k ?? null, w: r?.w ?? null });
        const expected: Row[] = [];
        for (const { row: l } of lefts) {
          const found = rights.filter(({ row: r }) => m(l, r));
          for (const { row: r } of found) expected.push(pad(l, r));
          if (found.length === 0 && (joinType === 'LEFT' || joinType === 'FULL')) expected.push(pad(l, null));
        }
        if (joinType === 'RIGHT' || joinType === 'FULL') for (const { row: r } of rights) if (!lefts.some(({ row: l }) => m(l, r))) expected.push(pad(null, r));
        expect(h.output().every((c) => c.kind === '+I')).toBe(true);
        expect(bag(h.output().map((c) => c.row))).toEqual(bag(expected));
        expect(h.state.stats().entries).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});

describe('Property: window join = batch join per window', () => {
  it('holds for INNER, LEFT, RIGHT, FULL, SEMI and ANTI; late rows are set aside, not joined', async () => {
    const windowed = (id: string, value: string): Schema => ({
      fields: [...timedSchema(id, value).fields.map((f) => (f.name === 't' ? { name: 't', type: ts } : f)), { name: 'window_start', type: ts }, { name: 'window_end', type: ts }],
    });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<JoinType>('INNER', 'LEFT', 'RIGHT', 'FULL', 'SEMI', 'ANTI'), fc.integer({ min: 0, max: 15 }), timedArb, async (joinType, lag, rows) => {
        const size = 10;
        const end = (t: number): number => Math.floor(t / size) * size + size;
        const h = await OperatorHarness.open(() =>
          createWindowJoinOperator({ joinType, leftSchema: windowed('id', 'v'), rightSchema: windowed('rid', 'w'), leftKeys: ['k'], rightKeys: ['k'], leftWindowEndColumn: 'window_end', rightWindowEndColumn: 'window_end' }),
        );
        const { steps, kept } = withWatermarks(rows, lag, (row, wm) => end(row.t) - 1 <= wm);
        const toRow = (r: Timed, i: number): Row =>
          r.side === 'left' ? { id: i, t: r.t, k: r.k, v: r.v, window_start: end(r.t) - size, window_end: end(r.t) } : { rid: i, t: r.t, k: r.k, w: r.v, window_start: end(r.t) - size, window_end: end(r.t) };
        await play(h, steps, toRow);
        const indexed = kept.map((r, i) => toRow(r, i));
        const expected: Row[] = [];
        for (const w of new Set(indexed.map((r) => r.window_end as number))) {
          const inWindow = indexed.filter((r) => r.window_end === w);
          const lefts = inWindow.filter((r) => 'id' in r);
          const rights = inWindow.filter((r) => 'rid' in r);
          const pad = (l: Row | null, r: Row | null): Row => ({
            id: l?.id ?? null, t: l?.t ?? null, k: l?.k ?? null, v: l?.v ?? null, window_start: l?.window_start ?? null, window_end: l?.window_end ?? null,
            rid: r?.rid ?? null, t0: r?.t ?? null, k0: r?.k ?? null, w: r?.w ?? null, window_start0: r?.window_start ?? null, window_end0: r?.window_end ?? null,
          });
          const m = (l: Row, r: Row): boolean => l.k !== null && l.k === r.k;
          for (const l of lefts) {
            const found = rights.filter((r) => m(l, r));
            if (joinType === 'SEMI' || joinType === 'ANTI') {
              if ((found.length > 0) === (joinType === 'SEMI')) expected.push(l);
              continue;
            }
            for (const r of found) expected.push(pad(l, r));
            if (found.length === 0 && (joinType === 'LEFT' || joinType === 'FULL')) expected.push(pad(l, null));
          }
          if (joinType === 'RIGHT' || joinType === 'FULL') for (const r of rights) if (!lefts.some((l) => m(l, r))) expected.push(pad(null, r));
        }
        expect(bag(h.output().map((c) => c.row))).toEqual(bag(expected));
        expect(h.sideOutput('late')).toHaveLength(0);
        expect(h.state.stats().entries).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});

describe('Property: temporal join = the version valid at each probe row time', () => {
  it('holds for INNER and LEFT with versions and deletions arriving ahead of the watermark', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<'INNER' | 'LEFT'>('INNER', 'LEFT'), fc.integer({ min: 0, max: 10 }), timedArb, fc.array(fc.boolean(), { maxLength: 40 }), async (joinType, lag, rows, deletes) => {
        const ls = timedSchema('id', 'v');
        const rs: Schema = { fields: [{ name: 'k', type: { root: 'INT', nullable: false } }, { name: 'rt', type: ts, timeAttribute: 'rowtime' }, ...schemaOf({ w: 'INT' }).fields] };
        const h = await OperatorHarness.open(() =>
          createTemporalJoinOperator({ joinType, leftSchema: ls, rightSchema: rs, leftKeys: ['k'], rightKeys: ['k'], leftTimeColumn: 't', rightTimeColumn: 'rt' }),
        );
        const versioned = rows.map((r) => (r.side === 'right' && r.k === null ? { ...r, k: 0 } : r));
        const { steps, kept } = withWatermarks(versioned, lag, (row, wm) => row.t <= wm);
        const rowOf = (r: Timed, i: number): Row => (r.side === 'left' ? { id: i, t: r.t, k: r.k, v: r.v } : { k: r.k, rt: r.t, w: r.v });
        let i = 0;
        const versions: { k: Value; t: number; row: Row | undefined; seq: number }[] = [];
        for (const step of steps) {
          if ('watermark' in step) {
            await h.processWatermark(step.watermark);
            continue;
          }
          const seq = i++;
          const row = rowOf(step.row, seq);
          if (step.row.side === 'left') {
            await h.processLeft(insert(row));
          } else {
            const deletion = deletes[seq] === true;
            await h.processRight(deletion ? del(row) : insert(row));
            versions.push({ k: step.row.k, t: step.row.t, row: deletion ? undefined : row, seq });
          }
        }
        await h.endInput();
        const expected: Row[] = [];
        kept.forEach((r, seq) => {
          if (r.side !== 'left') return;
          const l = rowOf(r, seq);
          const candidates = versions.filter((v) => l.k !== null && v.k === l.k && v.t <= (l.t as number));
          const best = candidates.reduce<(typeof versions)[number] | undefined>((a, b) => (a === undefined || b.t > a.t || (b.t === a.t && b.seq > a.seq) ? b : a), undefined);
          const version = best?.row;
          if (version !== undefined) expected.push({ ...l, k0: version.k ?? null, rt: version.rt ?? null, w: version.w ?? null });
          else if (joinType === 'LEFT') expected.push({ ...l, k0: null, rt: null, w: null });
        });
        expect(bag(h.output().map((c) => c.row))).toEqual(bag(expected));
      }),
      { numRuns: 300 },
    );
  });
});
