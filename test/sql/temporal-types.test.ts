/**
 * DATE, TIME and TIMESTAMP_LTZ end to end, on both runtimes (the embedded runtime and the AWS
 * runtime over emulators: Kinesis exchanges keyed by the values, DynamoDB state holding them):
 * the examples of Flink's concepts/timezone page — an event-time window over a TIMESTAMP_LTZ
 * rowtime aligned in the session time zone, the same query in UTC, and a daylight-saving day in
 * America/Los_Angeles whose 4-hour window holds 3 hours — plus DATE and TIME columns read from
 * JSON, grouped, aggregated and written back.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { formatTimestamp } from '../../shared/core/timestamp.ts';
import { timeZoneOf, toInstant, toLocalMillis } from '../../shared/core/time-zone.ts';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { sqlError } from './helpers.ts';
import { inputDir, runEmbeddedSql, runLocalSql } from './run-both.ts';

const files = inputDir('temporal-types');
afterAll(() => files.cleanup());

// MyTable3 of the timezone page: epoch milliseconds of 2021-04-15 14:01 … 14:11 UTC.
const myTable3 = files.file('mytable3', [
  { item: 'A', price: 1.1, ts: 1618495260000 },
  { item: 'B', price: 1.2, ts: 1618495320000 },
  { item: 'A', price: 1.8, ts: 1618495380000 },
  { item: 'B', price: 2.5, ts: 1618495440000 },
  { item: 'C', price: 3.8, ts: 1618495500000 },
  { item: 'C', price: 3.8, ts: 1618495860000 },
  // 14:05 UTC after the watermark passed 14:10: its window has fired on the zone's clock, so the
  // row is late and dropped (were the window cut or fired on another clock, A's max would be 9.9).
  { item: 'A', price: 9.9, ts: 1618495500000 },
]);

const ltzWindow = (zone: string): string => `SET 'table.local-time-zone' = '${zone}';
CREATE TABLE MyTable3 (item STRING, price DOUBLE, ts BIGINT, ts_ltz AS TO_TIMESTAMP_LTZ(ts, 3), WATERMARK FOR ts_ltz AS ts_ltz - INTERVAL '10' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '${myTable3}', 'format' = 'json', 'scan.parallelism' = '1');
CREATE TABLE out5 (window_start TIMESTAMP(3), window_end TIMESTAMP(3), window_rowtime TIMESTAMP_LTZ(3), item STRING, max_price DOUBLE) WITH ('connector' = 'print');
INSERT INTO out5 SELECT window_start, window_end, window_time, item, MAX(price)
  FROM TABLE(TUMBLE(TABLE MyTable3, DESCRIPTOR(ts_ltz), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end, window_time, item;`;

/** The json format writes a TIMESTAMP_LTZ as its UTC instant; window_start/window_end are wall-clock times. */
const windowRow = (start: string, end: string, item: string, max: number): string =>
  JSON.stringify({ window_start: `2021-04-15 ${start}:00.000`, window_end: `2021-04-15 ${end}:00.000`, window_rowtime: '2021-04-15 14:09:59.999Z', item, max_price: max });

// The page's results: in Asia/Shanghai the window is [22:00, 22:10) local, the same instants as
// [14:00, 14:10) in UTC; window_rowtime is one instant either way. The 14:11 row only moves the
// watermark (its window never closes before the end of the input, which flushes it too).
const SHANGHAI = [
  windowRow('22:00', '22:10', 'A', 1.8),
  windowRow('22:00', '22:10', 'B', 2.5),
  windowRow('22:00', '22:10', 'C', 3.8),
  JSON.stringify({ window_start: '2021-04-15 22:10:00.000', window_end: '2021-04-15 22:20:00.000', window_rowtime: '2021-04-15 14:19:59.999Z', item: 'C', max_price: 3.8 }),
];
const UTC = [
  windowRow('14:00', '14:10', 'A', 1.8),
  windowRow('14:00', '14:10', 'B', 2.5),
  windowRow('14:00', '14:10', 'C', 3.8),
  JSON.stringify({ window_start: '2021-04-15 14:10:00.000', window_end: '2021-04-15 14:20:00.000', window_rowtime: '2021-04-15 14:19:59.999Z', item: 'C', max_price: 3.8 }),
];

// The page's daylight-saving example: 2021-03-14 in America/Los_Angeles skips 02:00-03:00.
const dst = files.file('dst', [
  { k: 'x', ts: 1615708800000 }, // 00:00 PST
  { k: 'x', ts: 1615712400000 }, // 01:00 PST
  { k: 'x', ts: 1615716000000 }, // 03:00 PDT (02:00 does not exist)
  { k: 'x', ts: 1615719600000 }, // 04:00 PDT
]);
const DST_SCRIPT = `SET 'table.local-time-zone' = 'America/Los_Angeles';
CREATE TABLE ev (k STRING, ts BIGINT, ts_ltz AS TO_TIMESTAMP_LTZ(ts, 3), WATERMARK FOR ts_ltz AS ts_ltz)
  WITH ('connector' = 'filesystem', 'path' = '${dst}', 'format' = 'json', 'scan.parallelism' = '1');
CREATE TABLE o (window_start TIMESTAMP(3), window_end TIMESTAMP(3), window_time TIMESTAMP_LTZ(3), c BIGINT) WITH ('connector' = 'print');
INSERT INTO o SELECT window_start, window_end, window_time, COUNT(*) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts_ltz), INTERVAL '4' HOURS)) GROUP BY window_start, window_end, window_time;`;
// [00:00, 04:00) local holds three rows over three hours; its window_time 03:59:59.999 PDT is 10:59:59.999Z.
const DST = [
  '{"window_start":"2021-03-14 00:00:00.000","window_end":"2021-03-14 04:00:00.000","window_time":"2021-03-14 10:59:59.999Z","c":3}',
  '{"window_start":"2021-03-14 04:00:00.000","window_end":"2021-03-14 08:00:00.000","window_time":"2021-03-14 14:59:59.999Z","c":1}',
];

const visits = files.file('visits', [
  { d: '2024-03-05', t: '09:15:00', who: 'ann' },
  { d: '2024-03-05', t: '17:40:30', who: 'bob' },
  { d: '2024-03-06', t: '08:00:00', who: 'ann' },
  { d: '2024-02-29', t: '23:59:59', who: 'cid' },
]);
const DATES = `CREATE TABLE visits (d DATE, t TIME, who STRING) WITH ('connector' = 'filesystem', 'path' = '${visits}', 'format' = 'json');
CREATE TABLE per_day (d DATE, n BIGINT, first_t TIME, last_t TIME, next_day DATE, dow BIGINT, PRIMARY KEY (d) NOT ENFORCED) WITH ('connector' = 'print');
INSERT INTO per_day SELECT d, COUNT(*), MIN(t), MAX(t), d + INTERVAL '1' DAY, DAYOFWEEK(d) FROM visits GROUP BY d;`;
const PER_DAY = [
  '{"d":"2024-02-29","n":1,"first_t":"23:59:59","last_t":"23:59:59","next_day":"2024-03-01","dow":5}',
  '{"d":"2024-03-05","n":2,"first_t":"09:15:00","last_t":"17:40:30","next_day":"2024-03-06","dow":3}',
  '{"d":"2024-03-06","n":1,"first_t":"08:00:00","last_t":"08:00:00","next_day":"2024-03-07","dow":4}',
];

describe('TIMESTAMP_LTZ rowtime windows in the session time zone (concepts/timezone)', () => {
  it('types the window columns as Flink does: window_start/window_end TIMESTAMP(3), window_time TIMESTAMP_LTZ(3)', () => {
    const graph = compileSql(ltzWindow('Asia/Shanghai')).pipeline.jobGraph({ parallelism: 1 });
    const window = graph.stages.flatMap((s) => s.operators).find((o) => o.type === 'WindowAggregate');
    expect(window?.spec).toMatchObject({ window: { type: 'TUMBLE', timeColumn: 'ts_ltz', timeZone: 'Asia/Shanghai' } });
  });

  it.each([
    ['Asia/Shanghai', SHANGHAI],
    ['UTC', UTC],
  ])('aligns a TUMBLE window in %s on the embedded runtime', async (zone, expected) => {
    expect((await runEmbeddedSql(ltzWindow(zone), { batchSize: 1 })).rows).toEqual(expected);
  });

  it.each([
    ['Asia/Shanghai', SHANGHAI],
    ['UTC', UTC],
  ])('aligns a TUMBLE window in %s on the AWS runtime', async (zone, expected) => {
    expect((await runLocalSql(ltzWindow(zone), { batchSize: 1 })).rows).toEqual(expected);
  }, 120_000);

  it('cuts a daylight-saving day on the wall clock: the 4-hour window of 2021-03-14 in Los Angeles holds 3 hours (embedded)', async () => {
    expect((await runEmbeddedSql(DST_SCRIPT, { batchSize: 1 })).rows).toEqual(DST);
  });

  it('… and on the AWS runtime', async () => {
    expect((await runLocalSql(DST_SCRIPT, { batchSize: 1 })).rows).toEqual(DST);
  }, 120_000);
});

const TOP_ITEM = `SET 'table.local-time-zone' = 'Asia/Shanghai';
CREATE TABLE MyTable3 (item STRING, price DOUBLE, ts BIGINT, ts_ltz AS TO_TIMESTAMP_LTZ(ts, 3), WATERMARK FOR ts_ltz AS ts_ltz - INTERVAL '10' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '${myTable3}', 'format' = 'json', 'scan.parallelism' = '1');
CREATE TABLE top1 (window_start TIMESTAMP(3), window_end TIMESTAMP(3), item STRING, price DOUBLE) WITH ('connector' = 'print');
INSERT INTO top1 SELECT window_start, window_end, item, price FROM (
  SELECT window_start, window_end, item, price, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rn
  FROM TABLE(TUMBLE(TABLE MyTable3, DESCRIPTOR(ts_ltz), INTERVAL '10' MINUTES))) WHERE rn = 1;`;
const TOP = [
  '{"window_start":"2021-04-15 22:00:00.000","window_end":"2021-04-15 22:10:00.000","item":"C","price":3.8}',
  '{"window_start":"2021-04-15 22:10:00.000","window_end":"2021-04-15 22:20:00.000","item":"C","price":3.8}',
];

describe('window Top-N over TIMESTAMP_LTZ windows in Asia/Shanghai (fires on the zone clock: the late 9.9 is dropped)', () => {
  it('on the embedded runtime', async () => {
    expect((await runEmbeddedSql(TOP_ITEM, { batchSize: 1 })).rows).toEqual(TOP);
  });

  it('on the AWS runtime', async () => {
    expect((await runLocalSql(TOP_ITEM, { batchSize: 1 })).rows).toEqual(TOP);
  }, 120_000);
});

describe('TUMBLE over a TIMESTAMP_LTZ rowtime against a batch recomputation on the wall clock', () => {
  // Around Los Angeles' spring-forward day (local time only moves forward), and fixed and
  // half-hour zones: each row's window is floor(wall clock / size) on the zone's clock.
  const START = Date.UTC(2021, 2, 13, 0, 0);
  it('gives the recomputed windows, counts and window_time instants (embedded runtime)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('America/Los_Angeles', 'Asia/Kolkata', 'GMT-03:00', 'UTC'),
        fc.constantFrom(3_600_000, 4 * 3_600_000, 86_400_000),
        fc.array(fc.integer({ min: 0, max: 3 * 86_400_000 }), { minLength: 1, maxLength: 25 }),
        async (zoneId, size, offsets) => {
          const zone = timeZoneOf(zoneId);
          const times = offsets.map((o) => START + o).sort((a, b) => a - b);
          const path = files.file(`prop-${zoneId.replace(/\W/g, '')}-${size}`, times.map((ts) => ({ ts })));
          const script = `SET 'table.local-time-zone' = '${zoneId}';
CREATE TABLE ev (ts BIGINT, ts_ltz AS TO_TIMESTAMP_LTZ(ts, 3), WATERMARK FOR ts_ltz AS ts_ltz) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json', 'scan.parallelism' = '1');
SELECT window_start, window_end, window_time, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts_ltz), INTERVAL '${size / 1000}' SECOND)) GROUP BY window_start, window_end, window_time;`;
          const counts = new Map<number, number>();
          for (const ts of times) {
            const start = Math.floor(toLocalMillis(ts, zone) / size) * size;
            counts.set(start, (counts.get(start) ?? 0) + 1);
          }
          const expected = [...counts].map(([start, c]) =>
            JSON.stringify({
              window_start: formatTimestamp(start),
              window_end: formatTimestamp(start + size),
              window_time: `${formatTimestamp(toInstant(start + size - 1, zone))}Z`,
              c,
            }),
          );
          expect((await runEmbeddedSql(script, { batchSize: 3 })).rows).toEqual(expected.sort());
        },
      ),
      { numRuns: 20 },
    );
  }, 120_000);
});

describe('DATE and TIME columns', () => {
  it('are read, grouped by, aggregated, shifted and written back on the embedded runtime', async () => {
    expect((await runEmbeddedSql(DATES)).rows).toEqual(PER_DAY);
  });

  it('… and on the AWS runtime (keyed exchanges and DynamoDB state hold them)', async () => {
    expect((await runLocalSql(DATES)).rows).toEqual(PER_DAY);
  }, 120_000);

  it('dead-letter a value that is not a date, naming the field', async () => {
    const bad = files.file('bad-dates', [{ d: '2024-02-30', t: '10:00:00', who: 'x' }, { d: '2024-03-01', t: '25:00:00', who: 'y' }]);
    const run = await runEmbeddedSql(`CREATE TABLE v (d DATE, t TIME, who STRING) WITH ('connector' = 'filesystem', 'path' = '${bad}', 'format' = 'json');
SELECT who FROM v;`);
    expect(run.rows).toEqual([]);
    expect(run.deadLetters).toEqual([
      `bad-dates.jsonl:1: field 'd' (DATE): expected a date 'YYYY-MM-DD' (years 0000-9999), got "2024-02-30"`,
      `bad-dates.jsonl:2: field 't' (TIME(0)): expected a time 'HH:MM:SS[.fff]', got "25:00:00"`,
    ]);
  });
});

describe('the session time zone', () => {
  it('must be a tz database name, a GMT offset or UTC', () => {
    expect(sqlError(() => compileSql(`SET 'table.local-time-zone' = 'PST'; SELECT 1;`)).message).toBe(
      "line 1:1: invalid time zone 'PST': give a tz database name such as 'America/Los_Angeles' (daylight saving time included), a fixed offset such as 'GMT+08:00', or 'UTC'",
    );
  });

  it('is honoured without a warning', () => {
    expect(compileSql(`SET 'table.local-time-zone' = 'GMT+08:00'; SELECT 1;`).warnings).toEqual([]);
  });
});
