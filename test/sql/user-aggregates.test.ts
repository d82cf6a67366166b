/**
 * Aggregate user functions (`CREATE FUNCTION … AS 'module.ts#export'` of an aggregateFunction)
 * on both runtimes: several arguments, DISTINCT and FILTER in GROUP BY aggregation, and TUMBLE,
 * HOP, CUMULATE and SESSION window aggregation — on the AWS runtime the accumulators live in
 * DynamoDB state between invocations as plain JSON.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { FUNCTIONS } from './conformance/functions.ts';
import { sqlError } from './helpers.ts';
import { inputDir, runEmbeddedSql, runLocalSql } from './run-both.ts';

const files = inputDir('user-aggregates');
afterAll(() => files.cleanup());

const ts = (m: number): string => `2024-01-01 08:${String(m).padStart(2, '0')}:00.000`;
const bids = files.file('bids', [
  { t: ts(1), k: 'x', v: 3, w: 2 },
  { t: ts(4), k: 'y', v: 2, w: 1 },
  { t: ts(6), k: 'x', v: 5, w: 2 },
  { t: ts(9), k: 'y', v: 1, w: 1 },
  { t: ts(12), k: 'x', v: 4, w: 2 },
  { t: ts(14), k: 'y', v: 6, w: 1 },
  { t: ts(18), k: 'x', v: 3, w: 2 },
  { t: ts(31), k: 'y', v: 7, w: 1 },
]);

const DDL = `CREATE TABLE bids (t TIMESTAMP(3), k STRING, v BIGINT, w INT, WATERMARK FOR t AS t - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '${bids}', 'format' = 'json');
CREATE FUNCTION weighted_avg AS 'weighted-avg.ts#weightedAvg';
CREATE FUNCTION my_avg AS 'avg.ts#myAvg';
`;

async function both(sql: string): Promise<string[]> {
  const embedded = (await runEmbeddedSql(`${DDL}${sql}`, { functions: FUNCTIONS })).rows;
  const local = (await runLocalSql(`${DDL}${sql}`, { functions: FUNCTIONS })).rows;
  expect(local).toEqual(embedded);
  return embedded;
}

describe('aggregate user functions, on both runtimes', () => {
  it('GROUP BY with two arguments, DISTINCT and FILTER', async () => {
    expect(await both('SELECT k, weighted_avg(v, w) AS wa, my_avg(DISTINCT CAST(w AS DOUBLE)) AS dw, my_avg(CAST(v AS DOUBLE)) FILTER (WHERE v > 2) AS big FROM bids GROUP BY k')).toEqual([
      '{"k":"x","wa":3,"dw":2,"big":3.75}',
      '{"k":"y","wa":4,"dw":1,"big":6.5}',
    ]);
  }, 120_000);

  it('TUMBLE without merge, HOP and CUMULATE with merge (merged slices), SESSION with merge', async () => {
    expect(await both(`SELECT window_start, k, my_avg(CAST(v AS DOUBLE)) AS a FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(t), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end, k`)).toEqual([
      `{"window_start":"${ts(0)}","k":"x","a":4}`,
      `{"window_start":"${ts(0)}","k":"y","a":1.5}`,
      `{"window_start":"${ts(10)}","k":"x","a":3.5}`,
      `{"window_start":"${ts(10)}","k":"y","a":6}`,
      `{"window_start":"${ts(30)}","k":"y","a":7}`,
    ]);
    const hop = `SELECT window_start, weighted_avg(v, w) AS wa FROM TABLE(HOP(TABLE bids, DESCRIPTOR(t), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)) GROUP BY window_start, window_end`;
    expect(await both(hop)).toEqual([
      `{"window_start":"2024-01-01 07:55:00.000","wa":2}`,
      `{"window_start":"${ts(0)}","wa":3}`,
      `{"window_start":"${ts(5)}","wa":4}`,
      `{"window_start":"${ts(10)}","wa":4}`,
      `{"window_start":"${ts(15)}","wa":3}`,
      `{"window_start":"${ts(25)}","wa":7}`,
      `{"window_start":"${ts(30)}","wa":7}`,
    ]);
    const cumulate = `SELECT window_end, weighted_avg(v, w) AS wa FROM TABLE(CUMULATE(TABLE bids, DESCRIPTOR(t), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)) GROUP BY window_start, window_end`;
    expect(await both(cumulate)).toEqual([
      `{"window_end":"${ts(10)}","wa":3}`,
      `{"window_end":"${ts(15)}","wa":4}`,
      `{"window_end":"${ts(20)}","wa":4}`,
      `{"window_end":"${ts(35)}","wa":7}`,
      `{"window_end":"${ts(40)}","wa":7}`,
      `{"window_end":"${ts(5)}","wa":2}`,
    ].sort());
    const session = "SELECT window_start, k, weighted_avg(v, w) AS wa FROM TABLE(SESSION(TABLE bids PARTITION BY k, DESCRIPTOR(t), INTERVAL '7' MINUTES)) GROUP BY window_start, window_end, k";
    expect(await both(session)).toEqual([
      `{"window_start":"${ts(1)}","k":"x","wa":3}`,
      `{"window_start":"${ts(31)}","k":"y","wa":7}`,
      `{"window_start":"${ts(4)}","k":"y","wa":3}`,
    ].sort());
  }, 240_000);

  it('names the function and the method a window needs', () => {
    const session = "SELECT window_start, my_avg(CAST(v AS DOUBLE)) FROM TABLE(SESSION(TABLE bids, DESCRIPTOR(t), INTERVAL '7' MINUTES)) GROUP BY window_start, window_end";
    expect(sqlError(() => compileSql(`${DDL}${session}`, { functions: FUNCTIONS })).message).toBe(
      'line 4:22: the aggregate user function MY_AVG has no merge method: as in Flink, a SESSION window aggregation merges accumulators (of merged sessions), so declare merge(acc, other) in its aggregateFunction(…) (TUMBLE windows and GROUP BY do without)',
    );
  });
});
