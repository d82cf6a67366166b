/**
 * `'format' = 'csv'` sources (Flink's csv format: field-delimiter, quote-character,
 * disable-quote-character, null-literal, ignore-parse-errors, allow-comments) on both runtimes:
 * exact rows, NULLs for empty non-STRING fields and the null literal, and bad lines
 * dead-lettered with their position and the field to blame (or, with ignore-parse-errors, read
 * with NULLs as Flink does).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createLineDecoder } from '../../shared/core/formats.ts';
import { RecordError } from '../../shared/core/errors.ts';
import { schemaOf } from '../../shared/core/type-parse.ts';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { sqlError } from './helpers.ts';
import { inputDir, runEmbeddedSql, runLocalSql } from './run-both.ts';

const files = inputDir('csv');
afterAll(() => files.cleanup());

const people = files.file('people', [
  '# a comment line',
  '1,"Smith, Ann",12.50,true,2024-01-01 10:00:00',
  '2,Bob,,false,2024-01-01 11:00:00',
  '3,N/A,7,TRUE,',
  'x,bad,1,true,2024-01-01 12:00:00',
  '4,Eve,1,true',
  '5,"say ""hi""",0.5,false,2024-01-01 13:00:00.250',
]);

const table = (extra: string): string => `CREATE TABLE people (id BIGINT, name STRING, amount DECIMAL(10, 2), ok BOOLEAN, ts TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = '${people}', 'format' = 'csv', 'csv.null-literal' = 'N/A', 'csv.allow-comments' = 'true'${extra});
  SELECT * FROM people`;

const GOOD = [
  '{"id":1,"name":"Smith, Ann","amount":"12.50","ok":true,"ts":"2024-01-01 10:00:00.000"}',
  '{"id":2,"name":"Bob","amount":null,"ok":false,"ts":"2024-01-01 11:00:00.000"}',
  '{"id":3,"name":null,"amount":"7.00","ok":true,"ts":null}',
  '{"id":5,"name":"say \\"hi\\"","amount":"0.50","ok":false,"ts":"2024-01-01 13:00:00.250"}',
];

describe("'format' = 'csv'", () => {
  it('reads fields by position, quotes, NULLs; dead-letters bad lines with their position (embedded)', async () => {
    const run = await runEmbeddedSql(table(''));
    expect(run.rows).toEqual(GOOD);
    expect(run.deadLetters).toEqual([
      'people.jsonl:5: field \'id\' (BIGINT): expected an integer, got "x"',
      'people.jsonl:6: expected 5 csv fields (id, name, amount, ok, ts), got 4',
    ]);
  });

  it('gives the same rows and dead letters on the AWS runtime (records through Kinesis)', async () => {
    const run = await runLocalSql(table(''));
    expect(run.rows).toEqual(GOOD);
    // Positions are Kinesis shard@sequence numbers here, and the two shards report in any order.
    expect(run.deadLetters.map((r) => r.replace(/^[^ ]+: /, '')).sort()).toEqual([
      'expected 5 csv fields (id, name, amount, ok, ts), got 4',
      'field \'id\' (BIGINT): expected an integer, got "x"',
    ]);
  }, 120_000);

  it("with 'csv.ignore-parse-errors' reads bad fields and missing fields as NULL, as Flink", async () => {
    const run = await runEmbeddedSql(table(", 'csv.ignore-parse-errors' = 'true'"));
    expect(run.deadLetters).toEqual([]);
    expect(run.rows).toEqual(
      [
        ...GOOD,
        '{"id":null,"name":"bad","amount":"1.00","ok":true,"ts":"2024-01-01 12:00:00.000"}',
        '{"id":4,"name":"Eve","amount":"1.00","ok":true,"ts":null}',
      ].sort(),
    );
  });

  it('takes another delimiter and quote, or no quoting', () => {
    const schema = schemaOf({ a: 'STRING', b: 'INT' });
    expect(createLineDecoder(schema, { type: 'csv', fieldDelimiter: ';', quoteCharacter: "'" })("'x;y';3")).toEqual({ a: 'x;y', b: 3 });
    expect(createLineDecoder(schema, { type: 'csv', fieldDelimiter: '\t', quoteCharacter: null })('"x\t4')).toEqual({ a: '"x', b: 4 });
    expect(() => createLineDecoder(schema, { type: 'csv' })('"open,1', 'f.csv:2')).toThrow(RecordError);
    expect(() => createLineDecoder(schema, { type: 'csv' })('"open,1', 'f.csv:2')).toThrow(/^f\.csv:2: invalid csv/);
  });

  it('reads DATE, TIME and TIMESTAMP_LTZ fields as Flink writes them (an empty one is NULL)', () => {
    const schema = schemaOf({ d: 'DATE', t: 'TIME(3)', ltz: 'TIMESTAMP_LTZ(3)' });
    const decode = createLineDecoder(schema, { type: 'csv' });
    expect(decode('2024-03-05,12:34:56.789,1970-01-01 00:00:00.005Z')).toEqual({ d: 19787, t: 45_296_789, ltz: 5 });
    expect(decode(',,')).toEqual({ d: null, t: null, ltz: null });
    expect(() => decode('2024-13-01,12:00:00,', 'f.csv:3')).toThrow("f.csv:3: field 'd' (DATE): expected a date 'YYYY-MM-DD' (years 0000-9999), got \"2024-13-01\"");
  });

  it('names bad options and formats', () => {
    const t = (cols: string, opts: string): string => `CREATE TABLE c (${cols}) WITH ('connector' = 'filesystem', 'path' = '${people}', 'format' = 'csv'${opts}); SELECT * FROM c`;
    expect(sqlError(() => compileSql(t('a STRING', ", 'csv.field-delimiter' = ';;'"))).message).toMatch(/'csv.field-delimiter' must be a single character \(given ';;'\)/);
    expect(sqlError(() => compileSql(t('a STRING', ", 'csv.quote' = 'x'"))).message).toMatch(/unknown csv option 'csv.quote'/);
    expect(sqlError(() => compileSql(`CREATE TABLE c (a STRING) WITH ('connector' = 'filesystem', 'path' = 'x.csv', 'format' = 'avro'); SELECT * FROM c`)).message).toMatch(
      /'format' = 'avro' is not supported \(use 'json', 'csv' or 'debezium-json'\)/,
    );
  });
});
