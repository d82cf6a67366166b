/**
 * Record formats of sources: how one line (a file line, a Kinesis record) becomes a row.
 *
 * - `json` (Flink's `json` format): the JSON codec (codec.ts), with Flink's
 *   `json.timestamp-format.standard` ('SQL' or 'ISO-8601') when the table sets it.
 * - `csv` (Flink's `csv` format), one record per line, parsed by `csv-parse`: fields in schema
 *   order, separated by `csv.field-delimiter` (`,`), quoted with `csv.quote-character` (`"`,
 *   a doubled quote inside is a quote; `csv.disable-quote-character` turns quoting off). Each
 *   field's text converts as the JSON codec converts a string for the column's type (so
 *   `'42'`, `'1.50'`, `'true'`, `'2024-01-01 10:00:00'` read as INT, DECIMAL, BOOLEAN,
 *   TIMESTAMP); an empty field is NULL for every type but STRING (as Flink), and
 *   `csv.null-literal` reads as NULL in any column. A line with a field that does not convert,
 *   or with too few or too many fields, is a RecordError naming the position and the field —
 *   unless `csv.ignore-parse-errors`, where (as in Flink) such fields are NULL and missing
 *   fields too. `csv.allow-comments` skips lines starting with `#`. ROW, ARRAY and MAP columns
 *   are not supported in csv.
 * - `debezium-json` (Flink's format of Debezium change events): see {@link ChangeDecoder}.
 */
import { parse } from 'csv-parse/sync';
import { createRowDecoder, decodeJsonLine, type JsonTimestampStandard, type RowDecoder } from './codec.ts';
import { PlanError, RecordError } from './errors.ts';
import { formatType } from './type-parse.ts';
import type { ChangeRow } from './row.ts';
import type { Row, Schema, Value } from './types.ts';

/** Flink's csv format options that Flambda reads. */
export interface CsvFormat {
  readonly type: 'csv';
  /** @default ',' */
  readonly fieldDelimiter?: string;
  /** `null` disables quoting. @default '"' */
  readonly quoteCharacter?: string | null;
  /** A field with exactly this text is NULL. */
  readonly nullLiteral?: string;
  /** Fields that do not convert become NULL instead of failing the line. @default false */
  readonly ignoreParseErrors?: boolean;
  /** Lines starting with `#` are skipped. @default false */
  readonly allowComments?: boolean;
}

/** Flink's json format options that Flambda reads. */
export interface JsonFormat {
  readonly type: 'json';
  /** `json.timestamp-format.standard`; absent: the codec's own (lenient) timestamp texts. */
  readonly timestampStandard?: JsonTimestampStandard;
}

/** How a source's records are encoded. */
export type RecordFormat = JsonFormat | CsvFormat | { readonly type: 'debezium-json' };

/** True for the plain json format (no option set), which sources and sinks leave implicit. */
export function isPlainJson(format: RecordFormat): boolean {
  return format.type === 'json' && format.timestampStandard === undefined;
}

/** True for formats whose records are changes (`debezium-json`), not rows to insert. */
export function isChangelogFormat(format: RecordFormat | undefined): boolean {
  return format?.type === 'debezium-json';
}

/**
 * Decodes one record's text into the changes it carries: one `+I` row for json and csv (none
 * for a skipped line); for `debezium-json` (Flink's format: `{"before": …, "after": …, "op":
 * …}`, optionally inside `{"payload": …}` as Debezium writes with its schema) `c` and `r` →
 * `+I` after, `u` → `-U` before and `+U` after, `d` → `-D` before.
 *
 * @throws RecordError for a record that does not decode, an unknown `op`, or an update or delete
 *   without `before` (Debezium sends it only with the table's full replica identity, which
 *   Flink requires too).
 */
export type ChangeDecoder = (line: string, position?: string) => ChangeRow[];

/** Compiles the change decoder of a format for a schema. @throws PlanError as {@link createLineDecoder}. */
export function createChangeDecoder(schema: Schema, format: RecordFormat = { type: 'json' }): ChangeDecoder {
  if (format.type !== 'debezium-json') {
    const decode = createLineDecoder(schema, format);
    return (line, position) => {
      const row = decode(line, position);
      return row === undefined ? [] : [{ kind: '+I', row }];
    };
  }
  const decoder = createRowDecoder(schema);
  return (line, position) => {
    const at = position === undefined ? '' : `${position}: `;
    const fail = (problem: string): never => {
      throw new RecordError(`${at}${problem}`, position === undefined ? {} : { position });
    };
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (err) {
      return fail(`invalid JSON (${err instanceof Error ? err.message : String(err)}): ${line.slice(0, 60)}`);
    }
    let record = json as Record<string, unknown> | null;
    if (typeof record !== 'object' || record === null || Array.isArray(record)) return fail('expected a Debezium change event (a JSON object)');
    if (!('op' in record) && typeof record['payload'] === 'object' && record['payload'] !== null) record = record['payload'] as Record<string, unknown>;
    const op = record['op'];
    const image = (key: 'before' | 'after'): Row => {
      const value = record[key];
      if (value === null || value === undefined) {
        return fail(`Debezium '${String(op)}' event without '${key}'${key === 'before' ? " (set the source table's REPLICA IDENTITY to FULL, as Flink requires)" : ''}`);
      }
      return decoder(value, position);
    };
    switch (op) {
      case 'c':
      case 'r':
        return [{ kind: '+I', row: image('after') }];
      case 'u':
        return [
          { kind: '-U', row: image('before') },
          { kind: '+U', row: image('after') },
        ];
      case 'd':
        return [{ kind: '-D', row: image('before') }];
      default:
        return fail(`unknown Debezium op ${JSON.stringify(op)} (expected c, r, u or d)`);
    }
  };
}

/**
 * Decodes one record's text; `undefined` for a line the format skips (a csv comment).
 * @throws RecordError for a record that does not decode (see the module header).
 */
export type LineDecoder = (line: string, position?: string) => Row | undefined;

/** Compiles the decoder of a format for a schema. @throws PlanError for options or columns the format cannot take. */
export function createLineDecoder(schema: Schema, format: RecordFormat = { type: 'json' }): LineDecoder {
  if (format.type === 'debezium-json') throw new PlanError("'debezium-json' records are changes: read them with createChangeDecoder");
  if (format.type === 'json') {
    const decoder = createRowDecoder(schema, format.timestampStandard !== undefined ? { timestampStandard: format.timestampStandard } : {});
    return (line, position) => decodeJsonLine(line, decoder, position);
  }
  return createCsvDecoder(schema, format);
}

function createCsvDecoder(schema: Schema, format: CsvFormat): LineDecoder {
  const delimiter = format.fieldDelimiter ?? ',';
  const quote = format.quoteCharacter === undefined ? '"' : format.quoteCharacter;
  if (delimiter.length !== 1) throw new PlanError(`'csv.field-delimiter' must be one character (given '${delimiter}')`);
  if (quote !== null && quote.length !== 1) throw new PlanError(`'csv.quote-character' must be one character (given '${quote}')`);
  const fields = schema.fields;
  for (const f of fields) {
    if (f.type.root === 'ROW' || f.type.root === 'ARRAY' || f.type.root === 'MAP' || f.type.root === 'MULTISET') {
      throw new PlanError(`the csv format does not read ${formatType(f.type)} columns (column '${f.name}'); use 'format' = 'json'`);
    }
  }
  // One single-column JSON decoder per column: converting a field alone lets ignore-parse-errors null just that field.
  const decoders: RowDecoder[] = fields.map((f) => createRowDecoder({ fields: [f] }));
  const ignore = format.ignoreParseErrors === true;
  const nullLiteral = format.nullLiteral;
  const comments = format.allowComments === true;
  const options = { delimiter, quote: quote ?? false, relax_column_count: true, skip_empty_lines: false } as const;
  return (line, position) => {
    if (comments && line.startsWith('#')) return undefined;
    const at = position === undefined ? '' : `${position}: `;
    let texts: string[];
    try {
      const records = parse(line, options) as string[][];
      texts = records[0] ?? [''];
      if (records.length > 1) throw new Error('one line holds more than one record');
    } catch (err) {
      if (ignore) return undefined;
      throw new RecordError(`${at}invalid csv (${err instanceof Error ? err.message : String(err)}): ${line.slice(0, 60)}`, position === undefined ? {} : { position });
    }
    if (texts.length !== fields.length && !ignore) {
      throw new RecordError(`${at}expected ${fields.length} csv fields (${fields.map((f) => f.name).join(', ')}), got ${texts.length}`, position === undefined ? {} : { position });
    }
    const row: Record<string, Value> = {};
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i]!;
      const text = texts[i];
      const isNull = text === undefined || text === nullLiteral || (text === '' && field.type.root !== 'STRING');
      try {
        row[field.name] = decoders[i]!({ [field.name]: isNull ? null : text }, position)[field.name] as Value;
      } catch (err) {
        if (!(err instanceof RecordError) || !ignore || !field.type.nullable) throw err;
        row[field.name] = null;
      }
    }
    return row;
  };
}
