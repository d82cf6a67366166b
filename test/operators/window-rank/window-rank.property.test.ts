/**
 * Property: TVF → window Top-N, chained, equals a plain batch computation — assign each on-time
 * row to its windows, group by (partition, window), sort (ties in arrival order), rank, filter
 * the range — over random window types and offsets, rank types, ranges, sort directions, batch
 * boundaries and watermarks (which make some rows late).
 *
 * The comparison is exact, order included: windows come out by end, windows with the same end
 * in the order their first row arrived, rows by rank then arrival. Late rows must be exactly the
 * TVF's side output, and no state or timers may be left at the end.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { insert } from '../../harness/index.ts';
import type { ChangeRow } from '../../../shared/core/row.ts';
import { schemaOf } from '../../../shared/core/type-parse.ts';
import type { Row } from '../../../shared/core/types.ts';
import type { WindowSpec } from '../../../shared/plan/logical.ts';
import { createWindowRankOperator, type WindowRankSpec } from '../../../shared/operators/window-rank/window-rank.ts';
import {
  createWindowTableFunctionOperator,
  windowTableFunctionOutputSchema,
} from '../../../shared/operators/window-rank/window-table-function.ts';
import { OperatorHarness } from '../../harness/index.ts';

const INPUT = schemaOf({ p: 'STRING', id: 'INT NOT NULL', score: 'INT', t: 'TIMESTAMP(3) NOT NULL' });

interface Event {
  readonly p: string | null;
  readonly score: number | null;
  readonly t: number;
}
interface Step {
  readonly events: readonly Event[];
  /** Watermark advance after the batch, if any. */
  readonly advance: number | undefined;
}
interface Case {
  readonly window: WindowSpec;
  readonly rankType: WindowRankSpec['rankType'];
  readonly start: number;
  readonly end: number;
  readonly withNumber: boolean;
  readonly desc: boolean;
  readonly nullsFirst: boolean;
  readonly steps: readonly Step[];
}

const windowArb: fc.Arbitrary<WindowSpec> = fc.oneof(
  fc.integer({ min: -9, max: 9 }).map((offsetMs): WindowSpec => ({ type: 'TUMBLE', timeColumn: 't', sizeMs: 10, offsetMs })),
  fc.integer({ min: -4, max: 4 }).map((offsetMs): WindowSpec => ({ type: 'HOP', timeColumn: 't', sizeMs: 10, slideMs: 5, offsetMs })),
  fc.integer({ min: -9, max: 9 }).map((offsetMs): WindowSpec => ({ type: 'CUMULATE', timeColumn: 't', maxSizeMs: 20, stepMs: 10, offsetMs })),
);

const eventArb: fc.Arbitrary<Event> = fc.record({
  p: fc.constantFrom('a', 'b', null),
  score: fc.option(fc.integer({ min: 0, max: 4 }), { freq: 6 }),
  t: fc.integer({ min: -20, max: 60 }),
});

const caseArb: fc.Arbitrary<Case> = fc.record({
  window: windowArb,
  rankType: fc.constantFrom<WindowRankSpec['rankType']>('ROW_NUMBER', 'RANK', 'DENSE_RANK'),
  start: fc.integer({ min: 1, max: 3 }),
  end: fc.integer({ min: 0, max: 2 }),
  withNumber: fc.boolean(),
  desc: fc.boolean(),
  nullsFirst: fc.boolean(),
  steps: fc.array(fc.record({ events: fc.array(eventArb, { maxLength: 6 }), advance: fc.option(fc.integer({ min: 0, max: 15 }), { nil: undefined }) }), {
    maxLength: 12,
  }),
}).map((c) => ({ ...c, end: c.start + c.end }));

/** Windows of `t`, by brute force over the grid, in Flink's assigner order. */
function windowsOf(window: WindowSpec, t: number): { start: number; end: number }[] {
  const mod = (x: number, m: number) => ((x % m) + m) % m;
  const offset = 'offsetMs' in window ? (window.offsetMs ?? 0) : 0;
  if (window.type === 'TUMBLE') {
    const start = t - mod(t - offset, window.sizeMs);
    return [{ start, end: start + window.sizeMs }];
  }
  if (window.type === 'HOP') {
    const out = [];
    for (let start = t; start > t - window.sizeMs; start--) {
      if (mod(start - offset, window.slideMs) === 0) out.push({ start, end: start + window.sizeMs });
    }
    return out;
  }
  if (window.type === 'CUMULATE') {
    const start = t - mod(t - offset, window.maxSizeMs);
    const out = [];
    for (let end = start + window.stepMs; end <= start + window.maxSizeMs; end += window.stepMs) if (end > t) out.push({ start, end });
    return out;
  }
  throw new Error('unexpected window');
}

/** The batch computation: expected Top-N rows in emission order, and the late rows. */
function model(c: Case): { rows: Row[]; late: Row[] } {
  const buckets = new Map<string, { end: number; seq: number; rows: Row[] }>();
  const late: Row[] = [];
  let watermark = -Infinity;
  let id = 0;
  for (const step of c.steps) {
    for (const e of step.events) {
      const input: Row = { p: e.p, id: id++, score: e.score, t: e.t };
      // The TVF assigns every window; the rank drops (to its side output) each one already fired.
      for (const w of windowsOf(c.window, e.t)) {
        if (w.end - 1 <= watermark) {
          late.push({ ...input, window_start: w.start, window_end: w.end, window_time: w.end - 1 });
          continue;
        }
        const name = `${String(e.p)}|${w.start}|${w.end}`;
        let bucket = buckets.get(name);
        if (bucket === undefined) buckets.set(name, (bucket = { end: w.end, seq: buckets.size, rows: [] }));
        bucket.rows.push({ ...input, window_start: w.start, window_end: w.end, window_time: w.end - 1 });
      }
    }
    if (step.advance !== undefined) watermark = (watermark === -Infinity ? 0 : watermark) + step.advance;
  }
  const compare = (a: Row, b: Row): number => {
    const x = a.score as number | null;
    const y = b.score as number | null;
    if (x === null || y === null) return x === y ? 0 : (x === null) === c.nullsFirst ? -1 : 1;
    return c.desc ? y - x : x - y;
  };
  const rows: Row[] = [];
  const ordered = [...buckets.values()].sort((a, b) => a.end - b.end || a.seq - b.seq);
  for (const bucket of ordered) {
    const sorted = [...bucket.rows].sort(compare); // stable: ties stay in arrival order
    let rank = 0;
    sorted.forEach((row, i) => {
      const tied = i > 0 && compare(sorted[i - 1]!, row) === 0;
      if (c.rankType === 'ROW_NUMBER') rank = i + 1;
      else if (!tied) rank = c.rankType === 'RANK' ? i + 1 : rank + 1;
      if (rank >= c.start && rank <= c.end) rows.push(c.withNumber ? { ...row, rn: rank } : row);
    });
  }
  return { rows, late };
}

async function run(c: Case): Promise<{ rank: OperatorHarness; tvf: OperatorHarness }> {
  const tvfSpec = { window: c.window };
  const spec: WindowRankSpec = {
    rankType: c.rankType,
    partitionBy: ['p'],
    orderBy: [{ column: 'score', direction: c.desc ? 'DESC' : 'ASC', nullsFirst: c.nullsFirst }],
    rankRange: { type: 'constant', start: c.start, end: c.end },
    ...(c.withNumber ? { rankNumberColumn: 'rn' } : {}),
    windowStartColumn: 'window_start',
    windowEndColumn: 'window_end',
  };
  const tvf = await OperatorHarness.open(() => createWindowTableFunctionOperator(tvfSpec, INPUT));
  const rank = await OperatorHarness.open(() => createWindowRankOperator(spec, windowTableFunctionOutputSchema(tvfSpec, INPUT)));
  let watermark = -Infinity;
  let id = 0;
  for (const step of c.steps) {
    const batch: ChangeRow[] = step.events.map((e) => insert({ p: e.p, id: id++, score: e.score, t: e.t }));
    await rank.processBatch(await tvf.processBatch(batch));
    if (step.advance !== undefined) {
      watermark = (watermark === -Infinity ? 0 : watermark) + step.advance;
      await rank.processBatch(await tvf.processWatermark(watermark));
      await rank.processWatermark(watermark);
    }
  }
  await rank.processBatch(await tvf.endInput());
  await rank.endInput();
  return { rank, tvf };
}

describe('window Top-N property', () => {
  it('equals the batch computation, in order, with late windows of rows on the rank side output and no state left', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const expected = model(c);
        const { rank, tvf } = await run(c);
        const output = rank.output();
        expect(output.every((r) => r.kind === '+I')).toBe(true);
        expect(output.map((r) => r.row)).toEqual(expected.rows);
        expect(tvf.sideOutput('late')).toEqual([]);
        expect(rank.sideOutput('late')).toEqual(expected.late);
        expect(rank.metrics.get('numLateRecordsDropped') ?? 0).toBe(expected.late.length);
        expect(rank.state.stats().entries).toBe(0);
        expect(rank.timers.pendingTimers('event')).toBe(0);
      }),
      { numRuns: 150 },
    );
  });
});
