/**
 * Record formats of sinks: how one changelog row becomes one record's text (a file line, a
 * Kinesis record), the inverse of formats.ts.
 *
 * - `json` (no format given): the changelog line `{"op":"+I", …columns}` of the JSON codec, its
 *   timestamps in the `json.timestamp-format.standard` the table sets (Flink's writer's texts).
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
 *   `{"before":null,"after":{…},"op":"c"}`, `-U` and `-D` as `{"before":{…},"after":null,"op":"d"}`.
 */
import { createRowEncoder, type JsonValue } from './codec.ts';
import { PlanError } from './errors.ts';
import type { CsvFormat, RecordFormat } from './formats.ts';
import { formatType } from './type-parse.ts';
import type { ChangeRow } from './row.ts';
import type { Schema } from './types.ts';

/** Encodes one changelog row as one record's text. */
export type ChangeEncoder = (change: ChangeRow) => string;

/** Whether a sink in this format takes only inserts (Flink's `ChangelogMode.insertOnly()` of its encoding format). */
export function isInsertOnlyFormat(format: RecordFormat | undefined): boolean {
  return format?.type === 'csv';
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
    case 'json': {
      const standard = format?.type === 'json' ? format.timestampStandard : undefined;
      const encodeJson = standard === undefined ? encode : createRowEncoder(schema, { timestampStandard: standard });
      return (change) => JSON.stringify({ op: change.kind, ...encodeJson(change.row) });
    }
    case 'debezium-json':
      return (change) => {
        const image = encode(change.row);
        const added = change.kind === '+I' || change.kind === '+U';
        return JSON.stringify(added ? { before: null, after: image, op: 'c' } : { before: image, after: null, op: 'd' });
      };
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
