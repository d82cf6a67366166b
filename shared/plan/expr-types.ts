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
 *
 * The rules that do not depend on the function registry (widening, common types, casts) are
 * in expr-type-rules.ts; this module types calls and whole expressions.
 */
import { PlanError } from '../core/errors.ts';
import { MAX_DECIMAL_PRECISION, requireField } from '../core/type-parse.ts';
import type { LogicalType, Schema } from '../core/types.ts';
import type { Call, Expr } from './expr.ts';
import { printExpr } from './expr-print.ts';
import { isMonthInterval } from './expr-build.ts';
import { resolveUdfCall, udfArguments } from './udf-signature.ts';
import { builtin, builtinNames } from './expr-builtins.ts';
import { unsupportedFlinkFunction } from './flink-functions.ts';
import {
  allIndices,
  arithmeticType,
  canonicalFunctionName,
  caseBranches,
  castProblem,
  commonTypeOfOperands,
  comparisonType,
  decimalShape,
  isDatetime,
  isNumeric,
  operandError,
  typeName,
  withNullable,
} from './expr-type-rules.ts';

const INT: LogicalType = { root: 'INT', nullable: false };
const STRING: LogicalType = { root: 'STRING', nullable: false };
const BOOLEAN: LogicalType = { root: 'BOOLEAN', nullable: false };

/** Everything `inferCallType` knows, listed in errors about unknown functions. */
export const SUPPORTED_FUNCTIONS: readonly string[] = [
  '+', '-', '*', '/', '%', 'MOD',
  '=', '<>', '<', '<=', '>', '>=', 'IN',
  'AND', 'OR', 'NOT',
  'IS NULL', 'IS NOT NULL', 'IS TRUE', 'IS NOT TRUE', 'IS FALSE', 'IS NOT FALSE',
  'CASE', 'COALESCE',
  'UPPER', 'LOWER', 'CHAR_LENGTH', 'CONCAT', '||', 'SUBSTRING', 'TRIM', 'LIKE',
  'REGEXP_EXTRACT', 'SPLIT_INDEX',
  'ABS', 'FLOOR', 'CEIL',
];

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
  const INTEGER = ['TINYINT', 'SMALLINT', 'INT', 'BIGINT'];
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
    default: {
      const b = builtin(fn);
      if (b) return b.type(call, argTypes);
      const flink = unsupportedFlinkFunction(fn);
      if (flink !== undefined) throw new PlanError(`${flink} in ${printExpr(call)}`);
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
 * `x + INTERVAL …`, `INTERVAL … + x` and `x - INTERVAL …` keep the type of the date-time `x`
 * (TIMESTAMP, TIMESTAMP_LTZ, DATE or TIME: Flink's datetime plus interval); undefined for any
 * other arithmetic.
 */
function timestampShiftType(fn: string, call: Call, argTypes: readonly LogicalType[]): LogicalType | undefined {
  const [a, b] = call.args;
  const [ta, tb] = argTypes as [LogicalType, LogicalType];
  const months = isMonthInterval(a) || isMonthInterval(b);
  if (months && (ta.root === 'TIME' || tb.root === 'TIME')) throw operandError(call, argTypes, 'a YEAR or MONTH interval cannot be added to or subtracted from a TIME');
  if ((fn === '+' || fn === '-') && isDatetime(ta) && isIntervalLiteral(b)) return withNullable(ta, ta.nullable || tb.nullable);
  if (fn === '+' && isDatetime(tb) && isIntervalLiteral(a)) return withNullable(tb, ta.nullable || tb.nullable);
  if (isIntervalLiteral(a) || isIntervalLiteral(b)) throw operandError(call, argTypes, 'an INTERVAL can only be added to or subtracted from a DATE, TIME, TIMESTAMP or TIMESTAMP_LTZ');
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
    case 'udf': {
      if (expr.args === undefined) return expr.type;
      const argTypes = expr.args.map((a) => inferType(a, schema));
      const resolution = resolveUdfCall(expr.display, expr.input, udfArguments(expr.args, argTypes));
      if (!resolution.ok) throw new PlanError(resolution.message);
      return expr.type;
    }
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
