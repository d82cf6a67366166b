/**
 * The built-ins of Flink's "System (Built-in) Functions" and JSON functions pages added after
 * functions.test.ts: each with the page's documented examples (values printed as Flink's SQL
 * client prints them), plus the edge cases of Flink's implementation (NULLs, types, rounding).
 */
import { describe, expect, it } from 'vitest';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { printedTypes, printedValues } from './eval-sql.ts';
import { sqlError } from './helpers.ts';

/** Asserts `SELECT expr` prints `value` for every entry. */
async function expectValues(cases: Record<string, string>): Promise<void> {
  expect(await printedValues(Object.keys(cases))).toEqual(cases);
}

const N = 'CAST(NULL AS INT)';

describe('comparison: BETWEEN [ASYMMETRIC | SYMMETRIC], SIMILAR TO', () => {
  it('BETWEEN follows the documented examples', async () => {
    await expectValues({
      '12 BETWEEN 15 AND 12': 'false',
      '12 BETWEEN SYMMETRIC 15 AND 12': 'true',
      [`12 BETWEEN 10 AND ${N}`]: 'NULL',
      [`12 BETWEEN ${N} AND 10`]: 'false',
      [`12 BETWEEN SYMMETRIC ${N} AND 12`]: 'NULL',
      '12 NOT BETWEEN 15 AND 12': 'true',
      '12 NOT BETWEEN SYMMETRIC 15 AND 12': 'false',
      [`12 NOT BETWEEN ${N} AND 15`]: 'NULL',
      [`12 NOT BETWEEN 15 AND ${N}`]: 'true',
      [`12 NOT BETWEEN SYMMETRIC 12 AND ${N}`]: 'NULL',
      '12 BETWEEN ASYMMETRIC 10 AND 15': 'true',
      '12 BETWEEN ASYMMETRIC 15 AND 10': 'false',
    });
  });

  it('SIMILAR TO matches the whole string against a SQL regular expression', async () => {
    await expectValues({
      "'flink' SIMILAR TO 'fl(i|a)nk'": 'true',
      "'flank' SIMILAR TO 'fl(i|a)nk'": 'true',
      "'flunk' SIMILAR TO 'fl(i|a)nk'": 'false',
      "'flink' NOT SIMILAR TO 'fl(i|a)nk'": 'false',
      "'flinkx' SIMILAR TO 'fl(i|a)nk'": 'false',
      "'abc' SIMILAR TO '%b_'": 'true',
      "'aaa' SIMILAR TO 'a{2,3}'": 'true',
      "'a4' SIMILAR TO '[[:ALPHA:]][[:DIGIT:]]'": 'true',
      "'ab' SIMILAR TO '[^a]b'": 'false',
      // `$` and `\` are ordinary characters; `.` keeps its regex meaning, as in Calcite.
      "'a$' SIMILAR TO 'a$'": 'true',
      "'a\\' SIMILAR TO 'a\\'": 'true',
      "'ax' SIMILAR TO 'a.'": 'true',
      "'100%' SIMILAR TO '100!%' ESCAPE '!'": 'true',
      "'1000' SIMILAR TO '100!%' ESCAPE '!'": 'false',
      "'a|b' SIMILAR TO 'a#|b' ESCAPE '#'": 'true',
      "CAST(NULL AS STRING) SIMILAR TO 'a'": 'NULL',
      "'a' SIMILAR TO CAST(NULL AS STRING)": 'NULL',
    });
  });

  it('SIMILAR TO rejects an invalid pattern or escape by name, at its position', () => {
    const message = (e: string): string => sqlError(() => compileSql(`SELECT ${e}`)).message;
    expect(message("'a' SIMILAR TO 'a]'")).toBe("line 1:12: Invalid regular expression 'a]' in SIMILAR TO('a', 'a]')");
    expect(message("'a' SIMILAR TO 'a' ESCAPE 'xy'")).toBe("line 1:12: Invalid escape character 'xy' in SIMILAR TO('a', 'a', 'xy')");
    expect(message("'a' SIMILAR TO '+a' ESCAPE '+'")).toBe("line 1:12: Invalid escape sequence '+a', 0 in SIMILAR TO('a', '+a', '+')");
  });
});

describe('arithmetic: TRUNCATE, RAND, RAND_INTEGER, UUID', () => {
  it('TRUNCATE follows the documented examples, with ROUND\'s result types', async () => {
    await expectValues({
      'TRUNCATE(42.324, 2)': '42.32',
      'TRUNCATE(CAST(42.324 AS DOUBLE))': '42.0',
      'TRUNCATE(CAST(42.324 AS DOUBLE), 2)': '42.32',
      'TRUNCATE(3.789, 1)': '3.7',
      'TRUNCATE(-3.789, 1)': '-3.7',
      'TRUNCATE(3.789, 5)': '3.789',
      'TRUNCATE(1234, -2)': '1200',
      'TRUNCATE(-1299, -2)': '-1200',
      // BigDecimal has no negative zero: Flink gives 0.0.
      'TRUNCATE(CAST(-0.5 AS DOUBLE))': '0.0',
      'TRUNCATE(CAST(-0.5 AS DOUBLE)) < 0 OR 1 / TRUNCATE(CAST(-0.5 AS DOUBLE)) > 0': 'true',
      'TRUNCATE(CAST(NULL AS DOUBLE), 1)': 'NULL',
    });
    expect(await printedTypes(['TRUNCATE(3.789, 1)', 'TRUNCATE(1234, -2)', 'TRUNCATE(3.789, 5)'])).toEqual({
      'TRUNCATE(3.789, 1)': 'DECIMAL(3, 1) NOT NULL',
      'TRUNCATE(1234, -2)': 'INT NOT NULL',
      'TRUNCATE(3.789, 5)': 'DECIMAL(4, 3) NOT NULL',
    });
  });

  it('RAND(seed) and RAND_INTEGER(seed, bound) give Java Random\'s sequence for the seed', async () => {
    // new java.util.Random(42): nextDouble() = 0.7275636800328681; nextInt(10) = 0.
    await expectValues({ 'RAND(42)': '0.7275636800328681', 'RAND_INTEGER(42, 10)': '0', 'RAND_INTEGER(42, CAST(NULL AS INT))': 'NULL' });
    expect(await printedTypes(['RAND()', 'RAND_INTEGER(5)', 'UUID()'])).toEqual({ 'RAND()': 'DOUBLE NOT NULL', 'RAND_INTEGER(5)': 'INT NOT NULL', 'UUID()': 'STRING NOT NULL' });
  });

  it('RAND, RAND_INTEGER and UUID stay in range and form', async () => {
    const out = await printedValues(['RAND()', 'RAND_INTEGER(3)', 'UUID()', 'CHAR_LENGTH(UUID())']);
    expect(Number(out['RAND()'])).toBeGreaterThanOrEqual(0);
    expect(Number(out['RAND()'])).toBeLessThan(1);
    expect(['0', '1', '2']).toContain(out['RAND_INTEGER(3)']);
    expect(out['UUID()']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(out['CHAR_LENGTH(UUID())']).toBe('36');
  });

  it('RAND needs an integer literal seed', () => {
    expect(() => compileSql('SELECT RAND(1.5)')).toThrow(/cannot apply 'RAND' to DECIMAL/);
    expect(() => compileSql("CREATE TABLE t (x INT) WITH ('connector' = 'datagen'); SELECT RAND(x) FROM t")).toThrow('the seed of RAND must be an integer literal in RAND(x)');
  });
});

describe('conversion: TYPEOF', () => {
  it('names the operand type as Flink does', async () => {
    await expectValues({
      'TYPEOF(1)': 'INT NOT NULL',
      'TYPEOF(CAST(NULL AS BIGINT))': 'BIGINT',
      'TYPEOF(2.50)': 'DECIMAL(3, 2) NOT NULL',
      "TYPEOF(CAST('x' AS VARCHAR(5)))": 'VARCHAR(5) NOT NULL',
      "TYPEOF(CAST('x' AS STRING))": 'STRING NOT NULL',
      "TYPEOF(CAST('x' AS STRING), TRUE)": 'VARCHAR(2147483647) NOT NULL',
      "TYPEOF(CAST('x' AS STRING), FALSE)": 'STRING NOT NULL',
      "TYPEOF(ARRAY['a'])": 'ARRAY<STRING NOT NULL> NOT NULL',
      "TYPEOF(MAP['k', 1])": 'MAP<STRING NOT NULL, INT NOT NULL> NOT NULL',
      "TYPEOF(ROW(1, 'a'))": 'ROW<`EXPR$0` INT NOT NULL, `EXPR$1` STRING NOT NULL> NOT NULL',
      "TYPEOF(CAST(NULL AS TIMESTAMP(3)))": 'TIMESTAMP(3)',
    });
  });
});

describe('JSON: JSON_STRING, JSON_QUOTE, JSON_UNQUOTE', () => {
  it('JSON_STRING follows the documented examples', async () => {
    await expectValues({
      'JSON_STRING(CAST(NULL AS INT))': 'NULL',
      'JSON_STRING(1)': '1',
      'JSON_STRING(TRUE)': 'true',
      "JSON_STRING('Hello, World!')": '"Hello, World!"',
      'JSON_STRING(ARRAY[1, 2])': '[1,2]',
      'JSON_STRING(CAST(2 AS DOUBLE))': '2.0',
      'JSON_STRING(1.50)': '1.50',
      "JSON_STRING(TIMESTAMP '2024-01-01 10:00:00.500')": '"2024-01-01T10:00:00.5"',
      "JSON_STRING(ROW(1, 'a'))": '{"EXPR$0":1,"EXPR$1":"a"}',
      "JSON_STRING(MAP['k', ARRAY[CAST(NULL AS INT)]])": '{"k":[null]}',
    });
  });

  it('JSON_QUOTE escapes and JSON_UNQUOTE reads back a JSON string literal', async () => {
    await expectValues({
      "JSON_QUOTE('a\"b/c\\d')": '"a\\"b\\/c\\\\d"',
      "JSON_QUOTE('')": '""',
      "JSON_QUOTE(CAST(NULL AS STRING))": 'NULL',
      "JSON_UNQUOTE('\"a\\\"b\"')": 'a"b',
      "JSON_UNQUOTE('\"\\u0041\\/\"')": 'A/',
      // Not a JSON string literal: returned as it is.
      "JSON_UNQUOTE('abc')": 'abc',
      "JSON_UNQUOTE('\"abc')": '"abc',
      "JSON_UNQUOTE('\"a\\x\"')": '"a\\x"',
      "JSON_UNQUOTE(JSON_QUOTE('x\ty'))": 'x\ty',
    });
  });
});

describe('non-deterministic functions over an updating input', () => {
  const counts = "(SELECT k, COUNT(*) AS c FROM (VALUES ('a'), ('b'), ('a')) AS v (k) GROUP BY k)";
  const plan = (sql: string): unknown => compileSql(sql).pipeline.jobGraph();

  it('are refused where a retraction would carry another value than the row it retracts', () => {
    expect(() => plan(`SELECT k, c, RAND() AS r FROM ${counts}`)).toThrow(
      /^RAND\(\) in column 'r' of Calc #\d+ is evaluated again for every update and retraction of its updating input \(changes \[\+I, -U, \+U, -D\]\), so a retraction would not carry the value of the row it retracts \(Flink's non-deterministic update problem\): call it on the insert-only input, before the aggregation or join$/,
    );
    expect(() => plan(`SELECT k FROM ${counts} WHERE RAND_INTEGER(2) = 0`)).toThrow(/^RAND_INTEGER\(2\) in the filter of Calc #\d+/);
    expect(() => plan(`SELECT k, CONCAT(k, UUID()) AS u FROM ${counts}`)).toThrow(/^UUID\(\) in column 'u'/);
  });

  it('are allowed on an insert-only input, and in a projection into an upsert sink (updates by key)', () => {
    expect(() => plan("SELECT k, UUID() FROM (VALUES ('a')) AS v (k) WHERE RAND() < 2")).not.toThrow();
    const upsert = "CREATE TABLE s (k STRING, c BIGINT, u STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'print');";
    expect(() => plan(`${upsert} INSERT INTO s SELECT k, c, UUID() FROM ${counts}`)).not.toThrow();
    expect(() => plan(`${upsert} INSERT INTO s SELECT k, c, 'x' FROM ${counts} WHERE RAND() < 2`)).toThrow(/^RAND\(\) in the filter of Calc #\d+ .*\(changes \[\+I, \+U, -D\]\)/);
  });
});
