/**
 * DynamoDB item sizes and billed units (shared/aws/billing/dynamodb-units.ts): exact sizes of
 * hand-made items worked out from AWS's sizing rules, the documentation's own unit examples,
 * and a property check of item sizes against dynalite's implementation of the same rules.
 */
import { createRequire } from 'node:module';
import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  attributeValueSize,
  deleteWriteUnits,
  failedConditionWriteUnits,
  getItemReadUnits,
  itemSize,
  numberSize,
  putWriteUnits,
  queryReadUnits,
  readUnits,
  updateWriteUnits,
  writeUnits,
  type AttributeValueLike,
  type ItemLike,
} from '../../../shared/aws/billing/dynamodb-units.ts';

// dynalite (CommonJS, no types) computes item sizes for its ConsumedCapacity.
const dynaliteDb = createRequire(import.meta.url)('dynalite/db/index.js') as { itemSize(item: ItemLike): number };

describe('item size', () => {
  it.each<[string, ItemLike, number]>([
    ['two one-letter string keys', { pk: { S: 'a' }, sk: { S: 'b' } }, 2 + 1 + 2 + 1],
    ['UTF-8 bytes, not characters', { name: { S: 'é€' } }, 4 + 2 + 3],
    ['an empty string', { e: { S: '' } }, 1],
    ['BOOL and NULL take 1 byte', { ok: { BOOL: true }, n: { NULL: true } }, 2 + 1 + 1 + 1],
    ['binary: raw bytes, not base64 text', { b: { B: new Uint8Array([1, 2, 3]) }, c: { B: 'AQID' } }, 1 + 3 + 1 + 3],
    ['a list: 3 bytes + 1 per element', { l: { L: [{ S: 'ab' }, { N: '1' }] } }, 1 + 3 + (1 + 2) + (1 + 2)],
    ['a map: 3 bytes + per element 1 + name + value', { m: { M: { a: { S: 'xy' } } } }, 1 + 3 + 1 + 1 + 2],
    ['an empty map', { m: { M: {} } }, 1 + 3],
    ['a nested map in a list', { l: { L: [{ M: { k: { BOOL: false } } }] } }, 1 + 3 + 1 + (3 + 1 + 1 + 1)],
    ['string and number sets: the elements', { s: { SS: ['a', 'bc'] }, n: { NS: ['1', '12'] } }, 1 + 3 + 1 + 2 + 2],
    [
      'a state item as the DynamoDB backend writes it',
      { pk: { S: 'op-1#17#5' }, sk: { S: 'v#acc' }, v: { S: '{"c":3}' } },
      2 + 9 + 2 + 5 + 1 + 7,
    ],
  ])('%s', (_what, item, size) => {
    expect(itemSize(item)).toBe(size);
  });

  it.each<[string, number]>([
    ['0', 1],
    ['-0', 1],
    ['0.000', 1],
    ['1', 2],
    ['12', 2],
    ['123', 3],
    ['1234', 3],
    ['100', 2],
    ['1500', 2],
    ['1.5e3', 2],
    ['1.2', 3],
    ['0.5', 2],
    ['.5', 2],
    ['0.05', 2],
    ['-1', 3],
    ['-12.5', 4],
    ['1e10', 2],
    ['007', 2],
    ['12345678901234567890123456789012345678', 20],
  ])('number %s takes %i bytes', (n, bytes) => {
    expect(numberSize(n)).toBe(bytes);
    expect(attributeValueSize({ N: n })).toBe(bytes);
  });

  it('rejects a value with no type and a malformed number', () => {
    expect(() => attributeValueSize({})).toThrow('attribute value with no type');
    expect(() => numberSize('1.2.3')).toThrow('not a DynamoDB number');
    expect(() => numberSize('')).toThrow('not a DynamoDB number');
  });

  // ASCII only: dynalite counts string lengths in UTF-16 units where DynamoDB counts UTF-8 bytes.
  const name = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz_#0123456789'), minLength: 1, maxLength: 8 });
  const number = fc.oneof(
    fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }).map(String),
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e30, max: 1e30 }).map((d) => String(d)),
    fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.integer({ min: 0, max: 12 })).map(([digits, scale]) => {
      const s = digits.toString().padStart(scale + 1, '0');
      return scale === 0 ? s : `${s.slice(0, -scale)}.${s.slice(-scale)}`;
    }),
  );
  const value: fc.Arbitrary<AttributeValueLike> = fc.letrec<{ value: AttributeValueLike }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.string({ maxLength: 20 }).filter((s) => /^[\x20-\x7e]*$/.test(s)).map((S) => ({ S })),
      number.map((N) => ({ N })),
      fc.boolean().map((BOOL) => ({ BOOL })),
      fc.constant({ NULL: true }),
      fc.uint8Array({ maxLength: 10 }).map((b) => ({ B: Buffer.from(b).toString('base64') })),
      fc.uniqueArray(number, { minLength: 1, maxLength: 4 }).map((NS) => ({ NS })),
      fc.array(tie('value'), { maxLength: 3 }).map((L) => ({ L })),
      fc.dictionary(name, tie('value'), { maxKeys: 3 }).map((M) => ({ M })),
    ),
  })).value;

  fcTest.prop([fc.dictionary(name, value, { minKeys: 1, maxKeys: 6 })], { numRuns: 300 })('equals dynalite’s item size', (item) => {
    expect(itemSize(item)).toBe(dynaliteDb.itemSize(item));
  });
});

describe('billed units', () => {
  it('writes: 1 KB per item, rounded up, at least 1; the larger of old and new; deletes the deleted item', () => {
    expect([writeUnits(0), writeUnits(1), writeUnits(1024), writeUnits(1025), writeUnits(1.6 * 1024)]).toEqual([1, 1, 1, 2, 2]);
    // AWS: "if BatchWriteItem writes a 500 byte item and a 3.5 KB item, DynamoDB calculates the size as 5 KB".
    expect(putWriteUnits(500, undefined) + putWriteUnits(3.5 * 1024, undefined)).toBe(5);
    // A PutItem replacing a larger item pays for the larger one; an UpdateItem for the larger of before and after.
    expect(putWriteUnits(100, 2500)).toBe(3);
    expect(updateWriteUnits(100, 2049)).toBe(3);
    expect(updateWriteUnits(undefined, 10)).toBe(1);
    expect(deleteWriteUnits(3000)).toBe(3);
    expect(deleteWriteUnits(undefined)).toBe(1);
    expect(failedConditionWriteUnits(2048)).toBe(2);
    expect(failedConditionWriteUnits(undefined)).toBe(1);
    expect(putWriteUnits(1500, undefined, true)).toBe(4);
  });

  it('reads: 4 KB per item, rounded up; half when eventually consistent; twice when transactional', () => {
    // AWS: a 3.5 KB item rounds to 4 KB, a 10 KB item to 12 KB.
    expect(getItemReadUnits(3.5 * 1024, 'strong')).toBe(1);
    expect(getItemReadUnits(10 * 1024, 'strong')).toBe(3);
    expect(getItemReadUnits(10 * 1024, 'eventual')).toBe(1.5);
    expect(getItemReadUnits(10 * 1024, 'transactional')).toBe(6);
    // A read of an item that does not exist: 1 unit strongly consistent, 0.5 eventually.
    expect(getItemReadUnits(undefined, 'strong')).toBe(1);
    expect(getItemReadUnits(undefined, 'eventual')).toBe(0.5);
    // AWS: BatchGetItem of a 1.5 KB and a 6.5 KB item counts 4 KB + 8 KB.
    expect(getItemReadUnits(1.5 * 1024, 'strong') + getItemReadUnits(6.5 * 1024, 'strong')).toBe(3);
    expect(readUnits(4096, 'strong')).toBe(1);
    expect(readUnits(4097, 'strong')).toBe(2);
  });

  it('a Query sums its items before rounding', () => {
    // AWS: 10 items of 40.8 KB together → 44 KB; 1,500 items of 64 bytes → 96 KB; 80 KB eventually consistent → 10.
    expect(queryReadUnits(Array.from({ length: 10 }, () => (40.8 * 1024) / 10), 'strong')).toBe(11);
    expect(queryReadUnits(Array.from({ length: 1500 }, () => 64), 'strong')).toBe(24);
    expect(queryReadUnits([80 * 1024], 'eventual')).toBe(10);
    // Versus one GetItem per item: 1,500 units.
    expect(Array.from({ length: 1500 }, () => getItemReadUnits(64, 'strong')).reduce((a, b) => a + b, 0)).toBe(1500);
    expect(queryReadUnits([], 'strong')).toBe(1);
    expect(queryReadUnits([], 'eventual')).toBe(0.5);
  });
});
