/**
 * Keys that are expressions, as Flink computes them in a Calc below the operator: a Top-N
 * ordered by `price * qty` and a window aggregate grouped by `UPPER(k)`, on both runtimes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { inputDir, runEmbeddedSql, runLocalSql } from './run-both.ts';

const files = inputDir('key-expressions');
afterAll(() => files.cleanup());

const sales = files.file('sales', [
  { id: 1, k: 'a', price: 2, qty: 5, ts: '2024-01-01 10:00:00.000' },
  { id: 2, k: 'A', price: 4, qty: 1, ts: '2024-01-01 10:01:00.000' },
  { id: 3, k: 'b', price: 1, qty: 3, ts: '2024-01-01 10:02:00.000' },
  { id: 4, k: 'a', price: 3, qty: 4, ts: '2024-01-01 10:12:00.000' },
]);
const TABLE = `CREATE TABLE sales (id BIGINT, k STRING, price INT, qty INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = '${sales}', 'format' = 'json');\n`;

describe('expression keys', () => {
  it('a Top-N ordered by price * qty per UPPER(k) (both runtimes)', async () => {
    // A: 10, 4, 12 → id 4; B: 3 → id 3.
    const sql = `${TABLE}SELECT id FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY UPPER(k) ORDER BY price * qty DESC) AS rn FROM sales) WHERE rn = 1`;
    const expected = ['{"id":3}', '{"id":4}'];
    expect((await runEmbeddedSql(sql)).rows).toEqual(expected);
    expect((await runLocalSql(sql)).rows).toEqual(expected);
  });

  it('a window aggregate grouped by UPPER(k) (both runtimes)', async () => {
    const sql = `${TABLE}SELECT window_start, UPPER(k) AS uk, SUM(qty) AS q FROM TABLE(TUMBLE(TABLE sales, DESCRIPTOR(ts), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end, UPPER(k)`;
    const expected = ['{"window_start":"2024-01-01 10:00:00.000","uk":"A","q":6}', '{"window_start":"2024-01-01 10:00:00.000","uk":"B","q":3}', '{"window_start":"2024-01-01 10:10:00.000","uk":"A","q":4}'];
    expect((await runEmbeddedSql(sql)).rows).toEqual(expected);
    expect((await runLocalSql(sql)).rows).toEqual(expected);
  });
});
