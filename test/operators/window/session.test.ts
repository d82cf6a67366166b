/**
 * Session windows: Flink's MergingWindowSet semantics — intersecting (and touching) windows
 * `[ts, ts + gap)` merge, their contents merge, timers move to the merged window, and a late
 * element within lateness that bridges fired sessions retracts their results with -D and emits
 * the merged session as +I.
 */
import { describe, it, expect } from 'vitest';
import { del, insert, materialize, updateAfter, updateBefore } from '../../harness/index.ts';
import { addWindow, mergeWindows } from '../../../shared/operators/window/merging-window-set.ts';
import { countSum, leftovers, NOTHING_LEFT, openAgg, out, r, session } from './window-test-kit.ts';

describe('merging window set', () => {
  it('mergeWindows merges intersecting and touching windows in start order', () => {
    expect(
      mergeWindows([
        { start: 20, end: 30 },
        { start: 0, end: 10 },
        { start: 10, end: 15 },
        { start: 31, end: 40 },
      ]),
    ).toEqual([
      { result: { start: 0, end: 15 }, members: [{ start: 0, end: 10 }, { start: 10, end: 15 }] },
      { result: { start: 20, end: 30 }, members: [{ start: 20, end: 30 }] },
      { result: { start: 31, end: 40 }, members: [{ start: 31, end: 40 }] },
    ]);
  });

  it('addWindow: standalone, inside an existing window, extending one, bridging two', () => {
    const existing = [
      { start: 0, end: 10 },
      { start: 20, end: 30 },
    ];
    expect(addWindow(existing, { start: 40, end: 50 })).toEqual({ window: { start: 40, end: 50 }, merges: [], isNew: true });
    expect(addWindow(existing, { start: 2, end: 8 })).toEqual({ window: { start: 0, end: 10 }, merges: [], isNew: false });
    expect(addWindow(existing, { start: 0, end: 10 })).toEqual({ window: { start: 0, end: 10 }, merges: [], isNew: false });
    expect(addWindow(existing, { start: 25, end: 35 })).toEqual({
      window: { start: 20, end: 35 },
      merges: [{ result: { start: 20, end: 35 }, merged: [{ start: 20, end: 30 }] }],
      isNew: false,
    });
    expect(addWindow(existing, { start: 10, end: 20 })).toEqual({
      window: { start: 0, end: 30 },
      merges: [{ result: { start: 0, end: 30 }, merged: [{ start: 0, end: 10 }, { start: 20, end: 30 }] }],
      isNew: false,
    });
  });
});

describe('WindowAggregate, SESSION', () => {
  it('one session per key and run of elements closer than the gap; touching windows merge', async () => {
    const h = await openAgg(countSum(session(10)));
    await h.processElements(insert(r('a', 1, 0)), insert(r('b', 2, 3)), insert(r('a', 3, 5)), insert(r('a', 4, 30)), insert(r('a', 5, 40)));
    expect(await h.processWatermark(14)).toEqual([insert(out('b', 1, 2, 3, 13)), insert(out('a', 2, 4, 0, 15))]);
    expect(await h.endInput()).toEqual([insert(out('a', 2, 9, 30, 50))]);
    expect(leftovers(h)).toEqual(NOTHING_LEFT);
  });

  it('an out-of-order element bridges two open sessions; their timers move to the merged window', async () => {
    const h = await openAgg(countSum(session(10)));
    await h.processElements(insert(r('a', 1, 0)), insert(r('a', 2, 25)));
    expect(h.timers.pendingTimers('event')).toBe(2);
    await h.processElement(insert(r('a', 4, 8)));
    expect(h.timers.pendingTimers('event')).toBe(2);
    await h.processElement(insert(r('a', 8, 16)));
    // One window [0, 35) with one timer (fire and cleanup coincide without lateness).
    expect(leftovers(h)).toEqual({ entries: 1, eventTimers: 1, processingTimers: 0 });
    expect(await h.processWatermark(33)).toEqual([]);
    expect(await h.processWatermark(34)).toEqual([insert(out('a', 4, 15, 0, 35))]);
    expect(leftovers(h)).toEqual(NOTHING_LEFT);
  });

  it('a late element inside a fired session re-fires it with -U/+U', async () => {
    const h = await openAgg(countSum(session(10), { allowedLatenessMs: 100 }));
    await h.processElements(insert(r('a', 1, 0)), insert(r('a', 2, 5)));
    expect(await h.processWatermark(20)).toEqual([insert(out('a', 2, 3, 0, 15))]);
    expect(await h.processElement(insert(r('a', 4, 3)))).toEqual([updateBefore(out('a', 2, 3, 0, 15)), updateAfter(out('a', 3, 7, 0, 15))]);
  });

  it('a late element extending a fired session retracts its result with -D and emits the new session as +I', async () => {
    const h = await openAgg(countSum(session(10), { allowedLatenessMs: 100 }));
    await h.processElement(insert(r('a', 1, 0)));
    await h.processWatermark(20);
    expect(await h.processElement(insert(r('a', 2, 7)))).toEqual([del(out('a', 1, 1, 0, 10)), insert(out('a', 2, 3, 0, 17))]);
  });

  it('a late bridging element within lateness merges two fired sessions: -D both, +I the merged one', async () => {
    const h = await openAgg(countSum(session(10), { allowedLatenessMs: 100 }));
    await h.processElements(insert(r('a', 1, 0)), insert(r('a', 2, 20)), insert(r('b', 9, 1)));
    expect(await h.processWatermark(50)).toEqual([insert(out('a', 1, 1, 0, 10)), insert(out('b', 1, 9, 1, 11)), insert(out('a', 1, 2, 20, 30))]);
    expect(await h.processElement(insert(r('a', 4, 10)))).toEqual([
      del(out('a', 1, 1, 0, 10)),
      del(out('a', 1, 2, 20, 30)),
      insert(out('a', 3, 7, 0, 30)),
    ]);
    expect(materialize(h.output())).toEqual([out('b', 1, 9, 1, 11), out('a', 3, 7, 0, 30)]);
    // Upsert consumers keyed by group + window end up with the same rows.
    expect(materialize(h.output(), ['k', 'window_start', 'window_end'])).toEqual([out('b', 1, 9, 1, 11), out('a', 3, 7, 0, 30)]);
    expect(await h.processWatermark(200)).toEqual([]);
    expect(leftovers(h)).toEqual(NOTHING_LEFT);
  });

  it('a fired session merging with an open one: -D of the fired result, +I of the merged session at its end', async () => {
    const h = await openAgg(countSum(session(10), { allowedLatenessMs: 100 }));
    await h.processElement(insert(r('a', 1, 0)));
    await h.processWatermark(12);
    await h.processElement(insert(r('a', 2, 20)));
    h.clearOutput();
    // [10, 20) touches the fired [0, 10) and the open [20, 30); the merge [0, 30) is not past its end.
    expect(await h.processElement(insert(r('a', 4, 10)))).toEqual([del(out('a', 1, 1, 0, 10))]);
    expect(await h.processWatermark(29)).toEqual([insert(out('a', 3, 7, 0, 30))]);
  });

  it('a session whose every part is past cleanup goes to the side output; within lateness it does not', async () => {
    const h = await openAgg(countSum(session(10), { allowedLatenessMs: 5 }));
    await h.processWatermark(20);
    // [5, 15): cleanup at 14 + 5 = 19 <= 20.
    await h.processElement(insert(r('a', 1, 5)));
    expect(h.output()).toEqual([]);
    expect(h.extractSideOutput('late')).toEqual([r('a', 1, 5)]);
    // [7, 17): cleanup at 16 + 5 = 21 > 20, and past its end, so it fires at once.
    await h.processElement(insert(r('a', 1, 7)));
    expect(h.extractOutput()).toEqual([insert(out('a', 1, 1, 7, 17))]);
    expect(h.sideOutput('late')).toEqual([]);
    expect(h.metrics.get('numLateRecordsDropped')).toBe(1);
  });

  it('retractions remove a row from the session holding its timestamp; merged contents stay exact', async () => {
    const h = await openAgg({
      ...countSum(session(10)),
      aggCalls: [
        { fn: 'MAX', arg: 'v', distinct: false, name: 'm' },
        { fn: 'COUNT', arg: 'v', distinct: true, name: 'dv' },
      ],
    });
    await h.processElements(insert(r('a', 9, 0)), insert(r('a', 3, 20)), insert(r('a', 3, 12)), insert(r('a', 1, 8)), del(r('a', 9, 0)));
    expect(await h.endInput()).toEqual([insert({ k: 'a', m: 3, dv: 2, window_start: 0, window_end: 30, window_time: 29 })]);
  });

  it('count trigger state merges (counts add up) and fires on the next element', async () => {
    const h = await openAgg(countSum(session(10), { trigger: { count: 3 } }));
    await h.processElements(insert(r('a', 1, 0)), insert(r('a', 1, 20)));
    expect(await h.processElement(insert(r('a', 1, 10)))).toEqual([insert(out('a', 3, 3, 0, 30))]);
  });

  it('early-firing timers move to the merged window', async () => {
    const h = await openAgg(countSum(session(10), { trigger: { earlyFireIntervalMs: 5 }, generateUpdateBefore: false }), undefined, 0);
    await h.processElement(insert(r('a', 1, 0)));
    await h.setProcessingTime(1);
    await h.processElement(insert(r('a', 1, 20)));
    await h.processElement(insert(r('a', 1, 10)));
    expect(leftovers(h)).toEqual({ entries: 1, eventTimers: 1, processingTimers: 1 });
    expect(await h.setProcessingTime(5)).toEqual([insert(out('a', 3, 3, 0, 30))]);
  });
});
