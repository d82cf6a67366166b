/**
 * Regular join operator: Flink's StreamingJoinOperatorTest scenarios (orders ⋈ line orders on
 * line_order_id, state retention per side), the outer-join null-padding transitions, the three
 * state views, residual conditions, NULL keys, duplicates and snapshot/restore.
 */
import { describe, expect, it } from 'vitest';
import { schemaOf } from '../../../shared/core/type-parse.ts';
import type { Row } from '../../../shared/core/types.ts';
import { and, col, gt, lit } from '../../../shared/plan/expr-build.ts';
import type { Expr } from '../../../shared/plan/expr.ts';
import { createStreamingJoinOperator, streamingJoinOutputSchema, type StreamingJoinSpec } from '../../../shared/operators/join/streaming-join.ts';
import type { JoinInputSpec } from '../../../shared/operators/join/record-state-views.ts';
import { OperatorHarness, del, insert, materialize, updateAfter, updateBefore } from '../../harness/index.ts';

const orders = schemaOf({ order_id: 'STRING NOT NULL', line_order_id: 'STRING NOT NULL', shipping_address: 'STRING' });
const lineOrders = schemaOf({ line_order_id: 'STRING NOT NULL', line_order_ship_mode: 'STRING' });

const UNIQUE: JoinInputSpec = { type: 'JoinKeyContainsUniqueKey' };
const NO_KEY: JoinInputSpec = { type: 'NoUniqueKey' };

function spec(joinType: StreamingJoinSpec['joinType'], options: Partial<StreamingJoinSpec> = {}): StreamingJoinSpec {
  return {
    joinType,
    leftSchema: orders,
    rightSchema: lineOrders,
    leftKeys: ['line_order_id'],
    rightKeys: ['line_order_id'],
    leftInput: UNIQUE,
    rightInput: UNIQUE,
    ...options,
  };
}

const open = (s: StreamingJoinSpec): Promise<OperatorHarness> => OperatorHarness.open(() => createStreamingJoinOperator(s));

const order = (line: string, address: string): Row => ({ order_id: 'Ord#1', line_order_id: line, shipping_address: address });
const line = (id: string, mode: string | null): Row => ({ line_order_id: id, line_order_ship_mode: mode });
/** The joined row: the right key is renamed line_order_id0, as Calcite uniquifies. */
const joined = (l: Row | null, r: Row | null): Row => ({
  order_id: l?.order_id ?? null,
  line_order_id: l?.line_order_id ?? null,
  shipping_address: l?.shipping_address ?? null,
  line_order_id0: r?.line_order_id ?? null,
  line_order_ship_mode: r?.line_order_ship_mode ?? null,
});

const BELLEVUE = '3 Bellevue Drive, Pottstown, PA 19464';
const HONOLULU = '68 Manor Station Street, Honolulu, HI 96815';

describe('StreamingJoin: output schema', () => {
  it('concatenates the inputs, renames clashing right columns and makes the padded side nullable', () => {
    expect(streamingJoinOutputSchema(spec('LEFT')).fields.map((f) => [f.name, f.type.nullable])).toEqual([
      ['order_id', false],
      ['line_order_id', false],
      ['shipping_address', true],
      ['line_order_id0', true],
      ['line_order_ship_mode', true],
    ]);
    expect(streamingJoinOutputSchema(spec('RIGHT')).fields.map((f) => f.type.nullable)).toEqual([true, true, true, false, true]);
  });

  it('rejects keys of different encodings and unknown columns, naming them', () => {
    const bad = { ...spec('INNER'), rightSchema: schemaOf({ line_order_id: 'BIGINT', m: 'STRING' }) };
    expect(() => createStreamingJoinOperator(bad)).toThrow(/key line_order_id = line_order_id compares STRING with BIGINT/);
    expect(() => createStreamingJoinOperator({ ...spec('INNER'), leftKeys: ['nope'] })).toThrow(/Column 'nope' not found in Join left key/);
    expect(() => createStreamingJoinOperator({ ...spec('INNER'), rightKeys: [] })).toThrow(/1 left key columns but 0 right key columns/);
  });
});

describe('StreamingJoin: Flink StreamingJoinOperatorTest', () => {
  it('inner join with different state retention per side (testInnerJoinWithDifferentStateRetentionTime)', async () => {
    const h = await open(spec('INNER', { leftStateTtlMs: 4000, rightStateTtlMs: 1000 }));
    await h.setProcessingTime(1);
    expect(await h.processLeft(insert(order('LineOrd#1', BELLEVUE)))).toEqual([]);
    expect(await h.processLeft(insert(order('LineOrd#2', BELLEVUE)))).toEqual([]);
    expect(await h.processRight(insert(line('LineOrd#2', 'AIR')))).toEqual([insert(joined(order('LineOrd#2', BELLEVUE), line('LineOrd#2', 'AIR')))]);
    // The right row of LineOrd#2 has expired.
    await h.setProcessingTime(3000);
    expect(await h.processLeft(updateAfter(order('LineOrd#2', HONOLULU)))).toEqual([]);
    expect(await h.processRight(updateAfter(line('LineOrd#2', 'SHIP')))).toEqual([
      updateAfter(joined(order('LineOrd#2', HONOLULU), line('LineOrd#2', 'SHIP'))),
    ]);
    // The left row of LineOrd#1 has expired.
    await h.setProcessingTime(4001);
    expect(await h.processRight(insert(line('LineOrd#1', 'TRUCK')))).toEqual([]);
    expect(await h.processRight(del(line('LineOrd#2', 'SHIP')))).toEqual([del(joined(order('LineOrd#2', HONOLULU), line('LineOrd#2', 'SHIP')))]);
    // The left row of LineOrd#2 (written at 3000) has expired.
    await h.setProcessingTime(7000);
    expect(await h.processRight(insert(line('LineOrd#2', 'RAIL')))).toEqual([]);
  });

  it('left outer join: padded rows retracted on the first match and restored when the last goes', async () => {
    const h = await open(spec('LEFT'));
    expect(await h.processLeft(insert(order('LineOrd#1', BELLEVUE)))).toEqual([insert(joined(order('LineOrd#1', BELLEVUE), null))]);
    expect(await h.processLeft(insert(order('LineOrd#2', BELLEVUE)))).toEqual([insert(joined(order('LineOrd#2', BELLEVUE), null))]);
    expect(await h.processRight(insert(line('LineOrd#2', 'AIR')))).toEqual([
      del(joined(order('LineOrd#2', BELLEVUE), null)),
      insert(joined(order('LineOrd#2', BELLEVUE), line('LineOrd#2', 'AIR'))),
    ]);
    // An update of the outer side: its old joined row goes, the new one comes (as -D / +I).
    expect(await h.processLeft(updateBefore(order('LineOrd#2', BELLEVUE)), updateAfter(order('LineOrd#2', HONOLULU)))).toEqual([
      del(joined(order('LineOrd#2', BELLEVUE), line('LineOrd#2', 'AIR'))),
      insert(joined(order('LineOrd#2', HONOLULU), line('LineOrd#2', 'AIR'))),
    ]);
    // An update of the inner side: -U of the old match (the input's kind), +I of the new.
    expect(await h.processRight(updateBefore(line('LineOrd#2', 'AIR')), updateAfter(line('LineOrd#2', 'SHIP')))).toEqual([
      updateBefore(joined(order('LineOrd#2', HONOLULU), line('LineOrd#2', 'AIR'))),
      insert(joined(order('LineOrd#2', HONOLULU), null)),
      del(joined(order('LineOrd#2', HONOLULU), null)),
      insert(joined(order('LineOrd#2', HONOLULU), line('LineOrd#2', 'SHIP'))),
    ]);
    expect(await h.processRight(del(line('LineOrd#2', 'SHIP')))).toEqual([
      del(joined(order('LineOrd#2', HONOLULU), line('LineOrd#2', 'SHIP'))),
      insert(joined(order('LineOrd#2', HONOLULU), null)),
    ]);
    expect(materialize(h.output())).toEqual([joined(order('LineOrd#1', BELLEVUE), null), joined(order('LineOrd#2', HONOLULU), null)]);
  });

  it('right outer join with different retention (testRightOuterJoinWithDifferentStateRetentionTime)', async () => {
    const h = await open(spec('RIGHT', { leftStateTtlMs: 4000, rightStateTtlMs: 1000 }));
    await h.setProcessingTime(1);
    expect(await h.processLeft(insert(order('LineOrd#1', BELLEVUE)), insert(order('LineOrd#2', BELLEVUE)))).toEqual([]);
    // The left rows have expired.
    await h.setProcessingTime(4001);
    expect(await h.processRight(insert(line('LineOrd#2', 'AIR')))).toEqual([insert(joined(null, line('LineOrd#2', 'AIR')))]);
    expect(await h.processRight(insert(line('LineOrd#1', 'TRUCK')))).toEqual([insert(joined(null, line('LineOrd#1', 'TRUCK')))]);
    // The right rows have expired.
    await h.setProcessingTime(5001);
    expect(await h.processLeft(insert(order('LineOrd#2', HONOLULU)))).toEqual([]);
    expect(await h.processRight(insert(line('LineOrd#2', 'SHIP')))).toEqual([insert(joined(order('LineOrd#2', HONOLULU), line('LineOrd#2', 'SHIP')))]);
    expect(await h.processRight(insert(line('LineOrd#1', 'RAIL')))).toEqual([insert(joined(null, line('LineOrd#1', 'RAIL')))]);
    await h.setProcessingTime(6000);
    expect(await h.processLeft(insert(order('LineOrd#1', 'Haines City')))).toEqual([
      del(joined(null, line('LineOrd#1', 'RAIL'))),
      insert(joined(order('LineOrd#1', 'Haines City'), line('LineOrd#1', 'RAIL'))),
    ]);
    // The right row of LineOrd#1 (written at 5001) has expired: the delete finds no match.
    await h.setProcessingTime(7000);
    expect(await h.processLeft(del(order('LineOrd#1', 'Haines City')))).toEqual([]);
  });
});

describe('StreamingJoin: full outer join over rows without a unique key', () => {
  const s = spec('FULL', { leftInput: NO_KEY, rightInput: NO_KEY });

  it('counts equal rows: each copy has its own joined and padded rows', async () => {
    const h = await open(s);
    const l = order('k', 'a');
    const r = line('k', 'x');
    expect(await h.processLeft(insert(l), insert(l))).toEqual([insert(joined(l, null)), insert(joined(l, null))]);
    expect(await h.processRight(insert(r))).toEqual([
      del(joined(l, null)),
      del(joined(l, null)),
      insert(joined(l, r)),
      insert(joined(l, r)),
    ]);
    expect(await h.processRight(insert(r))).toEqual([insert(joined(l, r)), insert(joined(l, r))]);
    // One left copy goes: two joined rows go; the right rows still have a match.
    expect(await h.processLeft(del(l))).toEqual([del(joined(l, r)), del(joined(l, r))]);
    // The last left copy goes: both right rows are padded again.
    expect(await h.processLeft(del(l))).toEqual([del(joined(l, r)), del(joined(l, r)), insert(joined(null, r)), insert(joined(null, r))]);
    expect(materialize(h.output())).toEqual([joined(null, r), joined(null, r)]);
    expect(await h.processRight(del(r), del(r))).toEqual([del(joined(null, r)), del(joined(null, r))]);
  });

  it('a residual condition decides matches; unmatched rows stay padded', async () => {
    const withMode = { ...s, condition: gt(col('shipping_address'), col('line_order_ship_mode')) as Expr };
    const h = await open(withMode);
    const l = order('k', 'm');
    const low = line('k', 'a');
    const high = line('k', 'z');
    await h.processLeft(insert(l));
    expect(await h.processRight(insert(high))).toEqual([insert(joined(null, high))]);
    expect(await h.processRight(insert(low))).toEqual([del(joined(l, null)), insert(joined(l, low))]);
    expect(materialize(h.output())).toEqual([joined(null, high), joined(l, low)]);
  });
});

describe('StreamingJoin: keys, kinds and views', () => {
  it('an inner join of two inner sides forwards the input kinds', async () => {
    const h = await open(spec('INNER', { leftInput: NO_KEY, rightInput: NO_KEY }));
    const l = order('k', 'a');
    await h.processLeft(insert(l));
    expect(await h.processRight(insert(line('k', 'x')))).toEqual([insert(joined(l, line('k', 'x')))]);
    expect(await h.processRight(updateBefore(line('k', 'x')), updateAfter(line('k', 'y')))).toEqual([
      updateBefore(joined(l, line('k', 'x'))),
      updateAfter(joined(l, line('k', 'y'))),
    ]);
  });

  it('a NULL join key matches nothing: dropped on an inner side, padded on an outer side, never stored', async () => {
    const nullable = schemaOf({ k: 'BIGINT', v: 'STRING' });
    const h = await open({ joinType: 'LEFT', leftSchema: nullable, rightSchema: nullable, leftKeys: ['k'], rightKeys: ['k'], leftInput: NO_KEY, rightInput: NO_KEY });
    expect(await h.processLeft(insert({ k: null, v: 'a' }))).toEqual([insert({ k: null, v: 'a', k0: null, v0: null })]);
    expect(await h.processRight(insert({ k: null, v: 'b' }))).toEqual([]);
    expect(await h.processLeft(del({ k: null, v: 'a' }))).toEqual([del({ k: null, v: 'a', k0: null, v0: null })]);
    expect(h.state.stats().entries).toBe(0);
  });

  it('a unique key not in the join key keeps one row per unique key (HasUniqueKey)', async () => {
    const h = await open(spec('INNER', { leftInput: { type: 'HasUniqueKey', uniqueKey: ['order_id'] }, rightInput: NO_KEY }));
    const a = { order_id: 'A', line_order_id: 'k', shipping_address: 'x' };
    const b = { order_id: 'B', line_order_id: 'k', shipping_address: 'y' };
    await h.processLeft(insert(a), insert(b));
    expect(await h.processRight(insert(line('k', 'm')))).toHaveLength(2);
    // A repeated unique key without a retraction replaces the kept row, retracting it first.
    const a2 = { ...a, shipping_address: 'z' };
    expect(await h.processLeft(insert(a2))).toEqual([updateBefore(joined(a, line('k', 'm'))), insert(joined(a2, line('k', 'm')))]);
    expect(materialize(h.output())).toHaveLength(2);
  });

  it('keeps the inputs across snapshot and restore', async () => {
    const s = spec('FULL', { leftInput: NO_KEY, rightInput: NO_KEY });
    const h = await open(s);
    await h.processLeft(insert(order('k', 'a')));
    const restored = await OperatorHarness.restore(() => createStreamingJoinOperator(s), h.snapshot());
    expect(await restored.processRight(insert(line('k', 'x')))).toEqual([
      del(joined(order('k', 'a'), null)),
      insert(joined(order('k', 'a'), line('k', 'x'))),
    ]);
  });

  it('processes a batch as its rows one by one', async () => {
    const s = spec('LEFT', { leftInput: NO_KEY, rightInput: NO_KEY, condition: and(gt(col('line_order_ship_mode'), lit('b')), lit(true)) as Expr });
    const rows = [insert(order('k', 'a')), insert(order('j', 'b')), insert(order('k', 'c'))];
    const one = await open(s);
    const batch = await open(s);
    await one.processLeft(...rows);
    await batch.processBatch(rows, 'left');
    const right = [insert(line('k', 'c')), insert(line('k', 'a')), del(line('k', 'c'))];
    await one.processRight(...right);
    await batch.processBatch(right, 'right');
    expect(batch.output()).toEqual(one.output());
  });
});
