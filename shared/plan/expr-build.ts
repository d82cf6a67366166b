/**
 * Small builders for expression trees, used by the TypeScript API and by tests:
 * `gt(col('price'), 10000)` builds `>(price, 10000)`.
 *
 * Operands may be expressions or plain JavaScript values; plain values become literals through
 * {@link lit}. A plain string is therefore a string literal, never a column: columns always go
 * through {@link col}, so `eq(col('channel'), 'apple')` reads unambiguously.
 */
import { PlanError } from '../core/errors.ts';
import { parseType } from '../core/type-parse.ts';
import { isDateInRange } from '../core/timestamp.ts';
import { timeZoneOf } from '../core/time-zone.ts';
import type { LogicalType, Value } from '../core/types.ts';
import type { Call, CastExpr, Expr, FieldRef, IntervalUnit, Literal } from './expr.ts';

/** An expression, or a plain value that {@link lit} turns into a literal. */
export type ExprLike = Expr | number | bigint | string | boolean;

/** A type, or its SQL text such as `'DECIMAL(10, 2)'` (parsed with `parseType`). */
export type TypeLike = LogicalType | string;

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;

/**
 * An INTERVAL of `ms` milliseconds (`INTERVAL '10' SECOND` is `interval(10_000, 'SECOND')`), to
 * add to or subtract from a TIMESTAMP: `sub(col('t'), interval(10_000))`.
 */
export function interval(ms: number, unit: IntervalUnit = 'MILLISECOND'): Literal {
  if (!Number.isSafeInteger(ms)) throw new PlanError(`an interval is a whole number of milliseconds (given ${ms})`);
  return { kind: 'literal', value: ms, type: { root: 'BIGINT', nullable: false }, interval: unit };
}

/**
 * A year-month INTERVAL of `months` months (`INTERVAL '1' YEAR` is `monthInterval(12, 'YEAR')`),
 * to add to or subtract from a DATE, TIMESTAMP or TIMESTAMP_LTZ by the calendar (Jan 31 plus one
 * month is the last day of February).
 */
export function monthInterval(months: number, unit: 'YEAR' | 'MONTH' = 'MONTH'): Literal {
  if (!Number.isSafeInteger(months)) throw new PlanError(`a year-month interval is a whole number of months (given ${months})`);
  return { kind: 'literal', value: months, type: { root: 'BIGINT', nullable: false }, interval: unit };
}

/** Whether an expression is a YEAR or MONTH interval literal. */
export function isMonthInterval(e: Expr | undefined): boolean {
  return e?.kind === 'literal' && (e.interval === 'YEAR' || e.interval === 'MONTH');
}

/** References an input column by name. */
export function col(name: string): FieldRef {
  return { kind: 'ref', name };
}

/**
 * A literal. Without `type`, the type is inferred as Flink types SQL literals: integers are
 * `INT` when they fit 32 bits and `BIGINT` when they are safe integers, other numbers `DOUBLE`, strings `STRING`,
 * booleans `BOOLEAN`, bigints `DECIMAL(p, 0)` — all `NOT NULL`. A `null` literal needs a type
 * and is always nullable. DECIMAL literals hold the unscaled bigint (`lit(150n, 'DECIMAL(3, 2)')`
 * is 1.50), TIMESTAMP and TIMESTAMP_LTZ literals epoch milliseconds, DATE literals days since
 * 1970-01-01 and TIME literals milliseconds since midnight.
 *
 * @throws PlanError when the type is missing for `null`, or the value does not fit the type.
 */
export function lit(value: Value, type?: TypeLike): Literal {
  if (type !== undefined) {
    const t = typeof type === 'string' ? parseType(type) : type;
    if (value === null) return { kind: 'literal', value, type: t.nullable ? t : { ...t, nullable: true } };
    checkLiteralValue(value, t);
    return { kind: 'literal', value, type: t };
  }
  return { kind: 'literal', value, type: inferLiteralType(value) };
}

function inferLiteralType(value: Value): LogicalType {
  switch (typeof value) {
    case 'number':
      if (Number.isInteger(value) && value >= INT_MIN && value <= INT_MAX) return { root: 'INT', nullable: false };
      if (Number.isSafeInteger(value)) return { root: 'BIGINT', nullable: false };
      // Fractions, and integers too large to be exact, are approximate numbers.
      return { root: 'DOUBLE', nullable: false };
    case 'bigint': {
      const digits = (value < 0n ? -value : value).toString().length;
      if (digits > 38) throw new PlanError(`DECIMAL literal ${value} has more than 38 digits`);
      return { root: 'DECIMAL', nullable: false, precision: digits, scale: 0 };
    }
    case 'string':
      return { root: 'STRING', nullable: false };
    case 'boolean':
      return { root: 'BOOLEAN', nullable: false };
    default:
      throw new PlanError('A null literal needs a type, e.g. lit(null, "BIGINT")');
  }
}

/** Rejects values whose runtime representation does not match the type (see core/types.ts). */
function checkLiteralValue(value: Exclude<Value, null>, type: LogicalType): void {
  const bad = (why: string): never => {
    throw new PlanError(`Literal ${String(value)} does not fit type ${type.root}: ${why}`);
  };
  switch (type.root) {
    case 'INT':
      if (typeof value !== 'number' || !Number.isInteger(value) || value < INT_MIN || value > INT_MAX) bad('expected a 32-bit integer');
      break;
    case 'SMALLINT':
      if (typeof value !== 'number' || !Number.isInteger(value) || value < -32768 || value > 32767) bad('expected a 16-bit integer');
      break;
    case 'TINYINT':
      if (typeof value !== 'number' || !Number.isInteger(value) || value < -128 || value > 127) bad('expected an 8-bit integer');
      break;
    case 'FLOAT':
      if (typeof value !== 'number' || Math.fround(value) !== value) bad('expected a single-precision number (Math.fround)');
      break;
    case 'BIGINT':
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) bad('expected a safe integer number');
      break;
    case 'DATE':
      if (typeof value !== 'number' || !isDateInRange(value)) bad('expected days since 1970-01-01 within years 0000-9999');
      break;
    case 'TIME':
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value >= 86_400_000) bad('expected milliseconds since midnight');
      break;
    case 'DOUBLE':
      if (typeof value !== 'number') bad('expected a number');
      break;
    case 'DECIMAL': {
      if (typeof value !== 'bigint') return bad('expected the unscaled value as a bigint');
      const digits = (value < 0n ? -value : value).toString().length;
      if (digits > (type.precision ?? 10)) bad(`more than ${type.precision ?? 10} digits`);
      break;
    }
    case 'STRING':
      if (typeof value !== 'string') bad('expected a string');
      else if (type.length !== undefined && [...value].length > type.length) bad(`longer than ${type.length} characters`);
      break;
    case 'BOOLEAN':
      if (typeof value !== 'boolean') bad('expected a boolean');
      break;
    case 'VARBINARY':
      if (typeof value !== 'string' || !/^(?:[0-9a-f]{2})*$/.test(value)) bad('expected the bytes as lower-case hex');
      break;
  }
}

/** Wraps plain values as literals and passes expressions through. */
export function toExpr(value: ExprLike): Expr {
  return typeof value === 'object' ? value : lit(value);
}

/** A call of a built-in operator or function; the name is upper-cased as in {@link Call}. */
export function call(fn: string, ...args: ExprLike[]): Call {
  return { kind: 'call', fn: fn.toUpperCase(), args: args.map(toExpr) };
}

/** `CAST(expr AS type)`. */
export function cast(expr: ExprLike, type: TypeLike): CastExpr {
  return { kind: 'cast', expr: toExpr(expr), type: typeof type === 'string' ? parseType(type) : type };
}

/** `TRY_CAST(expr AS type)`: NULL where {@link cast} would fail the record. */
export function tryCast(expr: ExprLike, type: TypeLike): CastExpr {
  return { ...cast(expr, type), safe: true };
}

/** `a = b`. */
export function eq(a: ExprLike, b: ExprLike): Call {
  return call('=', a, b);
}

/** `a <> b`. */
export function neq(a: ExprLike, b: ExprLike): Call {
  return call('<>', a, b);
}

/** `a < b`. */
export function lt(a: ExprLike, b: ExprLike): Call {
  return call('<', a, b);
}

/** `a <= b`. */
export function le(a: ExprLike, b: ExprLike): Call {
  return call('<=', a, b);
}

/** `a > b`. */
export function gt(a: ExprLike, b: ExprLike): Call {
  return call('>', a, b);
}

/** `a >= b`. */
export function ge(a: ExprLike, b: ExprLike): Call {
  return call('>=', a, b);
}

/** `a AND b AND …` (two or more operands, kept flat as Flink prints them). */
export function and(a: ExprLike, b: ExprLike, ...more: ExprLike[]): Call {
  return call('AND', a, b, ...more);
}

/** `a OR b OR …` (two or more operands, kept flat as Flink prints them). */
export function or(a: ExprLike, b: ExprLike, ...more: ExprLike[]): Call {
  return call('OR', a, b, ...more);
}

/** `NOT a`. */
export function not(a: ExprLike): Call {
  return call('NOT', a);
}

/** `a + b`. */
export function add(a: ExprLike, b: ExprLike): Call {
  return call('+', a, b);
}

/** `a - b`. */
export function sub(a: ExprLike, b: ExprLike): Call {
  return call('-', a, b);
}

/** `a * b`. */
export function mul(a: ExprLike, b: ExprLike): Call {
  return call('*', a, b);
}

/** `a / b` (integer division for integer operands, as in Flink). */
export function div(a: ExprLike, b: ExprLike): Call {
  return call('/', a, b);
}

/** `MOD(a, b)`, which is also what Flink makes of `a % b`. */
export function mod(a: ExprLike, b: ExprLike): Call {
  return call('MOD', a, b);
}

/** `a IS NULL`. */
export function isNull(a: ExprLike): Call {
  return call('IS NULL', a);
}

/** `a IS NOT NULL`. */
export function isNotNull(a: ExprLike): Call {
  return call('IS NOT NULL', a);
}

/**
 * `CASE WHEN c1 THEN v1 … ELSE e END`; without `elseValue` the result is NULL when no condition
 * holds, as in SQL.
 */
export function caseWhen(branches: readonly (readonly [ExprLike, ExprLike])[], elseValue?: ExprLike): Call {
  if (branches.length === 0) throw new PlanError('CASE needs at least one WHEN branch');
  const args: ExprLike[] = [];
  for (const [cond, value] of branches) args.push(cond, value);
  if (elseValue !== undefined) args.push(elseValue);
  return call('CASE', ...args);
}

/** `DATE_FORMAT(expr, pattern)` with a Java SimpleDateFormat pattern such as `'yyyy-MM-dd'`. */
export function dateFormat(expr: ExprLike, pattern: string): Call {
  return call('DATE_FORMAT', expr, lit(pattern));
}

/**
 * The expression with every call and cast in it evaluated under the session time zone `zone`
 * (a tz database name such as `'Asia/Shanghai'`, `'GMT+08:00'` or `'UTC'`): how TIMESTAMP_LTZ
 * values are cast to and from TIMESTAMP, DATE, TIME and STRING, and what CURRENT_DATE,
 * LOCALTIMESTAMP and the other zone-dependent functions return. UTC leaves the tree as it is.
 *
 * @throws PlanError for an unknown zone.
 */
export function inTimeZone(expr: Expr, zone: string): Expr {
  timeZoneOf(zone);
  if (zone === 'UTC') return expr;
  const stamp = (e: Expr): Expr => {
    switch (e.kind) {
      case 'call':
        return { ...e, args: e.args.map(stamp), zone };
      case 'cast':
        return { ...e, expr: stamp(e.expr), zone };
      case 'udf':
        // The function's own argument casts are implicit ones, which need no zone (udf-signature.ts).
        return e.args === undefined ? e : { ...e, args: e.args.map(stamp) };
      default:
        return e;
    }
  };
  return stamp(expr);
}
