/**
 * `agg(DISTINCT x) OVER w`: each value of the frame counts once, in every kind of frame (Flink's
 * over functions run the distinct-aware aggregate handler of GROUP BY; its planner tests cover
 * COUNT(DISTINCT a) / SUM(DISTINCT c) over ROWS and RANGE frames). Exact outputs for each frame,
 * then a property: every output row equals the aggregate recomputed over its frame.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChangeRow } from '../../../shared/core/row.ts';
import { schemaOf } from '../../../shared/core/type-parse.ts';
import type { Row } from '../../../shared/core/types.ts';
import type { AggCallSpec } from '../../../shared/operators/aggregate/agg-call.ts';
import { createOverAggregateOperator, type OverFrame } from '../../../shared/operators/over/over-aggregate.ts';
import { OperatorHarness, insert } from '../../harness/index.ts';

const INPUT = schemaOf({ k: 'STRING', v: 'BIGINT', ts: 'TIMESTAMP(3) NOT NULL' });

const CALLS: AggCallSpec[] = [
  { fn: 'COUNT', arg: 'v', distinct: true, name: 'cd' },
  { fn: 'SUM', arg: 'v', distinct: true, name: 'sd' },
  { fn: 'COUNT', arg: 'v', distinct: false, name: 'c' },
];

function open(frame: OverFrame, timeDomain: 'event' | 'processing' = 'event'): Promise<OperatorHarness> {
  return OperatorHarness.open(() => createOverAggregateOperator({ partitionBy: ['k'], orderBy: 'ts', timeDomain, frame, aggCalls: CALLS }, INPUT));
}

const R = (k: string, v: number | null, ts: number): ChangeRow => insert({ k, v, ts });
const O = (k: string, v: number | null, ts: number, cd: number, sd: number | null, c: number): ChangeRow => insert({ k, v, ts, cd, sd, c });

describe('OVER with DISTINCT aggregates', () => {
  it('ROWS UNBOUNDED PRECEDING: a repeated value counts once, NULL not at all', async () => {
    const h = await open({ unit: 'ROWS' });
    await h.processBatch([R('a', 1, 1), R('a', 1, 2), R('b', 7, 2), R('a', 2, 3), R('a', null, 4), R('a', 1, 5)]);
    await h.processWatermark(10);
    expect(h.extractOutput()).toEqual([O('a', 1, 1, 1, 1, 1), O('a', 1, 2, 1, 1, 2), O('b', 7, 2, 1, 7, 1), O('a', 2, 3, 2, 3, 3), O('a', null, 4, 2, 3, 3), O('a', 1, 5, 2, 3, 4)]);
  });

  it('RANGE UNBOUNDED PRECEDING: the rows of one timestamp share the result of all of them', async () => {
    const h = await open({ unit: 'RANGE' });
    await h.processBatch([R('a', 3, 1), R('a', 3, 2), R('a', 4, 2)]);
    await h.processWatermark(5);
    expect(h.extractOutput()).toEqual([O('a', 3, 1, 1, 3, 1), O('a', 3, 2, 2, 7, 3), O('a', 4, 2, 2, 7, 3)]);
  });

  it('ROWS 1 PRECEDING: a value leaves the frame with the row that carried it', async () => {
    const h = await open({ unit: 'ROWS', preceding: 1 });
    await h.processBatch([R('a', 5, 1), R('a', 5, 2), R('a', 6, 3), R('a', 6, 4)]);
    await h.processWatermark(10);
    expect(h.extractOutput()).toEqual([O('a', 5, 1, 1, 5, 1), O('a', 5, 2, 1, 5, 2), O('a', 6, 3, 2, 11, 2), O('a', 6, 4, 1, 6, 2)]);
  });

  it('RANGE 10 ms PRECEDING: rows older than the frame no longer count', async () => {
    const h = await open({ unit: 'RANGE', preceding: 10 });
    await h.processBatch([R('a', 5, 0), R('a', 6, 5), R('a', 5, 10), R('a', 6, 16)]);
    await h.processWatermark(20);
    // ts 16 sees [6, 16]: the 5 at 10 and the 6s at 16 (the 6 at 5 and the 5 at 0 have left).
    expect(h.extractOutput()).toEqual([O('a', 5, 0, 1, 5, 1), O('a', 6, 5, 2, 11, 2), O('a', 5, 10, 2, 11, 3), O('a', 6, 16, 2, 11, 2)]);
  });

  it('keeps the rows of adjacent timestamps apart (an odd millisecond is not its even neighbour)', async () => {
    const t = 1_704_067_200_003;
    const h = await open({ unit: 'RANGE', preceding: 0 });
    await h.processBatch([R('a', 1, t), R('a', 2, t + 1)]);
    await h.processWatermark(t);
    expect(h.extractOutput()).toEqual([O('a', 1, t, 1, 1, 1)]);
    await h.processWatermark(t + 1);
    expect(h.extractOutput()).toEqual([O('a', 2, t + 1, 1, 2, 1)]);
  });

  it('processing time: each row on arrival, distinct over what arrived before it', async () => {
    const h = await open({ unit: 'ROWS' }, 'processing');
    expect(await h.processBatch([R('a', 2, 0), R('a', 2, 0), R('a', 3, 0)])).toEqual([O('a', 2, 0, 1, 2, 1), O('a', 2, 0, 1, 2, 2), O('a', 3, 0, 2, 5, 3)]);
  });

  it('equals the aggregate recomputed over each row frame (property)', async () => {
    const frames: OverFrame[] = [{ unit: 'ROWS' }, { unit: 'RANGE' }, { unit: 'ROWS', preceding: 2 }, { unit: 'RANGE', preceding: 3 }];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...frames),
        fc.array(fc.record({ k: fc.constantFrom('a', 'b'), v: fc.option(fc.integer({ min: 0, max: 3 }), { freq: 5 }), dt: fc.integer({ min: 0, max: 2 }) }), { maxLength: 30 }),
        async (frame, specs) => {
          let ts = 0;
          const rows: Row[] = specs.map((s) => ({ k: s.k, v: s.v, ts: (ts += s.dt) }));
          const h = await open(frame);
          // In time order, a watermark after each row's timestamp is complete: nothing is late.
          for (const r of rows) await h.processElement(insert(r));
          await h.processWatermark(ts + 1);
          const expected = rows.map((r, i) => {
            const earlier = rows.filter((x, j) => x.k === r.k && (j <= i || (frame.unit === 'RANGE' && x.ts === r.ts)));
            const inFrame =
              frame.preceding === undefined
                ? earlier
                : frame.unit === 'ROWS'
                  ? earlier.slice(-(frame.preceding + 1))
                  : earlier.filter((x) => (x.ts as number) >= (r.ts as number) - frame.preceding!);
            const values = inFrame.map((x) => x.v).filter((v): v is number => v !== null);
            const distinct = [...new Set(values)];
            return { ...r, cd: distinct.length, sd: distinct.length === 0 ? null : distinct.reduce((a, b) => a + b, 0), c: values.length };
          });
          const byKey = (list: readonly Row[]) => [...list].sort((x, y) => String(x.k).localeCompare(String(y.k)));
          // Output is by timestamp across partitions; within a partition it is in row order.
          expect(byKey(h.extractOutput().map((o) => o.row))).toEqual(byKey(expected));
        },
      ),
      { numRuns: 200 },
    );
  });
});
