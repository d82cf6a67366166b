import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FlambdaError } from '../../shared/core/errors.ts';
import type { Value } from '../../shared/core/types.ts';
import { decodeKey, encodeKey } from '../../shared/partition/key-encoding.ts';

/** SQL equality of keys: -0 is 0. */
const normalize = (values: readonly Value[]): Value[] => values.map((v) => (v === 0 ? 0 : v));

/** Text full of the characters the encoding itself uses. */
const trickyString = fc.string({ unit: fc.constantFrom('n', 'd', 's', 'S', 'N', 'T', 'F', ';', ':', '1', '0', '-', ',', '') });

const value: fc.Arbitrary<Value> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.double(),
  fc.integer(),
  fc.bigInt(),
  fc.string({ unit: 'binary' }),
  trickyString,
);

/** A small domain, so that generated pairs often collide or nearly collide. */
const nearValue: fc.Arbitrary<Value> = fc.constantFrom<Value>(
  null,
  'null',
  'N',
  '',
  0,
  -0,
  '0',
  0n,
  1,
  '1',
  1n,
  -1,
  '-1',
  -1n,
  true,
  'true',
  'T',
  false,
  'a',
  'a,b',
  'b',
  'n1',
  's1:a',
  ';',
  Number.NaN,
  'NaN',
  Infinity,
  'Infinity',
);

describe('encodeKey', () => {
  it('keeps single number and string keys compact', () => {
    expect(encodeKey([42])).toBe('n42');
    expect(encodeKey([-1.5])).toBe('n-1.5');
    expect(encodeKey(['abc'])).toBe('Sabc');
    expect(encodeKey([123456789012345678901234567890n])).toBe('d123456789012345678901234567890');
    expect(encodeKey([])).toBe('');
  });

  it('separates types and field boundaries', () => {
    const distinct: Value[][] = [
      [null],
      ['null'],
      [''],
      [],
      [1],
      ['1'],
      [1n],
      [true],
      ['true'],
      ['a,b'],
      ['a', 'b'],
      ['a', 'b', null],
      ['a', ',b'],
      [1, 2],
      [12],
      ['1', 2],
      [null, null],
      [false, null],
    ];
    const encodings = distinct.map(encodeKey);
    expect(new Set(encodings).size).toBe(distinct.length);
  });

  it('follows SQL equality for numbers: -0 is 0, NaN is one key', () => {
    expect(encodeKey([-0])).toBe(encodeKey([0]));
    expect(encodeKey([-0, 'x'])).toBe(encodeKey([0, 'x']));
    expect(encodeKey([Number.NaN])).toBe(encodeKey([0 / 0]));
    expect(encodeKey([0.1 + 0.2])).not.toBe(encodeKey([0.3]));
  });

  it('is decoded back to the same values (hence injective)', () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 5 }), (values) => {
        expect(decodeKey(encodeKey(values))).toEqual(normalize(values));
      }),
      { numRuns: 3000 },
    );
  });

  it('gives equal encodings exactly to equal keys', () => {
    fc.assert(
      fc.property(fc.array(nearValue, { maxLength: 3 }), fc.array(nearValue, { maxLength: 3 }), (a, b) => {
        const sameKey = a.length === b.length && normalize(a).every((v, i) => Object.is(v, normalize(b)[i]));
        expect(encodeKey(a) === encodeKey(b)).toBe(sameKey);
      }),
      { numRuns: 5000 },
    );
  });

  it('rejects values that are not Flambda values', () => {
    expect(() => encodeKey([undefined as unknown as Value])).toThrow(FlambdaError);
    expect(() => encodeKey([(() => 1) as unknown as Value, 1])).toThrow(FlambdaError);
  });

  it('encodes ARRAY, ROW and MAP values injectively, MAP keys in any order alike', () => {
    const keys: Value[][] = [[['a', 1]], [['a'], 1], [{ b: 1n, a: [null, 's'] }, 'x'], [{}], [[]], [[[]]], ['a1:S']];
    const encoded = keys.map((k) => encodeKey(k));
    expect(new Set(encoded).size).toBe(keys.length);
    for (let i = 0; i < keys.length; i++) expect(decodeKey(encoded[i]!)).toEqual(keys[i]);
    expect(encodeKey([{ x: 1, y: 2 }])).toBe(encodeKey([{ y: 2, x: 1 }]));
  });
});

describe('decodeKey', () => {
  it('rejects text encodeKey cannot produce', () => {
    for (const bad of ['x', 'n1;', 'n01', 'n', 'n+1', 'nabc', 'd-0', 'd01', 'd1.5', 's5:ab', 's1:a', 'sx:ab', 's01:aN', '?']) {
      expect(() => decodeKey(bad)).toThrow(FlambdaError);
    }
    expect(decodeKey('')).toEqual([]);
    expect(decodeKey('S')).toEqual(['']);
    expect(decodeKey('s0:N')).toEqual(['', null]);
  });
});
