/**
 * `'format' = 'debezium-json'` (Flink's format of Debezium change events) as a changelog source
 * on both runtimes: `c`/`r` → +I, `u` → -U before and +U after, `d` → -D before (also inside
 * Debezium's `{"schema", "payload"}` envelope), feeding a group aggregate and a Top-N with exact
 * changelogs; events that do not decode are dead-lettered with their position.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createRowEncoder } from '../../shared/core/codec.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { inputDir, runEmbeddedSql, runLocalSql } from './run-both.ts';

const files = inputDir('debezium');
afterAll(() => files.cleanup());

const products = files.file('products', [
  { before: null, after: { id: 1, category: 'a', price: 10 }, op: 'c' },
  { before: null, after: { id: 2, category: 'a', price: 20 }, op: 'r' },
  { before: null, after: { id: 3, category: 'b', price: 5 }, op: 'c' },
  { before: { id: 1, category: 'a', price: 10 }, after: { id: 1, category: 'a', price: 30 }, op: 'u' },
  { before: { id: 2, category: 'a', price: 20 }, after: null, op: 'd' },
  { op: 'x', after: { id: 9 } },
  { before: null, after: { id: 3, category: 'b', price: 6 }, op: 'u' },
  'not json',
  { schema: {}, payload: { before: { id: 3, category: 'b', price: 5 }, after: { id: 3, category: 'c', price: 5 }, op: 'u' } },
]);

const TABLE = `CREATE TABLE products (id BIGINT, category STRING, price BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '${products}', 'format' = 'debezium-json');`;

const AGG = `${TABLE} SELECT category, SUM(price) AS total, COUNT(*) AS n FROM products GROUP BY category`;
const TOP1 = `${TABLE} SELECT id, category, price FROM (
  SELECT id, category, price, ROW_NUMBER() OVER (PARTITION BY category ORDER BY price DESC) AS rn FROM products) WHERE rn <= 1`;

/** The changelog as `kind[v, …]` with the sink's encoding. */
function changelog(sql: string, changes: readonly ChangeRow[]): string[] {
  const sink = compileSql(sql).pipeline.jobGraph({ parallelism: 1 }).sinks[0]!;
  const encode = createRowEncoder(sink.schema);
  return changes.map((c) => `${c.kind}[${Object.values(encode(c.row)).map(String).join(', ')}]`);
}

describe("'format' = 'debezium-json'", () => {
  it('is a retract changelog: a group aggregate over it gives the exact changelog (embedded)', async () => {
    const run = await runEmbeddedSql(AGG, { parallelism: 1, batchSize: 1 });
    expect(changelog(AGG, run.changes)).toEqual([
      '+I[a, 10, 1]',
      '-U[a, 10, 1]',
      '+U[a, 30, 2]',
      '+I[b, 5, 1]',
      '-U[a, 30, 2]',
      '+U[a, 20, 1]',
      '-U[a, 20, 1]',
      '+U[a, 50, 2]',
      '-U[a, 50, 2]',
      '+U[a, 30, 1]',
      '-D[b, 5, 1]',
      '+I[c, 5, 1]',
    ]);
    expect(run.rows).toEqual(['{"category":"a","total":30,"n":1}', '{"category":"c","total":5,"n":1}']);
    expect(run.deadLetters).toEqual([
      'products.jsonl:6: unknown Debezium op "x" (expected c, r, u or d)',
      "products.jsonl:7: Debezium 'u' event without 'before' (set the source table's REPLICA IDENTITY to FULL, as Flink requires)",
      'products.jsonl:8: invalid JSON (Unexpected token \'o\', "not json" is not valid JSON): not json',
    ]);
  });

  it('feeds a Top-N that follows the updates and deletes', async () => {
    const run = await runEmbeddedSql(TOP1, { parallelism: 1, batchSize: 1 });
    expect(run.rows).toEqual(['{"id":1,"category":"a","price":30}', '{"id":3,"category":"c","price":5}']);
    expect(changelog(TOP1, run.changes)).toEqual([
      // Without the rank number in the output a new top row is -D old, +I new, as in Flink.
      '+I[1, a, 10]',
      '-D[1, a, 10]',
      '+I[2, a, 20]',
      '+I[3, b, 5]',
      '-D[2, a, 20]',
      '+I[1, a, 30]',
      '-D[3, b, 5]',
      '+I[3, c, 5]',
    ]);
  });

  it('gives the same results on the AWS runtime (change events through Kinesis, state in DynamoDB)', async () => {
    const agg = await runLocalSql(AGG, { parallelism: 1, batchSize: 1 });
    expect(agg.rows).toEqual(['{"category":"a","total":30,"n":1}', '{"category":"c","total":5,"n":1}']);
    expect(agg.deadLetters.length).toBe(3);
    // The source keeps one shard (a key's changes stay in order); the Top-N runs on two.
    const top = await runLocalSql(TOP1, { parallelism: 2, batchSize: 2 });
    expect(compileSql(TOP1).pipeline.jobGraph({ parallelism: 2 }).sources[0]!.parallelism).toBe(1);
    expect(top.rows).toEqual(['{"id":1,"category":"a","price":30}', '{"id":3,"category":"c","price":5}']);
  }, 120_000);
});
