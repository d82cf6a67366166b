/**
 * VAR_POP, VAR_SAMP (VARIANCE), STDDEV_POP and STDDEV_SAMP (STDDEV) with retraction. Flink
 * rewrites them (Calcite's AggregateReduceFunctionsRule) into SUM(x * x), SUM(x) and COUNT(x)
 * and computes, in DOUBLE, `(SUM(x²) − SUM(x)² / COUNT(x)) / COUNT(x)` (`/ (COUNT(x) − 1)` for the
 * sample forms, NULL for a single value), the standard deviations the square root of that, cast
 * back to the argument type: an INT argument gives an INT (truncated), as in Flink.
 */
import { divideDecimal, fitsPrecision, formatDecimal, pow10, rescaleDecimal, tryParseDecimal } from '../../core/decimal.ts';
import { MAX_DECIMAL_PRECISION } from '../../core/type-parse.ts';
import type { LogicalType, Value } from '../../core/types.ts';
import { arithmeticType, decimalShape } from '../../plan/expr-type-rules.ts';
import type { AggFunction } from './agg-function.ts';

/** The variance and standard-deviation functions. */
export type VarianceName = 'VAR_POP' | 'VAR_SAMP' | 'STDDEV_POP' | 'STDDEV_SAMP';

/** Count, sum and sum of squares of the non-null values still accumulated. */
export interface VarianceAccumulator {
  count: number;
  sum: number;
  sumSquares: number;
}

/** `fn(x)` for an integer, FLOAT or DOUBLE argument; see {@link decimalVarianceFunction} for DECIMAL. */
export function varianceFunction(fn: VarianceName, argType: LogicalType): AggFunction<VarianceAccumulator> {
  const sample = fn === 'VAR_SAMP' || fn === 'STDDEV_SAMP';
  const root = fn === 'STDDEV_POP' || fn === 'STDDEV_SAMP';
  const integral = argType.root !== 'DOUBLE' && argType.root !== 'FLOAT';
  return {
    createAccumulator: () => ({ count: 0, sum: 0, sumSquares: 0 }),
    accumulate(acc, value: Value) {
      if (value === null) return;
      const x = value as number;
      acc.count++;
      acc.sum += x;
      acc.sumSquares += x * x;
    },
    retract(acc, value: Value) {
      if (value === null) return;
      const x = value as number;
      acc.count--;
      acc.sum -= x;
      acc.sumSquares -= x * x;
    },
    getValue(acc) {
      if (acc.count <= 0 || (sample && acc.count === 1)) return null;
      const variance = (acc.sumSquares - (acc.sum * acc.sum) / acc.count) / (sample ? acc.count - 1 : acc.count);
      const result = root ? Math.sqrt(variance) : variance;
      return integral ? Math.trunc(result) : argType.root === 'FLOAT' ? Math.fround(result) : result;
    },
  };
}

/** The accumulator over DECIMAL: the count, the sum of x and the sum of the rounded squares, unscaled. */
export interface DecimalVarianceAccumulator {
  count: number;
  /** SUM(x), at the argument's scale. */
  sum: bigint;
  /** SUM(CAST(x AS result type) * CAST(x AS result type)), at that product's scale. */
  sumSquares: bigint;
}

/** The DECIMAL type Flink's type rules give `op` of two DECIMAL types (precision and scale). */
function decimalResult(op: '*' | '-' | '/', a: { precision: number; scale: number }, b: { precision: number; scale: number }): { precision: number; scale: number } {
  const t = arithmeticType(op, { root: 'DECIMAL', nullable: false, ...a }, { root: 'DECIMAL', nullable: false, ...b })!;
  return decimalShape(t);
}

/**
 * `fn(x)` for a DECIMAL(p, s) argument, with Flink's DECIMAL result and exact decimal arithmetic.
 * Flink (Calcite's AggregateReduceFunctionsRule) rewrites it over the result type R =
 * DECIMAL(38, max(6, s)) — the AVG type — as
 *
 *     (SUM(xr * xr) - SUM(x)r * SUM(x)r / COUNT(x)) / COUNT(x)          (VAR_POP)
 *
 * (`/ (COUNT(x) - 1)`, NULL for one value, for the sample forms; `xr` is x cast to R), each
 * product and quotient rounded HALF_UP to the scale of its DECIMAL type (Flink's
 * DecimalDataUtils; at most 38 digits, a larger value is NULL as Flink's overflow is). The
 * standard deviations are `POWER(variance, 0.5)` in DOUBLE, cast back to R.
 */
export function decimalVarianceFunction(fn: VarianceName, argType: LogicalType): AggFunction<DecimalVarianceAccumulator> {
  const sample = fn === 'VAR_SAMP' || fn === 'STDDEV_SAMP';
  const root = fn === 'STDDEV_POP' || fn === 'STDDEV_SAMP';
  const argScale = argType.scale ?? 0;
  const result = { precision: MAX_DECIMAL_PRECISION, scale: Math.max(6, argScale) };
  const count = { precision: 19, scale: 0 };
  // The types of Flink's rewritten expression, step by step.
  const square = decimalResult('*', result, result);
  const sumSquare = { precision: MAX_DECIMAL_PRECISION, scale: square.scale };
  const sumSquared = decimalResult('*', result, result);
  const mean = decimalResult('/', sumSquared, count);
  const difference = decimalResult('-', sumSquare, mean);
  const variance = decimalResult('/', difference, count);
  /** Rounds to a type's scale; undefined when the precision overflows (Flink's NULL). */
  const fit = (unscaled: bigint, fromScale: number, to: { precision: number; scale: number }): bigint | undefined => {
    const v = rescaleDecimal(unscaled, fromScale, to.scale);
    return fitsPrecision(v, to.precision) ? v : undefined;
  };
  /** `a` (at `aScale`) divided by the count `n`, rounded once to a type's scale. */
  const quotient = (a: bigint, aScale: number, n: bigint, to: { precision: number; scale: number }): bigint | undefined => {
    const q = to.scale >= aScale ? divideDecimal(a, n, to.scale - aScale) : divideDecimal(a, n * pow10(aScale - to.scale), 0);
    return fitsPrecision(q, to.precision) ? q : undefined;
  };
  const squareOf = (x: bigint): bigint => {
    const xr = rescaleDecimal(x, argScale, result.scale);
    // An overflowing square makes Flink's product NULL, which SUM then skips.
    return fit(xr * xr, 2 * result.scale, square) ?? 0n;
  };
  return {
    createAccumulator: () => ({ count: 0, sum: 0n, sumSquares: 0n }),
    accumulate(acc, value: Value) {
      if (value === null) return;
      const x = value as bigint;
      acc.count++;
      acc.sum += x;
      acc.sumSquares += squareOf(x);
    },
    retract(acc, value: Value) {
      if (value === null) return;
      const x = value as bigint;
      acc.count--;
      acc.sum -= x;
      acc.sumSquares -= squareOf(x);
    },
    getValue(acc) {
      if (acc.count <= 0 || (sample && acc.count === 1)) return null;
      const n = BigInt(acc.count);
      const sumR = rescaleDecimal(acc.sum, argScale, result.scale);
      const sumSquaredR = fit(sumR * sumR, 2 * result.scale, sumSquared);
      if (sumSquaredR === undefined) return null;
      const meanSquare = quotient(sumSquaredR, sumSquared.scale, n, mean);
      if (meanSquare === undefined) return null;
      const common = Math.max(sumSquare.scale, mean.scale);
      const diff = fit(rescaleDecimal(acc.sumSquares, sumSquare.scale, common) - rescaleDecimal(meanSquare, mean.scale, common), common, difference);
      if (diff === undefined) return null;
      const v = quotient(diff, difference.scale, sample ? n - 1n : n, variance);
      if (v === undefined) return null;
      if (!root) return fit(v, variance.scale, result) ?? null;
      const sd = Math.pow(Number(formatDecimal(v, variance.scale)), 0.5);
      if (!Number.isFinite(sd)) return null;
      const cast = tryParseDecimal(sd, result.precision, result.scale);
      return typeof cast === 'bigint' ? cast : null;
    },
  };
}
