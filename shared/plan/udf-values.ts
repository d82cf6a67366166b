/**
 * The JS values a user function (`scalarFunction`, `tableFunction`, `aggregateFunction`) takes
 * and gives back, and the conversions between them and the engine's runtime values
 * (shared/core/types.ts). An argument is first cast implicitly to its parameter's type (the
 * declared one: see ./udf-signature.ts), as Flink casts a DECIMAL into an `eval(Double… d)`;
 * then:
 *
 * - DECIMAL(p, s) of a declared parameter arrives as its exact text with `s` fraction digits
 *   (`'1.50'`): a JS number would round it, and the unscaled bigint the engine keeps reads as a
 *   different number. Undeclared, it arrives as a number (only up to 15 digits: see
 *   udf-signature.ts).
 * - INT, BIGINT, DOUBLE and TIMESTAMP (epoch milliseconds, UTC) arrive as numbers, STRING as a
 *   string, BOOLEAN as a boolean, ARRAY as an array, ROW and MAP as plain objects, with their
 *   parts converted the same way; NULL as `null`.
 * - BYTES, VARBINARY(n) and BINARY(n) arrive as a `Uint8Array` (a Node `Buffer`), as Flink hands
 *   a Java function a `byte[]`, and a `Uint8Array` result is one.
 * - The other date-time types arrive as numbers of milliseconds too, so that `new Date(v)` reads
 *   them: TIMESTAMP_LTZ as the epoch milliseconds of its instant, DATE as the epoch milliseconds
 *   of its midnight in UTC (`new Date(v).toISOString().slice(0, 10)` is its text), TIME as the
 *   milliseconds since midnight. (Flink hands a Java function a LocalDate, a LocalTime and an
 *   Instant; JavaScript has no local date or time of day, and a TIMESTAMP already arrives so.)
 *
 * A result goes back to the declared result type as CAST converts: a number into a DECIMAL is
 * rounded HALF_UP to its scale, a fraction into an INT or BIGINT is truncated, a DECIMAL also
 * takes its text (`'7.50'`) or a bigint (an integer, not the unscaled value); a TIMESTAMP,
 * TIMESTAMP_LTZ or DATE takes its number of milliseconds as above or a JS `Date` (a DATE's at a
 * UTC midnight), a TIME its milliseconds since midnight (cut to its precision); a value of another
 * kind (a string for an INT) is a data error naming the function, as is a DECIMAL overflow.
 */
import { fitsPrecision, formatDecimal, pow10 } from '../core/decimal.ts';
import { PlanError, RecordError } from '../core/errors.ts';
import type { LogicalType, Value } from '../core/types.ts';
import { isTimestampInRange, truncateTimePrecision } from '../core/timestamp.ts';
import { canonicalMultiset, type Multiset } from '../core/multiset.ts';
import { castConverter, decimalToDouble, type Converter, type NonNullValue } from './expr-cast.ts';
import { sameType, typeName } from './expr-type-rules.ts';
import { resolveUdfCall, type UdfArgument, type UdfSignature } from './udf-signature.ts';

/** A not-null value → another value (null possible only for nested parts). */
type Convert = (value: NonNullValue) => unknown;

const DOUBLE: LogicalType = { root: 'DOUBLE', nullable: false };
const MS_PER_DAY = 86_400_000;
const STRING: LogicalType = { root: 'STRING', nullable: false };

/** Applies `convert` to the parts of a nested value that are not null. */
function orNull(convert: Convert): (value: unknown) => unknown {
  return (v) => (v === null || v === undefined ? null : convert(v as NonNullValue));
}

/** The implicit cast of a runtime value of `from` into `to`'s representation, or undefined when none is needed. */
function implicitCast(from: LogicalType, to: LogicalType, where: string): Converter | undefined {
  return sameType(from, to) ? undefined : castConverter(from, to, where);
}

/** The JS value of a runtime value of `type` (see the module comment), or undefined when it is the same. */
function toJs(type: LogicalType, declared: boolean): Convert | undefined {
  switch (type.root) {
    case 'DECIMAL': {
      const scale = type.scale ?? 0;
      return declared ? (v) => formatDecimal(v as bigint, scale) : (v) => decimalToDouble(v as bigint, scale);
    }
    case 'DATE':
      // Days since the epoch → the epoch milliseconds of that day's UTC midnight.
      return (v) => (v as number) * MS_PER_DAY;
    case 'VARBINARY':
      return (v) => Buffer.from(v as string, 'hex');
    case 'ARRAY': {
      const element = toJs(type.element!, declared);
      if (element === undefined) return undefined;
      const each = orNull(element);
      return (v) => (v as readonly Value[]).map(each);
    }
    case 'MAP': {
      const value = toJs(type.value!, declared);
      if (value === undefined) return undefined;
      const each = orNull(value);
      return (v) => Object.fromEntries(Object.entries(v as Record<string, Value>).map(([k, x]) => [k, each(x)]));
    }
    case 'MULTISET': {
      // [element, count] pairs (shared/core/multiset.ts), each element as its own JS value.
      const element = toJs(type.element!, declared);
      if (element === undefined) return undefined;
      const each = orNull(element);
      return (v) => (v as Multiset).map(([e, n]) => [each(e), n]);
    }
    case 'ROW': {
      const fields = (type.fields ?? []).map((f) => ({ name: f.name, convert: toJs(f.type, declared) }));
      if (fields.every((f) => f.convert === undefined)) return undefined;
      const each = fields.map((f) => ({ name: f.name, convert: f.convert === undefined ? (x: unknown) => x : orNull(f.convert) }));
      return (v) => {
        const row = v as Record<string, Value>;
        const out: Record<string, unknown> = {};
        for (const f of each) out[f.name] = f.convert(row[f.name] ?? null);
        return out;
      };
    }
    default:
      return undefined;
  }
}

/**
 * How a runtime value of an argument of type `from` reaches a parameter of type `param`: cast
 * implicitly, then as the JS value `param` arrives as (`declared`: the parameter was declared,
 * so a DECIMAL arrives as its text). Undefined when the value passes unchanged.
 */
export function udfArgumentConverter(from: LogicalType, param: LogicalType, declared: boolean, where: string): Convert | undefined {
  const cast = implicitCast(from, param, where);
  const js = toJs(param, declared);
  if (cast === undefined) return js;
  if (js === undefined) return cast;
  return (v) => {
    const c = cast(v);
    return c === null ? null : js(c);
  };
}

/** `'abc' (a string)`, `1.5 (a number)`, `an object`, for messages. */
function describeJs(value: unknown): string {
  if (typeof value === 'string') return `'${value.length > 40 ? `${value.slice(0, 40)}…` : value}' (a string)`;
  if (typeof value === 'bigint') return `${value}n (a bigint)`;
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return value instanceof Date ? 'a Date' : 'an object';
  return `${String(value)} (a ${typeof value})`;
}

/** A bigint (an integer) into a numeric type, as CAST from DECIMAL(p, 0) does. */
function fromBigint(type: LogicalType, fail: (value: unknown, detail?: string) => never): (v: bigint) => Value {
  switch (type.root) {
    case 'INT':
      return (v) => Number(BigInt.asIntN(32, v));
    case 'SMALLINT':
      return (v) => Number(BigInt.asIntN(16, v));
    case 'TINYINT':
      return (v) => Number(BigInt.asIntN(8, v));
    case 'BIGINT':
      return (v) => Number(BigInt.asIntN(64, v));
    case 'DOUBLE':
      return (v) => Number(v);
    case 'FLOAT':
      return (v) => Math.fround(Number(v));
    default: {
      const precision = type.precision ?? 10;
      const factor = pow10(type.scale ?? 0);
      return (v) => {
        const unscaled = v * factor;
        return fitsPrecision(unscaled, precision) ? unscaled : fail(v, `it overflows DECIMAL precision ${precision}`);
      };
    }
  }
}

/** A not-null JS result → the runtime value of `type`. */
function fromJs(type: LogicalType, where: string): (value: unknown) => Value {
  const fail = (value: unknown, detail?: string): never => {
    throw new RecordError(`${where} returned ${describeJs(value)} for its ${typeName(type)} result${detail === undefined ? '' : `: ${detail}`}`);
  };
  switch (type.root) {
    case 'BOOLEAN':
      return (v) => (typeof v === 'boolean' ? v : fail(v));
    case 'VARBINARY': {
      const limit = type.length === undefined ? undefined : castConverter({ root: 'VARBINARY', nullable: false }, type, where);
      return (v) => {
        if (!(v instanceof Uint8Array)) return fail(v, 'a binary result is a Uint8Array');
        const hex = Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex');
        return limit === undefined ? hex : limit(hex);
      };
    }
    case 'STRING': {
      const limit = castConverter(STRING, type, where);
      return (v) => (typeof v !== 'string' ? fail(v) : limit === undefined ? v : limit(v));
    }
    case 'INT':
    case 'SMALLINT':
    case 'TINYINT':
    case 'BIGINT':
    case 'DOUBLE':
    case 'FLOAT':
    case 'DECIMAL': {
      const ofNumber = castConverter(DOUBLE, type, where);
      const ofText = type.root === 'DECIMAL' ? castConverter(STRING, type, where) : undefined;
      const ofBigint = fromBigint(type, fail);
      // The common case passes unchanged: a number that already is a value of the type.
      const exact =
        type.root === 'INT' ? (n: number) => (n | 0) === n
        : type.root === 'SMALLINT' ? (n: number) => ((n << 16) >> 16) === n
        : type.root === 'TINYINT' ? (n: number) => ((n << 24) >> 24) === n
        : type.root === 'BIGINT' ? Number.isSafeInteger
        : type.root === 'DOUBLE' ? () => true
        : type.root === 'FLOAT' ? (n: number) => Math.fround(n) === n
        : () => false;
      return (v) => {
        if (typeof v === 'number') return exact(v) || ofNumber === undefined ? v : ofNumber(v);
        if (typeof v === 'bigint') return ofBigint(v);
        if (typeof v === 'string' && ofText !== undefined) return ofText(v);
        return fail(v);
      };
    }
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ': {
      const detail = `a ${type.root} is a whole number of epoch milliseconds or a Date, within years 0000-9999`;
      return (v) => {
        const ms = epochMillis(v);
        return ms !== undefined && isTimestampInRange(ms) ? ms : fail(v, detail);
      };
    }
    case 'DATE':
      return (v) => {
        const ms = epochMillis(v);
        return ms !== undefined && ms % MS_PER_DAY === 0 && isTimestampInRange(ms) ? ms / MS_PER_DAY : fail(v, 'a DATE is the epoch milliseconds (or a Date) of a UTC midnight, within years 0000-9999');
      };
    case 'TIME': {
      const precision = type.precision ?? 0;
      return (v) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < MS_PER_DAY ? truncateTimePrecision(v, precision) : fail(v, 'a TIME is a whole number of milliseconds since midnight, below 86400000'));
    }
    case 'ARRAY': {
      const element = fromJsOrNull(type.element!, where);
      return (v) => (Array.isArray(v) ? v.map(element) : fail(v));
    }
    case 'ROW': {
      const fields = (type.fields ?? []).map((f) => ({ name: f.name, convert: fromJsOrNull(f.type, where) }));
      return (v) => {
        if (Array.isArray(v)) return Object.fromEntries(fields.map((f, i) => [f.name, f.convert(v[i])]));
        if (typeof v !== 'object' || v === null) return fail(v);
        const row = v as Record<string, unknown>;
        return Object.fromEntries(fields.map((f) => [f.name, f.convert(row[f.name])]));
      };
    }
    case 'MULTISET': {
      // A Map from element to count, or [element, count] pairs, as COLLECT's value is.
      const element = fromJsOrNull(type.element!, where);
      const count = (n: unknown): number => (typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : fail(n, 'a MULTISET count is a positive integer'));
      return (v) => {
        const pairs = v instanceof Map ? [...(v as Map<unknown, unknown>)] : Array.isArray(v) ? (v as unknown[]).map((p) => (Array.isArray(p) && p.length === 2 ? (p as [unknown, unknown]) : fail(v, 'a MULTISET is a Map or [element, count] pairs'))) : fail(v);
        return canonicalMultiset(pairs.map(([e, n]) => [element(e), count(n)] as const)) as unknown as Value;
      };
    }
    case 'MAP': {
      const value = fromJsOrNull(type.value!, where);
      return (v) => {
        if (v instanceof Map) return Object.fromEntries([...(v as Map<unknown, unknown>)].map(([k, x]) => [typeof k === 'string' ? k : fail(k, 'a MAP key is a string'), value(x)]));
        if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(v);
        return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, value(x)]));
      };
    }
  }
}

/** The epoch milliseconds of a JS result for a date-time type: a whole number, or a valid `Date`. */
function epochMillis(v: unknown): number | undefined {
  const ms = v instanceof Date ? v.getTime() : v;
  return typeof ms === 'number' && Number.isInteger(ms) ? ms : undefined;
}

function fromJsOrNull(type: LogicalType, where: string): (value: unknown) => Value {
  const convert = fromJs(type, where);
  return (v) => (v === null || v === undefined ? null : convert(v));
}

/**
 * How a user function's JS result becomes the runtime value of its declared result `type`
 * (`undefined` and `null` are NULL). `where` names the function in data errors.
 */
export function udfResultConverter(type: LogicalType, where: string): (value: unknown) => Value {
  return fromJsOrNull(type, where);
}

/** A call bound to the parameter types it resolved to. */
export interface BoundUdfCall {
  readonly params: readonly LogicalType[];
  /** The JS values of the arguments' runtime values, in order (NULL is null). */
  readonly toJs: (values: readonly Value[]) => unknown[];
}

/**
 * Resolves a call of user function `name` (see resolveUdfCall in ./udf-signature.ts) and binds
 * how its argument values reach it.
 *
 * @throws PlanError naming the function, the argument and both types when no signature takes the call.
 */
export function bindUdfCall(name: string, signatures: readonly UdfSignature[] | undefined, args: readonly UdfArgument[]): BoundUdfCall {
  const resolution = resolveUdfCall(name, signatures, args);
  if (!resolution.ok) throw new PlanError(resolution.message);
  const where = `user function ${name}`;
  // A NULL literal's value is null whatever its type: nothing to convert.
  const converters = resolution.params.map((param, i) => (args[i]!.isNull === true ? undefined : udfArgumentConverter(args[i]!.type, param, signatures !== undefined, where)));
  return {
    params: resolution.params,
    toJs: (values) =>
      values.map((v, i) => {
        if (v === null) return null;
        const convert = converters[i];
        return convert === undefined ? v : convert(v);
      }),
  };
}
