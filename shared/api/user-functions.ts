/**
 * TypeScript user functions for SQL (`CREATE FUNCTION name AS 'module.ts#export'`) and the API
 * (`pipeline.function(name, fn)`): a scalar function is a plain function of SQL values with its
 * declared result type, since TypeScript types are gone at run time (Flink reads the Java
 * signature instead).
 *
 * ```ts
 * export const countChar = scalarFunction('BIGINT', (s, c) => (s === null || c === null ? null : s.split(c).length - 1));
 * ```
 */
import { PlanError } from '../core/errors.ts';
import { parseType } from '../core/type-parse.ts';
import type { LogicalType, Value } from '../core/types.ts';
import type { Expr, Literal } from '../plan/expr.ts';

/** A scalar user function: SQL values in, one SQL value out; its result type is declared. */
export interface ScalarFunction {
  readonly kind: 'scalar';
  readonly resultType: LogicalType;
  readonly eval: (...args: Value[]) => Value;
  readonly name: string;
}

/**
 * Declares a scalar function with its SQL result type (`'BIGINT'`, `'STRING'`, `'DECIMAL(10, 2)'`).
 *
 * @throws PlanError for an unreadable type.
 */
export function scalarFunction(resultType: string, fn: (...args: never[]) => Value): ScalarFunction {
  let type: LogicalType;
  try {
    type = { ...parseType(resultType), nullable: true };
  } catch (e) {
    throw new PlanError(`scalarFunction: cannot read the result type '${resultType}': ${(e as Error).message}`, { cause: e });
  }
  return { kind: 'scalar', resultType: type, eval: fn as (...args: Value[]) => Value, name: fn.name || 'function' };
}

/** Whether `value` was made by {@link scalarFunction}. */
export function isScalarFunction(value: unknown): value is ScalarFunction {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'scalar' && typeof (value as { eval?: unknown }).eval === 'function';
}

/** A row a table function gives: values by column name, or in column order. */
export type TableFunctionRow = Readonly<Record<string, Value>> | readonly Value[];

/**
 * A table user function: SQL values in, zero or more rows out (Flink's `TableFunction`, whose
 * `collect` calls are the values of the returned iterable); its columns are declared.
 */
export interface TableFunction {
  readonly kind: 'table';
  readonly columns: readonly { readonly name: string; readonly type: LogicalType }[];
  readonly eval: (...args: Value[]) => Iterable<TableFunctionRow> | null | undefined;
  readonly name: string;
}

/**
 * Declares a table function with its columns (`{ word: 'STRING', length: 'INT' }`), for
 * `LATERAL TABLE(fn(x))` in SQL and `stream.joinLateral(…)` in the API. `fn` returns an
 * iterable of rows (a generator works): objects by column name or arrays in column order.
 *
 * ```ts
 * export const splitWords = tableFunction({ word: 'STRING', len: 'INT' }, function* (line) {
 *   for (const w of String(line ?? '').split(' ')) if (w) yield { word: w, len: w.length };
 * });
 * ```
 *
 * @throws PlanError for an unreadable type or no columns.
 */
export function tableFunction(columns: Readonly<Record<string, string>>, fn: (...args: never[]) => Iterable<TableFunctionRow> | null | undefined): TableFunction {
  const fields = Object.entries(columns).map(([name, text]) => {
    try {
      return { name, type: { ...parseType(text), nullable: true } };
    } catch (e) {
      throw new PlanError(`tableFunction: cannot read the type '${text}' of column '${name}': ${(e as Error).message}`, { cause: e });
    }
  });
  if (fields.length === 0) throw new PlanError('tableFunction: declare at least one column');
  return { kind: 'table', columns: fields, eval: fn as TableFunction['eval'], name: fn.name || 'function' };
}

/** Whether `value` was made by {@link tableFunction}. */
export function isTableFunction(value: unknown): value is TableFunction {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'table' && typeof (value as { eval?: unknown }).eval === 'function';
}

/** A function `CREATE FUNCTION` or `pipeline.function(…)` can name. */
export type UserFunctionDefinition = ScalarFunction | TableFunction | AggregateFunction;

/** Options of an aggregate user function's call from the API (`pipeline.function(name, fn)`). */
export interface UserAggregateOptions {
  /** Only rows for which this predicate is TRUE contribute (SQL `FILTER (WHERE …)`). */
  readonly filter?: Expr;
  /** Each distinct argument value once (SQL `f(DISTINCT x)`; one argument only). */
  readonly distinct?: boolean;
}

/** An argument of a function called from the API: an input column by name, or a literal. */
export type FunctionArgument = string | Literal;

/** A table function applied to arguments, for `stream.joinLateral(call)`. */
export interface TableFunctionCall {
  readonly fn: TableFunction;
  readonly name: string;
  readonly args: readonly FunctionArgument[];
}

/** The values of one table-function row, in column order. */
export function tableFunctionValues(fn: TableFunction, row: TableFunctionRow): Value[] {
  if (Array.isArray(row)) return fn.columns.map((_, i) => (row as readonly Value[])[i] ?? null);
  const named = row as Readonly<Record<string, Value>>;
  return fn.columns.map((c) => named[c.name] ?? null);
}

/**
 * An aggregate user function (Flink's `AggregateFunction`): the accumulator is changed in place
 * by `accumulate` and, for updating inputs, `retract`; `merge` adds another accumulator into it;
 * `getValue` reads the result. The accumulator must be a plain JSON value — numbers, strings,
 * booleans, null, arrays and plain objects, no class instances, Maps, Dates or bigints — since
 * the AWS runtime keeps it in DynamoDB state (and its changelog) as JSON and reads it back
 * between invocations: what does not survive `JSON.parse(JSON.stringify(acc))` is lost there.
 */
export interface AggregateFunction<A = unknown> {
  readonly kind: 'aggregate';
  readonly resultType: LogicalType;
  readonly name: string;
  createAccumulator(): A;
  /** Adds one input row's argument values (one per argument of the call, in order). */
  accumulate(acc: A, ...values: Value[]): void;
  /** Absent: the function cannot aggregate an updating input (a retraction is an error). */
  retract?(acc: A, ...values: Value[]): void;
  /**
   * Adds the accumulator `other` into `acc`, in place, leaving `other` unchanged. As in Flink,
   * required for SESSION windows and for HOP and CUMULATE windows (whose slices are merged);
   * TUMBLE windows and GROUP BY aggregation do without.
   */
  merge?(acc: A, other: A): void;
  getValue(acc: A): Value;
}

/**
 * Declares an aggregate function with its SQL result type, for `CREATE FUNCTION` (then
 * `my_avg(x)`, `my_fn(a, b)`, `my_fn(DISTINCT x)`, `… FILTER (WHERE …)` in GROUP BY and window
 * aggregation) and the API (`pipeline.function(name, fn)`). The accumulator is a plain JSON
 * value (see {@link AggregateFunction}).
 *
 * ```ts
 * export const weightedAvg = aggregateFunction('DOUBLE', {
 *   createAccumulator: () => ({ sum: 0, count: 0 }),
 *   accumulate(acc, v) { if (v !== null) { acc.sum += v as number; acc.count++; } },
 *   retract(acc, v) { if (v !== null) { acc.sum -= v as number; acc.count--; } },
 *   getValue: (acc) => (acc.count === 0 ? null : acc.sum / acc.count),
 * });
 * ```
 *
 * @throws PlanError for an unreadable type.
 */
export function aggregateFunction<A>(resultType: string, impl: Omit<AggregateFunction<A>, 'kind' | 'resultType' | 'name'> & { readonly name?: string }): AggregateFunction<A> {
  let type: LogicalType;
  try {
    type = { ...parseType(resultType), nullable: true };
  } catch (e) {
    throw new PlanError(`aggregateFunction: cannot read the result type '${resultType}': ${(e as Error).message}`, { cause: e });
  }
  return { ...impl, kind: 'aggregate', resultType: type, name: impl.name ?? 'aggregate' };
}

/**
 * Flink's contract for an AggregateFunction in window aggregation: SESSION windows merge
 * windows and HOP / CUMULATE windows merge slices, both through `merge`, so those windows need
 * it (TUMBLE windows, and GROUP BY, do not). The error for a function without it, or undefined.
 */
export function missingMergeError(name: string, fn: unknown, windowType: string): string | undefined {
  if (windowType === 'TUMBLE' || typeof (fn as { merge?: unknown } | undefined)?.merge === 'function') return undefined;
  const what = windowType === 'SESSION' ? 'of merged sessions' : 'of the slices of a window';
  return `the aggregate user function ${name.toUpperCase()} has no merge method: as in Flink, a ${windowType} window aggregation merges accumulators (${what}), so declare merge(acc, other) in its aggregateFunction(…) (TUMBLE windows and GROUP BY do without)`;
}

/** Whether `value` was made by {@link aggregateFunction}. */
export function isAggregateFunction(value: unknown): value is AggregateFunction {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'aggregate' && typeof (value as { accumulate?: unknown }).accumulate === 'function';
}
