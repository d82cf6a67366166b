/**
 * The JSON record codec: decodes parsed JSON objects into rows validated against a schema and
 * encodes rows back to JSON.
 *
 * Decoding rules, modelled on Flink's `json` format and made stricter where Flink silently
 * loses data:
 *
 * - The record must be a JSON object. Fields not in the schema are ignored and dropped: the
 *   decoder always builds a fresh row with exactly the schema's fields, in schema order (so all
 *   rows share one object shape), and never hands out the parsed object itself.
 * - A missing or `null` field is NULL when the column is nullable, else an error.
 * - BIGINT/INT/SMALLINT/TINYINT: JSON integers, or integer strings such as `"42"` (Flink parses
 *   numeric strings too). Fractions are errors (Flink would truncate them). BIGINT must be a
 *   safe integer (|v| ≤ 2^53−1) because values are JavaScript numbers; INT must fit 32 bits,
 *   SMALLINT 16 and TINYINT 8 (out of range is an error, as in Flink).
 * - DOUBLE/FLOAT: any JSON number, or a numeric string including `"NaN"`, `"Infinity"` and
 *   `"-Infinity"` (Flink accepts these and writes non-finite doubles as such strings); a FLOAT
 *   is rounded to single precision and written with its shortest digits (`1.1`).
 * - DECIMAL(p, s): a JSON number or a decimal string; extra fraction digits round HALF_UP like
 *   Flink; too many integer digits is an error (where Flink would yield NULL). Use strings for
 *   more than 15 significant digits, since JSON numbers are parsed as doubles.
 * - STRING/VARCHAR(n): strings; numbers and booleans are converted to their text and objects
 *   and arrays to their JSON text, as Flink does. VARCHAR(n) rejects values longer than n code
 *   points (Flink only enforces lengths at sinks; a dead-letter at the source is clearer).
 * - BYTES/VARBINARY(n)/BINARY(n): base64 text (Flink's json reads and writes binary values so),
 *   at most n bytes.
 * - BOOLEAN: `true`/`false`, or the strings `"true"`/`"false"` in any case. Other strings are
 *   errors (Flink would read them as false).
 * - TIMESTAMP(3): a `YYYY-MM-DD HH:MM:SS[.fff]` string (see {@link parseTimestamp}) or an
 *   integer of epoch milliseconds.
 * - TIMESTAMP_LTZ(3): an instant, written as Flink's json format writes one under its default
 *   `json.timestamp-format.standard` 'SQL': `YYYY-MM-DD HH:MM:SS[.fff]Z` in UTC (the `Z` may be
 *   left out, `T` may separate date and time, as in the 'ISO-8601' standard), or an integer of
 *   epoch milliseconds.
 * - With a `json.timestamp-format.standard` given ({@link JsonCodecOptions}), TIMESTAMP and
 *   TIMESTAMP_LTZ text must have that standard's form, as Flink's parsers require ('SQL':
 *   `yyyy-MM-dd HH:mm:ss[.fraction]`; 'ISO-8601': `yyyy-MM-ddTHH:mm[:ss[.fraction]]`; a
 *   TIMESTAMP_LTZ ends in `Z`), and values are written as Flink's writer writes them (the
 *   fraction without trailing zeros).
 * - DATE: `YYYY-MM-DD` (Flink's json DATE); TIME(p): `HH:MM:SS[.fff]`, the fraction cut to p
 *   digits.
 * - Numeric strings (BIGINT, INT, DOUBLE, DECIMAL, BOOLEAN) may have surrounding whitespace,
 *   which Flink trims; timestamp strings may not.
 * - ROW<…>: a JSON object, its fields by name (others ignored); ARRAY<T>: a JSON array;
 *   MAP<STRING, V>: a JSON object; MULTISET<T>: a JSON object from element to count (or an
 *   array of `[element, count]` pairs). Nested values follow these same rules, and errors name
 *   the nested field (`info.name`, `tags[]`).
 *
 * Encoding writes TIMESTAMP as its formatted string (TIMESTAMP_LTZ in UTC with a `Z`; DATE as
 * `YYYY-MM-DD`; TIME as `HH:MM:SS` with the fraction digits it has, as Flink's json format
 * writes them), DECIMAL as a string with exactly `scale`
 * fraction digits (exact, unlike a JSON number), non-finite DOUBLE as `"NaN"`/`"Infinity"`/
 * `"-Infinity"`, ROW and MAP as objects and ARRAY as arrays of their encoded values, and
 * everything else as is, so decode(encode(row)) gives back the row.
 */
import { FlambdaError, PlanError, RecordError } from './errors.ts';
import { formatDecimal, tryParseDecimal } from './decimal.ts';
import { canonicalMultiset, type Multiset, type MultisetEntry } from './multiset.ts';
import { formatDate, formatTime, formatTimestamp, isTimestampInRange, parseDate, parseTime, parseTimestamp, truncateTimePrecision } from './timestamp.ts';
import { formatType } from './type-parse.ts';
import type { Field, LogicalType, Row, Schema, Value } from './types.ts';

/** A JSON value as produced by `JSON.parse`. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Decodes one parsed JSON record; `position` (e.g. `bid.jsonl:17`) prefixes error messages. */
export type RowDecoder = (json: unknown, position?: string) => Row;

/**
 * Encodes one value of a type as JSON that {@link createRowDecoder} reads back exactly (ROW,
 * ARRAY and MAP values nest); exchanges use it for nested columns.
 */
export function createValueEncoder(field: Field): (value: Value) => JsonValue {
  return nestedEncoder(field);
}

/** Encodes one row as a JSON object. */
export type RowEncoder = (row: Row) => Record<string, JsonValue>;

/** Longest excerpt of an offending value quoted in an error message. */
const MAX_SHOWN = 60;

/** JSON-quotes a value for an error message, truncated so one bad blob cannot flood the log. */
function show(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'bigint' ? `${value}` : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text;
}

/** Converts one raw JSON field value; throws the field's RecordError on bad input. */
type Converter = (raw: unknown, position: string | undefined) => Value;

/** Builds the message `pos: field 'name' (TYPE): problem` and its RecordError. */
function fieldError(field: Field, problem: string, position: string | undefined): RecordError {
  const prefix = position === undefined ? '' : `${position}: `;
  return new RecordError(`${prefix}field '${field.name}' (${formatType(field.type)}): ${problem}`, {
    field: field.name,
    position,
  });
}

const MIN_INT = -2147483648;
const MAX_INT = 2147483647;

/** Strict integer text after trimming: optional sign and digits only (no `1e3`, `0x10`, `1.0`). */
const INTEGER_TEXT = /^[+-]?\d+$/;

/** Decimal number text after trimming, or the non-finite spellings Flink's Double.parseDouble accepts. */
const DOUBLE_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$|^[+-]?(?:NaN|Infinity)$/;

/** An integer from a JSON number or integer string, or `undefined` when it is not one. */
function integerOf(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isInteger(raw) ? raw : undefined;
  if (typeof raw === 'string') {
    const text = raw.trim();
    return INTEGER_TEXT.test(text) ? Number(text) : undefined;
  }
  return undefined;
}

/** BIGINT: a safe integer; `-0` becomes `0` so equal keys hash and compare alike. */
function bigintConverter(field: Field): Converter {
  return (raw, position) => {
    const v = typeof raw === 'number' && Number.isSafeInteger(raw) ? raw : integerOf(raw);
    if (v === undefined) throw fieldError(field, `expected an integer, got ${show(raw)}`, position);
    if (!Number.isSafeInteger(v)) {
      throw fieldError(
        field,
        `expected an integer between -9007199254740991 and 9007199254740991 (BIGINT values beyond ±(2^53−1) are not supported because they lose precision as JavaScript numbers), got ${show(raw)}`,
        position,
      );
    }
    return v === 0 ? 0 : v;
  };
}

/** The ranges of INT, SMALLINT and TINYINT. */
const INTEGER_RANGES: Readonly<Partial<Record<LogicalType['root'], readonly [number, number]>>> = {
  INT: [MIN_INT, MAX_INT],
  SMALLINT: [-32768, 32767],
  TINYINT: [-128, 127],
};

/**
 * INT, SMALLINT, TINYINT: an integer within 32, 16 or 8 bits. A value out of range is an error,
 * as Flink's json format fails on it (`Short.parseShort`, `Byte.parseByte`).
 */
function intConverter(field: Field): Converter {
  const [min, max] = INTEGER_RANGES[field.type.root] ?? [MIN_INT, MAX_INT];
  return (raw, position) => {
    const v = integerOf(raw);
    if (v === undefined) throw fieldError(field, `expected an integer, got ${show(raw)}`, position);
    if (v < min || v > max) {
      throw fieldError(field, `expected an integer between ${min} and ${max}, got ${show(raw)}`, position);
    }
    return v === 0 ? 0 : v;
  };
}

/**
 * The double closest to the shortest decimal that reads back as the float `value` (a FLOAT
 * value): its text is what Java's `Float.toString` digits are (`1.1`, not `1.100000023841858`).
 */
export function shortestFloat(value: number): number {
  if (!Number.isFinite(value) || value === 0) return value;
  for (let digits = 1; digits < 9; digits++) {
    const shortest = Number(value.toPrecision(digits));
    if (Math.fround(shortest) === value) return shortest;
  }
  return Number(value.toPrecision(9));
}

/**
 * DOUBLE: any number, or numeric text including the non-finite spellings; FLOAT: the same,
 * rounded to single precision (Flink's `(float) node.asDouble()`).
 */
function doubleConverter(field: Field): Converter {
  const round = field.type.root === 'FLOAT' ? Math.fround : (n: number) => n;
  return (raw, position) => {
    if (typeof raw === 'number') return round(raw);
    if (typeof raw === 'string') {
      const text = raw.trim();
      if (DOUBLE_TEXT.test(text)) return round(Number(text));
    }
    throw fieldError(field, `expected a number, got ${show(raw)}`, position);
  };
}

/** DECIMAL(p, s): exact from text, via the shortest text for numbers; HALF_UP to the scale. */
function decimalConverter(field: Field): Converter {
  const precision = field.type.precision ?? 10;
  const scale = field.type.scale ?? 0;
  return (raw, position) => {
    const result =
      typeof raw === 'number'
        ? tryParseDecimal(raw, precision, scale)
        : typeof raw === 'string'
          ? tryParseDecimal(raw.trim(), precision, scale)
          : 'invalid';
    if (typeof result === 'bigint') return result;
    if (result === 'overflow') {
      throw fieldError(
        field,
        `value does not fit: at most ${precision - scale} digit${precision - scale === 1 ? '' : 's'} before the decimal point, got ${show(raw)}`,
        position,
      );
    }
    throw fieldError(field, `expected a decimal number, got ${show(raw)}`, position);
  };
}

/** Number of Unicode code points, which is how Flink measures VARCHAR lengths. */
function codePointLength(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/** STRING / VARCHAR(n): strings as is, other JSON values as their text; length-checked. */
function stringConverter(field: Field): Converter {
  const maxLength = field.type.length;
  return (raw, position) => {
    let text: string;
    if (typeof raw === 'string') text = raw;
    else if (typeof raw === 'number' || typeof raw === 'boolean') text = String(raw);
    else if (typeof raw === 'object') text = JSON.stringify(raw);
    else throw fieldError(field, `expected a string, got ${show(raw)}`, position);
    // UTF-16 length bounds the code point count from above, so the count is rarely needed.
    if (maxLength !== undefined && text.length > maxLength) {
      const length = codePointLength(text);
      if (length > maxLength) {
        throw fieldError(field, `expected at most ${maxLength} characters, got ${length} characters: ${show(raw)}`, position);
      }
    }
    return text;
  };
}

const BASE64_TEXT = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * BYTES, VARBINARY(n), BINARY(n): base64 text, as Flink's json format reads and writes binary
 * values (Jackson's `binaryValue`), held as lower-case hex; longer than n bytes is an error.
 */
function binaryConverter(field: Field): Converter {
  const maxLength = field.type.length;
  return (raw, position) => {
    const text = typeof raw === 'string' ? raw.trim() : undefined;
    if (text === undefined || text.length % 4 !== 0 || !BASE64_TEXT.test(text)) throw fieldError(field, `expected base64 text, got ${show(raw)}`, position);
    const bytes = Buffer.from(text, 'base64');
    if (maxLength !== undefined && bytes.length > maxLength) throw fieldError(field, `expected at most ${maxLength} bytes, got ${bytes.length} bytes: ${show(raw)}`, position);
    return bytes.toString('hex');
  };
}

/** BOOLEAN: JSON booleans or the strings "true"/"false" in any case. */
function booleanConverter(field: Field): Converter {
  return (raw, position) => {
    if (typeof raw === 'boolean') return raw;
    if (typeof raw === 'string') {
      const text = raw.trim().toLowerCase();
      if (text === 'true') return true;
      if (text === 'false') return false;
    }
    throw fieldError(field, `expected true or false, got ${show(raw)}`, position);
  };
}

/**
 * Flink's json `json.timestamp-format.standard`: how TIMESTAMP and TIMESTAMP_LTZ values are
 * written and which texts are read (JsonToRowDataConverters / RowDataToJsonConverters with
 * Flink's TimeFormats). Without the option the codec reads either separator with an optional
 * `Z` and writes `yyyy-MM-dd HH:mm:ss.SSS` (Flambda's changelog lines).
 */
export type JsonTimestampStandard = 'SQL' | 'ISO-8601';

/** The values of `json.timestamp-format.standard`, as Flink lists them. */
export const JSON_TIMESTAMP_STANDARDS: readonly JsonTimestampStandard[] = ['SQL', 'ISO-8601'];

/** Options of the JSON codec (Flink's json format options). */
export interface JsonCodecOptions {
  /** `json.timestamp-format.standard`; absent: the lenient reading and fixed `.SSS` writing above. */
  readonly timestampStandard?: JsonTimestampStandard;
}

// Flink's SQL_TIMESTAMP_FORMAT (`yyyy-MM-dd HH:mm:ss` and an optional fraction) and
// ISO8601_TIMESTAMP_FORMAT (ISO_LOCAL_DATE_TIME: `yyyy-MM-ddTHH:mm`, seconds and fraction
// optional); the _WITH_LOCAL_TIMEZONE_ forms end in a literal `Z`.
const SQL_TIMESTAMP_TEXT = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,9})?$/;
const ISO_TIMESTAMP_TEXT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?$/;

/** Reads timestamp text in a standard's form (`Z`-suffixed for an instant); undefined when it is not one. */
function parseStandardTimestamp(text: string, standard: JsonTimestampStandard, instant: boolean): number | undefined {
  if (instant !== text.endsWith('Z')) return undefined;
  const body = instant ? text.slice(0, -1) : text;
  if (standard === 'SQL') return SQL_TIMESTAMP_TEXT.test(body) ? parseTimestamp(body) : undefined;
  if (!ISO_TIMESTAMP_TEXT.test(body)) return undefined;
  return parseTimestamp(body.length === 16 ? `${body}:00` : body);
}

/** The text forms a standard reads, for errors. */
function standardForm(standard: JsonTimestampStandard | undefined, instant: boolean): string {
  const z = instant ? 'Z' : '';
  if (standard === 'ISO-8601') return `'YYYY-MM-DDTHH:MM[:SS[.fff]]${z}'${instant ? ' (UTC)' : ''}`;
  if (standard === 'SQL') return `'YYYY-MM-DD HH:MM:SS[.fff]${z}'${instant ? ' (UTC)' : ''}`;
  return instant ? "an instant 'YYYY-MM-DD HH:MM:SS[.fff]Z' (UTC)" : "a timestamp 'YYYY-MM-DD HH:MM:SS[.fff]'";
}

/**
 * TIMESTAMP(3) (`instant` false) and TIMESTAMP_LTZ(3) (true, UTC text): timestamp text or an
 * integer of epoch milliseconds, within years 0000–9999. Under a `json.timestamp-format.standard`
 * the text must have that standard's form, as Flink's parsers require.
 */
function timestampTextConverter(field: Field, options: JsonCodecOptions, instant: boolean): Converter {
  const standard = options.timestampStandard;
  const parse = standard === undefined ? parseTimestamp : (text: string): number | undefined => parseStandardTimestamp(text, standard, instant);
  const expected = standard === undefined ? standardForm(undefined, instant) : `${instant ? 'an instant' : 'a timestamp'} ${standardForm(standard, instant)}`;
  return (raw, position) => {
    if (typeof raw === 'string') {
      const ms = parse(raw);
      if (ms !== undefined) return ms;
    } else if (typeof raw === 'number' && isTimestampInRange(raw)) {
      return raw === 0 ? 0 : raw;
    }
    throw fieldError(field, `expected ${expected} or epoch milliseconds (years 0000-9999), got ${show(raw)}`, position);
  };
}

/** TIMESTAMP(3): see {@link timestampTextConverter}. */
function timestampConverter(field: Field, options: JsonCodecOptions): Converter {
  return timestampTextConverter(field, options, false);
}

/** TIMESTAMP_LTZ(3): UTC text (an optional `Z` without a standard) or epoch milliseconds. */
function timestampLtzConverter(field: Field, options: JsonCodecOptions): Converter {
  return timestampTextConverter(field, options, true);
}

/**
 * A timestamp as Flink's json writer formats it under a standard: `yyyy-MM-dd HH:mm:ss` (SQL) or
 * `yyyy-MM-ddTHH:mm:ss` (ISO-8601), the fraction as Java's `appendFraction(NANO, 0, 9)` prints
 * it (no trailing zeros, none at all when zero), `Z` after an instant's UTC reading.
 */
function standardTimestampText(ms: number, standard: JsonTimestampStandard, instant: boolean): string {
  const text = formatTimestamp(ms).replace(/\.?0+$/, '');
  return `${standard === 'ISO-8601' ? text.replace(' ', 'T') : text}${instant ? 'Z' : ''}`;
}

/** DATE: `YYYY-MM-DD` text. */
function dateConverter(field: Field): Converter {
  return (raw, position) => {
    const days = typeof raw === 'string' ? parseDate(raw) : undefined;
    if (days === undefined) throw fieldError(field, `expected a date 'YYYY-MM-DD' (years 0000-9999), got ${show(raw)}`, position);
    return days;
  };
}

/** TIME(p): `HH:MM:SS[.fff]` text, cut to the column's precision. */
function timeConverter(field: Field): Converter {
  const precision = field.type.precision ?? 0;
  return (raw, position) => {
    const ms = typeof raw === 'string' ? parseTime(raw) : undefined;
    if (ms === undefined) throw fieldError(field, `expected a time 'HH:MM:SS[.fff]', got ${show(raw)}`, position);
    return truncateTimePrecision(ms, precision);
  };
}

/** A TIME as Flink's json format writes it: `HH:mm:ss`, then only the fraction digits it has. */
function jsonTimeText(msOfDay: number): string {
  const text = formatTime(msOfDay, 3);
  return text.endsWith('.000') ? text.slice(0, -4) : text.replace(/0+$/, '');
}

/** A nested value's converter with null handling (NOT NULL nested types reject nulls). */
function nullableConverter(field: Field, options: JsonCodecOptions): Converter {
  const convert = converterFor(field, options);
  const nullable = field.type.nullable;
  return (raw, position) => {
    if (raw === undefined || raw === null) {
      if (!nullable) throw fieldError(field, raw === null ? 'expected a value, got null' : 'expected a value, but the field is missing', position);
      return null;
    }
    return convert(raw, position);
  };
}

/** A JSON object as a record, or `undefined` when it is not one. */
function objectOf(raw: unknown): Record<string, unknown> | undefined {
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
}

/** ROW<…>: a JSON object with the fields by name (others ignored), as Flink's json format reads rows. */
function rowConverter(field: Field, options: JsonCodecOptions): Converter {
  const fields = (field.type.fields ?? []).map((f) => ({
    name: f.name,
    inherited: f.name in Object.prototype,
    convert: nullableConverter({ name: `${field.name}.${f.name}`, type: f.type }, options),
  }));
  return (raw, position) => {
    const record = objectOf(raw);
    if (record === undefined) throw fieldError(field, `expected a JSON object, got ${show(raw)}`, position);
    const out: Record<string, Value> = {};
    for (const f of fields) out[f.name] = f.convert(f.inherited && !Object.hasOwn(record, f.name) ? undefined : record[f.name], position);
    return out;
  };
}

/** ARRAY<T>: a JSON array. */
function arrayConverter(field: Field, options: JsonCodecOptions): Converter {
  const element = nullableConverter({ name: `${field.name}[]`, type: field.type.element ?? { root: 'STRING', nullable: true } }, options);
  return (raw, position) => {
    if (!Array.isArray(raw)) throw fieldError(field, `expected a JSON array, got ${show(raw)}`, position);
    return raw.map((item: unknown) => element(item, position));
  };
}

/** MAP<STRING, V>: a JSON object from key to value. */
function mapConverter(field: Field, options: JsonCodecOptions): Converter {
  const value = nullableConverter({ name: `${field.name}[]`, type: field.type.value ?? { root: 'STRING', nullable: true } }, options);
  return (raw, position) => {
    const record = objectOf(raw);
    if (record === undefined) throw fieldError(field, `expected a JSON object, got ${show(raw)}`, position);
    const out: Record<string, Value> = {};
    for (const k of Object.keys(record)) {
      // `__proto__` as a plain assignment would set the prototype instead of holding the value.
      Object.defineProperty(out, k, { value: value(record[k], position), enumerable: true, writable: true, configurable: true });
    }
    return out;
  };
}

/** A multiset's count: a positive integer. */
function countOf(raw: unknown): number | undefined {
  const n = integerOf(raw);
  return n !== undefined && n >= 1 && Number.isSafeInteger(n) ? n : undefined;
}

/**
 * MULTISET<T>: a JSON object from element to count (as Flink's json format writes a multiset of
 * strings; each key is read as a T), or an array of `[element, count]` pairs (how elements
 * without a text form — nested ones, NULL — are written).
 */
function multisetConverter(field: Field, options: JsonCodecOptions): Converter {
  const element = nullableConverter({ name: `${field.name}[]`, type: field.type.element ?? { root: 'STRING', nullable: true } }, options);
  return (raw, position) => {
    const entries: MultisetEntry[] = [];
    const add = (item: unknown, count: unknown): void => {
      const n = countOf(count);
      if (n === undefined) throw fieldError(field, `expected a positive integer count, got ${show(count)}`, position);
      entries.push([element(item, position), n]);
    };
    if (Array.isArray(raw)) {
      for (const pair of raw as unknown[]) {
        if (!Array.isArray(pair) || pair.length !== 2) throw fieldError(field, `expected [element, count] pairs, got ${show(pair)}`, position);
        add(pair[0], pair[1]);
      }
    } else {
      const record = objectOf(raw);
      if (record === undefined) throw fieldError(field, `expected a JSON object from element to count, got ${show(raw)}`, position);
      for (const k of Object.keys(record)) add(k, record[k]);
    }
    return canonicalMultiset(entries) as Value;
  };
}

/** The converter for a column's type, without null handling. */
function converterFor(field: Field, options: JsonCodecOptions): Converter {
  switch (field.type.root) {
    case 'ROW':
      return rowConverter(field, options);
    case 'ARRAY':
      return arrayConverter(field, options);
    case 'MAP':
      return mapConverter(field, options);
    case 'MULTISET':
      return multisetConverter(field, options);
    case 'BIGINT':
      return bigintConverter(field);
    case 'INT':
    case 'SMALLINT':
    case 'TINYINT':
      return intConverter(field);
    case 'DOUBLE':
    case 'FLOAT':
      return doubleConverter(field);
    case 'DECIMAL':
      return decimalConverter(field);
    case 'STRING':
      return stringConverter(field);
    case 'VARBINARY':
      return binaryConverter(field);
    case 'BOOLEAN':
      return booleanConverter(field);
    case 'TIMESTAMP':
      return timestampConverter(field, options);
    case 'TIMESTAMP_LTZ':
      return timestampLtzConverter(field, options);
    case 'DATE':
      return dateConverter(field);
    case 'TIME':
      return timeConverter(field);
  }
}

/** One compiled column of a decoder. */
interface DecodeStep {
  readonly name: string;
  readonly field: Field;
  readonly nullable: boolean;
  /** The name is also a property of Object.prototype (e.g. `constructor`): read own properties only. */
  readonly inherited: boolean;
  readonly convert: Converter;
}

/** Rejects schemas the row representation cannot hold (a `__proto__` key would set the prototype). */
function checkSchema(schema: Schema): void {
  for (const field of schema.fields) {
    if (field.name === '__proto__') throw new PlanError("Column name '__proto__' is reserved");
  }
}

/**
 * Compiles a decoder for the schema: one converter closure per column, built once, so decoding
 * a record is a loop over the columns that allocates only the output row.
 *
 * @throws RecordError (via the returned function) for a non-object record or any field that
 *   breaks the rules in this module's header; the message names the field, its type, the
 *   offending value and the position.
 */
export function createRowDecoder(schema: Schema, options: JsonCodecOptions = {}): RowDecoder {
  checkSchema(schema);
  const steps: DecodeStep[] = schema.fields.map((field) => ({
    name: field.name,
    field,
    nullable: field.type.nullable,
    inherited: field.name in Object.prototype,
    convert: converterFor(field, options),
  }));
  const count = steps.length;
  return (json, position) => {
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      const prefix = position === undefined ? '' : `${position}: `;
      throw new RecordError(`${prefix}expected a JSON object record, got ${show(json)}`, { position });
    }
    const record = json as Record<string, unknown>;
    const row: Record<string, Value> = {};
    for (let i = 0; i < count; i++) {
      const step = steps[i]!;
      const raw = step.inherited && !Object.hasOwn(record, step.name) ? undefined : record[step.name];
      if (raw === undefined || raw === null) {
        if (!step.nullable) {
          throw fieldError(step.field, raw === null ? 'expected a value, got null' : 'expected a value, but the field is missing', position);
        }
        row[step.name] = null;
      } else {
        row[step.name] = step.convert(raw, position);
      }
    }
    return row;
  };
}

/**
 * Parses one line of JSON and decodes it; JSON syntax errors become a RecordError carrying the
 * position, so bad lines are dead-lettered like any other bad record.
 */
export function decodeJsonLine(line: string, decoder: RowDecoder, position?: string): Row {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (err) {
    const prefix = position === undefined ? '' : `${position}: `;
    const reason = err instanceof Error ? err.message : String(err);
    throw new RecordError(`${prefix}invalid JSON (${reason}): ${show(line)}`, { position, cause: err });
  }
  return decoder(json, position);
}

/** Converts one non-null value for output; DECIMAL and TIMESTAMP need their text forms. */
type ValueEncoder = (value: Value) => JsonValue;

/** Raises an engine bug: a row value whose JS type does not match its column. */
function wrongRepresentation(field: Field, value: Value, expected: string): never {
  throw new FlambdaError(
    `Cannot encode field '${field.name}' (${formatType(field.type)}): expected a ${expected} value, got ${typeof value} ${show(value)}`,
    'internal',
    'fail',
  );
}

/** Encodes a nested value (null stays null). */
function nestedEncoder(field: Field, options: JsonCodecOptions = {}): ValueEncoder {
  const encode = valueEncoderFor(field, options);
  return (value) => (value === null || value === undefined ? null : encode === undefined ? (value as JsonValue) : encode(value));
}

/** The output conversion for a column, or `undefined` when values are written as they are. */
function valueEncoderFor(field: Field, options: JsonCodecOptions): ValueEncoder | undefined {
  const type: LogicalType = field.type;
  switch (type.root) {
    case 'ROW': {
      const fields = (type.fields ?? []).map((f) => ({ name: f.name, encode: nestedEncoder({ name: `${field.name}.${f.name}`, type: f.type }, options) }));
      return (value) => {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return wrongRepresentation(field, value, 'object');
        const row = value as Row;
        const out: Record<string, JsonValue> = {};
        for (const f of fields) out[f.name] = f.encode(Object.hasOwn(row, f.name) ? (row[f.name] as Value) : null);
        return out;
      };
    }
    case 'ARRAY': {
      const element = nestedEncoder({ name: `${field.name}[]`, type: type.element ?? { root: 'STRING', nullable: true } }, options);
      return (value) => (Array.isArray(value) ? (value as readonly Value[]).map(element) : wrongRepresentation(field, value, 'array'));
    }
    case 'MAP': {
      const entry = nestedEncoder({ name: `${field.name}[]`, type: type.value ?? { root: 'STRING', nullable: true } }, options);
      return (value) => {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return wrongRepresentation(field, value, 'object');
        const out: Record<string, JsonValue> = {};
        for (const [k, v] of Object.entries(value as Record<string, Value>)) {
          Object.defineProperty(out, k, { value: entry(v), enumerable: true, writable: true, configurable: true });
        }
        return out;
      };
    }
    case 'MULTISET': {
      const elementType = type.element ?? { root: 'STRING', nullable: true };
      const element = nestedEncoder({ name: `${field.name}[]`, type: elementType }, options);
      const textKeys = !['ROW', 'ARRAY', 'MAP', 'MULTISET'].includes(elementType.root);
      return (value) => {
        if (!Array.isArray(value)) return wrongRepresentation(field, value, 'array');
        const entries = value as Multiset;
        // Scalar elements as an object from the element's text to its count, as Flink writes a
        // multiset; NULL and nested elements have no key text, so those multisets are pairs.
        if (!textKeys || entries.some(([e]) => e === null)) return entries.map(([e, n]) => [element(e), n]);
        const out: Record<string, JsonValue> = {};
        for (const [e, n] of entries) Object.defineProperty(out, String(element(e)), { value: n, enumerable: true, writable: true, configurable: true });
        return out;
      };
    }
    case 'DECIMAL': {
      const scale = type.scale ?? 0;
      return (value) => (typeof value === 'bigint' ? formatDecimal(value, scale) : wrongRepresentation(field, value, 'bigint'));
    }
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ': {
      const instant = type.root === 'TIMESTAMP_LTZ';
      const standard = options.timestampStandard;
      if (standard !== undefined) return (value) => (typeof value === 'number' ? standardTimestampText(value, standard, instant) : wrongRepresentation(field, value, 'number'));
      return (value) => (typeof value === 'number' ? `${formatTimestamp(value)}${instant ? 'Z' : ''}` : wrongRepresentation(field, value, 'number'));
    }
    case 'DATE':
      return (value) => (typeof value === 'number' ? formatDate(value) : wrongRepresentation(field, value, 'number'));
    case 'TIME':
      return (value) => (typeof value === 'number' ? jsonTimeText(value) : wrongRepresentation(field, value, 'number'));
    case 'DOUBLE':
      // JSON has no NaN/Infinity; JSON.stringify would silently write null.
      return (value) => (typeof value === 'number' && !Number.isFinite(value) ? String(value) : (value as JsonValue));
    case 'VARBINARY':
      return (value) => (typeof value === 'string' ? Buffer.from(value, 'hex').toString('base64') : wrongRepresentation(field, value, 'string'));
    case 'FLOAT':
      // Written with the float's own digits (`1.1`), as Jackson writes a Java float.
      return (value) => (typeof value === 'number' ? (Number.isFinite(value) ? shortestFloat(value) : String(value)) : (value as JsonValue));
    default:
      return undefined;
  }
}

/** One compiled column of an encoder. */
interface EncodeStep {
  readonly name: string;
  readonly inherited: boolean;
  readonly encode: ValueEncoder | undefined;
}

/**
 * Compiles an encoder for the schema. The output has exactly the schema's fields in schema
 * order; a field missing from the row is written as `null`.
 *
 * @throws FlambdaError (internal) from the returned function when a DECIMAL value is not a
 *   bigint or a TIMESTAMP value not a number; RecordError for a TIMESTAMP outside years 0000–9999.
 */
export function createRowEncoder(schema: Schema, options: JsonCodecOptions = {}): RowEncoder {
  checkSchema(schema);
  const steps: EncodeStep[] = schema.fields.map((field) => ({
    name: field.name,
    inherited: field.name in Object.prototype,
    encode: valueEncoderFor(field, options),
  }));
  const count = steps.length;
  return (row) => {
    const out: Record<string, JsonValue> = {};
    for (let i = 0; i < count; i++) {
      const step = steps[i]!;
      const value = step.inherited && !Object.hasOwn(row, step.name) ? undefined : row[step.name];
      if (value === undefined || value === null) out[step.name] = null;
      else out[step.name] = step.encode === undefined ? (value as JsonValue) : step.encode(value);
    }
    return out;
  };
}

/** Encoders cached per schema object, so the string helper compiles each schema once. */
const encoderCache = new WeakMap<Schema, RowEncoder>();

/** Encodes a row as a JSON text line (no trailing newline) using a cached encoder for the schema. */
export function encodeRowToJson(row: Row, schema: Schema): string {
  let encoder = encoderCache.get(schema);
  if (encoder === undefined) {
    encoder = createRowEncoder(schema);
    encoderCache.set(schema, encoder);
  }
  return JSON.stringify(encoder(row));
}
