/**
 * VAR_POP, VAR_SAMP (VARIANCE), STDDEV_POP and STDDEV_SAMP (STDDEV) with retraction. Flink
 * rewrites them (Calcite's AggregateReduceFunctionsRule) into SUM(x * x), SUM(x) and COUNT(x)
 * and computes, in DOUBLE, `(SUM(x²) − SUM(x)² / COUNT(x)) / COUNT(x)` (`/ (COUNT(x) − 1)` for the
 * sample forms, NULL for a single value), the standard deviations the square root of that, cast
 * back to the argument type: an INT argument gives an INT (truncated), as in Flink.
 */
import type { LogicalType, Value } from '../../core/types.ts';
import type { AggFunction } from './agg-function.ts';

/** The variance and standard-deviation functions. */
export type VarianceName = 'VAR_POP' | 'VAR_SAMP' | 'STDDEV_POP' | 'STDDEV_SAMP';

/** Count, sum and sum of squares of the non-null values still accumulated. */
export interface VarianceAccumulator {
  count: number;
  sum: number;
  sumSquares: number;
}

/** `fn(x)` for an INT, BIGINT or DOUBLE argument. */
export function varianceFunction(fn: VarianceName, argType: LogicalType): AggFunction<VarianceAccumulator> {
  const sample = fn === 'VAR_SAMP' || fn === 'STDDEV_SAMP';
  const root = fn === 'STDDEV_POP' || fn === 'STDDEV_SAMP';
  const integral = argType.root !== 'DOUBLE';
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
      return integral ? Math.trunc(result) : result;
    },
  };
}
