/**
 * Value conversions between SQL types, shared by explicit `CAST` and by the implicit widening the
 * compiler inserts (INT → DECIMAL for `price * 0.908`, DECIMAL → DOUBLE, string → TIMESTAMP in
 * comparisons). Converters are chosen once per expression and never see NULL: callers keep the
 * null check on their side so that the common not-null path is one call.
 *
 * Semantics follow Flink's CAST (1.15+, non-legacy): numbers narrow like Java casts (INT,
 * SMALLINT and TINYINT wrap, `(byte) 300` is 44; DOUBLE → INT truncates and saturates, DOUBLE →
 * TINYINT goes through int as Java's `(byte) d` does; DOUBLE → FLOAT rounds to single precision),
 * rounding to DECIMAL is HALF_UP, BOOLEAN → STRING is `TRUE`/`FALSE`, DOUBLE → STRING uses Java's
 * `Double.toString` format (`1.0E10`) and FLOAT → STRING `Float.toString` (`1.1`), strings are
 * trimmed before parsing, VARCHAR(n) targets truncate and CHAR(n) targets truncate and pad with
 * spaces to n. Casts that cannot produce a value
 * (`'abc'` to INT, a DECIMAL overflow) throw a RecordError, so the record is dead-lettered.
 * (Flink yields NULL for DECIMAL overflow; we refuse instead, because a NULL would silently break
 * the NOT NULL type the planner inferred.)
 *
 * Date-time casts follow Flink too: a TIMESTAMP_LTZ is read and written as a wall-clock time of
 * the session time zone (`zone`); DATE → TIMESTAMP is midnight, TIME → TIMESTAMP is that time on
 * 1970-01-01, TIMESTAMP → DATE / TIME keeps the date / the time of day, and a TIME(p) keeps `p`
 * fraction digits.
 */
import { shortestFloat } from '../core/codec.ts';
import { fitsPrecision, formatDecimal, pow10, rescaleDecimal, tryParseDecimal } from '../core/decimal.ts';
import { RecordError } from '../core/errors.ts';
import { javaDouble } from '../core/format-encoders.ts';
import type { Multiset } from '../core/multiset.ts';
import { formatDate, formatTime, formatTimestamp, parseDate, parseTime, parseTimestamp, truncateTimePrecision } from '../core/timestamp.ts';
import { timeZoneOf, toInstant, toLocalMillis, type TimeZone } from '../core/time-zone.ts';
import type { LogicalType, Value } from '../core/types.ts';
import { truncateCodePoints } from './expr-strings.ts';
import { isNumeric, sameType, typeName } from './expr-type-rules.ts';

/** A not-null runtime value. */
export type NonNullValue = Exclude<Value, null>;

/** Converts a not-null value of one type to the representation of another. */
export type Converter = (value: NonNullValue) => Value;

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;
/** Java's Long.MIN_VALUE/MAX_VALUE as doubles: where DOUBLE → BIGINT saturates. */
const LONG_MIN = -(2 ** 63);
const LONG_MAX = 2 ** 63;
const LONG_MIN_BIG = -(2n ** 63n);
const LONG_MAX_BIG = 2n ** 63n - 1n;
const MAX_SAFE_BIG = BigInt(Number.MAX_SAFE_INTEGER);
/** Powers of ten that are exact doubles (10^22 is the last one). */
const POW10_NUMBER: readonly number[] = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * Prints a double as Java's `Double.toString` does (which Flink uses for CAST to STRING): plain
 * notation with at least one fraction digit for 10^-3 ≤ |d| < 10^7 (`1.0`, `0.001`), otherwise
 * computerized scientific notation (`1.0E7`, `1.5E-4`), and `NaN`, `Infinity`, `-Infinity` —
 * the csv writer's {@link javaDouble}, so a cast and a written field print alike.
 */
export const formatDouble: (value: number) => string = javaDouble;

/**
 * Prints a FLOAT value (a double holding a single-precision number) as Java's `Float.toString`
 * does: the fewest digits that read back as the same float (`1.1`, not the double's
 * `1.100000023841858`), laid out as {@link formatDouble} lays out a double.
 */
export function formatFloat(value: number): string {
  return formatDouble(shortestFloat(value));
}

/** Java's `(short)` narrowing of an int. */
export function toShort(n: number): number {
  return (n << 16) >> 16;
}

/** Java's `(byte)` narrowing of an int. */
export function toByte(n: number): number {
  return (n << 24) >> 24;
}

/** The integer types' ranges, for string parsing. */
const INTEGER_RANGE: Readonly<Record<string, readonly [bigint, bigint]>> = {
  TINYINT: [-128n, 127n],
  SMALLINT: [-32768n, 32767n],
  INT: [BigInt(INT_MIN), BigInt(INT_MAX)],
  BIGINT: [LONG_MIN_BIG, LONG_MAX_BIG],
};

/** Java's narrowing of an int to the integer type `root` (identity for INT and BIGINT). */
function narrowInt(root: LogicalType['root']): (n: number) => number {
  return root === 'TINYINT' ? toByte : root === 'SMALLINT' ? toShort : (n) => n;
}

/** Pads a text with spaces to `n` code points, as a CHAR(n) value is. */
export function padCodePoints(text: string, n: number): string {
  const missing = n - codePointLength(text);
  return missing > 0 ? text + ' '.repeat(missing) : text;
}

function codePointLength(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) i++;
    count++;
  }
  return count;
}

/**
 * A binary value (lower-case hex) cut to `length` bytes and, for BINARY(n), padded with zero
 * bytes to n, as Flink's casts to BINARY(n) / VARBINARY(n) do.
 */
export function resizeBinary(hex: string, length: number | undefined, fixed: boolean): string {
  if (length === undefined) return hex;
  const cut = hex.length > length * 2 ? hex.slice(0, length * 2) : hex;
  return fixed && cut.length < length * 2 ? cut.padEnd(length * 2, '0') : cut;
}

/** Text as the hex of its UTF-8 bytes (a CAST of STRING to BYTES). */
export function utf8Hex(text: string): string {
  return Buffer.from(text, 'utf8').toString('hex');
}

/** The text of UTF-8 bytes given in hex (a CAST of BYTES to STRING; bad sequences read as U+FFFD, as in Java). */
export function hexUtf8(hex: string): string {
  return Buffer.from(hex, 'hex').toString('utf8');
}

/** DECIMAL unscaled value → nearest double (exact fast path when both parts are exact doubles). */
export function decimalToDouble(unscaled: bigint, scale: number): number {
  if (unscaled <= MAX_SAFE_BIG && unscaled >= -MAX_SAFE_BIG && scale < POW10_NUMBER.length) {
    // Both operands are exact, so the one division rounds correctly.
    return Number(unscaled) / POW10_NUMBER[scale]!;
  }
  return Number(formatDecimal(unscaled, scale));
}

/** Strips the whitespace and control characters Java's `String.trim` strips (code ≤ U+0020). */
function javaTrim(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) <= 32) start++;
  while (end > start && text.charCodeAt(end - 1) <= 32) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

const INTEGER_TEXT = /^[+-]?\d+(?:\.\d*)?$/;
const DOUBLE_TEXT = /^[+-]?(?:NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)[fFdD]?$/;
const DATE_TEXT = /^\d{4}-\d{2}-\d{2}$/;
const MS_PER_DAY = 86_400_000;
const UTC = timeZoneOf('UTC');
const TRUE_TEXT = new Set(['true', 't', 'yes', 'y', '1']);
const FALSE_TEXT = new Set(['false', 'f', 'no', 'n', '0']);

/**
 * Builds the converter from `from` to `to`, or `undefined` when values need no conversion.
 * `where` (the printed expression) goes into RecordError messages.
 *
 * Callers check castability first (see `castProblem` in expr-type-rules.ts); pairs outside Flink's
 * cast matrix here are a programming error.
 */
export function castConverter(from: LogicalType, to: LogicalType, where: string, zone: TimeZone = UTC): Converter | undefined {
  const fail = (value: NonNullValue, detail?: string): never => {
    const shown = typeof value === 'string' ? `'${value}'` : typeof value === 'bigint' ? formatDecimal(value, from.scale ?? 0) : String(value);
    throw new RecordError(`cannot cast ${shown} to ${typeName(to)} in ${where}${detail === undefined ? '' : `: ${detail}`}`);
  };
  if (to.root === 'STRING') return toStringConverter(from, to, zone);
  switch (from.root) {
    case 'STRING':
      return fromStringConverter(to, fail, zone);
    case 'VARBINARY': {
      // castProblem admits only BINARY / VARBINARY / BYTES here: resize to the target's length.
      const fixed = to.fixedLength === true;
      if (to.length === undefined || (!fixed && from.length !== undefined && from.length <= to.length) || (fixed && from.fixedLength === true && from.length === to.length)) return undefined;
      return (v) => resizeBinary(v as string, to.length, fixed);
    }
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
      return fromIntegerConverter(from, to, fail);
    case 'DOUBLE':
    case 'FLOAT':
      return fromDoubleConverter(from, to, fail);
    case 'DECIMAL':
      return fromDecimalConverter(from, to, fail);
    case 'BOOLEAN':
      return fromBooleanConverter(to, fail);
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
    case 'DATE':
    case 'TIME': {
      const convert = datetimeConverter(from, to, zone);
      if (convert !== null) return convert;
      break;
    }
    case 'ROW':
    case 'ARRAY':
    case 'MAP':
      return structuralConverter(from, to, where, zone);
    case 'MULTISET':
      // castProblem admits only a cast to the same type (nullability aside).
      return undefined;
  }
  throw new Error(`internal: no conversion from ${typeName(from)} to ${typeName(to)} in ${where}`);
}

/**
 * A ROW, ARRAY or MAP cast to one of its kind (castProblem has checked the shape): each part by
 * its own cast, ROW fields by position into the target's names (a ROW value is an object by field
 * name); undefined when no part changes.
 */
function structuralConverter(from: LogicalType, to: LogicalType, where: string, zone: TimeZone): Converter | undefined {
  const part = (a: LogicalType, b: LogicalType): ((v: Value) => Value) | undefined => {
    const convert = sameType(a, b) ? undefined : castConverter(a, b, where, zone);
    return convert === undefined ? undefined : (v) => (v === null || v === undefined ? null : convert(v as NonNullValue));
  };
  switch (to.root) {
    case 'ARRAY': {
      const each = part(from.element!, to.element!);
      return each === undefined ? undefined : (v) => (v as readonly Value[]).map(each);
    }
    case 'MAP': {
      const each = part(from.value!, to.value!);
      return each === undefined ? undefined : (v) => Object.fromEntries(Object.entries(v as Record<string, Value>).map(([k, x]) => [k, each(x)])) as Value;
    }
    default: {
      const source = from.fields ?? [];
      const fields = (to.fields ?? []).map((f, i) => ({ from: source[i]!.name, to: f.name, convert: part(source[i]!.type, f.type) }));
      if (fields.every((f) => f.convert === undefined && f.from === f.to)) return undefined;
      return (v) => {
        const row = v as Record<string, Value>;
        const out: Record<string, Value> = {};
        for (const f of fields) {
          const x = row[f.from] ?? null;
          out[f.to] = f.convert === undefined ? x : f.convert(x);
        }
        return out;
      };
    }
  }
}

/** Milliseconds since midnight of a wall-clock reading (a TIMESTAMP value). */
function timeOfDay(local: number): number {
  const r = local % MS_PER_DAY;
  return r < 0 ? r + MS_PER_DAY : r;
}

/**
 * Conversions among DATE, TIME, TIMESTAMP and TIMESTAMP_LTZ: undefined when the values need
 * none, null for a pair Flink does not cast (DATE ↔ TIME, which castProblem rejects first).
 * Each goes through the wall-clock reading (a TIMESTAMP value): an LTZ instant becomes one in
 * `zone`, and back.
 */
function datetimeConverter(from: LogicalType, to: LogicalType, zone: TimeZone): Converter | undefined | null {
  const toLocal: (v: number) => number =
    from.root === 'TIMESTAMP' ? (v) => v
    : from.root === 'TIMESTAMP_LTZ' ? (v) => toLocalMillis(v, zone)
    : from.root === 'DATE' ? (v) => v * MS_PER_DAY
    : (v) => v;
  switch (to.root) {
    case 'TIMESTAMP':
      if (from.root === 'TIMESTAMP') return undefined;
      return (v) => toLocal(v as number);
    case 'TIMESTAMP_LTZ':
      if (from.root === 'TIMESTAMP_LTZ') return undefined;
      return (v) => toInstant(toLocal(v as number), zone);
    case 'DATE':
      if (from.root === 'DATE') return undefined;
      if (from.root === 'TIME') return null;
      return (v) => Math.floor(toLocal(v as number) / MS_PER_DAY);
    case 'TIME': {
      if (from.root === 'DATE') return null;
      const precision = to.precision ?? 0;
      if (from.root === 'TIME' && precision >= (from.precision ?? 0)) return undefined;
      return (v) => truncateTimePrecision(timeOfDay(toLocal(v as number)), precision);
    }
    default:
      return null;
  }
}

type Fail = (value: NonNullValue, detail?: string) => never;

function toStringConverter(from: LogicalType, to: LogicalType, zone: TimeZone): Converter | undefined {
  const length = to.length;
  const fixed = to.fixedLength === true && length !== undefined;
  const limit = (text: string): string => (length === undefined ? text : fixed ? padCodePoints(truncateCodePoints(text, length), length) : truncateCodePoints(text, length));
  switch (from.root) {
    case 'STRING':
      if (fixed) {
        // A CHAR(n) of the same length is already padded; anything else is cut and padded.
        if (from.fixedLength === true && from.length === length) return undefined;
        return (v) => limit(v as string);
      }
      if (length === undefined || (from.length !== undefined && from.length <= length)) return undefined;
      return (v) => truncateCodePoints(v as string, length);
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
      return (v) => limit(String(v));
    case 'VARBINARY':
      // Flink reads the bytes as UTF-8 text.
      return (v) => limit(hexUtf8(v as string));
    case 'DOUBLE':
      return (v) => limit(formatDouble(v as number));
    case 'FLOAT':
      return (v) => limit(formatFloat(v as number));
    case 'DECIMAL': {
      const scale = from.scale ?? 0;
      return (v) => limit(formatDecimal(v as bigint, scale));
    }
    case 'BOOLEAN':
      return (v) => limit(v === true ? 'TRUE' : 'FALSE');
    case 'TIMESTAMP':
      return (v) => limit(formatTimestamp(v as number));
    case 'TIMESTAMP_LTZ':
      return (v) => limit(formatTimestamp(toLocalMillis(v as number, zone)));
    case 'DATE':
      return (v) => limit(formatDate(v as number));
    case 'TIME': {
      const precision = from.precision ?? 0;
      return (v) => limit(formatTime(v as number, precision));
    }
    case 'ROW':
    case 'ARRAY':
    case 'MAP':
    case 'MULTISET':
      return (v) => limit(nestedText(v, from, zone));
  }
}

/**
 * The text of a ROW, ARRAY or MAP value as Flink's CAST to STRING writes it: `(a, b)`, `[a, b]`,
 * `{k=v}`, with NULL for nulls and the scalar types' own texts inside (a TIMESTAMP_LTZ in
 * `zone`, the session time zone).
 */
export function nestedText(v: Value, type: LogicalType, zone: TimeZone = UTC): string {
  if (v === null) return 'NULL';
  switch (type.root) {
    case 'ROW': {
      const row = v as Readonly<Record<string, Value>>;
      return `(${(type.fields ?? []).map((f) => nestedText(row[f.name] ?? null, f.type, zone)).join(', ')})`;
    }
    case 'ARRAY':
      return `[${(v as readonly Value[]).map((e) => nestedText(e, type.element ?? type, zone)).join(', ')}]`;
    case 'MAP':
      return `{${Object.entries(v as Readonly<Record<string, Value>>)
        .map(([k, e]) => `${k}=${nestedText(e, type.value ?? type, zone)}`)
        .join(', ')}}`;
    case 'MULTISET':
      // Flink prints a multiset as the map from element to count it holds.
      return `{${(v as Multiset).map(([e, n]) => `${nestedText(e, type.element ?? type, zone)}=${n}`).join(', ')}}`;
    default: {
      const convert = toStringConverter(type, { root: 'STRING', nullable: true }, zone);
      return convert === undefined ? String(v) : String(convert(v as NonNullValue));
    }
  }
}

function fromStringConverter(to: LogicalType, fail: Fail, zone: TimeZone): Converter {
  switch (to.root) {
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT': {
      const [min, max] = INTEGER_RANGE[to.root]!;
      return (v) => {
        const text = javaTrim(v as string);
        if (!INTEGER_TEXT.test(text)) return fail(v);
        // Flink's string-to-integer cast drops a fraction part ('1.9' → 1).
        const point = text.indexOf('.');
        const n = BigInt(point < 0 ? text : text.slice(0, point));
        if (n < min || n > max) return fail(v, `out of range for ${to.root}`);
        return Number(n);
      };
    }
    case 'DOUBLE':
    case 'FLOAT': {
      const round = to.root === 'FLOAT' ? Math.fround : (n: number) => n;
      return (v) => {
        const text = javaTrim(v as string);
        if (!DOUBLE_TEXT.test(text)) return fail(v);
        const last = text[text.length - 1];
        // Java accepts a float/double type suffix (`1.5d`); Number() does not.
        const suffixed = last === 'f' || last === 'F' || last === 'd' || last === 'D';
        return round(Number(suffixed ? text.slice(0, -1) : text));
      };
    }
    case 'DECIMAL': {
      const precision = to.precision ?? 10;
      const scale = to.scale ?? 0;
      return (v) => {
        const result = tryParseDecimal(javaTrim(v as string), precision, scale);
        if (result === 'invalid') return fail(v);
        if (result === 'overflow') return fail(v, `more than ${precision - scale} integer digits`);
        return result;
      };
    }
    case 'VARBINARY': {
      // The text's UTF-8 bytes (not trimmed), resized to BINARY(n) / VARBINARY(n).
      const fixed = to.fixedLength === true;
      return (v) => resizeBinary(utf8Hex(v as string), to.length, fixed);
    }
    case 'BOOLEAN':
      return (v) => {
        const text = javaTrim(v as string).toLowerCase();
        if (TRUE_TEXT.has(text)) return true;
        if (FALSE_TEXT.has(text)) return false;
        return fail(v);
      };
    case 'TIMESTAMP':
      return (v) => {
        const text = javaTrim(v as string);
        // A bare date means midnight, as in Flink's CAST.
        const ms = parseTimestamp(DATE_TEXT.test(text) ? `${text} 00:00:00` : text);
        return ms === undefined ? fail(v) : ms;
      };
    case 'TIMESTAMP_LTZ':
      // The text is a wall-clock time of the session time zone.
      return (v) => {
        const text = javaTrim(v as string);
        const ms = parseTimestamp(DATE_TEXT.test(text) ? `${text} 00:00:00` : text);
        return ms === undefined ? fail(v) : toInstant(ms, zone);
      };
    case 'DATE':
      return (v) => parseDate(javaTrim(v as string)) ?? fail(v);
    case 'TIME': {
      const precision = to.precision ?? 0;
      return (v) => {
        const ms = parseTime(javaTrim(v as string));
        return ms === undefined ? fail(v) : truncateTimePrecision(ms, precision);
      };
    }
    case 'STRING':
      throw new Error('internal: STRING targets are handled by toStringConverter');
    default:
      // castProblem rejects text into ROW, ARRAY and MAP before this runs.
      throw new Error(`internal: no conversion from STRING to ${typeName(to)}`);
  }
}

function checkedDecimal(unscaled: bigint, precision: number, value: NonNullValue, fail: Fail): bigint {
  return fitsPrecision(unscaled, precision) ? unscaled : fail(value, `overflows DECIMAL precision ${precision}`);
}

function fromIntegerConverter(from: LogicalType, to: LogicalType, fail: Fail): Converter | undefined {
  switch (to.root) {
    case 'INT':
      // Java's (int) narrowing wraps; ToInt32 is exactly that.
      return from.root === 'BIGINT' ? (v) => (v as number) | 0 : undefined;
    case 'SMALLINT':
    case 'TINYINT': {
      // Java's (short) / (byte) keep the low 16 / 8 bits (of the int, whose ToInt32 is exact).
      if (from.root === to.root || (from.root === 'TINYINT' && to.root === 'SMALLINT')) return undefined;
      const narrow = narrowInt(to.root);
      return (v) => narrow((v as number) | 0);
    }
    case 'BIGINT':
    case 'DOUBLE':
      return undefined;
    case 'FLOAT':
      return from.root === 'BIGINT' || from.root === 'INT' ? (v) => Math.fround(v as number) : undefined;
    case 'DECIMAL': {
      const precision = to.precision ?? 10;
      const factor = pow10(to.scale ?? 0);
      return (v) => checkedDecimal(BigInt(v as number) * factor, precision, v, fail);
    }
    case 'BOOLEAN':
      return (v) => v !== 0;
    default:
      throw new Error(`internal: no conversion from ${from.root} to ${to.root}`);
  }
}

function fromDoubleConverter(from: LogicalType, to: LogicalType, fail: Fail): Converter | undefined {
  switch (to.root) {
    case 'INT':
    case 'SMALLINT':
    case 'TINYINT': {
      // Java's (int) cast: NaN → 0, truncation toward zero, saturation at the int range; then
      // (short) / (byte) keep the low bits, as Java's double → byte narrowing does.
      const narrow = narrowInt(to.root);
      return (v) => {
        const d = v as number;
        if (Number.isNaN(d)) return 0;
        return narrow(d <= INT_MIN ? INT_MIN : d >= INT_MAX ? INT_MAX : Math.trunc(d) + 0);
      };
    }
    case 'FLOAT':
      return from.root === 'FLOAT' ? undefined : (v) => Math.fround(v as number);
    case 'BIGINT':
      return (v) => {
        const d = v as number;
        if (Number.isNaN(d)) return 0;
        return d <= LONG_MIN ? LONG_MIN : d >= LONG_MAX ? LONG_MAX : Math.trunc(d) + 0;
      };
    case 'DOUBLE':
      return undefined;
    case 'DECIMAL': {
      const precision = to.precision ?? 10;
      const scale = to.scale ?? 0;
      return (v) => {
        const result = tryParseDecimal(v as number, precision, scale);
        if (result === 'invalid') return fail(v);
        if (result === 'overflow') return fail(v, `overflows DECIMAL precision ${precision}`);
        return result;
      };
    }
    case 'BOOLEAN':
      return (v) => v !== 0;
    default:
      throw new Error(`internal: no conversion from ${from.root} to ${to.root}`);
  }
}

function fromDecimalConverter(from: LogicalType, to: LogicalType, fail: Fail): Converter | undefined {
  const scale = from.scale ?? 0;
  const divisor = pow10(scale);
  switch (to.root) {
    case 'INT':
      // BigDecimal.intValue(): drop the fraction, keep the low 32 bits.
      return (v) => Number(BigInt.asIntN(32, (v as bigint) / divisor));
    case 'SMALLINT':
      return (v) => Number(BigInt.asIntN(16, (v as bigint) / divisor));
    case 'TINYINT':
      return (v) => Number(BigInt.asIntN(8, (v as bigint) / divisor));
    case 'BIGINT':
      return (v) => Number(BigInt.asIntN(64, (v as bigint) / divisor));
    case 'DOUBLE':
      return (v) => decimalToDouble(v as bigint, scale);
    case 'FLOAT':
      return (v) => Math.fround(decimalToDouble(v as bigint, scale));
    case 'DECIMAL': {
      const toPrecision = to.precision ?? 10;
      const toScale = to.scale ?? 0;
      if (toScale === scale && toPrecision >= (from.precision ?? 10)) return undefined;
      return (v) => checkedDecimal(rescaleDecimal(v as bigint, scale, toScale), toPrecision, v, fail);
    }
    case 'BOOLEAN':
      return (v) => v !== 0n;
    default:
      throw new Error(`internal: no conversion from DECIMAL to ${to.root}`);
  }
}

function fromBooleanConverter(to: LogicalType, fail: Fail): Converter | undefined {
  if (to.root === 'BOOLEAN') return undefined;
  if (to.root === 'DECIMAL') {
    const precision = to.precision ?? 10;
    const one = pow10(to.scale ?? 0);
    return (v) => (v === true ? checkedDecimal(one, precision, v, fail) : 0n);
  }
  if (isNumeric(to)) return (v) => (v === true ? 1 : 0);
  throw new Error(`internal: no conversion from BOOLEAN to ${to.root}`);
}
