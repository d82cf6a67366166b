import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FlambdaError } from '../../shared/core/errors.ts';
import type { Value } from '../../shared/core/types.ts';
import { compareValues, encodeSortKey } from '../../shared/partition/sort-key.ts';
import type { SortDirection } from '../../shared/partition/sort-key.ts';

type ColumnType = 'number' | 'bigint' | 'string' | 'boolean';

interface Column {
  readonly type: ColumnType;
  readonly direction: SortDirection;
  readonly nullsFirst: boolean;
}

/** A surrogate not part of a pair. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const sign = (x: number): number => (x < 0 ? -1 : x > 0 ? 1 : 0);
const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The reference: SQL ORDER BY over the columns, built on compareValues. */
function compareRows(a: readonly Value[], b: readonly Value[], columns: readonly Column[]): number {
  for (let i = 0; i < columns.length; i++) {
    const column = columns[i] as Column;
    const x = a[i] as Value;
    const y = b[i] as Value;
    if (x === null || y === null) {
      if (x === null && y === null) continue;
      return (x === null) === column.nullsFirst ? -1 : 1;
    }
    const c = sign(compareValues(x, y));
    if (c !== 0) return column.direction === 'DESC' ? -c : c;
  }
  return 0;
}

const encode = (row: readonly Value[], columns: readonly Column[]): string =>
  encodeSortKey(
    row,
    columns.map((c) => c.direction),
    columns.map((c) => c.nullsFirst),
  );

const numbers = fc.oneof(
  fc.double(),
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(0, -0, Number.NaN, Infinity, -Infinity, Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE, 0.5, -0.5),
);
const bigints = fc.oneof(fc.bigInt(), fc.bigInt({ min: -3n, max: 3n }), fc.bigInt({ min: -(2n ** 140n), max: 2n ** 140n }));
/** Characters at every tier edge of the string encoding, plus surrogates alone and in pairs. */
const edgeChar = fc.constantFrom(
  '\u0000', '\u001f', ' ', '!', '"', '0', 'a', '|', '}', '~', '\u007f', 'é', '\u07ff', '\u0800',
  '\ud7ff', '\ud800', '\udbff', '\udc00', '\udfff', '\ue000', '\uffff', '😀', '\u{10000}', '\u{4007c}',
  '\u{4007d}', '\u{10ffff}',
);
const strings = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.string({ unit: edgeChar, maxLength: 4 }),
  fc.string({ unit: fc.constantFrom('a', 'b'), maxLength: 3 }),
  // Surrogates next to the characters just below and above them in UTF-16 and in code points.
  fc.string({ unit: fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', '\ue000', '\uffff', 'a'), maxLength: 3 }),
);
const valueOf: Record<ColumnType, fc.Arbitrary<Value>> = {
  number: numbers,
  bigint: bigints,
  string: strings,
  boolean: fc.boolean(),
};

const columnsArb = fc.array(
  fc.record({
    type: fc.constantFrom<ColumnType>('number', 'bigint', 'string', 'boolean'),
    direction: fc.constantFrom<SortDirection>('ASC', 'DESC'),
    nullsFirst: fc.boolean(),
  }),
  { minLength: 1, maxLength: 4 },
);

const rowOf = (columns: readonly Column[]): fc.Arbitrary<Value[]> =>
  fc.tuple(...columns.map((c) => fc.option(valueOf[c.type], { freq: 4, nil: null })));

describe('encodeSortKey', () => {
  it('orders tuples as SQL ORDER BY, in UTF-16 and UTF-8 byte order alike', () => {
    fc.assert(
      fc.property(
        columnsArb.chain((columns) => fc.tuple(fc.constant(columns), rowOf(columns), rowOf(columns))),
        ([columns, a, b]) => {
          const expected = compareRows(a, b, columns);
          const ea = encode(a, columns);
          const eb = encode(b, columns);
          expect(compareStrings(ea, eb)).toBe(expected);
          expect(Buffer.compare(Buffer.from(ea, 'utf8'), Buffer.from(eb, 'utf8'))).toBe(expected);
          expect(ea).toMatch(/^[\x20-\x7e]*$/);
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it('sorts a batch of rows like the reference comparator', () => {
    fc.assert(
      fc.property(
        columnsArb.chain((columns) => fc.tuple(fc.constant(columns), fc.array(rowOf(columns), { maxLength: 30 }))),
        ([columns, rows]) => {
          const byReference = [...rows].sort((a, b) => compareRows(a, b, columns)).map((r) => encode(r, columns));
          const byEncoding = rows.map((r) => encode(r, columns)).sort(compareStrings);
          expect(byEncoding).toEqual(byReference);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('keeps the order when anything is appended (each column is prefix-free)', () => {
    fc.assert(
      fc.property(
        columnsArb.chain((columns) => fc.tuple(fc.constant(columns), rowOf(columns), rowOf(columns))),
        fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) }),
        fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) }),
        ([columns, a, b], suffixA, suffixB) => {
          const expected = compareRows(a, b, columns);
          if (expected === 0) return;
          expect(compareStrings(encode(a, columns) + suffixA, encode(b, columns) + suffixB)).toBe(expected);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('places nulls by NULLS FIRST/LAST whatever the direction', () => {
    for (const direction of ['ASC', 'DESC'] as const) {
      const first = (v: Value): string => encodeSortKey([v], [direction], [true]);
      const last = (v: Value): string => encodeSortKey([v], [direction], [false]);
      for (const v of [-Infinity, 0, Infinity, Number.NaN, '', '~~~', -(2n ** 100n), true, false]) {
        expect(first(null) < first(v)).toBe(true);
        expect(last(v) < last(null)).toBe(true);
      }
    }
  });

  it('orders numbers, strings and bigints at their edges', () => {
    const asc = (v: Value): string => encodeSortKey([v], ['ASC'], [true]);
    const ascending = (values: Value[]): void => {
      for (let i = 1; i < values.length; i++) expect(asc(values[i - 1] as Value) < asc(values[i] as Value)).toBe(true);
    };
    ascending([-Infinity, -Number.MAX_VALUE, -1, -Number.MIN_VALUE, 0, Number.MIN_VALUE, 1, 1e300, Infinity, Number.NaN]);
    ascending(['', '\u0000', '\u0000\u0000', ' ', '!', 'a', 'ab', 'b', '|', '}', '~', 'é', '\ud800', '\uffff', '😀', '\u{10ffff}']);
    ascending([-(2n ** 200n), -(2n ** 64n), -2n, -1n, 0n, 1n, 2n, 31n, 32n, 2n ** 64n, 2n ** 200n]);
    ascending([false, true]);
    expect(asc(-0)).toBe(asc(0));
    expect(encodeSortKey(['ab', 1], ['DESC', 'ASC'], [true, true]) < encodeSortKey(['a', 0], ['DESC', 'ASC'], [true, true])).toBe(true);
  });

  it('rejects mismatched arguments, bad directions and huge bigints', () => {
    expect(() => encodeSortKey([1, 2], ['ASC'], [true, true])).toThrow(FlambdaError);
    expect(() => encodeSortKey([1], ['ASC'], [])).toThrow(FlambdaError);
    expect(() => encodeSortKey([1], ['UP' as SortDirection], [true])).toThrow(/UP/);
    expect(() => encodeSortKey([2n ** 6000n], ['ASC'], [true])).toThrow(FlambdaError);
    expect(() => encodeSortKey([undefined as unknown as Value], ['ASC'], [true])).toThrow(FlambdaError);
  });
});

describe('compareValues', () => {
  it('orders doubles with -0 = 0 and NaN above +Infinity', () => {
    expect(compareValues(-0, 0)).toBe(0);
    expect(compareValues(Number.NaN, Number.NaN)).toBe(0);
    expect(sign(compareValues(Number.NaN, Infinity))).toBe(1);
    expect(sign(compareValues(-Infinity, Number.NaN))).toBe(-1);
    expect(sign(compareValues(-1.5, -1))).toBe(-1);
  });

  it('orders strings by code point, as UTF-8 bytes do', () => {
    // UTF-16 order would put the emoji (a surrogate pair) below U+FFFF.
    expect(sign(compareValues('\uffff', '😀'))).toBe(-1);
    expect(sign(compareValues('\ud800', '\ud800\udc00'))).toBe(-1);
    expect(sign(compareValues('\ud800a', '\ud800\udc00'))).toBe(-1);
    expect(sign(compareValues('\ud800a', '\ud800b'))).toBe(-1);
    expect(sign(compareValues('\ud800\uffff', '\ud800\udc00'))).toBe(-1);
    expect(sign(compareValues('x\udbff\udfff', 'x\ue000'))).toBe(1);
    fc.assert(
      fc.property(strings, strings, (a, b) => {
        // Well-formed strings only: Buffer replaces unpaired surrogates.
        if (LONE_SURROGATE.test(a) || LONE_SURROGATE.test(b)) return;
        expect(sign(compareValues(a, b))).toBe(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
      }),
      { numRuns: 5000 },
    );
  });

  it('orders bigints and booleans, and is antisymmetric', () => {
    expect(sign(compareValues(-(2n ** 100n), 1n))).toBe(-1);
    expect(sign(compareValues(true, false))).toBe(1);
    fc.assert(
      fc.property(fc.oneof(numbers, bigints, strings, fc.boolean(), fc.constant(null)), fc.oneof(numbers, bigints, strings, fc.boolean(), fc.constant(null)), (a, b) => {
        expect(sign(compareValues(a, b)) + sign(compareValues(b, a))).toBe(0);
      }),
    );
  });

  it('sorts null first and different types by type, as the sort-key markers do', () => {
    const ordered: Value[] = [null, false, 5n, -1, ''];
    for (let i = 1; i < ordered.length; i++) {
      expect(sign(compareValues(ordered[i - 1] as Value, ordered[i] as Value))).toBe(-1);
      const ea = encodeSortKey([ordered[i - 1] as Value], ['ASC'], [true]);
      const eb = encodeSortKey([ordered[i] as Value], ['ASC'], [true]);
      expect(ea < eb).toBe(true);
    }
  });
});
