/**
 * Aggregate call builders for `stream.groupBy(…).aggregate({…})`:
 * `count()`, `count('x')`, `countDistinct('x')`, `sum('x')`, `min`, `max`, `avg`, `listagg`,
 * `firstValue`, `lastValue`, `singleValue`, `variance('STDDEV_POP', 'x')`, each with an
 * optional `filter` (SQL `FILTER (WHERE …)`) given as an expression.
 */
import type { AggOptions, UserAggregateRef } from '../operators/aggregate/agg-call.ts';
import type { AggFunctionName } from '../operators/aggregate/agg-function.ts';
import type { Expr } from '../plan/expr.ts';

/** An aggregate call as declared in the API; the planner turns arguments into columns. */
export interface AggregateSpec<Result = unknown> extends AggOptions {
  readonly fn: AggFunctionName;
  readonly arg?: string | Expr;
  /** A user aggregate's second and later arguments. */
  readonly extraArgs?: readonly (string | Expr)[];
  readonly distinct: boolean;
  /** For `fn: 'USER'`: the registered aggregate function. */
  readonly user?: UserAggregateRef;
  readonly filter?: Expr;
  /** Phantom field carrying the TypeScript result type. */
  readonly __result?: Result;
}

/** Options every aggregate accepts. */
export interface AggregateOptions {
  /** Only rows for which this predicate is TRUE contribute (SQL `FILTER (WHERE …)`). */
  readonly filter?: Expr;
}

/** `COUNT(*)`, or `COUNT(arg)` (non-null values) when an argument is given. */
export function count(arg?: string | Expr, options: AggregateOptions = {}): AggregateSpec<number> {
  return { fn: 'COUNT', ...(arg !== undefined ? { arg } : {}), distinct: false, ...filterOf(options) };
}

/** `COUNT(*) FILTER (WHERE …)`. */
export function countWhere(filter: Expr): AggregateSpec<number> {
  return { fn: 'COUNT', distinct: false, filter };
}

/** `COUNT(DISTINCT arg)`. */
export function countDistinct(arg: string | Expr, options: AggregateOptions = {}): AggregateSpec<number> {
  return { fn: 'COUNT', arg, distinct: true, ...filterOf(options) };
}

/** `SUM(arg)`; NULL when no non-null value contributes. */
export function sum(arg: string | Expr, options: AggregateOptions & { distinct?: boolean } = {}): AggregateSpec<number | bigint | null> {
  return { fn: 'SUM', arg, distinct: options.distinct ?? false, ...filterOf(options) };
}

/** `MIN(arg)`, correct under retraction. */
export function min(arg: string | Expr, options: AggregateOptions = {}): AggregateSpec {
  return { fn: 'MIN', arg, distinct: false, ...filterOf(options) };
}

/** `MAX(arg)`, correct under retraction. */
export function max(arg: string | Expr, options: AggregateOptions = {}): AggregateSpec {
  return { fn: 'MAX', arg, distinct: false, ...filterOf(options) };
}

/** `AVG(arg)` with Flink's result types (integer inputs give a truncated integer). */
export function avg(arg: string | Expr, options: AggregateOptions = {}): AggregateSpec<number | bigint | null> {
  return { fn: 'AVG', arg, distinct: false, ...filterOf(options) };
}

/** `LISTAGG(arg [, separator])`: the non-null values in arrival order, joined (`,` by default). */
export function listagg(arg: string | Expr, separator?: string, options: AggregateOptions = {}): AggregateSpec<string | null> {
  return { fn: 'LISTAGG', arg, distinct: false, ...(separator !== undefined ? { separator } : {}), ...filterOf(options) };
}

/** `FIRST_VALUE(arg)`: the earliest non-null value still in the group. */
export function firstValue(arg: string | Expr, options: AggregateOptions = {}): AggregateSpec {
  return { fn: 'FIRST_VALUE', arg, distinct: false, ...filterOf(options) };
}

/** `LAST_VALUE(arg)`: the latest non-null value still in the group. */
export function lastValue(arg: string | Expr, options: AggregateOptions = {}): AggregateSpec {
  return { fn: 'LAST_VALUE', arg, distinct: false, ...filterOf(options) };
}

/**
 * `SINGLE_VALUE(arg)`: the value of the group's one row, NULL while it has none; a second row is
 * a data error (Flink's SingleValueAggFunction, which the SQL planner puts over a scalar subquery
 * that may return more than one row).
 */
export function singleValue(arg: string | Expr): AggregateSpec {
  return { fn: 'SINGLE_VALUE', arg, distinct: false };
}

/**
 * `VAR_POP`, `VAR_SAMP`, `STDDEV_POP`, `STDDEV_SAMP` of an INT, BIGINT or DOUBLE argument, in
 * the argument's type as Flink gives them (the `_SAMP` forms are NULL for a single value).
 */
export function variance(fn: 'VAR_POP' | 'VAR_SAMP' | 'STDDEV_POP' | 'STDDEV_SAMP', arg: string | Expr, options: AggregateOptions = {}): AggregateSpec<number | null> {
  return { fn, arg, distinct: false, ...filterOf(options) };
}

function filterOf(options: AggregateOptions): { filter?: Expr } {
  return options.filter ? { filter: options.filter } : {};
}
