/**
 * Nexmark q11 (user sessions) on the project's generated bids: SESSION(bid, bidder, 10 s) with a
 * bid count per bidder, compared with the plain-TypeScript reference (Flink's session merge rule).
 */
import { describe, it, expect } from 'vitest';
import { createRowDecoder, decodeJsonLine } from '../../../shared/core/codec.ts';
import { schemaOf } from '../../../shared/core/type-parse.ts';
import type { Row } from '../../../shared/core/types.ts';
import { createWindowAggregateOperator, type WindowAggregateSpec } from '../../../shared/operators/window/window-aggregate.ts';
import { BID, WATERMARK_DELAY_MS } from '../../../examples/nexmark/schemas.ts';
import { OperatorHarness, insert, materialize } from '../../harness/index.ts';
import { nexmarkTestData } from '../../nexmark/test-data.ts';

const data = nexmarkTestData();
const bidSchema = schemaOf(BID);

const spec: WindowAggregateSpec = {
  window: { type: 'SESSION', timeColumn: 'date_time', gapMs: 10_000, partitionBy: ['bidder'] },
  groupBy: ['bidder'],
  aggCalls: [{ fn: 'COUNT', distinct: false, name: 'bid_count' }],
  generateUpdateBefore: true,
};

function readBids(): Row[] {
  const decoder = createRowDecoder(bidSchema);
  return data.bidLines.map((line, i) => decodeJsonLine(line, decoder, `bid.jsonl:${i + 1}`));
}

interface Q11Row {
  bidder: number;
  bid_count: number;
  starttime: number;
  endtime: number;
}

function expected(): Q11Row[] {
  return data.reference('q11').map((row) => ({ bidder: row['bidder'] as number, bid_count: row['bid_count'] as number, starttime: row['starttime'] as number, endtime: row['endtime'] as number }));
}

const sortRows = (rows: Q11Row[]): Q11Row[] => [...rows].sort((a, b) => a.bidder - b.bidder || a.starttime - b.starttime);

function q11(rows: Row[]): Q11Row[] {
  return rows.map((row) => ({
    bidder: row['bidder'] as number,
    bid_count: row['bid_count'] as number,
    starttime: row['window_start'] as number,
    endtime: row['window_end'] as number,
  }));
}

describe('Nexmark q11 over generated bids', () => {
  it('bids in arrival order, +∞ watermark at the end', async () => {
    const h = await OperatorHarness.open(() => createWindowAggregateOperator(spec, bidSchema));
    await h.processBatch(readBids().map(insert));
    await h.endInput();
    expect(h.output().every((row) => row.kind === '+I')).toBe(true);
    expect(sortRows(q11(materialize(h.output())))).toEqual(sortRows(expected()));
    expect(h.state.stats().entries).toBe(0);
  });

  it('with the Nexmark watermark (max date_time - 4 s) after every bid, nothing is late', async () => {
    const h = await OperatorHarness.open(() => createWindowAggregateOperator(spec, bidSchema));
    let max = -Infinity;
    for (const bid of readBids()) {
      await h.processElement(insert(bid));
      max = Math.max(max, bid['date_time'] as number);
      await h.processWatermark(max - WATERMARK_DELAY_MS);
    }
    await h.endInput();
    expect(h.sideOutput('late')).toEqual([]);
    expect(sortRows(q11(materialize(h.output())))).toEqual(sortRows(expected()));
  });
});
