/**
 * The contract of one built-in aggregate function with retraction (Flink's
 * `AggregateFunction` with `accumulate`/`retract`/`getValue`, or the declarative equivalents).
 *
 * Accumulators are plain, mutable data — numbers, bigints, arrays and plain objects, never class
 * instances or Maps — so that a group's accumulators can be `structuredClone`d into a snapshot
 * and written to DynamoDB as they are.
 */
import type { Value } from '../../core/types.ts';

/** The aggregate functions Flambda supports. */
export type AggFunctionName =
  | 'COUNT'
  | 'SUM'
  | 'MIN'
  | 'MAX'
  | 'AVG'
  | 'LISTAGG'
  | 'FIRST_VALUE'
  | 'LAST_VALUE'
  | 'VAR_POP'
  | 'VAR_SAMP'
  | 'STDDEV_POP'
  | 'STDDEV_SAMP'
  | 'COLLECT'
  | 'ARRAY_AGG'
  | 'JSON_ARRAYAGG'
  | 'JSON_OBJECTAGG'
  | 'PERCENTILE'
  /** The value of a group's one row; a second row is a data error (scalar subqueries). */
  | 'SINGLE_VALUE'
  /** A TypeScript aggregate function, by its registry reference (AggCallSpec.user). */
  | 'USER';

/** An aggregate function over one argument (ignored by COUNT(*)), with retraction. */
export interface AggFunction<A> {
  /** A fresh accumulator: the state of an empty group. */
  createAccumulator(): A;
  /** Adds a value (`+I`/`+U` input) to the accumulator, in place. */
  accumulate(acc: A, value: Value): void;
  /**
   * Throws the RecordError {@link accumulate} would raise for this value (JSON_OBJECTAGG's
   * duplicate key, SINGLE_VALUE's second row), without changing anything: the handler checks every call of a row before
   * accumulating any, so a rejected row leaves the group's state as it was (operator.ts).
   */
  check?(acc: A, value: Value): void;
  /** Removes a value (`-U`/`-D` input) from the accumulator, in place. */
  retract(acc: A, value: Value): void;
  /** The current result; never mutates the accumulator. */
  getValue(acc: A): Value;
}
