/**
 * The SESSION window table function on its own, against Flink's
 * UnalignedWindowTableFunctionOperatorTest: its scenarios (event time, changelog input,
 * processing time, no partition keys) with its expected rows — here in the exact order they come
 * out (Flink's assertion sorts them) — snapshot → restore in the same places, late rows counted
 * and sent to the late side output instead of silently dropped; then a property test against
 * sessions computed in batch.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RecordError } from '../../../shared/core/errors.ts';
import type { ChangeRow } from '../../../shared/core/row.ts';
import { schemaOf } from '../../../shared/core/type-parse.ts';
import type { Row } from '../../../shared/core/types.ts';
import { createUnalignedWindowTableFunctionOperator } from '../../../shared/operators/window-rank/unaligned-window-table-function.ts';
import type { WindowTableFunctionSpec } from '../../../shared/operators/window-rank/window-table-function.ts';
import { OperatorHarness, del, insert, updateAfter, updateBefore } from '../../harness/index.ts';

/** Flink's test input `(key STRING, v INT, rowtime)`; sessions partitioned by `key`, gap 3 s. */
const INPUT = schemaOf({ key: 'STRING', v: 'INT', ts: 'TIMESTAMP(3)' });
const SESSION = (partitionBy: string[] = ['key']): WindowTableFunctionSpec => ({ window: { type: 'SESSION', timeColumn: 'ts', gapMs: 3000, partitionBy } });
const factory = (spec: WindowTableFunctionSpec) => () => createUnalignedWindowTableFunctionOperator(spec, INPUT);

const R = (key: string, v: number, ts: number | null): Row => ({ key, v, ts });
/** An output row: the input row and its session's window columns. */
const W = (kind: ChangeRow['kind'], key: string, v: number, ts: number, start: number, end: number): ChangeRow => ({
  kind,
  row: { key, v, ts, window_start: start, window_end: end, window_time: end - 1 },
});

describe('UnalignedWindowTableFunction (SESSION alone)', () => {
  it("Flink's testEventTimeSessionWindows", async () => {
    let h = await OperatorHarness.open(factory(SESSION()));
    await h.processElements(insert(R('key1', 1, 20)), insert(R('key2', 1, 3999)));
    for (const wm of [999, 1999, 2999]) expect(await h.processWatermark(wm)).toEqual([]);
    expect(await h.processWatermark(3999)).toEqual([W('+I', 'key1', 1, 20, 20, 3020)]);
    // Its session [2000, 5000) has not closed at watermark 3999: not late.
    await h.processElement(insert(R('key1', 1, 2000)));
    expect(await h.processWatermark(4999)).toEqual([W('+I', 'key1', 1, 2000, 2000, 5000)]);
    // Out of order: 5999 bridges [3999, 6999) and [7999, 10999).
    await h.processElements(insert(R('key2', 2, 7999)), insert(R('key2', 3, 5999)));
    for (const wm of [5999, 6999, 7999, 8999, 9999]) expect(await h.processWatermark(wm)).toEqual([]);
    h = await OperatorHarness.restore(factory(SESSION()), h.snapshot());
    expect(await h.processWatermark(10999)).toEqual([W('+I', 'key2', 1, 3999, 3999, 10999), W('+I', 'key2', 2, 7999, 3999, 10999), W('+I', 'key2', 3, 5999, 3999, 10999)]);
    // Late: Flink drops and counts it; here it is counted and goes to the late side output.
    expect(await h.processElement(insert(R('key1', 1, 999)))).toEqual([]);
    expect(h.extractSideOutput('late')).toEqual([R('key1', 1, 999)]);
    expect(h.metrics.get('numLateRecordsDropped')).toBe(1);
    // A NULL rowtime (Flink: dropped, counted) is a data error: the runtime dead-letters it.
    await expect(h.processElement(insert(R('key1', 1, null)))).rejects.toThrow(RecordError);
    // No state is left behind once every session has fired.
    expect(h.state.stats().entries).toBe(0);
  });

  it("Flink's testEventTimeSessionWindowsWithChangelog: every row keeps its kind, a -D opens a session too", async () => {
    let h = await OperatorHarness.open(factory(SESSION()));
    await h.processElements(insert(R('key1', 1, 20)), del(R('key2', 1, 1999)), insert(R('key3', 1, 2999)), insert(R('key4', 1, 1999)));
    expect(await h.processWatermark(999)).toEqual([]);
    await h.processElement(del(R('key4', 1, 2999)));
    expect(await h.processWatermark(1999)).toEqual([]);
    await h.processElements(updateBefore(R('key3', 1, 3999)), updateAfter(R('key3', 1, 4999)));
    expect(await h.processWatermark(2999)).toEqual([]);
    expect(await h.processWatermark(3999)).toEqual([W('+I', 'key1', 1, 20, 20, 3020)]);
    expect(await h.processWatermark(4999)).toEqual([W('-D', 'key2', 1, 1999, 1999, 4999)]);
    expect(await h.processWatermark(5999)).toEqual([W('+I', 'key4', 1, 1999, 1999, 5999), W('-D', 'key4', 1, 2999, 1999, 5999)]);
    h = await OperatorHarness.restore(factory(SESSION()), h.snapshot());
    expect(await h.processWatermark(7999)).toEqual([W('+I', 'key3', 1, 2999, 2999, 7999), W('-U', 'key3', 1, 3999, 2999, 7999), W('+U', 'key3', 1, 4999, 2999, 7999)]);
  });

  it("Flink's testProcessTimeSessionWindows: the row's time is its arrival; sessions close on the clock", async () => {
    const spec: WindowTableFunctionSpec = { ...SESSION(), timeDomain: 'processing' };
    let h = await OperatorHarness.open(factory(spec), { processingTime: 20 });
    // The time column is ignored in processing time.
    await h.processElement(insert(R('key1', 1, 1)));
    expect(await h.setProcessingTime(1999)).toEqual([]);
    expect(await h.setProcessingTime(2999)).toEqual([]);
    await h.setProcessingTime(3999);
    expect(h.extractOutput()).toEqual([W('+I', 'key1', 1, 1, 20, 3020)]);
    await h.processElement(insert(R('key2', 1, 1)));
    expect(await h.setProcessingTime(4999)).toEqual([]);
    await h.setProcessingTime(5999);
    await h.processElement(insert(R('key2', 3, 1)));
    await h.setProcessingTime(7999);
    await h.processElement(insert(R('key2', 2, 1)));
    for (const t of [8999, 9999]) expect(await h.setProcessingTime(t)).toEqual([]);
    h = await OperatorHarness.restore(factory(spec), h.snapshot());
    expect(await h.setProcessingTime(10999)).toEqual([W('+I', 'key2', 1, 1, 3999, 10999), W('+I', 'key2', 3, 1, 3999, 10999), W('+I', 'key2', 2, 1, 3999, 10999)]);
  });

  it("Flink's testProcessTimeSessionWindowsWithChangelog", async () => {
    const spec: WindowTableFunctionSpec = { ...SESSION(), timeDomain: 'processing' };
    let h = await OperatorHarness.open(factory(spec), { processingTime: 20 });
    await h.processElements(insert(R('key1', 1, 0)), insert(R('key2', 1, 0)));
    await h.setProcessingTime(1999);
    await h.processElements(del(R('key3', 1, 0)), del(R('key2', 1, 0)));
    expect(await h.setProcessingTime(2999)).toEqual([]);
    expect(await h.setProcessingTime(3999)).toEqual([W('+I', 'key1', 1, 0, 20, 3020)]);
    h = await OperatorHarness.restore(factory(spec), h.snapshot());
    // Both sessions close at 4998; key3's timer was registered first (Flink's assertion sorts them).
    expect(await h.setProcessingTime(4999)).toEqual([W('-D', 'key3', 1, 0, 1999, 4999), W('+I', 'key2', 1, 0, 20, 4999), W('-D', 'key2', 1, 0, 20, 4999)]);
  });

  it("Flink's testSessionWindowsWithoutPartitionKeys: one session across all rows", async () => {
    let h = await OperatorHarness.open(factory(SESSION([])));
    await h.processElements(insert(R('key1', 1, 1999)), insert(R('key2', 1, 3999)));
    for (const wm of [999, 1999, 3999, 5999]) expect(await h.processWatermark(wm)).toEqual([]);
    h = await OperatorHarness.restore(factory(SESSION([])), h.snapshot());
    expect(await h.processWatermark(6999)).toEqual([W('+I', 'key1', 1, 1999, 1999, 6999), W('+I', 'key2', 1, 3999, 1999, 6999)]);
  });
});

describe('UnalignedWindowTableFunction against a reference model (property)', () => {
  it('emits each row once with the session it ends up in, in arrival order per session; late rows go to the side output', async () => {
    const GAP = 3;
    const spec: WindowTableFunctionSpec = { window: { type: 'SESSION', timeColumn: 'ts', gapMs: GAP, partitionBy: ['key'] } };
    const input = fc.array(fc.record({ key: fc.constantFrom('a', 'b'), ts: fc.integer({ min: 0, max: 30 }), step: fc.integer({ min: 0, max: 4 }) }), { maxLength: 40 });
    await fc.assert(
      fc.asyncProperty(input, fc.integer({ min: 0, max: 40 }), async (steps, restoreAt) => {
        let h = await OperatorHarness.open(() => createUnalignedWindowTableFunctionOperator(spec, INPUT));
        let watermark = -1;
        // The model: per key, the open sessions with their rows; a session closes for good when
        // the watermark reaches its last millisecond, and a row merges the open sessions it touches.
        const open = new Map<string, { start: number; end: number; rows: Row[] }[]>();
        const expected: Row[] = [];
        const late: Row[] = [];
        const close = (w: number): void => {
          for (const [key, sessions] of open) {
            for (const s of sessions.filter((x) => x.end - 1 <= w)) expected.push(...s.rows.map((r) => ({ ...r, window_start: s.start, window_end: s.end, window_time: s.end - 1 })));
            open.set(key, sessions.filter((x) => x.end - 1 > w));
          }
        };
        const emitted: Row[] = [];
        const routed: Row[] = [];
        for (const [i, s] of steps.entries()) {
          if (i === restoreAt) {
            routed.push(...h.extractSideOutput('late'));
            h = await OperatorHarness.restore(() => createUnalignedWindowTableFunctionOperator(spec, INPUT), h.snapshot());
          }
          const row = R(s.key, i, s.ts);
          const sessions = open.get(s.key) ?? [];
          const touching = sessions.filter((w) => w.start <= s.ts + GAP && w.end >= s.ts);
          if (touching.length === 0 && s.ts + GAP - 1 <= watermark) late.push(row);
          else {
            const merged = { start: Math.min(s.ts, ...touching.map((w) => w.start)), end: Math.max(s.ts + GAP, ...touching.map((w) => w.end)), rows: [...touching.flatMap((w) => w.rows), row].sort((x, y) => (x.v as number) - (y.v as number)) };
            open.set(s.key, [...sessions.filter((w) => !touching.includes(w)), merged]);
          }
          emitted.push(...(await h.processElement(insert(row))).map((o) => o.row));
          if (s.step > 0) {
            close((watermark += s.step));
            emitted.push(...(await h.processWatermark(watermark)).map((o) => o.row));
          }
        }
        close(Infinity);
        emitted.push(...(await h.endInput()).map((o) => o.row));
        routed.push(...h.extractSideOutput('late'));
        // Sessions closing at one watermark may come out in another order; each one's rows stay together, in arrival order.
        const bySession = (rows: readonly Row[]) => [...rows].sort((x, y) => (x.window_time as number) - (y.window_time as number) || String(x.key).localeCompare(String(y.key)) || (x.v as number) - (y.v as number));
        expect(bySession(emitted)).toEqual(bySession(expected));
        for (let i = 1; i < emitted.length; i++) {
          const [a, b] = [emitted[i - 1]!, emitted[i]!];
          if (a.key === b.key && a.window_start === b.window_start) expect(a.v as number).toBeLessThan(b.v as number);
        }
        expect(routed).toEqual(late);
        expect(h.state.stats().entries).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});
