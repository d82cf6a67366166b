/**
 * Nexmark q7 on the project's generated bids (test/nexmark/test-data.ts): the highest bid per 10 s
 * TUMBLE window, as a window Top-N with `RANK() = 1` on `price DESC` over the TUMBLE table
 * function — two harnesses chained, the first one's output fed to the second, with the Nexmark
 * watermark `date_time - 4 s` after each bid and +∞ at the end; the result must equal the
 * plain-TypeScript reference.
 */
import { describe, expect, it } from 'vitest';
import { createRowDecoder, decodeJsonLine } from '../../../shared/core/codec.ts';
import { schemaOf } from '../../../shared/core/type-parse.ts';
import type { Row } from '../../../shared/core/types.ts';
import { createWindowRankOperator, windowRankOutputSchema, type WindowRankSpec } from '../../../shared/operators/window-rank/window-rank.ts';
import {
  createWindowTableFunctionOperator,
  windowTableFunctionOutputSchema,
  type WindowTableFunctionSpec,
} from '../../../shared/operators/window-rank/window-table-function.ts';
import { BID, WATERMARK_DELAY_MS } from '../../../examples/nexmark/schemas.ts';
import { OperatorHarness, insert, materialize } from '../../harness/index.ts';
import { nexmarkTestData } from '../../nexmark/test-data.ts';

const data = nexmarkTestData();
const COLUMNS = ['auction', 'price', 'bidder', 'date_time', 'window_start', 'window_end'] as const;

const bidSchema = schemaOf(BID);
const tvfSpec: WindowTableFunctionSpec = { window: { type: 'TUMBLE', timeColumn: 'date_time', sizeMs: 10_000 } };
const windowed = windowTableFunctionOutputSchema(tvfSpec, bidSchema);
const rankSpec: WindowRankSpec = {
  rankType: 'RANK',
  partitionBy: [],
  orderBy: [{ column: 'price', direction: 'DESC', nullsFirst: false }],
  rankRange: { type: 'constant', start: 1, end: 1 },
  windowStartColumn: 'window_start',
  windowEndColumn: 'window_end',
};

function readBids(): Row[] {
  const decode = createRowDecoder(bidSchema);
  return data.bidLines.map((line, i) => decodeJsonLine(line, decode, `bid.jsonl:${i + 1}`));
}

/** The reference rows (timestamps as epoch milliseconds, the form rows carry them in). */
function readExpected(): Row[] {
  return data.reference('q7').map((r) => Object.fromEntries(COLUMNS.map((c) => [c, r[c] ?? null])));
}

const project = (row: Row): Row => Object.fromEntries(COLUMNS.map((c) => [c, row[c] ?? null]));
const byText = (a: Row, b: Row) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1);

describe('Nexmark q7 (TUMBLE 10 s → window Top-N RANK() = 1)', () => {
  it('matches the q7 reference', async () => {
    const tvf = await OperatorHarness.open(() => createWindowTableFunctionOperator(tvfSpec, bidSchema));
    const rank = await OperatorHarness.open(() => createWindowRankOperator(rankSpec, windowed));
    let maxTime = -Infinity;
    for (const bid of readBids()) {
      await rank.processBatch(await tvf.processElement(insert(bid)));
      maxTime = Math.max(maxTime, bid.date_time as number);
      const watermark = maxTime - WATERMARK_DELAY_MS;
      await rank.processBatch(await tvf.processWatermark(watermark));
      await rank.processWatermark(watermark);
    }
    await rank.processBatch(await tvf.endInput());
    await rank.endInput();

    const changelog = rank.output();
    expect(changelog.every((c) => c.kind === '+I')).toBe(true);
    expect(materialize(changelog).map(project).sort(byText)).toEqual(readExpected().sort(byText));
    expect(windowRankOutputSchema(rankSpec, windowed).fields.map((f) => f.name)).toEqual(expect.arrayContaining([...COLUMNS]));
    expect(tvf.sideOutput('late')).toEqual([]);
    expect(rank.sideOutput('late')).toEqual([]);
    expect(rank.state.stats().entries).toBe(0);
    expect(rank.timers.pendingTimers('event')).toBe(0);
  });
});
