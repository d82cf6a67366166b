/**
 * Nexmark q7 on the acceptance fixture (../shared/nexmark-fixture): the highest bid per 10 s
 * TUMBLE window, as a window Top-N with `RANK() = 1` on `price DESC` over the TUMBLE table
 * function — two harnesses chained, the first one's output fed to the second, with the Nexmark
 * watermark `date_time - 4 s` after each bid and +∞ at the end.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createRowDecoder, decodeJsonLine } from '../../../shared/core/codec.ts';
import { parseTimestamp } from '../../../shared/core/timestamp.ts';
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

const FIXTURE = new URL('../../../../shared/nexmark-fixture/', import.meta.url);
const COLUMNS = ['auction', 'price', 'bidder', 'date_time', 'window_start', 'window_end'] as const;
const TIMESTAMPS = new Set(['date_time', 'window_start', 'window_end']);

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
  return readFileSync(new URL('bid.jsonl', FIXTURE), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => decodeJsonLine(line, decode, `bid.jsonl:${i + 1}`));
}

/** The expected rows with timestamps as epoch milliseconds, the form rows carry them in. */
function readExpected(): Row[] {
  const json = JSON.parse(readFileSync(new URL('expected_q7.json', FIXTURE), 'utf8')) as Record<string, string | number>[];
  return json.map((r) => {
    const out: Record<string, number> = {};
    for (const column of COLUMNS) {
      const value = r[column]!;
      out[column] = TIMESTAMPS.has(column) ? parseTimestamp(String(value))! : Number(value);
    }
    return out;
  });
}

const project = (row: Row): Row => Object.fromEntries(COLUMNS.map((c) => [c, row[c] ?? null]));
const byText = (a: Row, b: Row) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1);

describe('Nexmark q7 (TUMBLE 10 s → window Top-N RANK() = 1)', () => {
  it('matches expected_q7.json', async () => {
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
