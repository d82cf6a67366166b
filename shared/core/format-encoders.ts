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
import { createRowEncoder, type JsonTimestampStandard, type JsonValue } from './codec.ts';
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
  switch (format?.type) {
    case undefined: {
      const encode = createRowEncoder(schema);
      return (change) => JSON.stringify({ op: change.kind, ...encode(change.row) });
    }
    case 'json': {
      const text = flinkJsonRow(schema, format.timestampStandard ?? 'SQL');
      return (change) => {
        if (change.kind !== '+I' && change.kind !== '+U') throw new PlanError(`the json format writes inserts only, not a ${change.kind} change`);
        return text(change.row);
      };
    }
    case 'debezium-json': {
      // Flink's DebeziumJsonSerializationSchema writes each image with its json writer ('SQL' timestamps).
      const image = flinkJsonRow(schema, 'SQL');
      return (change) =>
        change.kind === '+I' || change.kind === '+U' ? `{"before":null,"after":${image(change.row)},"op":"c"}` : `{"before":${image(change.row)},"after":null,"op":"d"}`;
    }
    case 'csv':
      return csvEncoder(schema, format, createRowEncoder(schema));
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
 * Flink's json writer for one row: the codec's JSON of it, written with the number texts Jackson
 * gives Flink's nodes, which JSON.stringify cannot (a DECIMAL's scale, a double's `.0`).
 */
function flinkJsonRow(schema: Schema, timestampStandard: JsonTimestampStandard): (row: ChangeRow['row']) => string {
  const encode = createRowEncoder(schema, { timestampStandard });
  const write = jacksonWriter({ root: 'ROW', nullable: false, fields: schema.fields });
  return (row) => write(encode(row));
}

/** Writes a JSON value of a type as Jackson writes Flink's node for it (built once per type). */
function jacksonWriter(type: LogicalType): (value: JsonValue | undefined) => string {
  const orNull =
    (write: (value: Exclude<JsonValue, null>) => string) =>
    (value: JsonValue | undefined): string =>
      value === null || value === undefined ? 'null' : write(value);
  switch (type.root) {
    case 'DECIMAL':
      // The codec's text of a DECIMAL is its plain digits with the scale: a JSON number already.
      return orNull((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
    case 'DOUBLE':
    case 'FLOAT':
      // Non-finite values arrive as text ("NaN"), which Jackson quotes too.
      return orNull((v) => (typeof v === 'number' ? javaDouble(v) : JSON.stringify(v)));
    case 'ROW': {
      const fields = (type.fields ?? []).map((f) => ({ name: f.name, key: `${JSON.stringify(f.name)}:`, write: jacksonWriter(f.type) }));
      return orNull((v) => {
        const record = v as Record<string, JsonValue>;
        return `{${fields.map((f) => f.key + f.write(record[f.name])).join(',')}}`;
      });
    }
    case 'ARRAY': {
      const element = jacksonWriter(type.element ?? STRING);
      return orNull((v) => (Array.isArray(v) ? `[${v.map(element).join(',')}]` : JSON.stringify(v)));
    }
    case 'MAP': {
      const entry = jacksonWriter(type.value ?? STRING);
      return orNull((v) => (typeof v === 'object' && !Array.isArray(v) ? `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${entry(x)}`).join(',')}}` : JSON.stringify(v)));
    }
    default:
      return orNull((v) => JSON.stringify(v));
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
