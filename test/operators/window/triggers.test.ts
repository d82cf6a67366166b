/** Triggers: count, early firing, late firing, purging and non-purging, and their timers. */
import { describe, it, expect } from 'vitest';
import { insert, updateAfter, updateBefore } from '../../harness/index.ts';
import { countSum, leftovers, NOTHING_LEFT, openAgg, out, r, tumble } from './window-test-kit.ts';

describe('count trigger', () => {
  it('fires every N elements (replacing the end-of-window trigger) and updates the earlier result', async () => {
    const h = await openAgg(countSum(tumble(10), { trigger: { count: 2 } }));
    expect(await h.processElements(insert(r('a', 1, 1)), insert(r('a', 2, 2)))).toEqual([insert(out('a', 2, 3, 0, 10))]);
    expect(await h.processElement(insert(r('a', 3, 3)))).toEqual([]);
    expect(await h.processElement(insert(r('a', 4, 4)))).toEqual([updateBefore(out('a', 2, 3, 0, 10)), updateAfter(out('a', 4, 10, 0, 10))]);
    await h.processElement(insert(r('a', 5, 5)));
    // The window ends with one element not yet counted to 2: CountTrigger never fires it.
    expect(await h.endInput()).toEqual([]);
    expect(leftovers(h)).toEqual(NOTHING_LEFT);
  });

  it('purging: every firing emits +I of the rows since the previous one', async () => {
    const h = await openAgg(countSum(tumble(10), { trigger: { count: 2, purge: true } }));
    await h.processElements(insert(r('a', 1, 1)), insert(r('a', 2, 2)), insert(r('a', 3, 3)), insert(r('a', 4, 4)));
    expect(h.output()).toEqual([insert(out('a', 2, 3, 0, 10)), insert(out('a', 2, 7, 0, 10))]);
    await h.endInput();
    expect(leftovers(h)).toEqual(NOTHING_LEFT);
  });
});

describe('early firing', () => {
  it('fires at most once per processing-time interval before the end, then on time only if changed', async () => {
    const h = await openAgg(countSum(tumble(100), { trigger: { earlyFireIntervalMs: 5 } }), undefined, 0);
    await h.processElement(insert(r('a', 1, 1)));
    expect(leftovers(h)).toEqual({ entries: 1, eventTimers: 1, processingTimers: 1 });
    expect(await h.setProcessingTime(4)).toEqual([]);
    expect(await h.setProcessingTime(5)).toEqual([insert(out('a', 1, 1, 0, 100))]);
    await h.setProcessingTime(6);
    await h.processElements(insert(r('a', 2, 2)), insert(r('a', 3, 3)));
    expect(await h.setProcessingTime(11)).toEqual([updateBefore(out('a', 1, 1, 0, 100)), updateAfter(out('a', 3, 6, 0, 100))]);
    // No element since the last early firing: no timer, nothing to fire.
    expect(await h.setProcessingTime(50)).toEqual([]);
    expect(leftovers(h).processingTimers).toBe(0);
    // The on-time firing finds the result unchanged and emits nothing.
    expect(await h.processWatermark(99)).toEqual([]);
    expect(leftovers(h)).toEqual(NOTHING_LEFT);
  });

  it('the on-time firing emits the final result and drops the pending early timer', async () => {
    const h = await openAgg(countSum(tumble(100), { trigger: { earlyFireIntervalMs: 5 } }), undefined, 0);
    await h.processElement(insert(r('a', 1, 1)));
    await h.setProcessingTime(5);
    await h.processElement(insert(r('a', 2, 2)));
    expect(await h.processWatermark(99)).toEqual([updateBefore(out('a', 1, 1, 0, 100)), updateAfter(out('a', 2, 3, 0, 100))]);
    expect(leftovers(h)).toEqual(NOTHING_LEFT);
    expect(await h.setProcessingTime(100)).toEqual([]);
  });

  it('interval 0 fires on every element', async () => {
    const h = await openAgg(countSum(tumble(100), { trigger: { earlyFireIntervalMs: 0 }, generateUpdateBefore: false }));
    await h.processElements(insert(r('a', 1, 1)), insert(r('a', 2, 2)));
    expect(h.output()).toEqual([insert(out('a', 1, 1, 0, 100)), updateAfter(out('a', 2, 3, 0, 100))]);
  });

  it('works in processing time too', async () => {
    const h = await openAgg(countSum(tumble(100), { timeDomain: 'processing', trigger: { earlyFireIntervalMs: 10 } }), undefined, 0);
    await h.processElement(insert(r('a', 1, 0)));
    expect(await h.setProcessingTime(10)).toEqual([insert(out('a', 1, 1, 0, 100))]);
    await h.processElement(insert(r('a', 2, 0)));
    expect(await h.setProcessingTime(99)).toEqual([updateBefore(out('a', 1, 1, 0, 100)), updateAfter(out('a', 2, 3, 0, 100))]);
    expect(leftovers(h)).toEqual(NOTHING_LEFT);
  });
});

describe('late firing', () => {
  it('fires at most once per interval after the end instead of on every late element', async () => {
    const h = await openAgg(countSum(tumble(10), { allowedLatenessMs: 100, trigger: { lateFireIntervalMs: 10 } }), undefined, 0);
    await h.processElement(insert(r('a', 1, 1)));
    expect(await h.processWatermark(9)).toEqual([insert(out('a', 1, 1, 0, 10))]);
    expect(await h.processElements(insert(r('a', 2, 2)), insert(r('a', 3, 3)))).toEqual([]);
    expect(await h.setProcessingTime(10)).toEqual([updateBefore(out('a', 1, 1, 0, 10)), updateAfter(out('a', 3, 6, 0, 10))]);
    await h.processElement(insert(r('a', 4, 4)));
    // Cleanup comes before the late timer: the pending late firing is flushed, not lost.
    expect(await h.processWatermark(200)).toEqual([updateBefore(out('a', 3, 6, 0, 10)), updateAfter(out('a', 4, 10, 0, 10))]);
    expect(leftovers(h)).toEqual(NOTHING_LEFT);
  });

  it('early and late firing together (Flink emit strategy)', async () => {
    const h = await openAgg(
      countSum(tumble(10), { allowedLatenessMs: 50, generateUpdateBefore: false, trigger: { earlyFireIntervalMs: 3, lateFireIntervalMs: 7 } }),
      undefined,
      0,
    );
    await h.processElement(insert(r('a', 1, 1)));
    await h.setProcessingTime(3);
    await h.processElement(insert(r('a', 1, 2)));
    await h.processWatermark(9);
    await h.processElement(insert(r('a', 1, 3)));
    await h.setProcessingTime(10);
    await h.endInput();
    expect(h.output()).toEqual([insert(out('a', 1, 1, 0, 10)), updateAfter(out('a', 2, 2, 0, 10)), updateAfter(out('a', 3, 3, 0, 10))]);
    expect(leftovers(h)).toEqual(NOTHING_LEFT);
  });
});

describe('purging trigger with the default time trigger', () => {
  it('each firing emits the contents since the previous firing as +I', async () => {
    const h = await openAgg(countSum(tumble(10), { allowedLatenessMs: 10, trigger: { purge: true } }));
    await h.processElements(insert(r('a', 1, 1)), insert(r('a', 2, 2)));
    expect(await h.processWatermark(9)).toEqual([insert(out('a', 2, 3, 0, 10))]);
    expect(await h.processElement(insert(r('a', 5, 5)))).toEqual([insert(out('a', 1, 5, 0, 10))]);
    expect(await h.processWatermark(100)).toEqual([]);
    expect(leftovers(h)).toEqual(NOTHING_LEFT);
  });
});
