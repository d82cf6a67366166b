/**
 * SQL hints as Flink reads them: `t /*+ OPTIONS(…) *\/` overrides a table's WITH options for one
 * query (a source of its own when it changes what is read, on both runtimes; also on an INSERT
 * target), and query hints must name a table of their query block.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { inputDir, runEmbeddedSql, runLocalSql } from './run-both.ts';
import { sqlError } from './helpers.ts';

const files = inputDir('hints');
afterAll(() => files.cleanup());

const march = files.file('march', [
  { id: 1, amount: 10 },
  { id: 2, amount: 20 },
]);
const april = files.file('april', [
  { id: 3, amount: 30 },
  'not json',
  { id: 4, amount: 40 },
]);
const TABLE = `CREATE TABLE sales (id BIGINT, amount INT) WITH ('connector' = 'filesystem', 'path' = '${march}', 'format' = 'json');\n`;

describe('OPTIONS (dynamic table options)', () => {
  // The table read as declared and, in the same query, once more from the hinted file.
  const BOTH = `${TABLE}SELECT id, amount FROM sales UNION ALL SELECT id, amount FROM sales /*+ OPTIONS('path' = '${april}') */`;

  it('reads the hinted file in place of the declared one, next to the table read as declared', async () => {
    const expected = ['{"id":1,"amount":10}', '{"id":2,"amount":20}', '{"id":3,"amount":30}', '{"id":4,"amount":40}'];
    const embedded = await runEmbeddedSql(BOTH);
    expect(embedded.rows).toEqual(expected);
    expect(embedded.deadLetters).toEqual(['april.jsonl:2: invalid JSON (Unexpected token \'o\', "not json" is not valid JSON): "not json"']);
    expect((await runLocalSql(BOTH)).rows).toEqual(expected);
  });

  it('is one source per distinct set of options, and none of its own when nothing read changes', () => {
    const sources = (sql: string): string[] => compileSql(sql).pipeline.jobGraph({ parallelism: 1 }).sources.map((s) => s.name);
    expect(sources(BOTH)).toEqual(['sales', 'sales_options1']);
    // 'scan.startup.mode' is Kafka's: the filesystem source reads the same file either way.
    expect(sources(`${TABLE}SELECT id FROM sales /*+ OPTIONS('scan.startup.mode' = 'earliest-offset') */`)).toEqual(['sales']);
  });

  it('overrides the options of an INSERT target', () => {
    const out = files.file('out', []);
    const program = compileSql(`${TABLE}CREATE TABLE totals (id BIGINT) WITH ('connector' = 'print');\nINSERT INTO totals /*+ OPTIONS('connector' = 'filesystem', 'path' = '${out}') */ SELECT id FROM sales`);
    expect(program.sinks[0]?.connector).toEqual({ type: 'jsonl', path: out, format: { type: 'json' } });
  });

  it('is an error on a view, for a hint Flink does not have on tables, and for a bad option', () => {
    expect(sqlError(() => compileSql(`${TABLE}CREATE VIEW v AS SELECT * FROM sales;\nSELECT id FROM v /*+ OPTIONS('path' = 'x') */`)).message).toBe(
      "line 3:21: View 'v' cannot be enriched with new options. Hints can only be applied to tables (as in Flink)",
    );
    expect(sqlError(() => compileSql(`${TABLE}SELECT id FROM sales /*+ INDEX('id') */`)).message).toBe(
      "line 2:25: unknown table hint 'INDEX' on table 'sales' (a table takes OPTIONS('key'='value', …))",
    );
    expect(sqlError(() => compileSql(`${TABLE}SELECT id FROM sales /*+ OPTIONS('format' = 'xml') */`)).message).toMatch(/^line 2:25: table 'sales': .*xml/);
  });
});

describe('query hints', () => {
  const PRODUCTS = "CREATE TABLE products (id BIGINT, name STRING) WITH ('connector' = 'filesystem', 'path' = 'p.jsonl', 'format' = 'json');\n";

  it('accepts join hints and STATE_TTL naming the tables or aliases of the query', () => {
    expect(() => compileSql(`${TABLE}${PRODUCTS}SELECT /*+ BROADCAST(products), STATE_TTL('s' = '1d') */ s.id, p.name FROM sales s JOIN products p ON s.id = p.id`)).not.toThrow();
  });

  it("STATE_TTL on a group aggregation sets its idle-state retention, over the session's table.exec.state.ttl", () => {
    const ttl = (sql: string): (number | undefined)[] =>
      compileSql(sql)
        .pipeline.jobGraph({ parallelism: 1 })
        .stages.flatMap((st) => st.operators)
        .filter((o) => o.type === 'GroupAggregate')
        .map((o) => (o.spec as { stateTtlMs?: number }).stateTtlMs);
    const agg = 'id, SUM(amount) AS total FROM sales s GROUP BY id';
    expect(ttl(`${TABLE}SELECT ${agg}`)).toEqual([undefined]);
    expect(ttl(`${TABLE}SELECT /*+ STATE_TTL('s' = '1d') */ ${agg}`)).toEqual([86_400_000]);
    expect(ttl(`SET 'table.exec.state.ttl' = '1 h';\n${TABLE}SELECT /*+ STATE_TTL('sales' = '12 h') */ ${agg}`)).toEqual([43_200_000]);
    expect(ttl(`SET 'table.exec.state.ttl' = '1 h';\n${TABLE}SELECT ${agg}`)).toEqual([3_600_000]);
  });

  it('rejects a hint naming no table of the query, and a hint Flink does not have', () => {
    expect(sqlError(() => compileSql(`${TABLE}${PRODUCTS}SELECT /*+ BROADCAST(customers) */ s.id FROM sales s JOIN products p ON s.id = p.id`)).message).toBe(
      "line 3:11: hint BROADCAST names 'customers', which is not a table of this query's FROM (sales, s, products, p); Flink rejects a hint that matches no input",
    );
    expect(sqlError(() => compileSql(`${TABLE}${PRODUCTS}SELECT /*+ STATE_TTL('orders' = '1d') */ s.id FROM sales s JOIN products p ON s.id = p.id`)).message).toMatch(
      /^line 3:11: hint STATE_TTL names 'orders', which is not a table/,
    );
    expect(sqlError(() => compileSql(`${TABLE}SELECT /*+ PARALLEL */ id FROM sales`)).message).toMatch(/^line 2:11: unknown query hint 'PARALLEL' \(Flink's query hints: BROADCAST/);
  });
});
