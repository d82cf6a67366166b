/** The front end: the AST built from dt-sql-parser's parse tree, against the hand-written parser. */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lastFrontEndReport, parseScript } from '../../shared/sql/grammar-check.ts';
import { parseSql } from '../../shared/sql/parser.ts';
import { ORDERS, example } from './helpers.ts';

const EXAMPLES = readdirSync(new URL('../../examples/sql/', import.meta.url)).filter((f) => f.endsWith('.sql'));

/** Asserts every statement of `text` came from the grammar's tree, equal to parser.ts's reading. */
function fromTree(text: string): void {
  const statements = parseScript(text);
  const report = lastFrontEndReport();
  expect([...report.fallbacks]).toEqual([]);
  expect(report.fromTree).toHaveLength(statements.length);
  expect(statements).toEqual(parseSql(text));
}

describe('AST from the Flink grammar parse tree', () => {
  it('reads every example script from the tree, exactly as parser.ts does (positions included)', () => {
    for (const f of EXAMPLES) fromTree(example(f));
  });

  it('reads expressions, hints, joins, DDL and SET from the tree', () => {
    const scripts = [
      "SET 'pipeline.name' = 'it''s'",
      "CREATE VIEW v AS SELECT DISTINCT a.b, `q`, 'it''s', -x, NOT y, CASE WHEN a = 1 THEN 'x' ELSE 'y' END c, CASE a WHEN 1 THEN 2 END FROM t",
      "SELECT CAST(a AS DECIMAL(10, 2)), a IS NOT NULL, a NOT BETWEEN 1 AND 2, a IN (1, 2), a NOT LIKE 'x%' FROM t WHERE a IS NULL OR b <> 1",
      "SELECT s || 't', TIMESTAMP '2020-01-01 00:00:00', DATE '2020-01-01', TRUE, NULL, count(DISTINCT a), count(*), (a + 1) * 2, 1.5e3, CURRENT_TIMESTAMP FROM t",
      "SELECT 1 + 2 * 3 - 4 / 5 % 6, a - 1 * 2 AS x, -(a), +a, NOT (a > 1), a >= 1 AND a <= 2, INTERVAL '3' DAY FROM t",
      'SELECT a,\n  b * 2\n   + c AS y FROM t',
      "SELECT /*+ LOOKUP('table'='d', 'retry-predicate'='lookup_miss') */ x.a FROM t AS x JOIN d FOR SYSTEM_TIME AS OF x.pt AS y ON x.a = y.a LEFT JOIN e FOR SYSTEM_TIME AS OF x.pt ON x.a = e.a WHERE a > 1 GROUP BY a HAVING count(*) > 1",
      'INSERT INTO s (a, b) SELECT a, b FROM t',
      "CREATE TABLE t (a INT PRIMARY KEY NOT ENFORCED, m STRING METADATA FROM 'k' VIRTUAL, b AS a * 2, ts TIMESTAMP_LTZ(3), d DECIMAL(10, 2) NOT NULL) COMMENT 'c' WITH ('x'='y')",
      "CREATE TABLE IF NOT EXISTS cat.db.t (a INT, ts AS PROCTIME(), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND, PRIMARY KEY (a) NOT ENFORCED) WITH ('connector' = 'print')",
      "SELECT * FROM TABLE(CUMULATE(TABLE bid, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' MINUTE))",
      "SELECT a, HOP_END(ts, INTERVAL '1' MINUTE, INTERVAL '5' MINUTE) FROM t GROUP BY HOP(ts, INTERVAL '1' MINUTE, INTERVAL '5' MINUTE), a",
      'SELECT * FROM (SELECT a, ROW_NUMBER() OVER (PARTITION BY a, b ORDER BY c DESC NULLS LAST, d) AS rn FROM t) WHERE rn <= 3',
    ];
    for (const text of scripts) fromTree(text);
  });

  it('maps the pre-pass masks back to SESSION (with PARTITION BY) and FILTER (WHERE …) nodes', () => {
    const text = `SELECT bidder, count(*) FILTER (WHERE price > 1 AND
      bidder IN (1, 2)) AS c, sum(price) FILTER (WHERE price < 10)
FROM TABLE(SESSION(TABLE bid PARTITION BY (bidder, auction), DESCRIPTOR(date_time), INTERVAL '10' SECOND)) GROUP BY bidder`;
    fromTree(text);
    const [s] = parseScript(text);
    if (s?.k !== 'select' || s.query.k !== 'select') throw new Error('expected a SELECT');
    expect(s.query.from).toMatchObject({ k: 'tvf', fn: 'SESSION', partitionBy: [{ name: 'bidder', pos: { line: 3, column: 44 } }, { name: 'auction' }] });
    expect(s.query.items[1]?.expr).toMatchObject({ k: 'call', name: 'COUNT', filter: { k: 'bin', op: 'AND', pos: { line: 1, column: 49 }, right: { k: 'in', pos: { line: 2, column: 14 } } } });
  });

  it('leaves constructs outside the subset to parser.ts, which reports them', () => {
    expect(parseScript('SELECT a FROM t ORDER BY a')[0]).toMatchObject({ k: 'select', query: { k: 'orderBy', orderBy: [{ direction: 'ASC' }] } });
    expect([...lastFrontEndReport().fallbacks.keys()]).toEqual([0]);
    const text = `${ORDERS}SELECT quantity FROM orders UNION ALL SELECT quantity FROM orders`;
    expect(parseScript(text)[1]).toMatchObject({ k: 'select', query: { k: 'setOp', op: 'UNION', all: true } });
  });
});
