import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { FlambdaError } from '../../shared/core/errors.ts';
import {
  divideDecimal,
  fitsPrecision,
  formatDecimal,
  parseDecimal,
  pow10,
  rescaleDecimal,
  tryParseDecimal,
} from '../../shared/core/decimal.ts';

/** Reference HALF_UP division written independently of the implementation: floor((2|a| + |b|) / 2|b|). */
function referenceHalfUp(a: bigint, b: bigint): bigint {
  const abs = (x: bigint): bigint => (x < 0n ? -x : x);
  const magnitude = (2n * abs(a) + abs(b)) / (2n * abs(b));
  return (a < 0n) !== (b < 0n) ? -magnitude : magnitude;
}

describe('parseDecimal from text', () => {
  it.each<[string, number, number, bigint]>([
    ['12.5', 10, 2, 1250n],
    ['12.50', 10, 2, 1250n],
    ['-12.5', 10, 2, -1250n],
    ['+12', 10, 2, 1200n],
    ['0', 10, 2, 0n],
    ['-0.00', 10, 2, 0n],
    ['.5', 10, 1, 5n],
    ['5.', 10, 1, 50n],
    ['000123.4500', 5, 2, 12345n],
    ['1.5e3', 10, 0, 1500n],
    ['1.5E+3', 10, 2, 150000n],
    ['-1.25E-1', 10, 2, -13n],
    ['125e-3', 10, 2, 13n],
    ['1e-999999999999', 10, 2, 0n],
    ['0e999999999999', 10, 2, 0n],
    ['99999999999999999999999999999999999999', 38, 0, 99999999999999999999999999999999999999n],
    ['0.99999999999999999999999999999999999999', 38, 38, 99999999999999999999999999999999999999n],
  ])('reads %s as DECIMAL(%d, %d) → %d', (text, precision, scale, expected) => {
    expect(parseDecimal(text, precision, scale)).toBe(expected);
  });

  it('rounds HALF_UP, ties away from zero', () => {
    expect(parseDecimal('1.005', 10, 2)).toBe(101n);
    expect(parseDecimal('1.004999', 10, 2)).toBe(100n);
    expect(parseDecimal('-1.005', 10, 2)).toBe(-101n);
    expect(parseDecimal('0.5', 10, 0)).toBe(1n);
    expect(parseDecimal('-0.5', 10, 0)).toBe(-1n);
    expect(parseDecimal('0.49', 10, 0)).toBe(0n);
    expect(parseDecimal('0.05', 10, 0)).toBe(0n);
  });

  it('reports overflow of the precision, including overflow caused by rounding', () => {
    expect(tryParseDecimal('123.4', 4, 2)).toBe('overflow');
    expect(tryParseDecimal('99.995', 4, 2)).toBe('overflow');
    expect(tryParseDecimal('99.994', 4, 2)).toBe(9999n);
    expect(tryParseDecimal('1e38', 38, 0)).toBe('overflow');
    expect(tryParseDecimal('1e999999999999', 38, 0)).toBe('overflow');
    expect(tryParseDecimal('-100', 2, 0)).toBe('overflow');
    expect(parseDecimal('-100', 2, 0)).toBeUndefined();
  });

  it.each(['', '-', '+', '.', 'e5', '1e', '1e+', '1.2.3', ' 1', '1 ', 'NaN', 'Infinity', '0x10', '1_000', '--1', '1,5'])(
    'rejects %j as invalid',
    (text) => {
      expect(tryParseDecimal(text, 10, 2)).toBe('invalid');
      expect(parseDecimal(text, 10, 2)).toBeUndefined();
    },
  );

  it('matches a reference for arbitrary digits, points and exponents', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.stringMatching(/^\d{1,25}$/),
        fc.nat({ max: 25 }),
        fc.integer({ min: -30, max: 30 }),
        fc.integer({ min: 1, max: 38 }).chain((p) => fc.tuple(fc.constant(p), fc.integer({ min: 0, max: p }))),
        (negative, digits, pointFromRight, exponent, [precision, scale]) => {
          const point = Math.max(0, digits.length - pointFromRight);
          const text = `${negative ? '-' : ''}${digits.slice(0, point)}.${digits.slice(point)}e${exponent}`;
          // value = digits × 10^(exponent − fraction digits)
          const shift = exponent - (digits.length - point) + scale;
          const magnitude = shift >= 0 ? BigInt(digits) * pow10(shift) : referenceHalfUp(BigInt(digits), pow10(-shift));
          const expected = negative ? -magnitude : magnitude;
          const result = tryParseDecimal(text, precision, scale);
          if (fitsPrecision(expected, precision)) expect(result).toBe(expected);
          else expect(result).toBe('overflow');
        },
      ),
    );
  });
});

describe('parseDecimal from numbers', () => {
  it('reads numbers through their shortest text, not their binary expansion', () => {
    expect(parseDecimal(0.1, 10, 2)).toBe(10n);
    expect(parseDecimal(1.005, 10, 2)).toBe(101n);
    expect(parseDecimal(12, 10, 2)).toBe(1200n);
    expect(parseDecimal(-7, 3, 0)).toBe(-7n);
    expect(parseDecimal(1e21, 22, 0)).toBe(10n ** 21n);
    expect(parseDecimal(1.5e-7, 10, 8)).toBe(15n);
    expect(parseDecimal(-0, 10, 2)).toBe(0n);
  });

  it('rejects non-finite numbers and reports overflow', () => {
    expect(tryParseDecimal(Number.NaN, 10, 2)).toBe('invalid');
    expect(tryParseDecimal(Number.POSITIVE_INFINITY, 10, 2)).toBe('invalid');
    expect(tryParseDecimal(1000, 5, 2)).toBe('overflow');
    expect(tryParseDecimal(1e21, 21, 0)).toBe('overflow');
  });

  it('agrees with the text path for every finite double', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer({ min: 0, max: 10 }), (n, scale) => {
        expect(tryParseDecimal(n, 38, scale)).toBe(tryParseDecimal(String(n), 38, scale));
      }),
    );
  });
});

describe('formatDecimal', () => {
  it.each<[bigint, number, string]>([
    [1250n, 2, '12.50'],
    [-1250n, 2, '-12.50'],
    [5n, 3, '0.005'],
    [-5n, 3, '-0.005'],
    [0n, 2, '0.00'],
    [42n, 0, '42'],
    [-42n, 0, '-42'],
    [123n, 3, '0.123'],
  ])('prints %d at scale %d as %s', (unscaled, scale, text) => {
    expect(formatDecimal(unscaled, scale)).toBe(text);
  });

  it('round-trips through parseDecimal', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 38 }).chain((p) => fc.tuple(fc.constant(p), fc.integer({ min: 0, max: p }))),
        fc.bigInt({ min: -(10n ** 38n) + 1n, max: 10n ** 38n - 1n }),
        ([precision, scale], raw) => {
          const unscaled = raw % pow10(precision);
          const text = formatDecimal(unscaled, scale);
          expect(text.split('.')[1]?.length ?? 0).toBe(scale);
          expect(parseDecimal(text, precision, scale)).toBe(unscaled);
        },
      ),
    );
  });
});

describe('rescaleDecimal', () => {
  it('scales up exactly and down with HALF_UP', () => {
    expect(rescaleDecimal(125n, 2, 4)).toBe(12500n);
    expect(rescaleDecimal(125n, 2, 1)).toBe(13n);
    expect(rescaleDecimal(-125n, 2, 1)).toBe(-13n);
    expect(rescaleDecimal(124n, 2, 1)).toBe(12n);
    expect(rescaleDecimal(-149n, 2, 0)).toBe(-1n);
    expect(rescaleDecimal(7n, 3, 3)).toBe(7n);
  });

  it('matches the reference and undoes a scale-up', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), fc.nat({ max: 40 }), fc.nat({ max: 40 }), (v, from, to) => {
        const expected = to >= from ? v * pow10(to - from) : referenceHalfUp(v, pow10(from - to));
        expect(rescaleDecimal(v, from, to)).toBe(expected);
        expect(rescaleDecimal(rescaleDecimal(v, from, from + to), from + to, from)).toBe(v);
      }),
    );
  });
});

describe('divideDecimal', () => {
  it('divides with HALF_UP at the requested scale', () => {
    expect(divideDecimal(10n, 4n, 2)).toBe(250n);
    expect(divideDecimal(2n, 3n, 4)).toBe(6667n);
    expect(divideDecimal(-2n, 3n, 4)).toBe(-6667n);
    expect(divideDecimal(1n, -8n, 2)).toBe(-13n);
    expect(divideDecimal(1n, 3n, 0)).toBe(0n);
  });

  it('computes AVG of DECIMAL(10, 2) values at scale 6', () => {
    // AVG(1.00, 2.00, 2.01) = 1.67
    const sum = 100n + 200n + 201n;
    expect(formatDecimal(divideDecimal(sum, 3n, 6 - 2), 6)).toBe('1.670000');
    // AVG(0.01, 0.02) = 0.015
    expect(formatDecimal(divideDecimal(3n, 2n, 6 - 2), 6)).toBe('0.015000');
  });

  it('matches the reference', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }),
        fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }).filter((b) => b !== 0n),
        fc.nat({ max: 12 }),
        (a, b, scale) => {
          expect(divideDecimal(a, b, scale)).toBe(referenceHalfUp(a * pow10(scale), b));
        },
      ),
    );
  });

  it('refuses to divide by zero', () => {
    expect(() => divideDecimal(1n, 0n, 2)).toThrow(FlambdaError);
  });
});

describe('fitsPrecision and pow10', () => {
  it('checks the digit count', () => {
    expect(fitsPrecision(999n, 3)).toBe(true);
    expect(fitsPrecision(-999n, 3)).toBe(true);
    expect(fitsPrecision(1000n, 3)).toBe(false);
    expect(fitsPrecision(-1000n, 3)).toBe(false);
    expect(pow10(0)).toBe(1n);
    expect(pow10(100)).toBe(10n ** 100n);
  });
});
