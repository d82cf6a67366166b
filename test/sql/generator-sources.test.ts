/**
 * Generator sources in SQL on both runtimes — `INSERT INTO … VALUES`, `SELECT` without FROM,
 * and the `datagen` connector (Flink's DataGen: sequences, random columns, a WATERMARK, bounded
 * by `number-of-rows` or by its first sequence): on the AWS runtime a producer puts their rows
 * into the source stream (shared/aws/generator/), and the final rows must equal the embedded
 * runtime's and the hand-worked results. An unbounded datagen table is refused by both, naming
 * the table and the option that bounds it.
 */
import { describe, expect, it } from 'vitest';
import { runEmbeddedSql, runLocalSql } from './run-both.ts';

/** Runs on both runtimes, checks they agree, returns the rows. */
async function both(sql: string, parallelism = 2): Promise<string[]> {
  const embedded = (await runEmbeddedSql(sql, { parallelism })).rows;
  const local = (await runLocalSql(sql, { parallelism })).rows;
  expect(local).toEqual(embedded);
  return embedded;
}

describe('generator sources (VALUES, datagen), on both runtimes', () => {
  it('INSERT INTO … VALUES and SELECT without FROM', async () => {
    expect(await both("CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'print'); INSERT INTO t VALUES (1, 'x'), (2, CAST(NULL AS STRING)), (3, 'z')")).toEqual([
      '{"a":1,"b":"x"}',
      '{"a":2,"b":null}',
      '{"a":3,"b":"z"}',
    ]);
    expect(await both("SELECT 1 + 1 AS two, UPPER('flink') AS up, CAST('2024-01-01 10:00:00' AS TIMESTAMP(3)) AS ts")).toEqual(['{"two":2,"up":"FLINK","ts":"2024-01-01 10:00:00.000"}']);
  }, 120_000);

  it('datagen sequences with a WATERMARK: TUMBLE windows close at the end of the table', async () => {
    // ts is 2026-01-01 00:00:00 plus one second per row; amount runs 10, 11, …; 12 rows.
    const sql = `CREATE TABLE orders (id BIGINT, amount INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
        'connector' = 'datagen', 'number-of-rows' = '12',
        'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100',
        'fields.amount.kind' = 'sequence', 'fields.amount.start' = '10', 'fields.amount.end' = '1000');
      SELECT window_start, COUNT(*) AS n, SUM(amount) AS total
      FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end`;
    expect(await both(sql)).toEqual([
      '{"window_start":"2026-01-01 00:00:00.000","n":5,"total":60}',
      '{"window_start":"2026-01-01 00:00:05.000","n":5,"total":85}',
      '{"window_start":"2026-01-01 00:00:10.000","n":2,"total":41}',
    ]);
  }, 120_000);

  it('datagen ends with its first sequence; random columns are the same rows on both runtimes', async () => {
    const sql = `CREATE TABLE g (id INT, v INT, s STRING, d DOUBLE, f BOOLEAN) WITH ('connector' = 'datagen',
        'fields.id.kind' = 'sequence', 'fields.id.start' = '5', 'fields.id.end' = '24', 'fields.v.min' = '1', 'fields.v.max' = '3', 'fields.s.length' = '4');
      SELECT * FROM g`;
    const rows = await both(sql);
    expect(rows.map((r) => (JSON.parse(r) as { id: number }).id).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => 5 + i));
    for (const r of rows.map((text) => JSON.parse(text) as { v: number; s: string; d: number; f: boolean })) {
      expect([1, 2, 3]).toContain(r.v);
      expect(r.s).toMatch(/^[a-z]{4}$/);
      expect(r.d >= 0 && r.d < 1000).toBe(true);
      expect(typeof r.f).toBe('boolean');
    }
    expect(await both(`${sql.replace('SELECT * FROM g', '')} SELECT v, COUNT(*) AS n FROM g GROUP BY v`, 1)).toEqual(
      [1, 2, 3].map((v) => ({ v, n: rows.filter((r) => (JSON.parse(r) as { v: number }).v === v).length })).filter((r) => r.n > 0).map((r) => JSON.stringify(r)),
    );
  }, 120_000);

  it('a bad VALUES row is dead-lettered at its position, the others go on', async () => {
    const sql = "SELECT CAST(s AS INT) AS n FROM (VALUES ('1'), ('x'), ('3')) AS t (s)";
    const embedded = await runEmbeddedSql(sql);
    expect(embedded.rows).toEqual(['{"n":1}', '{"n":3}']);
    expect(embedded.deadLetters).toEqual([expect.stringMatching(/^values_1#2: .*cannot cast 'x' to INT/)]);
    const local = await runLocalSql(sql);
    expect(local.rows).toEqual(embedded.rows);
    expect(local.deadLetters).toEqual([expect.stringMatching(/cannot cast 'x' to INT/)]);
  }, 120_000);

  it('refuses an unbounded datagen table on both, naming it and the option that bounds it', async () => {
    const sql = "CREATE TABLE clicks (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '5'); SELECT * FROM clicks";
    const message =
      "source 'clicks' is unbounded (a datagen table without 'number-of-rows'); flambda local reads bounded sources only: set 'number-of-rows' in its WITH options (or 'fields.<column>.end' of a sequence column). " +
      'Deployed with StreamPipeline, a producer puts its rows at 5 rows per second for ever';
    await expect(runLocalSql(sql)).rejects.toThrow(message);
    await expect(runEmbeddedSql(sql)).rejects.toThrow(message.replace('flambda local', 'the embedded runtime (flambda run, flambda sql)'));
  }, 120_000);
});
