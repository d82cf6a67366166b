/**
 * Window Top-N: ROW_NUMBER, RANK and DENSE_RANK with ties, ranges not starting at 1, several
 * partitions and windows, rows out of order within the watermark, late rows, bounded buffers
 * and state cleanup. Rows are `(p, id, score)` ordered by `score DESC NULLS LAST`.
 */
import { describe, expect, it } from 'vitest';
import { PlanError, RecordError } from '../../../shared/core/errors.ts';
import { createWindowRankOperator, windowRankOutputSchema } from '../../../shared/operators/window-rank/window-rank.ts';
import { OperatorHarness, del, insert } from '../../harness/index.ts';
import { I, IR, WINDOWED, openWindowRank, rankSpec, row, stateLeft } from './window-test-kit.ts';

/** Window [0, 10) of partition a: scores 10, 30, 20, 30 (ids 1..4), so 30 is tied. */
const TIED = [I('a', 1, 10, 0, 10), I('a', 2, 30, 0, 10), I('a', 3, 20, 0, 10), I('a', 4, 30, 0, 10)];

describe('window Top-N ranks', () => {
  it('ROW_NUMBER: emits nothing before the window ends, then the top rows, ties in arrival order', async () => {
    const h = await openWindowRank(rankSpec('ROW_NUMBER', 1, 2));
    await h.processBatch(TIED);
    await h.processWatermark(8);
    expect(h.extractOutput()).toEqual([]);
    await h.processWatermark(9);
    expect(h.extractOutput()).toEqual([IR('a', 2, 30, 0, 10, 1), IR('a', 4, 30, 0, 10, 2)]);
    expect(stateLeft(h)).toEqual({ entries: 0, timers: 0 });
  });

  it('RANK() = 1 keeps every row tied for first', async () => {
    const h = await openWindowRank(rankSpec('RANK', 1, 1));
    await h.processBatch(TIED);
    await h.processWatermark(9);
    expect(h.extractOutput()).toEqual([IR('a', 2, 30, 0, 10, 1), IR('a', 4, 30, 0, 10, 1)]);
  });

  it('RANK skips numbers after ties; a range starting after 1 filters by rank value', async () => {
    const h = await openWindowRank(rankSpec('RANK', 2, 3));
    await h.processBatch(TIED);
    await h.processWatermark(9);
    // ranks 1, 1, 3, 4: only the 20 is in 2..3
    expect(h.extractOutput()).toEqual([IR('a', 3, 20, 0, 10, 3)]);
  });

  it('DENSE_RANK counts distinct scores', async () => {
    const h = await openWindowRank(rankSpec('DENSE_RANK', 1, 2));
    await h.processBatch(TIED);
    await h.processWatermark(9);
    expect(h.extractOutput()).toEqual([IR('a', 2, 30, 0, 10, 1), IR('a', 4, 30, 0, 10, 1), IR('a', 3, 20, 0, 10, 2)]);
  });

  it('DENSE_RANK with a range starting after 1', async () => {
    const h = await openWindowRank(rankSpec('DENSE_RANK', 2, 3));
    await h.processBatch(TIED);
    await h.processWatermark(9);
    expect(h.extractOutput()).toEqual([IR('a', 3, 20, 0, 10, 2), IR('a', 1, 10, 0, 10, 3)]);
  });

  it('ROW_NUMBER with a range starting after 1, and without the rank number column', async () => {
    const h = await openWindowRank(rankSpec('ROW_NUMBER', 2, 3, false));
    await h.processBatch(TIED);
    await h.processWatermark(9);
    expect(h.extractOutput()).toEqual([I('a', 4, 30, 0, 10), I('a', 3, 20, 0, 10)]);
  });

  it('orders nulls by NULLS FIRST / LAST', async () => {
    const last = await openWindowRank(rankSpec('ROW_NUMBER', 1, 3));
    const firstSpec = { ...rankSpec('ROW_NUMBER', 1, 3), orderBy: [{ column: 'score', direction: 'DESC' as const, nullsFirst: true }] };
    const first = await openWindowRank(firstSpec);
    const rows = [I('a', 1, null, 0, 10), I('a', 2, 5, 0, 10), I('a', 3, 7, 0, 10)];
    for (const h of [last, first]) {
      await h.processBatch(rows);
      await h.processWatermark(9);
    }
    expect(last.extractOutput()).toEqual([IR('a', 3, 7, 0, 10, 1), IR('a', 2, 5, 0, 10, 2), IR('a', 1, null, 0, 10, 3)]);
    expect(first.extractOutput()).toEqual([IR('a', 1, null, 0, 10, 1), IR('a', 3, 7, 0, 10, 2), IR('a', 2, 5, 0, 10, 3)]);
  });
});

describe('window Top-N over partitions and windows', () => {
  it('ranks each (partition, window) alone; windows fire by end, partitions in first-arrival order', async () => {
    const h = await openWindowRank(rankSpec('ROW_NUMBER', 1, 1));
    // Out of order within the watermark: the later window's rows come first, partitions interleave.
    await h.processBatch([I('b', 1, 5, 10, 20), I('a', 2, 6, 10, 20), I('b', 3, 9, 0, 10), I('a', 4, 1, 0, 10)]);
    await h.processWatermark(5);
    await h.processBatch([I('a', 5, 3, 0, 10), I('b', 6, 7, 10, 20), I(null, 7, 1, 0, 10)]);
    expect(h.extractOutput()).toEqual([]);
    await h.processWatermark(9);
    expect(h.extractOutput()).toEqual([IR('b', 3, 9, 0, 10, 1), IR('a', 5, 3, 0, 10, 1), IR(null, 7, 1, 0, 10, 1)]);
    expect(stateLeft(h)).toEqual({ entries: 2, timers: 2 });
    await h.processWatermark(19);
    expect(h.extractOutput()).toEqual([IR('b', 6, 7, 10, 20, 1), IR('a', 2, 6, 10, 20, 1)]);
    expect(stateLeft(h)).toEqual({ entries: 0, timers: 0 });
  });

  it('the end of input (+∞ watermark) fires every window', async () => {
    const h = await openWindowRank(rankSpec('ROW_NUMBER', 1, 1));
    await h.processBatch([I('a', 1, 1, 0, 10), I('a', 2, 2, 1000, 2000)]);
    expect(await h.endInput()).toEqual([IR('a', 1, 1, 0, 10, 1), IR('a', 2, 2, 1000, 2000, 1)]);
    expect(stateLeft(h)).toEqual({ entries: 0, timers: 0 });
  });

  it('keeps a window apart from an overlapping one with the same end (HOP/CUMULATE input)', async () => {
    const h = await openWindowRank(rankSpec('ROW_NUMBER', 1, 1));
    await h.processBatch([I('a', 1, 1, 0, 10), I('a', 2, 2, 5, 10)]);
    await h.processWatermark(9);
    expect(h.extractOutput()).toEqual([IR('a', 1, 1, 0, 10, 1), IR('a', 2, 2, 5, 10, 1)]);
  });

  it('survives a snapshot and restore in the middle of a window', async () => {
    const spec = rankSpec('RANK', 1, 2);
    const h = await openWindowRank(spec);
    await h.processBatch([I('a', 1, 10, 0, 10), I('a', 2, 20, 0, 10)]);
    const restored = await OperatorHarness.restore(() => createWindowRankOperator(spec, WINDOWED), h.snapshot());
    await restored.processBatch([I('a', 3, 20, 0, 10)]);
    await restored.processWatermark(9);
    expect(restored.extractOutput()).toEqual([IR('a', 2, 20, 0, 10, 1), IR('a', 3, 20, 0, 10, 1)]);
  });
});

describe('window Top-N late rows and state', () => {
  it('sends rows of fired windows to the late side output, counted, without reopening the window', async () => {
    const h = await openWindowRank({ ...rankSpec('ROW_NUMBER', 1, 1), lateOutputTag: 'late-bids' });
    await h.processBatch([I('a', 1, 1, 0, 10)]);
    await h.processWatermark(9);
    h.clearOutput();
    await h.processBatch([I('a', 2, 99, 0, 10), I('a', 3, 5, 10, 20)]);
    expect(h.extractSideOutput('late-bids')).toEqual([row('a', 2, 99, 0, 10)]);
    expect(h.metrics.get('numLateRecordsDropped')).toBe(1);
    await h.endInput();
    expect(h.extractOutput()).toEqual([IR('a', 3, 5, 10, 20, 1)]);
    expect(h.sideOutput('late-bids')).toEqual([]);
    expect(stateLeft(h)).toEqual({ entries: 0, timers: 0 });
  });

  it('buffers only what can still rank: ROW_NUMBER at most N rows, RANK the tied groups up to N', async () => {
    const bufferSizes = (h: OperatorHarness): number[] =>
      h.snapshot().state.tables.flatMap((t) => t.entries.map((e) => (e[2] as unknown[]).length));
    const scores = [5, 9, 9, 1, 7, 9, 3, 8];
    const rowNumber = await openWindowRank(rankSpec('ROW_NUMBER', 2, 3));
    const rank = await openWindowRank(rankSpec('RANK', 1, 2));
    const dense = await openWindowRank(rankSpec('DENSE_RANK', 1, 2));
    for (const h of [rowNumber, rank, dense]) await h.processBatch(scores.map((s, i) => I('a', i, s, 0, 10)));
    expect(bufferSizes(rowNumber)).toEqual([3]);
    expect(bufferSizes(rank)).toEqual([3]); // the three 9s: an 8 would rank 4th
    expect(bufferSizes(dense)).toEqual([4]); // the 9s and the 8
    await dense.processWatermark(9);
    expect(dense.extractOutput().map((r) => [r.row.id, r.row.rn])).toEqual([
      [1, 1],
      [2, 1],
      [5, 1],
      [7, 2],
    ]);
  });
});

describe('window Top-N spec validation', () => {
  it('adds the rank number column as BIGINT NOT NULL', () => {
    const schema = windowRankOutputSchema(rankSpec('RANK', 1, 3), WINDOWED);
    expect(schema.fields.map((f) => f.name)).toEqual(['p', 'id', 'score', 'ts', 'window_start', 'window_end', 'rn']);
    expect(schema.fields[6]!.type).toEqual({ root: 'BIGINT', nullable: false });
    expect(windowRankOutputSchema(rankSpec('RANK', 1, 3, false), WINDOWED)).toEqual(WINDOWED);
  });

  it('rejects variable or empty ranges, bad rank types, missing or non-timestamp columns and clashes', () => {
    const base = rankSpec('ROW_NUMBER', 1, 3);
    expect(() => createWindowRankOperator({ ...base, rankRange: { type: 'variable', endColumn: 'id' } }, WINDOWED)).toThrow(
      /variable rank range/,
    );
    expect(() => createWindowRankOperator({ ...base, rankRange: { type: 'constant', start: 3, end: 2 } }, WINDOWED)).toThrow(
      /empty/,
    );
    expect(() => createWindowRankOperator({ ...base, rankType: 'NTILE' as 'RANK' }, WINDOWED)).toThrow(/unknown rank type/);
    expect(() => createWindowRankOperator({ ...base, windowEndColumn: 'id' }, WINDOWED)).toThrow(/must be a TIMESTAMP/);
    expect(() => createWindowRankOperator({ ...base, partitionBy: ['nope'] }, WINDOWED)).toThrow(PlanError);
    expect(() => createWindowRankOperator({ ...base, rankNumberColumn: 'score' }, WINDOWED)).toThrow(/clashes/);
    expect(() => createWindowRankOperator({ ...base, orderBy: [] }, WINDOWED)).toThrow(/ORDER BY/);
  });

  it('fails a batch with a non-insert row or a null window before touching state', async () => {
    const h = await openWindowRank(rankSpec('ROW_NUMBER', 1, 3));
    await expect(h.processBatch([I('a', 1, 1, 0, 10), del(row('a', 1, 1, 0, 10))])).rejects.toThrow(/insert-only/);
    await expect(h.processBatch([I('a', 1, 1, 0, 10), insert({ ...row('a', 1, 1, 0, 10), window_end: null })])).rejects.toThrow(
      RecordError,
    );
    expect(stateLeft(h)).toEqual({ entries: 0, timers: 0 });
  });
});

describe('window Top-N in processing time (windows cut from a PROCTIME() attribute)', () => {
  it('fires a window when the processing-time clock passes its end, not on the watermark', async () => {
    const h = await OperatorHarness.open(() => createWindowRankOperator({ ...rankSpec('ROW_NUMBER', 1, 2), timeDomain: 'processing' }, WINDOWED), { processingTime: 0 });
    await h.processBatch([...TIED, I('a', 5, 50, 10, 20)]);
    await h.processWatermark(100);
    expect(h.extractOutput()).toEqual([]);
    expect(await h.setProcessingTime(8)).toEqual([]);
    expect(await h.setProcessingTime(9)).toEqual([IR('a', 2, 30, 0, 10, 1), IR('a', 4, 30, 0, 10, 2)]);
    expect(await h.setProcessingTime(19)).toEqual([IR('a', 5, 50, 10, 20, 1)]);
    expect({ entries: h.state.stats().entries, timers: h.timers.pendingTimers('processing') }).toEqual({ entries: 0, timers: 0 });
  });

  it('takes rows of a window already due that has not fired (a window aggregate’s results) and fires it on the next tick; rows of a fired window are late', async () => {
    const h = await OperatorHarness.open(() => createWindowRankOperator({ ...rankSpec('ROW_NUMBER', 1, 1), timeDomain: 'processing' }, WINDOWED), { processingTime: 50 });
    await h.processBatch([I('a', 1, 10, 0, 10), I('a', 2, 20, 0, 10)]);
    expect(h.extractOutput()).toEqual([]);
    expect(await h.setProcessingTime(51)).toEqual([IR('a', 2, 20, 0, 10, 1)]);
    await h.processBatch([I('a', 3, 99, 0, 10), I('b', 4, 1, 0, 10)]);
    expect(h.extractSideOutput('late')).toEqual([row('a', 3, 99, 0, 10), row('b', 4, 1, 0, 10)]);
    expect(await h.setProcessingTime(60)).toEqual([]);
  });

  it('refuses an unknown time domain', () => {
    expect(() => createWindowRankOperator({ ...rankSpec('ROW_NUMBER', 1, 1), timeDomain: 'wall' as never }, WINDOWED)).toThrow(PlanError);
  });
});
