/**
 * SUM with retraction (Flink's `SumWithRetractAggFunction` family).
 */
import { fitsPrecision } from '../../core/decimal.ts';
import { MAX_DECIMAL_PRECISION } from '../../core/type-parse.ts';
import type { LogicalType, Value } from '../../core/types.ts';
import type { AggFunction } from './agg-function.ts';
import { sumArithmetic } from './numeric.ts';

/** Accumulator of SUM and AVG: the running sum and the number of non-null values in it. */
export interface SumAccumulator {
  sum: number | bigint;
  count: number;
}

/**
 * SUM(x) over an INT, BIGINT, DOUBLE or DECIMAL argument (validated by `aggResultType`).
 *
 * Flink's `SumWithRetractAggFunction` keeps a count next to the sum and returns NULL when the count
 * is 0, so a group whose non-null values have all been retracted yields NULL again rather than 0.
 * NULL arguments are skipped. A DECIMAL sum is DECIMAL(38, s); a sum outside that range is NULL,
 * as Flink's decimal arithmetic returns NULL on precision overflow.
 */
export function sumFunction(argType: LogicalType): AggFunction<SumAccumulator> {
  const arith = sumArithmetic(argType);
  const decimal = argType.root === 'DECIMAL';
  return {
    createAccumulator: () => ({ sum: arith.zero, count: 0 }),
    accumulate(acc, value: Value) {
      if (value === null) return;
      acc.sum = arith.add(acc.sum, value as number | bigint);
      acc.count++;
    },
    retract(acc, value: Value) {
      if (value === null) return;
      acc.sum = arith.sub(acc.sum, value as number | bigint);
      acc.count--;
    },
    getValue(acc) {
      if (acc.count === 0) return null;
      if (decimal && !fitsPrecision(acc.sum as bigint, MAX_DECIMAL_PRECISION)) return null;
      return acc.sum;
    },
  };
}
