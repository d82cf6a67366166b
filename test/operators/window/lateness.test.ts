/**
 * Allowed lateness as in the seed article: state is kept until maxTimestamp + allowedLateness,
 * each late element within lateness re-fires the window with its full contents (updating the
 * earlier result), and elements too late for every window go to the late side output.
 */
import { describe, it, expect } from 'vitest';
import { createWindowAggregateOperator } from '../../../shared/operators/window/window-aggregate.ts';
import { OperatorHarness, insert, updateAfter, updateBefore } from '../../harness/index.ts';
import { countSum, hop, input, leftovers, NOTHING_LEFT, openAgg, out, r, tumble } from './window-test-kit.ts';

describe('WindowAggregate, allowed lateness', () => {
  it('re-fires on every late element within lateness with -U/+U, then cleans up at maxTimestamp + lateness', async () => {
    const h = await openAgg(countSum(tumble(10), { allowedLatenessMs: 5 }));
    await h.processElements(insert(r('a', 1, 1)), insert(r('a', 2, 3)));
    expect(await h.processWatermark(9)).toEqual([insert(out('a', 2, 3, 0, 10))]);
    expect(await h.processElement(insert(r('a', 4, 5)))).toEqual([updateBefore(out('a', 2, 3, 0, 10)), updateAfter(out('a', 3, 7, 0, 10))]);
    await h.processWatermark(13);
    expect(await h.processElement(insert(r('a', 0, 2)))).toEqual([updateBefore(out('a', 3, 7, 0, 10)), updateAfter(out('a', 4, 7, 0, 10))]);
    expect(leftovers(h)).toEqual({ entries: 1, eventTimers: 1, processingTimers: 0 });
    expect(await h.processWatermark(14)).toEqual([]);
    expect(leftovers(h)).toEqual(NOTHING_LEFT);
    // Now past cleanup: the original row goes to the side output and is counted.
    expect(await h.processElement(insert(r('a', 9, 8)))).toEqual([]);
    expect(h.extractSideOutput('late')).toEqual([r('a', 9, 8)]);
    expect(h.metrics.get('numLateRecordsDropped')).toBe(1);
    expect(leftovers(h)).toEqual(NOTHING_LEFT);
  });

  it('emits only +U without generateUpdateBefore', async () => {
    const h = await openAgg(countSum(tumble(10), { allowedLatenessMs: 5, generateUpdateBefore: false }));
    await h.processElement(insert(r('a', 1, 1)));
    await h.processWatermark(9);
    await h.processElement(insert(r('a', 1, 2)));
    expect(h.output()).toEqual([insert(out('a', 1, 1, 0, 10)), updateAfter(out('a', 2, 2, 0, 10))]);
  });

  it('a re-firing whose result did not change emits nothing', async () => {
    const h = await openAgg({ ...countSum(tumble(10), { allowedLatenessMs: 5 }), aggCalls: [{ fn: 'MAX', arg: 'v', distinct: false, name: 'm' }] });
    await h.processElement(insert(r('a', 7, 1)));
    expect(await h.processWatermark(9)).toEqual([insert({ k: 'a', m: 7, window_start: 0, window_end: 10, window_time: 9 })]);
    expect(await h.processElement(insert(r('a', 3, 2)))).toEqual([]);
  });

  it('without lateness, an element past its window goes to the side output, counted, with a custom tag', async () => {
    const h = await openAgg(countSum(tumble(10), { lateOutputTag: 'too-late' }));
    await h.processElement(insert(r('a', 1, 1)));
    await h.processWatermark(9);
    await h.processElements(insert(r('a', 2, 9)), insert(r('b', 3, 0)), insert(r('a', 4, 10)));
    expect(h.sideOutput('too-late')).toEqual([r('a', 2, 9), r('b', 3, 0)]);
    expect(h.sideOutput('late')).toEqual([]);
    expect(h.metrics.get('numLateRecordsDropped')).toBe(2);
    expect(await h.endInput()).toEqual([insert(out('a', 1, 4, 10, 20))]);
    expect(h.output()).toEqual([insert(out('a', 1, 1, 0, 10)), insert(out('a', 1, 4, 10, 20))]);
  });

  it('HOP: an element late for some of its windows still counts in the others, and is not side-output', async () => {
    const h = await openAgg(countSum(hop(10, 5)));
    await h.processWatermark(10);
    await h.processElement(insert(r('a', 1, 7)));
    expect(h.sideOutput('late')).toEqual([]);
    expect(await h.endInput()).toEqual([insert(out('a', 1, 1, 5, 15))]);
  });

  it('an element arriving when the watermark is exactly at the window max timestamp is late only past cleanup', async () => {
    const h = await openAgg(countSum(tumble(10), { allowedLatenessMs: 1 }));
    await h.processWatermark(9);
    expect(await h.processElement(insert(r('a', 1, 0)))).toEqual([insert(out('a', 1, 1, 0, 10))]);
    await h.processWatermark(10);
    await h.processElement(insert(r('a', 1, 0)));
    expect(h.sideOutput('late')).toEqual([r('a', 1, 0)]);
  });

  it('a cleanup time beyond the safe-integer range keeps the window until the final watermark', async () => {
    const h = await openAgg(countSum(tumble(10), { allowedLatenessMs: Number.MAX_SAFE_INTEGER }));
    expect(h.timers.snapshot().event).toEqual([]);
    await h.processElement(insert(r('a', 1, 1)));
    expect(h.timers.snapshot().event.map(([, , time]) => time)).toEqual([9, Number.MAX_SAFE_INTEGER]);
    await h.processWatermark(1e15);
    await h.processElement(insert(r('a', 1, 2)));
    expect(h.output()).toEqual([insert(out('a', 1, 1, 0, 10)), updateBefore(out('a', 1, 1, 0, 10)), updateAfter(out('a', 2, 2, 0, 10))]);
    expect(leftovers(h).entries).toBe(1);
    await h.endInput();
    expect(leftovers(h)).toEqual(NOTHING_LEFT);
  });

  it('survives a snapshot and restore mid-window (state is plain data)', async () => {
    const spec = countSum(tumble(10), { allowedLatenessMs: 5 });
    const h = await openAgg(spec);
    await h.processElements(insert(r('a', 1, 1)), insert(r('b', 2, 2)));
    await h.processWatermark(9);
    const saved = h.snapshot();
    const h2 = await OperatorHarness.restore(() => createWindowAggregateOperator(spec, input), saved);
    expect(await h2.processElement(insert(r('a', 3, 3)))).toEqual([updateBefore(out('a', 1, 1, 0, 10)), updateAfter(out('a', 2, 4, 0, 10))]);
    await h2.processWatermark(14);
    expect(leftovers(h2)).toEqual(NOTHING_LEFT);
  });
});
