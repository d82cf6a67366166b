/**
 * Processing time beyond the window aggregate, on both runtimes under a controlled clock (the
 * runtimes' `clock`, which processing-time operators and a materialized PROCTIME() read):
 *
 * - a TUMBLE / HOP / CUMULATE table function alone over a PROCTIME() attribute assigns each row
 *   its windows from the time it is processed, cut on the session zone's wall clock; window_time
 *   is the attribute materialized after the function, as Flink's PROCTIME_MATERIALIZE(window_time);
 * - `ORDER BY pt DESC LIMIT n` (and any sort by a PROCTIME() attribute but ascending alone) is a
 *   Top-N over the attribute materialized: the latest rows to arrive, as an updating result;
 * - SESSION windows: window Top-N, deduplication and joins straight after the table function are
 *   refused as in Flink, and a window Top-N after a SESSION window aggregation runs;
 * - a window Top-N straight after a TUMBLE / HOP / CUMULATE table function over a PROCTIME()
 *   attribute, or after a processing-time window aggregate, fires each window when the
 *   processing-time clock passes its end (Flink's window rank over processing time).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { scalarFunction, type UserFunctionDefinition } from '../../shared/api/user-functions.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { sqlError } from './helpers.ts';
import { inputDir, runEmbeddedSql, runLocalSql, type SqlRun, type SqlRunOptions } from './run-both.ts';

const files = inputDir('proctime-windows');
afterAll(() => files.cleanup());

const bids = files.file('bids', [
  { item: 'a', price: 3 },
  { item: 'b', price: 5 },
  { item: 'c', price: 5 },
  { item: 'd', price: 1 },
  { item: 'e', price: 4 },
]);
const BID = `CREATE TABLE Bid (item STRING, price INT, pt AS PROCTIME()) WITH ('connector' = 'filesystem', 'path' = '${bids}', 'format' = 'json', 'scan.parallelism' = '1');`;

// 2024-01-01 10:07:30 UTC, 19:07:30 in Tokyo.
const T0 = Date.UTC(2024, 0, 1, 10, 7, 30);

/**
 * A clock that starts at T0 and moves 1 ms per read: every read is a distinct, later time, and a
 * run reads it far fewer than 150 000 times, so every row is processed in the local window
 * [19:05, 19:10) whatever the runtime's number of reads.
 */
function creepingClock(): { clock: () => number; last: () => number } {
  let now = T0 - 1;
  return { clock: () => ++now, last: () => now };
}

/** Runs on the embedded runtime and the AWS runtime on emulators, each with a fresh clock. */
async function both(sql: string, options: Omit<SqlRunOptions, 'clock'> = {}): Promise<[SqlRun, SqlRun]> {
  const embedded = await runEmbeddedSql(sql, { batchSize: 1, ...options, clock: creepingClock().clock });
  const local = await runLocalSql(sql, { batchSize: 1, ...options, clock: creepingClock().clock });
  return [embedded, local];
}

const changelog = (run: SqlRun): string[] => run.changes.map((c: ChangeRow) => `${c.kind}${JSON.stringify(c.row)}`);
const local = (hhmm: string): string => `2024-01-01 ${hhmm}:00.000`;

describe('a TUMBLE / HOP / CUMULATE table function alone over a PROCTIME() attribute, on both runtimes', () => {
  it('TUMBLE into a sink: windows from the processing time on the zone’s wall clock', async () => {
    const sql = `SET 'table.local-time-zone' = 'Asia/Tokyo';
${BID}
SELECT item, window_start, window_end FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(pt), INTERVAL '5' MINUTES));`;
    const row = (item: string): string => JSON.stringify({ item, window_start: local('19:05'), window_end: local('19:10') });
    for (const run of await both(sql)) expect(run.rows).toEqual(['a', 'b', 'c', 'd', 'e'].map(row));
  }, 120_000);

  it('HOP through a filter on the window and a projection: a row in each of its windows', async () => {
    const sql = `SET 'table.local-time-zone' = 'Asia/Tokyo';
${BID}
SELECT item, window_start, window_end FROM TABLE(HOP(TABLE Bid, DESCRIPTOR(pt), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)) WHERE price > 3 AND window_start >= TIMESTAMP '2024-01-01 19:05:00';`;
    const row = (item: string): string => JSON.stringify({ item, window_start: local('19:05'), window_end: local('19:15') });
    for (const run of await both(sql)) expect(run.rows).toEqual(['b', 'c', 'e'].map(row));
  }, 120_000);

  it('CUMULATE into a regular aggregate: each row counted once per cumulating window', async () => {
    const sql = `SET 'table.local-time-zone' = 'Asia/Tokyo';
${BID}
SELECT window_start, window_end, COUNT(*) AS bids, SUM(price) AS total FROM (SELECT * FROM TABLE(CUMULATE(TABLE Bid, DESCRIPTOR(pt), INTERVAL '5' MINUTES, INTERVAL '15' MINUTES))) GROUP BY window_start, window_end;`;
    // 19:07:30 is in the cumulating windows [19:00, 19:10) and [19:00, 19:15) of the hour's quarter.
    for (const run of await both(sql)) {
      expect(run.rows).toEqual([
        JSON.stringify({ window_start: local('19:00'), window_end: local('19:10'), bids: 5, total: 18 }),
        JSON.stringify({ window_start: local('19:00'), window_end: local('19:15'), bids: 5, total: 18 }),
      ]);
    }
  }, 120_000);

  it('window_time and the attribute itself are the materialized processing time (TIMESTAMP_LTZ(3))', async () => {
    const sql = `${BID}
SELECT item, pt, window_start, window_end, window_time FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(pt), INTERVAL '1' MINUTE));`;
    const sink = compileSql(sql).pipeline.jobGraph({ parallelism: 1 }).sinks[0]!;
    const ltz = { root: 'TIMESTAMP_LTZ', nullable: false, precision: 3 };
    expect(sink.schema.fields.map((f) => [f.name, f.type, f.timeAttribute])).toEqual([
      ['item', { root: 'STRING', nullable: true }, undefined],
      ['pt', ltz, undefined],
      ['window_start', { root: 'TIMESTAMP', nullable: false, precision: 3 }, undefined],
      ['window_end', { root: 'TIMESTAMP', nullable: false, precision: 3 }, undefined],
      ['window_time', ltz, undefined],
    ]);
    for (const runner of [runEmbeddedSql, runLocalSql]) {
      const { clock, last } = creepingClock();
      const run = await runner(sql, { batchSize: 1, clock });
      expect(run.changes.map((c) => c.row.item).sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
      for (const { row } of run.changes) {
        // In UTC: the window [10:07, 10:08) holds the time the function processed the row, read
        // after pt was materialized and before window_time was.
        expect([row.window_start, row.window_end]).toEqual([Date.UTC(2024, 0, 1, 10, 7), Date.UTC(2024, 0, 1, 10, 8)]);
        const [pt, time] = [row.pt as number, row.window_time as number];
        expect(pt).toBeGreaterThanOrEqual(T0);
        expect(time).toBeGreaterThan(pt);
        expect(time).toBeLessThanOrEqual(last());
      }
    }
  }, 120_000);

  it('on a clock that crosses windows, each row’s window holds the time between its pt and window_time', async () => {
    let now = Date.UTC(2024, 0, 1, 10, 0, 0) - 300;
    const sql = `${BID}
SELECT item, pt, window_start, window_end, window_time FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(pt), INTERVAL '1' SECOND));`;
    const run = await runEmbeddedSql(sql, { batchSize: 1, clock: () => (now += 300) });
    expect(run.changes).toHaveLength(5);
    for (const { row } of run.changes) {
      const [pt, start, end, time] = [row.pt, row.window_start, row.window_end, row.window_time] as number[];
      expect(end! - start!).toBe(1000);
      expect(start! % 1000).toBe(0);
      expect(pt!).toBeLessThan(end!);
      expect(time!).toBeGreaterThanOrEqual(start!);
    }
    expect(new Set(run.changes.map((c) => c.row.window_start)).size).toBeGreaterThan(1);
  });

  it('refuses a window join of two of them, as Flink does (its window join takes event-time windows only)', () => {
    const windows = "(SELECT * FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(pt), INTERVAL '1' MINUTE)))";
    const join = (extra: string): string => `${BID}\nSELECT L.item FROM ${windows} L JOIN ${windows} R ON L.window_start = R.window_start AND L.window_end = R.window_end${extra};`;
    expect(sqlError(() => compileSql(join(' AND L.item = R.item')).pipeline.jobGraph({ parallelism: 1 })).message).toMatch(
      /^line 2:\d+: Processing time Window Join is not supported yet, as in Flink \(its window join takes event-time windows only\)$/,
    );
    // Without both window columns in the condition it is no window join: a regular join of the rows.
    expect(compileSql(`${BID}\nSELECT L.item FROM ${windows} L JOIN ${windows} R ON L.window_start = R.window_start;`).pipeline.explain()).toContain('Join(joinType=[InnerJoin]');
  });
});

describe('ORDER BY a PROCTIME() attribute with LIMIT: a Top-N over its materialized value, on both runtimes', () => {
  it('DESC LIMIT 3: the latest three rows to arrive, as an updating result', async () => {
    const [embedded, aws] = await both(`${BID}\nSELECT item FROM Bid ORDER BY pt DESC LIMIT 3;`, { parallelism: 1 });
    // Flink's AppendOnlyTopNFunction: the row pushed out leaves (-D) before the new one comes in.
    const expected = ['+I{"item":"a"}', '+I{"item":"b"}', '+I{"item":"c"}', '-D{"item":"a"}', '+I{"item":"d"}', '-D{"item":"b"}', '+I{"item":"e"}'];
    expect(changelog(embedded)).toEqual(expected);
    expect(changelog(aws)).toEqual(expected);
  }, 120_000);

  it('DESC with an OFFSET, at parallelism 2: the rows ranked 2 and 3 by arrival, latest first', async () => {
    for (const run of await both(`${BID}\nSELECT item, price FROM Bid ORDER BY pt DESC LIMIT 2 OFFSET 1;`)) {
      expect(run.rows).toEqual(['{"item":"c","price":5}', '{"item":"d","price":1}']);
    }
  }, 120_000);

  it('as a later sort key: a tie on price goes to the latest row (DESC) or the first (ASC)', async () => {
    for (const run of await both(`${BID}\nSELECT item FROM Bid ORDER BY price DESC, pt DESC LIMIT 1;`)) expect(run.rows).toEqual(['{"item":"c"}']);
    for (const run of await both(`${BID}\nSELECT item FROM Bid ORDER BY price DESC, pt ASC LIMIT 1;`)) expect(run.rows).toEqual(['{"item":"b"}']);
  }, 120_000);

  it('selected, the attribute is the value it was ranked by (the latest times, at its place)', async () => {
    const { clock } = creepingClock();
    const run = await runEmbeddedSql(`${BID}\nSELECT pt, item FROM Bid ORDER BY pt DESC LIMIT 2;`, { batchSize: 1, clock });
    const rows = run.changes.filter((c) => c.kind === '+I').map((c) => c.row);
    expect(rows.map((r) => Object.keys(r))).toEqual(Array(5).fill(['pt', 'item']));
    const kept = new Map(rows.map((r) => [r.item, r.pt as number]));
    const final = run.rows.map((r) => JSON.parse(r) as { item: string });
    expect(final.map((r) => r.item).sort()).toEqual(['d', 'e']);
    expect(kept.get('e')!).toBeGreaterThan(kept.get('d')!);
    expect(kept.get('d')!).toBeGreaterThan(kept.get('c')!);
  });

  it('through a view’s PROCTIME() select item and SELECT *: the latest row, with its time at its place', async () => {
    const { clock, last } = creepingClock();
    const run = await runEmbeddedSql(`${BID}\nCREATE VIEW v AS SELECT item, PROCTIME() AS p, price FROM Bid;\nSELECT * FROM v ORDER BY p DESC LIMIT 1;`, { batchSize: 1, clock });
    // A Top-1 is Flink's FastTop1Function: the new first row updates the old one.
    expect(run.changes.map((c) => `${c.kind} ${String(c.row.item)}`)).toEqual(['+I a', '-U a', '+U b', '-U b', '+U c', '-U c', '+U d', '-U d', '+U e']);
    const final = run.changes.at(-1)!.row;
    // Flink's declared order, sorted or not: the attribute at its place in the view's select list.
    const unsorted = compileSql(`${BID}\nCREATE VIEW v AS SELECT item, PROCTIME() AS p, price FROM Bid;\nSELECT * FROM v;`).pipeline.jobGraph({ parallelism: 1 }).sinks[0]!;
    expect(unsorted.schema.fields.map((f) => f.name)).toEqual(['item', 'p', 'price']);
    expect(Object.keys(final)).toEqual(['item', 'p', 'price']);
    expect(final.p as number).toBeGreaterThanOrEqual(T0);
    expect(final.p as number).toBeLessThanOrEqual(last());
  });

  it('ASC alone stays the first rows to arrive (Flink’s Limit, no Top-N)', () => {
    const explain = compileSql(`${BID}\nSELECT item FROM Bid ORDER BY pt LIMIT 2;`).pipeline.explain();
    expect(explain).toContain('Limit(');
    expect(explain).not.toContain('Rank(');
    const desc = compileSql(`${BID}\nSELECT item FROM Bid ORDER BY pt DESC LIMIT 2;`).pipeline.explain();
    expect(desc).toContain('Rank(strategy=[AppendFastStrategy], rankType=[ROW_NUMBER], rankRange=[rankStart=1, rankEnd=2], partitionBy=[], orderBy=[$order0 DESC]');
    expect(desc).toContain('Calc(select=[item, CURRENT_TIMESTAMP() AS $order0])');
  });
});

const clicks = files.file('clicks', [
  { u: 'a', ts: '2024-01-01 08:00:00', n: 1 },
  { u: 'd', ts: '2024-01-01 08:00:00', n: 3 },
  { u: 'b', ts: '2024-01-01 08:01:00', n: 4 },
  { u: 'a', ts: '2024-01-01 08:03:00', n: 2 },
  { u: 'c', ts: '2024-01-01 08:04:00', n: 9 },
  { u: 'd', ts: '2024-01-01 08:03:00', n: 4 },
  { u: 'b', ts: '2024-01-01 08:20:00', n: 3 },
  { u: 'a', ts: '2024-01-01 08:21:00', n: 5 },
  { u: 'z', ts: '2024-01-01 09:00:00', n: 0 },
]);
const CLICKS = `CREATE TABLE clicks (u STRING, ts TIMESTAMP(3), n INT, WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = '${clicks}', 'format' = 'json', 'scan.parallelism' = '1');`;
const SESSIONS = "TABLE(SESSION(TABLE clicks PARTITION BY u, DESCRIPTOR(ts), INTERVAL '5' MINUTES))";

describe('SESSION windows: what Flink refuses straight after the table function, and Top-N after the aggregate', () => {
  it('refuses window Top-N, deduplication and joins directly after a SESSION table function, naming Flink’s limitation', () => {
    const error = (query: string): string => sqlError(() => compileSql(`${CLICKS}\n${query};`).pipeline.jobGraph({ parallelism: 1 })).message;
    expect(error(`SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY n DESC) AS r FROM ${SESSIONS}) WHERE r <= 2`)).toBe(
      'line 2:26: window Top-N directly after a SESSION window table function is not supported, as in Flink (window-topn "Limitation": TUMBLE, HOP and CUMULATE only); aggregate the sessions first (GROUP BY window_start, window_end), then rank the aggregate',
    );
    expect(error(`SELECT u, n FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, u ORDER BY ts DESC) AS r FROM ${SESSIONS}) WHERE r = 1`)).toBe(
      'line 2:29: window deduplication directly after a SESSION window table function is not supported, as in Flink (window-deduplication "Limitation": TUMBLE, HOP or CUMULATE only)',
    );
    expect(error(`SELECT L.n, R.n FROM ${SESSIONS} L JOIN ${SESSIONS} R ON L.u = R.u AND L.window_start = R.window_start AND L.window_end = R.window_end`)).toMatch(
      /^line 2:\d+: window join directly after a SESSION window table function is not supported, as in Flink \(window-join "Limitation": TUMBLE, HOP or CUMULATE only\)$/,
    );
  });

  it('runs a window Top-N after a SESSION window aggregation: the top session per window', async () => {
    const sql = `${CLICKS}
SELECT window_start, window_end, u, total, rownum FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY total DESC) AS rownum FROM (
    SELECT window_start, window_end, u, SUM(n) AS total FROM ${SESSIONS} GROUP BY window_start, window_end, u))
WHERE rownum <= 1;`;
    expect(compileSql(sql).pipeline.explain()).toContain('WindowRank(window=[SESSION(win_start=[window_start], win_end=[window_end], gap=[5 min], partition keys=[u])]');
    const row = (start: string, end: string, u: string, total: number): string => JSON.stringify({ window_start: `2024-01-01 ${start}:00.000`, window_end: `2024-01-01 ${end}:00.000`, u, total, rownum: 1 });
    // Sessions: a [08:00, 08:08) 3 and d [08:00, 08:08) 7 share a window, where d ranks first;
    // b [08:01, 08:06) 4, c [08:04, 08:09) 9, b [08:20, 08:25) 3, a [08:21, 08:26) 5 and
    // z [09:00, 09:05) 0 (fired by the end of the input, as a bounded source's last watermark
    // does in Flink) are each alone in theirs.
    const embedded = await runEmbeddedSql(sql, { batchSize: 1 });
    const aws = await runLocalSql(sql, { batchSize: 1 });
    const expected = [row('08:00', '08:08', 'd', 7), row('08:01', '08:06', 'b', 4), row('08:04', '08:09', 'c', 9), row('08:20', '08:25', 'b', 3), row('08:21', '08:26', 'a', 5), row('09:00', '09:05', 'z', 0)];
    expect(embedded.rows).toEqual(expected);
    expect(aws.rows).toEqual(embedded.rows);
  }, 120_000);
});

// Each row says when it arrives: the filter `arrive(at)` moves the clock to T1 + at minutes before
// the table function (or the window aggregate) reads it, on one task so that every operator sees
// the rows in that order (the window of a row is then exact on both runtimes).
const T1 = Date.UTC(2024, 0, 1, 10, 0, 0);
const arrivals = files.file('arrivals', [
  { item: 'a', price: 3, at: 1 },
  { item: 'b', price: 5, at: 2 },
  { item: 'c', price: 4, at: 3 },
  { item: 'd', price: 1, at: 6 },
  { item: 'e', price: 9, at: 7 },
  { item: 'f', price: 2, at: 8 },
  { item: 'g', price: 7, at: 11 },
  { item: 'h', price: 8, at: 11.5 },
]);
const ARRIVALS = `CREATE TABLE Arrival (item STRING, price INT, at DOUBLE, pt AS PROCTIME()) WITH ('connector' = 'filesystem', 'path' = '${arrivals}', 'format' = 'json', 'scan.parallelism' = '1');
CREATE FUNCTION arrive AS 'clock.ts#arrive';`;

/** Runs on both runtimes, at parallelism 1, with the clock the rows move. */
async function arriving(sql: string): Promise<[SqlRun, SqlRun]> {
  const runs: SqlRun[] = [];
  for (const run of [runEmbeddedSql, runLocalSql]) {
    let now = T1;
    const functions = new Map<string, UserFunctionDefinition>([
      ['clock.ts#arrive', scalarFunction('BOOLEAN', { input: ['DOUBLE'] }, (at) => ((now = T1 + (at as number) * 60_000), true))],
    ]);
    runs.push(await run(sql, { functions, parallelism: 1, batchSize: 1, clock: () => now }));
  }
  return runs as [SqlRun, SqlRun];
}

/** `HH:MM` on 2024-01-01 (UTC, the session zone). */
const at = (hhmm: string): number => Date.UTC(2024, 0, 1, Number(hhmm.slice(0, 2)), Number(hhmm.slice(3)));
/** The changelog without window_time (the time each row comes out). */
const ranked = (run: SqlRun): string[] => run.changes.map(({ kind, row: { window_time: _time, ...rest } }) => `${kind}${JSON.stringify(rest)}`);
const row = (start: string, end: string, item: string, price: number, r: number): string => `+I${JSON.stringify({ window_start: at(start), window_end: at(end), item, price, r })}`;

describe('a window Top-N over processing-time windows fires each window when the clock passes its end, on both runtimes', () => {
  const topN = (tvf: string, n: number): string => `${ARRIVALS}
SELECT window_start, window_end, item, price, r, window_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS r
  FROM TABLE(${tvf}) WHERE arrive(at))
WHERE r <= ${n};`;

  it('TUMBLE: the top 2 of each 5-minute window, in window order (the last one when processing time ends with the input)', async () => {
    const sql = topN("TUMBLE(TABLE Arrival, DESCRIPTOR(pt), INTERVAL '5' MINUTES)", 2);
    const program = compileSql(sql, { functions: new Map([['clock.ts#arrive', scalarFunction('BOOLEAN', { input: ['DOUBLE'] }, () => true)]]) });
    expect(program.pipeline.explain()).toContain('WindowRank(window=[TUMBLE(win_start=[window_start], win_end=[window_end], size=[5 min])], rankType=[ROW_NUMBER], rankRange=[rankStart=1, rankEnd=2]');
    expect(program.pipeline.explain()).toContain('WindowTableFunction(window=[TUMBLE(time_col=[PROCTIME(pt)], size=[5 min])])');
    // One task runs the filter, the table function and the rank in turn, so each row's window is
    // the one its arrival says on both runtimes.
    const stages = program.pipeline.jobGraph({ parallelism: 1 }).stages;
    expect(stages.map((s) => s.operators.map((o) => o.type))).toEqual([['Calc', 'WindowTableFunction', 'WindowRank', 'Calc']]);
    expect(stages[0]!.operators.find((o) => o.type === 'WindowRank')?.spec).toMatchObject({ timeDomain: 'processing' });
    const [embedded, aws] = await arriving(sql);
    for (const run of [embedded, aws]) {
      expect(ranked(run)).toEqual([
        row('10:00', '10:05', 'b', 5, 1),
        row('10:00', '10:05', 'c', 4, 2),
        row('10:05', '10:10', 'e', 9, 1),
        row('10:05', '10:10', 'f', 2, 2),
        row('10:10', '10:15', 'h', 8, 1),
        row('10:10', '10:15', 'g', 7, 2),
      ]);
      // window_time is the time a row comes out: never before its window ended on the clock,
      // unless processing time ended with the input first (the clock reads 10:11:30 then, and
      // the window [10:10, 10:15) fires with it).
      const last = at('10:11') + 30_000;
      for (const c of run.changes) {
        expect(c.row.window_time as number).toBeGreaterThanOrEqual(Math.min(c.row.window_end as number, last));
        expect(c.row.window_time as number).toBeLessThanOrEqual(last);
      }
    }
    // The embedded runtime ticks processing time between its batches: the first window fired on
    // the clock, before g arrived at 10:11 (the AWS runtime here ticks once its input is read).
    expect(embedded.changes[0]!.row.window_time as number).toBeLessThan(at('10:11'));
  }, 120_000);

  it('HOP: the top row of each 10-minute window sliding by 5, a row ranked in each of its windows', async () => {
    for (const run of await arriving(topN("HOP(TABLE Arrival, DESCRIPTOR(pt), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)", 1))) {
      expect(ranked(run)).toEqual([
        row('09:55', '10:05', 'b', 5, 1),
        row('10:00', '10:10', 'e', 9, 1),
        row('10:05', '10:15', 'e', 9, 1),
        row('10:10', '10:20', 'h', 8, 1),
      ]);
    }
  }, 120_000);

  it('CUMULATE: the top row of each cumulating window of the quarter', async () => {
    for (const run of await arriving(topN("CUMULATE(TABLE Arrival, DESCRIPTOR(pt), INTERVAL '5' MINUTES, INTERVAL '15' MINUTES)", 1))) {
      expect(ranked(run)).toEqual([row('10:00', '10:05', 'b', 5, 1), row('10:00', '10:10', 'e', 9, 1), row('10:00', '10:15', 'e', 9, 1)]);
    }
  }, 120_000);

  it('ROW_NUMBER() = 1 by the attribute itself is no window deduplication (event time only in Flink): the first row to arrive per window, as the processing-time deduplication keyed by the window', async () => {
    const sql = `${ARRIVALS}
SELECT window_start, window_end, item, price FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY pt) AS r
  FROM TABLE(TUMBLE(TABLE Arrival, DESCRIPTOR(pt), INTERVAL '5' MINUTES)) WHERE arrive(at))
WHERE r = 1;`;
    const explain = compileSql(sql, { functions: new Map([['clock.ts#arrive', scalarFunction('BOOLEAN', { input: ['DOUBLE'] }, () => true)]]) }).pipeline.explain();
    expect(explain).toContain('Deduplicate(keep=[FirstRow], key=[window_start, window_end], order=[PROCTIME])');
    expect(explain).not.toContain('WindowDeduplicate');
    const first = (start: string, end: string, item: string, price: number): string => `+I${JSON.stringify({ window_start: at(start), window_end: at(end), item, price })}`;
    for (const run of await arriving(sql)) {
      expect(changelog(run)).toEqual([first('10:00', '10:05', 'a', 3), first('10:05', '10:10', 'd', 1), first('10:10', '10:15', 'g', 7)]);
    }
  }, 120_000);

  it('after a processing-time window aggregate: the top totals of each window, insert-only', async () => {
    // The aggregate runs after an exchange by item, so the clock stays put here (10:07:30) and
    // every row falls in [10:05, 10:10): its totals reach the rank when processing time ends with
    // the input, a window already due, which the rank still takes and fires.
    const sql = `${ARRIVALS}
SELECT window_start, window_end, item, price, r FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS r FROM (
    SELECT window_start, window_end, item, SUM(price) AS price FROM TABLE(TUMBLE(TABLE Arrival, DESCRIPTOR(pt), INTERVAL '5' MINUTES)) GROUP BY window_start, window_end, item))
WHERE r <= 2;`;
    const explain = compileSql(sql, { functions: new Map([['clock.ts#arrive', scalarFunction('BOOLEAN', { input: ['DOUBLE'] }, () => true)]]) }).pipeline.explain();
    expect(explain).toContain('WindowRank(window=[TUMBLE(win_start=[window_start], win_end=[window_end], size=[5 min])], rankType=[ROW_NUMBER], rankRange=[rankStart=1, rankEnd=2]');
    expect(explain).toContain('WindowAggregate(groupBy=[item], window=[TUMBLE(time_col=[PROCTIME(pt)], size=[5 min])]');
    for (const run of [runEmbeddedSql, runLocalSql]) {
      const result = await run(sql, { functions: new Map([['clock.ts#arrive', scalarFunction('BOOLEAN', { input: ['DOUBLE'] }, () => true)]]), clock: () => at('10:07') + 30_000 });
      expect(changelog(result)).toEqual([row('10:05', '10:10', 'e', 9, 1), row('10:05', '10:10', 'h', 8, 2)]);
    }
  }, 120_000);
  it('behind an exchange (parallelism 2, ranked per item): the table function runs in the rank’s task, and every row is ranked', async () => {
    const sql = `${ARRIVALS}
SELECT window_start, window_end, item, price, r FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, item ORDER BY price DESC) AS r
  FROM TABLE(TUMBLE(TABLE Arrival, DESCRIPTOR(pt), INTERVAL '5' MINUTES)) WHERE arrive(at))
WHERE r <= 1;`;
    const graph = compileSql(sql, { functions: new Map([['clock.ts#arrive', scalarFunction('BOOLEAN', { input: ['DOUBLE'] }, () => true)]]) }).pipeline.jobGraph({ parallelism: 2 });
    // As Flink runs the table function inside its window rank, the exchange is below it: a row's
    // window is the one open in the rank's task, so it cannot reach the rank after that window
    // fired there (on AWS the tasks are separate functions, each with its own clock and delays).
    expect(graph.stages.map((s) => s.operators.map((o) => o.type))).toEqual([['Calc'], ['WindowTableFunction', 'WindowRank', 'Calc']]);
    for (const run of [runEmbeddedSql, runLocalSql]) {
      // The filter moves the clock as each row arrives at the source's task; the table function
      // reads it later, in the rank's task, so a row's window is the one open there.
      let now = T1;
      const functions = new Map<string, UserFunctionDefinition>([
        ['clock.ts#arrive', scalarFunction('BOOLEAN', { input: ['DOUBLE'] }, (a) => ((now = T1 + (a as number) * 60_000), true))],
      ]);
      const result = await run(sql, { functions, parallelism: 2, batchSize: 1, clock: () => now });
      // Every item is its own partition: each row comes out ranked first in a 5-minute window.
      expect(result.changes.map((c) => c.row.item).sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
      for (const { row: r } of result.changes) {
        expect([(r.window_end as number) - (r.window_start as number), r.r]).toEqual([300_000, 1]);
      }
      expect(result.deadLetters).toEqual([]);
    }
  }, 120_000);
});
