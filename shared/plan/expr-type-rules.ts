/**
 * The type rules of scalar expressions that do not depend on which functions exist: type names
 * for messages, numeric widening and DECIMAL result shapes (Flink's LogicalTypeMerging), common
 * types, comparison and cast compatibility, and the operand checks shared by CASE, COALESCE, IN
 * and the built-in functions.
 *
 * Split from expr-types.ts so that imports point one way: the built-in function modules
 * (expr-fn-*.ts, expr-cast.ts) need these rules, and expr-types.ts needs the function registry
 * (expr-builtins.ts) to type calls by name. With the rules here, expr-types.ts → expr-builtins.ts
 * → expr-fn-*.ts → this module, and nothing imports back.
 */
import { PlanError } from '../core/errors.ts';
import { MAX_DECIMAL_PRECISION, formatType } from '../core/type-parse.ts';
import type { LogicalType } from '../core/types.ts';
import type { Call, Expr } from './expr.ts';
import { printExpr } from './expr-print.ts';

const INT: LogicalType = { root: 'INT', nullable: false };
const BIGINT: LogicalType = { root: 'BIGINT', nullable: false };
const DOUBLE: LogicalType = { root: 'DOUBLE', nullable: false };
const FLOAT: LogicalType = { root: 'FLOAT', nullable: false };
const STRING: LogicalType = { root: 'STRING', nullable: false };

/** DECIMAL results shrink their scale above precision 38, but keep at least this many digits. */
const MINIMUM_ADJUSTED_SCALE = 6;

/**
 * Short type name for messages: `INT`, `STRING`, `VARCHAR(10)`, `DECIMAL(10, 2)`, `TIMESTAMP(3)`,
 * `DATE`, `TIME(0)`, `TIMESTAMP_LTZ(3)`.
 */
export function typeName(t: LogicalType): string {
  switch (t.root) {
    case 'DECIMAL':
      return `DECIMAL(${t.precision ?? 10}, ${t.scale ?? 0})`;
    case 'STRING':
      return t.length === undefined ? 'STRING' : t.fixedLength === true ? `CHAR(${t.length})` : `VARCHAR(${t.length})`;
    case 'VARBINARY':
      return t.length === undefined ? 'BYTES' : t.fixedLength === true ? `BINARY(${t.length})` : `VARBINARY(${t.length})`;
    case 'TIMESTAMP':
      return `TIMESTAMP(${t.precision ?? 3})`;
    case 'TIMESTAMP_LTZ':
      return `TIMESTAMP_LTZ(${t.precision ?? 3})`;
    case 'TIME':
      return `TIME(${t.precision ?? 0})`;
    case 'ROW':
      return `ROW<${(t.fields ?? []).map((f) => `${f.name} ${typeName(f.type)}`).join(', ')}>`;
    case 'ARRAY':
      return `ARRAY<${t.element ? typeName(t.element) : '?'}>`;
    case 'MAP':
      return `MAP<${t.key ? typeName(t.key) : '?'}, ${t.value ? typeName(t.value) : '?'}>`;
    case 'MULTISET':
      return `MULTISET<${t.element ? typeName(t.element) : '?'}>`;
    default:
      return t.root;
  }
}

/** ROW, ARRAY, MAP and MULTISET: the types whose values nest other values. */
export function isNested(t: LogicalType): boolean {
  return t.root === 'ROW' || t.root === 'ARRAY' || t.root === 'MAP' || t.root === 'MULTISET';
}

/** DATE, TIME, TIMESTAMP and TIMESTAMP_LTZ: Flink's DATETIME family. */
export function isDatetime(t: LogicalType): boolean {
  return t.root === 'DATE' || t.root === 'TIME' || t.root === 'TIMESTAMP' || t.root === 'TIMESTAMP_LTZ';
}

/** TIMESTAMP and TIMESTAMP_LTZ: the types of time attributes (rowtime and proctime columns). */
export function isTimestampType(t: LogicalType): boolean {
  return t.root === 'TIMESTAMP' || t.root === 'TIMESTAMP_LTZ';
}

/** True for TINYINT, SMALLINT, INT, BIGINT, DECIMAL, FLOAT and DOUBLE. */
export function isNumeric(t: LogicalType): boolean {
  return isExactNumeric(t) || isApproximateNumeric(t);
}

/** True for TINYINT, SMALLINT, INT, BIGINT and DECIMAL. */
export function isExactNumeric(t: LogicalType): boolean {
  return isIntegerType(t) || t.root === 'DECIMAL';
}

/** True for TINYINT, SMALLINT, INT and BIGINT. */
export function isIntegerType(t: LogicalType): boolean {
  return t.root === 'INT' || t.root === 'BIGINT' || t.root === 'SMALLINT' || t.root === 'TINYINT';
}

/** True for FLOAT and DOUBLE (Flink's APPROXIMATE_NUMERIC family). */
export function isApproximateNumeric(t: LogicalType): boolean {
  return t.root === 'DOUBLE' || t.root === 'FLOAT';
}

/** Decimal digits of each integer type, as Flink's `getPrecision` gives them. */
const INTEGER_PRECISION: Readonly<Partial<Record<LogicalType['root'], number>>> = { TINYINT: 3, SMALLINT: 5, INT: 10, BIGINT: 19 };

/**
 * Precision and scale of an exact numeric type; TINYINT is DECIMAL(3, 0), SMALLINT DECIMAL(5, 0),
 * INT DECIMAL(10, 0), BIGINT DECIMAL(19, 0).
 */
export function decimalShape(t: LogicalType): { precision: number; scale: number } {
  const integer = INTEGER_PRECISION[t.root];
  if (integer !== undefined) return { precision: integer, scale: 0 };
  return { precision: t.precision ?? 10, scale: t.scale ?? 0 };
}

/** The type with the given nullability (the same object when it already has it). */
export function withNullable(t: LogicalType, nullable: boolean): LogicalType {
  return t.nullable === nullable ? t : { ...t, nullable };
}

/** True when two types are the same apart from nullability. */
export function sameTypeIgnoringNull(a: LogicalType, b: LogicalType): boolean {
  return a.root === b.root && a.precision === b.precision && a.scale === b.scale && a.length === b.length && a.fixedLength === b.fixedLength;
}

/** Whether two types are the same apart from nullability, nested parts included. */
export function sameType(a: LogicalType, b: LogicalType): boolean {
  if (!sameTypeIgnoringNull(a, b)) return false;
  if (a.root === 'ARRAY') return sameType(a.element!, b.element!);
  if (a.root === 'MAP') return sameType(a.key!, b.key!) && sameType(a.value!, b.value!);
  if (a.root === 'ROW') {
    const x = a.fields ?? [];
    const y = b.fields ?? [];
    return x.length === y.length && x.every((f, i) => f.name === y[i]!.name && sameType(f.type, y[i]!.type));
  }
  return true;
}

function decimal(precision: number, scale: number, nullable: boolean): LogicalType {
  if (precision <= MAX_DECIMAL_PRECISION) return { root: 'DECIMAL', nullable, precision, scale };
  // Flink's adjustPrecisionScale: keep the integer digits, sacrifice scale down to min(scale, 6).
  const intDigits = precision - scale;
  const adjusted = Math.max(MAX_DECIMAL_PRECISION - intDigits, Math.min(scale, MINIMUM_ADJUSTED_SCALE));
  return { root: 'DECIMAL', nullable, precision: MAX_DECIMAL_PRECISION, scale: adjusted };
}

/** The binary arithmetic operators and their DECIMAL result rules. */
type ArithmeticOp = '+' | '-' | '*' | '/' | 'MOD';

function decimalArithmeticType(op: ArithmeticOp, a: LogicalType, b: LogicalType, nullable: boolean): LogicalType {
  const { precision: p1, scale: s1 } = decimalShape(a);
  const { precision: p2, scale: s2 } = decimalShape(b);
  switch (op) {
    case '+':
    case '-': {
      const scale = Math.max(s1, s2);
      return decimal(Math.max(p1 - s1, p2 - s2) + scale + 1, scale, nullable);
    }
    case '*':
      return decimal(p1 + p2 + 1, s1 + s2, nullable);
    case '/': {
      const scale = Math.max(6, s1 + p2 + 1);
      return decimal(p1 - s1 + s2 + scale, scale, nullable);
    }
    case 'MOD': {
      const scale = Math.max(s1, s2);
      return decimal(Math.min(p1 - s1, p2 - s2) + scale, scale, nullable);
    }
  }
}

/**
 * Result type of a binary arithmetic operator, or `undefined` when the operands do not allow it.
 * The compiler converts both operands to this type (apart from integer MOD, see below) first.
 */
export function arithmeticType(op: ArithmeticOp, a: LogicalType, b: LogicalType): LogicalType | undefined {
  const nullable = a.nullable || b.nullable;
  if (op === 'MOD') {
    if (!isExactNumeric(a) || !isExactNumeric(b)) return undefined;
    if (a.root === 'DECIMAL' || b.root === 'DECIMAL') return decimalArithmeticType(op, a, b, nullable);
    // |a MOD b| < |b|, so Calcite gives the divisor's type.
    return withNullable(b, nullable);
  }
  if (!isNumeric(a) || !isNumeric(b)) return undefined;
  if (isApproximateNumeric(a) || isApproximateNumeric(b)) return commonApproximateType(a, b, nullable);
  if (a.root === 'DECIMAL' || b.root === 'DECIMAL') return decimalArithmeticType(op, a, b, nullable);
  // The wider integer type: TINYINT + TINYINT stays TINYINT and wraps, as in Flink.
  return withNullable(widerInteger(a, b), nullable);
}

/** The wider of two integer types (TINYINT < SMALLINT < INT < BIGINT), without nullability. */
function widerInteger(a: LogicalType, b: LogicalType): LogicalType {
  const pa = INTEGER_PRECISION[a.root] ?? 0;
  const pb = INTEGER_PRECISION[b.root] ?? 0;
  const wider = pb > pa ? b : a;
  return wider.root === 'INT' ? INT : wider.root === 'BIGINT' ? BIGINT : { root: wider.root, nullable: false };
}

/**
 * Common type of two numerics of which one is FLOAT or DOUBLE (Flink's LogicalTypeMerging):
 * DOUBLE with anything is DOUBLE, FLOAT with DECIMAL is DOUBLE, FLOAT with FLOAT or an integer
 * type is FLOAT.
 */
function commonApproximateType(a: LogicalType, b: LogicalType, nullable: boolean): LogicalType {
  if (a.root === 'DOUBLE' || b.root === 'DOUBLE' || a.root === 'DECIMAL' || b.root === 'DECIMAL') return withNullable(DOUBLE, nullable);
  return withNullable(FLOAT, nullable);
}

/** Common type of two exact numerics (Flink's createCommonExactNumericType). */
function commonExactType(a: LogicalType, b: LogicalType): LogicalType {
  if (a.root !== 'DECIMAL' && b.root !== 'DECIMAL') return widerInteger(a, b);
  const { precision: p1, scale: s1 } = decimalShape(a);
  const { precision: p2, scale: s2 } = decimalShape(b);
  const digits = Math.min(Math.max(p1 - s1, p2 - s2), MAX_DECIMAL_PRECISION);
  const scale = Math.min(Math.max(s1, s2), MAX_DECIMAL_PRECISION - digits);
  return { root: 'DECIMAL', nullable: false, precision: digits + scale, scale };
}

/**
 * The least restrictive type of two (Flink's findCommonType), or `undefined` if there is none:
 * numerics widen, strings meet as VARCHAR of the longer length (or STRING), BOOLEAN and TIMESTAMP
 * only meet themselves. Nullable when either is.
 */
export function commonTypeOf(a: LogicalType, b: LogicalType): LogicalType | undefined {
  const nullable = a.nullable || b.nullable;
  if (isNumeric(a) && isNumeric(b)) {
    if (isApproximateNumeric(a) || isApproximateNumeric(b)) return commonApproximateType(a, b, nullable);
    return withNullable(commonExactType(a, b), nullable);
  }
  if (a.root !== b.root) return commonDatetimeType(a, b, nullable);
  if (a.root === 'STRING') {
    if (a.length === undefined || b.length === undefined) return withNullable(STRING, nullable);
    // CHAR(n) meets CHAR(n) as itself; any other pair as a VARCHAR of the longer length, so that
    // no value is padded (Flink's LogicalTypeMerging).
    if (a.fixedLength === true && b.fixedLength === true && a.length === b.length) return withNullable(a, nullable);
    return { root: 'STRING', nullable, length: Math.max(a.length, b.length) };
  }
  if (a.root === 'VARBINARY') {
    // As strings: BINARY(n) meets BINARY(n) as itself, anything else as VARBINARY or BYTES.
    if (a.length === undefined || b.length === undefined) return { root: 'VARBINARY', nullable };
    if (a.fixedLength === true && b.fixedLength === true && a.length === b.length) return withNullable(a, nullable);
    return { root: 'VARBINARY', nullable, length: Math.max(a.length, b.length) };
  }
  if (a.root === 'TIME') return { root: 'TIME', nullable, precision: Math.max(a.precision ?? 0, b.precision ?? 0) };
  return withNullable(a, nullable);
}

const TIMESTAMP_3: LogicalType = { root: 'TIMESTAMP', nullable: false, precision: 3 };
const TIMESTAMP_LTZ_3: LogicalType = { root: 'TIMESTAMP_LTZ', nullable: false, precision: 3 };

/**
 * The common type of two different date-time types, as Flink's implicit casts allow: a DATE
 * meets a TIMESTAMP as TIMESTAMP (midnight), a TIMESTAMP meets a TIMESTAMP_LTZ as TIMESTAMP_LTZ
 * (the wall-clock time read in the session time zone). TIME meets only TIME.
 */
function commonDatetimeType(a: LogicalType, b: LogicalType, nullable: boolean): LogicalType | undefined {
  const roots = new Set([a.root, b.root]);
  if (roots.has('TIMESTAMP_LTZ') && (roots.has('TIMESTAMP') || roots.has('DATE'))) return withNullable(TIMESTAMP_LTZ_3, nullable);
  if (roots.has('TIMESTAMP') && roots.has('DATE')) return withNullable(TIMESTAMP_3, nullable);
  return undefined;
}

/**
 * The type both operands of a comparison are converted to, or `undefined` when they are not
 * comparable. Beyond {@link commonTypeOf}, a DATE, TIME, TIMESTAMP or TIMESTAMP_LTZ compares with a
 * STRING by reading the string as that type (as Calcite coerces `ts > '2015-07-15 00:00:00'`).
 */
export function comparisonType(a: LogicalType, b: LogicalType): LogicalType | undefined {
  if (isDatetime(a) && b.root === 'STRING') return withNullable(a, a.nullable || b.nullable);
  if (a.root === 'STRING' && isDatetime(b)) return withNullable(b, a.nullable || b.nullable);
  return commonTypeOf(a, b);
}

/**
 * The pairs of part types a structural cast from `from` to `to` converts (ROW fields by position,
 * ARRAY elements, MAP keys and values), or undefined when the two are not of one kind and shape.
 */
function structuralParts(from: LogicalType, to: LogicalType): (readonly [LogicalType, LogicalType])[] | undefined {
  if (from.root !== to.root) return undefined;
  switch (from.root) {
    case 'ROW': {
      const a = from.fields ?? [];
      const b = to.fields ?? [];
      return a.length === b.length ? a.map((f, i) => [f.type, b[i]!.type] as const) : undefined;
    }
    case 'ARRAY':
      return [[from.element!, to.element!]];
    case 'MAP':
      return [
        [from.key!, to.key!],
        [from.value!, to.value!],
      ];
    default:
      return undefined;
  }
}

/**
 * Why an explicit CAST from one type to another is not allowed, or `undefined` when it is.
 * Allowed: within and between numerics, anything to and from STRING, BOOLEAN with numerics,
 * among the date-time types except between DATE and TIME (Flink's LogicalTypeCasts).
 */
export function castProblem(from: LogicalType, to: LogicalType): string | undefined {
  if (isNested(from) || isNested(to)) {
    if (to.root === 'STRING' && isNested(from)) return undefined;
    if (from.root === to.root && formatType(withNullable(from, true)) === formatType(withNullable(to, true))) return undefined;
    // Flink's LogicalTypeCasts: a ROW to a ROW of as many fields, an ARRAY or MAP to one of its
    // kind, each part by its own cast (field names may differ: fields go by position).
    const parts = structuralParts(from, to);
    // MAP keys are held as their texts, so a key keeps its type.
    if (from.root === 'MAP' && to.root === 'MAP' && !sameType(from.key!, to.key!)) return `a MAP's keys keep their type here (${typeName(from.key!)}, not ${typeName(to.key!)})`;
    if (parts !== undefined) return parts.map(([a, b]) => castProblem(a, b)).find((p) => p !== undefined);
    return 'a ROW casts to a ROW of as many fields, an ARRAY or MAP to one of its kind, and a MULTISET only to STRING or to its own type';
  }
  if (from.root === to.root || from.root === 'STRING' || to.root === 'STRING') return undefined;
  if ((isNumeric(from) || from.root === 'BOOLEAN') && (isNumeric(to) || to.root === 'BOOLEAN')) return undefined;
  // Flink's cast matrix among DATE, TIME, TIMESTAMP and TIMESTAMP_LTZ: all but DATE ↔ TIME.
  if (isDatetime(from) && isDatetime(to)) {
    if ((from.root === 'DATE' && to.root === 'TIME') || (from.root === 'TIME' && to.root === 'DATE')) return 'Flink casts a DATE only to a TIMESTAMP, TIMESTAMP_LTZ or STRING, and a TIME only to a TIMESTAMP, TIMESTAMP_LTZ or STRING';
    return undefined;
  }
  // Flink refuses these too, with the same advice.
  if (isDatetime(from) && isNumeric(to)) return `Flink does not cast ${from.root} to numbers; use UNIX_TIMESTAMP or EXTRACT(EPOCH FROM …)`;
  if (isNumeric(from) && to.root === 'TIMESTAMP') return 'Flink does not cast numbers to TIMESTAMP; use TO_TIMESTAMP(FROM_UNIXTIME(n))';
  if (isNumeric(from) && to.root === 'TIMESTAMP_LTZ') return 'Flink does not cast numbers to TIMESTAMP_LTZ; use TO_TIMESTAMP_LTZ(n, precision)';
  return 'the types are not castable';
}

/** Alternative spellings, mapped to the names the compiler implements. */
const ALIASES: Readonly<Record<string, string>> = {
  '%': 'MOD',
  '!=': '<>',
  CHARACTER_LENGTH: 'CHAR_LENGTH',
  CEILING: 'CEIL',
  DAY: 'DAYOFMONTH',
};

/** The canonical name of a call's function: upper case, aliases resolved (`%` → `MOD`). */
export function canonicalFunctionName(fn: string): string {
  const upper = fn.toUpperCase();
  return ALIASES[upper] ?? upper;
}

/** `cannot apply '+' to STRING and INT in +(name, 1)`. */
export function operandError(call: Call, argTypes: readonly LogicalType[], detail?: string): PlanError {
  const types = argTypes.map(typeName).join(' and ');
  const suffix = detail === undefined ? '' : ` (${detail})`;
  return new PlanError(`cannot apply '${call.fn}' to ${types} in ${printExpr(call)}${suffix}`);
}

function isNullLiteral(e: Expr): boolean {
  return e.kind === 'literal' && e.value === null;
}

/**
 * Common type of the operands at `indices` (the values of CASE, COALESCE or IN). NULL literals
 * only add nullability, because SQL's untyped NULL fits any type (our NULL literals carry a type
 * only so that they print and serialize). IN also accepts a TIMESTAMP compared with strings.
 *
 * @throws PlanError naming the call and all operand types when there is no common type.
 */
export function commonTypeOfOperands(call: Call, argTypes: readonly LogicalType[], indices: readonly number[]): LogicalType {
  let result: LogicalType | undefined;
  let nullable = false;
  for (const i of indices) {
    const t = argTypes[i]!;
    nullable ||= t.nullable;
    if (isNullLiteral(call.args[i]!)) continue;
    if (result === undefined) {
      result = t;
      continue;
    }
    const merged = canonicalFunctionName(call.fn) === 'IN' ? comparisonType(result, t) : commonTypeOf(result, t);
    if (merged === undefined) throw operandError(call, argTypes, 'the operands have no common type');
    result = merged;
  }
  return withNullable(result ?? argTypes[indices[0]!]!, nullable);
}

/** All argument positions of a call, for {@link commonTypeOfOperands}. */
export function allIndices(call: Call): number[] {
  return call.args.map((_, i) => i);
}

/** Index pairs of CASE: `[when, then]` argument positions; the else branch is the odd last one. */
export function caseBranches(call: Call): { whens: number[]; values: number[] } {
  const whens: number[] = [];
  const values: number[] = [];
  const n = call.args.length;
  for (let i = 0; i + 1 < n; i += 2) {
    whens.push(i);
    values.push(i + 1);
  }
  if (n % 2 === 1) values.push(n - 1);
  return { whens, values };
}
