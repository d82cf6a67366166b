/**
 * Lookup joins in the Lambda stage handler, on dynalite (state and checkpoints): the handler
 * builds the dimension source per shard task, a warm container keeps the task — and so the
 * operator's cache — across invocations, and the cache counters reach the handler's stats
 * (`lookupCacheHits` / `lookupCacheMisses`). A cold start (a new handler) starts with an empty
 * cache. Sources: a user function, and a JSON-lines table bound by FLAMBDA_LOOKUP_FILES relative
 * to the handler's directory; both are counted at the store (source loads).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchWriteItemCommand, CreateTableCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KinesisStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pipeline } from '../../shared/api/index.ts';
import { StageHandler } from '../../shared/aws/handler/stage-handler.ts';
import { LOOKUP_ENV, awsDimensionSources, lookupFilesFromEnv } from '../../shared/aws/lookup/dimension-sources.ts';
import { createStateTable } from '../../shared/aws/state/create-state-table.ts';
import { PlanError } from '../../shared/core/errors.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import { runEmbeddedJob } from '../../shared/runtime/embedded/embedded-runtime.ts';
import type { DimensionSourceFactory } from '../../shared/operators/registry.ts';
import { startDynalite, type DynamoDbEmulator } from '../aws/dynamodb-emulator.ts';
import { kinesisRecord } from '../aws/stage-input-fixtures.ts';

const SHARD = 'shardId-000000000000';
const PRODUCTS = [
  { id: 1, title: 'one' },
  { id: 2, title: 'two' },
  { id: 3, title: 'three' },
];

let dynalite: DynamoDbEmulator;
let dynamoDb: DynamoDBClient;
const dir = mkdtempSync(join(tmpdir(), 'flambda-lookup-aws-'));
writeFileSync(join(dir, 'products.jsonl'), PRODUCTS.map((p) => JSON.stringify(p)).join('\n'));

beforeAll(async () => {
  dynalite = await startDynalite();
  dynamoDb = dynalite.client();
});
afterAll(async () => {
  dynamoDb?.destroy();
  await dynalite?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** One invocation's event: orders with these product ids, sequence numbers from `first`. */
function event(productIds: readonly number[], first: number): KinesisStreamEvent {
  return {
    Records: productIds.map((id, i) => kinesisRecord({ data: { order_id: first + i, product_id: id }, shardId: SHARD, n: first + i, arrivalMs: 1_700_000_000_000 + first + i })),
  };
}

function pipelineWith(source: 'fn' | 'jsonl', calls: { n: number }): Pipeline {
  const p = new Pipeline(`warm-${source}`);
  const schema = { id: 'BIGINT NOT NULL', title: 'STRING' } as const;
  const table = p.lookupTable('products', {
    schema,
    source:
      source === 'fn'
        ? {
            fn: (keys) => {
              calls.n++;
              const wanted = new Set(keys.map((k) => k.id));
              return PRODUCTS.filter((row) => wanted.has(row.id));
            },
          }
        : { jsonl: {} },
    cache: { type: 'PARTIAL', maxRows: 100 },
  });
  p.source('orders', { schema: { order_id: 'INT NOT NULL', product_id: 'BIGINT' } })
    .lookupJoin(table, { on: { product_id: 'id' }, columns: ['title'] })
    .sinkTo('out');
  return p;
}

describe('StageHandler: the lookup cache survives warm invocations', () => {
  it.each(['fn', 'jsonl'] as const)('%s source: the second invocation is served by the cache; a cold start loads again', async (kind) => {
    const calls = { n: 0 };
    const pipeline = pipelineWith(kind, calls);
    const graph = pipeline.jobGraph({ parallelism: 1 });
    expect(graph.stages).toHaveLength(1);
    const tableName = `lookup-warm-${kind}`;
    await createStateTable(dynamoDb, tableName);
    // Count store calls below the cache: what reaches the source is a load.
    const aws = awsDimensionSources({ env: { [LOOKUP_ENV.files]: JSON.stringify({ products: 'products.jsonl' }) }, baseDir: dir });
    let created = 0;
    const counting: DimensionSourceFactory = (descriptor, context) => {
      created++;
      const source = aws(descriptor, context);
      return { ...source, table: source.table, lookupMany: (keys) => (calls.n += kind === 'jsonl' ? 1 : 0, source.lookupMany(keys)), close: () => source.close() };
    };
    const out: ChangeRow[] = [];
    const coldStart = (): StageHandler =>
      new StageHandler({
        graph,
        stageId: 'stage-0',
        code: { functions: pipeline.userFunctions, lookupSources: counting },
        dynamoDb,
        tableName,
        sink: (rows) => void out.push(...rows),
        onError: (error) => {
          throw error;
        },
      });

    const handler = coldStart();
    expect(await handler.handle(event([1, 2, 3, 1, 9], 1))).toEqual({ batchItemFailures: [] });
    expect(calls.n).toBe(1);
    expect(handler.stats()).toMatchObject({ lookupCacheHits: 0, lookupCacheMisses: 4, lookupLoads: 1, lookupCacheEvictions: 0 });

    // Warm: same container, same shard task, same operator, same cache.
    expect(await handler.handle(event([3, 2, 1, 9], 10))).toEqual({ batchItemFailures: [] });
    expect(calls.n).toBe(1);
    expect(handler.stats()).toMatchObject({ lookupCacheHits: 4, lookupCacheMisses: 4, lookupLoads: 1, staleTasks: 0 });
    expect(created).toBe(1);
    expect(out.map((r) => r.row.title)).toEqual(['one', 'two', 'three', 'one', 'three', 'two', 'one']);

    // Cold start: a new container rebuilds the task from the checkpoint with an empty cache.
    const cold = coldStart();
    expect(await cold.handle(event([1], 20))).toEqual({ batchItemFailures: [] });
    expect(calls.n).toBe(2);
    expect(created).toBe(2);
    expect(cold.stats()).toMatchObject({ lookupCacheHits: 0, lookupCacheMisses: 1 });
  });
});

describe('awsDimensionSources', () => {
  it('reads FLAMBDA_LOOKUP_FILES; rejects what is not an object of paths', () => {
    expect(lookupFilesFromEnv({ [LOOKUP_ENV.files]: '{"side_input": "data/side.jsonl"}' })).toEqual(new Map([['side_input', 'data/side.jsonl']]));
    expect(lookupFilesFromEnv({})).toEqual(new Map());
    expect(() => lookupFilesFromEnv({ [LOOKUP_ENV.files]: '["a"]' })).toThrow(PlanError);
    expect(() => lookupFilesFromEnv({ [LOOKUP_ENV.files]: '{"a": 1}' })).toThrow("the file of 'a' must be a non-empty string");
  });

  it('JDBC: a passwordFrom variable that is not set, and a secretArn without a Secrets Manager client, are PlanErrors', () => {
    const factory = awsDimensionSources({ env: {} });
    const context = { table: 'users', schema: { fields: [{ name: 'id', type: { root: 'INT' as const, nullable: false } }] }, operatorId: 'LookupJoin_1', functions: new Map() };
    expect(() => factory({ type: 'jdbc', url: 'jdbc:mysql://127.0.0.1:3306/test', table: 'users', user: 'app', passwordFrom: 'DB_PASSWORD' }, context)).toThrow(
      "environment variable 'DB_PASSWORD' (passwordFrom) is not set",
    );
    expect(() => factory({ type: 'jdbc', url: 'jdbc:mysql://127.0.0.1:3306/test', table: 'users', secretArn: 'arn:aws:secretsmanager:us-east-1:1:secret:db' }, context)).toThrow(
      /secretArn needs a Secrets Manager resolver.*passwordFrom/,
    );
  });
});

describe('a DynamoDB lookup table through the AWS factory (one shared client)', () => {
  it('joins rows read from dynalite by primary key', async () => {
    await dynamoDb.send(
      new CreateTableCommand({
        TableName: 'products_dim',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'N' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    await dynamoDb.send(
      new BatchWriteItemCommand({
        RequestItems: { products_dim: PRODUCTS.map((p) => ({ PutRequest: { Item: { id: { N: String(p.id) }, title: { S: p.title } } } })) },
      }),
    );
    const p = new Pipeline('dynamo-lookup');
    const table = p.lookupTable('products', { schema: { id: 'BIGINT NOT NULL', title: 'STRING' }, source: { dynamodb: { table: 'products_dim' } }, hash: true });
    p.source('orders', { schema: { order_id: 'INT NOT NULL', product_id: 'BIGINT' } })
      .lookupJoin(table, { on: { product_id: 'id' }, columns: ['title'], type: 'left' })
      .sinkTo('out');
    const file = join(dir, 'orders.jsonl');
    writeFileSync(file, [1, 2, 7, 3, 1].map((id, i) => JSON.stringify({ order_id: i, product_id: id })).join('\n'));
    const rows: ChangeRow[] = [];
    await runEmbeddedJob(p.jobGraph({ parallelism: 2 }), {
      inputs: new Map([['orders', file]]),
      code: { functions: p.userFunctions, lookupSources: awsDimensionSources({ dynamoDb }) },
      observers: new Map([['out', [{ write: (batch: readonly ChangeRow[]) => void rows.push(...batch) }]]]),
    });
    expect(rows.map((r) => [r.row.order_id, r.row.title]).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([
      [0, 'one'],
      [1, 'two'],
      [2, null],
      [3, 'three'],
      [4, 'one'],
    ]);
  });
});
