/**
 * Regular SEMI / ANTI join operator: Flink's StreamingSemiAntiJoinOperatorTest scenarios (orders
 * semi / anti joined with line orders on line_order_id, state retention per side) with their
 * exact changelogs, then what the operator adds around them: right-side update kinds, copies of
 * rows without a unique key, residual and null-aware conditions, NULL and IS NOT DISTINCT FROM
 * keys, snapshot / restore, and batches.
 */
import { describe, expect, it } from 'vitest';
import { schemaOf } from '../../../shared/core/type-parse.ts';
import type { Row } from '../../../shared/core/types.ts';
import { call, col, gt } from '../../../shared/plan/expr-build.ts';
import type { Expr } from '../../../shared/plan/expr.ts';
import { createStreamingJoinOperator, streamingJoinOutputSchema } from '../../../shared/operators/join/streaming-join.ts';
import type { SemiAntiJoinSpec } from '../../../shared/operators/join/semi-anti-join.ts';
import type { JoinInputSpec } from '../../../shared/operators/join/record-state-views.ts';
import { OperatorHarness, del, insert, materialize, updateAfter, updateBefore } from '../../harness/index.ts';

const orders = schemaOf({ order_id: 'STRING NOT NULL', line_order_id: 'STRING NOT NULL', shipping_address: 'STRING' });
const lineOrders = schemaOf({ line_order_id: 'STRING NOT NULL', line_order_ship_mode: 'STRING' });

const UNIQUE: JoinInputSpec = { type: 'JoinKeyContainsUniqueKey' };
const NO_KEY: JoinInputSpec = { type: 'NoUniqueKey' };

/** Flink's test base: both sides unique on the join key line_order_id. */
function spec(joinType: 'SEMI' | 'ANTI', options: Partial<SemiAntiJoinSpec> = {}): SemiAntiJoinSpec {
  return { joinType, leftSchema: orders, rightSchema: lineOrders, leftKeys: ['line_order_id'], rightKeys: ['line_order_id'], leftInput: UNIQUE, rightInput: UNIQUE, ...options };
}

const open = (s: SemiAntiJoinSpec): Promise<OperatorHarness> => OperatorHarness.open(() => createStreamingJoinOperator(s));

const order = (line: string, address: string): Row => ({ order_id: 'Ord#1', line_order_id: line, shipping_address: address });
const line = (id: string, mode: string | null): Row => ({ line_order_id: id, line_order_ship_mode: mode });

const BELLEVUE = '3 Bellevue Drive, Pottstown, PA 19464';
const MARSH = '7238 Marsh St., Birmingham, AL 35209';
const RIVER = '23 W. River Avenue, Port Orange, FL 32127';

describe('SemiAntiJoin: Flink StreamingSemiAntiJoinOperatorTest', () => {
  it('left semi join with different state retention per side (testLeftSemiJoinWithDifferentStateRetentionTime)', async () => {
    const h = await open(spec('SEMI', { leftStateTtlMs: 4000, rightStateTtlMs: 1000 }));
    await h.setProcessingTime(1);
    expect(await h.processLeft(insert(order('LineOrd#1', BELLEVUE)))).toEqual([]);
    expect(await h.processLeft(insert(order('LineOrd#2', BELLEVUE)))).toEqual([]);
    await h.setProcessingTime(3001);
    expect(await h.processRight(insert(line('LineOrd#2', 'AIR')))).toEqual([insert(order('LineOrd#2', BELLEVUE))]);
    expect(await h.processRight(updateAfter(line('LineOrd#2', 'TRUCK')))).toEqual([]);
    expect(await h.processRight(del(line('LineOrd#2', 'TRUCK')))).toEqual([]);
    // The association count is down to 1: the last retraction retracts the left row.
    expect(await h.processRight(del(line('LineOrd#2', 'AIR')))).toEqual([del(order('LineOrd#2', BELLEVUE))]);
    // The left row of LineOrd#1 has expired.
    await h.setProcessingTime(4001);
    expect(await h.processRight(insert(line('LineOrd#1', 'SHIP')))).toEqual([]);
    // The right row of LineOrd#1 has expired.
    await h.setProcessingTime(5001);
    expect(await h.processLeft(updateAfter(order('LineOrd#1', MARSH)))).toEqual([]);
  });

  it('left semi join without state retention (testLeftSemiJoinWithStateRetentionDisabled)', async () => {
    const h = await open(spec('SEMI'));
    await h.setProcessingTime(1);
    expect(await h.processLeft(insert(order('LineOrd#1', BELLEVUE)))).toEqual([]);
    expect(await h.processLeft(insert(order('LineOrd#2', BELLEVUE)))).toEqual([]);
    await h.setProcessingTime(3001);
    expect(await h.processRight(insert(line('LineOrd#2', 'AIR')))).toEqual([insert(order('LineOrd#2', BELLEVUE))]);
    expect(await h.processRight(updateAfter(line('LineOrd#2', 'TRUCK')))).toEqual([]);
    expect(await h.processRight(del(line('LineOrd#2', 'TRUCK')))).toEqual([]);
    expect(await h.processRight(del(line('LineOrd#2', 'AIR')))).toEqual([del(order('LineOrd#2', BELLEVUE))]);
    await h.setProcessingTime(4001);
    expect(await h.processRight(insert(line('LineOrd#1', 'SHIP')))).toEqual([insert(order('LineOrd#1', BELLEVUE))]);
    await h.setProcessingTime(5001);
    expect(await h.processLeft(updateAfter(order('LineOrd#1', MARSH)))).toEqual([updateAfter(order('LineOrd#1', MARSH))]);
  });

  it('left anti join with different state retention per side (testLeftAntiJoinWithDifferentStateRetentionTime)', async () => {
    const h = await open(spec('ANTI', { leftStateTtlMs: 4000, rightStateTtlMs: 1000 }));
    await h.setProcessingTime(1);
    expect(await h.processLeft(insert(order('LineOrd#1', BELLEVUE)))).toEqual([insert(order('LineOrd#1', BELLEVUE))]);
    expect(await h.processLeft(insert(order('LineOrd#2', BELLEVUE)))).toEqual([insert(order('LineOrd#2', BELLEVUE))]);
    await h.setProcessingTime(3001);
    expect(await h.processRight(insert(line('LineOrd#2', 'AIR')))).toEqual([del(order('LineOrd#2', BELLEVUE))]);
    // The left row of LineOrd#1 has expired.
    await h.setProcessingTime(4001);
    expect(await h.processRight(insert(line('LineOrd#1', 'RAIL')))).toEqual([]);
    // The right row of LineOrd#1 has expired.
    await h.setProcessingTime(5001);
    expect(await h.processLeft(updateAfter(order('LineOrd#1', RIVER)))).toEqual([updateAfter(order('LineOrd#1', RIVER))]);
  });

  it('left anti join without state retention (testLeftAntiJoinWithStateRetentionTimeDisabled)', async () => {
    const h = await open(spec('ANTI'));
    await h.setProcessingTime(1);
    expect(await h.processLeft(insert(order('LineOrd#1', BELLEVUE)))).toEqual([insert(order('LineOrd#1', BELLEVUE))]);
    expect(await h.processLeft(insert(order('LineOrd#2', BELLEVUE)))).toEqual([insert(order('LineOrd#2', BELLEVUE))]);
    await h.setProcessingTime(3001);
    expect(await h.processRight(insert(line('LineOrd#2', 'AIR')))).toEqual([del(order('LineOrd#2', BELLEVUE))]);
    await h.setProcessingTime(4001);
    expect(await h.processRight(insert(line('LineOrd#1', 'RAIL')))).toEqual([del(order('LineOrd#1', BELLEVUE))]);
    await h.setProcessingTime(5001);
    expect(await h.processLeft(updateAfter(order('LineOrd#1', RIVER)))).toEqual([]);
  });
});

describe('SemiAntiJoin: changelogs', () => {
  it('the output is the left row, time attributes materialized', () => {
    const timed = schemaOf({ k: 'BIGINT', ts: 'TIMESTAMP(3)' });
    const withTime = { fields: timed.fields.map((f) => (f.name === 'ts' ? { ...f, timeAttribute: 'rowtime' as const } : f)) };
    expect(streamingJoinOutputSchema({ ...spec('SEMI'), leftSchema: withTime, rightSchema: timed, leftKeys: ['k'], rightKeys: ['k'] })).toEqual(timed);
  });

  it('SEMI: a right update emits -U / +U of the left row only across 0 and 1 matches', async () => {
    const h = await open(spec('SEMI', { leftInput: NO_KEY, rightInput: NO_KEY }));
    const l = order('k', 'a');
    expect(await h.processLeft(insert(l))).toEqual([]);
    expect(await h.processRight(insert(line('k', 'x')))).toEqual([insert(l)]);
    // The right row is updated: its -U drops the only match, its +U brings one back.
    expect(await h.processRight(updateBefore(line('k', 'x')), updateAfter(line('k', 'y')))).toEqual([updateBefore(l), updateAfter(l)]);
    expect(await h.processRight(insert(line('k', 'z')))).toEqual([]);
    expect(await h.processRight(del(line('k', 'y')))).toEqual([]);
    // The left row is updated while matched: both versions pass through with their kinds.
    const l2 = order('k', 'b');
    expect(await h.processLeft(updateBefore(l), updateAfter(l2))).toEqual([updateBefore(l), updateAfter(l2)]);
    expect(await h.processRight(del(line('k', 'z')))).toEqual([del(l2)]);
    // A left retraction of a row that was not emitted passes nothing.
    expect(await h.processLeft(del(l2))).toEqual([]);
    expect(materialize(h.output())).toEqual([]);
  });

  it('ANTI: a left row comes and goes as matches go and come; a matched left row retracts silently', async () => {
    const h = await open(spec('ANTI', { leftInput: NO_KEY, rightInput: NO_KEY }));
    const l = order('k', 'a');
    expect(await h.processLeft(insert(l))).toEqual([insert(l)]);
    expect(await h.processRight(insert(line('k', 'x')), insert(line('k', 'y')))).toEqual([del(l)]);
    expect(await h.processRight(updateBefore(line('k', 'x')))).toEqual([]);
    expect(await h.processRight(del(line('k', 'y')))).toEqual([insert(l)]);
    expect(await h.processRight(updateAfter(line('k', 'x')))).toEqual([del(l)]);
    expect(await h.processLeft(del(l))).toEqual([]);
    expect(materialize(h.output())).toEqual([]);
  });

  it('copies of a left row without a unique key are emitted once each', async () => {
    const h = await open(spec('SEMI', { leftInput: NO_KEY, rightInput: NO_KEY }));
    const l = order('k', 'a');
    await h.processLeft(insert(l), insert(l));
    expect(await h.processRight(insert(line('k', 'x')))).toEqual([insert(l), insert(l)]);
    expect(await h.processLeft(del(l))).toEqual([del(l)]);
    expect(await h.processRight(del(line('k', 'x')))).toEqual([del(l)]);
    expect(h.state.stats().entries).toBe(1);
  });

  it('a residual condition decides which right rows match', async () => {
    const condition = gt(col('shipping_address'), col('line_order_ship_mode')) as Expr;
    const h = await open(spec('SEMI', { leftInput: NO_KEY, rightInput: NO_KEY, condition }));
    const l = order('k', 'm');
    await h.processLeft(insert(l));
    expect(await h.processRight(insert(line('k', 'z')))).toEqual([]);
    expect(await h.processRight(insert(line('k', 'a')))).toEqual([insert(l)]);
    expect(await h.processRight(del(line('k', 'z')))).toEqual([]);
    expect(await h.processRight(del(line('k', 'a')))).toEqual([del(l)]);
  });
});

describe('SemiAntiJoin: NULLs', () => {
  const nullable = schemaOf({ k: 'BIGINT', v: 'STRING' });
  const base = { leftSchema: nullable, rightSchema: nullable, leftKeys: ['k'], rightKeys: ['k'], leftInput: NO_KEY, rightInput: NO_KEY } as const;

  it('a NULL = key matches nothing: ANTI passes the left row through, SEMI drops it, neither keeps it', async () => {
    const anti = await open({ ...base, joinType: 'ANTI' });
    expect(await anti.processRight(insert({ k: null, v: 'r' }))).toEqual([]);
    expect(await anti.processLeft(insert({ k: null, v: 'a' }))).toEqual([insert({ k: null, v: 'a' })]);
    expect(await anti.processLeft(del({ k: null, v: 'a' }))).toEqual([del({ k: null, v: 'a' })]);
    expect(anti.state.stats().entries).toBe(0);
    const semi = await open({ ...base, joinType: 'SEMI' });
    await semi.processRight(insert({ k: null, v: 'r' }));
    expect(await semi.processLeft(insert({ k: null, v: 'a' }))).toEqual([]);
    expect(semi.state.stats().entries).toBe(0);
  });

  it('an IS NOT DISTINCT FROM key matches NULL with NULL (INTERSECT / EXCEPT)', async () => {
    const h = await open({ ...base, joinType: 'SEMI', nullSafeKeys: [true] });
    await h.processLeft(insert({ k: null, v: 'a' }), insert({ k: 1, v: 'b' }));
    expect(await h.processRight(insert({ k: null, v: 'r' }))).toEqual([insert({ k: null, v: 'a' })]);
    expect(await h.processRight(insert({ k: 2, v: 'r' }))).toEqual([]);
  });

  it("NOT IN's null-aware condition: a NULL on either side matches every row (no key, one group)", async () => {
    const notIn = call('OR', call('IS NULL', col('k')), call('IS NULL', col('k0')), call('=', col('k'), col('k0'))) as Expr;
    const h = await open({ ...base, leftKeys: [], rightKeys: [], joinType: 'ANTI', condition: notIn });
    // 1 NOT IN () and NULL NOT IN () are TRUE.
    expect(await h.processLeft(insert({ k: 1, v: 'a' }), insert({ k: null, v: 'b' }), insert({ k: 3, v: 'c' }))).toEqual([
      insert({ k: 1, v: 'a' }),
      insert({ k: null, v: 'b' }),
      insert({ k: 3, v: 'c' }),
    ]);
    // 1 NOT IN (1) is FALSE; NULL NOT IN (1) is NULL; 3 NOT IN (1) stays TRUE (rows in state order).
    expect(await h.processRight(insert({ k: 1, v: 'r' }))).toEqual([del({ k: null, v: 'b' }), del({ k: 1, v: 'a' })]);
    // 3 NOT IN (1, NULL) is NULL: a NULL in the subquery makes NOT IN never TRUE.
    expect(await h.processRight(insert({ k: null, v: 'r' }))).toEqual([del({ k: 3, v: 'c' })]);
    expect(await h.processRight(del({ k: null, v: 'r' }))).toEqual([insert({ k: 3, v: 'c' })]);
  });
});

describe('SemiAntiJoin: state', () => {
  it('keeps both sides across snapshot and restore', async () => {
    const s = spec('ANTI', { leftInput: NO_KEY, rightInput: NO_KEY });
    const h = await open(s);
    await h.processLeft(insert(order('k', 'a')));
    await h.processRight(insert(line('k', 'x')));
    const restored = await OperatorHarness.restore(() => createStreamingJoinOperator(s), h.snapshot());
    expect(await restored.processRight(del(line('k', 'x')))).toEqual([insert(order('k', 'a'))]);
  });

  it('processes a batch as its rows one by one', async () => {
    const s = spec('SEMI', { leftInput: NO_KEY, rightInput: NO_KEY });
    const left = [insert(order('k', 'a')), insert(order('j', 'b')), insert(order('k', 'c'))];
    const right = [insert(line('k', 'c')), insert(line('j', 'a')), del(line('k', 'c')), insert(line('k', 'd'))];
    const one = await open(s);
    const batch = await open(s);
    await one.processLeft(...left);
    await one.processRight(...right);
    await batch.processBatch(left, 'left');
    await batch.processBatch(right, 'right');
    expect(batch.output()).toEqual(one.output());
    expect(one.output()).toHaveLength(7);
  });
});
