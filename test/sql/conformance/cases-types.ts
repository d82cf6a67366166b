/**
 * Conformance cases for TINYINT, SMALLINT, FLOAT (REAL) and CHAR(n), after Flink's data types page
 * (`types`: each type's range and declaration, CHAR defaulting to CHAR(1), REAL a synonym of
 * FLOAT) and its CAST semantics (Flink 1.15+, `table.exec.legacy-cast-behaviour` disabled:
 * narrowing like Java, CHAR(n) padded and VARCHAR(n) cut to n), with the results Flink computes:
 * arithmetic in the wider operand type, wrapping like Java's byte and short.
 */
import type { ConformanceCase } from './cases.ts';

const TYPES = 'types';
const DESCRIBE = 'sql/describe';

/** A result table's lines as the SQL client prints them. */
const table = (...lines: string[]): string => lines.join('\n');

export const TYPES_CASES: readonly ConformanceCase[] = [
  { page: TYPES, name: 'TINYINT is a 1-byte signed integer: 127 + 1 wraps to -128', sql: 'SELECT CAST(127 AS TINYINT) + CAST(1 AS TINYINT), TYPEOF(CAST(127 AS TINYINT) + CAST(1 AS TINYINT))', rows: ['-128, TINYINT NOT NULL'] },
  { page: TYPES, name: 'SMALLINT is a 2-byte signed integer: 32767 + 1 wraps to -32768', sql: 'SELECT CAST(32767 AS SMALLINT) + CAST(1 AS SMALLINT)', rows: ['-32768'] },
  { page: TYPES, name: 'a narrowing CAST keeps the low bits, as Java does', sql: 'SELECT CAST(300 AS TINYINT), CAST(70000 AS SMALLINT), CAST(CAST(-1 AS BIGINT) AS TINYINT)', rows: ['44, 4464, -1'] },
  { page: TYPES, name: 'SMALLINT + INT is INT, TINYINT * SMALLINT is SMALLINT', sql: 'SELECT TYPEOF(CAST(1 AS SMALLINT) + 1), TYPEOF(CAST(1 AS TINYINT) * CAST(1 AS SMALLINT))', rows: ['INT NOT NULL, SMALLINT NOT NULL'] },
  { page: TYPES, name: 'SUM of a TINYINT column is a TINYINT and wraps', sql: 'SELECT SUM(v), TYPEOF(SUM(v)) FROM (VALUES (CAST(100 AS TINYINT)), (CAST(28 AS TINYINT))) AS T(v)', rows: ['-128, TINYINT'] },
  { page: TYPES, name: 'FLOAT is a 4-byte single precision number', sql: 'SELECT CAST(1.1 AS FLOAT) + CAST(2.2 AS FLOAT), CAST(CAST(0.1 AS FLOAT) AS DOUBLE)', rows: ['3.3000002, 0.10000000149011612'] },
  { page: TYPES, name: 'REAL is FLOAT', sql: 'SELECT TYPEOF(CAST(1 AS REAL)), CAST(CAST(1.5 AS REAL) AS STRING)', rows: ['FLOAT NOT NULL, 1.5'] },
  { page: TYPES, name: 'FLOAT with DOUBLE or DECIMAL is DOUBLE, with an integer FLOAT', sql: 'SELECT TYPEOF(CAST(1 AS FLOAT) + CAST(1 AS DOUBLE)), TYPEOF(CAST(1 AS FLOAT) + 1.5), TYPEOF(CAST(1 AS FLOAT) + 1)', rows: ['DOUBLE NOT NULL, DOUBLE NOT NULL, FLOAT NOT NULL'] },
  { page: TYPES, name: 'CHAR without a length is CHAR(1)', sql: "SELECT TYPEOF(CAST('a' AS CHAR))", rows: ['CHAR(1) NOT NULL'] },
  { page: TYPES, name: 'CAST to CHAR(n) pads with spaces and cuts to n, to VARCHAR(n) cuts', sql: "SELECT CONCAT('[', CAST('ab' AS CHAR(5)), ']'), CAST('abcdef' AS CHAR(3)), CAST('abcdef' AS VARCHAR(2))", rows: ['[ab   ], abc, ab'] },
  {
    page: DESCRIBE,
    name: 'DESCRIBE shows TINYINT, SMALLINT, FLOAT (for REAL) and CHAR(n)',
    sql: "CREATE TABLE narrow (t TINYINT, s SMALLINT NOT NULL, f REAL, c CHAR(4)) WITH ('connector' = 'datagen');\nDESCRIBE narrow",
    explain: table(
      '+------+----------+-------+-----+--------+-----------+',
      '| name |     type |  null | key | extras | watermark |',
      '+------+----------+-------+-----+--------+-----------+',
      '|    t |  TINYINT |  TRUE |     |        |           |',
      '|    s | SMALLINT | FALSE |     |        |           |',
      '|    f |    FLOAT |  TRUE |     |        |           |',
      '|    c |  CHAR(4) |  TRUE |     |        |           |',
      '+------+----------+-------+-----+--------+-----------+',
      '4 rows in set',
    ),
  },
];
