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

describe('string functions', () => {
  it('LTRIM, RTRIM and BTRIM trim spaces or the given characters', async () => {
    await expectValues({
      "LTRIM(' This is a test String.')": 'This is a test String.',
      "RTRIM('This is a test String. ')": 'This is a test String.',
      "BTRIM('  flink  ')": 'flink',
      "LTRIM('xxflinkxx', 'x')": 'flinkxx',
      "RTRIM('xxflinkxx', 'x')": 'xxflink',
      "BTRIM('xyflinkyx', 'xy')": 'flink',
      "BTRIM('flink', CAST(NULL AS STRING))": 'NULL',
    });
  });

  it('INSTR, STARTSWITH, ENDSWITH, ELT, TRANSLATE, IS_DECIMAL', async () => {
    await expectValues({
      "INSTR('flink', 'in')": '3',
      "INSTR('flink', 'x')": '0',
      "INSTR('flink', CAST(NULL AS STRING))": 'NULL',
      "STARTSWITH('flink', 'fl')": 'true',
      "STARTSWITH('flink', '')": 'true',
      "ENDSWITH('flink', 'fl')": 'false',
      "ELT(2, 'scala', 'java', 'sql')": 'java',
      "ELT(0, 'scala', 'java')": 'NULL',
      "ELT(3, 'scala', 'java')": 'NULL',
      "ELT(CAST(NULL AS INT), 'scala')": 'NULL',
      "TRANSLATE('www.apache.org', 'wapcheorg', ' APCHEcom')": '   .APACHE.com',
      "TRANSLATE('hello', 'lo', 'x')": 'hexx',
      "TRANSLATE('aaa', 'aa', 'xy')": 'xxx',
      "TRANSLATE('flink', CAST(NULL AS STRING), 'x')": 'flink',
      "TRANSLATE('flink', 'fl', CAST(NULL AS STRING))": 'ink',
      "IS_DECIMAL('1.5')": 'true',
      "IS_DECIMAL('-2e3')": 'true',
      // As Java's Integer.parseInt, Long.parseLong or Double.parseDouble read it.
      "IS_DECIMAL('0x1F')": 'false',
      "IS_DECIMAL('0x1.8p1')": 'true',
      "IS_DECIMAL(' 1.5 ')": 'true',
      "IS_DECIMAL('NaN')": 'true',
      "IS_DECIMAL('1L')": 'false',
      "IS_DECIMAL('1d')": 'true',
      "IS_DECIMAL('1e')": 'false',
      "IS_DECIMAL('1.5.2')": 'false',
      "IS_DECIMAL('')": 'false',
      'IS_DECIMAL(CAST(NULL AS STRING))': 'false',
    });
  });

  it('SPLIT and STR_TO_MAP', async () => {
    await expectValues({
      "SPLIT('a,b,,c', ',')": '[a, b, , c]',
      "SPLIT(',a,', ',')": '[, a, ]',
      "SPLIT('abc', 'x')": '[abc]',
      "SPLIT('abc', '')": '[a, b, c]',
      "SPLIT('', ',')": '[]',
      "SPLIT('a', CAST(NULL AS STRING))": 'NULL',
      "STR_TO_MAP('k1=v1,k2=v2')": '{k1=v1, k2=v2}',
      "STR_TO_MAP('k1:v1;k2:v2;k3', ';', ':')": '{k1=v1, k2=v2, k3=NULL}',
      "STR_TO_MAP('a=1,a=2,')": '{a=2}',
      "STR_TO_MAP('a.1|b.2', '[|]', '[.]')": '{a=1, b=2}',
      "STR_TO_MAP('')": '{}',
    });
  });

  it('URL_ENCODE, URL_DECODE and PARSE_URL (the documented examples)', async () => {
    const url = "'http://facebook.com/path1/p.php?k1=v1&k2=v2#Ref1'";
    await expectValues({
      "URL_ENCODE('a b&c=d/é~!*')": 'a+b%26c%3Dd%2F%C3%A9%7E%21*',
      "URL_DECODE('a+b%26c%3Dd%2F%C3%A9')": 'a b&c=d/é',
      "URL_DECODE('100%')": 'NULL',
      "URL_DECODE('%G1')": 'NULL',
      "URL_DECODE(URL_ENCODE('x y+z'))": 'x y+z',
      [`PARSE_URL(${url}, 'HOST')`]: 'facebook.com',
      [`PARSE_URL(${url}, 'QUERY', 'k1')`]: 'v1',
      [`PARSE_URL(${url}, 'QUERY', 'k3')`]: 'NULL',
      [`PARSE_URL(${url}, 'PATH')`]: '/path1/p.php',
      [`PARSE_URL(${url}, 'QUERY')`]: 'k1=v1&k2=v2',
      [`PARSE_URL(${url}, 'REF')`]: 'Ref1',
      [`PARSE_URL(${url}, 'PROTOCOL')`]: 'http',
      [`PARSE_URL(${url}, 'FILE')`]: '/path1/p.php?k1=v1&k2=v2',
      [`PARSE_URL(${url}, 'AUTHORITY')`]: 'facebook.com',
      [`PARSE_URL(${url}, 'USERINFO')`]: 'NULL',
      "PARSE_URL('https://user:pw@Host.com:8080/a?x=1', 'USERINFO')": 'user:pw',
      "PARSE_URL('https://user:pw@Host.com:8080/a?x=1', 'HOST')": 'Host.com',
      "PARSE_URL('https://user:pw@Host.com:8080/a?x=1', 'AUTHORITY')": 'user:pw@Host.com:8080',
      "PARSE_URL('http://host', 'PATH')": '',
      "PARSE_URL('foo://bar', 'HOST')": 'NULL',
    });
  });

  it('REGEXP_COUNT, REGEXP_INSTR, REGEXP_SUBSTR, REGEXP_EXTRACT_ALL', async () => {
    await expectValues({
      "REGEXP_COUNT('ababab', 'ab')": '3',
      "REGEXP_COUNT('abc', 'x*')": '4',
      "REGEXP_COUNT('abc', '(')": 'NULL',
      "REGEXP_INSTR('hello', 'l+')": '3',
      "REGEXP_INSTR('hello', 'z')": '0',
      "REGEXP_SUBSTR('hello', 'l+')": 'll',
      "REGEXP_SUBSTR('hello', 'z')": 'NULL',
      "REGEXP_EXTRACT_ALL('a1b22c333', '([a-z])(\\d+)')": '[a, b, c]',
      "REGEXP_EXTRACT_ALL('a1b22c333', '([a-z])(\\d+)', 2)": '[1, 22, 333]',
      "REGEXP_EXTRACT_ALL('a1b22', '[a-z]\\d+', 0)": '[a1, b22]',
      "REGEXP_EXTRACT_ALL('a1', '[a-z]\\d+', 1)": 'NULL',
      "REGEXP_EXTRACT_ALL('xyz', '(\\d)')": '[]',
    });
  });

  it('PRINTF formats as Java\'s String.format with Locale.US', async () => {
    // Each expected text is what Java 17 prints for the same format and arguments.
    await expectValues({
      "PRINTF('%s has %d items at %.2f', 'cart', 3, CAST(1.005 AS DOUBLE))": 'cart has 3 items at 1.01',
      "PRINTF('%08.3f|%-6s|%x|%,d|%+d|%(d', CAST(-2.5 AS DOUBLE), 'ab', -1, 1234567, 5, -5)": '-002.500|ab    |ffffffff|1,234,567|+5|(5)',
      "PRINTF('%x|%X|%o|%#x', CAST(-1 AS BIGINT), 255, 8, 255)": 'ffffffffffffffff|FF|10|0xff',
      "PRINTF('%e|%.3e|%g|%g|%g', CAST(12345.678 AS DOUBLE), CAST(0.000123456 AS DOUBLE), CAST(0.0001234 AS DOUBLE), CAST(123456789 AS DOUBLE), CAST(1 AS DOUBLE))": '1.234568e+04|1.235e-04|0.000123400|1.23457e+08|1.00000',
      "PRINTF('%.0f %.0f %f', CAST(0.5 AS DOUBLE), CAST(1.5 AS DOUBLE), CAST(3.14159 AS DOUBLE))": '1 2 3.141590',
      "PRINTF('%2$s %1$s %s %<s', 'a', 'b')": 'b a a a',
      "PRINTF('%s|%d|%b|%b', CAST(NULL AS STRING), CAST(NULL AS INT), CAST(NULL AS BOOLEAN), 'x')": 'null|null|false|true',
      "PRINTF('%S|%.2s|%5s|%c|%%', 'hi', 'hello', 'x', 65)": 'HI|he|    x|A|%',
      "PRINTF('%s %s %s', 1.50, CAST(2 AS DOUBLE), TIMESTAMP '2024-01-01 10:00:00')": '1.50 2.0 2024-01-01T10:00',
      "PRINTF(CAST(NULL AS STRING), 1)": 'NULL',
    });
  });

  it('PRINTF rejects what Java\'s Formatter rejects, naming the exception', () => {
    const message = (e: string): string => sqlError(() => compileSql(`SELECT ${e}`)).message;
    expect(message("PRINTF('%d', 'x')")).toBe("line 1:8: IllegalFormatConversionException: d != org.apache.flink.table.data.binary.BinaryStringData in '%d' in PRINTF('%d', 'x')");
    expect(message("PRINTF('%s %s', 'x')")).toBe("line 1:8: MissingFormatArgumentException: Format specifier '%s' in PRINTF('%s %s', 'x')");
    expect(message("PRINTF('%q', 1)")).toBe("line 1:8: UnknownFormatConversionException: Conversion = 'q' in PRINTF('%q', 1)");
    expect(message("PRINTF('%.2d', 1)")).toBe("line 1:8: IllegalFormatPrecisionException: 2 in PRINTF('%.2d', 1)");
  });

  it('SHA224, SHA384, SHA512 and SHA2 hash the UTF-8 bytes; CURRENT_DATABASE names the default database', async () => {
    await expectValues({
      "SHA224('flink')": 'bbb4b4b612daa53e219a6159417323b3c81a7bd9bf23af58bbe97358',
      "SHA2('flink', 256)": '7f025323639628aa5e5d24bd56f43317552b140c71406d0eb5a555671bd534d2',
      "SHA2('flink', 224) = SHA224('flink')": 'true',
      "SHA2('flink', 384) = SHA384('flink')": 'true',
      "SHA2('flink', 512) = SHA512('flink')": 'true',
      "CHAR_LENGTH(SHA512('flink'))": '128',
      "SHA2(CAST(NULL AS STRING), 256)": 'NULL',
      'CURRENT_DATABASE()': 'default_database',
    });
    expect(sqlError(() => compileSql("SELECT SHA2('x', 100)")).message).toBe("line 1:8: SHA2 takes a bit length of 224, 256, 384 or 512, got 100 in SHA2('x', 100)");
  });
});

describe('collection functions', () => {
  const n = 'CAST(NULL AS INT)';
  it('ARRAY_* follow the descriptions of Flink\'s collection functions', async () => {
    await expectValues({
      'ARRAY_APPEND(ARRAY[1, 2], 3)': '[1, 2, 3]',
      [`ARRAY_APPEND(ARRAY[1, 2], ${n})`]: '[1, 2, NULL]',
      'ARRAY_PREPEND(ARRAY[1, 2], 0)': '[0, 1, 2]',
      'ARRAY_PREPEND(ARRAY[1, 2], 2.5)': '[2.5, 1.0, 2.0]',
      'ARRAY_CONTAINS(ARRAY[1, 2], 2)': 'true',
      'ARRAY_CONTAINS(ARRAY[1, 2], 3)': 'false',
      [`ARRAY_CONTAINS(ARRAY[1, ${n}], ${n})`]: 'true',
      'ARRAY_CONTAINS(ARRAY[1.5, 2.0], 2)': 'true',
      [`ARRAY_CONTAINS(CAST(NULL AS ARRAY<INT>), 1)`]: 'NULL',
      'ARRAY_DISTINCT(ARRAY[1, 2, 1, 3, 2])': '[1, 2, 3]',
      [`ARRAY_DISTINCT(ARRAY[${n}, 1, ${n}])`]: '[NULL, 1]',
      'ARRAY_POSITION(ARRAY[1, 2, 2], 2)': '2',
      'ARRAY_POSITION(ARRAY[1, 2], 3)': '0',
      [`ARRAY_POSITION(ARRAY[1], ${n})`]: 'NULL',
      'ARRAY_REMOVE(ARRAY[1, 2, 2, 3], 2)': '[1, 3]',
      [`ARRAY_REMOVE(ARRAY[1, ${n}, 3], ${n})`]: '[1, 3]',
      "ARRAY_REVERSE(ARRAY['a', 'b', 'c'])": '[c, b, a]',
      'ARRAY_SLICE(ARRAY[1, 2, 3, 4, 5], 2, 4)': '[2, 3, 4]',
      'ARRAY_SLICE(ARRAY[1, 2, 3, 4, 5], -2)': '[4, 5]',
      'ARRAY_SLICE(ARRAY[1, 2, 3, 4, 5], 0, -4)': '[1, 2]',
      'ARRAY_SLICE(ARRAY[1, 2, 3], 3, 1)': '[]',
      'ARRAY_SLICE(ARRAY[1, 2, 3], 5, 9)': '[]',
      [`ARRAY_SLICE(ARRAY[1, 2, 3], ${n})`]: 'NULL',
      [`ARRAY_SORT(ARRAY[3, ${n}, 1, 2])`]: '[NULL, 1, 2, 3]',
      [`ARRAY_SORT(ARRAY[3, ${n}, 1, 2], FALSE)`]: '[3, 2, 1, NULL]',
      [`ARRAY_SORT(ARRAY[3, ${n}, 1], TRUE, FALSE)`]: '[1, 3, NULL]',
      [`ARRAY_SORT(ARRAY[3, ${n}, 1], FALSE, TRUE)`]: '[NULL, 3, 1]',
      "ARRAY_SORT(ARRAY['b', 'a', 'B'])": '[B, a, b]',
      'ARRAY_UNION(ARRAY[1, 2, 2], ARRAY[2, 3])': '[1, 2, 3]',
      'ARRAY_CONCAT(ARRAY[1], ARRAY[2, 3], ARRAY[1])': '[1, 2, 3, 1]',
      'ARRAY_CONCAT(ARRAY[1], CAST(NULL AS ARRAY<INT>))': 'NULL',
      'ARRAY_EXCEPT(ARRAY[1, 2, 1, 3], ARRAY[3])': '[1, 2]',
      'ARRAY_EXCEPT(ARRAY[1], ARRAY[1])': '[]',
      'ARRAY_INTERSECT(ARRAY[1, 2, 2, 3], ARRAY[3, 2, 4])': '[2, 3]',
      [`ARRAY_EXCEPT(ARRAY[${n}, 1, 2], ARRAY[2])`]: '[1, NULL]',
      [`ARRAY_EXCEPT(ARRAY[${n}, 1], ARRAY[${n}])`]: '[1]',
      [`ARRAY_INTERSECT(ARRAY[${n}, 1, 2], ARRAY[2, ${n}])`]: '[2, NULL]',
      [`ARRAY_MAX(ARRAY[1, 5, ${n}])`]: '5',
      [`ARRAY_MIN(ARRAY[${n}, 4, 2])`]: '2',
      [`ARRAY_MAX(ARRAY[${n}])`]: 'NULL',
      "ARRAY_JOIN(ARRAY['a', CAST(NULL AS STRING), 'c'], '-')": 'a-c',
      "ARRAY_JOIN(ARRAY['a', CAST(NULL AS STRING), 'c'], '-', 'x')": 'a-x-c',
      "ARRAY_JOIN(ARRAY['a'], '-', CAST(NULL AS STRING))": 'NULL',
    });
  });

  it('MAP_* and CARDINALITY', async () => {
    await expectValues({
      "MAP_KEYS(MAP['a', 1, 'b', 2])": '[a, b]',
      "MAP_VALUES(MAP['a', 1, 'b', 2])": '[1, 2]',
      "MAP_ENTRIES(MAP['a', 1, 'b', 2])": '[(a, 1), (b, 2)]',
      "MAP_ENTRIES(MAP['a', 1])[1].`value`": '1',
      "MAP_FROM_ARRAYS(ARRAY['a', 'b'], ARRAY[1, 2])": '{a=1, b=2}',
      "MAP_UNION(MAP['a', 1, 'b', 2], MAP['b', 3, 'c', 4])": '{a=1, b=3, c=4}',
      "MAP_UNION(MAP['a', 1], CAST(NULL AS MAP<STRING, INT>))": 'NULL',
      "CARDINALITY(SPLIT('a,b', ','))": '2',
    });
  });

  it('name the operand that does not fit', () => {
    const message = (e: string): string => sqlError(() => compileSql(`SELECT ${e}`)).message;
    expect(message("ARRAY_CONTAINS(MAP['a', 1], 1)")).toBe("line 1:8: ARRAY_CONTAINS takes an ARRAY as argument 1, not MAP<STRING, INT>, in ARRAY_CONTAINS(MAP('a', 1), 1)");
    expect(message("ARRAY_CONTAINS(ARRAY[1], 'x')")).toBe("line 1:8: cannot apply 'ARRAY_CONTAINS' to elements of INT and STRING in ARRAY_CONTAINS(ARRAY(1), 'x') (they have no common type)");
    expect(message('ARRAY_JOIN(ARRAY[1], 1)')).toBe("line 1:8: ARRAY_JOIN joins an ARRAY of strings, not ARRAY<INT>, in ARRAY_JOIN(ARRAY(1), 1)");
    expect(message("MAP_FROM_ARRAYS(ARRAY[1], ARRAY['a'])")).toBe("line 1:8: MAP keys must be STRING here, not INT, in MAP_FROM_ARRAYS(ARRAY(1), ARRAY('a'))");
    expect(() => compileSql("SELECT MAP_FROM_ARRAYS(ARRAY['a', 'b'], ARRAY[1])").pipeline.jobGraph()).not.toThrow();
  });
});

describe('JSON_QUERY (the documented examples)', () => {
  it('selects objects and arrays, wraps as Calcite does, and returns an ARRAY<STRING> on request', async () => {
    const doc = '\'{"a":[{"c":"c1"},{"c":"c2"}]}\'';
    await expectValues({
      'JSON_QUERY(\'{ "a": { "b": 1 } }\', \'$.a\')': '{"b":1}',
      "JSON_QUERY('[1, 2]', '$')": '[1,2]',
      "JSON_QUERY(CAST(NULL AS STRING), '$')": 'NULL',
      [`JSON_QUERY(${doc}, 'lax $.a[*].c')`]: '["c1","c2"]',
      [`JSON_QUERY(${doc}, 'lax $.a[*].c' RETURNING ARRAY<STRING>)`]: '[c1, c2]',
      "JSON_QUERY('{}', '$' WITH CONDITIONAL ARRAY WRAPPER)": '[{}]',
      "JSON_QUERY('[1, 2]', '$' WITH CONDITIONAL ARRAY WRAPPER)": '[1,2]',
      "JSON_QUERY('[1, 2]', '$' WITH UNCONDITIONAL ARRAY WRAPPER)": '[[1,2]]',
      "JSON_QUERY('1', '$')": 'NULL',
      "JSON_QUERY('1', '$' WITH CONDITIONAL ARRAY WRAPPER)": '[1]',
      "JSON_QUERY('{}', 'lax $.invalid' EMPTY OBJECT ON EMPTY)": '{}',
      "JSON_QUERY('{}', 'strict $.invalid' EMPTY ARRAY ON ERROR)": '[]',
      "JSON_QUERY('{\"a\":[]}', 'lax $.a[*].c')": '[]',
      "JSON_QUERY('{}', 'strict $.invalid' RETURNING ARRAY<STRING> EMPTY ARRAY ON ERROR)": '[]',
      "JSON_QUERY('{\"a\":{\"b\":1}}', '$.a' RETURNING ARRAY<STRING>)": 'NULL',
      "JSON_VALUE('{\"a\":[1]}', '$.a[*]')": 'NULL',
    });
  });
});

describe('Flink functions Flambda does not run', () => {
  it('are named as Flink functions, with the reason', () => {
    const message = (e: string): string => sqlError(() => compileSql(`SELECT ${e}`)).message;
    expect(message('NTILE(4)')).toMatch(/^line 1:8: 'NTILE' is a Flink built-in function that Flambda does not support yet \(a window function of OVER windows;/);
    expect(message('NO_SUCH(1)')).toMatch(/^line 1:8: unknown function 'NO_SUCH' in NO_SUCH\(1\); supported: /);
  });
});
