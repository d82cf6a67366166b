/**
 * Type inference for scalar expressions, following Flink/Calcite:
 *
 * - Numeric widening INT < BIGINT < DECIMAL < DOUBLE. INT and BIGINT meet DECIMAL as
 *   DECIMAL(10, 0) and DECIMAL(19, 0); DECIMAL meeting DOUBLE gives DOUBLE.
 * - `+ - * /` on two integer types give the wider one, so `/` is integer division. DECIMAL results
 *   use Flink's rules (LogicalTypeMerging, after SQL Server), with p/s the operands' precision and
 *   scale: `+`/`-` → (max(s1, s2) + max(p1 - s1, p2 - s2) + 1, max(s1, s2)); `*` → (p1 + p2 + 1,
 *   s1 + s2); `/` → (p1 - s1 + s2 + max(6, s1 + p2 + 1), max(6, s1 + p2 + 1)); `MOD` → (min(p1 - s1,
 *   p2 - s2) + max(s1, s2), max(s1, s2)). Above precision 38 the scale shrinks to keep the integer
 *   digits, but not below min(scale, 6).
 * - `MOD`/`%` need exact numerics and, for integers, have the divisor's type (as Calcite).
 * - Comparisons need comparable operands (numeric with numeric, string with string, boolean with
 *   boolean, timestamp with timestamp or string) and give BOOLEAN.
 * - Nullability propagates: a result is nullable when an operand is, except `IS [NOT] NULL`,
 *   `IS [NOT] TRUE/FALSE` (never null), `COALESCE` (null only if every operand may be) and the
 *   functions that return NULL by design (`REGEXP_EXTRACT`, `SPLIT_INDEX`).
 */
import { PlanError } from '../core/errors.ts';
import { MAX_DECIMAL_PRECISION, formatType, requireField } from '../core/type-parse.ts';
import type { LogicalType, Schema } from '../core/types.ts';
import type { Call, Expr } from './expr.ts';
import { printExpr } from './expr-print.ts';
import { builtin, builtinNames } from './expr-builtins.ts';

const INT: LogicalType = { root: 'INT', nullable: false };
const BIGINT: LogicalType = { root: 'BIGINT', nullable: false };
const DOUBLE: LogicalType = { root: 'DOUBLE', nullable: false };
const STRING: LogicalType = { root: 'STRING', nullable: false };
const BOOLEAN: LogicalType = { root: 'BOOLEAN', nullable: false };

/** DECIMAL results shrink their scale above precision 38, but keep at least this many digits. */
const MINIMUM_ADJUSTED_SCALE = 6;

/** Short type name for messages: `INT`, `STRING`, `VARCHAR(10)`, `DECIMAL(10, 2)`, `TIMESTAMP(3)`. */
export function typeName(t: LogicalType): string {
  switch (t.root) {
    case 'DECIMAL':
      return `DECIMAL(${t.precision ?? 10}, ${t.scale ?? 0})`;
    case 'STRING':
      return t.length === undefined ? 'STRING' : `VARCHAR(${t.length})`;
    case 'TIMESTAMP':
      return `TIMESTAMP(${t.precision ?? 3})`;
    case 'ROW':
      return `ROW<${(t.fields ?? []).map((f) => `${f.name} ${typeName(f.type)}`).join(', ')}>`;
    case 'ARRAY':
      return `ARRAY<${t.element ? typeName(t.element) : '?'}>`;
    case 'MAP':
      return `MAP<${t.key ? typeName(t.key) : '?'}, ${t.value ? typeName(t.value) : '?'}>`;
    default:
      return t.root;
  }
}

/** ROW, ARRAY and MAP: the types whose values nest other values. */
export function isNested(t: LogicalType): boolean {
  return t.root === 'ROW' || t.root === 'ARRAY' || t.root === 'MAP';
}

/** True for INT, BIGINT, DECIMAL and DOUBLE. */
export function isNumeric(t: LogicalType): boolean {
  return t.root === 'INT' || t.root === 'BIGINT' || t.root === 'DECIMAL' || t.root === 'DOUBLE';
}

/** True for INT, BIGINT and DECIMAL. */
export function isExactNumeric(t: LogicalType): boolean {
  return t.root === 'INT' || t.root === 'BIGINT' || t.root === 'DECIMAL';
}

/** Precision and scale of an exact numeric type; INT is DECIMAL(10, 0), BIGINT DECIMAL(19, 0). */
export function decimalShape(t: LogicalType): { precision: number; scale: number } {
  if (t.root === 'INT') return { precision: 10, scale: 0 };
  if (t.root === 'BIGINT') return { precision: 19, scale: 0 };
  return { precision: t.precision ?? 10, scale: t.scale ?? 0 };
}

/** The type with the given nullability (the same object when it already has it). */
export function withNullable(t: LogicalType, nullable: boolean): LogicalType {
  return t.nullable === nullable ? t : { ...t, nullable };
}

/** True when two types are the same apart from nullability. */
export function sameTypeIgnoringNull(a: LogicalType, b: LogicalType): boolean {
  return a.root === b.root && a.precision === b.precision && a.scale === b.scale && a.length === b.length;
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
  if (a.root === 'DOUBLE' || b.root === 'DOUBLE') return withNullable(DOUBLE, nullable);
  if (a.root === 'DECIMAL' || b.root === 'DECIMAL') return decimalArithmeticType(op, a, b, nullable);
  return withNullable(a.root === 'BIGINT' || b.root === 'BIGINT' ? BIGINT : INT, nullable);
}

/** Common type of two exact numerics (Flink's createCommonExactNumericType). */
function commonExactType(a: LogicalType, b: LogicalType): LogicalType {
  if (a.root !== 'DECIMAL' && b.root !== 'DECIMAL') return a.root === 'BIGINT' || b.root === 'BIGINT' ? BIGINT : INT;
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
    if (a.root === 'DOUBLE' || b.root === 'DOUBLE') return withNullable(DOUBLE, nullable);
    return withNullable(commonExactType(a, b), nullable);
  }
  if (a.root !== b.root) return undefined;
  if (a.root === 'STRING') {
    if (a.length === undefined || b.length === undefined) return withNullable(STRING, nullable);
    return { root: 'STRING', nullable, length: Math.max(a.length, b.length) };
  }
  return withNullable(a, nullable);
}

/**
 * The type both operands of a comparison are converted to, or `undefined` when they are not
 * comparable. Beyond {@link commonTypeOf}, a TIMESTAMP compares with a STRING by reading the
 * string as a timestamp (as Calcite coerces `ts > '2015-07-15 00:00:00'`).
 */
export function comparisonType(a: LogicalType, b: LogicalType): LogicalType | undefined {
  if ((a.root === 'TIMESTAMP' && b.root === 'STRING') || (a.root === 'STRING' && b.root === 'TIMESTAMP')) {
    return { root: 'TIMESTAMP', nullable: a.nullable || b.nullable, precision: 3 };
  }
  return commonTypeOf(a, b);
}

/**
 * Why an explicit CAST from one type to another is not allowed, or `undefined` when it is.
 * Allowed: within and between numerics, anything to and from STRING, BOOLEAN with numerics.
 */
export function castProblem(from: LogicalType, to: LogicalType): string | undefined {
  if (isNested(from) || isNested(to)) {
    if (to.root === 'STRING' && isNested(from)) return undefined;
    if (from.root === to.root && formatType(withNullable(from, true)) === formatType(withNullable(to, true))) return undefined;
    return 'ROW, ARRAY and MAP values cast only to STRING or to their own type here';
  }
  if (from.root === to.root || from.root === 'STRING' || to.root === 'STRING') return undefined;
  if ((isNumeric(from) || from.root === 'BOOLEAN') && (isNumeric(to) || to.root === 'BOOLEAN')) return undefined;
  // Flink refuses these too, with the same advice.
  if (from.root === 'TIMESTAMP' && isNumeric(to)) return 'Flink does not cast TIMESTAMP to numbers; compute epoch values in a UDF';
  if (isNumeric(from) && to.root === 'TIMESTAMP') return 'Flink does not cast numbers to TIMESTAMP; convert epoch values in a UDF';
  return 'the types are not castable';
}

/** Everything `inferCallType` knows, listed in errors about unknown functions. */
export const SUPPORTED_FUNCTIONS: readonly string[] = [
  '+', '-', '*', '/', '%', 'MOD',
  '=', '<>', '<', '<=', '>', '>=', 'IN',
  'AND', 'OR', 'NOT',
  'IS NULL', 'IS NOT NULL', 'IS TRUE', 'IS NOT TRUE', 'IS FALSE', 'IS NOT FALSE',
  'CASE', 'COALESCE',
  'UPPER', 'LOWER', 'CHAR_LENGTH', 'CONCAT', '||', 'SUBSTRING', 'TRIM', 'LTRIM', 'RTRIM', 'LIKE',
  'REGEXP_EXTRACT', 'SPLIT_INDEX',
  'ABS', 'FLOOR', 'CEIL',
  'DATE_FORMAT', 'YEAR', 'MONTH', 'DAYOFMONTH', 'HOUR', 'MINUTE', 'SECOND',
];

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

function arityError(call: Call, expected: string): PlanError {
  return new PlanError(`'${call.fn}' takes ${expected}, got ${call.args.length} in ${printExpr(call)}`);
}

function checkArity(call: Call, min: number, max: number): void {
  const n = call.args.length;
  if (n >= min && n <= max) return;
  const plural = (k: number): string => `${k} argument${k === 1 ? '' : 's'}`;
  const expected =
    min === max ? plural(min) : max === Infinity ? `at least ${plural(min)}` : `${min} to ${plural(max)}`;
  throw arityError(call, expected);
}

function anyNullable(types: readonly LogicalType[]): boolean {
  return types.some((t) => t.nullable);
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

/**
 * Result type of a call given its operand types.
 *
 * @throws PlanError naming the call and the operand types when they do not fit, or listing the
 * supported functions when the name is unknown.
 */
export function inferCallType(call: Call, argTypes: readonly LogicalType[]): LogicalType {
  const fn = canonicalFunctionName(call.fn);
  const args = call.args;
  const nullable = anyNullable(argTypes);
  const requireRoots = (...roots: (readonly string[])[]): void => {
    for (let i = 0; i < argTypes.length; i++) {
      const allowed = roots[Math.min(i, roots.length - 1)]!;
      if (!allowed.includes(argTypes[i]!.root)) throw operandError(call, argTypes);
    }
  };
  const INTEGER = ['INT', 'BIGINT'];
  const STRINGS = ['STRING'];
  switch (fn) {
    case '+':
    case '-':
    case '*':
    case '/':
    case 'MOD': {
      if (fn === '-' && args.length === 1) {
        if (!isNumeric(argTypes[0]!)) throw operandError(call, argTypes);
        return argTypes[0]!;
      }
      checkArity(call, 2, 2);
      const shifted = timestampShiftType(fn, call, argTypes);
      if (shifted !== undefined) return shifted;
      const t = arithmeticType(fn, argTypes[0]!, argTypes[1]!);
      if (t === undefined) throw operandError(call, argTypes);
      return t;
    }
    case '=':
    case '<>':
    case '<':
    case '<=':
    case '>':
    case '>=':
      checkArity(call, 2, 2);
      if (comparisonType(argTypes[0]!, argTypes[1]!) === undefined) throw operandError(call, argTypes);
      return withNullable(BOOLEAN, nullable);
    case 'IN':
      checkArity(call, 2, Infinity);
      commonTypeOfOperands(call, argTypes, allIndices(call));
      return withNullable(BOOLEAN, nullable);
    case 'AND':
    case 'OR':
      checkArity(call, 2, Infinity);
      requireRoots(['BOOLEAN']);
      return withNullable(BOOLEAN, nullable);
    case 'NOT':
      checkArity(call, 1, 1);
      requireRoots(['BOOLEAN']);
      return withNullable(BOOLEAN, nullable);
    case 'IS NULL':
    case 'IS NOT NULL':
      checkArity(call, 1, 1);
      return BOOLEAN;
    case 'IS TRUE':
    case 'IS NOT TRUE':
    case 'IS FALSE':
    case 'IS NOT FALSE':
      checkArity(call, 1, 1);
      requireRoots(['BOOLEAN']);
      return BOOLEAN;
    case 'CASE': {
      checkArity(call, 2, Infinity);
      const { whens, values } = caseBranches(call);
      for (const i of whens) {
        if (argTypes[i]!.root !== 'BOOLEAN') {
          throw operandError(call, argTypes, `WHEN condition ${printExpr(args[i]!)} is not BOOLEAN`);
        }
      }
      const t = commonTypeOfOperands(call, argTypes, values);
      // Without ELSE, an unmatched row gives NULL.
      return args.length % 2 === 0 ? withNullable(t, true) : t;
    }
    case 'COALESCE': {
      checkArity(call, 1, Infinity);
      const t = commonTypeOfOperands(call, argTypes, allIndices(call));
      return withNullable(t, argTypes.every((a) => a.nullable));
    }
    case 'TRIM':
      if (args.length === 3) return builtin('TRIM FROM')!.type(call, argTypes);
      checkArity(call, 1, 1);
      requireRoots(STRINGS);
      return argTypes[0]!;
    case 'UPPER':
    case 'LOWER':
    case 'LTRIM':
    case 'RTRIM':
      checkArity(call, 1, 1);
      requireRoots(STRINGS);
      return argTypes[0]!;
    case 'CHAR_LENGTH':
      checkArity(call, 1, 1);
      requireRoots(STRINGS);
      return withNullable(INT, nullable);
    case 'CONCAT':
    case '||':
      checkArity(call, fn === '||' ? 2 : 1, fn === '||' ? 2 : Infinity);
      requireRoots(STRINGS);
      return withNullable(STRING, nullable);
    case 'SUBSTRING':
      checkArity(call, 2, 3);
      requireRoots(STRINGS, INTEGER);
      return withNullable(argTypes[0]!, nullable);
    case 'LIKE':
      checkArity(call, 2, 3);
      requireRoots(STRINGS);
      return withNullable(BOOLEAN, nullable);
    case 'REGEXP_EXTRACT':
      checkArity(call, 2, 3);
      requireRoots(STRINGS, STRINGS, INTEGER);
      return withNullable(STRING, true);
    case 'SPLIT_INDEX':
      checkArity(call, 3, 3);
      requireRoots(STRINGS, STRINGS, INTEGER);
      return withNullable(STRING, true);
    case 'ABS':
      checkArity(call, 1, 1);
      if (!isNumeric(argTypes[0]!)) throw operandError(call, argTypes);
      return argTypes[0]!;
    case 'FLOOR':
    case 'CEIL': {
      if (args.length === 2) return builtin(`${fn} TO`)!.type(call, argTypes);
      checkArity(call, 1, 1);
      const t = argTypes[0]!;
      if (!isNumeric(t)) throw operandError(call, argTypes);
      if (t.root !== 'DECIMAL' || (t.scale ?? 0) === 0) return t;
      // Rounding to an integer can add a digit (9.5 → 10), hence the + 1.
      const { precision, scale } = decimalShape(t);
      return { root: 'DECIMAL', nullable: t.nullable, precision: Math.min(MAX_DECIMAL_PRECISION, precision - scale + 1), scale: 0 };
    }
    case 'DATE_FORMAT':
      checkArity(call, 2, 2);
      requireRoots(['TIMESTAMP'], STRINGS);
      return withNullable(STRING, nullable);
    case 'YEAR':
    case 'MONTH':
    case 'DAYOFMONTH':
    case 'HOUR':
    case 'MINUTE':
    case 'SECOND':
      checkArity(call, 1, 1);
      requireRoots(['TIMESTAMP']);
      // Flink's EXTRACT returns BIGINT.
      return withNullable(BIGINT, nullable);
    default: {
      const b = builtin(fn);
      if (b) return b.type(call, argTypes);
      throw new PlanError(
        `unknown function '${call.fn}' in ${printExpr(call)}; supported: ${[...SUPPORTED_FUNCTIONS, ...builtinNames()].join(', ')}`,
      );
    }
  }
}

/** Whether an argument is an INTERVAL literal. */
export function isIntervalLiteral(e: Expr | undefined): boolean {
  return e !== undefined && e.kind === 'literal' && e.interval !== undefined;
}

/**
 * `ts + INTERVAL …`, `INTERVAL … + ts` and `ts - INTERVAL …` are TIMESTAMPs (Flink's datetime
 * plus interval); undefined for any other arithmetic.
 */
function timestampShiftType(fn: string, call: Call, argTypes: readonly LogicalType[]): LogicalType | undefined {
  const [a, b] = call.args;
  const [ta, tb] = argTypes as [LogicalType, LogicalType];
  if ((fn === '+' || fn === '-') && ta.root === 'TIMESTAMP' && isIntervalLiteral(b)) return ta;
  if (fn === '+' && tb.root === 'TIMESTAMP' && isIntervalLiteral(a)) return tb;
  if (isIntervalLiteral(a) || isIntervalLiteral(b)) throw operandError(call, argTypes, 'an INTERVAL can only be added to or subtracted from a TIMESTAMP');
  return undefined;
}

/**
 * The type of an expression over rows of `schema`.
 *
 * @throws PlanError for unknown columns (listing the available ones), unknown functions (listing
 * the supported ones) and operands that do not fit (naming the expression and operand types).
 */
export function inferType(expr: Expr, schema: Schema): LogicalType {
  switch (expr.kind) {
    case 'ref':
      return requireField(schema, expr.name, 'expression').type;
    case 'literal':
      return expr.type;
    case 'udf':
      return expr.type;
    case 'cast': {
      const from = inferType(expr.expr, schema);
      const problem = castProblem(from, expr.type);
      if (problem !== undefined) {
        throw new PlanError(`cannot cast ${typeName(from)} to ${typeName(expr.type)} in ${printExpr(expr)}: ${problem}`);
      }
      return withNullable(expr.type, expr.safe === true || from.nullable);
    }
    case 'call':
      return inferCallType(expr, expr.args.map((a) => inferType(a, schema)));
  }
}
