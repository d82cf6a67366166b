import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import type { LogicalType, Value } from '../../../shared/core/types.ts';
import type { AggFunction } from '../../../shared/operators/aggregate/agg-function.ts';
import { avgFunction } from '../../../shared/operators/aggregate/avg.ts';
import { countFunction, countStarFunction } from '../../../shared/operators/aggregate/count.ts';
import { createAggFunction } from '../../../shared/operators/aggregate/create-agg-function.ts';
import { maxFunction, minFunction } from '../../../shared/operators/aggregate/min-max.ts';
import { sumFunction } from '../../../shared/operators/aggregate/sum.ts';
import { RecordError } from '../../../shared/core/errors.ts';

const INT: LogicalType = { root: 'INT', nullable: true };
const BIGINT: LogicalType = { root: 'BIGINT', nullable: true };
const DOUBLE: LogicalType = { root: 'DOUBLE', nullable: true };
const STRING: LogicalType = { root: 'STRING', nullable: true };
const dec = (precision: number, scale: number): LogicalType => ({ root: 'DECIMAL', nullable: true, precision, scale });

/** Applies `+v` (accumulate) and `-v` (retract) steps and returns the result after each. */
function run<A>(fn: AggFunction<A>, steps: readonly ['+' | '-', Value][]): Value[] {
  const acc = fn.createAccumulator();
  return steps.map(([op, v]) => {
    if (op === '+') fn.accumulate(acc, v);
    else fn.retract(acc, v);
    return fn.getValue(acc);
  });
}

describe('COUNT', () => {
  it('COUNT(*) counts every row, nulls included, and retracts', () => {
    expect(run(countStarFunction, [['+', 1], ['+', null], ['-', 1], ['-', null]])).toEqual([1, 2, 1, 0]);
  });

  it('COUNT(x) skips nulls on accumulate and retract', () => {
    expect(run(countFunction, [['+', 1], ['+', null], ['+', 'a'], ['-', null], ['-', 1]])).toEqual([1, 1, 2, 2, 1]);
  });

  it('starts at 0 for an empty group', () => {
    expect(countFunction.getValue(countFunction.createAccumulator())).toBe(0);
  });
});

describe('SUM with retraction', () => {
  it('returns NULL again once every non-null value is retracted', () => {
    expect(run(sumFunction(INT), [['+', 3], ['+', 4], ['-', 3], ['-', 4]])).toEqual([3, 7, 4, null]);
  });

  it('is NULL while only nulls were seen, and ignores them', () => {
    expect(run(sumFunction(BIGINT), [['+', null], ['+', 5], ['-', null]])).toEqual([null, 5, 5]);
  });

  it('a sum of values that cancel out is 0, not NULL', () => {
    expect(run(sumFunction(INT), [['+', 3], ['+', -3]])).toEqual([3, 0]);
  });

  it('wraps INT overflow like Java int and stays invertible under retraction', () => {
    expect(run(sumFunction(INT), [['+', 2147483647], ['+', 1], ['-', 1]])).toEqual([2147483647, -2147483648, 2147483647]);
  });

  it('sums DECIMAL unscaled values exactly', () => {
    expect(run(sumFunction(dec(10, 2)), [['+', 150n], ['+', 25n], ['-', 150n]])).toEqual([150n, 175n, 25n]);
  });

  it('DECIMAL sums beyond 38 digits are NULL', () => {
    const big = 10n ** 37n * 9n;
    expect(run(sumFunction(dec(38, 0)), [['+', big], ['+', big], ['-', big]])).toEqual([big, null, big]);
  });

  it('DOUBLE', () => {
    expect(run(sumFunction(DOUBLE), [['+', 1.5], ['+', 2.25]])).toEqual([1.5, 3.75]);
  });
});

describe('AVG', () => {
  it('AVG(INT) truncates toward zero and keeps the integer type', () => {
    expect(run(avgFunction(INT), [['+', 1], ['+', 2], ['+', 2]])).toEqual([1, 1, 1]);
    expect(run(avgFunction(INT), [['+', -1], ['+', -2]])).toEqual([-1, -1]);
  });

  it('AVG(INT) sums in BIGINT, so large INTs do not wrap', () => {
    expect(run(avgFunction(INT), [['+', 2147483647], ['+', 2147483647]])).toEqual([2147483647, 2147483647]);
  });

  it('AVG(BIGINT) truncates', () => {
    expect(run(avgFunction(BIGINT), [['+', 10], ['+', 5], ['+', 5]])).toEqual([10, 7, 6]);
  });

  it('AVG(DOUBLE) divides exactly', () => {
    expect(run(avgFunction(DOUBLE), [['+', 1], ['+', 2]])).toEqual([1, 1.5]);
  });

  it('AVG(DECIMAL(10, 2)) is DECIMAL(38, 6), HALF_UP', () => {
    // 1.00, 2.00, 2.00 → 1.666666(6…) → 1.666667
    expect(run(avgFunction(dec(10, 2)), [['+', 100n], ['+', 200n], ['+', 200n]])).toEqual([1000000n, 1500000n, 1666667n]);
    // −1, −2, 0 at scale 0 → −1, −1.5, −1 at scale 6
    expect(run(avgFunction(dec(5, 0)), [['+', -1n], ['+', -2n], ['+', 0n]])).toEqual([-1000000n, -1500000n, -1000000n]);
  });

  it('AVG(DECIMAL(20, 8)) keeps scale 8', () => {
    expect(run(avgFunction(dec(20, 8)), [['+', 1n], ['+', 2n]])).toEqual([1n, 2n]);
  });

  it('rounds DECIMAL ties away from zero', () => {
    // (0.000001 + 0.000002) / 2 at scale 6 = 0.0000015 → 0.000002; negated → -0.000002
    expect(run(avgFunction(dec(10, 6)), [['+', 1n], ['+', 2n]])).toEqual([1n, 2n]);
    expect(run(avgFunction(dec(10, 6)), [['+', -1n], ['+', -2n]])).toEqual([-1n, -2n]);
  });

  it('is NULL for an emptied group', () => {
    expect(run(avgFunction(INT), [['+', 4], ['+', null], ['-', 4]])).toEqual([4, 4, null]);
  });
});

describe('MIN/MAX with retraction', () => {
  it('retracting the current MIN reveals the next smallest', () => {
    expect(run(minFunction, [['+', 5], ['+', 3], ['+', 7], ['-', 3], ['-', 5], ['-', 7]])).toEqual([5, 3, 3, 5, 7, null]);
  });

  it('retracting the current MAX reveals the next largest', () => {
    expect(run(maxFunction, [['+', 5], ['+', 3], ['+', 7], ['-', 7], ['-', 5], ['-', 3]])).toEqual([5, 5, 7, 5, 3, null]);
  });

  it('keeps duplicates counted: a value retracted once is still present', () => {
    expect(run(minFunction, [['+', 2], ['+', 2], ['+', 4], ['-', 2], ['-', 2]])).toEqual([2, 2, 2, 2, 4]);
  });

  it('ignores nulls', () => {
    expect(run(maxFunction, [['+', null], ['+', 1], ['-', null]])).toEqual([null, 1, 1]);
  });

  it('orders strings by code point like Flink (not UTF-16 units)', () => {
    // U+FF5E (a BMP char above the surrogates) sorts before U+1F600 (a surrogate pair) by code point.
    expect(run(maxFunction, [['+', '\uff5e'], ['+', '\u{1f600}']])).toEqual(['\uff5e', '\u{1f600}']);
    expect(run(minFunction, [['+', '\u{1f600}'], ['+', '\uff5e']])).toEqual(['\u{1f600}', '\uff5e']);
  });

  it('orders DECIMALs, booleans and NaN like Java', () => {
    expect(run(minFunction, [['+', 10n], ['+', -3n]])).toEqual([10n, -3n]);
    expect(run(maxFunction, [['+', false], ['+', true], ['-', true]])).toEqual([false, true, false]);
    expect(run(maxFunction, [['+', 1], ['+', Number.NaN]])).toEqual([1, Number.NaN]);
  });

  it('a value retracted before it was accumulated does not become the extreme', () => {
    expect(run(minFunction, [['-', 1], ['+', 5], ['+', 1]])).toEqual([null, 5, 5]);
  });

  it('accumulators survive structuredClone mid-stream', () => {
    const acc = minFunction.createAccumulator();
    minFunction.accumulate(acc, 3);
    minFunction.accumulate(acc, 1);
    const copy = structuredClone(acc);
    minFunction.retract(copy, 1);
    expect(minFunction.getValue(copy)).toBe(3);
    expect(minFunction.getValue(acc)).toBe(1);
  });

  it('matches a recomputed min/max over any multiset under random add/remove', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: -5, max: 5 })), { maxLength: 60 }), (ops) => {
        const live: number[] = [];
        const min = minFunction.createAccumulator();
        const max = maxFunction.createAccumulator();
        for (const [add, v] of ops) {
          if (add || !live.includes(v)) {
            live.push(v);
            minFunction.accumulate(min, v);
            maxFunction.accumulate(max, v);
          } else {
            live.splice(live.indexOf(v), 1);
            minFunction.retract(min, v);
            maxFunction.retract(max, v);
          }
          expect(minFunction.getValue(min)).toBe(live.length === 0 ? null : Math.min(...live));
          expect(maxFunction.getValue(max)).toBe(live.length === 0 ? null : Math.max(...live));
        }
      }),
    );
  });
});

describe('createAggFunction', () => {
  it('picks COUNT(*) without an argument type and COUNT(x) with one', () => {
    expect(createAggFunction('COUNT', undefined)).toBe(countStarFunction);
    expect(createAggFunction('COUNT', STRING)).toBe(countFunction);
    expect(createAggFunction('MIN', STRING)).toBe(minFunction);
    expect(createAggFunction('MAX', STRING)).toBe(maxFunction);
  });

  it('rejects SUM(STRING) naming the call', () => {
    expect(() => createAggFunction('SUM', STRING, 'SUM(name) AS s')).toThrow(/SUM\(VARCHAR\(2147483647\)\) is not supported in SUM\(name\) AS s/);
  });
});

describe('LISTAGG, FIRST_VALUE and LAST_VALUE with retraction', () => {
  it('LISTAGG joins the values left in arrival order; a retraction removes the earliest equal value', () => {
    expect(run(createAggFunction('LISTAGG', STRING, undefined, { separator: ';' }), [['+', 'a'], ['+', null], ['+', 'b'], ['+', 'a'], ['-', 'a'], ['-', 'b'], ['-', 'a']])).toEqual(['a', 'a', 'a;b', 'a;b;a', 'b;a', 'a', null]);
    expect(run(createAggFunction('LISTAGG', STRING), [['+', 'x'], ['+', 'y']])).toEqual(['x', 'x,y']);
  });

  it('FIRST_VALUE and LAST_VALUE follow the values that are left', () => {
    const steps: ['+' | '-', Value][] = [['+', 1], ['+', 2], ['+', 3], ['-', 1], ['-', 3], ['-', 2]];
    expect(run(createAggFunction('FIRST_VALUE', INT), steps)).toEqual([1, 1, 1, 2, 2, null]);
    expect(run(createAggFunction('LAST_VALUE', INT), steps)).toEqual([1, 2, 3, 3, 2, null]);
  });

  it('LISTAGG takes STRING only', () => {
    expect(() => createAggFunction('LISTAGG', INT, 'LISTAGG(x)')).toThrow('LISTAGG(INT) is not supported in LISTAGG(x): LISTAGG accepts STRING (CAST the argument)');
  });
});

describe('variance and standard deviation with retraction', () => {
  it('VAR_POP / VAR_SAMP / STDDEV_POP / STDDEV_SAMP of DOUBLE, NULL when too few values are left', () => {
    const steps: ['+' | '-', Value][] = [['+', 1], ['+', 3], ['+', null], ['+', 5], ['-', 3], ['-', 1], ['-', 5]];
    expect(run(createAggFunction('VAR_POP', DOUBLE), steps)).toEqual([0, 1, 1, 8 / 3, 4, 0, null]);
    expect(run(createAggFunction('VAR_SAMP', DOUBLE), steps)).toEqual([null, 2, 2, 4, 8, null, null]);
    expect(run(createAggFunction('STDDEV_POP', DOUBLE), steps)).toEqual([0, 1, 1, Math.sqrt(8 / 3), 2, 0, null]);
    expect(run(createAggFunction('STDDEV_SAMP', DOUBLE), steps)).toEqual([null, Math.sqrt(2), Math.sqrt(2), 2, Math.sqrt(8), null, null]);
  });

  it('an INT argument gives a truncated INT, as Flink casts the result back', () => {
    expect(run(createAggFunction('STDDEV_SAMP', INT), [['+', 1], ['+', 2], ['+', 4]])).toEqual([null, 0, 1]);
  });

  it('DECIMAL gives DECIMAL(38, max(6, s)) with exact decimal arithmetic, as Flink (values from a BigDecimal model of its rewrite)', () => {
    const prices = ['3.00', '2.00', '5.00', '1.00', '4.00', '6.00', '3.00', '7.00'].map((p) => BigInt(p.replace('.', '')));
    const all = (fn: 'VAR_POP' | 'VAR_SAMP' | 'STDDEV_POP' | 'STDDEV_SAMP', type: LogicalType, xs: readonly bigint[]): Value =>
      run(createAggFunction(fn, type), xs.map((x) => ['+', x] as ['+', Value])).at(-1)!;
    // Results are unscaled at scale 6: 3.609375, 4.125000, 1.899836, 2.031010.
    expect(['VAR_POP', 'VAR_SAMP', 'STDDEV_POP', 'STDDEV_SAMP'].map((fn) => all(fn as 'VAR_POP', dec(10, 2), prices))).toEqual([3609375n, 4125000n, 1899836n, 2031010n]);
    // Squares of scale-4 values rounded HALF_UP to scale 6 on the way: 15.778424, 21.037898, 3.972206, 4.586709.
    const fine = ['1.2345', '2.3456', '0.0001', '-7.7777'].map((p) => BigInt(p.replace('.', '')));
    expect(['VAR_POP', 'VAR_SAMP', 'STDDEV_POP', 'STDDEV_SAMP'].map((fn) => all(fn as 'VAR_POP', dec(10, 4), fine))).toEqual([15778424n, 21037898n, 3972206n, 4586709n]);
  });

  it('DECIMAL retracts exactly: the result after retractions is that of the values left', () => {
    const steps: ['+' | '-', Value][] = [['+', 150n], ['+', 275n], ['+', null], ['+', -1000n], ['-', 275n], ['-', 150n], ['-', -1000n]];
    // 1.50, 2.75, -10.00 at scale 2 → VAR_SAMP after each step, at scale 6.
    expect(run(createAggFunction('VAR_SAMP', dec(5, 2)), steps)).toEqual([null, 781250n, 781250n, 49395834n, 66125000n, null, null]);
  });

  it('with a scale above 6 keeps the argument scale', () => {
    expect(run(createAggFunction('VAR_POP', dec(12, 8)), [['+', 100000000n], ['+', 300000000n]])).toEqual([0n, 100000000n]);
  });
});

describe('COLLECT, ARRAY_AGG, JSON_ARRAYAGG, JSON_OBJECTAGG and PERCENTILE with retraction', () => {
  it('COLLECT keeps a multiset in canonical order; retraction removes one occurrence', () => {
    const steps: ['+' | '-', Value][] = [['+', 'b'], ['+', 'a'], ['+', null], ['+', 'b'], ['-', 'b'], ['-', 'a'], ['-', 'b']];
    expect(run(createAggFunction('COLLECT', STRING), steps)).toEqual([[['b', 1]], [['a', 1], ['b', 1]], [['a', 1], ['b', 1]], [['a', 1], ['b', 2]], [['a', 1], ['b', 1]], [['b', 1]], []]);
  });

  it('ARRAY_AGG keeps arrival order and NULLs (unless IGNORE NULLS); a retraction removes the earliest equal value', () => {
    const steps: ['+' | '-', Value][] = [['+', 1], ['+', null], ['+', 2], ['+', 1], ['-', 1], ['-', null]];
    expect(run(createAggFunction('ARRAY_AGG', INT), steps)).toEqual([[1], [1, null], [1, null, 2], [1, null, 2, 1], [null, 2, 1], [2, 1]]);
    expect(run(createAggFunction('ARRAY_AGG', INT, undefined, { onNull: 'ABSENT' }), steps)).toEqual([[1], [1], [1, 2], [1, 2, 1], [2, 1], [2, 1]]);
    expect(run(createAggFunction('ARRAY_AGG', INT), [['+', 1], ['-', 1]])).toEqual([[1], null]);
  });

  it('JSON_ARRAYAGG and JSON_OBJECTAGG write their JSON texts; JSON_OBJECTAGG refuses a key twice', () => {
    expect(run(createAggFunction('JSON_ARRAYAGG', STRING), [['+', '1'], ['+', null], ['+', '"a"'], ['-', '1']])).toEqual(['[1]', '[1]', '[1,"a"]', '["a"]']);
    expect(run(createAggFunction('JSON_ARRAYAGG', STRING, undefined, { onNull: 'NULL' }), [['+', null], ['+', '2']])).toEqual(['[null]', '[null,2]']);
    const row: LogicalType = { root: 'ROW', nullable: true, fields: [{ name: 'EXPR$0', type: STRING }, { name: 'EXPR$1', type: STRING }] };
    const kv = (k: string | null, v: string | null): Value => ({ EXPR$0: k, EXPR$1: v });
    const obj = createAggFunction('JSON_OBJECTAGG', row);
    expect(run(obj, [['+', kv('b', '2')], ['+', kv('a', null)], ['-', kv('b', '2')], ['+', kv('b', '[3]')]])).toEqual(['{"b":2}', '{"a":null,"b":2}', '{"a":null}', '{"a":null,"b":[3]}']);
    const acc = obj.createAccumulator();
    obj.accumulate(acc, kv('k', '1'));
    expect(() => obj.check!(acc, kv('k', '2'))).toThrow("Key 'k' is already present. Duplicate keys are not allowed in JSON_OBJECTAGG. Please ensure that keys are unique.");
    expect(() => obj.check!(acc, kv(null, '2'))).toThrow('a JSON_OBJECTAGG key is NULL');
    expect(obj.getValue(acc)).toBe('{"k":1}');
  });

  it('PERCENTILE agrees with sorting the values (each repeated by its frequency) and interpolating', () => {
    const reference = (values: readonly number[], p: number): number | null => {
      if (values.length === 0) return null;
      const sorted = [...values].sort((a, b) => a - b);
      const position = p * (sorted.length - 1);
      const lower = Math.floor(position);
      const higher = Math.ceil(position);
      return lower === higher ? sorted[lower]! : (higher - position) * sorted[lower]! + (position - lower) * sorted[higher]!;
    };
    const withFrequency: LogicalType = { root: 'ROW', nullable: true, fields: [{ name: 'EXPR$0', type: INT }, { name: 'EXPR$1', type: INT }] };
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: -5, max: 5 }), fc.integer({ min: 1, max: 3 })), { maxLength: 12 }), fc.nat({ max: 11 }), fc.double({ min: 0, max: 1, noNaN: true }), (pairs, cut, p) => {
        const fn = createAggFunction('PERCENTILE', withFrequency, undefined, { percentages: [p] });
        const acc = fn.createAccumulator();
        for (const [v, f] of pairs) fn.accumulate(acc, { EXPR$0: v, EXPR$1: f });
        // Retract a prefix: what is left must give the percentile of the rest.
        const kept = pairs.slice(Math.min(cut, pairs.length));
        for (const [v, f] of pairs.slice(0, Math.min(cut, pairs.length))) fn.retract(acc, { EXPR$0: v, EXPR$1: f });
        const expected = reference(kept.flatMap(([v, f]) => Array<number>(f).fill(v)), p);
        const actual = fn.getValue(acc) as number[] | null;
        if (expected === null) expect(actual).toBeNull();
        else expect(actual![0]).toBeCloseTo(expected, 9);
      }),
    );
  });
});

describe('SINGLE_VALUE (Flink SingleValueAggFunction)', () => {
  it('holds the one row, NULL while there is none; a retraction empties it', () => {
    expect(run(createAggFunction('SINGLE_VALUE', INT), [['+', 7], ['-', 7], ['+', null], ['-', null], ['+', 3]])).toEqual([7, null, null, null, 3]);
  });

  it('a second row is a data error naming the call and Flink\'s message; the accumulator keeps its row', () => {
    const fn = createAggFunction('SINGLE_VALUE', STRING, 'SINGLE_VALUE(name) AS $f0');
    const acc = fn.createAccumulator();
    fn.accumulate(acc, 'pear');
    let error: unknown;
    try {
      fn.accumulate(acc, 'fig');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RecordError);
    expect((error as RecordError).retry).toBe('dead-letter');
    expect((error as Error).message).toBe(
      'more than one row returned by a subquery used as an expression: SINGLE_VALUE(name) AS $f0 already holds a row (Flink fails with "SingleValueAggFunction received more than one element.")',
    );
    expect(fn.getValue(acc)).toBe('pear');
    expect(() => fn.check!(acc, 'fig')).toThrow(RecordError);
  });
});
