/**
 * SQL joins end to end, on the examples of Flink's join documentation: regular joins of every
 * type with their plans, comma joins and filter push-down, interval joins (BETWEEN), event-time
 * temporal joins against a versioned table and a versioned view, window joins (FULL with
 * COALESCE) and IN / EXISTS semi and anti window joins, the STATE_TTL hint, and the errors.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChangeRow } from '../../shared/core/row.ts';
import { formatTimestamp } from '../../shared/core/timestamp.ts';
import { runEmbeddedJob } from '../../shared/runtime/embedded/embedded-runtime.ts';
import { MaterializedView } from '../../shared/runtime/materialized-view.ts';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { formatRow } from '../harness/index.ts';
import { sqlError } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'flambda-sql-joins-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes rows as JSON lines and returns the path. */
function file(name: string, rows: readonly Record<string, unknown>[]): string {
  const path = join(dir, `${name}.jsonl`);
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return path;
}

/**
 * Runs a script's only INSERT/SELECT at `parallelism`, reading `batchSize` rows per source batch
 * (a watermark follows each batch); returns its final rows as sorted text.
 */
async function run(text: string, inputs: Record<string, string>, parallelism = 2, batchSize = 2): Promise<string[]> {
  const program = compileSql(text, { inputs: new Map(Object.entries(inputs)) });
  const graph = program.pipeline.jobGraph({ parallelism });
  const sink = graph.sinks[0]!;
  const view = new MaterializedView({ ...(sink.upsertKey ? { key: sink.upsertKey } : {}), columns: sink.schema.fields.map((f) => f.name), strict: true });
  await runEmbeddedJob(graph, {
    code: { functions: program.pipeline.userFunctions, generators: program.pipeline.generators },
    observers: new Map([[sink.name, [{ write: (rows: readonly ChangeRow[]) => rows.forEach((r) => view.apply(r)) }]]]),
    batchSize,
  });
  return view.rows().map(formatRow).sort();
}

const plan = (text: string): string => compileSql(text).pipeline.explain();
const ts = (text: string): number => Date.parse(`${text.replace(' ', 'T')}Z`);

// ---- Flink's window join documentation: LeftTable and RightTable ----

const TABLES = `
CREATE TABLE LeftTable (row_time TIMESTAMP(3), num INT, id STRING, WATERMARK FOR row_time AS row_time - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'left.jsonl', 'format' = 'json');
CREATE TABLE RightTable (row_time TIMESTAMP(3), num INT, id STRING, WATERMARK FOR row_time AS row_time - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'right.jsonl', 'format' = 'json');
`;
const left = file('left', [
  { row_time: '2020-04-15 12:02:00.000', num: 1, id: 'L1' },
  { row_time: '2020-04-15 12:06:00.000', num: 2, id: 'L2' },
  { row_time: '2020-04-15 12:03:00.000', num: 3, id: 'L3' },
]);
const right = file('right', [
  { row_time: '2020-04-15 12:01:00.000', num: 2, id: 'R2' },
  { row_time: '2020-04-15 12:04:00.000', num: 3, id: 'R3' },
  { row_time: '2020-04-15 12:05:00.000', num: 4, id: 'R4' },
]);
const tables = { LeftTable: left, RightTable: right };
const W0 = ts('2020-04-15 12:00:00');
const W5 = ts('2020-04-15 12:05:00');
const W10 = ts('2020-04-15 12:10:00');
const L = (t: string): string => `(SELECT * FROM TABLE(TUMBLE(TABLE ${t}, DESCRIPTOR(row_time), INTERVAL '5' MINUTES)))`;

describe('window joins (Flink documentation)', () => {
  it('FULL JOIN on window_start and window_end with COALESCE, as the documentation shows', async () => {
    const query = `${TABLES}
      SELECT L.num as L_Num, L.id as L_Id, R.num as R_Num, R.id as R_Id,
        COALESCE(L.window_start, R.window_start) as window_start, COALESCE(L.window_end, R.window_end) as window_end
      FROM ${L('LeftTable')} L
      FULL JOIN ${L('RightTable')} R
      ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end;`;
    expect(plan(query)).toContain('WindowJoin(leftWindow=[TUMBLE(win_start=[window_start], win_end=[window_end], size=[5 min])], rightWindow=[TUMBLE(win_start=[window_start], win_end=[window_end], size=[5 min])], joinType=[FullOuterJoin], where=[=(num, num0)]');
    const row = (ln: number | null, li: string | null, rn: number | null, ri: string | null, ws: number, we: number): string =>
      formatRow({ L_Num: ln, L_Id: li, R_Num: rn, R_Id: ri, window_start: ws, window_end: we });
    expect(await run(query, tables)).toEqual(
      [row(1, 'L1', null, null, W0, W5), row(null, null, 2, 'R2', W0, W5), row(3, 'L3', 3, 'R3', W0, W5), row(2, 'L2', null, null, W5, W10), row(null, null, 4, 'R4', W5, W10)].sort(),
    );
  });

  it('IN and EXISTS are semi window joins, NOT IN and NOT EXISTS anti window joins', async () => {
    const correlated = 'L.window_start = R.window_start AND L.window_end = R.window_end';
    const semiIn = `${TABLES} SELECT id, num FROM ${L('LeftTable')} L WHERE L.num IN (SELECT num FROM ${L('RightTable')} R WHERE ${correlated});`;
    const semiExists = `${TABLES} SELECT id, num FROM ${L('LeftTable')} L WHERE EXISTS (SELECT * FROM ${L('RightTable')} R WHERE L.num = R.num AND ${correlated});`;
    const antiIn = semiIn.replace(' IN (', ' NOT IN (');
    const antiExists = semiExists.replace('EXISTS (', 'NOT EXISTS (');
    expect(plan(semiIn)).toContain('WindowJoin(leftWindow=[TUMBLE(win_start=[window_start], win_end=[window_end], size=[5 min])], rightWindow=[TUMBLE(win_start=[window_start], win_end=[window_end], size=[5 min])], joinType=[LeftSemiJoin]');
    expect(plan(antiExists)).toContain('joinType=[LeftAntiJoin]');
    const rows = (...ids: [string, number][]): string[] => ids.map(([id, num]) => formatRow({ id, num })).sort();
    expect(await run(semiIn, tables)).toEqual(rows(['L3', 3]));
    expect(await run(semiExists, tables, 1, 1024)).toEqual(rows(['L3', 3]));
    expect(await run(antiIn, tables)).toEqual(rows(['L1', 1], ['L2', 2]));
    expect(await run(antiExists, tables, 3)).toEqual(rows(['L1', 1], ['L2', 2]));
    // Read one shard two rows at a time, L3 (12:03) comes after the watermark passed 12:05 (L2
    // at 12:06 less 1 s): its window has fired, so it is late and dropped, as in Flink.
    expect(await run(semiExists, tables, 1, 2)).toEqual([]);
  });

  it('a semi join whose inputs are not windowed alike is a regular semi join', async () => {
    const text = `${TABLES} SELECT id, num FROM LeftTable L WHERE EXISTS (SELECT * FROM RightTable R WHERE L.num = R.num);`;
    expect(plan(text)).toContain('Join(joinType=[LeftSemiJoin], where=[=(num, num0)], select=[row_time, num, id], leftInputSpec=[NoUniqueKey], rightInputSpec=[NoUniqueKey])');
    expect(await run(text, tables)).toEqual([formatRow({ id: 'L2', num: 2 }), formatRow({ id: 'L3', num: 3 })]);
  });
});

// ---- Regular joins ----

const ORDERS = `
CREATE TABLE Orders (order_id INT, product_id INT, amount INT, order_time TIMESTAMP(3), WATERMARK FOR order_time AS order_time)
  WITH ('connector' = 'filesystem', 'path' = 'orders.jsonl', 'format' = 'json');
CREATE TABLE Product (id INT, name STRING, update_time TIMESTAMP(3), WATERMARK FOR update_time AS update_time)
  WITH ('connector' = 'filesystem', 'path' = 'product.jsonl', 'format' = 'json');
`;
const orders = file('orders', [
  { order_id: 1, product_id: 10, amount: 5, order_time: '2020-01-01 10:00:00.000' },
  { order_id: 2, product_id: 11, amount: 1, order_time: '2020-01-01 10:01:00.000' },
  { order_id: 3, product_id: 99, amount: 7, order_time: '2020-01-01 10:02:00.000' },
  { order_id: 4, product_id: 10, amount: 2, order_time: '2020-01-01 10:03:00.000' },
]);
const products = file('product', [
  { id: 10, name: 'Apple', update_time: '2020-01-01 09:00:00.000' },
  { id: 11, name: 'Pear', update_time: '2020-01-01 09:00:00.000' },
  { id: 12, name: 'Plum', update_time: '2020-01-01 09:00:00.000' },
]);
const shop = { Orders: orders, Product: products };

describe('regular joins', () => {
  const join = (type: string): string => `${ORDERS} SELECT o.order_id, p.name FROM Orders o ${type} JOIN Product p ON o.product_id = p.id;`;
  const r = (order_id: number | null, name: string | null): string => formatRow({ order_id, name });

  it('INNER, LEFT, RIGHT and FULL OUTER join on a key, planned as Flink prints them', async () => {
    expect(plan(join('INNER'))).toContain(
      'Join(joinType=[InnerJoin], where=[=(product_id, id)], select=[order_id, product_id, amount, order_time, id, name, update_time], leftInputSpec=[NoUniqueKey], rightInputSpec=[NoUniqueKey])',
    );
    expect(plan(join('LEFT OUTER'))).toContain('Join(joinType=[LeftOuterJoin]');
    expect(plan(join('RIGHT'))).toContain('Join(joinType=[RightOuterJoin]');
    expect(plan(join('FULL OUTER'))).toContain('Join(joinType=[FullOuterJoin]');
    expect(await run(join('INNER'), shop)).toEqual([r(1, 'Apple'), r(2, 'Pear'), r(4, 'Apple')].sort());
    expect(await run(join('LEFT'), shop)).toEqual([r(1, 'Apple'), r(2, 'Pear'), r(3, null), r(4, 'Apple')].sort());
    expect(await run(join('RIGHT'), shop, 3)).toEqual([r(1, 'Apple'), r(2, 'Pear'), r(4, 'Apple'), r(null, 'Plum')].sort());
    expect(await run(join('FULL'), shop, 1)).toEqual([r(1, 'Apple'), r(2, 'Pear'), r(3, null), r(4, 'Apple'), r(null, 'Plum')].sort());
  });

  it('reads a comma join with its keys in WHERE, and pushes one-sided conditions below the join', async () => {
    const comma = `${ORDERS} SELECT o.order_id, p.name FROM Orders o, Product p WHERE o.product_id = p.id AND o.amount > 1 AND p.name <> 'Pear';`;
    const text = plan(comma);
    expect(text).toContain('Join(joinType=[InnerJoin], where=[=(product_id, id)]');
    expect(text).toMatch(/Exchange\(distribution=\[hash\[product_id\]\]\)\n.*Calc\(select=\[order_id, product_id, amount, order_time\], where=\[>\(amount, 1\)\]\)/);
    expect(text).toMatch(/Calc\(select=\[id, name, update_time\], where=\[<>\(name, 'Pear'\)\]\)/);
    expect(await run(comma, shop)).toEqual([r(1, 'Apple'), r(4, 'Apple')].sort());
    // After a LEFT join a condition on the padded side stays above the join: padded rows fail it.
    const left = `${ORDERS} SELECT o.order_id, p.name FROM Orders o LEFT JOIN Product p ON o.product_id = p.id WHERE p.name IS NULL;`;
    expect(await run(left, shop)).toEqual([r(3, null)]);
    // An ON condition on the preserved side of a LEFT join decides matches, it filters nothing.
    const on = `${ORDERS} SELECT o.order_id, p.name FROM Orders o LEFT JOIN Product p ON o.product_id = p.id AND o.amount > 4;`;
    expect(await run(on, shop)).toEqual([r(1, 'Apple'), r(2, null), r(3, null), r(4, null)].sort());
  });

  it('joins views and aggregates, keeping one row per key where the key is unique', async () => {
    const text = `${ORDERS}
      CREATE VIEW totals AS SELECT product_id, SUM(amount) AS total FROM Orders GROUP BY product_id;
      SELECT p.name, t.total FROM totals t JOIN Product p ON t.product_id = p.id;`;
    expect(plan(text)).toContain('leftInputSpec=[JoinKeyContainsUniqueKey], rightInputSpec=[NoUniqueKey]');
    expect(await run(text, shop)).toEqual([formatRow({ name: 'Apple', total: 7 }), formatRow({ name: 'Pear', total: 1 })].sort());
  });

  it('takes state retention from table.exec.state.ttl and per input from the STATE_TTL hint', () => {
    const specOf = (text: string): Record<string, unknown> => {
      const graph = compileSql(text).pipeline.jobGraph();
      const op = graph.stages.flatMap((s) => s.operators).find((o) => o.type === 'Join');
      return op?.spec as unknown as Record<string, unknown>;
    };
    const base = `SELECT o.order_id, p.name FROM Orders o JOIN Product p ON o.product_id = p.id;`;
    expect(specOf(`${ORDERS} SET 'table.exec.state.ttl' = '1 h'; ${base}`)).toMatchObject({ leftStateTtlMs: 3_600_000, rightStateTtlMs: 3_600_000 });
    const hinted = specOf(`${ORDERS} SELECT /*+ STATE_TTL('o' = '1d', 'Product' = '12h') */ o.order_id, p.name FROM Orders o JOIN Product p ON o.product_id = p.id;`);
    expect(hinted).toMatchObject({ leftStateTtlMs: 86_400_000, rightStateTtlMs: 43_200_000 });
  });

  it('names unknown columns and incomparable keys at the clause', () => {
    expect(sqlError(() => compileSql(`${ORDERS} SELECT * FROM Orders o JOIN Product p ON o.nope = p.id;`)).message).toMatch(/unknown column 'nope' in 'o'/);
    expect(sqlError(() => compileSql(`${ORDERS} SELECT * FROM Orders o JOIN Product p ON o.product_id = p.name;`)).message).toMatch(
      /INNER join: key product_id = name compares INT with STRING, which are not comparable/,
    );
  });
});

// ---- Interval joins: Orders and Shipments of Flink's join documentation ----

describe('interval joins', () => {
  const SHIP = `${ORDERS}
    CREATE TABLE Shipments (order_id INT, ship_time TIMESTAMP(3), WATERMARK FOR ship_time AS ship_time)
      WITH ('connector' = 'filesystem', 'path' = 'ship.jsonl', 'format' = 'json');`;
  const shipments = file('ship', [
    { order_id: 1, ship_time: '2020-01-01 12:00:00.000' },
    { order_id: 2, ship_time: '2020-01-01 15:00:00.000' },
    { order_id: 4, ship_time: '2020-01-01 10:03:00.000' },
  ]);

  it('plans a BETWEEN on the rowtimes as an IntervalJoin and joins within the bounds', async () => {
    const query = `${SHIP} SELECT o.order_id, s.ship_time FROM Orders o, Shipments s
      WHERE o.order_id = s.order_id AND o.order_time BETWEEN s.ship_time - INTERVAL '4' HOUR AND s.ship_time;`;
    expect(plan(query)).toContain(
      'IntervalJoin(joinType=[InnerJoin], windowBounds=[isRowTime=true, leftLowerBound=-14400000, leftUpperBound=0, leftTimeIndex=3, rightTimeIndex=1], where=[AND(=(order_id, order_id0), >=(order_time, -(ship_time, 14400000:INTERVAL HOUR)), <=(order_time, ship_time))]',
    );
    const r = (id: number, t: string): string => formatRow({ order_id: id, ship_time: ts(t) });
    expect(await run(query, { ...shop, Shipments: shipments })).toEqual([r(1, '2020-01-01 12:00:00'), r(4, '2020-01-01 10:03:00')].sort());
  });

  it('bounds on PROCTIME() attributes make a processing-time interval join', async () => {
    const PROC = `
      CREATE TABLE Orders (order_id INT, product_id INT, amount INT, order_time TIMESTAMP(3), pt AS PROCTIME())
        WITH ('connector' = 'filesystem', 'path' = 'orders.jsonl', 'format' = 'json');
      CREATE TABLE Product (id INT, name STRING, update_time TIMESTAMP(3), pt AS PROCTIME())
        WITH ('connector' = 'filesystem', 'path' = 'product.jsonl', 'format' = 'json');`;
    const query = `${PROC} SELECT o.order_id, p.name FROM Orders o LEFT JOIN Product p
      ON o.product_id = p.id AND o.pt BETWEEN p.pt - INTERVAL '1' HOUR AND p.pt + INTERVAL '1' HOUR;`;
    expect(plan(query)).toContain(
      'IntervalJoin(joinType=[LeftOuterJoin], windowBounds=[isRowTime=false, leftLowerBound=-3600000, leftUpperBound=3600000, leftTimeIndex=-1, rightTimeIndex=-1], where=[AND(=(product_id, id), >=(pt, -(pt0, 3600000:INTERVAL HOUR)), <=(pt, +(pt0, 3600000:INTERVAL HOUR)))]',
    );
    // Everything arrives within the hour: every order meets its product, order 3 none.
    const r = (order_id: number, name: string | null): string => formatRow({ order_id, name });
    expect(await run(query, shop)).toEqual([r(1, 'Apple'), r(2, 'Pear'), r(3, null), r(4, 'Apple')].sort());
    expect(sqlError(() => compileSql(`${PROC} SELECT o.order_id FROM Orders o JOIN Product p ON o.product_id = p.id AND o.pt <= p.pt;`)).message).toMatch(
      /a condition on PROCTIME\(\) attributes must bound one side's by the other's from below and above/,
    );
  });

  it('with a bound on one side only it is a regular join with a residual condition', () => {
    const query = `${SHIP} SELECT o.order_id FROM Orders o JOIN Shipments s ON o.order_id = s.order_id AND o.order_time <= s.ship_time;`;
    expect(plan(query)).toContain('Join(joinType=[InnerJoin], where=[AND(=(order_id, order_id0), <=(order_time, ship_time))]');
  });
});

// ---- Event-time temporal joins: Flink's documentation example ----

describe('event-time temporal joins', () => {
  const RATES = `
    CREATE TABLE orders (order_id STRING, price DECIMAL(10, 2), currency STRING, order_time TIMESTAMP(3), WATERMARK FOR order_time AS order_time)
      WITH ('connector' = 'filesystem', 'path' = 'o.jsonl', 'format' = 'json');
    CREATE TABLE currency_rates (currency STRING, conversion_rate DECIMAL(4, 2), update_time TIMESTAMP(3), WATERMARK FOR update_time AS update_time, PRIMARY KEY (currency) NOT ENFORCED)
      WITH ('connector' = 'filesystem', 'path' = 'r.jsonl', 'format' = 'json');`;
  const rates = file('rates', [
    { currency: 'Yen', conversion_rate: 1.02, update_time: '2020-01-01 09:00:00.000' },
    { currency: 'Euro', conversion_rate: 1.14, update_time: '2020-01-01 09:00:00.000' },
    { currency: 'USD', conversion_rate: 1.0, update_time: '2020-01-01 09:00:00.000' },
    { currency: 'Euro', conversion_rate: 1.19, update_time: '2020-01-01 11:15:00.000' },
    { currency: 'Pounds', conversion_rate: 1.08, update_time: '2020-01-01 11:49:00.000' },
  ]);
  const buys = file('buys', [
    { order_id: 'o1', price: 2, currency: 'Euro', order_time: '2020-01-01 10:15:00.000' },
    { order_id: 'o2', price: 1, currency: 'USD', order_time: '2020-01-01 10:30:00.000' },
    { order_id: 'o3', price: 50, currency: 'Yen', order_time: '2020-01-01 10:32:00.000' },
    { order_id: 'o4', price: 3, currency: 'Euro', order_time: '2020-01-01 10:52:00.000' },
    { order_id: 'o5', price: 5, currency: 'USD', order_time: '2020-01-01 11:04:00.000' },
    { order_id: 'o6', price: 4, currency: 'Euro', order_time: '2020-01-01 11:20:00.000' },
  ]);
  const inputs = { orders: buys, currency_rates: rates };
  const expected = [
    ['o1', 'Euro', '1.14'],
    ['o2', 'USD', '1.00'],
    ['o3', 'Yen', '1.02'],
    ['o4', 'Euro', '1.14'],
    ['o5', 'USD', '1.00'],
    ['o6', 'Euro', '1.19'],
  ];
  const rows = (list: string[][]): string[] => list.map(([order_id, currency, rate]) => formatRow({ order_id: order_id ?? null, currency: currency ?? null, rate: BigInt(Math.round(Number(rate) * 100)) })).sort();

  it('joins each order with the rate valid at its time, against a versioned table (PRIMARY KEY and watermark)', async () => {
    const query = `${RATES} SELECT o.order_id, o.currency, r.conversion_rate AS rate FROM orders AS o
      JOIN currency_rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency;`;
    expect(plan(query)).toContain(
      'TemporalJoin(joinType=[InnerJoin], where=[AND(=(currency, currency0), __TEMPORAL_JOIN_CONDITION(order_time, update_time, __TEMPORAL_JOIN_CONDITION_PRIMARY_KEY(currency0), __TEMPORAL_JOIN_LEFT_KEY(currency), __TEMPORAL_JOIN_RIGHT_KEY(currency0)))]',
    );
    expect(await run(query, inputs)).toEqual(rows(expected));
  });

  it('and against a versioned view (the latest row per key by ROW_NUMBER … DESC = 1)', async () => {
    const query = `${RATES.replace(', PRIMARY KEY (currency) NOT ENFORCED', '')}
      CREATE VIEW versioned_rates AS SELECT currency, conversion_rate, update_time FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY update_time DESC) AS rownum FROM currency_rates) WHERE rownum = 1;
      SELECT o.order_id, o.currency, r.conversion_rate AS rate FROM orders AS o
      LEFT JOIN versioned_rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency;`;
    expect(plan(query)).toContain('TemporalJoin(joinType=[LeftOuterJoin]');
    expect(await run(query, inputs, 1)).toEqual(rows(expected));
  });

  it('needs a primary key on the versioned side', () => {
    const query = `${RATES.replace(', PRIMARY KEY (currency) NOT ENFORCED', '')}
      SELECT o.order_id FROM orders AS o JOIN currency_rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency;`;
    expect(() => compileSql(query).pipeline.plan()).toThrow(/the versioned table needs a primary key contained in the join key \[currency\]/);
  });
});

it('formats test timestamps as the codec reads them', () => {
  expect(formatTimestamp(ts('2020-04-15 12:05:00'))).toBe('2020-04-15 12:05:00.000');
});
