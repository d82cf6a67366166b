/**
 * Record formats of sinks: how one changelog row becomes one record's text (a file line, a
 * Kinesis record), the inverse of formats.ts.
 *
 * - no format (the TypeScript API's sinks): Flambda's changelog line `{"op":"+I", …columns}` of the
 *   JSON codec, so that an updating result can be written and replayed.
 * - `json` (Flink's JsonRowDataSerializationSchema, which writes inserts only: the planner rejects
 *   an updating query into a json sink as Flink does): one object per row, the sink's columns
 *   only; timestamps in the table's `json.timestamp-format.standard`, 'SQL' by default as in
 *   Flink; DECIMAL as a JSON number with its scale (`12.50`) and DOUBLE / FLOAT as Java prints
 *   them (`2.0`, `1.0E7`), as Jackson writes Flink's BigDecimal and double nodes.
 * - `csv` (Flink's CsvRowDataSerializationSchema, which writes inserts only: the planner rejects
 *   an updating query into a csv sink as Flink does): the fields in schema order, separated by
 *   `csv.field-delimiter`, NULL as `csv.null-literal` (empty by default); numbers and booleans
 *   as Java prints them (`2.0`, `1.0E7`), DECIMAL with its scale, TIMESTAMP as
 *   `yyyy-MM-dd HH:mm:ss[.fraction]` (Java's ISO local time: no trailing zeros), TIMESTAMP_LTZ
 *   the same in UTC with a `Z` (Flink's `SQL_TIMESTAMP_WITH_LOCAL_TIMEZONE_FORMAT`), DATE as
 *   `yyyy-MM-dd`, TIME as `HH:mm:ss[.fraction]`. A field is
 *   quoted with `csv.quote-character` as Jackson's CSV writer decides (Flink's writer): when it
 *   is empty, longer than 24 characters, or holds a character at or below the delimiter, the
 *   quote or a line break (a space, say); a quote inside is doubled.
 * - `debezium-json` (Flink's DebeziumJsonSerializationSchema): `+I` and `+U` as
 *   `{"before":null,"after":{…},"op":"c"}`, `-U` and `-D` as `{"before":{…},"after":null,"op":"d"}`,
 *   each image as the json format writes a row (its default 'SQL' timestamps).
 */
import { createRowEncoder, type JsonValue } from './codec.ts';
import { PlanError } from './errors.ts';
import type { CsvFormat, RecordFormat } from './formats.ts';
import { formatType } from './type-parse.ts';
import type { ChangeRow } from './row.ts';
import type { LogicalType, Schema } from './types.ts';

/** Encodes one changelog row as one record's text. */
export type ChangeEncoder = (change: ChangeRow) => string;

/** Whether a sink in this format takes only inserts (Flink's `ChangelogMode.insertOnly()` of its encoding format). */
export function isInsertOnlyFormat(format: RecordFormat | undefined): boolean {
  return format?.type === 'csv' || format?.type === 'json';
}

/**
 * The encoder of a sink format for a schema.
 *
 * @throws PlanError for a column the format cannot write (ROW, ARRAY or MAP in csv).
 */
export function createChangeEncoder(schema: Schema, format: RecordFormat | undefined): ChangeEncoder {
  const encode = createRowEncoder(schema);
  switch (format?.type) {
    case undefined:
      return (change) => JSON.stringify({ op: change.kind, ...encode(change.row) });
    case 'json':
      return flinkJsonEncoder(schema, createRowEncoder(schema, { timestampStandard: format.timestampStandard ?? 'SQL' }));
    case 'debezium-json': {
      // Flink's DebeziumJsonSerializationSchema writes each image with its json writer ('SQL' timestamps).
      const encodeJson = createRowEncoder(schema, { timestampStandard: 'SQL' });
      const row: LogicalType = { root: 'ROW', nullable: false, fields: schema.fields };
      return (change) => {
        const image = jacksonText(encodeJson(change.row), row);
        const added = change.kind === '+I' || change.kind === '+U';
        return added ? `{"before":null,"after":${image},"op":"c"}` : `{"before":${image},"after":null,"op":"d"}`;
      };
    }
    case 'csv':
      return csvEncoder(schema, format, encode);
  }
}

/** Jackson's quick quoting check looks at strings of at most this many characters; longer ones are quoted. */
const MAX_QUOTE_CHECK = 24;

function csvEncoder(schema: Schema, format: CsvFormat, encode: (row: ChangeRow['row']) => Record<string, JsonValue>): ChangeEncoder {
  const delimiter = format.fieldDelimiter ?? ',';
  const quote = format.quoteCharacter === undefined ? '"' : format.quoteCharacter;
  const nullLiteral = format.nullLiteral ?? '';
  for (const f of schema.fields) {
    if (f.type.root === 'ROW' || f.type.root === 'ARRAY' || f.type.root === 'MAP' || f.type.root === 'MULTISET') {
      throw new PlanError(`the csv format does not write ${formatType(f.type)} columns (column '${f.name}'); use 'format' = 'json'`);
    }
  }
  // Jackson's CsvEncoder: a character below this one may need quotes.
  const minSafe = Math.max(delimiter.charCodeAt(0), quote === null ? 0 : quote.charCodeAt(0), '\n'.charCodeAt(0)) + 1;
  const quoted = (text: string): string => {
    if (quote === null) return text;
    let needs = text.length === 0 || text.length > MAX_QUOTE_CHECK;
    for (let i = 0; !needs && i < text.length; i++) needs = text.charCodeAt(i) < minSafe;
    return needs ? `${quote}${text.split(quote).join(quote + quote)}${quote}` : text;
  };
  const fields = schema.fields;
  return (change) => {
    if (change.kind !== '+I' && change.kind !== '+U') throw new PlanError(`the csv format writes inserts only, not a ${change.kind} change`);
    const json = encode(change.row);
    return fields
      .map((f) => {
        const v = json[f.name];
        if (v === null || v === undefined) return nullLiteral;
        switch (f.type.root) {
          case 'DOUBLE':
          case 'FLOAT':
            // A FLOAT arrives as its shortest digits (the codec's), so this is Float.toString.
            return quoted(javaDouble(v as number));
          case 'TIMESTAMP':
          case 'TIME':
            // Java's ISO_LOCAL_TIME: the fraction without trailing zeros, none when zero.
            return quoted(withoutTrailingZeros(String(v)));
          case 'TIMESTAMP_LTZ':
            // The JSON codec's UTC text `…ss.fffZ`, its fraction cut the same way.
            return quoted(`${withoutTrailingZeros(String(v).replace(/Z$/, ''))}Z`);
          default:
            return quoted(String(v));
        }
      })
      .join(delimiter);
  };
}

/**
 * Flink's json writer: the codec's JSON of each row, written with the number texts Jackson gives
 * Flink's nodes, which JSON.stringify cannot (a DECIMAL's scale, a double's `.0`).
 */
function flinkJsonEncoder(schema: Schema, encode: (row: ChangeRow['row']) => Record<string, JsonValue>): ChangeEncoder {
  const row: LogicalType = { root: 'ROW', nullable: false, fields: schema.fields };
  return (change) => {
    if (change.kind !== '+I' && change.kind !== '+U') throw new PlanError(`the json format writes inserts only, not a ${change.kind} change`);
    return jacksonText(encode(change.row), row);
  };
}

/** A JSON value of a type as Jackson writes Flink's node for it. */
function jacksonText(value: JsonValue | undefined, type: LogicalType): string {
  if (value === null || value === undefined) return 'null';
  switch (type.root) {
    case 'DECIMAL':
      // The codec's text of a DECIMAL is its plain digits with the scale: a JSON number already.
      return typeof value === 'string' ? value : JSON.stringify(value);
    case 'DOUBLE':
    case 'FLOAT':
      // Non-finite values arrive as text ("NaN"), which Jackson quotes too.
      return typeof value === 'number' ? javaDouble(value) : JSON.stringify(value);
    case 'ROW': {
      const record = value as Record<string, JsonValue>;
      return `{${(type.fields ?? []).map((f) => `${JSON.stringify(f.name)}:${jacksonText(record[f.name], f.type)}`).join(',')}}`;
    }
    case 'ARRAY':
      return Array.isArray(value) ? `[${value.map((e) => jacksonText(e, type.element ?? STRING)).join(',')}]` : JSON.stringify(value);
    case 'MAP':
      return typeof value === 'object' && !Array.isArray(value)
        ? `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${jacksonText(v, type.value ?? STRING)}`).join(',')}}`
        : JSON.stringify(value);
    default:
      return JSON.stringify(value);
  }
}

const STRING: LogicalType = { root: 'STRING', nullable: true };

/** A time text's fraction without trailing zeros, and without the point when nothing is left. */
function withoutTrailingZeros(text: string): string {
  return text.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
}

/** A double as Java's `Double.toString` prints it: `2.0`, `0.5`, `1.0E7`, `1.5E-4`, `NaN`. */
export function javaDouble(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity';
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(n);
  if (abs >= 1e-3 && abs < 1e7) return Number.isInteger(n) ? `${n}.0` : String(n);
  const [mantissa = '', exponent = ''] = n.toExponential().split('e');
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${exponent.replace('+', '')}`;
}
