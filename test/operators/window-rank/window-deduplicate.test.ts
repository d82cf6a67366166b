/**
 * Window deduplication: first or last row per (partition, window) by rowtime, Flink's tie rules,
 * emission at window end, late rows and state cleanup.
 */
import { describe, expect, it } from 'vitest';
import { RecordError } from '../../../shared/core/errors.ts';
import {
  createWindowDeduplicateOperator,
  windowDeduplicateOutputSchema,
  type WindowDeduplicateSpec,
} from '../../../shared/operators/window-rank/window-deduplicate.ts';
import { insert } from '../../harness/index.ts';
import { I, WINDOWED, openWindowDedup, row, stateLeft } from './window-test-kit.ts';

const spec = (keep: 'first' | 'last'): WindowDeduplicateSpec => ({
  partitionBy: ['p'],
  keep,
  orderColumn: 'ts',
  windowStartColumn: 'window_start',
  windowEndColumn: 'window_end',
});

/** Rows of window [0, 10) of partition a, out of rowtime order, with a tie at ts 2. */
const ROWS = [I('a', 1, 0, 0, 10, 5), I('a', 2, 0, 0, 10, 2), I('a', 3, 0, 0, 10, 8), I('a', 4, 0, 0, 10, 2), I('a', 5, 0, 0, 10, 8)];

describe('window deduplication', () => {
  it('keep first: the smallest rowtime, the earlier arrival on ties', async () => {
    const h = await openWindowDedup(spec('first'));
    await h.processBatch(ROWS);
    expect(await h.processWatermark(8)).toEqual([]);
    expect(await h.processWatermark(9)).toEqual([I('a', 2, 0, 0, 10, 2)]);
    expect(stateLeft(h)).toEqual({ entries: 0, timers: 0 });
  });

  it('keep last: the largest rowtime, the later arrival on ties', async () => {
    const h = await openWindowDedup(spec('last'));
    await h.processBatch(ROWS);
    expect(await h.processWatermark(9)).toEqual([I('a', 5, 0, 0, 10, 8)]);
    expect(stateLeft(h)).toEqual({ entries: 0, timers: 0 });
  });

  it('deduplicates each (partition, window) alone', async () => {
    const h = await openWindowDedup(spec('first'));
    await h.processBatch([I('a', 1, 0, 10, 20, 15), I('b', 2, 0, 0, 10, 3), I('a', 3, 0, 0, 10, 4), I('a', 4, 0, 10, 20, 11)]);
    await h.processBatch([I('b', 5, 0, 0, 10, 1)]);
    expect(await h.endInput()).toEqual([I('b', 5, 0, 0, 10, 1), I('a', 3, 0, 0, 10, 4), I('a', 4, 0, 10, 20, 11)]);
    expect(stateLeft(h)).toEqual({ entries: 0, timers: 0 });
  });

  it('sends rows of fired windows to the late side output and counts them', async () => {
    const h = await openWindowDedup({ ...spec('last'), lateOutputTag: 'dedup-late' });
    await h.processBatch([I('a', 1, 0, 0, 10, 5)]);
    await h.processWatermark(12);
    h.clearOutput();
    await h.processBatch([I('a', 2, 0, 0, 10, 9), I('a', 3, 0, 10, 20, 13)]);
    expect(h.extractSideOutput('dedup-late')).toEqual([row('a', 2, 0, 0, 10, 9)]);
    expect(h.metrics.get('numLateRecordsDropped')).toBe(1);
    expect(await h.endInput()).toEqual([I('a', 3, 0, 10, 20, 13)]);
  });

  it('validates the spec and refuses a null rowtime', async () => {
    expect(windowDeduplicateOutputSchema(spec('first'), WINDOWED)).toEqual(WINDOWED);
    expect(() => createWindowDeduplicateOperator({ ...spec('first'), orderColumn: 'id' }, WINDOWED)).toThrow(/must be a TIMESTAMP/);
    expect(() => createWindowDeduplicateOperator({ ...spec('first'), keep: 'any' as 'first' }, WINDOWED)).toThrow(/keep/);
    const h = await openWindowDedup(spec('first'));
    await expect(h.processBatch([insert({ ...row('a', 1, 0, 0, 10), ts: null })])).rejects.toThrow(RecordError);
  });
});
