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
