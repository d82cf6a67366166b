/**
 * The time-ordered queries Flink runs, on both runtimes (the embedded runtime, and the AWS runtime
 * on emulators: Kinesis exchanges, stage handlers, DynamoDB state and timers): the SESSION window
 * table function on its own (event and processing time), ORDER BY a time attribute without LIMIT
 * (a temporal sort), LIMIT without ORDER BY (over insert-only and updating input) and DISTINCT
 * aggregates OVER a window. Each gives the same result on both, worked out by hand.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { sqlError } from './helpers.ts';
import { inputDir, runEmbeddedSql, runLocalSql, type SqlRun } from './run-both.ts';

const files = inputDir('time-order');
afterAll(() => files.cleanup());

const at = (s: number): string => `2024-01-01 00:00:${String(s).padStart(2, '0')}.000`;

// Clicks per user, out of order within the 2 s watermark delay; the last one arrives after its
// session (and its time) has been passed.
const clicks = files.file('clicks', [
  { u: 'a', n: 1, ts: at(1) },
  { u: 'b', n: 2, ts: at(2) },
  { u: 'a', n: 3, ts: at(4) },
  { u: 'a', n: 4, ts: at(3) },
  { u: 'b', n: 5, ts: at(9) },
  { u: 'a', n: 6, ts: at(12) },
  { u: 'b', n: 7, ts: at(10) },
  { u: 'a', n: 8, ts: at(20) },
  { u: 'a', n: 9, ts: at(2) },
]);

const CLICKS = `CREATE TABLE clicks (u STRING, n INT, ts TIMESTAMP(3), p AS PROCTIME(), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '${clicks}', 'format' = 'json', 'scan.parallelism' = '1');`;

/** Runs the script both ways; both must give `expected` (final rows as JSON texts). */
async function both(script: string, expected: readonly string[], parallelism = 2): Promise<[SqlRun, SqlRun]> {
  const embedded = await runEmbeddedSql(script, { parallelism });
  expect(embedded.rows).toEqual(expected);
  const local = await runLocalSql(script, { parallelism });
  expect(local.rows).toEqual(expected);
  return [embedded, local];
}

const json = (rows: readonly Record<string, unknown>[]): string[] => rows.map((r) => JSON.stringify(r)).sort();

describe('the SESSION window table function on its own', () => {
  it('gives each row its session once the session closes; the late row is dropped (and counted)', async () => {
    // Gap 3 s, per user. a: 1, 4, 3 → [1, 7); 12 → [12, 15); 20 → [20, 23); 2 comes when the
    // watermark is 18: its session [2, 5) closed long ago → late. b: 2 → [2, 5); 9, 10 → [9, 13).
    const script = `${CLICKS} SELECT u, n, window_start, window_end FROM TABLE(SESSION(TABLE clicks PARTITION BY u, DESCRIPTOR(ts), INTERVAL '3' SECOND))`;
    const s = (u: string, n: number, start: number, end: number) => ({ u, n, window_start: at(start), window_end: at(end) });
    const [embedded, local] = await both(script, json([s('a', 1, 1, 7), s('a', 3, 1, 7), s('a', 4, 1, 7), s('b', 2, 2, 5), s('a', 6, 12, 15), s('b', 5, 9, 13), s('b', 7, 9, 13), s('a', 8, 20, 23)]));
    // Each session's rows come out together in arrival order: a's first session is 1, 3, 4.
    for (const run of [embedded, local]) expect(run.changes.filter((c) => c.row.u === 'a').map((c) => c.row.n)).toEqual([1, 3, 4, 6, 8]);
  }, 120_000);

  it('by arrival time (a PROCTIME() attribute): a long gap keeps each user in one session', async () => {
    const script = `${CLICKS} SELECT u, COUNT(*) AS c, COUNT(DISTINCT window_start) AS sessions FROM TABLE(SESSION(TABLE clicks PARTITION BY u, DESCRIPTOR(p), INTERVAL '1' HOUR)) GROUP BY u`;
    await both(script, json([{ u: 'a', c: 6, sessions: 1 }, { u: 'b', c: 3, sessions: 1 }]));
  }, 120_000);
});

describe('ORDER BY a time attribute without LIMIT (a temporal sort)', () => {
  it('emits the rows in time order, ties by the next key, and drops the row behind the last time emitted', async () => {
    const script = `${CLICKS} SELECT n, ts FROM clicks ORDER BY ts, n DESC`;
    const [embedded, local] = await both(
      script,
      json([1, 2, 4, 3, 5, 7, 6, 8].map((n) => ({ n, ts: at(({ 1: 1, 2: 2, 3: 4, 4: 3, 5: 9, 6: 12, 7: 10, 8: 20 } as Record<number, number>)[n]!) }))),
    );
    // The order is the point: both runtimes emit exactly the sorted sequence.
    for (const run of [embedded, local]) expect(run.changes.map((c) => `${c.kind}${String(c.row.n)}`)).toEqual(['+I1', '+I2', '+I4', '+I3', '+I5', '+I7', '+I6', '+I8']);
  }, 120_000);

  it('by a PROCTIME() attribute: each millisecond sorted by the next key, every row out', async () => {
    await both(`${CLICKS} SELECT n FROM clicks ORDER BY p, u`, json([1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => ({ n }))));
  }, 120_000);

  it("rejects what Flink rejects, with Flink's message", () => {
    expect(sqlError(() => compileSql(`${CLICKS} SELECT n FROM clicks ORDER BY n`)).message).toMatch(/Sort on a non-time-attribute field is not supported/);
    expect(sqlError(() => compileSql(`${CLICKS} SELECT n FROM clicks ORDER BY ts DESC`)).message).toMatch(/Sort on a non-time-attribute field is not supported/);
    expect(sqlError(() => compileSql(`${CLICKS} SELECT u, COUNT(*) AS c, MAX(ts) AS t FROM clicks GROUP BY u ORDER BY c`)).message).toMatch(/Sort on a non-time-attribute field/);
    expect(sqlError(() => compileSql(`${CLICKS} SELECT n FROM clicks ORDER BY ts, p`)).message).toMatch(/PROCTIME\(\) attribute 'p' is supported as the first sort key only/);
  });
});

describe('LIMIT without ORDER BY', () => {
  it('the first rows to arrive, on one task', async () => {
    await both(`${CLICKS} SELECT n FROM clicks LIMIT 3 OFFSET 1`, json([2, 3, 4].map((n) => ({ n }))));
    await both(`${CLICKS} SELECT n FROM clicks ORDER BY p LIMIT 2`, json([1, 2].map((n) => ({ n }))));
  }, 120_000);

  it('over an updating input: a retracted row lets the next one in, as Flink retracts', async () => {
    // The counts per user come as +I a1, +I b1, then -U/+U pairs: a2, a3, b2, a4, b3, a5, a6.
    // LIMIT 1 keeps the first row to arrive; when it is retracted the next one in arrival order
    // takes its place, and an updated row arrives anew, behind the others.
    const [embedded, local] = await both(`${CLICKS} SELECT u, COUNT(*) AS c FROM clicks GROUP BY u LIMIT 1`, json([{ u: 'b', c: 3 }]), 1);
    for (const run of [embedded, local]) {
      expect(run.changes.map((c) => `${c.kind}${String(c.row.u)}${String(c.row.c)}`)).toEqual(['+Ia1', '-Da1', '+Ib1', '-Db1', '+Ia3', '-Da3', '+Ib2', '-Db2', '+Ia4', '-Da4', '+Ib3']);
    }
  }, 120_000);
});

describe('DISTINCT aggregates OVER a window', () => {
  it('count each value of the frame once', async () => {
    // Without order 7 (late for the OVER operator: its time is not after the watermark) and 9
    // (late). Two-row frames by time, a: [1] [1,4] [4,3] [3,6] [6,8]; b: [2] [2,5], over
    // n % 2 (distinct count) and n % 3 (distinct sum).
    const script = `${CLICKS} SELECT u, n, COUNT(DISTINCT MOD(n, 2)) OVER w AS d, SUM(DISTINCT MOD(n, 3)) OVER w AS s FROM clicks WHERE n <> 7
      WINDOW w AS (PARTITION BY u ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)`;
    const r = (u: string, n: number, d: number, s: number) => ({ u, n, d, s });
    await both(script, json([r('a', 1, 1, 1), r('a', 4, 2, 1), r('a', 3, 2, 1), r('a', 6, 2, 0), r('a', 8, 1, 2), r('b', 2, 1, 2), r('b', 5, 2, 2)]));
  }, 120_000);
});
