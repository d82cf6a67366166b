/**
 * The plain-data description of one aggregate call, as it travels in the JSON job graph.
 */
import type { AggFunctionName } from './agg-function.ts';

/**
 * One aggregate call, e.g. `SUM(DISTINCT price) FILTER (WHERE $f3) AS total`. As in Flink's plan,
 * arguments and the FILTER predicate are input columns: the planner projects the predicate into a
 * BOOLEAN column first.
 */
export interface AggCallSpec {
  readonly fn: AggFunctionName;
  /** Input column; absent for COUNT(*). */
  readonly arg?: string;
  readonly distinct: boolean;
  /** LISTAGG's separator (its constant second argument); `,` when absent. */
  readonly separator?: string;
  /** BOOLEAN input column; the row contributes to this call only when it is TRUE. */
  readonly filterField?: string;
  /** Output column. */
  readonly name: string;
}

/** Prints a call the way Flink's EXPLAIN does, e.g. `COUNT(DISTINCT user) FILTER $f3 AS users`. */
export function formatAggCall(call: AggCallSpec): string {
  const arg = call.arg === undefined ? '*' : call.arg;
  const distinct = call.distinct ? 'DISTINCT ' : '';
  const filter = call.filterField === undefined ? '' : ` FILTER ${call.filterField}`;
  const separator = call.separator === undefined ? '' : `, '${call.separator}'`;
  return `${call.fn}(${distinct}${arg}${separator})${filter} AS ${call.name}`;
}
