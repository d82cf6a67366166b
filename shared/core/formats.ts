/**
 * Record formats of sources: how one line (a file line, a Kinesis record) becomes a row.
 *
 * - `json` (Flink's `json` format): the JSON codec (codec.ts).
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
 */
import { parse } from 'csv-parse/sync';
import { createRowDecoder, decodeJsonLine, type RowDecoder } from './codec.ts';
import { PlanError, RecordError } from './errors.ts';
import { formatType } from './type-parse.ts';
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

/** How a source's records are encoded. */
export type RecordFormat = { readonly type: 'json' } | CsvFormat;

/**
 * Decodes one record's text; `undefined` for a line the format skips (a csv comment).
 * @throws RecordError for a record that does not decode (see the module header).
 */
export type LineDecoder = (line: string, position?: string) => Row | undefined;

/** Compiles the decoder of a format for a schema. @throws PlanError for options or columns the format cannot take. */
export function createLineDecoder(schema: Schema, format: RecordFormat = { type: 'json' }): LineDecoder {
  if (format.type === 'json') {
    const decoder = createRowDecoder(schema);
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
    if (f.type.root === 'ROW' || f.type.root === 'ARRAY' || f.type.root === 'MAP') {
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
