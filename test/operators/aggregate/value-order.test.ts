import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { compareValues, valueListsEqual, valuesEqual } from '../../../shared/operators/aggregate/value-order.ts';

const sign = (n: number): number => Math.sign(n);

describe('compareValues', () => {
  it('orders doubles like Java Double.compare', () => {
    expect(sign(compareValues(-0, 0))).toBe(-1);
    expect(sign(compareValues(0, -0))).toBe(1);
    expect(compareValues(Number.NaN, Number.NaN)).toBe(0);
    expect(sign(compareValues(Number.NaN, Number.POSITIVE_INFINITY))).toBe(1);
    expect(sign(compareValues(1, 2))).toBe(-1);
  });

  it('orders bigints and booleans', () => {
    expect(sign(compareValues(-5n, 3n))).toBe(-1);
    expect(compareValues(7n, 7n)).toBe(0);
    expect(sign(compareValues(true, false))).toBe(1);
  });

  it('orders strings by code point, matching UTF-8 byte order', () => {
    const utf8 = (s: string): number[] => [...Buffer.from(s, 'utf8')];
    const byteOrder = (a: string, b: string): number => {
      const x = utf8(a);
      const y = utf8(b);
      for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
      return x.length - y.length;
    };
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        expect(sign(compareValues(a, b))).toBe(sign(byteOrder(a, b)));
      }),
    );
  });
});

describe('valuesEqual', () => {
  it('is binary equality: NaN equals NaN, -0 differs from 0', () => {
    expect(valuesEqual(Number.NaN, Number.NaN)).toBe(true);
    expect(valuesEqual(-0, 0)).toBe(false);
    expect(valuesEqual(5n, 5n)).toBe(true);
    expect(valuesEqual(null, null)).toBe(true);
    expect(valuesEqual(1, 1n)).toBe(false);
  });

  it('compares lists element-wise', () => {
    expect(valueListsEqual([1, 'a', null], [1, 'a', null])).toBe(true);
    expect(valueListsEqual([1, 'a'], [1, 'b'])).toBe(false);
    expect(valueListsEqual([1], [1, 2])).toBe(false);
  });
});
