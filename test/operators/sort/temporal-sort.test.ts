/**
 * The temporal sort (Flink's RowTimeSortOperator and ProcTimeSortOperator): Flink's own test
 * scenarios with their expected outputs (RowTimeSortOperatorTest, ProcTimeSortOperatorTest), late
 * rows counted and routed instead of silently dropped, snapshot → restore, and a property test
 * against a batch sort.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlanError, RecordError } from '../../../shared/core/errors.ts';
import type { ChangeRow } from '../../../shared/core/row.ts';
import { schemaOf } from '../../../shared/core/type-parse.ts';
import type { Row } from '../../../shared/core/types.ts';
import { createTemporalSortOperator, type TemporalSortSpec } from '../../../shared/operators/sort/temporal-sort.ts';
import { OperatorHarness, del, insert } from '../../harness/index.ts';

/** Flink's test rows `(a INT, t BIGINT, s STRING, d INT)`, the time here a TIMESTAMP. */
const INPUT = schemaOf({ a: 'INT', t: 'TIMESTAMP(3)', s: 'STRING', d: 'INT' });
const R = (a: number, t: number, s: string, d: number): ChangeRow => insert({ a, t, s, d });

const BY_A: TemporalSortSpec = { timeDomain: 'event', timeColumn: 't', orderBy: [{ column: 'a', direction: 'ASC', nullsFirst: true }] };
const open = (spec: TemporalSortSpec) => OperatorHarness.open(() => createTemporalSortOperator(spec, INPUT));

/** The rows of RowTimeSortOperatorTest.testSortOnTwoFields, in arrival order. */
const FLINK_ROWS: ChangeRow[] = [
  R(3, 3, 'Hello world', 3),
  R(2, 2, 'Hello', 2),
  R(6, 2, 'Luke Skywalker', 6),
  R(5, 3, 'I am fine.', 5),
  R(7, 1, 'Comment#1', 7),
  R(9, 4, 'Comment#3', 9),
  R(10, 4, 'Comment#4', 10),
  R(8, 4, 'Comment#2', 8),
  R(1, 1, 'Hi', 2),
  R(1, 1, 'Hi', 1),
  R(4, 3, 'Helloworld, how are you?', 4),
  R(4, 5, 'Hello, how are you?', 4),
];

describe('TemporalSort in event time (RowTimeSortOperator)', () => {
  it("Flink's testSortOnTwoFields: by time, then a; full ties in arrival order; a late row goes to the side output", async () => {
    const h = await open(BY_A);
    await h.processElements(...FLINK_ROWS);
    expect(await h.processWatermark(4)).toEqual([
      R(1, 1, 'Hi', 2),
      R(1, 1, 'Hi', 1),
      R(7, 1, 'Comment#1', 7),
      R(2, 2, 'Hello', 2),
      R(6, 2, 'Luke Skywalker', 6),
      R(3, 3, 'Hello world', 3),
      R(4, 3, 'Helloworld, how are you?', 4),
      R(5, 3, 'I am fine.', 5),
      R(8, 4, 'Comment#2', 8),
      R(9, 4, 'Comment#3', 9),
      R(10, 4, 'Comment#4', 10),
    ]);
    const restored = await OperatorHarness.restore(() => createTemporalSortOperator(BY_A, INPUT), h.snapshot());
    // Time 3 is before the last time emitted (4): Flink drops it; here it is counted and routed.
    await restored.processElement(R(5, 3, 'I am fine.', 6));
    expect(await restored.processWatermark(5)).toEqual([R(4, 5, 'Hello, how are you?', 4)]);
    expect(restored.extractSideOutput('late')).toEqual([{ a: 5, t: 3, s: 'I am fine.', d: 6 }]);
    expect(restored.metrics.get('numLateRecordsDropped')).toBe(1);
    expect(await restored.processWatermark(11)).toEqual([]);
    expect(await restored.processWatermark(12)).toEqual([]);
  });

  it("Flink's testOnlySortOnRowTime: by time alone, ties in arrival order", async () => {
    const h = await open({ timeDomain: 'event', timeColumn: 't', orderBy: [] });
    const rows = [R(2, 3, 'Hello world', 3), R(2, 2, 'Hello', 2), R(3, 6, 'Luke Skywalker', 6), R(3, 5, 'I am fine.', 5), R(4, 7, 'Comment#1', 7), R(4, 9, 'Comment#3', 9), R(4, 10, 'Comment#4', 10), R(4, 8, 'Comment#2', 8), R(1, 1, 'Hi', 2), R(1, 1, 'Hi', 1), R(3, 4, 'Helloworld, how are you?', 4)];
    await h.processElements(...rows);
    expect(await h.processWatermark(9)).toEqual([R(1, 1, 'Hi', 2), R(1, 1, 'Hi', 1), R(2, 2, 'Hello', 2), R(2, 3, 'Hello world', 3), R(3, 4, 'Helloworld, how are you?', 4), R(3, 5, 'I am fine.', 5), R(3, 6, 'Luke Skywalker', 6), R(4, 7, 'Comment#1', 7), R(4, 8, 'Comment#2', 8), R(4, 9, 'Comment#3', 9)]);
    const restored = await OperatorHarness.restore(() => createTemporalSortOperator({ timeDomain: 'event', timeColumn: 't', orderBy: [] }, INPUT), h.snapshot());
    await restored.processElement(R(3, 6, 'I am fine.', 6));
    expect(await restored.processWatermark(10)).toEqual([R(4, 10, 'Comment#4', 10)]);
    expect(restored.extractSideOutput('late')).toEqual([{ a: 3, t: 6, s: 'I am fine.', d: 6 }]);
  });

  it('a row behind the watermark but after the last time emitted is still sorted in, at the next watermark', async () => {
    const h = await open(BY_A);
    await h.processElements(R(1, 10, 'x', 0));
    expect(await h.processWatermark(20)).toEqual([R(1, 10, 'x', 0)]);
    // 15 <= watermark 20, but nothing after 10 has been emitted: Flink keeps it (its timer is due).
    await h.processElements(R(2, 15, 'y', 0), R(3, 10, 'z', 0));
    expect(await h.processWatermark(21)).toEqual([R(2, 15, 'y', 0)]);
    expect(h.extractSideOutput('late')).toEqual([{ a: 3, t: 10, s: 'z', d: 0 }]);
  });

  it('secondary keys in any direction and null order; emitted rows leave state and timers', async () => {
    const spec: TemporalSortSpec = { timeDomain: 'event', timeColumn: 't', orderBy: [{ column: 's', direction: 'DESC', nullsFirst: true }, { column: 'a', direction: 'ASC', nullsFirst: false }] };
    const h = await open(spec);
    await h.processBatch([insert({ a: 2, t: 5, s: 'b', d: 0 }), insert({ a: null, t: 5, s: 'b', d: 0 }), insert({ a: 1, t: 5, s: 'b', d: 0 }), insert({ a: 9, t: 5, s: null, d: 0 }), insert({ a: 3, t: 5, s: 'c', d: 0 })]);
    expect((await h.endInput()).map((r) => [r.row.s, r.row.a])).toEqual([[null, 9], ['c', 3], ['b', 1], ['b', 2], ['b', null]]);
    // Only the last time emitted stays (it decides lateness).
    expect(h.state.stats().entries).toBe(1);
    expect(h.timers.snapshot().event).toEqual([]);
  });

  it('takes insert-only rows with a time: a NULL time is a data error, before anything changes', async () => {
    const h = await open(BY_A);
    await expect(h.processBatch([R(1, 1, 'a', 0), insert({ a: 2, t: null, s: 'b', d: 0 })])).rejects.toThrow(RecordError);
    expect(h.state.stats().entries).toBe(0);
    await expect(h.processBatch([del({ a: 1, t: 1, s: 'a', d: 0 })])).rejects.toThrow(/insert-only/);
    expect(() => createTemporalSortOperator({ timeDomain: 'event', timeColumn: 's', orderBy: [] }, INPUT)).toThrow(PlanError);
    expect(() => createTemporalSortOperator({ timeDomain: 'event', timeColumn: 'x', orderBy: [] }, INPUT)).toThrow(/not found/);
  });
});

describe('TemporalSort in processing time (ProcTimeSortOperator)', () => {
  const PROC: TemporalSortSpec = { timeDomain: 'processing', timeColumn: 'p', orderBy: [{ column: 'a', direction: 'ASC', nullsFirst: true }] };

  it("Flink's test: the rows of each millisecond sorted by a, one millisecond later; state survives a restore", async () => {
    const h = await OperatorHarness.open(() => createTemporalSortOperator(PROC, INPUT), { processingTime: 0 });
    await h.processElements(R(3, 3, 'Hello world', 3), R(2, 2, 'Hello', 2), R(6, 2, 'Luke Skywalker', 6), R(5, 3, 'I am fine.', 5), R(7, 1, 'Comment#1', 7), R(9, 4, 'Comment#3', 9));
    expect(await h.setProcessingTime(1)).toEqual([R(2, 2, 'Hello', 2), R(3, 3, 'Hello world', 3), R(5, 3, 'I am fine.', 5), R(6, 2, 'Luke Skywalker', 6), R(7, 1, 'Comment#1', 7), R(9, 4, 'Comment#3', 9)]);
    await h.processElements(R(10, 4, 'Comment#4', 10), R(8, 4, 'Comment#2', 8), R(1, 1, 'Hi', 2), R(1, 1, 'Hi', 1), R(4, 3, 'Helloworld, how are you?', 4), R(4, 5, 'Hello, how are you?', 4));
    // Flink's restored harness starts its clock at 0 again; a restored runner here keeps the saved
    // time (1), so the timers of the rows above and of the next one are due at 2.
    const restored = await OperatorHarness.restore(() => createTemporalSortOperator(PROC, INPUT), h.snapshot());
    await restored.processElement(R(5, 3, 'I am fine.', 6));
    expect(await restored.setProcessingTime(1)).toEqual([]);
    expect(await restored.setProcessingTime(2)).toEqual([R(1, 1, 'Hi', 2), R(1, 1, 'Hi', 1), R(4, 3, 'Helloworld, how are you?', 4), R(4, 5, 'Hello, how are you?', 4), R(5, 3, 'I am fine.', 6), R(8, 4, 'Comment#2', 8), R(10, 4, 'Comment#4', 10)]);
  });

  it('without secondary keys the rows pass straight through, as Flink forwards them', async () => {
    const h = await OperatorHarness.open(() => createTemporalSortOperator({ timeDomain: 'processing', timeColumn: 'p', orderBy: [] }, INPUT));
    expect(await h.processBatch([R(3, 0, 'c', 0), R(1, 0, 'a', 0)])).toEqual([R(3, 0, 'c', 0), R(1, 0, 'a', 0)]);
    expect(h.timers.snapshot().processing).toEqual([]);
  });
});

describe('TemporalSort against a batch sort (property)', () => {
  /** A run: rows in arrival order, each followed by a watermark step (0: none). */
  const runs = fc.array(fc.record({ t: fc.integer({ min: 0, max: 12 }), a: fc.option(fc.integer({ min: 0, max: 3 }), { freq: 6 }), step: fc.integer({ min: 0, max: 3 }) }), { maxLength: 40 });

  it('emits the rows that are not late exactly as a stable sort by (time, a) orders them; the late ones go to the side output', async () => {
    await fc.assert(
      fc.asyncProperty(runs, fc.integer({ min: 0, max: 40 }), async (input, restoreAt) => {
        let h = await open(BY_A);
        let watermark = -1;
        // The reference: what has been emitted (its last time) decides lateness, as Flink's rule does.
        const pending: Row[] = [];
        let last = -Infinity;
        const accepted: Row[] = [];
        const late: Row[] = [];
        const emitted: Row[] = [];
        const routed: Row[] = [];
        let lateCount = 0;
        const drain = (): void => {
          routed.push(...h.extractSideOutput('late'));
          lateCount += h.metrics.get('numLateRecordsDropped') ?? 0;
        };
        const advance = (w: number): void => {
          const due = pending.filter((r) => (r.t as number) <= w);
          if (due.length > 0) last = Math.max(last, ...due.map((r) => r.t as number));
          pending.splice(0, pending.length, ...pending.filter((r) => (r.t as number) > w));
        };
        for (const [i, step] of input.entries()) {
          if (i === restoreAt) {
            drain();
            h = await OperatorHarness.restore(() => createTemporalSortOperator(BY_A, INPUT), h.snapshot());
          }
          const row: Row = { a: step.a, t: step.t, s: `r${i}`, d: i };
          if (step.t <= last) late.push(row);
          else {
            accepted.push(row);
            pending.push(row);
          }
          emitted.push(...(await h.processElement(insert(row))).map((o) => o.row));
          if (step.step > 0) {
            watermark += step.step;
            advance(watermark);
            // What a watermark releases is at or before it.
            for (const out of await h.processWatermark(watermark)) {
              expect(out.row.t as number).toBeLessThanOrEqual(watermark);
              emitted.push(out.row);
            }
          }
        }
        emitted.push(...(await h.endInput()).map((o) => o.row));
        drain();
        const batch = [...accepted].sort((x, y) => (x.t as number) - (y.t as number) || (x.a === y.a ? 0 : x.a === null ? -1 : y.a === null ? 1 : (x.a as number) - (y.a as number)));
        expect(emitted).toEqual(batch);
        expect(routed).toEqual(late);
        expect(lateCount).toBe(late.length);
      }),
      { numRuns: 300 },
    );
  });
});
