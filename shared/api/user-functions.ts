/**
 * TypeScript user functions for SQL (`CREATE FUNCTION name AS 'module.ts#export'`) and the API
 * (`pipeline.function(name, fn)`): a scalar function is a plain function of SQL values with its
 * declared result type, since TypeScript types are gone at run time (Flink reads the Java
 * signature instead).
 *
 * ```ts
 * export const countChar = scalarFunction('BIGINT', (s: string | null, c: string | null) => (s === null || c === null ? null : s.split(c).length - 1));
 * ```
 *
 * Its parameter types may be declared too — what Flink reads from `eval`'s signature — as one
 * signature or several (Flink's overloaded `eval` methods), the last type of one ending in `...`
 * for varargs (Java's `Double... d`). A call takes the first signature its arguments fit
 * exactly, else the first they cast to implicitly (INT → BIGINT, any number → DECIMAL or
 * DOUBLE, …, as Flink casts a DECIMAL into `eval(Double... d)`); a call no signature takes is a
 * planning error naming the function, the argument and both types.
 *
 * ```ts
 * // Flink's SumFunction: sum_of(1, 2) is 3, sum_of('10', '20') is 30, sum_of(1.5, 2.5, 3.5) is 7.
 * export const sumOf = scalarFunction('INT', { input: [['INT', 'INT'], ['STRING', 'STRING'], ['DOUBLE...']] }, (...args) => …);
 * ```
 *
 * The JS value each SQL type arrives as (shared/plan/udf-values.ts converts):
 *
 * | SQL type                  | JS value                                                     |
 * |---------------------------|--------------------------------------------------------------|
 * | INT, BIGINT, DOUBLE       | `number`                                                     |
 * | DECIMAL(p, s), declared   | `string`: the exact value with `s` fraction digits (`'1.50'`) |
 * | DECIMAL(p, s), undeclared | `number` (p ≤ 15 only: a wider DECIMAL asks for a declaration) |
 * | STRING, VARCHAR(n)        | `string`                                                     |
 * | BOOLEAN                   | `boolean`                                                    |
 * | TIMESTAMP(3)              | `number`: epoch milliseconds, UTC                            |
 * | TIMESTAMP_LTZ(3)          | `number`: the epoch milliseconds of the instant (`new Date(v)`) |
 * | DATE                      | `number`: the epoch milliseconds of its midnight, UTC (`new Date(v).toISOString().slice(0, 10)`) |
 * | TIME(p)                   | `number`: milliseconds since midnight                        |
 * | MULTISET<T>               | an array of `[element, count]` pairs                         |
 * | ARRAY, ROW, MAP           | an array, a plain object by field name, a plain object by key (parts converted alike) |
 * | NULL                      | `null`                                                       |
 *
 * A declared DECIMAL arrives as text because a JS number rounds it (a DECIMAL(38, 18) has more
 * digits than a double holds) and the unscaled bigint the engine keeps reads as another number
 * (1.5 would be 15n); the text is exact, survives JSON (an aggregate's accumulator is JSON on
 * AWS), and is what decimal libraries (decimal.js, big.js) and Node's database drivers (pg,
 * mysql2) exchange DECIMALs as; `Number(d)` makes it a number. Undeclared, a DECIMAL of at most
 * 15 digits arrives as a number, which holds it exactly enough to print back: a function pasted
 * from Flink's docs that adds numbers gives Flink's result.
 *
 * Results go back as CAST converts (a number into a DECIMAL rounds HALF_UP to its scale, a
 * DECIMAL also takes its text or an integer bigint; a TIMESTAMP, TIMESTAMP_LTZ or DATE also takes
 * a JS `Date`); a value of the wrong kind (a string for an INT) is a data error naming the
 * function. The session time zone (`table.local-time-zone`) never reaches a function: its
 * temporal values are instants and UTC readings, as the table shows.
 */
import { PlanError } from '../core/errors.ts';
import { parseType } from '../core/type-parse.ts';
import type { LogicalType, Value } from '../core/types.ts';
import type { Expr, Literal } from '../plan/expr.ts';
import type { UdfSignature } from '../plan/udf-signature.ts';

/**
 * The SQL types of a user function's parameters: one signature (`['STRING', 'INT']`; its last
 * type may end in `...` for varargs, `['DOUBLE...']`), or several (`[['INT', 'INT'],
 * ['DOUBLE...']]`, overloads), tried in order.
 */
export type InputDeclaration = readonly string[] | readonly (readonly string[])[];

/** The JS value a parameter of SQL type `T` arrives as (see this module's table), without NULL. */
export type JsValueOf<T extends string> =
  Uppercase<T> extends `${'DEC' | 'NUMERIC' | 'STRING' | 'VARCHAR' | 'CHAR'}${string}`
    ? string
    : Uppercase<T> extends `${'INT' | 'BIGINT' | 'SMALLINT' | 'TINYINT' | 'DOUBLE' | 'FLOAT' | 'REAL' | 'TIMESTAMP' | 'DATE' | 'TIME'}${string}`
      ? number
      : Uppercase<T> extends `BOOLEAN${string}`
        ? boolean
        : Uppercase<T> extends `ARRAY${string}`
          ? readonly Value[]
          : Uppercase<T> extends `${'BYTES' | 'VARBINARY' | 'BINARY'}${string}`
            ? Uint8Array
            : Value;

type FixedArguments<S extends readonly string[]> = { -readonly [K in keyof S]: JsValueOf<S[K] & string> | null };

/** The JS arguments of one signature: one per parameter, any number of the varargs one. */
type SignatureArguments<S extends readonly string[]> = S extends readonly [...infer P extends readonly string[], `${infer L}...`] ? [...FixedArguments<P>, ...(JsValueOf<L> | null)[]] : FixedArguments<S>;

/** The JS arguments a function with the declaration `I` is called with: those of any of its signatures. */
export type JsArguments<I extends InputDeclaration> = I extends readonly string[] ? SignatureArguments<I> : I extends readonly (infer S extends readonly string[])[] ? SignatureArguments<S> : never;

/**
 * The declared signatures of `input` as plain data, for the call's resolution.
 *
 * @throws PlanError naming the helper for an unreadable type or `...` on a parameter but the last.
 */
function readInput(helper: string, input: InputDeclaration): UdfSignature[] {
  const lists: readonly (readonly string[])[] = input.length > 0 && input.every((x) => Array.isArray(x)) ? (input as readonly (readonly string[])[]) : [input as readonly string[]];
  return lists.map((list) => {
    const params = list.map((text, i) => {
      if (typeof text !== 'string') throw new PlanError(`${helper}: a parameter type is a string such as 'INT' or 'DOUBLE...', not ${JSON.stringify(text)}`);
      const varargs = text.trimEnd().endsWith('...');
      if (varargs && i !== list.length - 1) throw new PlanError(`${helper}: only the last parameter type may end in '...' (varargs), not '${text}'`);
      const typeText = varargs ? text.trimEnd().slice(0, -3) : text;
      try {
        return { ...parseType(typeText), nullable: true };
      } catch (e) {
        throw new PlanError(`${helper}: cannot read the parameter type '${text}': ${(e as Error).message}`, { cause: e });
      }
    });
    const varargs = list.length > 0 && list[list.length - 1]!.trimEnd().endsWith('...');
    return { params, ...(varargs ? { varargs: true } : {}) };
  });
}

/** What a scalar function returns: a value, a `Date` for a date-time result, a `Uint8Array` for a binary one, or nothing (NULL). */
export type ScalarResult = Value | Date | Uint8Array | undefined;

/** A scalar user function: SQL values in, one SQL value out; its result type is declared. */
export interface ScalarFunction {
  readonly kind: 'scalar';
  readonly resultType: LogicalType;
  /** Called with the arguments' JS values (see this module's table); gives the result's. */
  readonly eval: (...args: never[]) => ScalarResult;
  readonly name: string;
  /** The declared parameter types, one signature per overload; absent: none declared. */
  readonly signatures?: readonly UdfSignature[];
}

/**
 * Declares a scalar function with its SQL result type (`'BIGINT'`, `'STRING'`, `'DECIMAL(10, 2)'`)
 * and, optionally, its parameter types (`{ input: ['DOUBLE', 'DOUBLE'] }`; see {@link InputDeclaration}),
 * which type the function's arguments in TypeScript too.
 *
 * ```ts
 * export const plusTax = scalarFunction('DECIMAL(10, 2)', { input: ['DECIMAL(10, 2)'] }, (price) => (price === null ? null : Number(price) * 1.2));
 * ```
 *
 * @throws PlanError for an unreadable type.
 */
export function scalarFunction(resultType: string, fn: (...args: never[]) => ScalarResult): ScalarFunction;
export function scalarFunction<const I extends InputDeclaration>(resultType: string, declaration: { readonly input: I }, fn: (...args: JsArguments<I>) => ScalarResult): ScalarFunction;
export function scalarFunction(resultType: string, ...rest: [(...args: never[]) => ScalarResult] | [{ readonly input: InputDeclaration }, (...args: never[]) => ScalarResult]): ScalarFunction {
  const type = readResultType('scalarFunction', resultType);
  const [declaration, fn] = rest.length === 1 ? [undefined, rest[0]] : rest;
  const signatures = declaration === undefined ? undefined : readInput('scalarFunction', declaration.input);
  return { kind: 'scalar', resultType: type, eval: fn, name: fn.name || 'function', ...(signatures !== undefined ? { signatures } : {}) };
}

/** A declared result type, nullable. @throws PlanError naming the helper for an unreadable type. */
function readResultType(helper: string, text: string): LogicalType {
  try {
    return { ...parseType(text), nullable: true };
  } catch (e) {
    throw new PlanError(`${helper}: cannot read the result type '${text}': ${(e as Error).message}`, { cause: e });
  }
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
  /** Called with the arguments' JS values (see this module's table); gives rows of JS values. */
  readonly eval: (...args: never[]) => Iterable<TableFunctionRow> | null | undefined;
  readonly name: string;
  /** The declared parameter types, one signature per overload; absent: none declared. */
  readonly signatures?: readonly UdfSignature[];
}

/**
 * Declares a table function with its columns (`{ word: 'STRING', length: 'INT' }`), for
 * `LATERAL TABLE(fn(x))` in SQL and `stream.joinLateral(…)` in the API, and optionally its
 * parameter types (`{ input: ['STRING'] }`; see {@link InputDeclaration}). `fn` returns an
 * iterable of rows (a generator works): objects by column name or arrays in column order, whose
 * values convert to the column types as a scalar function's result does.
 *
 * ```ts
 * export const splitWords = tableFunction({ word: 'STRING', len: 'INT' }, { input: ['STRING'] }, function* (line) {
 *   for (const w of (line ?? '').split(' ')) if (w) yield { word: w, len: w.length };
 * });
 * ```
 *
 * @throws PlanError for an unreadable type or no columns.
 */
export function tableFunction(columns: Readonly<Record<string, string>>, fn: (...args: never[]) => Iterable<TableFunctionRow> | null | undefined): TableFunction;
export function tableFunction<const I extends InputDeclaration>(
  columns: Readonly<Record<string, string>>,
  declaration: { readonly input: I },
  fn: (...args: JsArguments<I>) => Iterable<TableFunctionRow> | null | undefined,
): TableFunction;
export function tableFunction(
  columns: Readonly<Record<string, string>>,
  ...rest: [(...args: never[]) => Iterable<TableFunctionRow> | null | undefined] | [{ readonly input: InputDeclaration }, (...args: never[]) => Iterable<TableFunctionRow> | null | undefined]
): TableFunction {
  const [declaration, fn] = rest.length === 1 ? [undefined, rest[0]] : rest;
  const fields = Object.entries(columns).map(([name, text]) => {
    try {
      return { name, type: { ...parseType(text), nullable: true } };
    } catch (e) {
      throw new PlanError(`tableFunction: cannot read the type '${text}' of column '${name}': ${(e as Error).message}`, { cause: e });
    }
  });
  if (fields.length === 0) throw new PlanError('tableFunction: declare at least one column');
  const signatures = declaration === undefined ? undefined : readInput('tableFunction', declaration.input);
  return { kind: 'table', columns: fields, eval: fn, name: fn.name || 'function', ...(signatures !== undefined ? { signatures } : {}) };
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
  /** Each distinct argument value once (SQL `f(DISTINCT x)`), or each distinct tuple of several arguments (`f(DISTINCT a, b)`). */
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
  /** The declared parameter types, one signature per overload; absent: none declared. */
  readonly signatures?: readonly UdfSignature[];
  createAccumulator(): A;
  /** Adds one input row's argument values (one per argument of the call, in order; JS values as this module's table says). */
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
 * aggregation) and the API (`pipeline.function(name, fn)`), and optionally its parameter types
 * (`input: ['DOUBLE']`; see {@link InputDeclaration}), the arguments of `accumulate` and
 * `retract`. The accumulator is a plain JSON value (see {@link AggregateFunction}).
 *
 * ```ts
 * export const weightedAvg = aggregateFunction('DOUBLE', {
 *   input: ['DOUBLE'],
 *   createAccumulator: () => ({ sum: 0, count: 0 }),
 *   accumulate(acc, v) { if (v !== null) { acc.sum += v as number; acc.count++; } },
 *   retract(acc, v) { if (v !== null) { acc.sum -= v as number; acc.count--; } },
 *   getValue: (acc) => (acc.count === 0 ? null : acc.sum / acc.count),
 * });
 * ```
 *
 * @throws PlanError for an unreadable type.
 */
export function aggregateFunction<A>(
  resultType: string,
  impl: Omit<AggregateFunction<A>, 'kind' | 'resultType' | 'name' | 'signatures'> & { readonly name?: string; readonly input?: InputDeclaration },
): AggregateFunction<A> {
  const type = readResultType('aggregateFunction', resultType);
  const { input, ...methods } = impl;
  const signatures = input === undefined ? undefined : readInput('aggregateFunction', input);
  return { ...methods, kind: 'aggregate', resultType: type, name: impl.name ?? 'aggregate', ...(signatures !== undefined ? { signatures } : {}) };
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
