/**
 * The shape of a built-in scalar function in the expr-fn-*.ts modules: its result type from the
 * operand types, and its evaluator from the compiled operands. expr-types.ts and
 * expr-compile.ts look names up in expr-builtins.ts after their own operators.
 */
import { PlanError } from '../core/errors.ts';
import type { TimeZone } from '../core/time-zone.ts';
import type { LogicalType, Row, Value } from '../core/types.ts';
import type { Call } from './expr.ts';
import { printExpr } from './expr-print.ts';

/** A compiled operand. */
export interface FnArg {
  readonly fn: (row: Row) => Value;
  readonly type: LogicalType;
  readonly constant?: { readonly value: Value };
}

/** What an evaluator is built from. */
export interface FnContext {
  readonly call: Call;
  readonly args: readonly FnArg[];
  /** The call's result type (from {@link Builtin.type}). */
  readonly type: LogicalType;
  /** The call as Flink prints it, for error messages. */
  readonly where: string;
  /** The operand converted to another type (an implicit cast). */
  readonly coerce: (arg: FnArg, to: LogicalType) => FnArg;
  /** The session time zone of the call (UTC unless the call carries another, see `Call.zone`). */
  readonly zone: TimeZone;
}

/** A built-in function. */
export interface Builtin {
  /** @throws PlanError when the operands do not fit. */
  readonly type: (call: Call, argTypes: readonly LogicalType[]) => LogicalType;
  readonly evaluator: (ctx: FnContext) => (row: Row) => Value;
  /**
   * The value is not a function of the operands (RAND, UUID, and in streaming the clock's
   * functions, CURRENT_TIMESTAMP …): two evaluations of one row differ, so a retraction cannot
   * repeat the value of the row it retracts (shared/plan/determinism.ts). A function of the call
   * when only some of its forms are (`UNIX_TIMESTAMP()` reads the clock, `UNIX_TIMESTAMP(s)` not).
   */
  readonly nonDeterministic?: boolean | ((call: Call) => boolean);
}

export const INT: LogicalType = { root: 'INT', nullable: false };
export const BIGINT: LogicalType = { root: 'BIGINT', nullable: false };
export const DOUBLE: LogicalType = { root: 'DOUBLE', nullable: false };
export const STRING: LogicalType = { root: 'STRING', nullable: false };
export const BOOLEAN: LogicalType = { root: 'BOOLEAN', nullable: false };
export const TIMESTAMP: LogicalType = { root: 'TIMESTAMP', nullable: false, precision: 3 };
export const TIMESTAMP_LTZ: LogicalType = { root: 'TIMESTAMP_LTZ', nullable: false, precision: 3 };
export const DATE: LogicalType = { root: 'DATE', nullable: false };
export const TIME: LogicalType = { root: 'TIME', nullable: false, precision: 0 };

/** `type` made nullable when any operand type is. */
export function nullableIf(type: LogicalType, argTypes: readonly LogicalType[]): LogicalType {
  return argTypes.some((t) => t.nullable) ? { ...type, nullable: true } : type;
}

/** `'F' takes 2 to 3 arguments, got 1 in F(x)`. */
export function checkArgs(call: Call, min: number, max: number): void {
  const n = call.args.length;
  if (n >= min && n <= max) return;
  const plural = (k: number): string => `${k} argument${k === 1 ? '' : 's'}`;
  const expected = min === max ? plural(min) : max === Infinity ? `at least ${plural(min)}` : `${min} to ${plural(max)}`;
  throw new PlanError(`'${call.fn}' takes ${expected}, got ${n} in ${printExpr(call)}`);
}

/** Fails unless every operand's type root is one of those allowed at its position (the last list repeats). */
export function requireRoots(call: Call, argTypes: readonly LogicalType[], ...roots: (readonly string[])[]): void {
  for (let i = 0; i < argTypes.length; i++) {
    const allowed = roots[Math.min(i, roots.length - 1)]!;
    if (!allowed.includes(argTypes[i]!.root)) {
      throw new PlanError(`cannot apply '${call.fn}' to ${argTypes.map((t) => t.root).join(' and ')} in ${printExpr(call)}`);
    }
  }
}

/** The constant string of a keyword operand (`HOUR` in `FLOOR(ts TO HOUR)`), checked against `allowed`. */
export function keywordArg(call: Call, index: number, allowed: readonly string[], what: string): string {
  const a = call.args[index];
  const value = a?.kind === 'literal' && typeof a.value === 'string' ? a.value.toUpperCase() : undefined;
  if (value === undefined || !allowed.includes(value)) {
    throw new PlanError(`${call.fn} needs ${what} (${allowed.join(', ')}) in ${printExpr(call)}`);
  }
  return value;
}

/** A strict evaluator: NULL when any operand is NULL, else `op` of the operand values. */
export function strict(args: readonly FnArg[], op: (values: Value[]) => Value): (row: Row) => Value {
  const fns = args.map((a) => a.fn);
  return (row) => {
    const values: Value[] = [];
    for (let i = 0; i < fns.length; i++) {
      const v = fns[i]!(row);
      if (v === null) return null;
      values.push(v);
    }
    return op(values);
  };
}

export const STRINGS = ['STRING'];
export const INTEGERS = ['TINYINT', 'SMALLINT', 'INT', 'BIGINT'];
export const NUMERICS = ['TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'DECIMAL', 'FLOAT', 'DOUBLE'];
