/**
 * SINGLE_VALUE with retraction: Flink's `SingleValueAggFunction`, the aggregate its planner
 * (Calcite's SubQueryRemoveRule) puts over a scalar subquery that may return more than one row,
 * e.g. `WHERE x > (SELECT y FROM t WHERE t.k = s.k)`.
 *
 * The accumulator holds the one value and a count of the rows accumulated minus retracted.
 * Accumulating while it already holds a row is a data error, as in Flink, where
 * `SingleValueAggFunction received more than one element.` fails the job: here it is a
 * {@link RecordError} of the second row, so the error policy decides (`dead-letter`, the
 * default, sets that row aside and the subquery keeps its one value; `fail` stops the job as
 * Flink does). A retraction empties the accumulator (Flink's retract: `count == 1 || count == 0 ?
 * null : exception`); the group aggregate deletes the group when its last row is retracted.
 */
import { RecordError } from '../../core/errors.ts';
import type { Value } from '../../core/types.ts';
import type { AggFunction } from './agg-function.ts';

/** Accumulator of SINGLE_VALUE: the value and the rows accumulated minus retracted. */
export interface SingleValueAccumulator {
  value: Value;
  count: number;
}

/** Flink's message for a second row (`SingleValueAggFunction.ERROR_MSG`). */
export const FLINK_SINGLE_VALUE_MESSAGE = 'SingleValueAggFunction received more than one element.';

/**
 * SINGLE_VALUE(x): the value of the group's one row (NULL while it has none).
 *
 * @param call How the call reads (`SINGLE_VALUE(y) AS $f0`), named in the error.
 */
export function singleValueFunction(call = 'SINGLE_VALUE'): AggFunction<SingleValueAccumulator> {
  return {
    createAccumulator: () => ({ value: null, count: 0 }),
    check(acc) {
      if (acc.count > 0) {
        throw new RecordError(`more than one row returned by a subquery used as an expression: ${call} already holds a row (Flink fails with "${FLINK_SINGLE_VALUE_MESSAGE}")`);
      }
    },
    accumulate(acc, value) {
      this.check!(acc, value);
      acc.value = value;
      acc.count++;
    },
    retract(acc) {
      acc.value = null;
      acc.count--;
    },
    getValue: (acc) => (acc.count > 0 ? acc.value : null),
  };
}
