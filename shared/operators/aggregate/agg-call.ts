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

/** The constants some aggregate functions take besides their argument. */
export interface AggOptions {
  /** LISTAGG's separator (its constant second argument); `,` when absent. */
  readonly separator?: string;
  /**
   * What ARRAY_AGG, JSON_ARRAYAGG and JSON_OBJECTAGG do with a NULL value: keep it (`NULL`: NULL
   * ON NULL, RESPECT NULLS) or leave it out (`ABSENT`: ABSENT ON NULL, IGNORE NULLS). The
   * default is Flink's: `NULL` but for JSON_ARRAYAGG.
   */
  readonly onNull?: 'NULL' | 'ABSENT';
  /** PERCENTILE's percentage in [0, 1], or several: then the result is an ARRAY<DOUBLE>. */
  readonly percentages?: number | readonly number[];
}

/**
 * One aggregate call, e.g. `SUM(DISTINCT price) FILTER (WHERE $f3) AS total`. As in Flink's plan,
 * arguments and the FILTER predicate are input columns: the planner projects the predicate into a
 * BOOLEAN column first.
 */
export interface AggCallSpec extends AggOptions {
  readonly fn: AggFunctionName;
  /** Input column; absent for COUNT(*) (and a user aggregate of no argument). */
  readonly arg?: string;
  /** A user aggregate's second and later argument columns (Flink's `accumulate(acc, a, b, …)`). */
  readonly extraArgs?: readonly string[];
  readonly distinct: boolean;
  /** For `fn: 'USER'`: the function's registry reference, name and declared result type. */
  readonly user?: UserAggregateRef;
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
  return `${aggCallName(call)}(${distinct}${arg}${aggOptionsText(call)})${filter} AS ${call.name}`;
}

/** The function's name as Flink prints it: JSON_ARRAYAGG and JSON_OBJECTAGG carry their ON NULL behaviour (`JSON_ARRAYAGG_ABSENT_ON_NULL`). */
export function aggCallName(call: AggCallSpec): string {
  if (call.fn === 'JSON_ARRAYAGG' || call.fn === 'JSON_OBJECTAGG') return `${call.fn}_${defaultOnNull(call)}_ON_NULL`;
  return call.user?.name ?? call.fn;
}

/** The constants after the argument: `, ';'` (LISTAGG), `, 0.5` (PERCENTILE), ` IGNORE NULLS` (ARRAY_AGG). */
export function aggOptionsText(call: AggCallSpec): string {
  if (call.separator !== undefined) return `, '${call.separator}'`;
  if (call.percentages !== undefined) return `, ${typeof call.percentages === 'number' ? call.percentages : `[${call.percentages.join(', ')}]`}`;
  if (call.fn === 'ARRAY_AGG' && call.onNull === 'ABSENT') return ' IGNORE NULLS';
  return '';
}

/** The ON NULL behaviour of a call: Flink's default is NULL ON NULL, but ABSENT ON NULL for JSON_ARRAYAGG. */
export function defaultOnNull(call: AggCallSpec): 'NULL' | 'ABSENT' {
  return call.onNull ?? (call.fn === 'JSON_ARRAYAGG' ? 'ABSENT' : 'NULL');
}
