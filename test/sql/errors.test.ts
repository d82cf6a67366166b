/** Semantic errors name the statement position and the offending identifier. */
import { describe, expect, it } from 'vitest';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { ORDERS, sqlError } from './helpers.ts';

const compile = (text: string) => compileSql(text);

describe('semantic errors', () => {
  it('names the unknown column, its position and the table columns', () => {
    const e = sqlError(() => compile(`${ORDERS}\nSELECT merchandiseID2 FROM orders;`));
    expect(e.message).toBe("line 8:8: unknown column 'merchandiseID2' in table 'orders' (columns: merchandiseId, quantity, log_ts)");
    expect([e.line, e.column]).toEqual([8, 8]);
  });

  it('resolves case-insensitively when the match is unique, and names unknown aliases', () => {
    expect(() => compile(`${ORDERS}\nSELECT merchandiseid FROM orders;`)).not.toThrow();
    expect(sqlError(() => compile(`${ORDERS}\nSELECT x.quantity FROM orders o;`)).message).toBe("line 8:8: unknown table or alias 'x' in table 'orders' (known: o, orders)");
  });

  it('names unknown tables, connectors and missing options', () => {
    expect(sqlError(() => compile(`${ORDERS}\nSELECT * FROM ordrs;`)).message).toBe("line 8:15: unknown table 'ordrs' (declared: orders)");
    expect(sqlError(() => compile("CREATE TABLE t (a INT) WITH ('connector' = 'kafka'); SELECT * FROM t;")).message).toBe(
      "line 1:44: table 't': unknown connector 'kafka' (supported: kinesis, dynamodb, jdbc, filesystem, datagen, print, blackhole)",
    );
    expect(sqlError(() => compile("CREATE TABLE t (a INT) WITH ('connector' = 'jdbc', 'table-name' = 'x'); SELECT * FROM t;")).message).toMatch(
      /option 'url' is required/,
    );
    expect(sqlError(() => compile("CREATE TABLE t (a INT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:oracle://h/db', 'table-name' = 'x'); SELECT 1 FROM t;")).message).toMatch(
      /^line 1:\d+: invalid JDBC URL/,
    );
  });

  it('reports type errors at the expression', () => {
    const e = sqlError(() => compile(`${ORDERS}\nSELECT * FROM orders WHERE quantity = 'x';`));
    // At the operator whose operands do not fit.
    expect([e.line, e.column]).toEqual([8, 37]);
    expect(e.message).toMatch(/INT.*STRING|STRING.*INT/);
  });

  it('rejects what it cannot run, saying what instead', () => {
    expect(sqlError(() => compile(`${ORDERS}\nSELECT quantity FROM orders ORDER BY quantity;`)).message).toMatch(/Sort on a non-time-attribute field is not supported/);
    expect(sqlError(() => compile(`${ORDERS}\nSELECT * FROM orders a WHERE EXISTS (SELECT COUNT(*) FROM orders b WHERE a.quantity < b.quantity GROUP BY b.merchandiseId);`)).message).toMatch(
      /^line 8:\d+: a correlated subquery that aggregates can correlate by equalities of its columns with the outer query only \(t\.k = o\.k\), as in Flink: this condition is not one$/,
    );
    expect(sqlError(() => compile(`${ORDERS}`)).message).toMatch(/no INSERT INTO or SELECT/);
    expect(sqlError(() => compile(`${ORDERS}\nCREATE TABLE g (a BIGINT) WITH ('connector' = 'datagen');\nINSERT INTO g SELECT merchandiseId FROM orders;`)).message).toBe(
      "line 9:1: table 'g' (connector 'datagen') cannot be written to",
    );
  });

  it('rejects INSERT OVERWRITE, which Flink runs in batch mode only, rather than appending', () => {
    expect(sqlError(() => compile(`${ORDERS}\nCREATE TABLE out (a BIGINT) WITH ('connector' = 'print');\nINSERT OVERWRITE out SELECT merchandiseId FROM orders;`)).message).toBe(
      "line 9:1: INSERT OVERWRITE is not supported: INSERT OVERWRITE requires that the underlying DynamicTableSink of table 'default_catalog.default_database.out' implements the SupportsOverwrite interface.",
    );
  });

  it('checks INSERT column counts', () => {
    const text = `${ORDERS}\nCREATE TABLE out (a BIGINT, b INT) WITH ('connector' = 'print');\nINSERT INTO out SELECT merchandiseId FROM orders;`;
    expect(sqlError(() => compile(text)).message).toBe('line 9:17: INSERT INTO out: the query has 1 columns (merchandiseId) but the table has 2 (a, b)');
  });

  it('maps INSERT column lists by name, NULL for unlisted columns', () => {
    const program = compile(`${ORDERS}\nCREATE TABLE sink_t (a BIGINT, b INT, c STRING) WITH ('connector' = 'print');\nINSERT INTO sink_t (b, a) SELECT quantity, merchandiseId FROM orders;`);
    expect(program.pipeline.explain()).toContain('Calc(select=[merchandiseId AS a, quantity AS b, null:VARCHAR(2147483647) AS c])');
    expect(sqlError(() => compile(`${ORDERS}\nCREATE TABLE sink_t (a BIGINT) WITH ('connector' = 'print');\nINSERT INTO sink_t (x) SELECT merchandiseId FROM orders;`)).message).toBe(
      "line 9:21: unknown column 'x' in table 'sink_t' (columns: a)",
    );
  });

  it('checks the watermark declaration', () => {
    expect(sqlError(() => compile("CREATE TABLE t (a INT, WATERMARK FOR a AS a) WITH ('connector' = 'datagen'); SELECT * FROM t;")).message).toBe(
      "line 1:24: watermark column 'a' must be TIMESTAMP(3) or TIMESTAMP_LTZ(3) (it is INT)",
    );
  });
});
