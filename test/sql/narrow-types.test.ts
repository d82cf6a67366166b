/**
 * TINYINT, SMALLINT, FLOAT (and REAL) and CHAR(n) as their own types, with Flink's semantics:
 * arithmetic in the wider operand type that wraps like Java's byte and short (`127 + 1` is -128),
 * FLOAT computing in single precision and printing as Java's `Float.toString`, casts narrowing
 * like Java (`(byte) 300` is 44) and CHAR(n) casts padding with spaces, SUM / MIN / MAX keeping
 * the argument type, the json format reading them (a value out of range is dead-lettered) and
 * writing them, implicit widening into sink columns — on both runtimes (the embedded runtime and
 * the AWS runtime over emulators, where Kinesis exchanges and DynamoDB state carry the values).
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { scalarFunction, type UserFunctionDefinition } from '../../shared/api/user-functions.ts';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { printedTypes, printedValues } from './eval-sql.ts';
import { sqlError } from './helpers.ts';
import { inputDir, runEmbeddedSql, runLocalSql } from './run-both.ts';

const files = inputDir('narrow-types');
afterAll(() => files.cleanup());

describe('expressions over the narrow types', () => {
  // [expression, printed value, type] as Flink computes and prints them.
  const CASES: readonly (readonly [string, string, string])[] = [
    ['CAST(300 AS TINYINT)', '44', 'TINYINT NOT NULL'],
    ['CAST(-129 AS TINYINT)', '127', 'TINYINT NOT NULL'],
    ['CAST(40000 AS SMALLINT)', '-25536', 'SMALLINT NOT NULL'],
    ['CAST(127 AS TINYINT) + CAST(1 AS TINYINT)', '-128', 'TINYINT NOT NULL'],
    ['CAST(32767 AS SMALLINT) + CAST(1 AS SMALLINT)', '-32768', 'SMALLINT NOT NULL'],
    ['CAST(100 AS TINYINT) * CAST(3 AS SMALLINT)', '300', 'SMALLINT NOT NULL'],
    ['CAST(100 AS TINYINT) * CAST(3 AS TINYINT)', '44', 'TINYINT NOT NULL'],
    ['CAST(1 AS INT) + CAST(1 AS SMALLINT)', '2', 'INT NOT NULL'],
    ['CAST(1 AS TINYINT) + CAST(1 AS BIGINT)', '2', 'BIGINT NOT NULL'],
    ['CAST(7 AS TINYINT) / CAST(2 AS TINYINT)', '3', 'TINYINT NOT NULL'],
    ['-CAST(-128 AS TINYINT)', '-128', 'TINYINT NOT NULL'],
    ['ABS(CAST(-32768 AS SMALLINT))', '-32768', 'SMALLINT NOT NULL'],
    ['CAST(200.7 AS TINYINT)', '-56', 'TINYINT NOT NULL'],
    ['CAST(CAST(1e10 AS DOUBLE) AS SMALLINT)', '-1', 'SMALLINT NOT NULL'],
    ["CAST('-128' AS TINYINT)", '-128', 'TINYINT NOT NULL'],
    ['CAST(1.1 AS FLOAT)', '1.1', 'FLOAT NOT NULL'],
    ['CAST(1.1 AS REAL)', '1.1', 'FLOAT NOT NULL'],
    ['CAST(1.1 AS FLOAT) + CAST(2.2 AS FLOAT)', '3.3000002', 'FLOAT NOT NULL'],
    ['CAST(1.1 AS FLOAT) + 1', '2.1', 'FLOAT NOT NULL'],
    ['CAST(1.1 AS FLOAT) + CAST(1 AS DOUBLE)', '2.100000023841858', 'DOUBLE NOT NULL'],
    ['CAST(1.1 AS FLOAT) + 1.5', '2.600000023841858', 'DOUBLE NOT NULL'],
    ['CAST(CAST(0.1 AS FLOAT) AS DOUBLE)', '0.10000000149011612', 'DOUBLE NOT NULL'],
    ['CAST(CAST(1.1 AS FLOAT) AS STRING)', '1.1', 'STRING NOT NULL'],
    ['CAST(CAST(1e10 AS FLOAT) AS STRING)', '1.0E10', 'STRING NOT NULL'],
    ['CAST(16777217 AS FLOAT)', '1.6777216E7', 'FLOAT NOT NULL'],
    ["CAST('ab' AS CHAR(5))", 'ab   ', 'CHAR(5) NOT NULL'],
    ["CAST('abcdef' AS CHAR(3))", 'abc', 'CHAR(3) NOT NULL'],
    ["CAST('abcdef' AS VARCHAR(3))", 'abc', 'VARCHAR(3) NOT NULL'],
    ['CAST(42 AS CHAR(4))', '42  ', 'CHAR(4) NOT NULL'],
    ["CHAR_LENGTH(CAST('ab' AS CHAR(5)))", '5', 'INT NOT NULL'],
    ["CAST('ab' AS CHAR(5)) || '|'", 'ab   |', 'STRING NOT NULL'],
    ['TYPEOF(CAST(1 AS TINYINT))', 'TINYINT NOT NULL', 'STRING NOT NULL'],
    ['TYPEOF(CAST(1 AS REAL))', 'FLOAT NOT NULL', 'STRING NOT NULL'],
    ["TYPEOF(CAST('a' AS CHAR))", 'CHAR(1) NOT NULL', 'STRING NOT NULL'],
  ];

  it('compute, type and print as Flink does', async () => {
    const exprs = CASES.map(([e]) => e);
    const values = await printedValues(exprs);
    const types = await printedTypes(exprs);
    expect(exprs.map((e) => [e, values[e], types[e]])).toEqual(CASES);
  });
});

const readings = files.file('readings', [
  { k: 'a', t: 100, s: 30000, f: 1.1, c: 'ab' },
  { k: 'a', t: 27, s: 2767, f: 2.2, c: 'abc' },
  { k: 'a', t: 1, s: 1, f: null, c: 'x' },
  { k: 'b', t: -5, s: 7, f: 0.1, c: 'b' },
  // 300 is no TINYINT: Flink's json format fails on it (Byte.parseByte), Flambda dead-letters it.
  { k: 'b', t: 300, s: 1, f: 1, c: 'z' },
]);

const SOURCE = `CREATE TABLE readings (k STRING, t TINYINT, s SMALLINT, f FLOAT, c CHAR(3))
  WITH ('connector' = 'filesystem', 'path' = '${readings}', 'format' = 'json', 'scan.parallelism' = '1');`;

// Grouped by k: the sums keep the argument types and wrap (100 + 27 + 1 = 128 is -128 as a
// TINYINT, 32768 is -32768 as a SMALLINT), the FLOAT sum adds in single precision; AVG keeps the
// type too, summing a FLOAT in DOUBLE (Flink's FloatAvgAggFunction) and a TINYINT in BIGINT.
const SUMS = `${SOURCE}
CREATE TABLE sums (k STRING, st TINYINT, ss SMALLINT, sf FLOAT, mt TINYINT, xf FLOAT, tt STRING, af FLOAT, at TINYINT) WITH ('connector' = 'print');
INSERT INTO sums SELECT k, SUM(t), SUM(s), SUM(f), MIN(t), MAX(f), TYPEOF(SUM(t)), AVG(f), AVG(t) FROM readings GROUP BY k;`;
const SUMS_ROWS = [
  '{"k":"a","st":-128,"ss":-32768,"sf":3.3000002,"mt":1,"xf":2.2,"tt":"TINYINT","af":1.6500001,"at":42}',
  '{"k":"b","st":-5,"ss":7,"sf":0.1,"mt":-5,"xf":0.1,"tt":"TINYINT","af":0.1,"at":-5}',
];
const DEAD = "readings.jsonl:5: field 't' (TINYINT): expected an integer between -128 and 127, got 300";

// Per row: TINYINT arithmetic wraps, a CHAR(3) column holds the value as read, a CAST to CHAR(5) pads.
const ROWS = `${SOURCE}
CREATE TABLE per_row (k STRING, tt TINYINT, neg TINYINT, c CHAR(3), p CHAR(5), n INT, ff FLOAT) WITH ('connector' = 'print');
INSERT INTO per_row SELECT k, t + t, -t, c, CAST(c AS CHAR(5)), CHAR_LENGTH(CAST(c AS CHAR(5))), f * 3 FROM readings WHERE s <> 7;`;
const PER_ROW = [
  '{"k":"a","tt":-56,"neg":-100,"c":"ab","p":"ab   ","n":5,"ff":3.3000002}',
  '{"k":"a","tt":2,"neg":-1,"c":"x","p":"x    ","n":5,"ff":null}',
  '{"k":"a","tt":54,"neg":-27,"c":"abc","p":"abc  ","n":5,"ff":6.6000004}',
];

// A TINYINT widens into SMALLINT, INT, BIGINT, DECIMAL, FLOAT and DOUBLE columns; a FLOAT into DOUBLE.
const WIDEN = `${SOURCE}
CREATE TABLE wide (a SMALLINT, b INT, c BIGINT, d DECIMAL(5, 1), e FLOAT, g DOUBLE, h DOUBLE) WITH ('connector' = 'print');
INSERT INTO wide SELECT t, t, s, t, t, t, f FROM readings WHERE k = 'b';`;
const WIDE = ['{"a":-5,"b":-5,"c":7,"d":"-5.0","e":-5,"g":-5,"h":0.10000000149011612}'];

describe('TINYINT, SMALLINT, FLOAT and CHAR columns read from JSON', () => {
  it('sum, min and max in their own types, wrapping (embedded)', async () => {
    const run = await runEmbeddedSql(SUMS);
    expect(run.rows).toEqual(SUMS_ROWS);
    expect(run.deadLetters).toEqual([DEAD]);
  });

  it('… and on the AWS runtime', async () => {
    const run = await runLocalSql(SUMS);
    expect(run.rows).toEqual(SUMS_ROWS);
    // The AWS runtime names the record by its Kinesis shard and sequence number.
    expect(run.deadLetters.map((l) => l.replace(/^shardId-\d+@\d+: /, ''))).toEqual([DEAD.replace(/^readings\.jsonl:5: /, '')]);
  });

  it('compute per row: byte arithmetic, CHAR padding, float products (embedded)', async () => {
    expect((await runEmbeddedSql(ROWS)).rows).toEqual(PER_ROW);
  });

  it('… and on the AWS runtime', async () => {
    expect((await runLocalSql(ROWS)).rows).toEqual(PER_ROW);
  });

  it('widen implicitly into wider sink columns (embedded)', async () => {
    expect((await runEmbeddedSql(WIDEN)).rows).toEqual(WIDE);
  });

  it('… and on the AWS runtime', async () => {
    expect((await runLocalSql(WIDEN)).rows).toEqual(WIDE);
  });

  it('do not narrow implicitly into a sink column, naming both types', () => {
    const insert = (column: string, expr: string): string => `${SOURCE} CREATE TABLE o (n ${column}) WITH ('connector' = 'print'); INSERT INTO o SELECT ${expr} AS x FROM readings;`;
    expect(sqlError(() => compileSql(insert('TINYINT', 's'))).message).toMatch(/column 'x' is SMALLINT but the sink column 'n' is TINYINT, which SMALLINT does not cast to implicitly/);
    expect(sqlError(() => compileSql(insert('INT', 'f'))).message).toMatch(/column 'x' is FLOAT but the sink column 'n' is INT/);
    expect(sqlError(() => compileSql(insert('FLOAT', 'CAST(f AS DOUBLE)'))).message).toMatch(/column 'x' is DOUBLE but the sink column 'n' is FLOAT/);
  });
});

const ticks = files.file('ticks', [
  { t: 100, f: 0.1, ts: '2024-01-01 10:00:01' },
  { t: 100, f: 0.2, ts: '2024-01-01 10:00:02' },
  { t: 1, f: 0.7, ts: '2024-01-01 10:00:07' },
]);
const TICKS = `CREATE TABLE ticks (t TINYINT, f FLOAT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = '${ticks}', 'format' = 'json', 'scan.parallelism' = '1');`;

// A window aggregate and an OVER aggregate sum a TINYINT and a FLOAT in their own types too.
const WINDOWED = `${TICKS}
CREATE TABLE w (window_start TIMESTAMP(3), st TINYINT, sf FLOAT) WITH ('connector' = 'print');
INSERT INTO w SELECT window_start, SUM(t), SUM(f) FROM TABLE(TUMBLE(TABLE ticks, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end;`;
const WINDOWS = ['{"window_start":"2024-01-01 10:00:00.000","st":-56,"sf":0.3}', '{"window_start":"2024-01-01 10:00:05.000","st":1,"sf":0.7}'];
const RUNNING = `${TICKS}
CREATE TABLE r (ts TIMESTAMP(3), st TINYINT) WITH ('connector' = 'print');
INSERT INTO r SELECT ts, SUM(t) OVER (ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM ticks;`;
const RUNNING_ROWS = ['{"ts":"2024-01-01 10:00:01.000","st":100}', '{"ts":"2024-01-01 10:00:02.000","st":-56}', '{"ts":"2024-01-01 10:00:07.000","st":-55}'];

describe('TINYINT and FLOAT sums in windows', () => {
  it('wrap in a TUMBLE window aggregate and an OVER aggregate (embedded)', async () => {
    expect((await runEmbeddedSql(WINDOWED)).rows).toEqual(WINDOWS);
    expect((await runEmbeddedSql(RUNNING)).rows).toEqual(RUNNING_ROWS);
  });

  it('… and on the AWS runtime', async () => {
    expect((await runLocalSql(WINDOWED)).rows).toEqual(WINDOWS);
    expect((await runLocalSql(RUNNING)).rows).toEqual(RUNNING_ROWS);
  });
});

describe("the csv format with TINYINT, SMALLINT, FLOAT and CHAR columns", () => {
  const COLUMNS = 'k STRING, t TINYINT, s SMALLINT, f FLOAT, c CHAR(3)';
  it('writes them as Flink does (a FLOAT with its own digits) and reads them back', async () => {
    const out = files.file('out', []);
    await runEmbeddedSql(`${SOURCE} CREATE TABLE out_t (${COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'csv'); INSERT INTO out_t SELECT * FROM readings;`, { parallelism: 1 });
    expect(readFileSync(out, 'utf8').trimEnd().split('\n')).toEqual(['a,100,30000,1.1,ab', 'a,27,2767,2.2,abc', 'a,1,1,,x', 'b,-5,7,0.1,b']);
    const back = await runEmbeddedSql(`CREATE TABLE back (${COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'csv'); SELECT k, t, s, f, c FROM back WHERE t < 0 OR f > 2`);
    expect(back.rows).toEqual(['{"k":"a","t":27,"s":2767,"f":2.2,"c":"abc"}', '{"k":"b","t":-5,"s":7,"f":0.1,"c":"b"}']);
  });

  it('dead-letters a line whose TINYINT is out of range', async () => {
    const bad = files.file('bad', ['a,128,1,1.5,x', 'b,-128,1,1.5,y']);
    const run = await runEmbeddedSql(`CREATE TABLE bad_t (${COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '${bad}', 'format' = 'csv'); SELECT k, t FROM bad_t`);
    expect(run.rows).toEqual(['{"k":"b","t":-128}']);
    expect(run.deadLetters).toEqual(["bad.jsonl:1: field 't' (TINYINT): expected an integer between -128 and 127, got \"128\""]);
  });
});

describe('BYTES, VARBINARY(n) and BINARY(n)', () => {
  // [expression, printed value, type]: bytes print as the SQL client shows them, x'…'.
  const CASES: readonly (readonly [string, string, string])[] = [
    ["UNHEX('466C696E6B')", "x'466c696e6b'", 'BYTES'],
    ["DECODE(UNHEX('466C696E6B'), 'UTF-8')", 'Flink', 'STRING'],
    ["UNHEX('ABC')", "x'0abc'", 'BYTES'],
    ["UNHEX('XY')", 'NULL', 'BYTES'],
    ["ENCODE('Flink', 'UTF-8')", "x'466c696e6b'", 'BYTES NOT NULL'],
    ["ENCODE('é', 'UTF-8')", "x'c3a9'", 'BYTES NOT NULL'],
    ["ENCODE('é', 'ISO-8859-1')", "x'e9'", 'BYTES NOT NULL'],
    ["ENCODE('é', 'US-ASCII')", "x'3f'", 'BYTES NOT NULL'],
    ["ENCODE('hi', 'UTF-16')", "x'feff00680069'", 'BYTES NOT NULL'],
    ["ENCODE('hi', 'utf-16le')", "x'68006900'", 'BYTES NOT NULL'],
    ["DECODE(ENCODE('añb', 'UTF-16BE'), 'UTF-16BE')", 'añb', 'STRING NOT NULL'],
    ["DECODE(ENCODE('añb', 'UTF-16'), 'UTF-16')", 'añb', 'STRING NOT NULL'],
    ["CAST('ab' AS BYTES)", "x'6162'", 'BYTES NOT NULL'],
    ["CAST('ab' AS BINARY(4))", "x'61620000'", 'BINARY(4) NOT NULL'],
    ["CAST('abcdef' AS VARBINARY(2))", "x'6162'", 'VARBINARY(2) NOT NULL'],
    ["CAST(CAST('añ' AS BYTES) AS STRING)", 'añ', 'STRING NOT NULL'],
    ["TYPEOF(CAST('a' AS BINARY))", 'BINARY(1) NOT NULL', 'STRING NOT NULL'],
    ["UNHEX('01') < UNHEX('0100')", 'true', 'BOOLEAN'],
    ["X'466C696E6B'", "x'466c696e6b'", 'BINARY(5) NOT NULL'],
    ["DECODE(X'466C696E6B', 'UTF-8')", 'Flink', 'STRING NOT NULL'],
    ["X'0102' = UNHEX('0102')", 'true', 'BOOLEAN'],
  ];

  it('compute, type and print as Flink does', async () => {
    const exprs = CASES.map(([e]) => e);
    const values = await printedValues(exprs);
    const types = await printedTypes(exprs);
    expect(exprs.map((e) => [e, values[e], types[e]])).toEqual(CASES);
  });

  // The json format reads and writes bytes as base64; Kinesis exchanges and DynamoDB state carry them.
  const blobs = files.file('blobs', [
    { k: 'a', b: 'Rmxpbms=' },
    { k: 'a', b: 'AAE=' },
    { k: 'b', b: '' },
    { k: 'b', b: 'not base64!' },
  ]);
  const BLOBS = `CREATE TABLE blobs (k STRING, b BYTES) WITH ('connector' = 'filesystem', 'path' = '${blobs}', 'format' = 'json', 'scan.parallelism' = '1');
CREATE TABLE blob_out (b BYTES, k STRING, n BIGINT, mx BYTES, txt STRING) WITH ('connector' = 'print');
INSERT INTO blob_out SELECT b, MIN(k), COUNT(*), MAX(b), DECODE(b, 'UTF-8') FROM blobs GROUP BY b;`;
  const BLOB_ROWS = [
    '{"b":"","k":"b","n":1,"mx":"","txt":""}',
    '{"b":"AAE=","k":"a","n":1,"mx":"AAE=","txt":"\\u0000\\u0001"}',
    '{"b":"Rmxpbms=","k":"a","n":1,"mx":"Rmxpbms=","txt":"Flink"}',
  ];
  const BAD_BLOB = "field 'b' (VARBINARY(2147483647)): expected base64 text, got \"not base64!\"";

  it('are read from and written to JSON as base64, grouped by (embedded)', async () => {
    const run = await runEmbeddedSql(BLOBS);
    expect(run.rows).toEqual(BLOB_ROWS);
    expect(run.deadLetters).toEqual([`blobs.jsonl:4: ${BAD_BLOB}`]);
  });

  it('… and on the AWS runtime', async () => {
    const run = await runLocalSql(BLOBS);
    expect(run.rows).toEqual(BLOB_ROWS);
    expect(run.deadLetters.map((l) => l.replace(/^shardId-\d+@\d+: /, ''))).toEqual([BAD_BLOB]);
  });

  it('refuse a character set Flink does not name (a data error), and a cast from a number', async () => {
    const run = await runEmbeddedSql(`CREATE TABLE blobs (k STRING, b BYTES) WITH ('connector' = 'filesystem', 'path' = '${blobs}', 'format' = 'json', 'scan.parallelism' = '1');
      SELECT ENCODE(k, 'EBCDIC') FROM blobs WHERE k = 'b'`);
    expect(run.deadLetters).toEqual([
      "blobs.jsonl:3: unsupported character set 'EBCDIC' in ENCODE(k, 'EBCDIC') (use 'US-ASCII', 'ISO-8859-1', 'UTF-8', 'UTF-16BE', 'UTF-16LE', 'UTF-16')",
      `blobs.jsonl:4: ${BAD_BLOB}`,
    ]);
    expect(sqlError(() => compileSql('SELECT CAST(1 AS BYTES)')).message).toMatch(/cannot cast INT to BYTES/);
    expect(sqlError(() => compileSql("SELECT X'ABC'")).message).toBe("line 1:8: cannot read X'ABC': a binary literal is an even number of hexadecimal digits");
  });

  it('(the AWS runtime again, for the JSON codec of the exchange)', async () => {
    const run = await runLocalSql(BLOBS);
    expect(run.rows).toEqual(BLOB_ROWS);
    expect(run.deadLetters.map((l) => l.replace(/^shardId-\d+@\d+: /, ''))).toEqual([BAD_BLOB]);
  });

  // A user function takes a Uint8Array and gives one back; a TINYINT and a FLOAT arrive as numbers.
  const reverseBytes = scalarFunction('BYTES', { input: ['BYTES'] }, (b) => (b === null ? null : Uint8Array.from(b).reverse()));
  const scaled = scalarFunction('FLOAT', { input: ['TINYINT', 'FLOAT'] }, (t, f) => (t === null || f === null ? null : t * f));
  const functions = new Map<string, UserFunctionDefinition>([
    ['bytes.ts#reverseBytes', reverseBytes],
    ['bytes.ts#scaled', scaled],
  ]);
  const UDF = `CREATE TABLE blobs (k STRING, b BYTES) WITH ('connector' = 'filesystem', 'path' = '${blobs}', 'format' = 'json', 'scan.parallelism' = '1');
CREATE FUNCTION reverse_bytes AS 'bytes.ts#reverseBytes';
CREATE FUNCTION scaled AS 'bytes.ts#scaled';
CREATE TABLE udf_out (k STRING, r BYTES, s FLOAT) WITH ('connector' = 'print');
INSERT INTO udf_out SELECT k, reverse_bytes(b), scaled(CAST(3 AS TINYINT), CAST(1.1 AS FLOAT)) FROM blobs WHERE k = 'a';`;
  const UDF_ROWS = ['{"k":"a","r":"AQA=","s":3.3000002}', '{"k":"a","r":"a25pbEY=","s":3.3000002}'];

  it('go into and come out of user functions as Uint8Array (embedded)', async () => {
    expect((await runEmbeddedSql(UDF, { functions })).rows).toEqual(UDF_ROWS);
  });

  it('… and on the AWS runtime', async () => {
    expect((await runLocalSql(UDF, { functions })).rows).toEqual(UDF_ROWS);
  });
});
