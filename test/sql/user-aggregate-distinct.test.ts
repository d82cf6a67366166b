/**
 * `DISTINCT` over several arguments of an aggregate user function (`weighted_avg(DISTINCT v, w)`),
 * on both runtimes: as Flink's DistinctAggCodeGen keys its distinct map by the row of the
 * arguments, each distinct tuple reaches `accumulate` once — a tuple holding NULLs included — and
 * `retract` only when its last row goes; in GROUP BY (insert-only and updating input) and in a
 * TUMBLE window aggregation.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { aggregateFunction, type UserFunctionDefinition } from '../../shared/api/user-functions.ts';
import { FUNCTIONS } from './conformance/functions.ts';
import { inputDir, runEmbeddedSql, runLocalSql } from './run-both.ts';

const files = inputDir('user-aggregate-distinct');
afterAll(() => files.cleanup());

/** The tuples `accumulate` received and `retract` did not take back, sorted, as text. */
const pairs = aggregateFunction<{ seen: string[] }>('STRING', {
  name: 'pairs',
  input: ['BIGINT', 'INT'],
  createAccumulator: () => ({ seen: [] }),
  accumulate(acc, v, w) {
    acc.seen.push(`${String(v)}:${String(w)}`);
  },
  retract(acc, v, w) {
    const at = acc.seen.indexOf(`${String(v)}:${String(w)}`);
    if (at >= 0) acc.seen.splice(at, 1);
  },
  getValue: (acc) => [...acc.seen].sort().join(','),
});

const functions = new Map<string, UserFunctionDefinition>([...FUNCTIONS, ['pairs.ts#pairs', pairs]]);

const ts = (m: number): string => `2024-01-01 08:${String(m).padStart(2, '0')}:00.000`;
const rows = files.file('rows', [
  { t: ts(1), k: 'x', v: 3, w: 2 },
  { t: ts(2), k: 'x', v: 5, w: 2 },
  { t: ts(3), k: 'x', v: 4, w: 2 },
  { t: ts(4), k: 'x', v: 3, w: 2 },
  { t: ts(5), k: 'z', v: 1, w: null },
  { t: ts(6), k: 'z', v: 1, w: null },
  { t: ts(7), k: 'z', v: null, w: null },
  { t: ts(11), k: 'z', v: 2, w: 3 },
  { t: ts(12), k: 'z', v: 2, w: 3 },
  { t: ts(13), k: 'z', v: 2, w: 4 },
]);

const DDL = `CREATE TABLE r (t TIMESTAMP(3), k STRING, v BIGINT, w INT, WATERMARK FOR t AS t - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '${rows}', 'format' = 'json');
CREATE FUNCTION weighted_avg AS 'weighted-avg.ts#weightedAvg';
CREATE FUNCTION pairs AS 'pairs.ts#pairs';
`;

async function both(sql: string, ddl = DDL): Promise<string[]> {
  const embedded = (await runEmbeddedSql(`${ddl}${sql}`, { functions })).rows;
  const local = (await runLocalSql(`${ddl}${sql}`, { functions })).rows;
  expect(local).toEqual(embedded);
  return embedded;
}

describe('DISTINCT over several arguments of an aggregate user function, on both runtimes', () => {
  it('GROUP BY: each distinct tuple once, NULLs in it included', async () => {
    // x: (3,2) twice → distinct (3,2), (5,2), (4,2): 24 / 6 = 4 (all four rows: 30 / 8 → 3).
    expect(await both('SELECT k, weighted_avg(DISTINCT v, w) AS dwa, weighted_avg(v, w) AS wa, pairs(DISTINCT v, w) AS dp FROM r GROUP BY k')).toEqual([
      '{"k":"x","dwa":4,"wa":3,"dp":"3:2,4:2,5:2"}',
      '{"k":"z","dwa":2,"wa":2,"dp":"1:null,2:3,2:4,null:null"}',
    ]);
  }, 120_000);

  it('a FILTER keeps its own counts beside the unfiltered call', async () => {
    expect(await both('SELECT k, pairs(DISTINCT v, w) FILTER (WHERE v > 1) AS big, pairs(DISTINCT v, w) AS all_pairs FROM r GROUP BY k')).toEqual([
      '{"k":"x","big":"3:2,4:2,5:2","all_pairs":"3:2,4:2,5:2"}',
      '{"k":"z","big":"2:3,2:4","all_pairs":"1:null,2:3,2:4,null:null"}',
    ]);
  }, 120_000);

  it('TUMBLE window aggregation', async () => {
    expect(await both("SELECT window_start, k, pairs(DISTINCT v, w) AS dp FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(t), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end, k")).toEqual([
      `{"window_start":"${ts(0)}","k":"x","dp":"3:2,4:2,5:2"}`,
      `{"window_start":"${ts(0)}","k":"z","dp":"1:null,null:null"}`,
      `{"window_start":"${ts(10)}","k":"z","dp":"2:3,2:4"}`,
    ]);
  }, 120_000);

  it('an updating input retracts a tuple when its last row goes', async () => {
    const changes = files.file('changes', [
      { before: null, after: { k: 'x', v: 1, w: 1 }, op: 'c' },
      { before: null, after: { k: 'x', v: 1, w: 1 }, op: 'c' },
      { before: null, after: { k: 'x', v: 2, w: null }, op: 'c' },
      // One of the two (1, 1) rows goes: the tuple stays.
      { before: { k: 'x', v: 1, w: 1 }, after: null, op: 'd' },
      // The only (2, NULL) row becomes (3, 1): that tuple goes, the new one comes.
      { before: { k: 'x', v: 2, w: null }, after: { k: 'x', v: 3, w: 1 }, op: 'u' },
    ]);
    const ddl = `CREATE TABLE c (k STRING, v BIGINT, w INT) WITH ('connector' = 'filesystem', 'path' = '${changes}', 'format' = 'debezium-json');
CREATE FUNCTION pairs AS 'pairs.ts#pairs';
`;
    expect(await both('SELECT k, pairs(DISTINCT v, w) AS dp FROM c GROUP BY k', ddl)).toEqual(['{"k":"x","dp":"1:1,3:1"}']);
  }, 120_000);
});
