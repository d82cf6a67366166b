/**
 * AVG with retraction (Flink's `AvgAggFunction` family: a sum and a count, divided on read).
 */
import { divideDecimal, fitsPrecision } from '../../core/decimal.ts';
import { MAX_DECIMAL_PRECISION } from '../../core/type-parse.ts';
import type { LogicalType, Value } from '../../core/types.ts';
import type { AggFunction } from './agg-function.ts';
import { avgArithmetic } from './numeric.ts';
import { aggResultType } from './result-type.ts';
import type { SumAccumulator } from './sum.ts';

/**
 * AVG(x) over an INT, BIGINT, DOUBLE or DECIMAL argument; NULL when no non-null value is left.
 *
 * - INT/BIGINT: Flink's `IntegralAvgAggFunction` sums in BIGINT and casts `sum / count` back to
 *   the argument type with Java's long division, which truncates toward zero (AVG(1, 2) = 1).
 * - DOUBLE: `sum / count`.
 * - DECIMAL(p, s): Flink's `DecimalAvgAggFunction` divides the DECIMAL(38, s) sum by the count into
 *   DECIMAL(38, max(6, s)), rounding HALF_UP; NULL if the quotient overflows the precision.
 */
export function avgFunction(argType: LogicalType): AggFunction<SumAccumulator> {
  const arith = avgArithmetic(argType);
  const getValue = avgValue(argType);
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
    getValue: (acc) => (acc.count === 0 ? null : getValue(acc.sum, acc.count)),
  };
}

/** The division for a non-empty accumulator, chosen once per argument type. */
function avgValue(argType: LogicalType): (sum: number | bigint, count: number) => Value {
  switch (argType.root) {
    case 'DECIMAL': {
      const resultScale = aggResultType('AVG', argType).scale ?? 0;
      const extraDigits = resultScale - (argType.scale ?? 0);
      return (sum, count) => {
        const avg = divideDecimal(sum as bigint, BigInt(count), extraDigits);
        return fitsPrecision(avg, MAX_DECIMAL_PRECISION) ? avg : null;
      };
    }
    case 'DOUBLE':
      return (sum, count) => (sum as number) / count;
    case 'FLOAT':
      return (sum, count) => Math.fround((sum as number) / count);
    default:
      // Exact truncating division; a float quotient could round up across an integer.
      return (sum, count) => Number(BigInt(sum as number) / BigInt(count));
  }
}
