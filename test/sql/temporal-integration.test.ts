/**
 * DATE, TIME and TIMESTAMP_LTZ through the features that came with them from other branches, on
 * both runtimes where a job runs: user functions taking and giving them (as milliseconds, in a
 * session time zone that must not leak into them), csv and debezium-json sinks writing them as
 * Flink's writers do, the SESSION table function alone and a temporal sort over a TIMESTAMP_LTZ
 * rowtime, regular semi/anti joins and set operations keyed by DATEs, catalog statements
 * printing them, and the determinism check refusing the clock's functions over updating input.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { scalarFunction, type UserFunctionDefinition } from '../../shared/api/user-functions.ts';
import { PlanError } from '../../shared/core/errors.ts';
import { createChangeEncoder } from '../../shared/core/format-encoders.ts';
import { parseType } from '../../shared/core/type-parse.ts';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { renderStatementOutputs } from '../../shared/cli/statement-outputs.ts';
import { myAvg } from './conformance/functions.ts';
import { printedValues } from './eval-sql.ts';
import { sqlError } from './helpers.ts';
import { inputDir, runEmbeddedSql, runLocalSql, type SqlRun } from './run-both.ts';

const files = inputDir('temporal-integration');
afterAll(() => files.cleanup());

/** The run on the embedded runtime, after checking the AWS runtime gives the same final rows. */
async function both(sql: string, options: { functions?: ReadonlyMap<string, UserFunctionDefinition>; parallelism?: number } = {}): Promise<SqlRun> {
  const embedded = await runEmbeddedSql(sql, { batchSize: 1, ...options });
  const local = await runLocalSql(sql, { batchSize: 1, ...options });
  expect(local.rows).toEqual(embedded.rows);
  return embedded;
}

// 2024-03-05 00:30 UTC is 09:30 on 2024-03-05 in Tokyo; 2024-03-05 20:00 UTC is 05:00 on the 6th.
const visits = files.file('visits', [
  { who: 'ann', d: '2024-03-05', t: '09:15:30.250', ts: Date.UTC(2024, 2, 5, 0, 30) },
  { who: 'bob', d: '2024-02-29', t: '23:59:59', ts: Date.UTC(2024, 2, 5, 20, 0) },
]);
const VISITS = `CREATE TABLE visits (who STRING, d DATE, t TIME(3), ts BIGINT, ltz AS TO_TIMESTAMP_LTZ(ts, 3)) WITH ('connector' = 'filesystem', 'path' = '${visits}', 'format' = 'json');`;

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const FUNCTIONS = new Map<string, UserFunctionDefinition>([
  ['t.ts#weekday', scalarFunction('STRING', { input: ['DATE'] }, (d) => (d === null ? null : DAYS[new Date(d as number).getUTCDay()]!))],
  ['t.ts#minuteOfDay', scalarFunction('INT', { input: ['TIME(3)'] }, (t) => (t === null ? null : Math.floor((t as number) / 60_000)))],
  ['t.ts#utcHour', scalarFunction('INT', { input: ['TIMESTAMP_LTZ(3)'] }, (v) => (v === null ? null : new Date(v as number).getUTCHours()))],
  ['t.ts#nextDay', scalarFunction('DATE', { input: ['DATE'] }, (d) => (d === null ? null : (d as number) + 86_400_000))],
  ['t.ts#plusHour', scalarFunction('TIMESTAMP_LTZ(3)', { input: ['TIMESTAMP_LTZ(3)'] }, (v) => (v === null ? null : new Date((v as number) + 3_600_000)))],
  ['t.ts#dayOf', scalarFunction('DATE', { input: ['DATE'] }, (d) => d)],
]);
const UDFS = `CREATE FUNCTION weekday AS 't.ts#weekday';
CREATE FUNCTION minute_of_day AS 't.ts#minuteOfDay';
CREATE FUNCTION utc_hour AS 't.ts#utcHour';
CREATE FUNCTION next_day AS 't.ts#nextDay';
CREATE FUNCTION plus_hour AS 't.ts#plusHour';
CREATE FUNCTION day_of AS 't.ts#dayOf';`;

describe('user functions over DATE, TIME and TIMESTAMP_LTZ, on both runtimes', () => {
  it('take them as milliseconds and give them back, whatever the session time zone', async () => {
    const run = await both(
      `SET 'table.local-time-zone' = 'Asia/Tokyo';
${VISITS}
${UDFS}
CREATE TABLE o (who STRING, wd STRING, m INT, h INT, nd DATE, later TIMESTAMP_LTZ(3), local_day DATE, local_wd STRING) WITH ('connector' = 'print');
INSERT INTO o SELECT who, weekday(d), minute_of_day(t), utc_hour(ltz), next_day(d), plus_hour(ltz), CAST(ltz AS DATE), weekday(CAST(ltz AS DATE)) FROM visits;`,
      { functions: FUNCTIONS },
    );
    // The instant's UTC hour is 0 and 20 however the session zone shows it; CAST(ltz AS DATE)
    // reads Tokyo's calendar (bob's 20:00 UTC is the 6th there), and the function sees that day.
    expect(run.rows).toEqual([
      '{"who":"ann","wd":"Tue","m":555,"h":0,"nd":"2024-03-06","later":"2024-03-05 01:30:00.000Z","local_day":"2024-03-05","local_wd":"Tue"}',
      '{"who":"bob","wd":"Thu","m":1439,"h":20,"nd":"2024-03-01","later":"2024-03-05 21:00:00.000Z","local_day":"2024-03-06","local_wd":"Wed"}',
    ]);
  }, 120_000);

  it('cast a TIMESTAMP argument to a declared DATE parameter, and refuse a TIMESTAMP_LTZ one with both types named', () => {
    const program = compileSql(`${VISITS}\n${UDFS}\nSELECT day_of(TIMESTAMP '2024-03-05 10:00:00') FROM visits;`, { functions: FUNCTIONS });
    expect(program.sinks.length).toBe(1);
    expect(sqlError(() => compileSql(`${VISITS}\n${UDFS}\nSELECT day_of(ltz) FROM visits;`, { functions: FUNCTIONS })).message).toBe(
      'line 8:15: argument 1 of day_of (ltz) is TIMESTAMP_LTZ(3), which does not cast implicitly to DATE, the declared parameter type of day_of(DATE)',
    );
  });
});

const stamps = files.file('stamps', [
  { id: 1, d: '2024-03-05', t: '09:15:30.250', ts: Date.UTC(2024, 2, 5, 0, 30) },
  { id: 2, d: '2024-02-29', t: '23:59:59.000', ts: Date.UTC(2024, 2, 5, 20, 0, 0, 500) },
  { id: 3, d: null, t: null, ts: null },
]);
const STAMPS = `CREATE TABLE stamps (id BIGINT, d DATE, t TIME(3), ts BIGINT, ltz AS TO_TIMESTAMP_LTZ(ts, 3)) WITH ('connector' = 'filesystem', 'path' = '${stamps}', 'format' = 'json');`;
const lines = (path: string): string[] => readFileSync(path, 'utf8').trimEnd().split('\n');

describe('csv and debezium-json sinks write DATE, TIME and TIMESTAMP_LTZ as Flink does', () => {
  it("csv: yyyy-MM-dd, ISO local time and the instant in UTC with a Z, fractions without trailing zeros; read back as written", async () => {
    const out = files.file('stamps-out', []);
    const write = `SET 'table.local-time-zone' = 'Asia/Tokyo';
${STAMPS}
CREATE TABLE out_t (id BIGINT, d DATE, t TIME(3), ltz TIMESTAMP_LTZ(3)) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'csv');
INSERT INTO out_t SELECT id, d, t, ltz FROM stamps;`;
    await runEmbeddedSql(write, { parallelism: 1 });
    expect(lines(out)).toEqual(['1,2024-03-05,09:15:30.25,"2024-03-05 00:30:00Z"', '2,2024-02-29,23:59:59,"2024-03-05 20:00:00.5Z"', '3,,,']);
    const back = await runEmbeddedSql(`CREATE TABLE back (id BIGINT, d DATE, t TIME(3), ltz TIMESTAMP_LTZ(3)) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'csv'); SELECT * FROM back`);
    expect(back.rows).toEqual([
      '{"id":1,"d":"2024-03-05","t":"09:15:30.25","ltz":"2024-03-05 00:30:00.000Z"}',
      '{"id":2,"d":"2024-02-29","t":"23:59:59","ltz":"2024-03-05 20:00:00.500Z"}',
      '{"id":3,"d":null,"t":null,"ltz":null}',
    ]);
  });

  it('debezium-json: the json format’s texts inside the change events', async () => {
    const out = files.file('stamps-dbz', []);
    await runEmbeddedSql(
      `${STAMPS}
CREATE TABLE out_t (id BIGINT, d DATE, t TIME(3), ltz TIMESTAMP_LTZ(3)) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
INSERT INTO out_t SELECT id, d, t, ltz FROM stamps WHERE id = 1;`,
      { parallelism: 1 },
    );
    expect(lines(out)).toEqual(['{"before":null,"after":{"id":1,"d":"2024-03-05","t":"09:15:30.25","ltz":"2024-03-05 00:30:00Z"},"op":"c"}']);
  });

  it('csv refuses a MULTISET column as it refuses the other nested types', () => {
    expect(() => createChangeEncoder({ fields: [{ name: 'ds', type: parseType('MULTISET<DATE>') }] }, { type: 'csv' })).toThrow(
      "the csv format does not write MULTISET<DATE> columns (column 'ds'); use 'format' = 'json'",
    );
  });
});

// Clicks on the zone's wall clock in Asia/Shanghai (UTC+8): 2024-01-01 08:00:00 UTC is 16:00 there.
const at = (minute: number, second = 0): number => Date.UTC(2024, 0, 1, 8, minute, second);
const clicks = files.file('clicks', [
  { u: 'a', ts: at(0) },
  { u: 'b', ts: at(1) },
  { u: 'a', ts: at(3) },
  { u: 'a', ts: at(20) },
  { u: 'b', ts: at(30) },
  { u: 'b', ts: at(31) },
]);
const CLICKS = `SET 'table.local-time-zone' = 'Asia/Shanghai';
CREATE TABLE clicks (u STRING, ts BIGINT, ltz AS TO_TIMESTAMP_LTZ(ts, 3), WATERMARK FOR ltz AS ltz) WITH ('connector' = 'filesystem', 'path' = '${clicks}', 'format' = 'json', 'scan.parallelism' = '1');`;

describe('operators over a TIMESTAMP_LTZ rowtime, on both runtimes', () => {
  it('the SESSION table function alone: sessions on the zone’s wall clock, window_time the instant', async () => {
    const run = await both(`${CLICKS}
SELECT u, window_start, window_end, window_time FROM TABLE(SESSION(TABLE clicks PARTITION BY u, DESCRIPTOR(ltz), INTERVAL '5' MINUTES));`);
    const row = (u: string, start: string, end: string, time: string): string => JSON.stringify({ u, window_start: `2024-01-01 ${start}:00.000`, window_end: `2024-01-01 ${end}:00.000`, window_time: `2024-01-01 ${time}Z` });
    expect(run.rows).toEqual(
      [
        row('a', '16:00', '16:08', '08:07:59.999'),
        row('a', '16:00', '16:08', '08:07:59.999'),
        row('a', '16:20', '16:25', '08:24:59.999'),
        row('b', '16:01', '16:06', '08:05:59.999'),
        row('b', '16:30', '16:36', '08:35:59.999'),
        row('b', '16:30', '16:36', '08:35:59.999'),
      ].sort(),
    );
  }, 120_000);

  it('a processing-time SESSION alone over PROCTIME() cuts sessions on the zone’s wall clock', async () => {
    const before = Date.now();
    const run = await runEmbeddedSql(`SET 'table.local-time-zone' = 'GMT+08:00';
CREATE TABLE p (u STRING, pt AS PROCTIME()) WITH ('connector' = 'filesystem', 'path' = '${clicks}', 'format' = 'json');
SELECT u, window_start, window_end, window_time FROM TABLE(SESSION(TABLE p PARTITION BY u, DESCRIPTOR(pt), INTERVAL '1' HOUR));`);
    const after = Date.now();
    const EIGHT_HOURS = 8 * 3_600_000;
    expect(run.changes.map((c) => c.row.u).sort()).toEqual(['a', 'a', 'a', 'b', 'b', 'b']);
    for (const { row } of run.changes) {
      const [start, end, time] = [row.window_start, row.window_end, row.window_time] as [number, number, number];
      // window_start / window_end are GMT+08:00 wall-clock readings; window_time, a PROCTIME()
      // attribute, is materialized after the function (Flink's PROCTIME_MATERIALIZE(window_time)):
      // the instant the row left it.
      expect(start).toBeGreaterThanOrEqual(before + EIGHT_HOURS);
      expect(start).toBeLessThanOrEqual(after + EIGHT_HOURS);
      expect(end - start).toBeGreaterThanOrEqual(3_600_000);
      expect(time).toBeGreaterThanOrEqual(start - EIGHT_HOURS);
      expect(time).toBeLessThanOrEqual(after);
    }
  });

  it('an aggregate user function in a TUMBLE window and an OVER COUNT(DISTINCT …), aligned on the zone’s clock', async () => {
    const functions = new Map([['avg.ts#myAvg', myAvg]]);
    const windowed = await both(
      `${CLICKS}
CREATE FUNCTION my_avg AS 'avg.ts#myAvg';
SELECT window_start, window_time, my_avg(CAST(MINUTE(ltz) AS DOUBLE)) AS m FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ltz), INTERVAL '1' DAY)) GROUP BY window_start, window_end, window_time;`,
      { functions },
    );
    // One Shanghai day, [2024-01-01 00:00, 2024-01-02 00:00) local: its window_time is 15:59:59.999 UTC.
    expect(windowed.rows).toEqual(['{"window_start":"2024-01-01 00:00:00.000","window_time":"2024-01-01 15:59:59.999Z","m":14.166666666666666}']);
    const over = await both(`${CLICKS}
SELECT u, ltz, COUNT(DISTINCT u) OVER (ORDER BY ltz RANGE BETWEEN INTERVAL '10' MINUTE PRECEDING AND CURRENT ROW) AS users FROM clicks;`);
    expect(over.rows).toEqual([
      '{"u":"a","ltz":"2024-01-01 08:00:00.000Z","users":1}',
      '{"u":"a","ltz":"2024-01-01 08:03:00.000Z","users":2}',
      '{"u":"a","ltz":"2024-01-01 08:20:00.000Z","users":1}',
      '{"u":"b","ltz":"2024-01-01 08:01:00.000Z","users":2}',
      '{"u":"b","ltz":"2024-01-01 08:30:00.000Z","users":2}',
      '{"u":"b","ltz":"2024-01-01 08:31:00.000Z","users":1}',
    ]);
  }, 240_000);

  it('a temporal sort (ORDER BY the rowtime alone) emits in time order', async () => {
    const shuffled = files.file('shuffled', [{ u: 'c', ts: at(3) }, { u: 'a', ts: at(1) }, { u: 'b', ts: at(2) }, { u: 'd', ts: at(9) }]);
    const sql = `SET 'table.local-time-zone' = 'Asia/Shanghai';
CREATE TABLE s (u STRING, ts BIGINT, ltz AS TO_TIMESTAMP_LTZ(ts, 3), WATERMARK FOR ltz AS ltz - INTERVAL '5' MINUTE) WITH ('connector' = 'filesystem', 'path' = '${shuffled}', 'format' = 'json', 'scan.parallelism' = '1');
SELECT u, ltz FROM s ORDER BY ltz;`;
    const order = (run: SqlRun): string[] => run.changes.map((c) => `${c.kind} ${String(c.row.u)}`);
    const embedded = await runEmbeddedSql(sql, { batchSize: 1, parallelism: 1 });
    const local = await runLocalSql(sql, { batchSize: 1, parallelism: 1 });
    expect(order(embedded)).toEqual(['+I a', '+I b', '+I c', '+I d']);
    expect(order(local)).toEqual(order(embedded));
  }, 120_000);
});

const orders = files.file('orders', [
  { id: 1, d: '2024-03-01' },
  { id: 2, d: '2024-03-02' },
  { id: 3, d: '2024-03-02' },
  { id: 4, d: '2024-03-04' },
]);
const holidays = files.file('holidays', [{ d: '2024-03-02' }, { d: '2024-03-03' }, { d: null }]);
const DATED = `CREATE TABLE orders (id BIGINT, d DATE) WITH ('connector' = 'filesystem', 'path' = '${orders}', 'format' = 'json');
CREATE TABLE holidays (d DATE) WITH ('connector' = 'filesystem', 'path' = '${holidays}', 'format' = 'json');`;

describe('semi/anti joins and set operations keyed by DATEs, on both runtimes', () => {
  it('IN and NOT EXISTS subqueries', async () => {
    expect((await both(`${DATED}\nSELECT id FROM orders WHERE d IN (SELECT d FROM holidays);`)).rows).toEqual(['{"id":2}', '{"id":3}']);
    expect((await both(`${DATED}\nSELECT id FROM orders o WHERE NOT EXISTS (SELECT 1 FROM holidays h WHERE h.d = o.d);`)).rows).toEqual(['{"id":1}', '{"id":4}']);
  }, 240_000);

  it('INTERSECT and EXCEPT ALL', async () => {
    expect((await both(`${DATED}\nSELECT d FROM orders INTERSECT SELECT d FROM holidays;`)).rows).toEqual(['{"d":"2024-03-02"}']);
    expect((await both(`${DATED}\nSELECT d FROM orders EXCEPT ALL SELECT d FROM holidays;`)).rows).toEqual(['{"d":"2024-03-01"}', '{"d":"2024-03-02"}', '{"d":"2024-03-04"}']);
  }, 240_000);
});

describe('built-in functions of other branches over the temporal types', () => {
  it('ARRAY functions over DATE elements, JSON of a TIMESTAMP_LTZ, TYPEOF, PRINTF', async () => {
    expect(
      await printedValues([
        "ARRAY_SORT(ARRAY[DATE '2024-03-05', DATE '2024-01-01', DATE '2024-02-29'])",
        "ARRAY_MAX(ARRAY[DATE '2024-03-05', DATE '2024-01-01'])",
        "ARRAY_CONTAINS(ARRAY[TIME '10:00:00', TIME '11:00:00'], TIME '11:00:00')",
        "ARRAY_DISTINCT(ARRAY[DATE '2024-03-05', DATE '2024-03-05'])",
        "JSON_OBJECT('at' VALUE TO_TIMESTAMP_LTZ(1500, 3))",
        "JSON_ARRAY(TIMESTAMP '2024-01-01 10:00:00.500')",
        "TYPEOF(CAST(TIMESTAMP '2024-01-01 10:00:00' AS TIMESTAMP_LTZ(3)))",
        "TYPEOF(CAST(TIMESTAMP '2024-01-01 10:00:00' AS TIMESTAMP_LTZ(3)), TRUE)",
        "TYPEOF(DATE '2024-03-05')",
        "TYPEOF(TIME '10:00:00')",
        "TYPEOF(ARRAY[TO_TIMESTAMP_LTZ(0, 3)], TRUE)",
        "PRINTF('%s|%s|%s|%d|%x', DATE '2024-03-05', TIME '00:00:01', TO_TIMESTAMP_LTZ(1500, 3), DATE '1969-12-31', DATE '1969-12-31')",
      ]),
    ).toEqual({
      "ARRAY_SORT(ARRAY[DATE '2024-03-05', DATE '2024-01-01', DATE '2024-02-29'])": '[2024-01-01, 2024-02-29, 2024-03-05]',
      "ARRAY_MAX(ARRAY[DATE '2024-03-05', DATE '2024-01-01'])": '2024-03-05',
      "ARRAY_CONTAINS(ARRAY[TIME '10:00:00', TIME '11:00:00'], TIME '11:00:00')": 'true',
      "ARRAY_DISTINCT(ARRAY[DATE '2024-03-05', DATE '2024-03-05'])": '[2024-03-05]',
      "JSON_OBJECT('at' VALUE TO_TIMESTAMP_LTZ(1500, 3))": '{"at":"1970-01-01T00:00:01.5Z"}',
      "JSON_ARRAY(TIMESTAMP '2024-01-01 10:00:00.500')": '["2024-01-01T10:00:00.5"]',
      "TYPEOF(CAST(TIMESTAMP '2024-01-01 10:00:00' AS TIMESTAMP_LTZ(3)))": 'TIMESTAMP_LTZ(3) NOT NULL',
      "TYPEOF(CAST(TIMESTAMP '2024-01-01 10:00:00' AS TIMESTAMP_LTZ(3)), TRUE)": 'TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL',
      "TYPEOF(DATE '2024-03-05')": 'DATE NOT NULL',
      "TYPEOF(TIME '10:00:00')": 'TIME(0) NOT NULL',
      "TYPEOF(ARRAY[TO_TIMESTAMP_LTZ(0, 3)], TRUE)": 'ARRAY<TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL> NOT NULL',
      // Java's toString of Flink's internal values: the Integer days and milliseconds, TimestampData's LocalDateTime.
      "PRINTF('%s|%s|%s|%d|%x', DATE '2024-03-05', TIME '00:00:01', TO_TIMESTAMP_LTZ(1500, 3), DATE '1969-12-31', DATE '1969-12-31')": '19787|1000|1970-01-01T00:00:01.500|-1|ffffffff',
    });
  });

  it('COLLECT of DATEs and JSON_OBJECTAGG of TIMESTAMP_LTZ values, on both runtimes', async () => {
    const run = await both(`${STAMPS}\nSELECT COLLECT(d) AS ds, JSON_OBJECTAGG(KEY CAST(id AS STRING) VALUE ltz) AS j FROM stamps WHERE id < 3;`);
    expect(run.rows).toEqual(['{"ds":{"2024-02-29":1,"2024-03-05":1},"j":"{\\"1\\":\\"2024-03-05T00:30:00Z\\",\\"2\\":\\"2024-03-05T20:00:00.5Z\\"}"}']);
  }, 120_000);

  it('refuses DATE and TIME inside JSON when planned, as Flink has no JSON form for them', () => {
    const error = (sql: string): string => sqlError(() => compileSql(`${STAMPS}\n${sql}`)).message;
    expect(error("SELECT JSON_OBJECT('d' VALUE d) FROM stamps;")).toBe("line 2:8: Type 'DATE' is not scalar or cannot be converted into JSON: JSON_OBJECT('d', d)");
    expect(error('SELECT JSON_STRING(ARRAY[t]) FROM stamps;')).toBe("line 2:8: Type 'TIME(3)' is not scalar or cannot be converted into JSON: JSON_STRING(ARRAY(t))");
    expect(error('SELECT JSON_ARRAYAGG(d) FROM stamps;')).toContain("Type 'DATE' is not scalar or cannot be converted into JSON");
  });
});

describe('catalog statements print the temporal types as Flink does', () => {
  const outputs = async (sql: string): Promise<string[]> => renderStatementOutputs(compileSql(sql, { allowNoQuery: true }));

  it('DESCRIBE shows summary names (TIMESTAMP_LTZ(3) *ROWTIME*), SHOW CREATE TABLE serializable ones', async () => {
    const [describe, show] = await outputs(`CREATE TABLE ev (d DATE NOT NULL, t TIME(3), ts BIGINT, ltz AS TO_TIMESTAMP_LTZ(ts, 3), at_ltz TIMESTAMP(3) WITH LOCAL TIME ZONE, pt AS PROCTIME(), WATERMARK FOR ltz AS ltz) WITH ('connector' = 'datagen');
DESCRIBE ev;
SHOW CREATE TABLE ev;`);
    expect(describe).toContain('|      d |                        DATE | FALSE |');
    expect(describe).toContain('|      t |                     TIME(3) |  TRUE |');
    expect(describe).toContain('|    ltz |  TIMESTAMP_LTZ(3) *ROWTIME* |  TRUE |');
    expect(describe).toContain('| at_ltz |            TIMESTAMP_LTZ(3) |  TRUE |');
    expect(describe).toContain('|     pt | TIMESTAMP_LTZ(3) *PROCTIME* | FALSE |');
    expect(show).toContain('  `d` DATE NOT NULL,\n  `t` TIME(3),\n  `ts` BIGINT,\n  `ltz` AS TO_TIMESTAMP_LTZ(`ts`, 3),\n  `at_ltz` TIMESTAMP(3) WITH LOCAL TIME ZONE,\n  `pt` AS PROCTIME(),');
  });

  it('DESCRIBE and SHOW CREATE VIEW list a view’s PROCTIME() attributes at their places', async () => {
    const [describe, show] = await outputs(`CREATE TABLE t (u STRING, ts BIGINT, ltz AS TO_TIMESTAMP_LTZ(ts, 3), pt AS PROCTIME(), WATERMARK FOR ltz AS ltz) WITH ('connector' = 'datagen');
CREATE VIEW v AS SELECT u, pt, ltz, PROCTIME() AS pt2, CURRENT_DATE AS d FROM t;
DESCRIBE v;
SHOW CREATE VIEW v;`);
    expect(describe).toBe(
      [
        '+------+-----------------------------+-------+-----+--------+-----------+',
        '| name |                        type |  null | key | extras | watermark |',
        '+------+-----------------------------+-------+-----+--------+-----------+',
        '|    u |                      STRING |  TRUE |     |        |           |',
        '|   pt | TIMESTAMP_LTZ(3) *PROCTIME* | FALSE |     |        |           |',
        '|  ltz |  TIMESTAMP_LTZ(3) *ROWTIME* |  TRUE |     |        |           |',
        '|  pt2 | TIMESTAMP_LTZ(3) *PROCTIME* | FALSE |     |        |           |',
        '|    d |                        DATE | FALSE |     |        |           |',
        '+------+-----------------------------+-------+-----+--------+-----------+',
        '5 rows in set',
      ].join('\n'),
    );
    expect(show).toBe('CREATE VIEW `default_catalog`.`default_database`.`v`(`u`, `pt`, `ltz`, `pt2`, `d`) as\nSELECT u, pt, ltz, PROCTIME() AS pt2, CURRENT_DATE AS d FROM t');
  });

  it('CREATE TABLE … AS SELECT of a TIMESTAMP_LTZ and a materialized PROCTIME(), and LIKE of it', async () => {
    const out = files.file('ctas-out', []);
    const [show, like] = await outputs(`${STAMPS}
CREATE TABLE copy WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json') AS SELECT id, d, ltz, PROCTIME() AS seen FROM stamps;
SHOW CREATE TABLE copy;
CREATE TABLE copy2 LIKE copy;
SHOW CREATE TABLE copy2;`);
    expect(show).toContain('  `id` BIGINT,\n  `d` DATE,\n  `ltz` TIMESTAMP(3) WITH LOCAL TIME ZONE,\n  `seen` TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL\n)');
    expect(like).toContain('`default_database`.`copy2` (\n  `id` BIGINT,\n  `d` DATE,\n  `ltz` TIMESTAMP(3) WITH LOCAL TIME ZONE,\n  `seen` TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL\n)');
  });
});

describe('the determinism check and the clock (Flink concepts/determinism: dynamic functions are per record in streaming)', () => {
  const error = (sql: string): string => {
    try {
      compileSql(`${DATED}\n${sql}`).pipeline.jobGraph({ parallelism: 1 });
    } catch (e) {
      if (e instanceof PlanError) return e.message;
      throw e;
    }
    throw new Error('expected a PlanError');
  };

  it('refuses NOW() written over an updating join and CURRENT_DATE filtering an updating aggregate', () => {
    expect(error('SELECT o.id, h.d, NOW() AS at FROM orders o LEFT JOIN holidays h ON o.d = h.d;')).toContain('NOW() in column');
    expect(error('SELECT d, c FROM (SELECT d, COUNT(*) AS c FROM orders GROUP BY d) WHERE d < CURRENT_DATE;')).toContain('CURRENT_DATE() in the filter');
    expect(error('SELECT o.id, PROCTIME() AS seen FROM orders o LEFT JOIN holidays h ON o.d = h.d;')).toContain("CURRENT_TIMESTAMP() in column 'seen'");
  });

  it('allows them over insert-only input, and UNIX_TIMESTAMP of a string anywhere', () => {
    expect(compileSql(`${DATED}\nSELECT id, NOW(), PROCTIME() FROM orders WHERE d < CURRENT_DATE;`).pipeline.jobGraph({ parallelism: 1 }).sinks.length).toBe(1);
    expect(compileSql(`${DATED}\nSELECT d, c FROM (SELECT d, COUNT(*) AS c FROM orders GROUP BY d) WHERE UNIX_TIMESTAMP('2024-01-01 00:00:00') > c;`).pipeline.jobGraph({ parallelism: 1 }).sinks.length).toBe(1);
  });
});

describe('datagen DATE, TIME and TIMESTAMP_LTZ columns through the generator producer', () => {
  it('give the same rows on both runtimes', async () => {
    const run = await both(`CREATE TABLE g (id INT, d DATE, t TIME, ltz TIMESTAMP_LTZ(3)) WITH ('connector' = 'datagen', 'number-of-rows' = '3', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '3');
SELECT id, d, t, ltz FROM g;`);
    expect(run.rows).toEqual([
      '{"id":1,"d":"2026-01-01","t":"00:00:00","ltz":"2026-01-01 00:00:00.000Z"}',
      '{"id":2,"d":"2026-01-02","t":"00:00:01","ltz":"2026-01-01 00:00:01.000Z"}',
      '{"id":3,"d":"2026-01-03","t":"00:00:02","ltz":"2026-01-01 00:00:02.000Z"}',
    ]);
  }, 120_000);
});
