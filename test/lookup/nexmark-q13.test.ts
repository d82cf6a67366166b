/**
 * Nexmark q13 (bounded side input join):
 * `SELECT B.auction, B.bidder, B.price, B.dateTime, S.value FROM bid B
 *  JOIN side_input FOR SYSTEM_TIME AS OF B.p_time AS S ON mod(B.auction, 10000) = S.key`
 * — a Calc computes the key, the lookup join reads side_input.jsonl; the result must equal the
 * plain-TypeScript reference over the project's generated bids (test/nexmark/test-data.ts).
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createRowDecoder, decodeJsonLine } from '../../shared/core/codec.ts';
import { insertRecord } from '../../shared/core/row.ts';
import { schemaOf } from '../../shared/core/type-parse.ts';
import type { Row } from '../../shared/core/types.ts';
import { createJsonlSource } from '../../shared/lookup/jsonl-source.ts';
import type { LookupCacheSpec } from '../../shared/lookup/lookup-join.ts';
import { createLookupJoinOperator } from '../../shared/lookup/lookup-join.ts';
import { calcOutputSchema, createCalcOperator } from '../../shared/operators/calc/calc-operator.ts';
import type { CalcSpec } from '../../shared/operators/calc/calc-operator.ts';
import { col, mod } from '../../shared/plan/expr-build.ts';
import { OperatorHarness } from '../harness/index.ts';
import { nexmarkTestData } from '../nexmark/test-data.ts';

const data = nexmarkTestData();
const bidSchema = schemaOf({
  auction: 'BIGINT',
  bidder: 'BIGINT',
  price: 'BIGINT',
  channel: 'STRING',
  url: 'STRING',
  date_time: 'TIMESTAMP(3)',
  extra: 'STRING',
});
const sideSchema = schemaOf({ key: 'BIGINT NOT NULL', value: 'STRING' });
const calc: CalcSpec = {
  projection: [
    { name: 'auction', expr: col('auction') },
    { name: 'bidder', expr: col('bidder') },
    { name: 'price', expr: col('price') },
    { name: 'date_time', expr: col('date_time') },
    { name: 'side_key', expr: mod(col('auction'), 10000) },
  ],
};

async function bids(): Promise<Row[]> {
  const decoder = createRowDecoder(bidSchema);
  const text = await readFile(data.file('bid'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => decodeJsonLine(line, decoder, `bid.jsonl:${i + 1}`));
}

function expected(): Row[] {
  return data.reference('q13');
}

const byContent = (a: Row, b: Row): number => JSON.stringify(a).localeCompare(JSON.stringify(b));

describe('Nexmark q13 over the JSON-lines side input', () => {
  for (const cache of [{ type: 'PARTIAL', maxRows: 1000 }, { type: 'FULL' }] as LookupCacheSpec[]) {
    it(`matches the q13 reference (${cache.type} cache)`, async () => {
      const calcHarness = await OperatorHarness.open(() => createCalcOperator(calc, bidSchema, new Map()));
      const keyed = await calcHarness.processBatch((await bids()).map(insertRecord));
      const source = createJsonlSource({ table: 'side_input', path: data.file('side_input'), schema: sideSchema });
      let operator: ReturnType<typeof createLookupJoinOperator> | undefined;
      const join = await OperatorHarness.open(
        () =>
          (operator = createLookupJoinOperator(
            {
              table: 'side_input',
              joinType: 'INNER',
              keys: [{ probe: 'side_key', lookup: 'key' }],
              dimensionSchema: sideSchema,
              output: [
                { side: 'probe', column: 'auction' },
                { side: 'probe', column: 'bidder' },
                { side: 'probe', column: 'price' },
                { side: 'probe', column: 'date_time' },
                { side: 'lookup', column: 'value' },
              ],
              cache,
            },
            calcOutputSchema(calc, bidSchema),
            source,
          )),
      );
      // Two batches, so the second is served by the cache.
      const out = [...(await join.processBatch(keyed.slice(0, 25))), ...(await join.processBatch(keyed.slice(25)))];
      expect(out.every((r) => r.kind === '+I')).toBe(true);
      expect(out.map((r) => r.row).sort(byContent)).toEqual(expected().sort(byContent));
      expect(operator!.cacheMetrics().hits).toBeGreaterThan(0);
      await join.close();
    });
  }
});
