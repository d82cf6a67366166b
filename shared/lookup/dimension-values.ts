/**
 * Exact conversion of values read from a dimension store (MySQL/MariaDB, PostgreSQL, DynamoDB,
 * JSON lines, a user function) into Flambda's runtime representation of the dimension schema
 * (see shared/core/types.ts), and of key values into the stores' parameter forms.
 *
 * "Exact" means nothing is rounded or truncated silently: a DECIMAL(p, s) value with non-zero
 * digits beyond scale s, a timestamp with non-zero digits below the millisecond, an integer
 * beyond the column's range or a non-numeric text all raise a {@link DimensionDataError} naming
 * the table, the column and the value. Trailing zeros are fine (`1.2300` into DECIMAL(10, 2)).
 *
 * Accepted raw forms per type (drivers hand out different JS types for the same SQL type):
 *
 * | type         | accepted                                                                 |
 * |--------------|--------------------------------------------------------------------------|
 * | BIGINT / INT | safe-integer number, bigint, integer text                                |
 * | DOUBLE       | number, bigint (if exact), numeric text incl. NaN / ±Infinity            |
 * | DECIMAL(p,s) | decimal text (optionally with exponent), number (its shortest text), bigint (already unscaled, as in a Flambda row) |
 * | STRING       | string; numbers and booleans become their text; VARCHAR(n) length-checked |
 * | BOOLEAN      | boolean, 0/1, text `t`/`f`/`true`/`false`/`1`/`0` (any case)             |
 * | TIMESTAMP(3) | integer epoch ms (number or text), Date, `YYYY-MM-DD[ T]HH:MM:SS[.f…][Z|±HH[:MM]]` or `YYYY-MM-DD` |
 * | TIMESTAMP_LTZ(3) | the same, read as an instant (text without an offset is UTC: the JDBC sessions run in UTC, so PostgreSQL `timestamptz` and MySQL `TIMESTAMP` columns arrive in it) |
 * | DATE         | `YYYY-MM-DD` text (a JDBC DATE column's text), Date at UTC midnight       |
 * | TIME(p)      | `HH:MM:SS[.f…]` text (a JDBC TIME column's text) without digits beyond p  |
 */
import { formatDecimal, fitsPrecision, pow10 } from '../core/decimal.ts';
import { formatDate, formatTime, formatTimestamp, isTimestampInRange, parseDate, parseTime, parseTimestamp } from '../core/timestamp.ts';
import { formatType } from '../core/type-parse.ts';
import type { Field, Row, Schema, Value } from '../core/types.ts';
import { DimensionDataError } from './errors.ts';

/** Longest excerpt of an offending value quoted in an error message. */
const MAX_SHOWN = 60;

/** Quotes a raw value for an error message. */
export function showValue(value: unknown): string {
  let text: string;
  if (typeof value === 'bigint') text = `${value}`;
  else if (value instanceof Date) text = `Date(${Number.isNaN(value.getTime()) ? 'invalid' : value.toISOString()})`;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text;
}

/** Converts one non-null raw value; `undefined` means "does not fit" (the caller names why). */
type RawConverter = (raw: unknown) => Value | undefined;

const MIN_INT = -2147483648;
const MAX_INT = 2147483647;

/** An integer from a number, bigint or integer text, as long as it is a safe integer. */
function toSafeInteger(raw: unknown): number | undefined {
  let v: number | undefined;
  if (typeof raw === 'number') v = Number.isInteger(raw) ? raw : undefined;
  else if (typeof raw === 'bigint') v = raw >= BigInt(Number.MIN_SAFE_INTEGER) && raw <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(raw) : undefined;
  else if (typeof raw === 'string' && /^[+-]?\d+$/.test(raw.trim())) v = Number(raw.trim());
  if (v === undefined || !Number.isSafeInteger(v)) return undefined;
  return v === 0 ? 0 : v;
}

const DOUBLE_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

function toDouble(raw: unknown): number | undefined {
  if (typeof raw === 'number') return raw;
  if (typeof raw === 'bigint') {
    const n = Number(raw);
    return BigInt(n) === raw ? n : undefined;
  }
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  if (DOUBLE_TEXT.test(text)) return Number(text);
  const lower = text.toLowerCase();
  if (lower === 'nan') return NaN;
  if (lower === 'infinity' || lower === '+infinity' || lower === 'inf') return Infinity;
  if (lower === '-infinity' || lower === '-inf') return -Infinity;
  return undefined;
}

const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * The exact unscaled value of decimal text at `scale`, or `undefined` when the text is not a
 * number or has non-zero digits beyond the scale. Precision is checked by the caller.
 */
export function exactDecimal(text: string, scale: number): bigint | undefined {
  const m = DECIMAL_TEXT.exec(text.trim());
  if (m === null) return undefined;
  const intDigits = m[2] ?? '';
  const fracDigits = m[3] ?? '';
  if (intDigits === '' && fracDigits === '') return undefined;
  const exponent = m[4] === undefined ? 0 : Number(m[4]);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 1000) return undefined;
  // digits × 10^(exponent − fracDigits.length) = unscaled × 10^(−scale)
  const digits = BigInt((intDigits + fracDigits).replace(/^0+(?=.)/, '') || '0');
  const shift = scale + exponent - fracDigits.length;
  let unscaled: bigint;
  if (shift >= 0) unscaled = digits * pow10(shift);
  else {
    const divisor = pow10(-shift);
    if (digits % divisor !== 0n) return undefined;
    unscaled = digits / divisor;
  }
  return m[1] === '-' ? -unscaled : unscaled;
}

function toDecimal(raw: unknown, precision: number, scale: number): bigint | undefined {
  let unscaled: bigint | undefined;
  // A bigint is Flambda's own DECIMAL representation (rows from a user function): already unscaled.
  if (typeof raw === 'bigint') unscaled = raw;
  else if (typeof raw === 'number') unscaled = Number.isFinite(raw) ? exactDecimal(String(raw), scale) : undefined;
  else if (typeof raw === 'string') unscaled = exactDecimal(raw, scale);
  if (unscaled === undefined || !fitsPrecision(unscaled, precision)) return undefined;
  return unscaled;
}

function toBoolean(raw: unknown): boolean | undefined {
  if (typeof raw === 'boolean') return raw;
  if (raw === 0 || raw === 1) return raw === 1;
  if (raw === 0n || raw === 1n) return raw === 1n;
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim().toLowerCase();
  if (text === 't' || text === 'true' || text === '1') return true;
  if (text === 'f' || text === 'false' || text === '0') return false;
  return undefined;
}

/** `…HH:MM:SS[.fraction]` then an optional zone: `Z`, `±HH`, `±HHMM` or `±HH:MM`. */
const TIMESTAMP_TEXT = /^(\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

/** Parses timestamp text exactly (sub-millisecond digits must be zero) into epoch ms, UTC. */
export function exactTimestamp(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(trimmed)) return parseTimestamp(`${trimmed} 00:00:00`);
  const m = TIMESTAMP_TEXT.exec(trimmed);
  if (m === null) return undefined;
  const fraction = m[2] ?? '';
  if (/[1-9]/.test(fraction.slice(3))) return undefined;
  const base = parseTimestamp(fraction === '' ? m[1]! : `${m[1]!}.${fraction.slice(0, 3)}`);
  if (base === undefined) return undefined;
  const zone = m[3];
  let offsetMs = 0;
  if (zone !== undefined && zone !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    const hours = Number(digits.slice(0, 2));
    const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
    if (hours > 23 || minutes > 59) return undefined;
    offsetMs = (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes) * 60_000;
  }
  const ms = base - offsetMs;
  return isTimestampInRange(ms) ? ms : undefined;
}

function toTimestamp(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isInteger(raw) && isTimestampInRange(raw) ? (raw === 0 ? 0 : raw) : undefined;
  if (typeof raw === 'bigint') return toTimestamp(toSafeInteger(raw));
  if (raw instanceof Date) return toTimestamp(raw.getTime());
  if (typeof raw === 'string') {
    // Integer text is epoch milliseconds: DynamoDB numbers and big-number driver output.
    if (/^-?\d+$/.test(raw.trim())) return toTimestamp(toSafeInteger(raw));
    return exactTimestamp(raw);
  }
  return undefined;
}

const MS_PER_DAY = 86_400_000;

function toDate(raw: unknown): number | undefined {
  if (raw instanceof Date) {
    const ms = raw.getTime();
    return Number.isInteger(ms) && ms % MS_PER_DAY === 0 ? ms / MS_PER_DAY : undefined;
  }
  return typeof raw === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(raw.trim()) ? parseDate(raw.trim()) : undefined;
}

function toTime(raw: unknown, precision: number): number | undefined {
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  const ms = parseTime(text);
  if (ms === undefined) return undefined;
  // Exact: no non-zero digit beyond the column's precision (a database TIME(6) value into TIME(0)).
  const fraction = /\.(\d+)$/.exec(text)?.[1] ?? '';
  return /[1-9]/.test(fraction.slice(precision)) ? undefined : ms;
}

/** Number of Unicode code points (how Flink measures VARCHAR lengths). */
function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

function rawConverter(field: Field): RawConverter {
  const type = field.type;
  switch (type.root) {
    case 'BIGINT':
      return toSafeInteger;
    case 'INT':
    case 'SMALLINT':
    case 'TINYINT': {
      const [min, max] = type.root === 'INT' ? [MIN_INT, MAX_INT] : type.root === 'SMALLINT' ? [-32768, 32767] : [-128, 127];
      return (raw) => {
        const v = toSafeInteger(raw);
        return v !== undefined && v >= min && v <= max ? v : undefined;
      };
    }
    case 'DOUBLE':
      return toDouble;
    case 'FLOAT':
      return (raw) => {
        const v = toDouble(raw);
        return v === undefined ? undefined : Math.fround(v);
      };
    case 'DECIMAL': {
      const precision = type.precision ?? 10;
      const scale = type.scale ?? 0;
      return (raw) => toDecimal(raw, precision, scale);
    }
    case 'STRING': {
      const max = type.length;
      return (raw) => {
        const text = typeof raw === 'string' ? raw : typeof raw === 'number' || typeof raw === 'bigint' || typeof raw === 'boolean' ? String(raw) : undefined;
        if (text === undefined) return undefined;
        return max !== undefined && text.length > max && codePoints(text) > max ? undefined : text;
      };
    }
    case 'BOOLEAN':
      return toBoolean;
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return toTimestamp;
    case 'DATE':
      return toDate;
    case 'TIME': {
      const precision = type.precision ?? 0;
      return (raw) => toTime(raw, precision);
    }
    default:
      // Lookup tables hold scalar columns; a nested column never converts (a clear data error).
      return () => undefined;
  }
}

/** Converts one raw value of one column; throws {@link DimensionDataError} when it does not fit. */
export type ColumnConverter = (raw: unknown) => Value;

/**
 * A converter for one column of table `table`. `null` and `undefined` become NULL for nullable
 * columns and an error for NOT NULL ones.
 */
export function columnConverter(table: string, field: Field): ColumnConverter {
  const convert = rawConverter(field);
  const nullable = field.type.nullable;
  const where = `lookup table '${table}' column '${field.name}' (${formatType(field.type)})`;
  return (raw) => {
    if (raw === null || raw === undefined) {
      if (nullable) return null;
      throw new DimensionDataError(`${where}: NULL in a NOT NULL column`, { table, column: field.name });
    }
    const value = convert(raw);
    if (value === undefined) {
      throw new DimensionDataError(`${where}: value ${showValue(raw)} does not fit the column type exactly`, { table, column: field.name });
    }
    return value;
  };
}

/** Converts a raw record (column name → driver value) into a dimension row. */
export type DimensionRowConverter = (raw: Readonly<Record<string, unknown>>) => Row;

/**
 * A converter of whole records into rows with exactly the schema's columns, in schema order. A
 * column missing from the record is NULL (or an error when NOT NULL); extra columns are ignored.
 */
export function dimensionRowConverter(table: string, schema: Schema): DimensionRowConverter {
  const steps = schema.fields.map((field) => ({ name: field.name, convert: columnConverter(table, field) }));
  return (raw) => {
    const row: Record<string, Value> = {};
    for (const step of steps) row[step.name] = step.convert(Object.hasOwn(raw, step.name) ? raw[step.name] : undefined);
    return row;
  };
}

/**
 * A key value as SQL parameter text where drivers would otherwise lose exactness: DECIMAL as
 * its decimal text, TIMESTAMP and TIMESTAMP_LTZ as `YYYY-MM-DD HH:MM:SS.fff` (UTC, the sessions'
 * zone), DATE as `YYYY-MM-DD` and TIME as `HH:MM:SS.fff`; everything else as is.
 */
export function sqlParameter(field: Field, value: Value): unknown {
  if (value === null) return null;
  if (field.type.root === 'DECIMAL' && typeof value === 'bigint') return formatDecimal(value, field.type.scale ?? 0);
  if ((field.type.root === 'TIMESTAMP' || field.type.root === 'TIMESTAMP_LTZ') && typeof value === 'number') return formatTimestamp(value);
  if (field.type.root === 'DATE' && typeof value === 'number') return formatDate(value);
  if (field.type.root === 'TIME' && typeof value === 'number') return formatTime(value, 3);
  return value;
}
