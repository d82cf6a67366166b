import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchGetItemCommand, BatchWriteItemCommand, CreateTableCommand } from '@aws-sdk/client-dynamodb';
import type { AttributeValue, BatchGetItemCommandOutput, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { TransientError } from '../../shared/core/errors.ts';
import { schemaOf } from '../../shared/core/type-parse.ts';
import { encodeLookupKey } from '../../shared/lookup/dimension-source.ts';
import { createDynamoDbSource } from '../../shared/lookup/dynamodb-source.ts';
import { DimensionDataError } from '../../shared/lookup/errors.ts';
import { countingClient, startDynalite } from '../aws/dynamodb-emulator.ts';
import type { DynamoDbEmulator, SentCommand } from '../aws/dynamodb-emulator.ts';
import { ms } from './sql-fixture.ts';

let emulator: DynamoDbEmulator;
let client: DynamoDBClient;

const itemSchema = schemaOf({ id: 'BIGINT NOT NULL', name: 'STRING', price: 'DECIMAL(10, 2)', ts: 'TIMESTAMP(3)', flag: 'BOOLEAN', tags: 'STRING' });
const orderSchema = schemaOf({ customer: 'STRING NOT NULL', order_id: 'BIGINT NOT NULL', grp: 'STRING', amount: 'DOUBLE' });

async function putAll(table: string, items: Record<string, AttributeValue>[]): Promise<void> {
  for (let i = 0; i < items.length; i += 25) {
    await client.send(new BatchWriteItemCommand({ RequestItems: { [table]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
  }
}

beforeAll(async () => {
  emulator = await startDynalite();
  client = emulator.client();
  await client.send(
    new CreateTableCommand({
      TableName: 'items',
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'N' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  await client.send(
    new CreateTableCommand({
      TableName: 'orders',
      AttributeDefinitions: [
        { AttributeName: 'customer', AttributeType: 'S' },
        { AttributeName: 'order_id', AttributeType: 'N' },
        { AttributeName: 'grp', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'customer', KeyType: 'HASH' },
        { AttributeName: 'order_id', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [{ IndexName: 'by_grp', KeySchema: [{ AttributeName: 'grp', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  const items: Record<string, AttributeValue>[] = [];
  for (let i = 1; i <= 250; i++) items.push({ id: { N: String(i) }, name: { S: `item-${i}` }, price: { N: `${i}.5` }, ts: { N: String(ms('2024-01-01 00:00:00') + i) }, flag: { BOOL: i % 2 === 0 } });
  items.push({ id: { N: '9007199254740991' }, name: { NULL: true }, ts: { S: '2015-07-15 00:00:01.000' }, tags: { L: [{ S: 'a' }, { N: '1' }] } });
  items.push({ id: { N: '1000' }, price: { N: '1.234' } });
  await putAll('items', items);
  await putAll('orders', [
    { customer: { S: 'c1' }, order_id: { N: '1' }, grp: { S: 'x' }, amount: { N: '1.5' } },
    { customer: { S: 'c1' }, order_id: { N: '2' }, grp: { S: 'y' }, amount: { N: '2.5' } },
    { customer: { S: 'c2' }, order_id: { N: '3' }, grp: { S: 'x' }, amount: { N: '-0.5' } },
  ]);
});

afterAll(async () => {
  client?.destroy();
  await emulator?.stop();
});

const key = (id: number): string => encodeLookupKey({ id }, ['id']);

describe('DynamoDB dimension source, get mode', () => {
  it('one key is a GetItem; values are converted exactly, L/M read as JSON text', async () => {
    const counting = countingClient(client);
    const source = createDynamoDbSource({ table: 'items', schema: itemSchema }, { client: counting.client });
    const result = await source.lookupMany([{ id: 9007199254740991 }]);
    expect(result.get(key(9007199254740991))).toEqual([
      { id: 9007199254740991, name: null, price: null, ts: ms('2015-07-15 00:00:01'), flag: null, tags: '["a",1]' },
    ]);
    expect(Object.fromEntries(counting.counts)).toEqual({ GetItemCommand: 1 });
  });

  it('250 keys are three BatchGetItem calls of at most 100 keys; missing keys are absent', async () => {
    const counting = countingClient(client);
    const source = createDynamoDbSource({ table: 'items', schema: itemSchema }, { client: counting.client });
    const keys = Array.from({ length: 250 }, (_, i) => ({ id: i + 1 }));
    const result = await source.lookupMany([...keys, { id: 5000 }]);
    expect(result.size).toBe(250);
    expect(result.get(key(7))).toEqual([{ id: 7, name: 'item-7', price: 750n, ts: ms('2024-01-01 00:00:00') + 7, flag: false, tags: null }]);
    expect(result.has(key(5000))).toBe(false);
    expect(Object.fromEntries(counting.counts)).toEqual({ BatchGetItemCommand: 3 });
  });

  it('UnprocessedKeys are re-requested until done', async () => {
    let calls = 0;
    // The emulator answers for real; the first answer is cut in half, the cut keys reported unprocessed.
    const counting = countingClient(client, (command: SentCommand, send) => {
      if (command.constructor.name !== 'BatchGetItemCommand' || calls++ > 0) return undefined;
      const input = command.input as { RequestItems: Record<string, { Keys: Record<string, AttributeValue>[] }> };
      const all = input.RequestItems.items!.Keys;
      const half = all.slice(0, Math.ceil(all.length / 2));
      return (async () => {
        const response = (await send(new BatchGetItemCommand({ RequestItems: { items: { ...input.RequestItems.items!, Keys: half } } }) as unknown as SentCommand)) as BatchGetItemCommandOutput;
        return { ...response, UnprocessedKeys: { items: { Keys: all.slice(half.length) } } };
      })();
    });
    const sleeps: number[] = [];
    const source = createDynamoDbSource(
      { table: 'items', schema: itemSchema },
      { client: counting.client, unprocessed: { sleep: async (d) => void sleeps.push(d), random: () => 0.5 } },
    );
    const result = await source.lookupMany([{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }]);
    expect([...result.keys()].sort()).toEqual([key(1), key(2), key(3), key(4)].sort());
    expect(counting.counts.get('BatchGetItemCommand')).toBe(2);
    expect(sleeps).toEqual([25]);
  });

  it('keys that stay unprocessed end in a TransientError, not a miss', async () => {
    const counting = countingClient(client, (command: SentCommand) => {
      if (command.constructor.name !== 'BatchGetItemCommand') return undefined;
      const input = command.input as { RequestItems: Record<string, { Keys: unknown[] }> };
      return Promise.resolve({ Responses: { items: [] }, UnprocessedKeys: { items: { Keys: input.RequestItems.items!.Keys } } });
    });
    const source = createDynamoDbSource({ table: 'items', schema: itemSchema }, { client: counting.client, unprocessed: { maxAttempts: 3, sleep: async () => undefined } });
    await expect(source.lookupMany([{ id: 1 }, { id: 2 }])).rejects.toThrow(TransientError);
    expect(counting.counts.get('BatchGetItemCommand')).toBe(3);
  });

  it('a composite primary key (partition + sort key)', async () => {
    const source = createDynamoDbSource({ table: 'orders', schema: orderSchema }, { client });
    const result = await source.lookupMany([
      { customer: 'c1', order_id: 2 },
      { customer: 'c2', order_id: 2 },
    ]);
    expect([...result.values()]).toEqual([[{ customer: 'c1', order_id: 2, grp: 'y', amount: 2.5 }]]);
  });

  it('a stored number that does not fit is an error naming table, column and value', async () => {
    const source = createDynamoDbSource({ table: 'items', schema: itemSchema }, { client });
    const error = await source.lookupMany([{ id: 1000 }]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DimensionDataError);
    expect((error as Error).message).toContain("lookup table 'items' column 'price' (DECIMAL(10, 2)): value \"1.234\"");
  });
});

describe('DynamoDB dimension source, query mode', () => {
  it('a partition key of a non-unique table returns all its items, one Query per key', async () => {
    const counting = countingClient(client);
    const source = createDynamoDbSource({ table: 'orders', schema: orderSchema, mode: 'query' }, { client: counting.client });
    const result = await source.lookupMany([{ customer: 'c1' }, { customer: 'c2' }, { customer: 'c9' }]);
    expect(result.get(encodeLookupKey({ customer: 'c1' }, ['customer']))!.map((r) => r.order_id)).toEqual([1, 2]);
    expect(result.get(encodeLookupKey({ customer: 'c2' }, ['customer']))).toEqual([{ customer: 'c2', order_id: 3, grp: 'x', amount: -0.5 }]);
    expect(result.size).toBe(2);
    expect(Object.fromEntries(counting.counts)).toEqual({ QueryCommand: 3 });
  });

  it('a global secondary index', async () => {
    const source = createDynamoDbSource({ table: 'orders', schema: orderSchema, mode: 'query', indexName: 'by_grp' }, { client });
    const result = await source.lookupMany([{ grp: 'x' }]);
    expect(result.get(encodeLookupKey({ grp: 'x' }, ['grp']))!.map((r) => r.order_id).sort()).toEqual([1, 3]);
  });

  it('loadAll scans the table', async () => {
    const source = createDynamoDbSource({ table: 'orders', schema: orderSchema }, { client });
    expect((await source.loadAll!()).length).toBe(3);
  });

  it('rejects an index outside query mode', () => {
    expect(() => createDynamoDbSource({ table: 'orders', schema: orderSchema, indexName: 'by_grp' }, { client })).toThrow(/indexName needs mode 'query'/);
  });
});
