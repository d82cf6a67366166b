/**
 * COUNT(*) and COUNT(x) with retraction.
 */
import type { Value } from '../../core/types.ts';
import type { AggFunction } from './agg-function.ts';

/** Accumulator of COUNT: the number of counted rows (may go negative on out-of-order retractions). */
export interface CountAccumulator {
  count: number;
}

/**
 * COUNT(*): counts every row, null or not (Flink's `Count1AggFunction`: `count + 1` on accumulate,
 * `count - 1` on retract).
 */
export const countStarFunction: AggFunction<CountAccumulator> = {
  createAccumulator: () => ({ count: 0 }),
  accumulate(acc) {
    acc.count++;
  },
  retract(acc) {
    acc.count--;
  },
  getValue: (acc) => acc.count,
};

/**
 * COUNT(x): counts rows whose argument is not NULL (Flink's `CountAggFunction`, which wraps both
 * updates in `ifThenElse(isNull(operand), count, …)`).
 */
export const countFunction: AggFunction<CountAccumulator> = {
  createAccumulator: () => ({ count: 0 }),
  accumulate(acc, value: Value) {
    if (value !== null) acc.count++;
  },
  retract(acc, value: Value) {
    if (value !== null) acc.count--;
  },
  getValue: (acc) => acc.count,
};
