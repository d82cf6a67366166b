/**
 * The lookup L2 cache in the Lambda stage handler, on dynalite: a fresh container (a new
 * StageHandler with a new dimension-source factory, as after a cold start) serves the keys its
 * predecessor loaded — a missing key included — from the DynamoDB second level, without calling
 * the dimension source; a table declared with `l2: 'none'` loads them again.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KinesisStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pipeline } from '../../shared/api/index.ts';
import { StageHandler } from '../../shared/aws/handler/stage-handler.ts';
import { awsDimensionSources } from '../../shared/aws/lookup/dimension-sources.ts';
import { createStateTable } from '../../shared/aws/state/create-state-table.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import { startDynalite, type DynamoDbEmulator } from './dynamodb-emulator.ts';
import { kinesisRecord } from './stage-input-fixtures.ts';

const SHARD = 'shardId-000000000000';
const PRODUCTS = [
  { id: 1, title: 'one' },
  { id: 2, title: 'two' },
  { id: 3, title: 'three' },
];

let dynalite: DynamoDbEmulator;
let dynamoDb: DynamoDBClient;
beforeAll(async () => {
  dynalite = await startDynalite();
  dynamoDb = dynalite.client();
});
afterAll(async () => {
  dynamoDb?.destroy();
  await dynalite?.stop();
});

function event(productIds: readonly number[], first: number): KinesisStreamEvent {
  return { Records: productIds.map((id, i) => kinesisRecord({ data: { order_id: first + i, product_id: id }, shardId: SHARD, n: first + i, arrivalMs: 1_700_000_000_000 + first + i })) };
}

describe('StageHandler with the lookup L2 cache', () => {
  it.each([
    ['dynamodb', 0],
    ['none', 4],
  ] as const)("l2 '%s': a cold container asks the source for %i more keys", async (l2, moreKeys) => {
    const asked = { keys: 0 };
    const p = new Pipeline(`l2-${l2}`);
    const table = p.lookupTable('products', {
      schema: { id: 'BIGINT NOT NULL', title: 'STRING' },
      source: {
        fn: (keys) => {
          asked.keys += keys.length;
          const wanted = new Set(keys.map((k) => k.id));
          return PRODUCTS.filter((row) => wanted.has(row.id));
        },
      },
      cache: { type: 'PARTIAL', maxRows: 100 },
      l2,
    });
    p.source('orders', { schema: { order_id: 'INT NOT NULL', product_id: 'BIGINT' } })
      .lookupJoin(table, { on: { product_id: 'id' }, type: 'left', columns: ['title'] })
      .sinkTo('out');
    const graph = p.jobGraph({ parallelism: 1 });
    const tableName = `l2-handler-${l2}`;
    await createStateTable(dynamoDb, tableName);
    const out: ChangeRow[] = [];
    const container = () => {
      const lookupSources = awsDimensionSources({ env: {}, l2: { client: dynamoDb, tableName } });
      const handler = new StageHandler({
        graph,
        stageId: 'stage-0',
        code: { functions: p.userFunctions, lookupSources },
        dynamoDb,
        tableName,
        sink: (rows) => void out.push(...rows),
        onError: (error) => {
          throw error;
        },
      });
      return { handler, lookupSources };
    };

    const first = container();
    expect(await first.handler.handle(event([1, 2, 3, 9], 1))).toEqual({ batchItemFailures: [] });
    expect(asked.keys).toBe(4);

    const cold = container();
    expect(await cold.handler.handle(event([3, 9, 1, 2], 10))).toEqual({ batchItemFailures: [] });
    expect(asked.keys).toBe(4 + moreKeys);
    expect(cold.lookupSources.l2Totals()).toEqual(l2 === 'dynamodb' ? { l2Hits: 4, l2Misses: 0, sourceKeys: 0, l2Failures: 0 } : { l2Hits: 0, l2Misses: 0, sourceKeys: 0, l2Failures: 0 });
    // Same rows either way; key 9 has no product (LEFT join: NULL title).
    expect(out.map((r) => r.row.title)).toEqual(['one', 'two', 'three', null, 'three', null, 'one', 'two']);
  });
});
