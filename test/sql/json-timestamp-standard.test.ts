/**
 * The json format's `json.timestamp-format.standard` (Flink's formats/json page): 'SQL'
 * (`yyyy-MM-dd HH:mm:ss[.fraction]`, a TIMESTAMP_LTZ with a trailing `Z`) and 'ISO-8601'
 * (`yyyy-MM-ddTHH:mm[:ss[.fraction]]`, `…Z`) — the texts Flink's JsonToRowDataConverters read
 * (others are dead-lettered, naming the column) and RowDataToJsonConverters write (the fraction
 * without trailing zeros), on both runtimes, through filesystem sources and sinks; another value
 * is rejected naming the option.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { runCli } from '../cli/cli.ts';
import { sqlError } from './helpers.ts';
import { inputDir, runEmbeddedSql, runLocalSql } from './run-both.ts';

const files = inputDir('json-timestamp-standard');
afterAll(() => files.cleanup());

const COLUMNS = 'id BIGINT, ts TIMESTAMP(3), lt TIMESTAMP_LTZ(3)';

// Rows read in the codec's own texts (no standard set on the source).
const src = files.file('src', [
  { id: 1, ts: '2024-01-01 10:00:00.000', lt: '2024-01-01 10:00:00.000Z' },
  { id: 2, ts: '2024-01-01 11:00:00.250', lt: '2024-03-10 07:30:05.120Z' },
  { id: 3, ts: '2024-01-01 12:30:00.123', lt: null },
]);

const writeScript = (path: string, standard: string | undefined): string => `
  CREATE TABLE src (${COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '${src}', 'format' = 'json');
  CREATE TABLE out_t (${COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json'${standard === undefined ? '' : `, 'json.timestamp-format.standard' = '${standard}'`});
  INSERT INTO out_t SELECT * FROM src`;

// Flink's writers (JsonRowDataSerializationSchema: one object per row, the sink's columns only):
// SQL_TIMESTAMP_FORMAT / ISO8601_TIMESTAMP_FORMAT and their _WITH_LOCAL_TIMEZONE_ forms, whose
// fraction (appendFraction(NANO, 0, 9)) drops trailing zeros.
const SQL_LINES = [
  '{"id":1,"ts":"2024-01-01 10:00:00","lt":"2024-01-01 10:00:00Z"}',
  '{"id":2,"ts":"2024-01-01 11:00:00.25","lt":"2024-03-10 07:30:05.12Z"}',
  '{"id":3,"ts":"2024-01-01 12:30:00.123","lt":null}',
];
const ISO_LINES = [
  '{"id":1,"ts":"2024-01-01T10:00:00","lt":"2024-01-01T10:00:00Z"}',
  '{"id":2,"ts":"2024-01-01T11:00:00.25","lt":"2024-03-10T07:30:05.12Z"}',
  '{"id":3,"ts":"2024-01-01T12:30:00.123","lt":null}',
];

/** The rows as the test harness prints them (the codec's own texts). */
const ROWS = [
  '{"id":1,"ts":"2024-01-01 10:00:00.000","lt":"2024-01-01 10:00:00.000Z"}',
  '{"id":2,"ts":"2024-01-01 11:00:00.250","lt":"2024-03-10 07:30:05.120Z"}',
  '{"id":3,"ts":"2024-01-01 12:30:00.123","lt":null}',
];

const lines = (path: string): string[] => readFileSync(path, 'utf8').trimEnd().split('\n');
const readBack = (path: string, standard: string): string =>
  `CREATE TABLE back (${COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json', 'json.timestamp-format.standard' = '${standard}'); SELECT * FROM back`;

describe("writing json with 'json.timestamp-format.standard'", () => {
  it.each([
    ['SQL', SQL_LINES],
    ['ISO-8601', ISO_LINES],
    [undefined, SQL_LINES],
  ])("'%s' writes Flink's texts and reads them back as the rows written (embedded runtime; 'SQL' is the default)", async (standard, expected) => {
    const out = files.file(`out-${standard ?? 'default'}`, []);
    await runEmbeddedSql(writeScript(out, standard), { parallelism: 1 });
    expect(lines(out)).toEqual(expected);
    const back = await runEmbeddedSql(readBack(out, standard ?? 'SQL'));
    expect(back.rows).toEqual(ROWS);
    expect(back.deadLetters).toEqual([]);
  });

  it("writes the same lines on the AWS runtime (flambda local) and reads them back there", async () => {
    const out = files.file('out-local', []);
    const script = files.file('iso-script', []).replace(/\.jsonl$/, '.sql');
    writeFileSync(script, writeScript(out, 'ISO-8601'));
    const r = await runCli(['local', script, '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    expect(lines(out)).toEqual(ISO_LINES);
    const back = await runLocalSql(readBack(out, 'ISO-8601'));
    expect(back.rows).toEqual(ROWS);
    expect(back.deadLetters).toEqual([]);
  }, 180_000);
});

// What each standard reads: ISO_LOCAL_DATE_TIME takes minutes without seconds; the SQL form needs
// seconds and a space; an instant needs its `Z` in both; epoch milliseconds stay readable.
const mixed = files.file('mixed', [
  { id: 1, ts: '2024-05-01T08:15', lt: '2024-05-01T08:15Z' },
  { id: 2, ts: '2024-05-01T08:15:30.5', lt: '2024-05-01T08:15:30.123456Z' },
  { id: 3, ts: '2024-05-01 08:15:30', lt: '2024-05-01 08:15:30Z' },
  { id: 4, ts: '2024-05-01T08:15:30', lt: '2024-05-01T08:15:30' },
  { id: 5, ts: 1714551330000, lt: 1714551330000 },
]);
const readMixed = (standard: string): string =>
  `CREATE TABLE m (${COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '${mixed}', 'format' = 'json', 'json.timestamp-format.standard' = '${standard}'); SELECT * FROM m`;

const ISO_READ = [
  '{"id":1,"ts":"2024-05-01 08:15:00.000","lt":"2024-05-01 08:15:00.000Z"}',
  '{"id":2,"ts":"2024-05-01 08:15:30.500","lt":"2024-05-01 08:15:30.123Z"}',
  '{"id":5,"ts":"2024-05-01 08:15:30.000","lt":"2024-05-01 08:15:30.000Z"}',
];
const ISO_DEAD = [
  "mixed.jsonl:3: field 'ts' (TIMESTAMP(3)): expected a timestamp 'YYYY-MM-DDTHH:MM[:SS[.fff]]' or epoch milliseconds (years 0000-9999), got \"2024-05-01 08:15:30\"",
  "mixed.jsonl:4: field 'lt' (TIMESTAMP_LTZ(3)): expected an instant 'YYYY-MM-DDTHH:MM[:SS[.fff]]Z' (UTC) or epoch milliseconds (years 0000-9999), got \"2024-05-01T08:15:30\"",
];
const SQL_READ = [
  '{"id":3,"ts":"2024-05-01 08:15:30.000","lt":"2024-05-01 08:15:30.000Z"}',
  '{"id":5,"ts":"2024-05-01 08:15:30.000","lt":"2024-05-01 08:15:30.000Z"}',
];

describe("reading json with 'json.timestamp-format.standard'", () => {
  it("'ISO-8601' reads ISO texts and dead-letters the others, naming the column (embedded runtime)", async () => {
    const run = await runEmbeddedSql(readMixed('ISO-8601'));
    expect(run.rows).toEqual(ISO_READ);
    expect(run.deadLetters).toEqual(ISO_DEAD);
  });

  it("'SQL' reads only SQL texts (embedded runtime)", async () => {
    const run = await runEmbeddedSql(readMixed('SQL'));
    expect(run.rows).toEqual(SQL_READ);
    expect(run.deadLetters.map((d) => d.split(':')[1])).toEqual(['1', '2', '4']);
    expect(run.deadLetters[0]).toContain("field 'ts' (TIMESTAMP(3)): expected a timestamp 'YYYY-MM-DD HH:MM:SS[.fff]'");
  });

  it.each([
    ['ISO-8601', ISO_READ, 2],
    ['SQL', SQL_READ, 3],
  ])("'%s' reads the same rows on the AWS runtime", async (standard, expected, dead) => {
    const run = await runLocalSql(readMixed(standard));
    expect(run.rows).toEqual(expected);
    expect(run.deadLetters).toHaveLength(dead);
  }, 120_000);

  it('rejects another value naming the option, as Flink validates it', () => {
    const script = `CREATE TABLE m (${COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '${mixed}', 'format' = 'json',
  'json.timestamp-format.standard' = 'iso-8601');
SELECT * FROM m`;
    expect(sqlError(() => compileSql(script)).message).toBe(
      "line 2:38: table 'm': Unsupported value 'iso-8601' for json.timestamp-format.standard. Supported values are [SQL, ISO-8601].",
    );
  });
});
