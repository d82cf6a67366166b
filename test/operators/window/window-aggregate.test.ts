import { describe, it, expect } from 'vitest';
import { PlanError } from '../../../shared/core/errors.ts';
import { schemaOf } from '../../../shared/core/type-parse.ts';
import {
  createWindowAggregateOperator,
  windowAggregateOutputSchema,
} from '../../../shared/operators/window/window-aggregate.ts';
import { del, insert } from '../../harness/index.ts';
import { countSum, cumulate, hop, input, leftovers, NOTHING_LEFT, openAgg, out, r, session, tumble } from './window-test-kit.ts';

describe('windowAggregateOutputSchema', () => {
  it('group columns, aggregate columns, then the window columns', () => {
    const schema = windowAggregateOutputSchema(countSum(tumble(10)), input);
    expect(schema).toEqual({
      fields: [
        ...schemaOf({ k: 'STRING', c: 'BIGINT NOT NULL', s: 'INT' }).fields,
        ...schemaOf({ window_start: 'TIMESTAMP(3) NOT NULL', window_end: 'TIMESTAMP(3) NOT NULL' }).fields,
        { ...schemaOf({ window_time: 'TIMESTAMP(3) NOT NULL' }).fields[0]!, timeAttribute: 'rowtime' },
      ],
    });
  });

  it('drops the time attribute of a grouped rowtime column and marks window_time proctime in processing time', () => {
    const schema = windowAggregateOutputSchema({ ...countSum(tumble(10), { timeDomain: 'processing' }), groupBy: ['k', 'ts'] }, input);
    expect(schema.fields.find((f) => f.name === 'ts')?.timeAttribute).toBeUndefined();
    expect(schema.fields.find((f) => f.name === 'window_time')?.timeAttribute).toBe('proctime');
  });

  it.each([
    [{ ...countSum(tumble(0)) }, /size must be a positive integer.*got 0/],
    [{ ...countSum(tumble(10.5)) }, /got 10.5/],
    [{ ...countSum(tumble(10, 10)) }, /offset 10 ms must satisfy \|offset\| < size \(10 ms\)/],
    [{ ...countSum(tumble(10, -12)) }, /offset -12 ms/],
    [{ ...countSum(hop(10, 3)) }, /size 10 ms must be an integral multiple of slide 3 ms/],
    [{ ...countSum(hop(10, -5)) }, /slide must be a positive integer.*got -5/],
    [{ ...countSum(hop(10, 5, 5)) }, /offset 5 ms must satisfy \|offset\| < slide/],
    [{ ...countSum(cumulate(10, 4)) }, /max size 10 ms must be an integral multiple of step 4 ms/],
    [{ ...countSum(cumulate(10, 5, 7)) }, /offset 7 ms must satisfy \|offset\| < step/],
    [{ ...countSum(session(0)) }, /gap must be a positive integer.*got 0/],
    [{ ...countSum(session(10)), groupBy: [] }, /Session partition column 'k'.*must be one of the GROUP BY columns/],
    [{ ...countSum({ type: 'TUMBLE', timeColumn: 'nope', sizeMs: 10 }) }, /Column 'nope' not found in the time column/],
    [{ ...countSum({ type: 'TUMBLE', timeColumn: 'v', sizeMs: 10 }) }, /Time column 'v'.*must be TIMESTAMP\(3\) or TIMESTAMP_LTZ\(3\), not INT/],
    [{ ...countSum(tumble(10)), groupBy: ['nope'] }, /Column 'nope' not found in the window GROUP BY/],
    [{ ...countSum(tumble(10), { allowedLatenessMs: -1 }) }, /allowedLatenessMs must be a non-negative integer.*got -1/],
    [{ ...countSum(tumble(10), { allowedLatenessMs: 5, timeDomain: 'processing' }) }, /allowedLatenessMs 5 needs event time/],
    [{ ...countSum(tumble(10), { trigger: { count: 0 } }) }, /count must be a positive integer, got 0/],
    [{ ...countSum(tumble(10), { trigger: { count: 2, earlyFireIntervalMs: 5 } }) }, /count 2 replaces the end-of-window trigger/],
    [{ ...countSum(tumble(10), { trigger: { earlyFireIntervalMs: -3 } }) }, /earlyFireIntervalMs must be a non-negative integer.*got -3/],
    [{ ...countSum(tumble(10), { timeDomain: 'processing', trigger: { lateFireIntervalMs: 3 } }) }, /lateFireIntervalMs 3 needs event time/],
    [{ ...countSum(tumble(10), { lateOutputTag: '' }) }, /lateOutputTag must be a non-empty string/],
    [{ ...countSum(tumble(10)), aggCalls: [{ fn: 'COUNT' as const, distinct: false, name: 'window_end' }] }, /Duplicate column name 'window_end'/],
  ])('rejects an invalid spec (%#) with a PlanError naming the value', (spec, message) => {
    expect(() => windowAggregateOutputSchema(spec, input)).toThrow(PlanError);
    expect(() => createWindowAggregateOperator(spec, input)).toThrow(message);
  });
});

describe('WindowAggregate, event time, default trigger', () => {
  it('TUMBLE: one insert-only row per key and window once the watermark reaches window_end - 1', async () => {
    const h = await openAgg(countSum(tumble(10)));
    await h.processElements(insert(r('a', 1, 1)), insert(r('b', 2, 3)), insert(r('a', 3, 9)), insert(r('a', 4, 10)));
    expect(await h.processWatermark(8)).toEqual([]);
    expect(await h.processWatermark(9)).toEqual([insert(out('a', 2, 4, 0, 10)), insert(out('b', 1, 2, 0, 10))]);
    await h.processElement(insert(r('b', 5, 15)));
    expect(await h.processWatermark(100)).toEqual([insert(out('a', 1, 4, 10, 20)), insert(out('b', 1, 5, 10, 20))]);
    expect(h.output().every((row) => row.kind === '+I')).toBe(true);
    expect(leftovers(h)).toEqual(NOTHING_LEFT);
  });

  it('TUMBLE with offset and negative timestamps aligns as TimeWindow.getWindowStartWithOffset', async () => {
    const h = await openAgg(countSum(tumble(10, 3)));
    await h.processElements(insert(r('a', 1, -8)), insert(r('a', 2, -7)), insert(r('a', 4, 2)), insert(r('a', 8, 3)));
    expect(await h.endInput()).toEqual([insert(out('a', 1, 1, -17, -7)), insert(out('a', 2, 6, -7, 3)), insert(out('a', 1, 8, 3, 13))]);
  });

  it('HOP: every element counts in size/slide windows, fired in end order', async () => {
    const h = await openAgg(countSum(hop(10, 5)));
    await h.processElements(insert(r('a', 1, 2)), insert(r('a', 10, 7)), insert(r('a', 100, 12)));
    expect(await h.processWatermark(9)).toEqual([insert(out('a', 1, 1, -5, 5)), insert(out('a', 2, 11, 0, 10))]);
    expect(await h.endInput()).toEqual([insert(out('a', 2, 110, 5, 15)), insert(out('a', 1, 100, 10, 20))]);
    expect(leftovers(h)).toEqual(NOTHING_LEFT);
  });

  it('HOP with offset and a negative timestamp', async () => {
    const h = await openAgg(countSum(hop(6, 3, -1)));
    await h.processElement(insert(r('a', 1, -3)));
    expect(await h.endInput()).toEqual([insert(out('a', 1, 1, -7, -1)), insert(out('a', 1, 1, -4, 2))]);
  });

  it('CUMULATE: windows [start, start + step·k) up to the max size, each fired at its own end', async () => {
    const h = await openAgg(countSum(cumulate(9, 3)));
    await h.processElements(insert(r('a', 1, 1)), insert(r('a', 2, 4)), insert(r('a', 4, 8)), insert(r('a', 8, 10)));
    expect(await h.processWatermark(2)).toEqual([insert(out('a', 1, 1, 0, 3))]);
    expect(await h.processWatermark(5)).toEqual([insert(out('a', 2, 3, 0, 6))]);
    expect(await h.processWatermark(8)).toEqual([insert(out('a', 3, 7, 0, 9))]);
    expect(await h.endInput()).toEqual([insert(out('a', 1, 8, 9, 12)), insert(out('a', 1, 8, 9, 15)), insert(out('a', 1, 8, 9, 18))]);
    expect(leftovers(h)).toEqual(NOTHING_LEFT);
  });

  it('CUMULATE with offset', async () => {
    const h = await openAgg(countSum(cumulate(10, 5, 2)));
    await h.processElement(insert(r('a', 1, 1)));
    expect(await h.endInput()).toEqual([insert(out('a', 1, 1, -8, 2))]);
    const h2 = await openAgg(countSum(cumulate(10, 5, 2)));
    await h2.processElement(insert(r('a', 1, 3)));
    expect(await h2.endInput()).toEqual([insert(out('a', 1, 1, 2, 7)), insert(out('a', 1, 1, 2, 12))]);
  });

  it('aggregates through AggsHandler: COUNT DISTINCT, MIN, MAX, AVG and FILTER', async () => {
    const h = await openAgg({
      window: tumble(10),
      groupBy: ['k'],
      aggCalls: [
        { fn: 'COUNT', arg: 'v', distinct: true, name: 'dv' },
        { fn: 'MIN', arg: 'v', distinct: false, name: 'lo' },
        { fn: 'MAX', arg: 'v', distinct: false, name: 'hi' },
        { fn: 'AVG', arg: 'v', distinct: false, name: 'avg' },
        { fn: 'COUNT', distinct: false, filterField: 'f', name: 'cf' },
      ],
      generateUpdateBefore: false,
    });
    await h.processElements(insert(r('a', 4, 1, true)), insert(r('a', 4, 2, false)), insert(r('a', 1, 3, true)));
    expect(await h.endInput()).toEqual([insert({ k: 'a', dv: 2, lo: 1, hi: 4, avg: 3, cf: 2, window_start: 0, window_end: 10, window_time: 9 })]);
  });

  it('a global window aggregate (no group columns)', async () => {
    const h = await openAgg({ ...countSum(tumble(10)), groupBy: [] });
    await h.processElements(insert(r('a', 1, 1)), insert(r('b', 2, 2)));
    expect(await h.endInput()).toEqual([insert({ c: 2, s: 3, window_start: 0, window_end: 10, window_time: 9 })]);
  });

  it('retractions of an open window update its accumulators; an emptied window emits nothing', async () => {
    const h = await openAgg(countSum(tumble(10)));
    await h.processElements(insert(r('a', 1, 1)), insert(r('a', 2, 2)), del(r('a', 1, 1)), insert(r('b', 1, 1)), del(r('b', 1, 1)));
    expect(await h.endInput()).toEqual([insert(out('a', 1, 2, 0, 10))]);
  });

  it('a NULL rowtime goes to the invalid-rowtime side output and is counted', async () => {
    const h = await openAgg(countSum(tumble(10)));
    await h.processElement(insert({ k: 'a', v: 1, f: null, ts: null }));
    expect(h.sideOutput('invalid-rowtime')).toEqual([{ k: 'a', v: 1, f: null, ts: null }]);
    expect(h.metrics.get('numInvalidRowtimeRecords')).toBe(1);
    expect(await h.endInput()).toEqual([]);
  });

  it('processes a multi-row batch with one prefetch of its distinct keys', async () => {
    const h = await openAgg(countSum(tumble(10)));
    const keys: string[][] = [];
    const prefetch = h.state.prefetch.bind(h.state);
    h.state.prefetch = (k: Iterable<string>) => {
      keys.push([...k]);
      prefetch(k);
    };
    await h.processBatch([insert(r('a', 1, 1)), insert(r('b', 1, 1)), insert(r('a', 1, 2))]);
    expect(keys).toEqual([['Sa', 'Sb']]);
    expect(await h.endInput()).toEqual([insert(out('a', 2, 2, 0, 10)), insert(out('b', 1, 1, 0, 10))]);
  });
});

describe('WindowAggregate, processing time', () => {
  it('assigns rows by the processing-time clock and fires on it; cleanup leaves nothing', async () => {
    const h = await openAgg(countSum(tumble(10), { timeDomain: 'processing' }), input, 3);
    await h.processElements(insert(r('a', 1, 999)), insert(r('a', 2, -5)));
    await h.setProcessingTime(12);
    expect(h.extractOutput()).toEqual([insert(out('a', 2, 3, 0, 10))]);
    await h.processElement(insert(r('a', 5, 0)));
    expect(await h.setProcessingTime(18)).toEqual([]);
    expect(await h.setProcessingTime(19)).toEqual([insert(out('a', 1, 5, 10, 20))]);
    expect(leftovers(h)).toEqual(NOTHING_LEFT);
  });

  it('processing-time sessions merge on arrival time', async () => {
    const h = await openAgg(countSum(session(5), { timeDomain: 'processing' }), input, 0);
    await h.processElement(insert(r('a', 1, 0)));
    await h.setProcessingTime(3);
    await h.processElement(insert(r('a', 2, 0)));
    expect(await h.setProcessingTime(6)).toEqual([]);
    expect(await h.setProcessingTime(7)).toEqual([insert(out('a', 2, 3, 0, 8))]);
    expect(leftovers(h)).toEqual(NOTHING_LEFT);
  });
});
