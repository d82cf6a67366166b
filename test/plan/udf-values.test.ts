/**
 * The JS values user functions take and give back: arguments cast implicitly to their parameter
 * and converted (a declared DECIMAL as its exact text, an undeclared one as a number), results
 * converted back to the declared type as CAST does, a value of the wrong kind a data error.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDecimal } from '../../shared/core/decimal.ts';
import { RecordError } from '../../shared/core/errors.ts';
import { parseType } from '../../shared/core/type-parse.ts';
import type { LogicalType, Value } from '../../shared/core/types.ts';
import type { UdfSignature } from '../../shared/plan/udf-signature.ts';
import { bindUdfCall, udfResultConverter } from '../../shared/plan/udf-values.ts';

const t = (text: string): LogicalType => parseType(text);
const declared = (...params: string[]): UdfSignature[] => [{ params: params.map(t) }];
const args = (...types: string[]) => types.map((type, i) => ({ type: t(type), text: `a${i}` }));
const result = (type: string, value: unknown): Value => udfResultConverter(t(type), 'user function f')(value);

describe('bindUdfCall: argument values', () => {
  it('casts each argument to its declared parameter and gives a DECIMAL as its exact text', () => {
    const bound = bindUdfCall('f', declared('DECIMAL(10, 2)', 'DECIMAL(10, 2)', 'DOUBLE', 'BIGINT', 'STRING', 'VARCHAR(2)'), args('DECIMAL(10, 2)', 'INT', 'DECIMAL(2, 1)', 'INT', 'STRING', 'STRING'));
    expect(bound.toJs([150n, 3, 15n, 7, 'abc', 'abc'])).toEqual(['1.50', '3.00', 1.5, 7, 'abc', 'ab']);
    expect(bound.toJs([-5n, null, null, null, null, null])).toEqual(['-0.05', null, null, null, null, null]);
    expect(bindUdfCall('f', declared('DECIMAL(5, 1)'), args('DECIMAL(10, 2)')).toJs([1234n])).toEqual(['12.3']);
  });

  it('without a declaration gives a DECIMAL as a number and everything else as it is', () => {
    const bound = bindUdfCall('f', undefined, args('DECIMAL(10, 2)', 'BIGINT', 'TIMESTAMP(3)', 'BOOLEAN', 'ARRAY<DECIMAL(4, 2)>'));
    expect(bound.toJs([150n, 12, 1_700_000_000_000, true, [125n, null]])).toEqual([1.5, 12, 1_700_000_000_000, true, [1.25, null]]);
  });

  it('converts the parts of ROW, ARRAY and MAP values, a ROW taking the parameter’s field names', () => {
    const bound = bindUdfCall('f', declared('ROW<x DECIMAL(4, 1), y STRING>', 'ARRAY<DOUBLE>', 'MAP<STRING, DECIMAL(3, 2)>'), args('ROW<a DECIMAL(4, 1), b STRING>', 'ARRAY<INT>', 'MAP<STRING, DECIMAL(3, 2)>'));
    expect(bound.toJs([{ a: 15n, b: 'z' }, [1, null], { k: 125n, n: null }])).toEqual([{ x: '1.5', y: 'z' }, [1, null], { k: '1.25', n: null }]);
  });

  it('gives DATE, TIME and TIMESTAMP_LTZ as milliseconds: a DATE’s UTC midnight, a TIME’s since midnight, an LTZ’s instant', () => {
    // 2024-03-05 is day 19787; 09:15:30.250 is 33330250 ms; the instant 2024-03-05T01:00:00Z.
    const bound = bindUdfCall('f', undefined, args('DATE', 'TIME(3)', 'TIMESTAMP_LTZ(3)', 'ARRAY<DATE>'));
    const js = bound.toJs([19787, 33_330_250, Date.UTC(2024, 2, 5, 1), [19787, null]]);
    expect(js).toEqual([Date.UTC(2024, 2, 5), 33_330_250, Date.UTC(2024, 2, 5, 1), [Date.UTC(2024, 2, 5), null]]);
    expect(new Date(js[0] as number).toISOString().slice(0, 10)).toBe('2024-03-05');
    // A TIMESTAMP into declared DATE and TIME parameters: cast as Flink casts it implicitly.
    const cast = bindUdfCall('f', declared('DATE', 'TIME(0)'), args('TIMESTAMP(3)', 'TIMESTAMP(3)'));
    expect(cast.toJs([Date.UTC(2024, 2, 5, 9, 15, 30, 250), Date.UTC(2024, 2, 5, 9, 15, 30, 250)])).toEqual([Date.UTC(2024, 2, 5), 33_330_000]);
    expect(() => bindUdfCall('f', declared('TIMESTAMP(3)'), args('TIMESTAMP_LTZ(3)'))).toThrow('argument 1 of f (a0) is TIMESTAMP_LTZ(3), which does not cast implicitly to TIMESTAMP(3)');
  });

  it('refuses a call no signature takes, by name', () => {
    expect(() => bindUdfCall('f', declared('INT'), args('STRING'))).toThrow('argument 1 of f (a0) is STRING, which does not cast implicitly to INT, the declared parameter type of f(INT)');
  });

  it('an undeclared DECIMAL of at most 15 digits prints back exactly from the number it arrives as (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 15 }), fc.bigInt({ min: -(10n ** 15n) + 1n, max: 10n ** 15n - 1n }), fc.nat(15), (precision, raw, s) => {
        const scale = Math.min(s, precision);
        const unscaled = raw % 10n ** BigInt(precision);
        const [value] = bindUdfCall('f', undefined, args(`DECIMAL(${precision}, ${scale})`)).toJs([unscaled]);
        expect((value as number).toFixed(scale)).toBe(formatDecimal(unscaled, scale).replace(/^-(0\.?0*)$/, '$1'));
      }),
    );
  });

  it('a declared DECIMAL comes back from its text unchanged (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 38n) + 1n, max: 10n ** 38n - 1n }), fc.nat(38), (unscaled, scale) => {
        const type = `DECIMAL(38, ${scale})`;
        const [text] = bindUdfCall('f', declared(type), args(type)).toJs([unscaled]);
        expect(result(type, text)).toBe(unscaled);
      }),
    );
  });
});

describe('udfResultConverter: results', () => {
  it('converts numbers into DECIMAL as CAST does (HALF_UP to the scale), and takes its text or an integer bigint', () => {
    expect(result('DECIMAL(10, 2)', 7.125)).toBe(713n);
    expect(result('DECIMAL(10, 2)', -7.125)).toBe(-713n);
    expect(result('DECIMAL(10, 2)', 7.5)).toBe(750n);
    expect(result('DECIMAL(10, 2)', '7.5')).toBe(750n);
    expect(result('DECIMAL(10, 2)', 7n)).toBe(700n);
    expect(() => result('DECIMAL(3, 2)', 12.5)).toThrow(new RecordError('cannot cast 12.5 to DECIMAL(3, 2) in user function f: overflows DECIMAL precision 3'));
    expect(() => result('DECIMAL(3, 2)', 100n)).toThrow('user function f returned 100n (a bigint) for its DECIMAL(3, 2) result: it overflows DECIMAL precision 3');
  });

  it('truncates a fraction into INT and BIGINT, as CAST from DOUBLE, and passes their integers unchanged', () => {
    expect(result('INT', 2.9)).toBe(2);
    expect(result('INT', -2.9)).toBe(-2);
    expect(result('BIGINT', 2 ** 40)).toBe(2 ** 40);
    expect(result('BIGINT', 5n)).toBe(5);
    expect(result('DOUBLE', 5n)).toBe(5);
    expect(result('DOUBLE', 0.1)).toBe(0.1);
  });

  it('is a data error for a value of another kind, naming the function and the type', () => {
    expect(() => result('INT', '3')).toThrow(new RecordError("user function f returned '3' (a string) for its INT result"));
    expect(() => result('STRING', 3)).toThrow("user function f returned 3 (a number) for its STRING result");
    expect(() => result('BOOLEAN', 1)).toThrow('user function f returned 1 (a number) for its BOOLEAN result');
    expect(() => result('TIMESTAMP(3)', 1.5)).toThrow('user function f returned 1.5 (a number) for its TIMESTAMP(3) result: a TIMESTAMP is a whole number of epoch milliseconds');
    expect(() => result('ARRAY<INT>', { a: 1 })).toThrow('user function f returned an object for its ARRAY<INT> result');
  });

  it('takes DATE, TIME and TIMESTAMP_LTZ results as milliseconds or a Date, refusing what is not one', () => {
    expect(result('DATE', Date.UTC(2024, 2, 5))).toBe(19787);
    expect(result('DATE', new Date(Date.UTC(2024, 2, 5)))).toBe(19787);
    expect(result('TIME(0)', 33_330_250)).toBe(33_330_000);
    expect(result('TIME(3)', 33_330_250)).toBe(33_330_250);
    expect(result('TIMESTAMP_LTZ(3)', Date.UTC(2024, 2, 5, 1))).toBe(Date.UTC(2024, 2, 5, 1));
    expect(result('TIMESTAMP_LTZ(3)', new Date(Date.UTC(2024, 2, 5, 1)))).toBe(Date.UTC(2024, 2, 5, 1));
    expect(result('TIMESTAMP(3)', new Date(Date.UTC(2024, 2, 5, 1)))).toBe(Date.UTC(2024, 2, 5, 1));
    expect(() => result('DATE', Date.UTC(2024, 2, 5, 1))).toThrow('user function f returned 1709600400000 (a number) for its DATE result: a DATE is the epoch milliseconds (or a Date) of a UTC midnight');
    expect(() => result('DATE', '2024-03-05')).toThrow("user function f returned '2024-03-05' (a string) for its DATE result");
    expect(() => result('TIME(0)', 86_400_000)).toThrow('for its TIME(0) result: a TIME is a whole number of milliseconds since midnight, below 86400000');
    expect(() => result('TIMESTAMP_LTZ(3)', new Date(Number.NaN))).toThrow('user function f returned a Date for its TIMESTAMP_LTZ(3) result');
    expect(() => result('TIMESTAMP_LTZ(3)', 1e15)).toThrow('within years 0000-9999');
  });

  it('converts STRING, nested values and NULL', () => {
    expect(result('VARCHAR(3)', 'abcdef')).toBe('abc');
    expect(result('STRING', undefined)).toBeNull();
    expect(result('DECIMAL(10, 2)', null)).toBeNull();
    expect(result('ARRAY<DECIMAL(4, 1)>', [1.25, null, '2'])).toEqual([13n, null, 20n]);
    expect(result('ROW<a INT, b STRING>', [1, 'x'])).toEqual({ a: 1, b: 'x' });
    expect(result('ROW<a INT, b STRING>', { a: 1 })).toEqual({ a: 1, b: null });
    expect(result('MAP<STRING, DECIMAL(3, 1)>', new Map([['k', 1.5]]))).toEqual({ k: 15n });
    expect(result('MAP<STRING, INT>', { k: 2 })).toEqual({ k: 2 });
  });
});
