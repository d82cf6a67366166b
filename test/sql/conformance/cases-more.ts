/**
 * More conformance cases: the examples of Flink's query, statement and concept pages not in
 * cases.ts, and the variants users paste — parallelism 4, updating inputs (a Debezium source, a
 * GROUP BY upstream), NULL keys, rows out of order and late — over the fixture tables, with
 * results worked out by hand from Flink's semantics (see each comment).
 */
import type { ConformanceCase } from './cases.ts';

const ts = (time: string): string => `2024-01-01 ${time}.000`;

const SELECT = 'sql/queries/select';
const WITH = 'sql/queries/with';
const GROUP = 'sql/queries/group-agg';
const OVER = 'sql/queries/over-agg';
const TVF = 'sql/queries/window-tvf';
const WAGG = 'sql/queries/window-agg';
const WTOPN = 'sql/queries/window-topn';
const WDEDUP = 'sql/queries/window-deduplication';
const WJOIN = 'sql/queries/window-join';
const JOINS = 'sql/queries/joins';
const TOPN = 'sql/queries/topn';
const DEDUP = 'sql/queries/deduplication';
const HINTS = 'sql/queries/hints';
const INSERT = 'sql/insert';
const VIEW = 'sql/create (CREATE VIEW)';
const CREATE = 'sql/create';
const DYNAMIC = 'concepts/dynamic_tables';
const TIME = 'concepts/time_attributes';
const VERSIONED = 'concepts/versioned_tables';
const TYPES = 'types';
const CLIENT = 'sqlClient';

/** The window join page's two windowed tables. */
const tumble5 = (t: string): string => `(SELECT * FROM TABLE(TUMBLE(TABLE ${t}, DESCRIPTOR(row_time), INTERVAL '5' MINUTES)))`;
const hop5x10 = (t: string): string => `(SELECT * FROM TABLE(HOP(TABLE ${t}, DESCRIPTOR(row_time), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)))`;
const WINDOWS_EQUAL = 'L.window_start = R.window_start AND L.window_end = R.window_end';

/** The products of the group-agg page's GROUPING SETS example. */
const PRODUCTS = "(VALUES ('supplier1', 'product1', 4), ('supplier1', 'product2', 3), ('supplier2', 'product3', 3), ('supplier2', 'product4', 4)) AS Products(supplier_id, product_id, rating)";

/** Readings with NULL keys and values, inline. */
const NULLS = "(VALUES ('a', 1), ('a', CAST(NULL AS INT)), (CAST(NULL AS STRING), 3), (CAST(NULL AS STRING), CAST(NULL AS INT)), ('b', CAST(NULL AS INT))) AS T(k, v)";

/** The Debezium products and the orders of the versioned-tables page, declared by the fixtures. */
const CDC = ['ProductOrders', 'ProductChanges'];

const QUERIES: ConformanceCase[] = [
  { page: SELECT, name: 'an expression of two columns for one row', tables: ['Orders'], sql: 'SELECT price * amount FROM Orders WHERE order_id = 6', rows: ['12.0'] },
  { page: SELECT, name: 'SELECT DISTINCT keeps one NULL', sql: "SELECT DISTINCT k FROM (VALUES ('a'), (CAST(NULL AS STRING)), ('a'), (CAST(NULL AS STRING))) AS T(k)", changelog: ['+I[a]', '+I[NULL]'] },
  // apple and pear have 3 orders each: each joins the other through the shared count.
  { page: WITH, name: 'a WITH query read twice (a self-join)', tables: ['Orders'], sql: 'WITH t AS (SELECT product, COUNT(*) AS c FROM Orders GROUP BY product) SELECT a.product FROM t a JOIN t b ON a.c = b.c AND a.product <> b.product', rows: ['apple', 'pear'] },

  // A WITH item named like the table it reads reads the table; a view reads what was declared before it.
  { page: WITH, name: 'a WITH query named like the table it reads', tables: ['Orders'], sql: 'WITH Orders AS (SELECT * FROM Orders WHERE amount > 5) SELECT order_id FROM Orders', rows: ['4', '7'] },
  { page: WITH, name: 'a WITH query does not change the views a view reads', tables: ['Orders'], sql: 'CREATE VIEW big AS SELECT * FROM Orders WHERE amount > 5;\nCREATE VIEW v AS SELECT order_id FROM big;\nWITH big AS (SELECT * FROM Orders WHERE amount < 2) SELECT * FROM v', rows: ['4', '7'] },
  { page: WITH, name: 'a WITH query cannot read a later one', tables: ['Orders'], sql: 'WITH a AS (SELECT order_id FROM b), b AS (SELECT order_id FROM Orders) SELECT * FROM a', error: "line 2:33: unknown table 'b' (declared: Orders)" },

  { page: GROUP, name: 'COUNT(*) GROUP BY a column it does not select', tables: ['Orders'], sql: 'SELECT COUNT(*) FROM Orders GROUP BY product', rows: ['2', '3', '3'] },
  { page: GROUP, name: 'COUNT(DISTINCT …) updates as new values arrive', tables: ['Orders'], sql: 'SELECT COUNT(DISTINCT product) FROM Orders', changelog: ['+I[1]', '-U[1]', '+U[2]', '-U[2]', '+U[3]'] },
  // HAVING without GROUP BY filters the one group's updates: 3, 8, 10, 17, 18 fail, 22, 28, 30 pass.
  { page: GROUP, name: 'HAVING without GROUP BY', tables: ['Orders'], sql: 'SELECT SUM(amount) FROM Orders HAVING SUM(amount) > 20', changelog: ['+U[22]', '-U[22]', '+U[28]', '-U[28]', '+U[30]'] },
  { page: GROUP, name: 'HAVING without GROUP BY that never holds', tables: ['Orders'], sql: 'SELECT SUM(amount) FROM Orders HAVING SUM(amount) > 50', rows: [] },
  {
    page: GROUP,
    name: "GROUPING SETS over the page's four products",
    sql: `SELECT supplier_id, rating, COUNT(*) AS total FROM ${PRODUCTS} GROUP BY GROUPING SETS ((supplier_id, rating), (supplier_id), ())`,
    rows: ['NULL, NULL, 4', 'supplier1, 3, 1', 'supplier1, 4, 1', 'supplier1, NULL, 2', 'supplier2, 3, 1', 'supplier2, 4, 1', 'supplier2, NULL, 2'],
  },
  {
    page: GROUP,
    name: 'CUBE of three columns (eight grouping sets)',
    sql: `SELECT supplier_id, rating, product_id, COUNT(*) FROM ${PRODUCTS} GROUP BY CUBE (supplier_id, rating, product_id)`,
    rows: [
      'NULL, 3, NULL, 2', 'NULL, 3, product2, 1', 'NULL, 3, product3, 1', 'NULL, 4, NULL, 2', 'NULL, 4, product1, 1', 'NULL, 4, product4, 1', 'NULL, NULL, NULL, 4',
      'NULL, NULL, product1, 1', 'NULL, NULL, product2, 1', 'NULL, NULL, product3, 1', 'NULL, NULL, product4, 1',
      'supplier1, 3, NULL, 1', 'supplier1, 3, product2, 1', 'supplier1, 4, NULL, 1', 'supplier1, 4, product1, 1', 'supplier1, NULL, NULL, 2', 'supplier1, NULL, product1, 1', 'supplier1, NULL, product2, 1',
      'supplier2, 3, NULL, 1', 'supplier2, 3, product3, 1', 'supplier2, 4, NULL, 1', 'supplier2, 4, product4, 1', 'supplier2, NULL, NULL, 2', 'supplier2, NULL, product3, 1', 'supplier2, NULL, product4, 1',
    ],
  },
  // AVG of INT is an INT in Flink: 11 / 3 = 3, 13 / 3 = 4, 6 / 2 = 3.
  { page: GROUP, name: 'AVG of an INT column is an INT', tables: ['Orders'], sql: 'SELECT product, AVG(amount) FROM Orders GROUP BY product', rows: ['apple, 3', 'pear, 4', 'plum, 3'] },
  // The running INT average: 3, 4, 3, 4, 3, 3, 4, 3 — the sixth (22 / 6 = 3) equals the fifth,
  // and Flink's GroupAggFunction emits nothing for an unchanged result.
  { page: GROUP, name: 'an unchanged aggregate result is not emitted again', tables: ['Orders'], sql: 'SELECT AVG(amount) FROM Orders', changelog: ['+I[3]', '-U[3]', '+U[4]', '-U[4]', '+U[3]', '-U[3]', '+U[4]', '-U[4]', '+U[3]', '-U[3]', '+U[4]', '-U[4]', '+U[3]'] },
  { page: GROUP, name: 'NULL is a group of its own, and aggregates skip NULL values', sql: `SELECT k, COUNT(*), COUNT(v), SUM(v), MIN(v), MAX(v), AVG(v) FROM ${NULLS} GROUP BY k`, rows: ['NULL, 2, 1, 3, 3, 3, 3', 'a, 2, 1, 1, 1, 1, 1', 'b, 1, 0, NULL, NULL, NULL, NULL'] },
  { page: GROUP, name: 'DISTINCT aggregates skip NULL', sql: 'SELECT COUNT(DISTINCT v), SUM(DISTINCT v) FROM (VALUES (1), (1), (CAST(NULL AS INT)), (2)) AS T(v)', rows: ['2, 3'] },
  // Users' counts move between the outer groups: a group emptied is deleted (-D[1, 1]).
  {
    page: GROUP,
    name: 'a GROUP BY over an updating GROUP BY',
    tables: ['Orders'],
    sql: 'SELECT cnt, COUNT(*) FROM (SELECT `user`, COUNT(*) AS cnt FROM Orders GROUP BY `user`) GROUP BY cnt',
    changelog: ['+I[1, 1]', '-U[1, 1]', '+U[1, 2]', '-U[1, 2]', '+U[1, 1]', '+I[2, 1]', '-U[1, 1]', '+U[1, 2]', '-U[1, 2]', '+U[1, 1]', '-U[2, 1]', '+U[2, 2]', '-U[2, 2]', '+U[2, 1]', '+I[3, 1]', '-D[1, 1]', '-U[2, 1]', '+U[2, 2]', '-U[2, 2]', '+U[2, 1]', '-U[3, 1]', '+U[3, 2]'],
  },
  { page: GROUP, name: 'a GROUP BY over an updating GROUP BY at parallelism 4', tables: ['Orders'], sql: 'SELECT cnt, COUNT(*) FROM (SELECT `user`, COUNT(*) AS cnt FROM Orders GROUP BY `user`) GROUP BY cnt', parallelism: 4, rows: ['2, 1', '3, 2'] },
  { page: GROUP, name: 'GROUP BY an expression', tables: ['Orders'], sql: 'SELECT UPPER(product) AS p, COUNT(*) FROM Orders GROUP BY UPPER(product)', rows: ['APPLE, 3', 'PEAR, 3', 'PLUM, 2'] },
  // amount > 3: orders 2, 4, 6, 7 (sum 22, prices 2.0…3.0); the others: 1, 3, 5, 8 (sum 8, 1.5…3.0).
  { page: GROUP, name: 'arithmetic over aggregates, grouped by a condition', tables: ['Orders'], sql: 'SELECT amount > 3 AS big, COUNT(*), SUM(amount) * 2 + 1, MAX(price) - MIN(price) FROM Orders GROUP BY amount > 3', rows: ['false, 4, 17, 1.5', 'true, 4, 45, 1.5'] },
  // No apple costs more than 1.5: its filtered SUM has no rows and is NULL.
  { page: GROUP, name: 'FILTER leaving a group no rows gives NULL', tables: ['Orders'], sql: 'SELECT product, SUM(amount) FILTER (WHERE price > 1.5), COUNT(DISTINCT `user`) FILTER (WHERE amount > 2) FROM Orders GROUP BY product', rows: ['apple, NULL, 2', 'pear, 13, 2', 'plum, 6, 1'] },

  { page: OVER, name: 'SUM OVER RANGE 1 HOUR per product (the page example)', tables: ['Orders'], sql: "SELECT order_id, order_time, amount, SUM(amount) OVER (PARTITION BY product ORDER BY order_time RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) AS one_hour_prod_amount_sum FROM Orders", rows: [`1, ${ts('10:00:00')}, 3, 3`, `2, ${ts('10:02:00')}, 5, 5`, `3, ${ts('10:04:00')}, 2, 7`, `4, ${ts('10:11:00')}, 7, 10`, `5, ${ts('10:13:00')}, 1, 11`, `6, ${ts('10:17:00')}, 4, 4`, `7, ${ts('10:21:00')}, 6, 13`, `8, ${ts('10:26:00')}, 2, 6`] },
  { page: OVER, name: 'the WINDOW clause shared by SUM and AVG (an INT average)', tables: ['Orders'], sql: "SELECT order_id, SUM(amount) OVER w AS sum_amount, AVG(amount) OVER w AS avg_amount FROM Orders WINDOW w AS (PARTITION BY product ORDER BY order_time RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW)", rows: ['1, 3, 3', '2, 5, 5', '3, 7, 3', '4, 10, 5', '5, 11, 3', '6, 4, 4', '7, 13, 4', '8, 6, 3'] },
  { page: OVER, name: 'no frame is RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW', tables: ['Orders'], sql: 'SELECT order_id, SUM(amount) OVER (PARTITION BY product ORDER BY order_time) FROM Orders', rows: ['1, 3', '2, 5', '3, 7', '4, 10', '5, 11', '6, 4', '7, 13', '8, 6'] },
  { page: OVER, name: 'two different OVER windows are rejected', tables: ['Orders'], sql: 'SELECT order_id, SUM(amount) OVER (PARTITION BY product ORDER BY order_time), COUNT(*) OVER (ORDER BY order_time) FROM Orders', error: 'line 2:79: all OVER aggregates of a query must use the same window (PARTITION BY, ORDER BY and frame)' },
  { page: OVER, name: 'ORDER BY the time attribute descending is rejected', tables: ['Orders'], sql: 'SELECT order_id, SUM(amount) OVER (PARTITION BY product ORDER BY order_time DESC) FROM Orders', error: 'line 2:66: OVER windows are ordered by a time attribute ascending' },
  { page: OVER, name: 'a FOLLOWING bound is rejected', tables: ['Orders'], sql: 'SELECT order_id, SUM(amount) OVER (PARTITION BY product ORDER BY order_time ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM Orders', error: 'line 2:106: OVER RANGE FOLLOWING windows are not supported yet: a streaming OVER frame ends at CURRENT ROW, as in Flink (this one ends at n FOLLOWING)' },
  { page: OVER, name: 'an OVER window without ORDER BY is rejected', tables: ['Orders'], sql: 'SELECT order_id, SUM(amount) OVER (PARTITION BY product) FROM Orders', error: 'line 2:18: an OVER aggregate needs ORDER BY one time attribute (a rowtime or PROCTIME() column)' },
  // Liz at 12:58 arrives after the watermark reached 13:00, Mary at 13:20 after 13:29: both late, dropped.
  { page: OVER, name: 'late rows are dropped (ROWS frame)', tables: ['UserClicks'], sql: 'SELECT `user`, url, COUNT(*) OVER (PARTITION BY `user` ORDER BY cTime ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM UserClicks', rows: ['Bob, ./cart, 1', 'Bob, ./home, 3', 'Bob, ./prod?id=3, 2', 'Liz, ./home, 1', 'Mary, ./home, 1', 'Mary, ./prod?id=1, 2', 'Mary, ./prod?id=7, 3'] },
  { page: OVER, name: 'late rows are dropped (RANGE frame)', tables: ['UserClicks'], sql: "SELECT `user`, url, COUNT(*) OVER (PARTITION BY `user` ORDER BY cTime RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) FROM UserClicks", rows: ['Bob, ./cart, 1', 'Bob, ./home, 2', 'Bob, ./prod?id=3, 2', 'Liz, ./home, 1', 'Mary, ./home, 1', 'Mary, ./prod?id=1, 2', 'Mary, ./prod?id=7, 2'] },
  { page: OVER, name: 'a ROWS frame at parallelism 4', tables: ['Orders'], parallelism: 4, sql: 'SELECT order_id, SUM(amount) OVER (PARTITION BY product ORDER BY order_time ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM Orders', rows: ['1, 3', '2, 5', '3, 7', '4, 10', '5, 8', '6, 4', '7, 8', '8, 6'] },
  { page: OVER, name: 'OVER a UNION ALL of two rowtime inputs', tables: ['Orders'], sql: 'SELECT order_id, SUM(amount) OVER (ORDER BY order_time ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM (SELECT order_id, amount, order_time FROM Orders WHERE amount > 2 UNION ALL SELECT order_id, amount, order_time FROM Orders WHERE amount <= 2)', rows: ['1, 3', '2, 8', '3, 7', '4, 9', '5, 8', '6, 5', '7, 10', '8, 8'] },
  { page: OVER, name: 'PARTITION BY an expression', tables: ['Orders'], sql: 'SELECT order_id, COUNT(*) OVER (PARTITION BY amount > 3 ORDER BY order_time ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM Orders', rows: ['1, 1', '2, 1', '3, 2', '4, 2', '5, 3', '6, 3', '7, 4', '8, 4'] },
  { page: OVER, name: 'a NULL partition key and NULL values', tables: ['Readings'], sql: 'SELECT k, v, SUM(v) OVER w, MIN(v) OVER w FROM Readings WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)', rows: ['NULL, 2, 2, 2', 'NULL, 4, 6, 2', 'NULL, 6, 12, 2', 'a, 1, 1, 1', 'a, 3, 4, 1', 'b, NULL, NULL, NULL'] },

  { page: TVF, name: 'SELECT * of a TUMBLE appends window_start, window_end and window_time', tables: ['Bid'], sql: "SELECT * FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) WHERE item = 'A'", rows: [`${ts('08:01:00')}, 3.00, A, s1, ${ts('08:00:00')}, ${ts('08:10:00')}, 2024-01-01 08:09:59.999`] },
  { page: TVF, name: 'a window over an expression of the rowtime is rejected', tables: ['Bid'], sql: "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE (SELECT item, bidtime + INTERVAL '1' MINUTE AS t FROM Bid), DESCRIPTOR(t), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end", error: "line 2:126: The window function TUMBLE requires the timecol to be a time attribute, but 't' is TIMESTAMP(3) (declare a WATERMARK FOR it, or window a PROCTIME() column)" },
  { page: TVF, name: 'a window over a TIMESTAMP without a WATERMARK is rejected', sql: "CREATE TABLE Bids (bidtime TIMESTAMP(3), price DECIMAL(10, 2), item STRING) WITH ('connector' = 'filesystem', 'path' = '{{Bid}}', 'format' = 'json');\nSELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE Bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end", error: "line 2:72: The window function TUMBLE requires the timecol to be a time attribute, but 'bidtime' is TIMESTAMP(3) (declare a WATERMARK FOR it, or window a PROCTIME() column)" },

  { page: WAGG, name: "CUMULATE with the page's 2-minute step", tables: ['Bid'], sql: "SELECT window_start, window_end, SUM(price) FROM TABLE(CUMULATE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '2' MINUTES, INTERVAL '10' MINUTES)) GROUP BY window_start, window_end", rows: [`${ts('08:00:00')}, ${ts('08:02:00')}, 3.00`, `${ts('08:00:00')}, ${ts('08:04:00')}, 3.00`, `${ts('08:00:00')}, ${ts('08:06:00')}, 5.00`, `${ts('08:00:00')}, ${ts('08:08:00')}, 10.00`, `${ts('08:00:00')}, ${ts('08:10:00')}, 11.00`, `${ts('08:10:00')}, ${ts('08:14:00')}, 4.00`, `${ts('08:10:00')}, ${ts('08:16:00')}, 10.00`, `${ts('08:10:00')}, ${ts('08:18:00')}, 10.00`, `${ts('08:10:00')}, ${ts('08:20:00')}, 13.00`, `${ts('08:30:00')}, ${ts('08:32:00')}, 7.00`, `${ts('08:30:00')}, ${ts('08:34:00')}, 7.00`, `${ts('08:30:00')}, ${ts('08:36:00')}, 7.00`, `${ts('08:30:00')}, ${ts('08:38:00')}, 7.00`, `${ts('08:30:00')}, ${ts('08:40:00')}, 7.00`] },
  { page: WAGG, name: 'CUMULATE at parallelism 4', tables: ['Bid'], parallelism: 4, sql: "SELECT window_start, window_end, SUM(price) FROM TABLE(CUMULATE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)) GROUP BY window_start, window_end", rows: [`${ts('08:00:00')}, ${ts('08:05:00')}, 5.00`, `${ts('08:00:00')}, ${ts('08:10:00')}, 11.00`, `${ts('08:10:00')}, ${ts('08:15:00')}, 10.00`, `${ts('08:10:00')}, ${ts('08:20:00')}, 13.00`, `${ts('08:30:00')}, ${ts('08:35:00')}, 7.00`, `${ts('08:30:00')}, ${ts('08:40:00')}, 7.00`] },
  {
    page: WAGG,
    name: 'CUBE in a window aggregation',
    tables: ['Bid'],
    sql: "SELECT window_start, item, supplier_id, SUM(price) AS price FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) WHERE item IN ('A', 'B', 'H') GROUP BY window_start, window_end, CUBE (supplier_id, item)",
    rows: [`${ts('08:00:00')}, A, NULL, 3.00`, `${ts('08:00:00')}, A, s1, 3.00`, `${ts('08:00:00')}, B, NULL, 2.00`, `${ts('08:00:00')}, B, s2, 2.00`, `${ts('08:00:00')}, NULL, NULL, 5.00`, `${ts('08:00:00')}, NULL, s1, 3.00`, `${ts('08:00:00')}, NULL, s2, 2.00`, `${ts('08:30:00')}, H, NULL, 7.00`, `${ts('08:30:00')}, H, s2, 7.00`, `${ts('08:30:00')}, NULL, NULL, 7.00`, `${ts('08:30:00')}, NULL, s2, 7.00`],
  },
  // 10:00–10:10 holds orders 1–3, 10:10–10:20 orders 4–6.
  { page: WAGG, name: 'HAVING in a window aggregation', tables: ['Orders'], sql: "SELECT window_start, window_end, COUNT(*) FROM TABLE(TUMBLE(TABLE Orders, DESCRIPTOR(order_time), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end HAVING COUNT(*) > 2", rows: [`${ts('10:00:00')}, ${ts('10:10:00')}, 3`, `${ts('10:10:00')}, ${ts('10:20:00')}, 3`] },
  { page: WAGG, name: 'COUNT(DISTINCT …) and FILTER in a window aggregation', tables: ['Bid'], sql: "SELECT window_start, COUNT(DISTINCT supplier_id), SUM(price) FILTER (WHERE price > 2) FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end", rows: [`${ts('08:00:00')}, 2, 8.00`, `${ts('08:10:00')}, 2, 13.00`, `${ts('08:30:00')}, 1, 7.00`] },
  { page: WAGG, name: 'a window aggregation grouped by an expression', tables: ['Bid'], sql: "SELECT window_start, price > 3 AS high, COUNT(*), SUM(price) FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end, price > 3 HAVING COUNT(*) > 1", rows: [`${ts('08:00:00')}, false, 3, 6.00`, `${ts('08:10:00')}, true, 2, 10.00`] },
  { page: WAGG, name: 'a NULL key is a group of a window aggregation', tables: ['Readings'], sql: "SELECT window_start, k, COUNT(*), SUM(v), COUNT(v) FROM TABLE(TUMBLE(TABLE Readings, DESCRIPTOR(ts), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end, k", rows: [`${ts('10:00:00')}, NULL, 2, 6, 2`, `${ts('10:00:00')}, a, 2, 4, 2`, `${ts('10:00:00')}, b, 1, NULL, 0`, `${ts('10:10:00')}, NULL, 1, 6, 1`] },
  // Late Liz (12:58) is dropped: her 12:00 hour fired when Mary's 13:01 moved the watermark to 13:00.
  { page: WAGG, name: 'TUMBLE per user drops a late row', tables: ['UserClicks'], sql: "SELECT `user`, window_end, COUNT(url) AS cnt FROM TABLE(TUMBLE(TABLE UserClicks, DESCRIPTOR(cTime), INTERVAL '1' HOURS)) GROUP BY `user`, window_start, window_end", rows: [`Bob, ${ts('13:00:00')}, 2`, `Bob, ${ts('14:00:00')}, 1`, `Liz, ${ts('13:00:00')}, 1`, `Mary, ${ts('13:00:00')}, 2`, `Mary, ${ts('14:00:00')}, 2`] },
  // 12:58 is late for 12:00–13:00 (fired) but counted in 12:30–13:30, still open; so is 13:20.
  { page: WAGG, name: 'HOP counts a row late for one window in the next', tables: ['UserClicks'], sql: "SELECT window_start, window_end, COUNT(*) FROM TABLE(HOP(TABLE UserClicks, DESCRIPTOR(cTime), INTERVAL '30' MINUTES, INTERVAL '1' HOUR)) GROUP BY window_start, window_end", rows: [`${ts('11:30:00')}, ${ts('12:30:00')}, 4`, `${ts('12:00:00')}, ${ts('13:00:00')}, 5`, `${ts('12:30:00')}, ${ts('13:30:00')}, 4`, `${ts('13:00:00')}, ${ts('14:00:00')}, 3`, `${ts('13:30:00')}, ${ts('14:30:00')}, 1`] },
  { page: WAGG, name: 'CUMULATE drops a row late for every window of its slice', tables: ['UserClicks'], sql: "SELECT window_start, window_end, COUNT(*) FROM TABLE(CUMULATE(TABLE UserClicks, DESCRIPTOR(cTime), INTERVAL '30' MINUTES, INTERVAL '1' HOUR)) GROUP BY window_start, window_end", rows: [`${ts('12:00:00')}, ${ts('12:30:00')}, 4`, `${ts('12:00:00')}, ${ts('13:00:00')}, 5`, `${ts('13:00:00')}, ${ts('13:30:00')}, 2`, `${ts('13:00:00')}, ${ts('14:00:00')}, 3`] },
  // Liz's 12:58 opens a session ending 13:28, after the watermark (13:00): not late.
  { page: WAGG, name: 'SESSION windows per user with rows out of order', tables: ['UserClicks'], sql: "SELECT `user`, window_start, window_end, COUNT(*) FROM TABLE(SESSION(TABLE UserClicks PARTITION BY `user`, DESCRIPTOR(cTime), INTERVAL '30' MINUTES)) GROUP BY `user`, window_start, window_end", rows: [`Bob, ${ts('12:00:00')}, ${ts('12:30:00')}, 1`, `Bob, ${ts('12:55:00')}, ${ts('13:25:00')}, 1`, `Bob, ${ts('13:30:00')}, ${ts('14:00:00')}, 1`, `Liz, ${ts('12:03:00')}, ${ts('12:33:00')}, 1`, `Liz, ${ts('12:58:00')}, ${ts('13:28:00')}, 1`, `Mary, ${ts('12:00:00')}, ${ts('12:32:00')}, 2`, `Mary, ${ts('13:01:00')}, ${ts('13:50:00')}, 2`] },
  { page: WAGG, name: 'legacy HOP with HOP_START and HOP_END', tables: ['Orders'], sql: "SELECT HOP_START(order_time, INTERVAL '5' MINUTE, INTERVAL '10' MINUTE), HOP_END(order_time, INTERVAL '5' MINUTE, INTERVAL '10' MINUTE), COUNT(*) FROM Orders GROUP BY HOP(order_time, INTERVAL '5' MINUTE, INTERVAL '10' MINUTE)", rows: [`${ts('09:55:00')}, ${ts('10:05:00')}, 3`, `${ts('10:00:00')}, ${ts('10:10:00')}, 3`, `${ts('10:05:00')}, ${ts('10:15:00')}, 2`, `${ts('10:10:00')}, ${ts('10:20:00')}, 3`, `${ts('10:15:00')}, ${ts('10:25:00')}, 2`, `${ts('10:20:00')}, ${ts('10:30:00')}, 2`, `${ts('10:25:00')}, ${ts('10:35:00')}, 1`] },
  { page: WAGG, name: 'legacy SESSION per user with SESSION_START and SESSION_END', tables: ['Orders'], sql: "SELECT `user`, SESSION_START(order_time, INTERVAL '5' MINUTE), SESSION_END(order_time, INTERVAL '5' MINUTE), COUNT(*) FROM Orders GROUP BY SESSION(order_time, INTERVAL '5' MINUTE), `user`", rows: [`alice, ${ts('10:00:00')}, ${ts('10:09:00')}, 2`, `alice, ${ts('10:17:00')}, ${ts('10:22:00')}, 1`, `bob, ${ts('10:02:00')}, ${ts('10:07:00')}, 1`, `bob, ${ts('10:13:00')}, ${ts('10:18:00')}, 1`, `bob, ${ts('10:26:00')}, ${ts('10:31:00')}, 1`, `carol, ${ts('10:11:00')}, ${ts('10:16:00')}, 1`, `carol, ${ts('10:21:00')}, ${ts('10:26:00')}, 1`] },
  { page: WAGG, name: 'legacy TUMBLE_ROWTIME feeds a second group window', tables: ['Orders'], sql: "CREATE VIEW w1 AS SELECT TUMBLE_ROWTIME(order_time, INTERVAL '5' MINUTE) AS rt, `user`, SUM(amount) AS s FROM Orders GROUP BY TUMBLE(order_time, INTERVAL '5' MINUTE), `user`;\nSELECT TUMBLE_START(rt, INTERVAL '20' MINUTE), SUM(s) FROM w1 GROUP BY TUMBLE(rt, INTERVAL '20' MINUTE)", rows: [`${ts('10:00:00')}, 22`, `${ts('10:20:00')}, 8`] },
  { page: WAGG, name: 'TUMBLE_START with other arguments than its group window is rejected', tables: ['Orders'], sql: "SELECT TUMBLE_START(order_time, INTERVAL '10' MINUTE), COUNT(*) FROM Orders GROUP BY TUMBLE(order_time, INTERVAL '20' MINUTE)", error: 'line 2:8: TUMBLE_START must have the arguments of the group window TUMBLE(…) in GROUP BY (the same time column and intervals)' },
  // Flink 1.19+ window aggregates consume changelogs: p1's retraction (00:01) comes before the
  // 00:00 hour fires, p2's (00:02) after, so it is late; 12:00 ends with p1 and p2.
  { page: WAGG, name: 'a window aggregation over a Debezium changelog', tables: ['ProductChanges'], sql: "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE ProductChanges, DESCRIPTOR(update_time), INTERVAL '1' HOUR)) GROUP BY window_start, window_end", rows: [`${ts('00:00:00')}, 1`, `${ts('12:00:00')}, 2`] },

  // 20-minute windows: s1 has C 5, E 4, A 3, G 3 and s2 F 6, B 2, D 1.
  { page: WTOPN, name: 'window Top-N per supplier with RANK', tables: ['Bid'], sql: "SELECT window_start, supplier_id, item, price, r FROM (SELECT *, RANK() OVER (PARTITION BY window_start, window_end, supplier_id ORDER BY price DESC) AS r FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '20' MINUTES))) WHERE r <= 2", rows: [`${ts('08:00:00')}, s1, C, 5.00, 1`, `${ts('08:00:00')}, s1, E, 4.00, 2`, `${ts('08:00:00')}, s2, B, 2.00, 2`, `${ts('08:00:00')}, s2, F, 6.00, 1`, `${ts('08:20:00')}, s2, H, 7.00, 1`] },
  { page: WTOPN, name: 'window Top-1 of HOP windows', tables: ['Bid'], sql: "SELECT window_start, window_end, item FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rn FROM TABLE(HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES))) WHERE rn <= 1", rows: [`${ts('07:55:00')}, ${ts('08:05:00')}, A`, `${ts('08:00:00')}, ${ts('08:10:00')}, C`, `${ts('08:05:00')}, ${ts('08:15:00')}, F`, `${ts('08:10:00')}, ${ts('08:20:00')}, F`, `${ts('08:15:00')}, ${ts('08:25:00')}, G`, `${ts('08:25:00')}, ${ts('08:35:00')}, H`, `${ts('08:30:00')}, ${ts('08:40:00')}, H`] },
  { page: WTOPN, name: 'window Top-N after a window aggregation, a late row dropped', tables: ['UserClicks'], sql: "SELECT window_start, `user`, cnt FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY cnt DESC) AS rn FROM (SELECT window_start, window_end, `user`, COUNT(*) AS cnt FROM TABLE(TUMBLE(TABLE UserClicks, DESCRIPTOR(cTime), INTERVAL '1' HOURS)) GROUP BY window_start, window_end, `user`)) WHERE rn <= 2", rows: [`${ts('12:00:00')}, Bob, 2`, `${ts('12:00:00')}, Mary, 2`, `${ts('13:00:00')}, Bob, 1`, `${ts('13:00:00')}, Mary, 2`] },

  { page: WDEDUP, name: 'the first row of every window', tables: ['Bid'], sql: "SELECT window_start, item FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY bidtime ASC) AS rownum FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))) WHERE rownum <= 1", rows: [`${ts('08:00:00')}, A`, `${ts('08:10:00')}, E`, `${ts('08:30:00')}, H`] },
  // The latest row of 12:00–13:00 is Bob's 12:55: Liz's 12:58 came after the hour fired.
  { page: WDEDUP, name: 'the last row of every window, a late row dropped', tables: ['UserClicks'], sql: "SELECT window_start, `user`, url FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY cTime DESC) AS rn FROM TABLE(TUMBLE(TABLE UserClicks, DESCRIPTOR(cTime), INTERVAL '1' HOURS))) WHERE rn <= 1", rows: [`${ts('12:00:00')}, Bob, ./prod?id=3`, `${ts('13:00:00')}, Bob, ./home`] },

  // The page's FULL JOIN; COALESCE gives every row its window, as the page's table shows it.
  {
    page: WJOIN,
    name: 'FULL window join of the page, every row with its window',
    tables: ['LeftTable', 'RightTable'],
    sql: `SELECT L.num as L_Num, L.id as L_Id, R.num as R_Num, R.id as R_Id, COALESCE(L.window_start, R.window_start) AS window_start, COALESCE(L.window_end, R.window_end) AS window_end FROM ${tumble5('LeftTable')} L FULL JOIN ${tumble5('RightTable')} R ON L.num = R.num AND ${WINDOWS_EQUAL}`,
    rows: [`1, L1, NULL, NULL, ${ts('12:00:00')}, ${ts('12:05:00')}`, `2, L2, NULL, NULL, ${ts('12:05:00')}, ${ts('12:10:00')}`, `3, L3, 3, R3, ${ts('12:00:00')}, ${ts('12:05:00')}`, `NULL, NULL, 2, R2, ${ts('12:00:00')}, ${ts('12:05:00')}`, `NULL, NULL, 4, R4, ${ts('12:05:00')}, ${ts('12:10:00')}`],
  },
  // Selecting L's window columns as the page does: NULL for a right-only row (Flink's WindowJoinITCase shows so).
  {
    page: WJOIN,
    name: "FULL window join selecting the left input's window",
    tables: ['LeftTable', 'RightTable'],
    parallelism: 4,
    sql: `SELECT L.num as L_Num, L.id as L_Id, R.num as R_Num, R.id as R_Id, L.window_start, L.window_end FROM ${tumble5('LeftTable')} L FULL JOIN ${tumble5('RightTable')} R ON L.num = R.num AND ${WINDOWS_EQUAL}`,
    rows: [`1, L1, NULL, NULL, ${ts('12:00:00')}, ${ts('12:05:00')}`, `2, L2, NULL, NULL, ${ts('12:05:00')}, ${ts('12:10:00')}`, `3, L3, 3, R3, ${ts('12:00:00')}, ${ts('12:05:00')}`, 'NULL, NULL, 2, R2, NULL, NULL', 'NULL, NULL, 4, R4, NULL, NULL'],
  },
  { page: WJOIN, name: 'LEFT window join', tables: ['LeftTable', 'RightTable'], sql: `SELECT L.id, R.id, L.window_start FROM ${tumble5('LeftTable')} L LEFT JOIN ${tumble5('RightTable')} R ON L.num = R.num AND ${WINDOWS_EQUAL}`, rows: [`L1, NULL, ${ts('12:00:00')}`, `L2, NULL, ${ts('12:05:00')}`, `L3, R3, ${ts('12:00:00')}`] },
  { page: WJOIN, name: 'RIGHT window join', tables: ['LeftTable', 'RightTable'], sql: `SELECT L.id, R.id FROM ${tumble5('LeftTable')} L RIGHT JOIN ${tumble5('RightTable')} R ON L.num = R.num AND ${WINDOWS_EQUAL}`, rows: ['L3, R3', 'NULL, R2', 'NULL, R4'] },
  // HOP 10 min every 5: L2 (12:06) and R2 (12:01) share 12:00–12:10; L3 and R3 share two windows.
  { page: WJOIN, name: 'a window join of HOP windows', tables: ['LeftTable', 'RightTable'], sql: `SELECT L.id, R.id, L.window_start FROM ${hop5x10('LeftTable')} L JOIN ${hop5x10('RightTable')} R ON L.num = R.num AND ${WINDOWS_EQUAL}`, rows: [`L2, R2, ${ts('12:00:00')}`, `L3, R3, ${ts('11:55:00')}`, `L3, R3, ${ts('12:00:00')}`] },
  {
    page: WJOIN,
    name: 'a window join of two window aggregations',
    tables: ['LeftTable', 'RightTable'],
    sql: "SELECT L.cnt, R.cnt, L.window_start FROM (SELECT window_start, window_end, COUNT(*) AS cnt FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES)) GROUP BY window_start, window_end) L JOIN (SELECT window_start, window_end, COUNT(*) AS cnt FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES)) GROUP BY window_start, window_end) R ON " + WINDOWS_EQUAL,
    rows: [`1, 1, ${ts('12:05:00')}`, `2, 2, ${ts('12:00:00')}`],
  },
  // Different windows make no window join: Flink (WindowJoinUtil) warns and plans a regular
  // join, whose window_start and window_end of a 5-minute TUMBLE and a 10-minute HOP never both match.
  { page: WJOIN, name: 'a join of different windows is a regular join', tables: ['LeftTable', 'RightTable'], sql: `SELECT L.id, R.id FROM ${tumble5('LeftTable')} L JOIN ${hop5x10('RightTable')} R ON L.num = R.num AND ${WINDOWS_EQUAL}`, rows: [] },

  { page: JOINS, name: 'SELECT * of an INNER JOIN has both inputs’ columns', tables: ['Orders', 'Product'], sql: 'SELECT * FROM Orders INNER JOIN Product ON Orders.product = Product.id WHERE order_id < 3', rows: [`1, alice, apple, 3, 1.5, ${ts('10:00:00')}, apple, Apple, 1`, `2, bob, pear, 5, 2.0, ${ts('10:02:00')}, pear, Pear, 2`] },
  // A left row failing the non-equi part of ON is kept with NULLs, not dropped.
  { page: JOINS, name: 'LEFT JOIN with a non-equi condition in ON', tables: ['Orders', 'Product'], sql: 'SELECT o.order_id, p.name, p.shelf FROM Orders o LEFT JOIN Product p ON o.product = p.id AND o.amount > p.shelf', rows: ['1, Apple, 1', '2, Pear, 2', '3, NULL, NULL', '4, Apple, 1', '5, NULL, NULL', '6, NULL, NULL', '7, Pear, 2', '8, NULL, NULL'] },
  { page: JOINS, name: 'RIGHT JOIN with a condition on the left input in ON', tables: ['Orders', 'Product'], sql: 'SELECT o.order_id, p.name FROM Orders o RIGHT JOIN Product p ON o.product = p.id AND o.amount > 5', rows: ['4, Apple', '7, Pear', 'NULL, Fig'] },
  { page: JOINS, name: 'FULL JOIN with a condition on one input in ON', tables: ['Orders', 'Product'], sql: "SELECT o.order_id, p.name FROM Orders o FULL JOIN Product p ON o.product = p.id AND o.`user` = 'alice'", rows: ['1, Apple', '2, NULL', '3, Pear', '4, NULL', '5, NULL', '6, NULL', '7, NULL', '8, NULL', 'NULL, Fig'] },
  { page: JOINS, name: 'a WHERE on the NULL-padded side of a LEFT JOIN', tables: ['Orders', 'Product'], sql: 'SELECT o.order_id, p.name FROM Orders o LEFT JOIN Product p ON o.product = p.id WHERE p.shelf IS NULL OR p.shelf > 1', rows: ['2, Pear', '3, Pear', '6, NULL', '7, Pear', '8, NULL'] },
  { page: JOINS, name: 'a LEFT JOIN of two aggregates', tables: ['Orders'], sql: "SELECT a.`user`, a.c, b.c FROM (SELECT `user`, COUNT(*) AS c FROM Orders GROUP BY `user`) a LEFT JOIN (SELECT `user`, COUNT(*) AS c FROM Orders WHERE product = 'pear' GROUP BY `user`) b ON a.`user` = b.`user`", rows: ['alice, 3, 1', 'bob, 3, 1', 'carol, 2, 1'] },
  { page: JOINS, name: "the page's interval join (shipped within four hours)", tables: ['Orders', 'Shipments'], sql: "SELECT o.order_id, s.ship_id FROM Orders o, Shipments s WHERE o.order_id = s.order_id AND o.order_time BETWEEN s.ship_time - INTERVAL '4' HOUR AND s.ship_time", rows: ['1, 10', '4, 12'] },
  { page: JOINS, name: 'LEFT interval join', tables: ['Orders', 'Shipments'], sql: "SELECT o.order_id, s.ship_id FROM Orders o LEFT JOIN Shipments s ON o.order_id = s.order_id AND o.order_time BETWEEN s.ship_time - INTERVAL '1' HOUR AND s.ship_time", rows: ['1, 10', '2, NULL', '3, NULL', '4, 12', '5, NULL', '6, NULL', '7, NULL', '8, NULL'] },
  { page: JOINS, name: 'RIGHT interval join', tables: ['Orders', 'Shipments'], sql: "SELECT o.order_id, s.ship_id FROM Orders o RIGHT JOIN Shipments s ON o.order_id = s.order_id AND o.order_time BETWEEN s.ship_time - INTERVAL '1' HOUR AND s.ship_time", rows: ['1, 10', '4, 12', 'NULL, 11', 'NULL, 13'] },
  { page: JOINS, name: 'FULL interval join with >= and < bounds', tables: ['Orders', 'Shipments'], sql: "SELECT o.order_id, s.ship_id FROM Orders o FULL JOIN Shipments s ON o.order_id = s.order_id AND s.ship_time >= o.order_time AND s.ship_time < o.order_time + INTERVAL '1' HOUR", rows: ['1, 10', '2, NULL', '3, NULL', '4, 12', '5, NULL', '6, NULL', '7, NULL', '8, NULL', 'NULL, 11', 'NULL, 13'] },
  { page: JOINS, name: 'an interval join on equal rowtimes (ltime = rtime)', tables: ['UserClicks'], sql: 'SELECT a.`user`, b.`user` FROM UserClicks a, UserClicks b WHERE a.cTime = b.cTime AND a.url <> b.url', rows: ['Bob, Mary', 'Mary, Bob'] },
  { page: JOINS, name: 'a self interval join (the next click within five minutes)', tables: ['UserClicks'], sql: "SELECT a.`user`, a.url, b.url FROM UserClicks a, UserClicks b WHERE a.`user` = b.`user` AND b.cTime > a.cTime AND b.cTime <= a.cTime + INTERVAL '5' MINUTE", rows: ['Mary, ./home, ./prod?id=1'] },
  // Not an equi-join: every pair is tested. amount > shelf + 4: 7 and 6 over Apple (1), 7 over Pear (2).
  { page: JOINS, name: 'a join without an equality (theta join)', tables: ['Orders', 'Product'], sql: 'SELECT o.order_id, p.id FROM Orders o, Product p WHERE o.amount > p.shelf + 4', rows: ['4, apple', '4, pear', '7, apple'] },
  { page: JOINS, name: 'NULL keys never match in a LEFT JOIN', sql: "SELECT a.k, b.v FROM (VALUES ('x', 1), (CAST(NULL AS STRING), 2)) AS a(k, n) LEFT JOIN (VALUES ('x', 10), (CAST(NULL AS STRING), 20)) AS b(k, v) ON a.k = b.k", rows: ['NULL, NULL', 'x, 10'] },
  { page: JOINS, name: 'NULL keys never match in a FULL JOIN', sql: "SELECT a.k, b.v FROM (VALUES ('x', 1), (CAST(NULL AS STRING), 2)) AS a(k, n) FULL JOIN (VALUES ('x', 10), (CAST(NULL AS STRING), 20)) AS b(k, v) ON a.k = b.k", rows: ['NULL, 20', 'NULL, NULL', 'x, 10'] },
  { page: JOINS, name: 'IS NOT DISTINCT FROM joins NULL keys', sql: "SELECT a.k, b.v FROM (VALUES ('x', 1), (CAST(NULL AS STRING), 2)) AS a(k, n) JOIN (VALUES ('x', 10), (CAST(NULL AS STRING), 20)) AS b(k, v) ON a.k IS NOT DISTINCT FROM b.k", rows: ['NULL, 20', 'x, 10'] },
  // 10:01 and 10:03 would pair if NULL equalled NULL.
  { page: JOINS, name: 'an interval join never matches NULL keys', tables: ['Readings'], sql: "SELECT a.v, b.v FROM Readings a, Readings b WHERE a.k = b.k AND a.ts BETWEEN b.ts - INTERVAL '2' MINUTE AND b.ts AND a.v < b.v", rows: ['1, 3'] },
  { page: JOINS, name: 'an event-time temporal join against a Debezium versioned table', tables: CDC, sql: 'SELECT o.order_id, o.order_time, p.product_name, p.price FROM ProductOrders AS o JOIN ProductChanges FOR SYSTEM_TIME AS OF o.order_time AS p ON o.product_id = p.product_id', rows: [`o1, ${ts('10:00:00')}, scooter, 11.11`, `o2, ${ts('11:00:00')}, basketball, 23.11`, `o3, ${ts('12:30:00')}, scooter, 12.99`, `o4, ${ts('13:00:00')}, basketball, 19.99`] },
  { page: JOINS, name: 'LEFT temporal join against a Debezium versioned table', tables: CDC, sql: 'SELECT o.order_id, p.price FROM ProductOrders AS o LEFT JOIN ProductChanges FOR SYSTEM_TIME AS OF o.order_time AS p ON o.product_id = p.product_id', rows: ['o1, 11.11', 'o2, 23.11', 'o3, 12.99', 'o4, 19.99', 'o5, NULL'] },
  // A regular join follows the updates: every order ends with its product's latest price.
  { page: JOINS, name: 'a regular LEFT JOIN against a Debezium changelog', tables: CDC, sql: 'SELECT o.order_id, p.price FROM ProductOrders AS o LEFT JOIN ProductChanges AS p ON o.product_id = p.product_id', rows: ['o1, 12.99', 'o2, 19.99', 'o3, 12.99', 'o4, 19.99', 'o5, NULL'] },

  { page: TOPN, name: 'Top-N with a condition besides the rank filter', tables: ['ShopSales'], sql: 'SELECT product_id, row_num FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY category ORDER BY sales DESC) AS row_num FROM ShopSales) WHERE row_num <= 2 AND sales > 25', changelog: ['+I[p1, 1]', '-U[p1, 1]', '+U[p2, 1]', '+I[p1, 2]', '+U[p5, 1]'] },
  { page: TOPN, name: 'only the second row (row_num = 2)', tables: ['ShopSales'], sql: 'SELECT product_id, row_num FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY category ORDER BY sales DESC) AS row_num FROM ShopSales) WHERE row_num = 2', rows: ['p1, 2', 'p4, 2'] },
  {
    page: TOPN,
    name: 'rows 2 to 3 follow the ranking as rows arrive',
    tables: ['ShopSales'],
    sql: 'SELECT product_id, row_num FROM (SELECT *, ROW_NUMBER() OVER (ORDER BY sales ASC) AS row_num FROM ShopSales) WHERE row_num BETWEEN 2 AND 3',
    changelog: ['+I[p2, 2]', '-U[p2, 2]', '+U[p1, 2]', '+I[p2, 3]', '-U[p1, 2]', '+U[p4, 2]', '-U[p2, 3]', '+U[p1, 3]', '-U[p4, 2]', '+U[p3, 2]', '-U[p1, 3]', '+U[p4, 3]'],
  },
  { page: TOPN, name: 'row_num < 3', tables: ['ShopSales'], sql: 'SELECT product_id, row_num FROM (SELECT *, ROW_NUMBER() OVER (ORDER BY sales ASC) AS row_num FROM ShopSales) WHERE row_num < 3', rows: ['p2, 1', 'p3, 2'] },
  // The second p2 ties the first at rank 2, which pushes p3 to rank 4 (RANK leaves a gap).
  { page: TOPN, name: 'RANK leaves a gap after ties', tables: ['ShopSales'], sql: 'SELECT product_id, r FROM (SELECT *, RANK() OVER (PARTITION BY category ORDER BY product_id) AS r FROM ShopSales) WHERE r <= 3', changelog: ['+I[p1, 1]', '+I[p2, 2]', '+I[p3, 3]', '+I[p4, 1]', '+I[p5, 2]', '+I[p2, 2]', '-D[p3, 3]'] },
  { page: TOPN, name: 'DENSE_RANK leaves no gap', tables: ['ShopSales'], sql: 'SELECT product_id, r FROM (SELECT *, DENSE_RANK() OVER (PARTITION BY category ORDER BY product_id) AS r FROM ShopSales) WHERE r <= 3', rows: ['p1, 1', 'p2, 2', 'p2, 2', 'p3, 3', 'p4, 1', 'p5, 2'] },
  {
    page: TOPN,
    name: 'Top-N over an updating GROUP BY',
    tables: ['Orders'],
    sql: 'SELECT `user`, cnt FROM (SELECT *, ROW_NUMBER() OVER (ORDER BY cnt DESC) AS rn FROM (SELECT `user`, COUNT(*) AS cnt FROM Orders GROUP BY `user`)) WHERE rn <= 2',
    changelog: ['+I[alice, 1]', '+I[bob, 1]', '-U[alice, 1]', '+U[alice, 2]', '-U[bob, 1]', '+U[bob, 2]', '-U[alice, 2]', '+U[alice, 3]', '-U[bob, 2]', '+U[bob, 3]'],
  },
  // Flink sorts NULL as the smallest value: first ascending, last descending.
  { page: TOPN, name: 'ascending, NULL ranks first', tables: ['Readings'], sql: 'SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER (ORDER BY v ASC) AS rn FROM Readings) WHERE rn <= 2', rows: ['a, 1', 'b, NULL'] },
  { page: TOPN, name: 'descending, NULL ranks last', tables: ['Readings'], sql: 'SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER (ORDER BY v DESC) AS rn FROM Readings) WHERE rn <= 2', rows: ['NULL, 4', 'NULL, 6'] },
  // Ranked by expressions: apple 10.5 (order 4), pear 12.0 (7), plum 12.0 (6); SUM(sales) per product.
  { page: TOPN, name: 'Top-N ordered by an expression', tables: ['Orders'], sql: 'SELECT order_id FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY product ORDER BY price * amount DESC) AS rn FROM Orders) WHERE rn = 1', rows: ['4', '6', '7'] },
  { page: TOPN, name: 'Top-N ordered by an aggregate of its GROUP BY', tables: ['ShopSales'], sql: 'SELECT * FROM (SELECT category, product_id, SUM(sales) AS total, ROW_NUMBER() OVER (PARTITION BY category ORDER BY SUM(sales) DESC) AS rn FROM ShopSales GROUP BY category, product_id) WHERE rn = 1', rows: ['fruit, p2, 55, 1', 'veg, p5, 40, 1'] },
  { page: TOPN, name: 'Top-N per category at parallelism 4', tables: ['ShopSales'], parallelism: 4, sql: 'SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY category ORDER BY sales DESC) AS row_num FROM ShopSales) WHERE row_num <= 2', rows: ['p1, fruit, apple, 30, 2', 'p2, fruit, pear, 50, 1', 'p4, veg, leek, 20, 2', 'p5, veg, kale, 40, 1'] },

  { page: DEDUP, name: 'first row per key by event time, rows out of order', tables: ['UserClicks'], sql: 'SELECT `user`, url FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY `user` ORDER BY cTime ASC) AS rn FROM UserClicks) WHERE rn = 1', rows: ['Bob, ./cart', 'Liz, ./home', 'Mary, ./home'] },
  // The latest by event time, not by arrival: Mary's 13:20 arrived last but so did it happen.
  { page: DEDUP, name: 'last row per key by event time, rows out of order', tables: ['UserClicks'], sql: 'SELECT `user`, url FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY `user` ORDER BY cTime DESC) AS rn FROM UserClicks) WHERE rn = 1', rows: ['Bob, ./home', 'Liz, ./cart', 'Mary, ./cart'] },
  { page: DEDUP, name: 'a NULL key is deduplicated like any other', tables: ['Readings'], sql: 'SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM Readings) WHERE rn = 1', rows: ['NULL, 6', 'a, 3', 'b, NULL'] },
];

const STATEMENTS: ConformanceCase[] = [
  { page: HINTS, name: "OPTIONS('path') reads another file for one query", tables: ['Orders'], sql: "SELECT order_id FROM Orders /*+ OPTIONS('path'='{{Shipments}}') */", rows: ['1', '2', '4', '9'] },
  { page: HINTS, name: 'OPTIONS on both tables of a join', tables: ['Orders', 'Product'], sql: "SELECT o.order_id, p.name FROM Orders /*+ OPTIONS('json.ignore-parse-errors'='true') */ o JOIN Product /*+ OPTIONS('json.fail-on-missing-field'='false') */ p ON o.product = p.id WHERE o.order_id < 3", rows: ['1, Apple', '2, Pear'] },
  { page: HINTS, name: 'OPTIONS on the INSERT target', tables: ['Orders'], sql: "CREATE TABLE out_t (id BIGINT) WITH ('connector' = 'print');\nINSERT INTO out_t /*+ OPTIONS('sink.parallelism'='2') */ SELECT order_id FROM Orders WHERE amount = 2", rows: ['3', '8'] },
  { page: HINTS, name: 'OPTIONS on a view is rejected', tables: ['Orders'], sql: "CREATE VIEW v AS SELECT * FROM Orders;\nSELECT order_id FROM v /*+ OPTIONS('path'='x') */", error: "line 3:27: View 'v' cannot be enriched with new options. Hints can only be applied to tables (as in Flink)" },
  // Join strategy hints are batch strategies: a streaming join is the same join.
  { page: HINTS, name: 'BROADCAST and SHUFFLE_HASH join hints', tables: ['Orders', 'Product'], sql: 'SELECT /*+ BROADCAST(Product), SHUFFLE_HASH(o) */ o.order_id, p.name FROM Orders o JOIN Product p ON o.product = p.id WHERE o.order_id < 3', rows: ['1, Apple', '2, Pear'] },
  { page: HINTS, name: 'a join hint naming no table of the query is rejected', tables: ['Orders', 'Product'], sql: 'SELECT /*+ BROADCAST(Customers) */ o.order_id FROM Orders o JOIN Product p ON o.product = p.id', error: "line 3:11: hint BROADCAST names 'Customers', which is not a table of this query's FROM (Orders, o, Product, p); Flink rejects a hint that matches no input" },
  { page: HINTS, name: 'STATE_TTL by alias', tables: ['Orders', 'Product'], sql: "SELECT /*+ STATE_TTL('o' = '1d', 'p' = '20d') */ o.order_id, p.name FROM Orders o LEFT JOIN Product p ON o.product = p.id WHERE o.order_id < 3", rows: ['1, Apple', '2, Pear'] },

  { page: INSERT, name: 'a column list in another order than the table', tables: ['Orders'], sql: "CREATE TABLE out_t (p STRING, id BIGINT) WITH ('connector' = 'print');\nINSERT INTO out_t (id, p) SELECT order_id, product FROM Orders WHERE amount = 2", rows: ['pear, 3', 'plum, 8'] },
  { page: INSERT, name: 'a column list leaving a middle column NULL', tables: ['Orders'], sql: "CREATE TABLE out_t (p STRING, id BIGINT, n INT) WITH ('connector' = 'print');\nINSERT INTO out_t (n, p) SELECT amount, product FROM Orders WHERE amount = 2", rows: ['pear, NULL, 2', 'plum, NULL, 2'] },
  { page: INSERT, name: 'an INT into a BIGINT column (implicit widening)', tables: ['Orders'], sql: "CREATE TABLE out_t (id BIGINT, amt BIGINT) WITH ('connector' = 'print');\nINSERT INTO out_t SELECT order_id, amount FROM Orders WHERE amount = 2", rows: ['3, 2', '8, 2'] },
  { page: INSERT, name: 'INSERT OVERWRITE into a streaming sink is rejected', tables: ['Orders'], sql: "CREATE TABLE out_t (id BIGINT, p STRING) WITH ('connector' = 'print');\nINSERT OVERWRITE out_t SELECT order_id, product FROM Orders", error: "line 3:1: INSERT OVERWRITE is not supported: INSERT OVERWRITE requires that the underlying DynamicTableSink of table 'default_catalog.default_database.out_t' implements the SupportsOverwrite interface." },
  { page: INSERT, name: 'INSERT … VALUES with NULLs', sql: "CREATE TABLE out_t (id BIGINT, p STRING) WITH ('connector' = 'print');\nINSERT INTO out_t VALUES (1, 'a'), (CAST(NULL AS BIGINT), NULL)", rows: ['1, a', 'NULL, NULL'] },
  { page: INSERT, name: 'BEGIN STATEMENT SET with an aggregate', tables: ['Orders'], sql: "CREATE TABLE a_t (id BIGINT) WITH ('connector' = 'print');\nCREATE TABLE b_t (p STRING, n BIGINT) WITH ('connector' = 'print');\nBEGIN STATEMENT SET;\nINSERT INTO a_t SELECT order_id FROM Orders WHERE amount > 6;\nINSERT INTO b_t SELECT product, COUNT(*) FROM Orders GROUP BY product;\nEND;", rows: ['a_t: 4', 'b_t: apple, 3', 'b_t: pear, 3', 'b_t: plum, 2'] },

  { page: VIEW, name: 'CREATE VIEW IF NOT EXISTS keeps the first view', tables: ['Orders'], sql: 'CREATE VIEW v AS SELECT * FROM Orders WHERE amount > 5;\nCREATE VIEW IF NOT EXISTS v AS SELECT * FROM Orders;\nSELECT order_id FROM v', rows: ['4', '7'] },
  { page: VIEW, name: 'CREATE TEMPORARY VIEW', tables: ['Orders'], sql: 'CREATE TEMPORARY VIEW big AS SELECT * FROM Orders WHERE amount > 5;\nSELECT order_id, amount FROM big', rows: ['4, 7', '7, 6'] },
  { page: VIEW, name: 'a view of an aggregating view', tables: ['Orders'], sql: 'CREATE VIEW v AS SELECT product, COUNT(*) AS c FROM Orders GROUP BY product;\nCREATE VIEW w AS SELECT * FROM v WHERE c > 2;\nSELECT product FROM w', rows: ['apple', 'pear'] },
  { page: VIEW, name: 'a view declared twice is rejected', tables: ['Orders'], sql: 'CREATE VIEW v AS SELECT 1;\nCREATE VIEW v AS SELECT 2;\nSELECT * FROM v', error: "line 3:1: view 'v' is declared twice" },
  { page: CREATE, name: 'CREATE TABLE IF NOT EXISTS keeps the first table', tables: ['Orders'], sql: "CREATE TABLE IF NOT EXISTS Orders (x INT) WITH ('connector' = 'print');\nSELECT order_id FROM Orders WHERE amount = 2", rows: ['3', '8'] },

  { page: CLIENT, name: 'a GROUP BY of VALUES in changelog mode', sql: "SELECT name, COUNT(*) AS cnt FROM (VALUES ('Bob'), ('Alice'), ('Greg'), ('Bob')) AS NameTable(name) GROUP BY name", changelog: ['+I[Bob, 1]', '+I[Alice, 1]', '+I[Greg, 1]', '-U[Bob, 1]', '+U[Bob, 2]'] },
  { page: CLIENT, name: 'SET and RESET options', sql: "SET 'table.exec.state.ttl' = '1 h';\nRESET 'table.exec.state.ttl';\nSET 'sql-client.execution.result-mode' = 'tableau';\nRESET;\nSELECT 'Hello World'", rows: ['Hello World'] },
  { page: CLIENT, name: 'batch execution mode', sql: "SET 'execution.runtime-mode' = 'batch';\nSELECT name, COUNT(*) AS cnt FROM (VALUES ('Bob'), ('Alice'), ('Greg'), ('Bob')) AS NameTable(name) GROUP BY name", rows: ['Alice, 1', 'Bob, 2', 'Greg, 1'] },
];

const CONCEPTS: ConformanceCase[] = [
  { page: DYNAMIC, name: 'the clicks per user as a continuous query', tables: ['UserClicks'], sql: 'SELECT `user`, COUNT(url) as cnt FROM UserClicks GROUP BY `user`', changelog: ['+I[Mary, 1]', '+I[Bob, 1]', '-U[Mary, 1]', '+U[Mary, 2]', '+I[Liz, 1]', '-U[Bob, 1]', '+U[Bob, 2]', '-U[Mary, 2]', '+U[Mary, 3]', '-U[Liz, 1]', '+U[Liz, 2]', '-U[Bob, 2]', '+U[Bob, 3]', '-U[Mary, 3]', '+U[Mary, 4]'] },
  { page: DYNAMIC, name: 'the clicks per user and hour (TUMBLE_END), a late click dropped', tables: ['UserClicks'], sql: "SELECT `user`, TUMBLE_END(cTime, INTERVAL '1' HOURS) AS endT, COUNT(url) AS cnt FROM UserClicks GROUP BY `user`, TUMBLE(cTime, INTERVAL '1' HOURS)", rows: [`Bob, ${ts('13:00:00')}, 2`, `Bob, ${ts('14:00:00')}, 1`, `Liz, ${ts('13:00:00')}, 1`, `Mary, ${ts('13:00:00')}, 2`, `Mary, ${ts('14:00:00')}, 2`] },
  // A Debezium update is -U of the old row and +U of the new; a delete is -D.
  { page: DYNAMIC, name: 'aggregates over a Debezium changelog', tables: ['ProductChanges'], sql: 'SELECT COUNT(*), SUM(price) FROM ProductChanges', changelog: ['+I[1, 11.11]', '-U[1, 11.11]', '+U[2, 34.22]', '-U[2, 34.22]', '+U[1, 23.11]', '-U[1, 23.11]', '+U[2, 36.10]', '-U[2, 36.10]', '+U[1, 12.99]', '-U[1, 12.99]', '+U[2, 32.98]', '-U[2, 32.98]', '+U[3, 37.98]', '-U[3, 37.98]', '+U[2, 32.98]'] },
  { page: DYNAMIC, name: 'SELECT DISTINCT over a Debezium changelog', tables: ['ProductChanges'], sql: 'SELECT DISTINCT product_name FROM ProductChanges', changelog: ['+I[scooter]', '+I[basketball]', '-D[scooter]', '+I[scooter]', '-D[basketball]', '+I[basketball]', '+I[kite]', '-D[kite]'] },

  { page: VERSIONED, name: 'a versioned view (the latest rate per currency) and its changelog', tables: ['currency_rates'], sql: 'SELECT currency, conversion_rate, update_time FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY update_time DESC) AS rownum FROM currency_rates) WHERE rownum = 1', changelog: [`+I[EUR, 1.1, ${ts('09:00:00')}]`, `-U[EUR, 1.1, ${ts('09:00:00')}]`, `+U[EUR, 1.2, ${ts('10:05:00')}]`, `+I[GBP, 1.3, ${ts('09:00:00')}]`, `-U[EUR, 1.2, ${ts('10:05:00')}]`, `+U[EUR, 1.0, ${ts('11:00:00')}]`] },
  { page: VERSIONED, name: 'a temporal join against a versioned view', tables: ['COrders', 'currency_rates'], sql: 'CREATE VIEW versioned_rates AS SELECT currency, conversion_rate, update_time FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY update_time DESC) AS rownum FROM currency_rates) WHERE rownum = 1;\nSELECT o.order_id, o.price * r.conversion_rate AS amount, r.currency FROM COrders AS o JOIN versioned_rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency', rows: ['1, 11.0, EUR', '2, 24.0, EUR', '3, 39.0, GBP', '4, 40.0, EUR'] },

  { page: TIME, name: 'a rowtime renamed in a WITH query is still one', tables: ['Orders'], sql: "WITH o AS (SELECT order_time AS t, amount FROM Orders WHERE amount > 1) SELECT window_start, SUM(amount) FROM TABLE(TUMBLE(TABLE o, DESCRIPTOR(t), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end", rows: [`${ts('10:00:00')}, 10`, `${ts('10:10:00')}, 11`, `${ts('10:20:00')}, 8`] },
  { page: TIME, name: 'UNION ALL of two rowtime inputs is a rowtime', tables: ['Orders'], sql: "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE (SELECT order_id, order_time FROM Orders WHERE amount > 2 UNION ALL SELECT order_id, order_time FROM Orders WHERE amount <= 2), DESCRIPTOR(order_time), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end", rows: [`${ts('10:00:00')}, 3`, `${ts('10:10:00')}, 3`, `${ts('10:20:00')}, 2`] },
  { page: TIME, name: 'an interval join keeps the rowtime', tables: ['Orders', 'Shipments'], sql: "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE (SELECT o.order_id, o.order_time FROM Orders o, Shipments s WHERE o.order_id = s.order_id AND o.order_time BETWEEN s.ship_time - INTERVAL '4' HOUR AND s.ship_time), DESCRIPTOR(order_time), INTERVAL '1' HOUR)) GROUP BY window_start, window_end", rows: [`${ts('10:00:00')}, 2`] },
  { page: TIME, name: 'a temporal join keeps the rowtime', tables: ['COrders', 'currency_rates'], sql: "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE (SELECT o.order_id, o.order_time, r.conversion_rate FROM COrders AS o JOIN currency_rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency), DESCRIPTOR(order_time), INTERVAL '1' HOUR)) GROUP BY window_start, window_end", rows: [`${ts('10:00:00')}, 3`, `${ts('12:00:00')}, 1`] },
  { page: TIME, name: 'a first-row deduplication keeps the rowtime', tables: ['Orders'], sql: "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE (SELECT `user`, order_time FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY `user` ORDER BY order_time ASC) AS rn FROM Orders) WHERE rn = 1), DESCRIPTOR(order_time), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end", rows: [`${ts('10:00:00')}, 2`, `${ts('10:10:00')}, 1`] },
  { page: TIME, name: 'an aggregate of the rowtime is no time attribute', tables: ['Orders'], sql: "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE (SELECT `user`, MAX(order_time) AS t FROM Orders GROUP BY `user`), DESCRIPTOR(t), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end", error: "line 2:133: The window function TUMBLE requires the timecol to be a time attribute, but 't' is TIMESTAMP(3) (declare a WATERMARK FOR it, or window a PROCTIME() column)" },
  { page: TIME, name: 'a regular join materializes the rowtime', tables: ['Orders', 'Product'], sql: "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE (SELECT o.order_id, o.order_time FROM Orders o JOIN Product p ON o.product = p.id), DESCRIPTOR(order_time), INTERVAL '1' HOUR)) GROUP BY window_start, window_end", error: "line 3:150: The window function TUMBLE requires the timecol to be a time attribute, but 'order_time' is TIMESTAMP(3) (declare a WATERMARK FOR it, or window a PROCTIME() column)" },
];

const TYPE_CASES: ConformanceCase[] = [
  // INT + INT is an INT, which wraps around as Java's int does.
  { page: TYPES, name: 'INT arithmetic overflows', sql: 'SELECT 2147483647 + 1', rows: ['-2147483648'] },
  { page: TYPES, name: 'SUM of an INT column is an INT', sql: 'SELECT SUM(v) FROM (VALUES (2147483647), (1)) AS T(v)', rows: ['-2147483648'] },
  { page: TYPES, name: 'integer division truncates and % keeps the sign of the dividend', sql: 'SELECT 10 % 3, -7 / 2, -7 % 3, MOD(-7, 3)', rows: ['1, -3, -1, -1'] },
  // DECIMAL(5, 2) × DECIMAL(5, 2) is DECIMAL(11, 4); DECIMAL(5, 0) ÷ DECIMAL(5, 0) has scale max(6, 0 + 5 + 1) = 6.
  { page: TYPES, name: 'DECIMAL product and quotient scales', sql: 'SELECT CAST(1.5 AS DECIMAL(5,2)) * CAST(2.25 AS DECIMAL(5,2)), CAST(10 AS DECIMAL(5,0)) / CAST(3 AS DECIMAL(5,0))', rows: ['3.3750, 3.333333'] },
  // AVG of DECIMAL(4, 1) has scale max(6, 1); SUM keeps the scale.
  { page: TYPES, name: 'AVG and SUM of a DECIMAL', sql: 'SELECT AVG(CAST(v AS DOUBLE)), AVG(v), SUM(v) FROM (VALUES (CAST(1.5 AS DECIMAL(4,1))), (CAST(2.0 AS DECIMAL(4,1)))) AS T(v)', rows: ['1.75, 1.750000, 3.5'] },
  { page: TYPES, name: 'CAST to VARCHAR(n) cuts the string', sql: "SELECT CAST('hello' AS VARCHAR(2))", rows: ['he'] },
  { page: TYPES, name: 'CASTs between BOOLEAN, numbers and strings', sql: 'SELECT CAST(TRUE AS INT), CAST(1 AS BOOLEAN), CAST(\'true\' AS BOOLEAN), CAST(12 AS STRING), CAST(1.50 AS STRING), CAST(CAST(1.5 AS DOUBLE) AS STRING)', rows: ['1, true, true, 12, 1.50, 1.5'] },
];

/** The cases of this file. */
export const MORE_CASES: readonly ConformanceCase[] = [...QUERIES, ...STATEMENTS, ...CONCEPTS, ...TYPE_CASES];

/** What Flink runs and Flambda does not, of this file's cases (merged into NOT_SUPPORTED). */
export const MORE_NOT_SUPPORTED: readonly (readonly [string, string])[] = [
  ['batch execution mode', "line 1:1: SET 'execution.runtime-mode' = 'batch' is not supported: Flambda runs every job in streaming mode"],
];
