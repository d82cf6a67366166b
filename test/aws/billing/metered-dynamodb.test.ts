/**
 * The DynamoDB meter (shared/aws/billing/metered-dynamodb.ts) against dynalite: every request's
 * units equal the ConsumedCapacity dynalite reports for it (dynalite prices requests by the same
 * documented rules), for puts that grow and shrink items, updates, deletes, batches, reads of
 * present and absent items and Queries; plus what dynalite does not model (a Query that reads
 * nothing, failed conditions) checked by hand, and the requests the meter refuses.
 */
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type ConsumedCapacity,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meterDynamoDb, type MeteredDynamoDb, type PricedRequest } from '../../../shared/aws/billing/metered-dynamodb.ts';
import { createStateTable } from '../../../shared/aws/state/create-state-table.ts';
import { startDynalite, type DynamoDbEmulator } from '../dynamodb-emulator.ts';

let emulator: DynamoDbEmulator;
let client: DynamoDBClient;
let table = 0;

beforeAll(async () => {
  emulator = await startDynalite();
  client = emulator.client();
});
afterAll(async () => {
  client.destroy();
  await emulator.stop();
});

/** A fresh table and a meter over it that records each priced request. */
async function fresh(): Promise<{ name: string; meter: MeteredDynamoDb; priced: PricedRequest[] }> {
  const name = `billing-${++table}`;
  await createStateTable(client, name);
  const priced: PricedRequest[] = [];
  return { name, meter: meterDynamoDb(client, { keyAttributes: ['pk', 'sk'], onRequest: (r) => priced.push(r) }), priced };
}

const key = (pk: string) => ({ pk: { S: pk }, sk: { S: 's' } });
const item = (pk: string, bytes: number) => ({ ...key(pk), v: { S: 'x'.repeat(bytes) } });

function units(c: ConsumedCapacity | ConsumedCapacity[] | undefined): number {
  return (Array.isArray(c) ? c : c === undefined ? [] : [c]).reduce((sum, x) => sum + (x.CapacityUnits ?? 0), 0);
}

/** Sends through the meter; returns [meter's units, dynalite's units] of that one request. */
async function both(meter: MeteredDynamoDb, priced: PricedRequest[], command: object): Promise<[number, number]> {
  const output = (await meter.send(command as never)) as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] };
  const last = priced[priced.length - 1] as PricedRequest;
  return [last.readUnits + last.writeUnits, units(output.ConsumedCapacity)];
}

describe('DynamoDB meter', () => {
  it('prices every kind of item request as dynalite does', async () => {
    const { name, meter, priced } = await fresh();
    const T = { TableName: name, ReturnConsumedCapacity: 'TOTAL' as const };
    const cases: [string, [number, number]][] = [];
    const check = async (what: string, command: object) => cases.push([what, await both(meter, priced, command)]);

    await check('put, new 3 KB item', new PutItemCommand({ ...T, Item: item('a', 3000) }));
    await check('put replacing 3 KB by 100 B: the larger', new PutItemCommand({ ...T, Item: item('a', 100) }));
    await check('put replacing 100 B by 5 KB', new PutItemCommand({ ...T, Item: item('a', 5000) }));
    await check('update growing 5 KB to 7 KB', new UpdateItemCommand({ ...T, Key: key('a'), UpdateExpression: 'SET w = :w', ExpressionAttributeValues: { ':w': { S: 'y'.repeat(2000) } } }));
    await check('update shrinking 7 KB to 200 B', new UpdateItemCommand({ ...T, Key: key('a'), UpdateExpression: 'SET v = :v REMOVE w', ExpressionAttributeValues: { ':v': { S: 'z'.repeat(200) } } }));
    await check('update creating an item', new UpdateItemCommand({ ...T, Key: key('b'), UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': { S: 'q'.repeat(1500) } }, ReturnValues: 'ALL_NEW' }));
    await check('get, strongly consistent', new GetItemCommand({ ...T, Key: key('b'), ConsistentRead: true }));
    await check('get, eventually consistent', new GetItemCommand({ ...T, Key: key('b') }));
    await check('get of an absent item', new GetItemCommand({ ...T, Key: key('nope'), ConsistentRead: true }));
    await check(
      'batch write of puts and deletes',
      new BatchWriteItemCommand({
        RequestItems: { [name]: [{ PutRequest: { Item: item('c', 500) } }, { PutRequest: { Item: item('d', 3500) } }, { DeleteRequest: { Key: key('b') } }, { DeleteRequest: { Key: key('never') } }] },
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    await check('batch get of present and absent items', new BatchGetItemCommand({ RequestItems: { [name]: { Keys: [key('c'), key('d'), key('b')], ConsistentRead: true } }, ReturnConsumedCapacity: 'TOTAL' }));
    for (let i = 0; i < 12; i++) await meter.send(new PutItemCommand({ TableName: name, Item: { pk: { S: 'p' }, sk: { S: `k${i}` }, v: { S: 'm'.repeat(1000) } } }));
    await check(
      'query of 12 items of ~1 KB: summed, then rounded',
      new QueryCommand({ ...T, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'p' } }, ConsistentRead: true }),
    );
    await check(
      'query page of 5 items, eventually consistent',
      new QueryCommand({ ...T, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'p' } }, Limit: 5 }),
    );
    await check('delete of the 3.5 KB item', new DeleteItemCommand({ ...T, Key: key('d') }));
    await check('delete of an absent item', new DeleteItemCommand({ ...T, Key: key('d') }));

    for (const [what, [ours, dynalite]] of cases) expect(ours, what).toBe(dynalite);
    // And the figures themselves, worked out by hand (item = pk + sk + v attribute bytes).
    expect(cases.map(([, [ours]]) => ours)).toEqual([3, 3, 5, 7, 7, 2, 1, 0.5, 1, 1 + 4 + 2 + 1, 1 + 1 + 1, 3, 1, 4, 1]);
    expect(meter.usage).toMatchObject({ readRequests: 6, writeRequests: 9 + 12, itemsRead: 1 + 1 + 2 + 12 + 5 });
  });

  it('prices what dynalite reports as 0 or not at all: an empty Query, failed conditions', async () => {
    const { name, meter, priced } = await fresh();
    await meter.send(new QueryCommand({ TableName: name, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'none' } }, ConsistentRead: true }));
    await meter.send(new QueryCommand({ TableName: name, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'none' } } }));
    await meter.send(new PutItemCommand({ TableName: name, Item: item('a', 2500) }));
    const failedPut = meter.send(new PutItemCommand({ TableName: name, Item: item('a', 10), ConditionExpression: 'attribute_not_exists(pk)' }));
    await expect(failedPut).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    const failedNew = meter.send(new UpdateItemCommand({ TableName: name, Key: key('z'), UpdateExpression: 'SET v = :v', ConditionExpression: 'attribute_exists(pk)', ExpressionAttributeValues: { ':v': { S: 'v' } } }));
    await expect(failedNew).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect(priced.map((p) => [p.readUnits, p.writeUnits, p.conditionFailed])).toEqual([
      [1, 0, false],
      [0.5, 0, false],
      [0, 3, false],
      [0, 3, true],
      [0, 1, true],
    ]);
    expect(meter.usage).toMatchObject({ readRequests: 2, writeRequests: 3, writeUnits: 7, readUnits: 1.5, itemsWritten: 1 });
  });

  it('refuses requests it cannot price instead of under-counting them', async () => {
    const { name, meter } = await fresh();
    await expect(meter.send(new QueryCommand({ TableName: name, KeyConditionExpression: 'pk = :p', FilterExpression: 'v = :v', ExpressionAttributeValues: { ':p': { S: 'a' }, ':v': { S: 'b' } } }))).rejects.toThrow(
      'DynamoDB meter: cannot price QueryCommand: a filter drops items it read',
    );
    await expect(meter.send(new QueryCommand({ TableName: name, KeyConditionExpression: 'pk = :p', Select: 'COUNT', ExpressionAttributeValues: { ':p': { S: 'a' } } }))).rejects.toThrow("Select: 'COUNT'");
    await expect(meter.send(new TransactWriteItemsCommand({ TransactItems: [{ Put: { TableName: name, Item: item('a', 1) } }] }))).rejects.toThrow('transactions and PartiQL statements are not metered');
    expect(meter.usage).toMatchObject({ readRequests: 0, writeRequests: 0, readUnits: 0, writeUnits: 0 });
  });
});
