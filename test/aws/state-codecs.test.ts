/**
 * The pure parts of the DynamoDB state backend: value JSON with tags, item keys and their
 * escaping, item building and parsing, error mapping and backoff.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { FlambdaError, TransientError } from '../../shared/core/errors.ts';
import { backoffDelay, forEachLimited } from '../../shared/aws/state/concurrency.ts';
import { CHUNK_BYTES, MAX_ITEM_BYTES } from '../../shared/aws/state/constants.ts';
import { isRetryableAwsError, toStateError } from '../../shared/aws/state/errors.ts';
import { buildEntryItems, itemBytes, parseItems } from '../../shared/aws/state/item-codec.ts';
import type { Item } from '../../shared/aws/state/item-codec.ts';
import { checkOperatorId, checkStateName, chunkSortKey, mapSortKey, parseSortKey, partitionKey } from '../../shared/aws/state/item-keys.ts';
import { UnsupportedValueError, decodeValue, encodeValue } from '../../shared/aws/state/value-codec.ts';

/** Plain data as operators store it, including what JSON alone would lose. */
const plainData: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.integer(),
    fc.double(),
    fc.bigInt(),
    fc.string({ unit: 'binary' }),
    fc.boolean(),
    fc.constant(null),
    tie('array'),
    tie('object'),
  ),
  array: fc.array(fc.oneof(tie('value'), fc.constant(undefined)), { maxLength: 4 }),
  object: fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('$bigint', '$number', '$object', '$undefined', '$', '__proto__')), tie('value'), {
    maxKeys: 3,
    noNullPrototype: true,
  }),
})).value;

describe('value-codec', () => {
  it('round-trips plain data exactly (bigint, NaN, ±Infinity, -0, undefined, tag look-alikes)', () => {
    fc.assert(
      fc.property(plainData, (value) => {
        expect(decodeValue(encodeValue(value))).toStrictEqual(value);
      }),
      { numRuns: 500 },
    );
  });

  it('writes bigints as the job graph does and leaves ordinary JSON untouched', () => {
    expect(encodeValue({ a: 1n })).toBe('{"a":{"$bigint":"1"}}');
    expect(encodeValue({ records: 2, aggs: [3, 'x', null] })).toBe('{"records":2,"aggs":[3,"x",null]}');
    expect(encodeValue({ $bigint: '1' })).toBe('{"$object":[["$bigint","1"]]}');
  });

  it('rejects values JSON would silently damage', () => {
    for (const bad of [new Map(), new Set([1]), new Date(0), { d: new Date(0) }, [() => 1], Symbol('s'), new (class Acc {})()]) {
      expect(() => encodeValue(bad)).toThrow(UnsupportedValueError);
    }
  });

  it('rejects unknown tags on decode', () => {
    expect(() => decodeValue('{"$nope":1}')).toThrow(FlambdaError);
  });
});

describe('item-keys', () => {
  it('builds pk = operator#keyGroup#key and hashes long, ill-formed or ~-prefixed keys', () => {
    expect(partitionKey('Agg_1', 17, 'Sabc')).toBe('Agg_1#17#Sabc');
    expect(partitionKey('Agg_1', 0, '')).toBe('Agg_1#0#');
    for (const key of ['x'.repeat(2000), '\ud800', '~tilde']) {
      const pk = partitionKey('Agg_1', 1, key);
      expect(pk).toMatch(/^Agg_1#1#~h:[A-Za-z0-9_-]{43}$/);
    }
    expect(partitionKey('A', 1, 'x'.repeat(2000))).not.toBe(partitionKey('A', 1, 'x'.repeat(2001)));
  });

  it('escapes sub-keys injectively, keeps their order, and never looks like a chunk', () => {
    const sub = fc.string({ unit: fc.constantFrom('~', '#', 'a', 'c', 'h', 'k', 'n', 'u', '0', '1', ':', ' '), maxLength: 14 });
    fc.assert(
      fc.property(sub, sub, (a, b) => {
        const ka = mapSortKey('m', a);
        const kb = mapSortKey('m', b);
        expect(ka.storedSubKey).toBeUndefined();
        expect(parseSortKey(ka.sk, undefined)).toEqual({ kind: 'map', stateName: 'm', subKey: a });
        expect(Math.sign(ka.sk < kb.sk ? -1 : ka.sk > kb.sk ? 1 : 0)).toBe(Math.sign(a < b ? -1 : a > b ? 1 : 0));
        const chunk = parseSortKey(chunkSortKey(ka.sk, 7), undefined);
        expect(chunk).toEqual({ kind: 'chunk', entrySk: ka.sk, index: 7 });
      }),
      { numRuns: 1000 },
    );
    expect(mapSortKey('m', 'a~b').sk).toBe('m#a~~b');
    expect(() => parseSortKey('m#a~b', undefined)).toThrow(FlambdaError);
    expect(parseSortKey('count', undefined)).toEqual({ kind: 'value', stateName: 'count' });
  });

  it('hashes long or ill-formed sub-keys and keeps them in attribute k', () => {
    for (const subKey of ['y'.repeat(600), '\udfff', '€'.repeat(200)]) {
      const { sk, storedSubKey } = mapSortKey('m', subKey);
      expect(sk).toMatch(/^m#~h:/);
      expect(storedSubKey).toBeDefined();
      expect(parseSortKey(sk, storedSubKey)).toEqual({ kind: 'map', stateName: 'm', subKey });
    }
  });

  it('rejects operator ids and state names that would make keys ambiguous', () => {
    expect(() => checkOperatorId('a#b')).toThrow(FlambdaError);
    expect(() => checkOperatorId('')).toThrow(FlambdaError);
    expect(() => checkStateName('x#y')).toThrow(FlambdaError);
    expect(() => checkStateName('x'.repeat(256))).toThrow(FlambdaError);
    checkOperatorId('GroupAggregate_2');
    checkStateName('accState');
  });
});

describe('item-codec', () => {
  const base = { pk: 'op#1#k', sk: 's', storedSubKey: undefined, ttl: undefined, ttlAttribute: 'ttl', firstChunk: 0 };

  it('writes a value that fits inline as one item', () => {
    const write = buildEntryItems({ ...base, json: '{"a":1}' });
    expect(write.chunkPuts).toEqual([]);
    expect(write.head).toEqual({ PutRequest: { Item: { pk: { S: 'op#1#k' }, sk: { S: 's' }, v: { S: '{"a":1}' } } } });
  });

  it('splits by UTF-8 bytes, keeps every item within 400 KB, and parses the chunks back', () => {
    const json = JSON.stringify('€😀x'.repeat(200_000));
    const write = buildEntryItems({ ...base, json, ttl: { writeTime: 5, expiresAt: 7 }, firstChunk: 4 });
    expect(write.chunks).toEqual({ first: 4, count: Math.ceil(Buffer.byteLength(json) / CHUNK_BYTES) });
    const items: Item[] = [write.head.PutRequest!.Item!, ...write.chunkPuts.map((p) => p.PutRequest!.Item!)];
    for (const item of items) expect(itemBytes(item)).toBeLessThanOrEqual(MAX_ITEM_BYTES);
    for (const chunk of write.chunkPuts) expect(chunk.PutRequest!.Item!.ttl).toEqual({ N: '7' });
    const loaded = parseItems('op#1#k', items.reverse(), 'ttl');
    expect(loaded.garbage).toBeUndefined();
    expect(loaded.entries).toHaveLength(1);
    expect(loaded.entries[0]).toMatchObject({ sk: 's', stateName: 's', subKey: undefined, json, writeTime: 5, expiresAt: 7 });
    expect(loaded.entries[0]!.info).toMatchObject({ chunks: write.chunks, nextChunk: 4 + write.chunks!.count });
  });

  it('reports chunks no head points to as garbage, and a head missing chunks', () => {
    const write = buildEntryItems({ ...base, json: JSON.stringify('z'.repeat(900_000)) });
    const chunks = write.chunkPuts.map((p) => p.PutRequest!.Item!);
    const orphan: Item = { pk: { S: 'op#1#k' }, sk: { S: 's#~chunk#9' }, d: { B: new Uint8Array(1) } };
    const loaded = parseItems('op#1#k', [write.head.PutRequest!.Item!, ...chunks.slice(1), orphan], 'ttl');
    expect(loaded.entries[0]!.json).toBeUndefined();
    expect(loaded.garbage).toEqual(new Map([['s', new Set([1, 2, 9])]]));
  });
});

describe('errors and backoff', () => {
  it('classifies AWS errors by retryability', () => {
    const throttled = Object.assign(new Error('x'), { name: 'ProvisionedThroughputExceededException', $metadata: { httpStatusCode: 400 } });
    const server = Object.assign(new Error('x'), { name: 'Whatever', $metadata: { httpStatusCode: 503 } });
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const validation = Object.assign(new Error('bad'), { name: 'ValidationException', $metadata: { httpStatusCode: 400 } });
    const missing = Object.assign(new Error('no table'), { name: 'ResourceNotFoundException', $metadata: { httpStatusCode: 400 } });
    for (const e of [throttled, server, reset]) {
      expect(isRetryableAwsError(e)).toBe(true);
      expect(toStateError(e, 'Query')).toBeInstanceOf(TransientError);
    }
    expect(toStateError(validation, 'Query')).toMatchObject({ domain: 'internal', retry: 'fail' });
    expect(toStateError(missing, 'Query')).toMatchObject({ domain: 'external', retry: 'fail' });
    expect(toStateError(missing, 'Query on table t').message).toBe('Query on table t failed: ResourceNotFoundException: no table');
  });

  it('backs off with full jitter, capped', () => {
    const options = { baseMs: 50, maxMs: 1_000, random: () => 0.999 };
    expect([0, 1, 2, 3, 4, 5, 6].map((r) => backoffDelay(r, options))).toEqual([49, 99, 199, 399, 799, 999, 999]);
    expect(backoffDelay(3, { ...options, random: () => 0 })).toBe(0);
  });

  it('forEachLimited waits for every task and rethrows the first failure in item order', async () => {
    const done: number[] = [];
    const error = await forEachLimited([1, 2, 3, 4], 2, async (n) => {
      await new Promise((r) => setTimeout(r, 5 * (5 - n)));
      done.push(n);
      if (n % 2 === 0) throw new Error(`fail ${n}`);
    }).catch((e: unknown) => e);
    expect((error as Error).message).toBe('fail 2');
    expect(done.sort()).toEqual([1, 2, 3, 4]);
  });
});
