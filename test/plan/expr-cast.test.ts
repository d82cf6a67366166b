import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RecordError } from '../../shared/core/errors.ts';
import { parseType } from '../../shared/core/type-parse.ts';
import { castConverter, decimalToDouble, formatDouble } from '../../shared/plan/expr-cast.ts';

const converter = (from: string, to: string) => {
  const c = castConverter(parseType(from), parseType(to), 'CAST(x)');
  return c ?? ((v: unknown) => v);
};

describe('formatDouble', () => {
  it("prints like Java's Double.toString", () => {
    expect(formatDouble(1)).toBe('1.0');
    expect(formatDouble(-0)).toBe('-0.0');
    expect(formatDouble(0)).toBe('0.0');
    expect(formatDouble(0.001)).toBe('0.001');
    expect(formatDouble(0.0001)).toBe('1.0E-4');
    expect(formatDouble(1234567.5)).toBe('1234567.5');
    expect(formatDouble(1e7)).toBe('1.0E7');
    expect(formatDouble(12345678.9)).toBe('1.23456789E7');
    expect(formatDouble(Number.NaN)).toBe('NaN');
    expect(formatDouble(-Infinity)).toBe('-Infinity');
  });

  it('round-trips through Number()', () => {
    fc.assert(fc.property(fc.double({ noNaN: true }), (d) => {
        expect(Number(formatDouble(d))).toBe(d);
      }),
    );
  });
});

describe('decimalToDouble', () => {
  it('matches parsing the decimal text, on both the fast and the slow path', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 38n) + 1n, max: 10n ** 38n - 1n }), fc.integer({ min: 0, max: 38 }), (u, s) => {
        const abs = (u < 0n ? -u : u).toString().padStart(s + 1, '0');
        const decimalText = `${u < 0n ? '-' : ''}${abs.slice(0, abs.length - s)}.${abs.slice(abs.length - s)}0`;
        expect(decimalToDouble(u, s)).toBe(Number(decimalText));
      }),
    );
  });
});

describe('castConverter', () => {
  it('needs no conversion for widening within one representation', () => {
    expect(castConverter(parseType('INT'), parseType('BIGINT'), '')).toBeUndefined();
    expect(castConverter(parseType('BIGINT'), parseType('DOUBLE'), '')).toBeUndefined();
    expect(castConverter(parseType('DECIMAL(5, 2)'), parseType('DECIMAL(7, 2)'), '')).toBeUndefined();
    expect(castConverter(parseType('VARCHAR(3)'), parseType('VARCHAR(5)'), '')).toBeUndefined();
  });

  it('round-trips DECIMAL through STRING', () => {
    const toText = converter('DECIMAL(12, 3)', 'STRING');
    const fromText = converter('STRING', 'DECIMAL(12, 3)');
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 12n) + 1n, max: 10n ** 12n - 1n }), (u) => {
        expect(fromText(toText(u) as string)).toBe(u);
      }),
    );
  });

  it('round-trips BIGINT through STRING', () => {
    const toText = converter('BIGINT', 'STRING');
    const fromText = converter('STRING', 'BIGINT');
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => {
        expect(fromText(toText(n) as string)).toBe(n + 0);
      }),
    );
  });

  it('round-trips TIMESTAMP through STRING', () => {
    const toText = converter('TIMESTAMP(3)', 'STRING');
    const fromText = converter('STRING', 'TIMESTAMP(3)');
    fc.assert(
      fc.property(fc.integer({ min: -62_000_000_000_000, max: 250_000_000_000_000 }), (ms) => {
        expect(fromText(toText(ms) as string)).toBe(ms);
      }),
    );
  });

  it('converts BOOLEAN to and from numbers', () => {
    expect(converter('BOOLEAN', 'INT')(true)).toBe(1);
    expect(converter('BOOLEAN', 'DECIMAL(3, 2)')(true)).toBe(100n);
    expect(converter('BOOLEAN', 'DOUBLE')(false)).toBe(0);
    expect(converter('DOUBLE', 'BOOLEAN')(0.5)).toBe(true);
    expect(converter('DECIMAL(3, 2)', 'BOOLEAN')(0n)).toBe(false);
    expect(() => converter('BOOLEAN', 'DECIMAL(2, 2)')(true)).toThrow(RecordError);
  });

  it('parses Java double syntax', () => {
    const f = converter('STRING', 'DOUBLE');
    expect(f('1.5d')).toBe(1.5);
    expect(f('.5')).toBe(0.5);
    expect(f('-Infinity')).toBe(-Infinity);
    expect(f('NaN')).toBeNaN();
    expect(() => f('1,5')).toThrow(RecordError);
    expect(() => f('')).toThrow(RecordError);
  });

  it('saturates DOUBLE to BIGINT at the long range', () => {
    const f = converter('DOUBLE', 'BIGINT');
    expect(f(1e30)).toBe(2 ** 63);
    expect(f(-1e30)).toBe(-(2 ** 63));
    expect(f(-0.5)).toBe(0);
    expect(Object.is(f(-0.5), 0)).toBe(true);
  });

  it('truncates to VARCHAR(n) by characters', () => {
    expect(converter('BIGINT', 'VARCHAR(2)')(12345)).toBe('12');
    expect(converter('STRING', 'VARCHAR(2)')('\u{1f600}\u{1f601}\u{1f602}')).toBe('\u{1f600}\u{1f601}');
  });

  it('names the value, target type and expression when it fails', () => {
    expect(() => converter('STRING', 'DECIMAL(3, 1)')('123.4')).toThrow("cannot cast '123.4' to DECIMAL(3, 1) in CAST(x)");
    expect(() => converter('DECIMAL(5, 2)', 'DECIMAL(3, 2)')(12345n)).toThrow(/cannot cast 123.45 to DECIMAL\(3, 2\)/);
  });
});
