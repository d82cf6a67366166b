/**
 * DynamoDbStateStore against dynalite: persistence of every state kind, the item layout, chunked
 * values, the write-back cache and its bounds, TTL on a controlled clock, BatchWriteItem
 * retries, and a real GroupAggregate run compared with the memory backend.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { BatchWriteItemCommand, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import type { AttributeValue, BatchWriteItemCommandInput, DynamoDBClient, WriteRequest } from '@aws-sdk/client-dynamodb';
import { DynamoDbStateStore } from '../../shared/aws/state/dynamodb-state-store.ts';
import type { DynamoDbStateStoreOptions } from '../../shared/aws/state/dynamodb-state-store.ts';
import { createStateTable } from '../../shared/aws/state/create-state-table.ts';
import { CHUNK_BYTES, MAX_ITEM_BYTES } from '../../shared/aws/state/constants.ts';
import { itemBytes } from '../../shared/aws/state/item-codec.ts';
import { FlambdaError, PlanError, TransientError } from '../../shared/core/errors.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import { schemaOf } from '../../shared/core/type-parse.ts';
import { createGroupAggregateOperator } from '../../shared/operators/aggregate/group-aggregate.ts';
import type { GroupAggregateSpec } from '../../shared/operators/aggregate/group-aggregate.ts';
import type { KeyedStateStore, Operator, OperatorContext, Output } from '../../shared/operators/operator.ts';
import { encodeSortKey } from '../../shared/partition/key-encoding.ts';
import { keyGroupOf } from '../../shared/partition/key-groups.ts';
import { MemoryStateStore } from '../../shared/state/memory-backend.ts';
import { MemoryTimerService } from '../../shared/state/timer-service.ts';
import { countingClient, scanTable, startDynalite } from './dynamodb-emulator.ts';
import type { DynamoDbEmulator, Interceptor } from './dynamodb-emulator.ts';

const TABLE = 'flambda-state';
let emulator: DynamoDbEmulator;
let client: DynamoDBClient;
let operatorSeq = 0;

beforeAll(async () => {
  emulator = await startDynalite();
  client = emulator.client();
  await createStateTable(client, TABLE);
});

afterAll(async () => {
  client?.destroy();
  await emulator?.stop();
});

/** A clock the test moves by hand. */
function manualClock(start = 0): { now: number; clock: () => number } {
  const c = { now: start, clock: () => c.now };
  return c;
}

/** A store for a fresh operator id (so tests sharing the table never see each other's state). */
function newStore(options: Partial<DynamoDbStateStoreOptions> = {}): DynamoDbStateStore {
  return new DynamoDbStateStore({ client, tableName: TABLE, operatorId: `op${++operatorSeq}`, sleep: async () => {}, ...options });
}

/** Another store on the same operator's state: what a cold start (or another container) sees. */
function reopen(store: DynamoDbStateStore, options: Partial<DynamoDbStateStoreOptions> = {}): DynamoDbStateStore {
  return new DynamoDbStateStore({ client, tableName: TABLE, operatorId: store.operatorId, sleep: async () => {}, ...options });
}

/** The items of one operator's key, in DynamoDB's sort-key order. */
async function itemsOf(operatorId: string, key: string, keyGroups = 256): Promise<Record<string, AttributeValue>[]> {
  const pk = `${operatorId}#${keyGroupOf(key, keyGroups)}#${key}`;
  const items: Record<string, AttributeValue>[] = [];
  let startKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: pk } },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return items;
}

/** Puts of a BatchWriteItem input. */
function putsOf(input: unknown): WriteRequest[] {
  return Object.values((input as BatchWriteItemCommandInput).RequestItems ?? {}).flat();
}

describe('Class: DynamoDbStateStore', () => {
  describe('Constructor', () => {
    it('validates options, naming the bad value', () => {
      expect(() => newStore({ maxCachedKeys: 0 })).toThrow(/maxCachedKeys must be an integer from 1 .* \(given 0\)/);
      expect(() => newStore({ readConcurrency: 1.5 })).toThrow(PlanError);
      expect(() => newStore({ ttlAttribute: 'wt' })).toThrow(/ttlAttribute/);
      expect(() => newStore({ keyGroups: 0 })).toThrow(PlanError);
      expect(() => newStore({ operatorId: 'a#b' })).toThrow(FlambdaError);
    });

    it('rejects redeclaring a state with another kind or TTL, and names with #', () => {
      const store = newStore();
      store.valueState('s');
      expect(store.valueState('s')).toBe(store.valueState('s'));
      expect(() => store.mapState('s')).toThrow(/different options/);
      expect(() => store.valueState('s', { ttl: { ttlMs: 5 } })).toThrow(/different options/);
      expect(() => store.valueState('t', { ttl: { ttlMs: 0 } })).toThrow(PlanError);
      expect(() => store.mapState('a#b')).toThrow(FlambdaError);
    });
  });

  describe('Method: valueState', () => {
    it('round-trips plain data, bigints, special numbers and tag-like objects through DynamoDB', async () => {
      const store = newStore();
      const s = store.valueState<unknown>('v');
      const values: Record<string, unknown> = {
        number: 42.5,
        string: 'héllo 👋 \ud800 lone',
        bigint: -123456789012345678901234567890n,
        specials: [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, undefined, null],
        nested: { a: [1, { b: 2n }], $bigint: 'not a tag', c: { $bigint: '5' }, d: { $object: [] } },
        proto: JSON.parse('{"__proto__": {"x": 1}}') as unknown,
        null: null,
        boolean: false,
      };
      await store.prefetch(Object.keys(values));
      for (const [key, value] of Object.entries(values)) s.put(key, value);
      await store.flush();

      const again = reopen(store);
      const s2 = again.valueState<unknown>('v');
      await again.prefetch(Object.keys(values));
      for (const [key, value] of Object.entries(values)) expect(s2.get(key)).toStrictEqual(value);
      const specials = s2.get('specials') as unknown[];
      expect(Object.is(specials[3], -0)).toBe(true);
      expect(specials).toHaveLength(6);
      expect(Object.getPrototypeOf(s2.get('proto'))).toBe(Object.prototype);
    });

    it('stores one item per key at sk = state name, under pk = operator#keyGroup#key', async () => {
      const store = newStore({ keyGroups: 128 });
      const s = store.valueState<number>('count');
      await store.prefetch(['Sa']);
      s.put('Sa', 7);
      await store.flush();
      const items = await itemsOf(store.operatorId, 'Sa', 128);
      expect(items).toEqual([{ pk: { S: `${store.operatorId}#${keyGroupOf('Sa', 128)}#Sa` }, sk: { S: 'count' }, v: { S: '7' } }]);
    });

    it('deletes the item when the value is deleted or set to undefined', async () => {
      const store = newStore();
      const s = store.valueState<number | undefined>('s');
      await store.prefetch(['a', 'b']);
      s.put('a', 1);
      s.put('b', 2);
      await store.flush();
      s.delete('a');
      s.put('b', undefined);
      const result = await store.flush();
      expect(result).toMatchObject({ keys: 2, puts: 0, deletes: 2, requests: 1 });
      expect(await itemsOf(store.operatorId, 'a')).toEqual([]);
      expect(await itemsOf(store.operatorId, 'b')).toEqual([]);
    });

    it('writes nothing for a value put and deleted again before a flush', async () => {
      const store = newStore();
      const s = store.valueState<number>('s');
      await store.prefetch(['a']);
      s.put('a', 1);
      s.delete('a');
      expect(await store.flush()).toEqual({ keys: 1, puts: 0, deletes: 0, requests: 0, retries: 0 });
    });

    it('hashes keys too long for a partition key, and keys starting with ~', async () => {
      const store = newStore();
      const s = store.valueState<string>('s');
      const long = 'S' + 'x'.repeat(5000);
      const keys = [long, '~h:abc', 'S\ud800', ''];
      await store.prefetch(keys);
      keys.forEach((k, i) => s.put(k, `v${i}`));
      await store.flush();
      const pks = (await scanTable(client, TABLE)).map((i) => i.pk!.S!).filter((pk) => pk.startsWith(store.operatorId + '#'));
      expect(pks).toHaveLength(4);
      for (const pk of pks) expect(Buffer.byteLength(pk)).toBeLessThan(2048);
      expect(pks.filter((pk) => pk.includes('#~h:'))).toHaveLength(3);
      const again = reopen(store);
      const s2 = again.valueState<string>('s');
      await again.prefetch(keys);
      expect(keys.map((k) => s2.get(k))).toEqual(['v0', 'v1', 'v2', 'v3']);
    });
  });

  describe('Method: prefetch', () => {
    it('throws an internal FlambdaError naming the operator, state and key for a key not prefetched', async () => {
      const store = newStore();
      const v = store.valueState<number>('v');
      const m = store.sortedMapState<number>('m');
      await store.prefetch(['a']);
      const expectBug = (f: () => unknown): void => {
        let error: unknown;
        try {
          f();
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(FlambdaError);
        expect((error as FlambdaError).domain).toBe('internal');
        expect((error as FlambdaError).message).toContain(store.operatorId);
        expect((error as FlambdaError).message).toContain('"zz"');
      };
      expectBug(() => v.get('zz'));
      expectBug(() => v.put('zz', 1));
      expectBug(() => m.entries('zz'));
      expectBug(() => m.ascending('zz'));
      expectBug(() => m.first('zz'));
      expectBug(() => m.size('zz'));
      expect(v.get('a')).toBeUndefined();
    });

    it('loads each uncached key with one Query and serves cached keys without an await', async () => {
      const { client: counted, counts } = countingClient(client);
      const store = newStore({ client: counted });
      const v = store.valueState<number>('v');
      const m = store.mapState<number>('m');
      const keys = Array.from({ length: 20 }, (_, i) => `k${i}`);
      await store.prefetch(keys);
      expect(counts.get('QueryCommand')).toBe(20);
      for (const k of keys) {
        v.put(k, 1);
        m.put(k, 'x', 2);
      }
      await store.flush();
      expect(store.prefetch(keys)).toBeUndefined();
      expect(counts.get('QueryCommand')).toBe(20);
      expect(store.stats()).toMatchObject({ cacheHits: 20, cacheMisses: 20, readRequests: 20, readItems: 0, writeRequests: 2, writeItems: 40 });

      const cold = countingClient(client);
      const again = reopen(store, { client: cold.client });
      await again.prefetch(new Set([...keys, ...keys]));
      expect(cold.counts.get('QueryCommand')).toBe(20);
      expect(again.stats()).toMatchObject({ readRequests: 20, readItems: 40 });
      expect(again.mapState<number>('m').get('k3', 'x')).toBe(2);
    });

    it('queries with bounded concurrency', async () => {
      let inFlight = 0;
      let peak = 0;
      const { client: counted } = countingClient(client, (command, send) => {
        if (command.constructor.name !== 'QueryCommand') return undefined;
        inFlight++;
        peak = Math.max(peak, inFlight);
        return send(command).finally(() => inFlight--);
      });
      const store = newStore({ client: counted, readConcurrency: 3 });
      store.valueState('v');
      await store.prefetch(Array.from({ length: 30 }, (_, i) => `k${i}`));
      expect(peak).toBe(3);
    });

    it('keeps items of states declared after the load and hands them over on declaration', async () => {
      const store = newStore();
      await store.prefetch(['k']);
      store.valueState<number>('a').put('k', 1);
      store.mapState<number>('b').put('k', 'x', 2);
      await store.flush();
      const again = reopen(store);
      const a = again.valueState<number>('a');
      await again.prefetch(['k']);
      expect(a.get('k')).toBe(1);
      expect(again.mapState<number>('b').get('k', 'x')).toBe(2);
    });

    it('rejects state whose stored kind differs from its declaration', async () => {
      const store = newStore();
      await store.prefetch(['k']);
      store.mapState<number>('s').put('k', 'x', 1);
      await store.flush();
      const again = reopen(store);
      again.valueState<number>('s');
      await expect(async () => again.prefetch(['k'])).rejects.toThrow(PlanError);
    });

    it('maps SDK failures: throttling to TransientError, a missing table to a non-retryable error', async () => {
      const throttled = countingClient(client, () =>
        Promise.reject(Object.assign(new Error('slow down'), { name: 'ProvisionedThroughputExceededException', $metadata: { httpStatusCode: 400 } })),
      );
      const store = newStore({ client: throttled.client });
      store.valueState('v');
      await expect(async () => store.prefetch(['k'])).rejects.toThrow(TransientError);

      const missing = newStore({ tableName: 'no-such-table' });
      missing.valueState('v');
      const error = await Promise.resolve(missing.prefetch(['k'])).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FlambdaError);
      expect(error).not.toBeInstanceOf(TransientError);
      expect((error as FlambdaError).retry).toBe('fail');
      expect((error as FlambdaError).message).toMatch(/ResourceNotFoundException/);
    });
  });

  describe('Method: mapState / sortedMapState', () => {
    it('persists map entries one item each and clear() deletes them all', async () => {
      const store = newStore();
      const m = store.mapState<string>('m');
      await store.prefetch(['k']);
      m.put('k', 'x', 'X');
      m.put('k', 'y', 'Y');
      m.put('k', 'z', 'Z');
      m.delete('k', 'z');
      await store.flush();
      expect((await itemsOf(store.operatorId, 'k')).map((i) => i.sk!.S)).toEqual(['m#x', 'm#y']);

      const again = reopen(store);
      const m2 = again.mapState<string>('m');
      await again.prefetch(['k']);
      expect(new Map(m2.entries('k'))).toEqual(new Map([['x', 'X'], ['y', 'Y']]));
      expect(m2.size('k')).toBe(2);
      m2.clear('k');
      expect(m2.size('k')).toBe(0);
      await again.flush();
      expect(await itemsOf(store.operatorId, 'k')).toEqual([]);
    });

    it('keeps awkward sub-keys apart and reads them back (~, chunk look-alikes, empty, long, lone surrogates)', async () => {
      const store = newStore();
      const m = store.sortedMapState<number>('m');
      const v = store.valueState<number>('m2');
      const subKeys = ['', '~', '~~', 'a~b', '#~chunk#1', '~chunk#1', 'x#~chunk#0', 'x', '~h:abc', 'L'.repeat(600), '\udc00', '€'.repeat(300)];
      await store.prefetch(['k']);
      subKeys.forEach((s, i) => m.put('k', s, i));
      v.put('k', -1);
      await store.flush();
      const items = await itemsOf(store.operatorId, 'k');
      expect(items).toHaveLength(subKeys.length + 1);
      for (const item of items) expect(Buffer.byteLength(item.sk!.S!)).toBeLessThanOrEqual(1024);

      const again = reopen(store);
      const m2 = again.sortedMapState<number>('m');
      again.valueState<number>('m2');
      await again.prefetch(['k']);
      const sorted = [...subKeys].sort();
      expect([...m2.ascending('k')]).toEqual(sorted.map((s) => [s, subKeys.indexOf(s)]));
      expect([...m2.descending('k')].map(([s]) => s)).toEqual([...sorted].reverse());
      expect(again.valueState<number>('m2').get('k')).toBe(-1);
    });

    it('stores sorted-map entries in DynamoDB in the same order as in memory', async () => {
      const store = newStore();
      const m = store.sortedMapState<number>('rank');
      const values = [5, -3, 0, 1e9, -1e-9, 42, 7.5, -100];
      await store.prefetch(['p']);
      for (const x of values) m.put('p', encodeSortKey([x, `id~${x}`], ['DESC', 'ASC'], [false, false]), x);
      await store.flush();
      const stored = (await itemsOf(store.operatorId, 'p')).map((i) => JSON.parse(i.v!.S!) as number);
      expect(stored).toEqual([...m.ascending('p')].map(([, x]) => x));
      expect(stored).toEqual([...values].sort((a, b) => b - a));
    });

    it('iterates from a sub-key, and first/last, after a reload', async () => {
      const store = newStore();
      const m = store.sortedMapState<string>('m');
      await store.prefetch(['k']);
      for (const s of ['b', 'd', 'f', 'h']) m.put('k', s, s.toUpperCase());
      await store.flush();
      const again = reopen(store);
      const m2 = again.sortedMapState<string>('m');
      await again.prefetch(['k']);
      expect([...m2.ascending('k', 'c')].map(([s]) => s)).toEqual(['d', 'f', 'h']);
      expect([...m2.descending('k', 'f')].map(([s]) => s)).toEqual(['f', 'd', 'b']);
      expect(m2.first('k')).toEqual(['b', 'B']);
      expect(m2.last('k')).toEqual(['h', 'H']);
    });

    it('reads a map of many entries back across Query pages', async () => {
      const { client: counted, counts } = countingClient(client);
      const store = newStore({ client: counted });
      const m = store.mapState<string>('big');
      await store.prefetch(['k']);
      const n = 3_000;
      for (let i = 0; i < n; i++) m.put('k', `e${String(i).padStart(5, '0')}`, 'v'.repeat(500) + i);
      const result = await store.flush();
      expect(result).toMatchObject({ keys: 1, puts: n, requests: Math.ceil(n / 25) });
      expect(counts.get('BatchWriteItemCommand')).toBe(n / 25);

      const again = reopen(store);
      const m2 = again.mapState<string>('big');
      await again.prefetch(['k']);
      expect(again.stats().readRequests).toBeGreaterThan(1);
      expect(again.stats().readItems).toBe(n);
      expect(m2.size('k')).toBe(n);
      expect(m2.get('k', 'e02999')).toBe('v'.repeat(500) + 2999);
    });
  });

  describe('Large values', () => {
    /** Counts items written and checks every put against the 400 KB limit, as DynamoDB does. */
    function sizeChecked(): { client: DynamoDBClient; largest: () => number } {
      let largest = 0;
      const intercept: Interceptor = (command) => {
        if (command.constructor.name === 'BatchWriteItemCommand') {
          for (const request of putsOf(command.input)) {
            if (request.PutRequest?.Item === undefined) continue;
            const size = itemBytes(request.PutRequest.Item);
            largest = Math.max(largest, size);
            if (size > MAX_ITEM_BYTES) return Promise.reject(new Error(`item of ${size} bytes`));
          }
        }
        return undefined;
      };
      return { client: countingClient(client, intercept).client, largest: () => largest };
    }

    it('splits a value of a few MB into chunk items under 400 KB and reassembles it', async () => {
      const checked = sizeChecked();
      const store = newStore({ client: checked.client });
      const s = store.valueState<unknown>('big');
      // Multi-byte characters straddle chunk boundaries.
      const value = { text: 'ab€😀'.repeat(300_000), list: Array.from({ length: 20_000 }, (_, i) => BigInt(i) * 10n ** 20n) };
      await store.prefetch(['k']);
      s.put('k', value);
      const result = await store.flush();
      expect(result.puts).toBeGreaterThan(5);
      expect(checked.largest()).toBeLessThanOrEqual(MAX_ITEM_BYTES);
      expect(checked.largest()).toBeGreaterThan(CHUNK_BYTES);
      const items = await itemsOf(store.operatorId, 'k');
      expect(items.map((i) => i.sk!.S!).sort()).toEqual(['big', ...Array.from({ length: result.puts - 1 }, (_, i) => `big#~chunk#${i}`)].sort());

      const again = reopen(store);
      await again.prefetch(['k']);
      expect(again.valueState<unknown>('big').get('k')).toEqual(value);
    });

    it('replaces chunks on overwrite, drops them when the value shrinks or is deleted', async () => {
      const store = newStore();
      const s = store.valueState<string>('big');
      await store.prefetch(['k']);
      s.put('k', 'x'.repeat(1_000_000));
      await store.flush();
      const first = (await itemsOf(store.operatorId, 'k')).map((i) => i.sk!.S!);
      expect(first).toHaveLength(4);

      s.put('k', 'y'.repeat(900_000));
      await store.flush();
      const second = (await itemsOf(store.operatorId, 'k')).map((i) => i.sk!.S!);
      expect(second).toHaveLength(4);
      expect(second.filter((sk) => first.includes(sk))).toEqual(['big']);
      let again = reopen(store);
      await again.prefetch(['k']);
      expect(again.valueState<string>('big').get('k')).toBe('y'.repeat(900_000));

      s.put('k', 'small');
      await store.flush();
      expect((await itemsOf(store.operatorId, 'k')).map((i) => i.sk!.S!)).toEqual(['big']);
      s.put('k', 'z'.repeat(500_000));
      await store.flush();
      s.delete('k');
      await store.flush();
      expect(await itemsOf(store.operatorId, 'k')).toEqual([]);
      again = reopen(store);
      await again.prefetch(['k']);
      expect(again.valueState<string>('big').get('k')).toBeUndefined();
    });

    it('chunks a large map entry under a hashed sort key', async () => {
      const store = newStore();
      const m = store.mapState<string>('m');
      const subKey = 'q'.repeat(2_000);
      await store.prefetch(['k']);
      m.put('k', subKey, 'w'.repeat(800_000));
      await store.flush();
      const again = reopen(store);
      await again.prefetch(['k']);
      expect([...again.mapState<string>('m').entries('k')]).toEqual([[subKey, 'w'.repeat(800_000)]]);
    });

    it('keeps the old value readable when a flush fails between chunks and head, then completes', async () => {
      const store = newStore();
      const s = store.valueState<string>('big');
      await store.prefetch(['k']);
      s.put('k', 'a'.repeat(600_000));
      await store.flush();

      // Fail every BatchWriteItem that writes the head item: chunks land, the head does not.
      let failHeads = true;
      const failing = countingClient(client, (command, send) => {
        if (command.constructor.name !== 'BatchWriteItemCommand' || !failHeads) return undefined;
        const heads = putsOf(command.input).filter((r) => r.PutRequest?.Item?.sk?.S === 'big');
        if (heads.length > 0) return Promise.reject(Object.assign(new Error('boom'), { name: 'InternalServerError', $metadata: { httpStatusCode: 500 } }));
        return send(command);
      });
      const writer = reopen(store, { client: failing.client });
      const w = writer.valueState<string>('big');
      await writer.prefetch(['k']);
      w.put('k', 'b'.repeat(700_000));
      await expect(writer.flush()).rejects.toThrow(TransientError);
      expect(writer.stats().dirtyKeys).toBe(1);

      const reader = reopen(store);
      await reader.prefetch(['k']);
      expect(reader.valueState<string>('big').get('k')).toBe('a'.repeat(600_000));

      failHeads = false;
      await writer.flush();
      const after = reopen(store);
      await after.prefetch(['k']);
      expect(after.valueState<string>('big').get('k')).toBe('b'.repeat(700_000));
      // Old and orphaned chunks are gone: the head plus the new value's two chunks remain.
      expect(await itemsOf(store.operatorId, 'k')).toHaveLength(3);
    });

    it('deletes orphaned chunk items found on load at the next flush', async () => {
      const store = newStore();
      const pk = `${store.operatorId}#${keyGroupOf('k', 256)}#k`;
      await client.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: pk }, sk: { S: 's#~chunk#3' }, d: { B: new Uint8Array([1, 2]) } } }));
      await client.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: pk }, sk: { S: 's' }, v: { S: '1' } } }));
      const s = store.valueState<number>('s');
      await store.prefetch(['k']);
      expect(s.get('k')).toBe(1);
      expect(await store.flush()).toMatchObject({ deletes: 1 });
      expect((await itemsOf(store.operatorId, 'k')).map((i) => i.sk!.S)).toEqual(['s']);
    });
  });

  describe('Method: flush', () => {
    it('refuses a second flush while one is running', async () => {
      const store = newStore();
      const s = store.valueState<number>('s');
      await store.prefetch(['k']);
      s.put('k', 1);
      const first = store.flush();
      await expect(store.flush()).rejects.toThrow(/another flush/);
      await first;
    });

    it('writes 25 items per BatchWriteItem, nothing when clean', async () => {
      const { client: counted, counts } = countingClient(client);
      const store = newStore({ client: counted });
      const s = store.valueState<number>('s');
      const keys = Array.from({ length: 60 }, (_, i) => `k${i}`);
      await store.prefetch(keys);
      for (const k of keys) s.put(k, 1);
      expect(await store.flush()).toEqual({ keys: 60, puts: 60, deletes: 0, requests: 3, retries: 0 });
      expect(await store.flush()).toEqual({ keys: 0, puts: 0, deletes: 0, requests: 0, retries: 0 });
      expect(counts.get('BatchWriteItemCommand')).toBe(3);
    });

    it('resends UnprocessedItems with jittered exponential backoff', async () => {
      const delays: number[] = [];
      let calls = 0;
      const { client: flaky } = countingClient(client, (command, send) => {
        if (command.constructor.name !== 'BatchWriteItemCommand') return undefined;
        calls++;
        const input = command.input as BatchWriteItemCommandInput;
        const requests = input.RequestItems![TABLE]!;
        if (requests.length === 1) return send(command);
        // Accept the first half, hand the rest back as DynamoDB does when throttled.
        const half = Math.ceil(requests.length / 2);
        return send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: requests.slice(0, half) } })).then(() => ({
          UnprocessedItems: { [TABLE]: requests.slice(half) },
          $metadata: {},
        }));
      });
      const store = newStore({ client: flaky, sleep: async (ms) => void delays.push(ms), random: () => 0.5, backoffBaseMs: 100 });
      const s = store.valueState<number>('s');
      const keys = Array.from({ length: 8 }, (_, i) => `k${i}`);
      await store.prefetch(keys);
      keys.forEach((k, i) => s.put(k, i));
      const result = await store.flush();
      expect(result).toMatchObject({ puts: 8, requests: 4, retries: 3 });
      expect(calls).toBe(4);
      expect(delays).toEqual([50, 100, 200]);
      const again = reopen(store);
      await again.prefetch(keys);
      expect(keys.map((k) => again.valueState<number>('s').get(k))).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    });

    it('gives up after maxWriteAttempts with a TransientError and keeps the entries dirty', async () => {
      let stuck = true;
      const { client: stubborn, counts } = countingClient(client, (command) => {
        if (command.constructor.name !== 'BatchWriteItemCommand' || !stuck) return undefined;
        const input = command.input as BatchWriteItemCommandInput;
        return Promise.resolve({ UnprocessedItems: input.RequestItems, $metadata: {} });
      });
      const store = newStore({ client: stubborn, maxWriteAttempts: 3 });
      const s = store.valueState<number>('s');
      await store.prefetch(['a', 'b']);
      s.put('a', 1);
      s.put('b', 2);
      const error = await store.flush().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TransientError);
      expect((error as Error).message).toMatch(/2 of 2 items unprocessed after 3 attempts/);
      expect(counts.get('BatchWriteItemCommand')).toBe(3);
      expect(store.stats().dirtyKeys).toBe(2);
      stuck = false;
      expect(await store.flush()).toMatchObject({ keys: 2, puts: 2 });
      const again = reopen(store);
      await again.prefetch(['a', 'b']);
      expect(again.valueState<number>('s').get('b')).toBe(2);
    });

    it('rejects values JSON cannot carry, naming operator, state and key, and changes nothing', async () => {
      const store = newStore();
      const s = store.valueState<unknown>('s');
      await store.prefetch(['k']);
      s.put('k', { m: new Map([[1, 2]]) });
      const error = await store.flush().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FlambdaError);
      expect((error as FlambdaError).message).toMatch(new RegExp(`${store.operatorId}.*'s'.*"k".*Map`));
      s.put('k', { m: [[1, 2]] });
      expect(await store.flush()).toMatchObject({ puts: 1 });
    });
  });

  describe('Cache bounds and invalidate', () => {
    it('evicts least recently prefetched clean keys, never dirty ones or the current batch', async () => {
      const store = newStore({ maxCachedKeys: 3 });
      const s = store.valueState<number>('s');
      await store.prefetch(['a', 'b', 'c', 'd', 'e']);
      for (const k of ['a', 'b', 'c', 'd', 'e']) s.put(k, 1);
      expect(store.stats().cachedKeys).toBe(5);
      await store.prefetch(['f']);
      expect(store.stats()).toMatchObject({ cachedKeys: 6, evictions: 0 });
      await store.flush();
      expect(store.stats()).toMatchObject({ cachedKeys: 3, evictions: 3 });
      // The survivors are the three most recently prefetched: d, e (same batch, later) and f.
      expect(store.prefetch(['d', 'e', 'f'])).toBeUndefined();
      await store.prefetch(['a']);
      expect(s.get('a')).toBe(1);
      expect(s.get('d')).toBe(1);
    });

    it('never evicts a key written after its batch ended until it is flushed', async () => {
      const store = newStore({ maxCachedKeys: 1 });
      const s = store.valueState<number>('s');
      await store.prefetch(['a']);
      s.put('a', 1);
      await store.flush();
      // Still cached from the last batch, so usable without a prefetch (e.g. by a timer).
      s.put('a', 2);
      await store.prefetch(['b', 'c']);
      expect(s.get('a')).toBe(2);
      await store.flush();
      expect(store.stats().cachedKeys).toBe(1);
      const again = reopen(store);
      await again.prefetch(['a']);
      expect(again.valueState<number>('s').get('a')).toBe(2);
    });

    it('evicts by estimated bytes', async () => {
      const store = newStore({ maxCachedBytes: 100_000 });
      const s = store.valueState<string>('s');
      for (let i = 0; i < 10; i++) {
        await store.prefetch([`k${i}`]);
        s.put(`k${i}`, 'x'.repeat(30_000));
        await store.flush();
        expect(store.stats().cachedBytes).toBeLessThanOrEqual(100_000);
      }
      expect(store.stats().cachedKeys).toBe(3);
      expect(store.evictClean()).toBe(3);
      expect(store.stats()).toMatchObject({ cachedKeys: 0, cachedBytes: 0 });
    });

    it('invalidate() drops unflushed writes and reloads what DynamoDB holds', async () => {
      const store = newStore();
      const s = store.valueState<number>('s');
      await store.prefetch(['k']);
      s.put('k', 1);
      await store.flush();
      s.put('k', 2);
      store.invalidate();
      expect(() => s.get('k')).toThrow(FlambdaError);
      await store.prefetch(['k']);
      expect(s.get('k')).toBe(1);
      expect(store.stats()).toMatchObject({ invalidations: 1, dirtyKeys: 0 });
    });

    it('sees another writer\'s changes only after invalidate()', async () => {
      const a = newStore();
      const b = reopen(a);
      const sa = a.valueState<number>('s');
      const sb = b.valueState<number>('s');
      await a.prefetch(['k']);
      await b.prefetch(['k']);
      sa.put('k', 1);
      await a.flush();
      expect(sb.get('k')).toBeUndefined();
      b.invalidate();
      await b.prefetch(['k']);
      expect(sb.get('k')).toBe(1);
    });
  });

  describe('TTL', () => {
    it('stores the write time and an epoch-seconds expiry, and never returns an expired value', async () => {
      const t = manualClock(1_700_000_000_123);
      const store = newStore({ clock: t.clock, ttlAttribute: 'expires_at' });
      const s = store.valueState<number>('s', { ttl: { ttlMs: 10_000 } });
      await store.prefetch(['k']);
      s.put('k', 1);
      await store.flush();
      const [item] = await itemsOf(store.operatorId, 'k');
      expect(item).toMatchObject({ wt: { N: '1700000000123' }, expires_at: { N: String(Math.ceil(1_700_000_010_123 / 1000)) } });

      t.now += 9_999;
      const fresh = reopen(store, { clock: t.clock, ttlAttribute: 'expires_at' });
      const s2 = fresh.valueState<number>('s', { ttl: { ttlMs: 10_000 } });
      await fresh.prefetch(['k']);
      expect(s2.get('k')).toBe(1);
      t.now += 1;
      // The item is still in the table (DynamoDB TTL deletes days late): it must not be trusted.
      expect(await itemsOf(store.operatorId, 'k')).toHaveLength(1);
      expect(s2.get('k')).toBeUndefined();
      const late = reopen(store, { clock: t.clock, ttlAttribute: 'expires_at' });
      const s3 = late.valueState<number>('s', { ttl: { ttlMs: 10_000 } });
      await late.prefetch(['k']);
      expect(s3.get('k')).toBeUndefined();
      expect(late.stats().expired).toBe(1);
      // Expired entries met on load are deleted at the next flush.
      expect(await late.flush()).toMatchObject({ deletes: 1 });
      expect(await itemsOf(store.operatorId, 'k')).toEqual([]);
    });

    it('persists refreshing reads (updateOnRead) so they survive eviction', async () => {
      const t = manualClock(0);
      const ttl = { ttl: { ttlMs: 1_000, updateOnRead: true } };
      const store = newStore({ clock: t.clock });
      const m = store.mapState<number>('m', ttl);
      await store.prefetch(['k']);
      m.put('k', 'a', 1);
      m.put('k', 'b', 2);
      await store.flush();
      t.now = 800;
      expect(m.get('k', 'a')).toBe(1);
      expect(await store.flush()).toMatchObject({ puts: 1 });
      store.invalidate();
      t.now = 1_500;
      await store.prefetch(['k']);
      expect([...m.entries('k')]).toEqual([['a', 1]]);
      t.now = 2_499;
      expect(m.get('k', 'a')).toBe(1);
      t.now = 3_499;
      expect(m.size('k')).toBe(0);
    });

    it('rewrites entries whose TTL attributes do not match the declaration', async () => {
      const t = manualClock(5_000);
      const store = newStore({ clock: t.clock });
      await store.prefetch(['k']);
      store.valueState<number>('s', { ttl: { ttlMs: 1_000 } }).put('k', 1);
      await store.flush();
      // Redeployed without TTL: the entry loses its expiry attribute so DynamoDB TTL keeps it.
      const noTtl = reopen(store, { clock: t.clock });
      await noTtl.prefetch(['k']);
      expect(noTtl.valueState<number>('s').get('k')).toBe(1);
      await noTtl.flush();
      expect(await itemsOf(store.operatorId, 'k')).toEqual([expect.not.objectContaining({ ttl: expect.anything() })]);
      // And with TTL again: retention starts at load time.
      t.now = 100_000;
      const withTtl = reopen(store, { clock: t.clock });
      const s = withTtl.valueState<number>('s', { ttl: { ttlMs: 1_000 } });
      await withTtl.prefetch(['k']);
      expect(s.get('k')).toBe(1);
      await withTtl.flush();
      expect((await itemsOf(store.operatorId, 'k'))[0]).toMatchObject({ wt: { N: '100000' }, ttl: { N: '101' } });
    });
  });
});

describe('GroupAggregate on DynamoDB state', () => {
  const schema = schemaOf({ k: 'STRING', v: 'BIGINT', d: 'DECIMAL(10, 2)', s: 'STRING' });
  const spec: GroupAggregateSpec = {
    groupBy: ['k'],
    aggCalls: [
      { fn: 'COUNT', distinct: false, name: 'cnt' },
      { fn: 'SUM', arg: 'v', distinct: false, name: 'sum_v' },
      { fn: 'SUM', arg: 'd', distinct: false, name: 'sum_d' },
      { fn: 'MAX', arg: 'v', distinct: false, name: 'max_v' },
      { fn: 'COUNT', arg: 's', distinct: true, name: 'cnt_ds' },
    ],
    generateUpdateBefore: true,
  };

  /** A deterministic changelog over `groups` keys with inserts and retractions. */
  function changelog(events: number, groups: number): ChangeRow[] {
    // mulberry32: a small seeded PRNG with well-mixed low bits.
    let seed = 7;
    const rand = (n: number): number => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4_294_967_296) * n);
    };
    const live: ChangeRow['row'][] = [];
    const out: ChangeRow[] = [];
    for (let i = 0; i < events; i++) {
      if (live.length > 0 && rand(4) === 0) {
        const [row] = live.splice(rand(live.length), 1);
        out.push({ kind: '-D', row: row! });
      } else {
        const row = { k: `g${rand(groups)}`, v: rand(1000) - 200, d: BigInt(rand(100_000)), s: `s${rand(5)}` };
        live.push(row);
        out.push({ kind: '+I', row });
      }
    }
    return out;
  }

  async function run(state: KeyedStateStore, input: readonly ChangeRow[], batchSize: number, afterBatch: () => Promise<void>): Promise<ChangeRow[]> {
    const op: Operator = createGroupAggregateOperator(spec, schema);
    const emitted: ChangeRow[] = [];
    const out: Output = { emit: (row) => void emitted.push(row), emitSide: () => {} };
    const context: OperatorContext = {
      operatorId: 'GroupAggregate_1',
      shard: 0,
      parallelism: 1,
      state,
      timers: new MemoryTimerService(0),
      metrics: { increment: () => {} },
    };
    await op.open(context);
    for (let i = 0; i < input.length; i += batchSize) {
      await op.processBatch(input.slice(i, i + batchSize), out);
      await afterBatch();
    }
    return emitted;
  }

  it('with a cache far smaller than the live keys, gives exactly the memory backend\'s output and state', async () => {
    const input = changelog(1_500, 80);
    const memory = new MemoryStateStore(() => 0);
    const expected = await run(memory, input, 50, async () => {});

    const { client: counted, counts } = countingClient(client);
    const store = newStore({ client: counted, maxCachedKeys: 8 });
    const actual = await run(store, input, 50, async () => {
      await store.flush();
      expect(store.stats().cachedKeys).toBeLessThanOrEqual(8);
    });
    expect(actual).toEqual(expected);
    expect(actual.filter((r) => r.kind === '-D').length).toBeGreaterThan(10);
    expect(store.stats().evictions).toBeGreaterThan(400);

    // What DynamoDB holds equals the memory backend's final state.
    const snapshot = memory.snapshot().tables[0]!;
    const fresh = reopen(store);
    const acc = fresh.valueState<unknown>('accState');
    const groups = Array.from({ length: 80 }, (_, i) => `Sg${i}`);
    await fresh.prefetch(groups);
    const stored = groups.map((g) => [g, acc.get(g)]).filter(([, v]) => v !== undefined);
    expect(stored.length).toBeGreaterThan(40);
    expect(new Map(stored as [string, unknown][])).toEqual(new Map(snapshot.entries.map(([k, v]) => [k, v])));
    // One Query per cache miss, one BatchWriteItem per 25 dirty keys per batch.
    expect(counts.get('QueryCommand')).toBe(store.stats().cacheMisses);
    expect(counts.get('BatchWriteItemCommand')).toBe(store.stats().writeRequests);
  });
});
