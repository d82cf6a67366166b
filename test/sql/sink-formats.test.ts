/**
 * Writing `'format' = 'json'`, `'format' = 'csv'` and `'format' = 'debezium-json'`
 * (core/format-encoders.ts): the exact lines Flink's writers give (json rows with Jackson's
 * numbers, Jackson's csv quoting, Java's numbers, Debezium's `c` / `d` envelopes), a round trip
 * through a filesystem table written by one job and read by the next, the same files from
 * `flambda local` (the AWS runtime on emulators), and an updating query into json or csv
 * rejected as Flink rejects it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { PlanError } from '../../shared/core/errors.ts';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { runCli } from '../cli/cli.ts';
import { inputDir, runEmbeddedSql } from './run-both.ts';

const files = inputDir('sink-formats');
afterAll(() => files.cleanup());

const src = files.file('src', [
  { id: 1, name: 'Smith, Ann', price: 2, amount: '12.50', ok: true, ts: '2024-01-01 10:00:00.000' },
  { id: 2, name: 'Bob', price: 0.5, amount: null, ok: false, ts: '2024-01-01 11:00:00.250' },
  { id: 3, name: '', price: 12345678.9, amount: '7.00', ok: null, ts: null },
  { id: 4, name: 'say "hi"', price: 0.0001, amount: '-3.10', ok: true, ts: '2024-01-01 12:30:00.123' },
  { id: 5, name: 'a-name-longer-than-24-chars', price: -1.5, amount: '0.00', ok: false, ts: '2024-01-01 13:00:00.000' },
]);
const kv = files.file('kv', [{ k: 'a' }, { k: 'b' }, { k: 'a' }]);

const COLUMNS = 'id BIGINT, name STRING, price DOUBLE, amount DECIMAL(10, 2), ok BOOLEAN, ts TIMESTAMP(3)';

/** A script writing `src` into a file table of `format`. */
const writeScript = (path: string, format: string, extra = ''): string => `
  CREATE TABLE src (${COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '${src}', 'format' = 'json');
  CREATE TABLE out_t (${COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = '${format}'${extra});
  INSERT INTO out_t SELECT * FROM src`;

/** The lines Flink's csv writer gives for `src`. */
const CSV_LINES = [
  '1,"Smith, Ann",2.0,12.50,true,"2024-01-01 10:00:00"',
  '2,Bob,0.5,,false,"2024-01-01 11:00:00.25"',
  '3,"",1.23456789E7,7.00,,',
  '4,"say ""hi""",1.0E-4,-3.10,true,"2024-01-01 12:30:00.123"',
  '5,"a-name-longer-than-24-chars",-1.5,0.00,false,"2024-01-01 13:00:00"',
];

/** `src` as the json source reads it (the row encoder's JSON), sorted. */
const SRC_ROWS = [
  '{"id":1,"name":"Smith, Ann","price":2,"amount":"12.50","ok":true,"ts":"2024-01-01 10:00:00.000"}',
  '{"id":2,"name":"Bob","price":0.5,"amount":null,"ok":false,"ts":"2024-01-01 11:00:00.250"}',
  '{"id":3,"name":"","price":12345678.9,"amount":"7.00","ok":null,"ts":null}',
  '{"id":4,"name":"say \\"hi\\"","price":0.0001,"amount":"-3.10","ok":true,"ts":"2024-01-01 12:30:00.123"}',
  '{"id":5,"name":"a-name-longer-than-24-chars","price":-1.5,"amount":"0.00","ok":false,"ts":"2024-01-01 13:00:00.000"}',
];

const lines = (path: string): string[] => readFileSync(path, 'utf8').trimEnd().split('\n');

/** Writes `src` into a file table of `format`, expects exactly `expected`, and reads it back as `src`'s rows. */
async function roundTrip(name: string, format: string, expected: readonly string[]): Promise<void> {
  const out = files.file(name, []);
  await runEmbeddedSql(writeScript(out, format), { parallelism: 1 });
  expect(lines(out)).toEqual(expected);
  const back = await runEmbeddedSql(`CREATE TABLE back (${COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = '${format}'); SELECT * FROM back`);
  expect(back.rows).toEqual(SRC_ROWS);
  expect(back.deadLetters).toEqual([]);
}

/** Flink's refusal of a GROUP BY's updates in a sink of an insert-only `format`. */
function expectUpdatesRefused(format: string): void {
  const program = compileSql(`
    CREATE TABLE kv (k STRING) WITH ('connector' = 'filesystem', 'path' = '${kv}', 'format' = 'json');
    CREATE TABLE counts (k STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '${files.file(`counts-${format}`, [])}', 'format' = '${format}');
    INSERT INTO counts SELECT k, COUNT(*) FROM kv GROUP BY k`);
  expect(() => program.pipeline.jobGraph()).toThrow(PlanError);
  expect(() => program.pipeline.jobGraph()).toThrow(
    new RegExp(`^Table sink 'counts' doesn't support consuming update and delete changes which is produced by node GroupAggregate #\\d+ \\(the '${format}' format writes inserts only; use 'debezium-json' for a changelog\\)$`),
  );
}

/**
 * The lines Flink's json writer gives for `src` (JsonRowDataSerializationSchema): the sink's
 * columns only, DECIMAL as a number with its scale and DOUBLE as Jackson writes a Java double,
 * timestamps in the default 'SQL' standard (no trailing zeros).
 */
const JSON_LINES = [
  '{"id":1,"name":"Smith, Ann","price":2.0,"amount":12.50,"ok":true,"ts":"2024-01-01 10:00:00"}',
  '{"id":2,"name":"Bob","price":0.5,"amount":null,"ok":false,"ts":"2024-01-01 11:00:00.25"}',
  '{"id":3,"name":"","price":1.23456789E7,"amount":7.00,"ok":null,"ts":null}',
  '{"id":4,"name":"say \\"hi\\"","price":1.0E-4,"amount":-3.10,"ok":true,"ts":"2024-01-01 12:30:00.123"}',
  '{"id":5,"name":"a-name-longer-than-24-chars","price":-1.5,"amount":0.00,"ok":false,"ts":"2024-01-01 13:00:00"}',
];

describe("writing 'format' = 'json'", () => {
  it("writes Flink's json rows and reads them back as the rows written", async () => {
    await roundTrip('out-json', 'json', JSON_LINES);
  });

  it("writes nested columns with the sink's field names and numbers as Jackson writes them", async () => {
    const out = files.file('out-nested', []);
    // The query's ROW(…) has fields EXPR$0, EXPR$1 and DECIMAL(2, 1) parts: the INSERT casts each
    // value to the declared column, as Flink's sink writes the declared fields and scales.
    await runEmbeddedSql(
      `CREATE TABLE out_t (r ROW<d DECIMAL(5, 2), x DOUBLE>, n ROW<d DECIMAL(5, 1)>, a ARRAY<DOUBLE>, rs ARRAY<ROW<p DECIMAL(4, 2)>>, m MAP<STRING, DECIMAL(4, 2)>) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');
       INSERT INTO out_t SELECT ROW(1.5, 2), CAST(NULL AS ROW<d DECIMAL(5, 1)>), ARRAY[1.0E0, CAST('NaN' AS DOUBLE)], ARRAY[ROW(1.5), CAST(NULL AS ROW<q DECIMAL(2, 1)>)], MAP['k', 1.5]`,
      { parallelism: 1 },
    );
    expect(lines(out)).toEqual(['{"r":{"d":1.50,"x":2.0},"n":null,"a":[1.0,"NaN"],"rs":[{"p":1.50},null],"m":{"k":1.50}}']);
  });

  it('rejects a ROW of other arity into a ROW column, naming both types', () => {
    const program = (): unknown =>
      compileSql(`CREATE TABLE out_t (r ROW<a INT, b STRING>) WITH ('connector' = 'filesystem', 'path' = '${files.file('out-arity', [])}', 'format' = 'json');
        INSERT INTO out_t SELECT ROW(1, 'x', 2)`);
    expect(program).toThrow(/column 'EXPR\$0' is ROW<EXPR\$0 INT, EXPR\$1 STRING, EXPR\$2 INT> but the sink column 'r' is ROW<a INT, b STRING>, which .* does not cast to implicitly/);
  });

  it('rejects an updating query as Flink does: the json format writes inserts only', () => {
    expectUpdatesRefused('json');
  });
});

describe("writing 'format' = 'csv'", () => {
  it("writes Flink's csv lines and reads them back as the rows written", async () => {
    await roundTrip('out', 'csv', CSV_LINES);
  });

  it("writes 'csv.field-delimiter', 'csv.null-literal' and 'csv.disable-quote-character'", async () => {
    const out = files.file('out-options', []);
    await runEmbeddedSql(writeScript(out, 'csv', ", 'csv.field-delimiter' = '|', 'csv.null-literal' = 'N/A', 'csv.disable-quote-character' = 'true'"), { parallelism: 1 });
    expect(lines(out)).toEqual([
      '1|Smith, Ann|2.0|12.50|true|2024-01-01 10:00:00',
      '2|Bob|0.5|N/A|false|2024-01-01 11:00:00.25',
      '3||1.23456789E7|7.00|N/A|N/A',
      '4|say "hi"|1.0E-4|-3.10|true|2024-01-01 12:30:00.123',
      '5|a-name-longer-than-24-chars|-1.5|0.00|false|2024-01-01 13:00:00',
    ]);
  });

  it('rejects an updating query as Flink does: the csv format writes inserts only', () => {
    expectUpdatesRefused('csv');
  });
});

describe("writing 'format' = 'debezium-json'", () => {
  const counts = (path: string): string => `
    CREATE TABLE kv (k STRING) WITH ('connector' = 'filesystem', 'path' = '${kv}', 'format' = 'json');
    CREATE TABLE counts (k STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'debezium-json');
    INSERT INTO counts SELECT k, COUNT(*) FROM kv GROUP BY k`;
  /** Flink's DebeziumJsonSerializationSchema: +I / +U as "c" after, -U / -D as "d" before. */
  const EVENTS = [
    '{"before":null,"after":{"k":"a","n":1},"op":"c"}',
    '{"before":null,"after":{"k":"b","n":1},"op":"c"}',
    '{"before":{"k":"a","n":1},"after":null,"op":"d"}',
    '{"before":null,"after":{"k":"a","n":2},"op":"c"}',
  ];

  it("writes each image as Flink's json writer writes a row (numbers as Jackson writes them, 'SQL' timestamps)", async () => {
    await roundTrip('out-dbz-types', 'debezium-json', JSON_LINES.map((image) => `{"before":null,"after":${image},"op":"c"}`));
  });

  it('writes an updating query as Debezium change events and reads them back as the same changelog', async () => {
    const out = files.file('counts', []);
    await runEmbeddedSql(counts(out), { parallelism: 1 });
    expect(lines(out)).toEqual(EVENTS);
    const back = await runEmbeddedSql(`CREATE TABLE back (k STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json'); SELECT k, SUM(n) AS total FROM back GROUP BY k`);
    expect(back.rows).toEqual(['{"k":"a","total":2}', '{"k":"b","total":1}']);
  });

  it('writes the same files on the AWS runtime (flambda local: stages on Kinesis and DynamoDB emulators; the json rows too)', async () => {
    const dbz = files.file('counts-local', []);
    const csv = files.file('out-local', []);
    const json = files.file('out-json-local', []);
    const dbzScript = files.file('dbz-script', []).replace(/\.jsonl$/, '.sql');
    const csvScript = files.file('csv-script', []).replace(/\.jsonl$/, '.sql');
    const jsonScript = files.file('json-script', []).replace(/\.jsonl$/, '.sql');
    writeFileSync(dbzScript, counts(dbz));
    writeFileSync(csvScript, writeScript(csv, 'csv'));
    writeFileSync(jsonScript, writeScript(json, 'json'));
    for (const script of [dbzScript, csvScript, jsonScript]) {
      const r = await runCli(['local', script, '--quiet']);
      expect(r.code, r.stderr).toBe(0);
    }
    expect(lines(dbz)).toEqual(EVENTS);
    expect(lines(csv)).toEqual(CSV_LINES);
    expect(lines(json)).toEqual(JSON_LINES);
  }, 180_000);
});
