/**
 * Built-in functions through SQL, against the examples of Flink's "System (Built-in) Functions"
 * page (DATE/TIME operands written as TIMESTAMPs, the session time zone UTC), plus the
 * acceptance script's function row.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChangeRow } from '../../shared/core/row.ts';
import type { Value } from '../../shared/core/types.ts';
import { runEmbeddedJob } from '../../shared/runtime/embedded/embedded-runtime.ts';
import { MaterializedView } from '../../shared/runtime/materialized-view.ts';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { sqlError } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'flambda-sql-functions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const rows = [
  { id: 1, s: '  hello ', x: 1, ts: '2024-01-01 10:15:30.000', j: '{"a":{"b":7}}' },
  { id: 2, s: 'abc', x: 7, ts: '2024-01-01 11:45:00.000', j: '{"a":{"b":9}}' },
  { id: 3, s: 'xy', x: -2, ts: '2024-01-01 12:00:00.000', j: '{}' },
];
const path = join(dir, 't.jsonl');
writeFileSync(path, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
const T = "CREATE TABLE t (id BIGINT, s STRING, x INT, ts TIMESTAMP(3), j STRING) WITH ('connector' = 'filesystem', 'path' = 't.jsonl', 'format' = 'json');";

/** The values of `exprs` for every row of t, by id. */
async function evaluate(exprs: readonly string[], where = 'TRUE'): Promise<Value[][]> {
  const items = exprs.map((e, i) => `${e} AS c${i}`).join(', ');
  const program = compileSql(`${T} SELECT id, ${items} FROM t WHERE ${where};`, { inputs: new Map([['t', path]]) });
  const graph = program.pipeline.jobGraph({ parallelism: 1 });
  const sink = graph.sinks[0]!;
  const view = new MaterializedView({ columns: sink.schema.fields.map((f) => f.name), strict: true });
  await runEmbeddedJob(graph, {
    code: { functions: program.pipeline.userFunctions, generators: program.pipeline.generators },
    observers: new Map([[sink.name, [{ write: (r: readonly ChangeRow[]) => r.forEach((x) => view.apply(x)) }]]]),
  });
  return view
    .rows()
    .sort((a, b) => (a.id as number) - (b.id as number))
    .map((r) => exprs.map((_, i) => r[`c${i}`] ?? null));
}

/** Constant expressions: their values on the first row. */
async function constants(cases: Record<string, Value>): Promise<void> {
  const exprs = Object.keys(cases);
  const [first] = await evaluate(exprs, 'id = 1');
  expect(Object.fromEntries(exprs.map((e, i) => [e, first![i]]))).toEqual(cases);
}

const ts = (text: string): number => Date.parse(`${text.replace(' ', 'T')}Z`);

describe('the acceptance row (functions the grammar used to reject)', () => {
  it('CHAR_LENGTH, SUBSTRING FROM FOR, TRIM(BOTH … FROM), EXTRACT, FLOOR TO, CASE x WHEN 1, 7, IS TRUE, JSON_VALUE', async () => {
    const out = await evaluate(['CHAR_LENGTH(s)', 'SUBSTRING(s FROM 1 FOR 2)', "TRIM(BOTH ' ' FROM s)", 'EXTRACT(HOUR FROM ts)', 'FLOOR(ts TO HOUR)', "CASE x WHEN 1, 7 THEN 'a' ELSE 'b' END", '(x > 0) IS TRUE', "JSON_VALUE(j, '$.a.b')"]);
    expect(out).toEqual([
      [8, '  ', 'hello', 10, ts('2024-01-01 10:00:00'), 'a', true, '7'],
      [3, 'ab', 'abc', 11, ts('2024-01-01 11:00:00'), 'a', true, '9'],
      [2, 'xy', 'xy', 12, ts('2024-01-01 12:00:00'), 'b', false, null],
    ]);
  });
});

describe('string functions', () => {
  it('follow the documented examples', async () => {
    await constants({
      "LPAD('hi', 4, '??')": '??hi',
      "LPAD('hi', 1, '??')": 'h',
      "RPAD('hi', 4, '??')": 'hi??',
      "RPAD('hi', 1, '??')": 'h',
      "LPAD('hi', -1, '?')": null,
      "CONCAT_WS('~', 'AA', CAST(NULL AS STRING), 'BB', '', 'CC')": 'AA~BB~~CC',
      "REPLACE('hello world', 'world', 'flink')": 'hello flink',
      "REPLACE('ababab', 'abab', 'z')": 'zab',
      "REGEXP_REPLACE('foobar', 'oo|ar', '')": 'fb',
      "REGEXP_REPLACE('2024-01-05', '(\\d+)-(\\d+)-(\\d+)', '$3.$2.$1')": '05.01.2024',
      "INITCAP('tHIs iS A tESt')": 'This Is A Test',
      "POSITION('lo' IN 'hello')": 4,
      "POSITION('z' IN 'hello')": 0,
      "LOCATE('l', 'hello', 4)": 4,
      "TRIM(LEADING 'x' FROM 'xxaxx')": 'axx',
      "OVERLAY('This is an old string' PLACING ' new' FROM 10 FOR 5)": 'This is a new string',
      "OVERLAY('abcdef' PLACING 'XY' FROM 2)": 'aXYdef',
      "TRIM(TRAILING 'x' FROM 'xxaxx')": 'xxa',
      "MD5('abc')": '900150983cd24fb0d6963f7d28e17f72',
      "SHA1('abc')": 'a9993e364706816aba3e25717850c26c9cd0d89d',
      "SHA256('abc')": 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    });
  });
});

describe('temporal functions', () => {
  it('follow the documented examples', async () => {
    await constants({
      "TIMESTAMPADD(WEEK, 1, TIMESTAMP '2003-01-02 00:00:00')": ts('2003-01-09 00:00:00'),
      "TIMESTAMPADD(MONTH, 1, TIMESTAMP '2003-01-31 10:00:00')": ts('2003-02-28 10:00:00'),
      "TIMESTAMPDIFF(DAY, TIMESTAMP '2003-01-02 10:00:00', TIMESTAMP '2003-01-03 10:00:00')": 1,
      "TIMESTAMPDIFF(MONTH, TIMESTAMP '2003-01-31 00:00:00', TIMESTAMP '2003-02-28 00:00:00')": 0,
      "TIMESTAMPDIFF(HOUR, TIMESTAMP '2003-01-02 10:00:00', TIMESTAMP '2003-01-02 08:30:00')": -1,
      "EXTRACT(DAY FROM TIMESTAMP '2006-06-05 00:00:00')": 5,
      "EXTRACT(QUARTER FROM TIMESTAMP '2006-06-05 00:00:00')": 2,
      "EXTRACT(DOW FROM TIMESTAMP '2006-06-04 00:00:00')": 1,
      "EXTRACT(WEEK FROM TIMESTAMP '2006-01-01 00:00:00')": 52,
      "FLOOR(TIMESTAMP '2024-01-01 12:44:31' TO MINUTE)": ts('2024-01-01 12:44:00'),
      "CEIL(TIMESTAMP '2024-01-01 12:44:31' TO MINUTE)": ts('2024-01-01 12:45:00'),
      "FLOOR(TIMESTAMP '2024-05-17 12:44:31' TO MONTH)": ts('2024-05-01 00:00:00'),
      "FLOOR(TIMESTAMP '2024-01-03 12:00:00' TO WEEK)": ts('2023-12-31 00:00:00'),
      'FROM_UNIXTIME(44)': '1970-01-01 00:00:44',
      "FROM_UNIXTIME(86400, 'yyyy/MM/dd')": '1970/01/02',
      "UNIX_TIMESTAMP('2017-01-01 00:00:00')": 1483228800,
      "UNIX_TIMESTAMP('2017/01/01', 'yyyy/MM/dd')": 1483228800,
      "UNIX_TIMESTAMP('nope')": -9223372036854775808,
      "TO_TIMESTAMP('2017-09-15 00:00:00')": ts('2017-09-15 00:00:00'),
      "TO_TIMESTAMP('15/09/2017 10:11', 'dd/MM/yyyy HH:mm')": ts('2017-09-15 10:11:00'),
      "TO_TIMESTAMP('2017-02-30 00:00:00')": null,
      "TIMESTAMP '2024-01-01 00:00:00' - INTERVAL '1 02:00' DAY TO MINUTE": ts('2023-12-30 22:00:00'),
    });
  });

  it('reads the current time per record', async () => {
    const before = Date.now();
    const [first] = (await evaluate(['NOW()', 'CURRENT_TIMESTAMP', 'LOCALTIMESTAMP', 'UNIX_TIMESTAMP()'], 'id = 1')) as number[][];
    const [now, current, local, unix] = first!;
    for (const v of [now, current, local]) expect(v! >= before && v! <= Date.now()).toBe(true);
    expect(unix).toBe(Math.floor(now! / 1000));
  });
});

describe('numeric and conditional functions', () => {
  it('follow the documented examples', async () => {
    await constants({
      'NULLIF(5, 5)': null,
      'NULLIF(5, 0)': 5,
      'IFNULL(CAST(NULL AS INT), 3)': 3,
      'GREATEST(1, 3, 2)': 3,
      "LEAST('b', 'a')": 'a',
      'GREATEST(1, CAST(NULL AS INT))': null,
      '1 IS DISTINCT FROM CAST(NULL AS INT)': true,
      'CAST(NULL AS INT) IS DISTINCT FROM CAST(NULL AS INT)': false,
      '1 IS NOT DISTINCT FROM CAST(NULL AS INT)': false,
      'ROUND(2.5E0)': 3,
      'ROUND(-2.5E0)': -3,
      'ROUND(1.2345E0, 2)': 1.23,
      'CAST(ROUND(1.2355, 3) AS STRING)': '1.236',
      'CAST(ROUND(125.5, -1) AS STRING)': '130',
      'ROUND(125, -1)': 130,
      'POWER(2, 3)': 8,
      'SQRT(4)': 2,
      'LN(1)': 0,
      'LOG(10, 100)': 2,
      'LOG10(1000)': 3,
      'LOG2(8)': 3,
    });
  });
});

describe('JSON functions', () => {
  it('follow the documented examples', async () => {
    await constants({
      'JSON_VALUE(\'{"a": true}\', \'$.a\')': 'true',
      'JSON_VALUE(\'{"a": true}\', \'$.a\' RETURNING BOOLEAN)': true,
      'JSON_VALUE(\'{"a": true}\', \'lax $.b\' RETURNING BOOLEAN DEFAULT FALSE ON EMPTY)': false,
      'JSON_VALUE(\'{"a": true}\', \'strict $.b\' RETURNING BOOLEAN DEFAULT FALSE ON ERROR)': false,
      'JSON_VALUE(\'{"a.b": [0.998,0.996]}\', \'$.["a.b"][0]\' RETURNING DOUBLE)': 0.998,
      'JSON_EXISTS(\'{"a": true}\', \'$.a\')': true,
      'JSON_EXISTS(\'{"a": true}\', \'$.b\')': false,
      'JSON_EXISTS(\'{"a": [{ "b": 1 }]}\', \'$.a[0].b\')': true,
      'JSON_EXISTS(\'{"a": true}\', \'strict $.b\' TRUE ON ERROR)': true,
      'JSON_EXISTS(\'{"a": true}\', \'strict $.b\' FALSE ON ERROR)': false,
      'JSON_QUERY(\'{ "a": { "b": 1 } }\', \'$.a\')': '{"b":1}',
      "JSON_QUERY('[1, 2]', '$')": '[1,2]',
      "JSON_QUERY(CAST(NULL AS STRING), '$')": null,
      "JSON_QUERY('{}', 'strict $.invalid' EMPTY OBJECT ON ERROR)": '{}',
      // A wildcard path selects an array (Jayway's indefinite path), which Flink's page shows unwrapped.
      'JSON_QUERY(\'{"a":[{"c":"c1"},{"c":"c2"}]}\', \'lax $.a[*].c\' WITH ARRAY WRAPPER)': '[["c1","c2"]]',
      'JSON_QUERY(\'{"a":[{"c":"c1"},{"c":"c2"}]}\', \'lax $.a[*].c\' WITHOUT ARRAY WRAPPER)': '["c1","c2"]',
      'JSON_QUERY(\'{"a":[{"c":"c1"},{"c":"c2"}]}\', \'lax $.a[*].c\' WITH CONDITIONAL ARRAY WRAPPER)': '["c1","c2"]',
      'JSON_OBJECT()': '{}',
      "JSON_OBJECT('K1' VALUE 'V1')": '{"K1":"V1"}',
      "JSON_OBJECT(KEY 'K1' VALUE 1)": '{"K1":1}',
      "JSON_OBJECT(KEY 'K1' VALUE CAST(NULL AS STRING) NULL ON NULL)": '{"K1":null}',
      "JSON_OBJECT(KEY 'K1' VALUE CAST(NULL AS STRING) ABSENT ON NULL)": '{}',
      "JSON_OBJECT('K1' VALUE JSON_OBJECT('K2' VALUE 'V'))": '{"K1":{"K2":"V"}}',
      "JSON_OBJECT(KEY 'K1' VALUE TRUE)": '{"K1":true}',
      'JSON_ARRAY()': '[]',
      'JSON_ARRAY(1)': '[1]',
      "JSON_ARRAY(1, '2')": '[1,"2"]',
      'JSON_ARRAY(CAST(NULL AS STRING))': '[]',
      'JSON_ARRAY(CAST(NULL AS STRING) NULL ON NULL)': '[null]',
      'JSON_ARRAY(JSON_ARRAY(1))': '[[1]]',
      "'1' IS JSON": true,
      "'[]' IS JSON ARRAY": true,
      "'{}' IS JSON ARRAY": false,
      "'abc' IS JSON": false,
      "'{}' IS JSON OBJECT": true,
      "'1' IS JSON SCALAR": true,
      "'1' IS NOT JSON": false,
    });
  });
});

describe('errors', () => {
  it('name the function and its operands', () => {
    const c = (e: string) => sqlError(() => compileSql(`${T} SELECT ${e} FROM t;`)).message;
    expect(c("EXTRACT(HOUR FROM 'x')")).toMatch(/cannot apply 'EXTRACT' to STRING and STRING/);
    expect(c('ROUND(1.25, x)')).toMatch(/ROUND takes an integer literal as its second argument/);
    expect(c("LPAD(s, 'a', 'b')")).toMatch(/cannot apply 'LPAD'/);
    expect(c('NO_SUCH(1)')).toMatch(/unknown function 'NO_SUCH'.*supported: .*JSON_VALUE/);
  });
});
