/**
 * Interval join operator: Flink's RowTimeIntervalJoinTest scenarios (rows `(rowtime, key)`,
 * joined on the key), the held-back output watermark, processing time, NULL keys and invalid
 * rowtimes.
 */
import { describe, expect, it } from 'vitest';
import { schemaOf } from '../../../shared/core/type-parse.ts';
import type { Row, Schema } from '../../../shared/core/types.ts';
import { createIntervalJoinOperator, intervalJoinOutputSchema, type IntervalJoinSpec } from '../../../shared/operators/join/interval-join.ts';
import { OperatorHarness, insert, del } from '../../harness/index.ts';

const rows: Schema = { fields: [{ name: 't', type: { root: 'TIMESTAMP', nullable: true, precision: 3 }, timeAttribute: 'rowtime' }, ...schemaOf({ k: 'STRING' }).fields] };

function spec(joinType: IntervalJoinSpec['joinType'], lower: number, upper: number, minCleanUpIntervalMs?: number): IntervalJoinSpec {
  return {
    joinType,
    leftSchema: rows,
    rightSchema: rows,
    leftKeys: ['k'],
    rightKeys: ['k'],
    timeDomain: 'event',
    leftTimeColumn: 't',
    rightTimeColumn: 't',
    leftLowerBoundMs: lower,
    leftUpperBoundMs: upper,
    ...(minCleanUpIntervalMs !== undefined ? { minCleanUpIntervalMs } : {}),
  };
}

const r = (t: number, k: string): Row => ({ t, k });
/** Flink's `insertRecord(lt, lk, rt, rk)`. */
const out = (lt: number | null, lk: string | null, rt: number | null, rk: string | null): Row => ({ t: lt, k: lk, t0: rt, k0: rk });

async function watermark(h: OperatorHarness, wm: number): Promise<void> {
  await h.processWatermark(wm);
}

describe('IntervalJoin (event time): Flink RowTimeIntervalJoinTest', () => {
  it('inner join with common bounds: a.t >= b.t - 10 and a.t <= b.t + 20 (late rows are still joined)', async () => {
    const h = await OperatorHarness.open(() => createIntervalJoinOperator(spec('INNER', -10, 20, 15)));
    await watermark(h, 1);
    await h.processLeft(insert(r(1, 'k1')), insert(r(2, 'k1')));
    await h.processRight(insert(r(2, 'k1')));
    await h.processLeft(insert(r(5, 'k1')));
    await h.processRight(insert(r(15, 'k1')));
    await watermark(h, 20);
    await h.processLeft(insert(r(35, 'k1')));
    await watermark(h, 38);
    await h.processLeft(insert(r(40, 'k2')));
    await h.processRight(insert(r(39, 'k2')));
    await watermark(h, 61);
    expect(h.output()).toEqual([
      insert(out(1, 'k1', 2, 'k1')),
      insert(out(2, 'k1', 2, 'k1')),
      insert(out(5, 'k1', 2, 'k1')),
      insert(out(5, 'k1', 15, 'k1')),
      insert(out(35, 'k1', 15, 'k1')),
      insert(out(40, 'k2', 39, 'k2')),
    ]);
    // Output watermarks are held back by max(10, 20): Flink's Watermark(-19), (0), (18), (41).
    expect([1, 20, 38, 61].map((wm) => h.runner.outputWatermark(wm))).toEqual([-19, 0, 18, 41]);
  });

  it('inner join with negative bounds: a.t >= b.t - 10 and a.t <= b.t - 7', async () => {
    const h = await OperatorHarness.open(() => createIntervalJoinOperator(spec('INNER', -10, -7, 0)));
    await watermark(h, 1);
    await h.processRight(insert(r(2, 'k1')));
    await watermark(h, 2);
    await h.processLeft(insert(r(3, 'k1')));
    await h.processRight(insert(r(3, 'k1')), insert(r(13, 'k1')));
    await h.processLeft(insert(r(6, 'k1')));
    await watermark(h, 10);
    await watermark(h, 18);
    expect(h.output()).toEqual([insert(out(3, 'k1', 13, 'k1')), insert(out(6, 'k1', 13, 'k1'))]);
    expect(h.state.stats().entries).toBe(0);
  });

  it('left outer join pads rows that never joined when they expire, and late rows at once', async () => {
    const h = await OperatorHarness.open(() => createIntervalJoinOperator(spec('LEFT', -5, 9, 7)));
    await h.processLeft(insert(r(1, 'k1')));
    await h.processRight(insert(r(1, 'k2')));
    // The left row at 1 is padded and dropped at 14 = 1 + 5 + 1 + 7.
    expect(await h.processWatermark(13)).toEqual([]);
    expect(await h.processWatermark(14)).toEqual([insert(out(1, 'k1', null, null))]);
    await watermark(h, 18);
    expect(h.state.stats().entries).toBe(0);
    // Late rows are not kept; the left one is padded straight away.
    expect(await h.processLeft(insert(r(2, 'k1')))).toEqual([insert(out(2, 'k1', null, null))]);
    expect(await h.processRight(insert(r(2, 'k2')))).toEqual([]);
    await h.processLeft(insert(r(19, 'k1')), insert(r(20, 'k1')));
    await h.processRight(insert(r(26, 'k1')), insert(r(25, 'k1')));
    await h.processLeft(insert(r(21, 'k1')));
    await h.processRight(insert(r(39, 'k2')), insert(r(40, 'k2')));
    await h.processLeft(insert(r(50, 'k2')), insert(r(49, 'k2')));
    await h.processRight(insert(r(41, 'k2')));
    await watermark(h, 100);
    expect(h.output().slice(2)).toEqual([
      insert(out(20, 'k1', 25, 'k1')),
      insert(out(21, 'k1', 25, 'k1')),
      insert(out(21, 'k1', 26, 'k1')),
      insert(out(49, 'k2', 40, 'k2')),
      insert(out(49, 'k2', 41, 'k2')),
      insert(out(50, 'k2', 41, 'k2')),
      insert(out(19, 'k1', null, null)),
    ]);
  });

  it('right outer join pads right rows symmetrically', async () => {
    const h = await OperatorHarness.open(() => createIntervalJoinOperator(spec('RIGHT', -5, 9, 7)));
    await h.processLeft(insert(r(1, 'k1')));
    await h.processRight(insert(r(1, 'k2')));
    expect(await h.processWatermark(14)).toEqual([]);
    // The right row at 1 is padded and dropped at 18 = 1 + 9 + 1 + 7.
    expect(await h.processWatermark(18)).toEqual([insert(out(null, null, 1, 'k2'))]);
    expect(await h.processRight(insert(r(2, 'k2')))).toEqual([insert(out(null, null, 2, 'k2'))]);
  });

  it('full outer join pads both sides at the end of input', async () => {
    const h = await OperatorHarness.open(() => createIntervalJoinOperator(spec('FULL', -5, 5)));
    await h.processLeft(insert(r(100, 'a')), insert(r(100, 'b')));
    await h.processRight(insert(r(103, 'a')), insert(r(200, 'b')));
    await h.endInput();
    expect(h.output()).toEqual([insert(out(100, 'a', 103, 'a')), insert(out(100, 'b', null, null)), insert(out(null, null, 200, 'b'))]);
    expect(h.state.stats().entries).toBe(0);
  });
});

describe('IntervalJoin: keys, kinds and processing time', () => {
  it('keeps both rowtime attributes in its output schema', () => {
    expect(intervalJoinOutputSchema(spec('INNER', -1, 1)).fields.map((f) => [f.name, f.timeAttribute])).toEqual([
      ['t', 'rowtime'],
      ['k', undefined],
      ['t0', 'rowtime'],
      ['k0', undefined],
    ]);
  });

  it('rejects updating input and bad bounds, naming them', async () => {
    expect(() => createIntervalJoinOperator(spec('INNER', 5, 1))).toThrow(/lower <= upper \(given 5, 1\)/);
    const h = await OperatorHarness.open(() => createIntervalJoinOperator(spec('INNER', -1, 1)));
    await expect(h.processLeft(del(r(1, 'a')))).rejects.toThrow(/doesn't support consuming update and delete changes, but got a -D row/);
  });

  it('NULL keys never match; rows without a rowtime go to the invalid-rowtime side output', async () => {
    const h = await OperatorHarness.open(() => createIntervalJoinOperator(spec('LEFT', -5, 5)));
    expect(await h.processLeft(insert({ t: 10, k: null }))).toEqual([insert(out(10, null, null, null))]);
    expect(await h.processRight(insert({ t: 10, k: null }))).toEqual([]);
    expect(await h.processLeft(insert({ t: null, k: 'a' }))).toEqual([]);
    expect(h.extractSideOutput('invalid-rowtime')).toEqual([{ t: null, k: 'a' }]);
  });

  it('joins by arrival time in processing time', async () => {
    const proc: IntervalJoinSpec = { ...spec('LEFT', -10, 10), timeDomain: 'processing', leftSchema: schemaOf({ k: 'STRING' }), rightSchema: schemaOf({ k: 'STRING' }) };
    delete (proc as { leftTimeColumn?: string }).leftTimeColumn;
    const h = await OperatorHarness.open(() => createIntervalJoinOperator(proc));
    await h.setProcessingTime(1000);
    await h.processLeft(insert({ k: 'a' }), insert({ k: 'b' }));
    await h.setProcessingTime(1005);
    expect(await h.processRight(insert({ k: 'a' }))).toEqual([insert({ k: 'a', k0: 'a' })]);
    // 'b' never joins: padded once processing time passes its range and cleanup runs.
    expect(await h.setProcessingTime(1030)).toEqual([insert({ k: 'b', k0: null })]);
    await h.setProcessingTime(1100);
    expect(await h.processRight(insert({ k: 'a' }))).toEqual([]);
  });
});
