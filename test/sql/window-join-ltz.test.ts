/**
 * Window joins over TIMESTAMP_LTZ windows in a session time zone other than UTC, on both
 * runtimes: `window_start` / `window_end` are wall-clock TIMESTAMPs in the zone while the
 * watermark runs on instants, so the join fires each window (and drops rows for it as late) at the
 * instant of its wall-clock `window_end - 1`, as Flink's WindowJoinOperator with its shift time
 * zone does and as the window aggregate over the same windows fires.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { inputDir, runEmbeddedSql, runLocalSql } from './run-both.ts';

const files = inputDir('window-join-ltz');
afterAll(() => files.cleanup());

// MyTable3 of Flink's concepts/timezone page: 2021-04-15 14:01 … 14:11 UTC (22:01 … 22:11 in
// Shanghai), then a row of 14:05 after the watermark passed 14:10: on the zone's clock its window
// [22:00, 22:10) has fired, so it is late on both sides. Fired on the wall clock read as UTC, the
// window would close 8 hours later, at the end of the input, and the 9.9 row would join.
const myTable3 = files.file('mytable3', [
  { item: 'A', price: 1.1, ts: 1618495260000 },
  { item: 'B', price: 1.2, ts: 1618495320000 },
  { item: 'A', price: 1.8, ts: 1618495380000 },
  { item: 'B', price: 2.5, ts: 1618495440000 },
  { item: 'C', price: 3.8, ts: 1618495500000 },
  { item: 'C', price: 3.8, ts: 1618495860000 },
  { item: 'A', price: 9.9, ts: 1618495500000 },
]);

const shanghaiJoin = (zone: string, joinType: string): string => `SET 'table.local-time-zone' = '${zone}';
CREATE TABLE MyTable3 (item STRING, price DOUBLE, ts BIGINT, ts_ltz AS TO_TIMESTAMP_LTZ(ts, 3), WATERMARK FOR ts_ltz AS ts_ltz - INTERVAL '10' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '${myTable3}', 'format' = 'json', 'scan.parallelism' = '1');
CREATE TABLE o (window_start TIMESTAMP(3), window_end TIMESTAMP(3), item STRING, lp DOUBLE, rp DOUBLE) WITH ('connector' = 'print');
INSERT INTO o SELECT L.window_start, L.window_end, L.item, L.price, R.price
  FROM (SELECT * FROM TABLE(TUMBLE(TABLE MyTable3, DESCRIPTOR(ts_ltz), INTERVAL '10' MINUTES))) L
  ${joinType} JOIN (SELECT * FROM TABLE(TUMBLE(TABLE MyTable3, DESCRIPTOR(ts_ltz), INTERVAL '10' MINUTES))) R
  ON L.item = R.item AND L.price < R.price AND L.window_start = R.window_start AND L.window_end = R.window_end;`;

const joined = (start: string, end: string, item: string, lp: number, rp: number | null): string =>
  JSON.stringify({ window_start: `2021-04-15 ${start}:00.000`, window_end: `2021-04-15 ${end}:00.000`, item, lp, rp });

const SHANGHAI_LEFT = [
  joined('22:00', '22:10', 'A', 1.1, 1.8),
  joined('22:00', '22:10', 'A', 1.8, null),
  joined('22:00', '22:10', 'B', 1.2, 2.5),
  joined('22:00', '22:10', 'B', 2.5, null),
  joined('22:00', '22:10', 'C', 3.8, null),
  joined('22:10', '22:20', 'C', 3.8, null),
].sort();
const SHANGHAI_INNER = [joined('22:00', '22:10', 'A', 1.1, 1.8), joined('22:00', '22:10', 'B', 1.2, 2.5)].sort();
// The same windows in UTC (the same instants, wall-clock 8 hours earlier): the late row is dropped too.
const UTC_LEFT = SHANGHAI_LEFT.map((r) => r.replaceAll('22:', '14:')).sort();

describe('window join over TIMESTAMP_LTZ windows in Asia/Shanghai (fires on the zone clock: the late 9.9 is dropped)', () => {
  it.each([
    ['LEFT', 'Asia/Shanghai', SHANGHAI_LEFT],
    ['INNER', 'Asia/Shanghai', SHANGHAI_INNER],
    ['LEFT', 'UTC', UTC_LEFT],
  ])('%s JOIN in %s on the embedded runtime', async (type, zone, expected) => {
    expect((await runEmbeddedSql(shanghaiJoin(zone, type), { batchSize: 1 })).rows).toEqual(expected);
  });

  it.each([
    ['LEFT', 'Asia/Shanghai', SHANGHAI_LEFT],
    ['INNER', 'Asia/Shanghai', SHANGHAI_INNER],
  ])('%s JOIN in %s on the AWS runtime', async (type, zone, expected) => {
    expect((await runLocalSql(shanghaiJoin(zone, type), { batchSize: 1 })).rows).toEqual(expected);
  }, 120_000);
});

// America/New_York falls back on 2024-11-03: 02:00 EDT (06:00Z) becomes 01:00 EST, so the local
// hour [01:00, 02:00) happens twice. Its window fires at the instant of 01:59:59.999 taken at the
// earlier offset (Java's atZone, Flink's toEpochMillsForTimer): 05:59:59.999Z. The 01:10 EST row
// still joins it (the watermark was 01:30 EDT when it came) and its watermark fires the window; the
// 01:30 EST row then is late — though the wall clock reads 01:30 < 02:00 — in the join as in the
// window aggregate.
const fallBack = files.file('fall-back', [
  { k: 'x', side: 'a', ts: Date.UTC(2024, 10, 3, 4, 30) }, // 00:30 EDT
  { k: 'x', side: 'a', ts: Date.UTC(2024, 10, 3, 5, 30) }, // 01:30 EDT
  { k: 'x', side: 'a', ts: Date.UTC(2024, 10, 3, 6, 10) }, // 01:10 EST
  { k: 'x', side: 'a', ts: Date.UTC(2024, 10, 3, 6, 30) }, // 01:30 EST: late for [01:00, 02:00)
  { k: 'x', side: 'a', ts: Date.UTC(2024, 10, 3, 7, 30) }, // 02:30 EST
  { k: 'x', side: 'a', ts: Date.UTC(2024, 10, 3, 9, 0) }, // 04:00 EST
]);
const NY_TABLE = `SET 'table.local-time-zone' = 'America/New_York';
CREATE TABLE ev (k STRING, side STRING, ts BIGINT, ts_ltz AS TO_TIMESTAMP_LTZ(ts, 3), WATERMARK FOR ts_ltz AS ts_ltz)
  WITH ('connector' = 'filesystem', 'path' = '${fallBack}', 'format' = 'json', 'scan.parallelism' = '1');`;
const NY_JOIN = `${NY_TABLE}
CREATE TABLE o (window_start TIMESTAMP(3), window_end TIMESTAMP(3), lt BIGINT, rt BIGINT) WITH ('connector' = 'print');
INSERT INTO o SELECT L.window_start, L.window_end, L.ts, R.ts
  FROM (SELECT * FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts_ltz), INTERVAL '1' HOUR))) L
  JOIN (SELECT * FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts_ltz), INTERVAL '1' HOUR))) R
  ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;`;
const NY_AGG = `${NY_TABLE}
CREATE TABLE o (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c BIGINT) WITH ('connector' = 'print');
INSERT INTO o SELECT window_start, window_end, COUNT(*) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts_ltz), INTERVAL '1' HOUR)) GROUP BY window_start, window_end;`;

const nyRow = (start: string, end: string, lt: number, rt = lt): string =>
  JSON.stringify({ window_start: `2024-11-03 ${start}:00.000`, window_end: `2024-11-03 ${end}:00.000`, lt, rt });
const EDT_0130 = Date.UTC(2024, 10, 3, 5, 30);
const EST_0110 = Date.UTC(2024, 10, 3, 6, 10);
const NY_JOINED = [
  nyRow('00:00', '01:00', Date.UTC(2024, 10, 3, 4, 30)),
  nyRow('01:00', '02:00', EDT_0130),
  nyRow('01:00', '02:00', EDT_0130, EST_0110),
  nyRow('01:00', '02:00', EST_0110, EDT_0130),
  nyRow('01:00', '02:00', EST_0110),
  nyRow('02:00', '03:00', Date.UTC(2024, 10, 3, 7, 30)),
  nyRow('04:00', '05:00', Date.UTC(2024, 10, 3, 9, 0)),
].sort();
const NY_COUNTS = [
  '{"window_start":"2024-11-03 00:00:00.000","window_end":"2024-11-03 01:00:00.000","c":1}',
  '{"window_start":"2024-11-03 01:00:00.000","window_end":"2024-11-03 02:00:00.000","c":2}',
  '{"window_start":"2024-11-03 02:00:00.000","window_end":"2024-11-03 03:00:00.000","c":1}',
  '{"window_start":"2024-11-03 04:00:00.000","window_end":"2024-11-03 05:00:00.000","c":1}',
];

describe('window join over TIMESTAMP_LTZ windows across a daylight-saving fall-back (America/New_York)', () => {
  it('the window aggregate fires the repeated hour at its first end: the second 01:30 is late', async () => {
    expect((await runEmbeddedSql(NY_AGG, { batchSize: 1 })).rows).toEqual(NY_COUNTS);
  });

  it('… and on the AWS runtime', async () => {
    expect((await runLocalSql(NY_AGG, { batchSize: 1 })).rows).toEqual(NY_COUNTS);
  }, 120_000);

  it('the window join fires the same windows at the same instants (embedded runtime)', async () => {
    expect((await runEmbeddedSql(NY_JOIN, { batchSize: 1 })).rows).toEqual(NY_JOINED);
  });

  it('… and on the AWS runtime', async () => {
    expect((await runLocalSql(NY_JOIN, { batchSize: 1 })).rows).toEqual(NY_JOINED);
  }, 120_000);
});
