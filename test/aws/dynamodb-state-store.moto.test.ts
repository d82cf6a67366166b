/**
 * DynamoDbStateStore on moto_server, which (unlike dynalite) implements DynamoDB TTL
 * configuration: the table is created with TTL enabled on the store's expiry attribute, and the
 * TTL semantics and a smoke run of every state kind are checked against it.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { DescribeTimeToLiveCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDbStateStore } from '../../shared/aws/state/dynamodb-state-store.ts';
import type { DynamoDbStateStoreOptions } from '../../shared/aws/state/dynamodb-state-store.ts';
import { createStateTable } from '../../shared/aws/state/create-state-table.ts';
import { MAX_ITEM_BYTES } from '../../shared/aws/state/constants.ts';
import { itemBytes } from '../../shared/aws/state/item-codec.ts';
import { keyGroupOf } from '../../shared/partition/key-groups.ts';
import { startMotoServer } from './dynamodb-emulator.ts';
import type { DynamoDbEmulator } from './dynamodb-emulator.ts';

const TABLE = 'flambda-state-moto';
const TTL_ATTRIBUTE = 'expires_at';
let emulator: DynamoDbEmulator;
let client: DynamoDBClient;
let operatorSeq = 0;

beforeAll(async () => {
  emulator = await startMotoServer();
  client = emulator.client();
  await createStateTable(client, TABLE, { ttlAttribute: TTL_ATTRIBUTE });
});

afterAll(async () => {
  client?.destroy();
  await emulator?.stop();
});

function newStore(options: Partial<DynamoDbStateStoreOptions> = {}): DynamoDbStateStore {
  return new DynamoDbStateStore({ client, tableName: TABLE, operatorId: `moto${++operatorSeq}`, ttlAttribute: TTL_ATTRIBUTE, ...options });
}

function reopen(store: DynamoDbStateStore, options: Partial<DynamoDbStateStoreOptions> = {}): DynamoDbStateStore {
  return new DynamoDbStateStore({ client, tableName: TABLE, operatorId: store.operatorId, ttlAttribute: TTL_ATTRIBUTE, ...options });
}

async function itemsOf(operatorId: string, key: string): Promise<Record<string, AttributeValue>[]> {
  const pk = `${operatorId}#${keyGroupOf(key, 256)}#${key}`;
  const items: Record<string, AttributeValue>[] = [];
  let startKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: pk } }, ExclusiveStartKey: startKey }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return items;
}

describe('DynamoDbStateStore on moto_server', () => {
  it('creates the table with DynamoDB TTL enabled on the expiry attribute', async () => {
    const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: TABLE }));
    expect(ttl.TimeToLiveDescription).toMatchObject({ TimeToLiveStatus: 'ENABLED', AttributeName: TTL_ATTRIBUTE });
    // Idempotent: creating it again is fine.
    await createStateTable(client, TABLE);
  });

  it('round-trips value, map and sorted-map state, including a chunked value', async () => {
    const store = newStore();
    const v = store.valueState<unknown>('v');
    const m = store.mapState<number>('m');
    const s = store.sortedMapState<string>('s');
    await store.prefetch(['k1', 'k2']);
    v.put('k1', { sum: 12345678901234567890n, avg: Number.NaN, rows: [1, null, 'x'] });
    v.put('k2', 'é'.repeat(600_000));
    for (let i = 0; i < 50; i++) m.put('k1', `sub${i}`, i);
    for (const sub of ['c', 'a', '~', 'b']) s.put('k2', sub, sub.toUpperCase());
    const result = await store.flush();
    expect(result).toMatchObject({ keys: 2, deletes: 0 });
    for (const item of await itemsOf(store.operatorId, 'k2')) expect(itemBytes(item)).toBeLessThanOrEqual(MAX_ITEM_BYTES);

    const again = reopen(store);
    const v2 = again.valueState<unknown>('v');
    const m2 = again.mapState<number>('m');
    const s2 = again.sortedMapState<string>('s');
    await again.prefetch(['k1', 'k2']);
    expect(v2.get('k1')).toEqual({ sum: 12345678901234567890n, avg: Number.NaN, rows: [1, null, 'x'] });
    expect(v2.get('k2')).toBe('é'.repeat(600_000));
    expect(m2.size('k1')).toBe(50);
    expect([...s2.descending('k2')]).toEqual([['~', '~'], ['c', 'C'], ['b', 'B'], ['a', 'A']]);

    m2.clear('k1');
    v2.delete('k2');
    await again.flush();
    expect(await itemsOf(store.operatorId, 'k1')).toHaveLength(1);
    expect((await itemsOf(store.operatorId, 'k2')).map((i) => i.sk!.S!.split('#')[0])).toEqual(['s', 's', 's', 's']);
  });

  it('writes the expiry DynamoDB TTL acts on and never trusts an item past its TTL', async () => {
    const time = { now: 1_800_000_000_000 };
    const clock = (): number => time.now;
    const store = newStore({ clock });
    const s = store.valueState<string>('session', { ttl: { ttlMs: 60_000 } });
    await store.prefetch(['u1']);
    s.put('u1', 'v1');
    await store.flush();
    const [item] = await itemsOf(store.operatorId, 'u1');
    expect(item).toMatchObject({ wt: { N: '1800000000000' }, [TTL_ATTRIBUTE]: { N: '1800000060' } });

    time.now += 59_999;
    const warm = reopen(store, { clock });
    const s2 = warm.valueState<string>('session', { ttl: { ttlMs: 60_000 } });
    await warm.prefetch(['u1']);
    expect(s2.get('u1')).toBe('v1');
    time.now += 1;
    expect(s2.get('u1')).toBeUndefined();
    // DynamoDB has not deleted it (TTL deletion runs days late): the store must not care.
    expect(await itemsOf(store.operatorId, 'u1')).toHaveLength(1);
    await warm.flush();
    expect(await itemsOf(store.operatorId, 'u1')).toHaveLength(0);
  });

  it('persists TTL refreshes on read and expires map entries one by one', async () => {
    const time = { now: 0 };
    const clock = (): number => time.now;
    const ttl = { ttl: { ttlMs: 1_000, updateOnRead: true } };
    const store = newStore({ clock, maxCachedKeys: 1 });
    const m = store.sortedMapState<number>('m', ttl);
    await store.prefetch(['k']);
    m.put('k', 'a', 1);
    m.put('k', 'b', 2);
    await store.flush();
    time.now = 900;
    expect(m.first('k')).toEqual(['a', 1]);
    await store.flush();
    store.evictClean();
    time.now = 1_500;
    await store.prefetch(['k']);
    expect([...m.ascending('k')]).toEqual([['a', 1]]);
    await store.flush();
    const items = await itemsOf(store.operatorId, 'k');
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ sk: { S: 'm#a' }, wt: { N: '1500' }, [TTL_ATTRIBUTE]: { N: '3' } });
  });
});
