/**
 * The plain-data description of one aggregate call, as it travels in the JSON job graph.
 */
import type { LogicalType } from '../../core/types.ts';
import type { UdfSignature } from '../../plan/udf-signature.ts';
import type { AggFunctionName } from './agg-function.ts';

/** A user aggregate function in the pipeline module's registry. */
export interface UserAggregateRef {
  readonly ref: string;
  readonly name: string;
  readonly resultType: LogicalType;
  /** Its declared parameter types, one signature per overload; absent: none declared. */
  readonly input?: readonly UdfSignature[];
}

/**
 * One aggregate call, e.g. `SUM(DISTINCT price) FILTER (WHERE $f3) AS total`. As in Flink's plan,
 * arguments and the FILTER predicate are input columns: the planner projects the predicate into a
 * BOOLEAN column first.
 */
export interface AggCallSpec {
  readonly fn: AggFunctionName;
  /** Input column; absent for COUNT(*) (and a user aggregate of no argument). */
  readonly arg?: string;
  /** A user aggregate's second and later argument columns (Flink's `accumulate(acc, a, b, …)`). */
  readonly extraArgs?: readonly string[];
  readonly distinct: boolean;
  /** For `fn: 'USER'`: the function's registry reference, name and declared result type. */
  readonly user?: UserAggregateRef;
  /** LISTAGG's separator (its constant second argument); `,` when absent. */
  readonly separator?: string;
  /** BOOLEAN input column; the row contributes to this call only when it is TRUE. */
  readonly filterField?: string;
  /** Output column. */
  readonly name: string;
}

/** Prints a call the way Flink's EXPLAIN does, e.g. `COUNT(DISTINCT user) FILTER $f3 AS users`. */
export function formatAggCall(call: AggCallSpec): string {
  const arg = call.arg === undefined ? (call.user ? '' : '*') : [call.arg, ...(call.extraArgs ?? [])].join(', ');
  const distinct = call.distinct ? 'DISTINCT ' : '';
  const filter = call.filterField === undefined ? '' : ` FILTER ${call.filterField}`;
  const separator = call.separator === undefined ? '' : `, '${call.separator}'`;
  return `${call.user?.name ?? call.fn}(${distinct}${arg}${separator})${filter} AS ${call.name}`;
}
