/**
 * The conformance cases: examples of Flink's SQL documentation pages, rewritten over our own
 * fixture tables (fixtures.ts) with results worked out by hand for that data. Each case names
 * the page it follows (a path under https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/)
 * and gives its documented result (`rows`: the sink's final rows, sorted, as `v1, v2, …`; or
 * `changelog`: every change in order, on one task), or the error Flink gives too (`error`).
 * What Flambda does not run yet is on the {@link NOT_SUPPORTED} list with its exact message.
 */
import { CATALOG_CASES } from './catalog-cases.ts';

import { MORE_CASES, MORE_NOT_SUPPORTED } from './cases-more.ts';
import { TYPES_CASES } from './cases-types.ts';
import { WINDOW_CASES } from './cases-windows.ts';

/** One example. */
export interface ConformanceCase {
  /** The documentation page it follows, e.g. `sql/queries/window-tvf`. */
  readonly page: string;
  /** What it shows, unique within the suite. */
  readonly name: string;
  /** Fixture tables declared before `sql` (one DDL line each). */
  readonly tables?: readonly string[];
  /** The statements (`{{T}}` is the JSON-lines path of fixture table T). */
  readonly sql: string;
  /** The final rows of its sink, sorted. */
  readonly rows?: readonly string[];
  /** Or its changelog in order (`+I[…]`, `-U[…]`, `+U[…]`, `-D[…]`). */
  readonly changelog?: readonly string[];
  /**
   * Or: Flink rejects it too; the message Flambda gives. (What Flink runs and Flambda does not is
   * in {@link NOT_SUPPORTED}, so that the case keeps its documented result.)
   */
  readonly error?: string;
  /** Or what its EXPLAIN, SHOW and DESCRIBE statements print, exactly (joined by a blank line). */
  readonly explain?: string;
  /** Or a pattern that output matches (for parts that are measured, such as EXPLAIN ESTIMATED_COST's dollars). */
  readonly explainMatches?: RegExp;
  /** Tasks per stage. @default 1 */
  readonly parallelism?: number;
}

const ts = (time: string): string => `2024-01-01 ${time}.000`;

const SELECT = 'sql/queries/select';
const WHERE = 'sql/queries/select (WHERE)';
const DISTINCT = 'sql/queries/select-distinct';
const GROUP = 'sql/queries/group-agg';
const OVER = 'sql/queries/over-agg';
const TVF = 'sql/queries/window-tvf';
const WAGG = 'sql/queries/window-agg';
const WTOPN = 'sql/queries/window-topn';
const WDEDUP = 'sql/queries/window-deduplication';
const WJOIN = 'sql/queries/window-join';
const TOPN = 'sql/queries/topn';
const DEDUP = 'sql/queries/deduplication';
const JOINS = 'sql/queries/joins';
const SETOPS = 'sql/queries/set-ops';
const WITH = 'sql/queries/with';
const ORDERBY = 'sql/queries/orderby';
const LIMIT = 'sql/queries/limit';
const CREATE = 'sql/create';
const INSERT = 'sql/insert';
const EXPLAIN = 'sql/explain';
const VIEW = 'sql/create (CREATE VIEW)';
const FUNCTIONS = 'functions/systemFunctions';

/** The ordered ids of Orders, as `n` rows. */
const ids = (...n: number[]): string[] => n.map(String);

/** The examples of the query pages. */
const QUERIES: ConformanceCase[] = [
  { page: SELECT, name: 'SELECT * from a table', tables: ['Orders'], sql: 'SELECT * FROM Orders WHERE order_id <= 2', rows: [`1, alice, apple, 3, 1.5, ${ts('10:00:00')}`, `2, bob, pear, 5, 2.0, ${ts('10:02:00')}`] },
  { page: SELECT, name: 'projection with an expression and an alias', tables: ['Orders'], sql: 'SELECT order_id, price * amount AS total FROM Orders WHERE order_id = 4', rows: ['4, 10.5'] },
  { page: SELECT, name: 'SELECT from inline VALUES with column names', sql: 'SELECT order_id, price FROM (VALUES (1, 2.0), (2, 3.1)) AS t (order_id, price)', rows: ['1, 2.0', '2, 3.1'] },
  { page: SELECT, name: 'a scalar function in the select list', tables: ['Orders'], sql: 'SELECT UPPER(product) FROM Orders WHERE amount > 5', rows: ['APPLE', 'PEAR'] },
  { page: SELECT, name: 'SELECT without FROM', sql: "SELECT 1 + 1 AS two, 'x' || 'y' AS xy", rows: ['2, xy'] },
  { page: WHERE, name: 'WHERE with AND', tables: ['Orders'], sql: "SELECT order_id FROM Orders WHERE product = 'pear' AND amount > 2", rows: ids(2, 7) },
  { page: WHERE, name: 'WHERE with OR, IN and BETWEEN', tables: ['Orders'], sql: "SELECT order_id FROM Orders WHERE `user` IN ('carol') OR amount BETWEEN 4 AND 5", rows: ids(2, 4, 6, 7) },
  { page: WHERE, name: 'WHERE with LIKE', tables: ['Orders'], sql: "SELECT DISTINCT product FROM Orders WHERE product LIKE 'p%'", rows: ['pear', 'plum'] },
  { page: DISTINCT, name: 'SELECT DISTINCT', tables: ['Orders'], sql: 'SELECT DISTINCT product FROM Orders', rows: ['apple', 'pear', 'plum'] },
  { page: DISTINCT, name: 'SELECT DISTINCT retracts nothing (append-only changelog)', tables: ['Orders'], sql: 'SELECT DISTINCT `user` FROM Orders', changelog: ['+I[alice]', '+I[bob]', '+I[carol]'] },

  { page: GROUP, name: 'COUNT(*) of a table', tables: ['Orders'], sql: 'SELECT COUNT(*) FROM Orders', rows: ['8'] },
  { page: GROUP, name: 'COUNT(*) updates as rows arrive', tables: ['Orders'], sql: 'SELECT COUNT(*) FROM Orders WHERE order_id <= 3', changelog: ['+I[1]', '-U[1]', '+U[2]', '-U[2]', '+U[3]'] },
  { page: GROUP, name: 'GROUP BY a column', tables: ['Orders'], sql: 'SELECT product, COUNT(*) FROM Orders GROUP BY product', rows: ['apple, 3', 'pear, 3', 'plum, 2'] },
  { page: GROUP, name: 'COUNT(DISTINCT …)', tables: ['Orders'], sql: 'SELECT COUNT(DISTINCT `user`) FROM Orders', rows: ['3'] },
  { page: GROUP, name: 'HAVING', tables: ['Orders'], sql: 'SELECT `user`, SUM(amount) FROM Orders GROUP BY `user` HAVING SUM(amount) > 8', rows: ['alice, 9', 'carol, 13'] },
  { page: GROUP, name: 'SUM, MIN, MAX and AVG', tables: ['Orders'], sql: 'SELECT product, SUM(amount), MIN(amount), MAX(amount), AVG(price) FROM Orders GROUP BY product', rows: ['apple, 11, 1, 7, 1.5', 'pear, 13, 2, 6, 2.0', 'plum, 6, 2, 4, 3.0'] },
  { page: GROUP, name: 'FILTER (WHERE …) on an aggregate', tables: ['Orders'], sql: "SELECT product, COUNT(*) FILTER (WHERE `user` = 'alice') FROM Orders GROUP BY product", rows: ['apple, 1', 'pear, 1', 'plum, 1'] },
  {
    page: GROUP,
    name: 'GROUPING SETS',
    sql: "SELECT supplier_id, rating, COUNT(*) AS total FROM (VALUES ('s1', 'p1', 4), ('s1', 'p2', 3), ('s2', 'p3', 3), ('s2', 'p4', 4), ('s2', 'p5', 4)) AS Products(supplier_id, product_id, rating) GROUP BY GROUPING SETS ((supplier_id, rating), (supplier_id), ())",
    rows: ['NULL, NULL, 5', 's1, 3, 1', 's1, 4, 1', 's1, NULL, 2', 's2, 3, 1', 's2, 4, 2', 's2, NULL, 3'],
  },
  {
    page: GROUP,
    name: 'ROLLUP',
    sql: "SELECT supplier_id, rating, COUNT(*) AS total FROM (VALUES ('s1', 'p1', 4), ('s1', 'p2', 3), ('s2', 'p3', 3), ('s2', 'p4', 4), ('s2', 'p5', 4)) AS Products(supplier_id, product_id, rating) GROUP BY ROLLUP (supplier_id, rating)",
    rows: ['NULL, NULL, 5', 's1, 3, 1', 's1, 4, 1', 's1, NULL, 2', 's2, 3, 1', 's2, 4, 2', 's2, NULL, 3'],
  },
  {
    page: GROUP,
    name: 'CUBE',
    sql: "SELECT supplier_id, rating, COUNT(*) AS total FROM (VALUES ('s1', 'p1', 4), ('s1', 'p2', 3), ('s2', 'p3', 3), ('s2', 'p4', 4), ('s2', 'p5', 4)) AS Products(supplier_id, product_id, rating) GROUP BY CUBE (supplier_id, rating)",
    rows: ['NULL, 3, 2', 'NULL, 4, 3', 'NULL, NULL, 5', 's1, 3, 1', 's1, 4, 1', 's1, NULL, 2', 's2, 3, 1', 's2, 4, 2', 's2, NULL, 3'],
  },
  { page: GROUP, name: 'GROUP BY without aggregates', tables: ['Orders'], sql: 'SELECT `user` FROM Orders GROUP BY `user`', rows: ['alice', 'bob', 'carol'] },

  {
    page: OVER,
    name: 'SUM OVER a RANGE INTERVAL frame',
    tables: ['Orders'],
    sql: "SELECT order_id, product, amount, SUM(amount) OVER (PARTITION BY product ORDER BY order_time RANGE BETWEEN INTERVAL '10' MINUTE PRECEDING AND CURRENT ROW) AS s FROM Orders",
    rows: ['1, apple, 3, 3', '2, pear, 5, 5', '3, pear, 2, 7', '4, apple, 7, 7', '5, apple, 1, 8', '6, plum, 4, 4', '7, pear, 6, 6', '8, plum, 2, 6'],
  },
  {
    page: OVER,
    name: 'MAX OVER a ROWS frame',
    tables: ['Orders'],
    sql: 'SELECT order_id, MAX(amount) OVER (PARTITION BY product ORDER BY order_time ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM Orders',
    rows: ['1, 3', '2, 5', '3, 5', '4, 7', '5, 7', '6, 4', '7, 6', '8, 4'],
  },
  {
    page: OVER,
    name: 'a named WINDOW shared by two aggregates',
    tables: ['Orders'],
    sql: 'SELECT order_id, COUNT(amount) OVER w, SUM(amount) OVER w FROM Orders WINDOW w AS (PARTITION BY product ORDER BY order_time ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)',
    rows: ['1, 1, 3', '2, 1, 5', '3, 2, 7', '4, 2, 10', '5, 3, 11', '6, 1, 4', '7, 3, 13', '8, 2, 6'],
  },
  { page: OVER, name: 'a running total (UNBOUNDED PRECEDING)', tables: ['Orders'], sql: 'SELECT order_id, SUM(amount) OVER (ORDER BY order_time ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM Orders', rows: ['1, 3', '2, 8', '3, 10', '4, 17', '5, 18', '6, 22', '7, 28', '8, 30'] },
  {
    page: OVER,
    name: 'COUNT(DISTINCT …) OVER a ROWS frame',
    tables: ['Orders'],
    sql: 'SELECT order_id, COUNT(DISTINCT product) OVER (ORDER BY order_time ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM Orders',
    rows: ['1, 1', '2, 2', '3, 2', '4, 2', '5, 2', '6, 2', '7, 3', '8, 2'],
  },
  {
    page: OVER,
    name: 'SUM(DISTINCT …) beside SUM over one window',
    tables: ['Orders'],
    sql: 'SELECT order_id, SUM(DISTINCT price) OVER w, SUM(price) OVER w FROM Orders WINDOW w AS (PARTITION BY product ORDER BY order_time)',
    rows: ['1, 1.5, 1.5', '2, 2.0, 2.0', '3, 2.0, 4.0', '4, 1.5, 3.0', '5, 1.5, 4.5', '6, 3.0, 3.0', '7, 2.0, 6.0', '8, 3.0, 6.0'],
  },
  { page: OVER, name: 'a FOLLOWING frame end is rejected', tables: ['Orders'], sql: 'SELECT SUM(amount) OVER (ORDER BY order_time ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM Orders', error: 'line 2:75: OVER RANGE FOLLOWING windows are not supported yet: a streaming OVER frame ends at CURRENT ROW, as in Flink (this one ends at n FOLLOWING)' },
  { page: OVER, name: 'ORDER BY a non-time column is rejected', tables: ['Orders'], sql: 'SELECT SUM(amount) OVER (ORDER BY amount) FROM Orders', error: "line 2:35: OVER windows can only be ordered by a time attribute ascending; 'amount' is not a rowtime or PROCTIME() attribute" },

  { page: TVF, name: 'TUMBLE assigns windows', tables: ['Bid'], sql: "SELECT item, window_start, window_end, window_time FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) WHERE item IN ('A', 'E', 'H')", rows: [`A, ${ts('08:00:00')}, ${ts('08:10:00')}, 2024-01-01 08:09:59.999`, `E, ${ts('08:10:00')}, ${ts('08:20:00')}, 2024-01-01 08:19:59.999`, `H, ${ts('08:30:00')}, ${ts('08:40:00')}, 2024-01-01 08:39:59.999`] },
  { page: TVF, name: 'TUMBLE with named arguments', tables: ['Bid'], sql: "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(DATA => TABLE Bid, TIMECOL => DESCRIPTOR(bidtime), SIZE => INTERVAL '10' MINUTES)) GROUP BY window_start, window_end", rows: [`${ts('08:00:00')}, 4`, `${ts('08:10:00')}, 3`, `${ts('08:30:00')}, 1`] },
  { page: TVF, name: 'HOP assigns each row two windows', tables: ['Bid'], sql: "SELECT item, window_start FROM TABLE(HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)) WHERE item = 'C'", rows: [`C, ${ts('08:00:00')}`, `C, ${ts('08:05:00')}`] },
  { page: TVF, name: 'CUMULATE assigns the growing windows', tables: ['Bid'], sql: "SELECT item, window_start, window_end FROM TABLE(CUMULATE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)) WHERE item = 'B'", rows: [`B, ${ts('08:00:00')}, ${ts('08:05:00')}`, `B, ${ts('08:00:00')}, ${ts('08:10:00')}`] },
  { page: TVF, name: 'SESSION without an aggregation', tables: ['Bid'], sql: "SELECT item, window_start, window_end FROM TABLE(SESSION(TABLE Bid PARTITION BY supplier_id, DESCRIPTOR(bidtime), INTERVAL '7' MINUTES)) WHERE supplier_id = 's2'", rows: [`B, ${ts('08:04:00')}, ${ts('08:21:00')}`, `D, ${ts('08:04:00')}, ${ts('08:21:00')}`, `F, ${ts('08:04:00')}, ${ts('08:21:00')}`, `H, ${ts('08:31:00')}, ${ts('08:38:00')}`] },
  { page: TVF, name: 'SESSION alone: a filter on other columns leaves the sessions as they are', tables: ['Bid'], sql: "SELECT item, window_start, window_end FROM TABLE(SESSION(TABLE Bid PARTITION BY supplier_id, DESCRIPTOR(bidtime), INTERVAL '7' MINUTES)) WHERE item <> 'D' AND supplier_id = 's2'", rows: [`B, ${ts('08:04:00')}, ${ts('08:21:00')}`, `F, ${ts('08:04:00')}, ${ts('08:21:00')}`, `H, ${ts('08:31:00')}, ${ts('08:38:00')}`] },
  { page: TVF, name: 'SESSION without PARTITION BY, alone', tables: ['Bid'], sql: "SELECT item, window_start, window_end FROM TABLE(SESSION(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES)) WHERE item IN ('A', 'H')", rows: [`A, ${ts('08:01:00')}, ${ts('08:23:00')}`, `H, ${ts('08:31:00')}, ${ts('08:36:00')}`] },
  { page: TVF, name: 'SESSION alone into a regular aggregate', tables: ['Bid'], sql: "SELECT supplier_id, COUNT(DISTINCT window_start) AS sessions FROM TABLE(SESSION(TABLE Bid PARTITION BY supplier_id, DESCRIPTOR(bidtime), INTERVAL '7' MINUTES)) GROUP BY supplier_id", rows: ['s1, 1', 's2, 2'] },
  { page: TVF, name: 'TUMBLE with an offset', tables: ['Bid'], sql: "SELECT window_start, window_end, COUNT(*) FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES, INTERVAL '5' MINUTES)) GROUP BY window_start, window_end", rows: [`${ts('07:55:00')}, ${ts('08:05:00')}, 2`, `${ts('08:05:00')}, ${ts('08:15:00')}, 4`, `${ts('08:15:00')}, ${ts('08:25:00')}, 1`, `${ts('08:25:00')}, ${ts('08:35:00')}, 1`] },

  { page: WAGG, name: 'TUMBLE window aggregation', tables: ['Bid'], sql: "SELECT window_start, window_end, SUM(price) FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end", rows: [`${ts('08:00:00')}, ${ts('08:10:00')}, 11.00`, `${ts('08:10:00')}, ${ts('08:20:00')}, 13.00`, `${ts('08:30:00')}, ${ts('08:40:00')}, 7.00`] },
  {
    page: WAGG,
    name: 'HOP window aggregation',
    tables: ['Bid'],
    sql: "SELECT window_start, window_end, SUM(price) FROM TABLE(HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)) GROUP BY window_start, window_end",
    rows: [`${ts('07:55:00')}, ${ts('08:05:00')}, 5.00`, `${ts('08:00:00')}, ${ts('08:10:00')}, 11.00`, `${ts('08:05:00')}, ${ts('08:15:00')}, 16.00`, `${ts('08:10:00')}, ${ts('08:20:00')}, 13.00`, `${ts('08:15:00')}, ${ts('08:25:00')}, 3.00`, `${ts('08:25:00')}, ${ts('08:35:00')}, 7.00`, `${ts('08:30:00')}, ${ts('08:40:00')}, 7.00`],
  },
  {
    page: WAGG,
    name: 'CUMULATE window aggregation',
    tables: ['Bid'],
    sql: "SELECT window_start, window_end, SUM(price) FROM TABLE(CUMULATE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)) GROUP BY window_start, window_end",
    rows: [`${ts('08:00:00')}, ${ts('08:05:00')}, 5.00`, `${ts('08:00:00')}, ${ts('08:10:00')}, 11.00`, `${ts('08:10:00')}, ${ts('08:15:00')}, 10.00`, `${ts('08:10:00')}, ${ts('08:20:00')}, 13.00`, `${ts('08:30:00')}, ${ts('08:35:00')}, 7.00`, `${ts('08:30:00')}, ${ts('08:40:00')}, 7.00`],
  },
  {
    page: WAGG,
    name: 'SESSION window aggregation per key',
    tables: ['Bid'],
    sql: "SELECT window_start, window_end, supplier_id, SUM(price) FROM TABLE(SESSION(TABLE Bid PARTITION BY supplier_id, DESCRIPTOR(bidtime), INTERVAL '7' MINUTES)) GROUP BY window_start, window_end, supplier_id",
    rows: [`${ts('08:01:00')}, ${ts('08:25:00')}, s1, 15.00`, `${ts('08:04:00')}, ${ts('08:21:00')}, s2, 9.00`, `${ts('08:31:00')}, ${ts('08:38:00')}, s2, 7.00`],
  },
  {
    page: WAGG,
    name: 'GROUPING SETS in a window aggregation',
    tables: ['Bid'],
    sql: "SELECT window_start, supplier_id, SUM(price) FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end, GROUPING SETS ((supplier_id), ())",
    rows: [`${ts('08:00:00')}, NULL, 11.00`, `${ts('08:00:00')}, s1, 8.00`, `${ts('08:00:00')}, s2, 3.00`, `${ts('08:10:00')}, NULL, 13.00`, `${ts('08:10:00')}, s1, 7.00`, `${ts('08:10:00')}, s2, 6.00`, `${ts('08:30:00')}, NULL, 7.00`, `${ts('08:30:00')}, s2, 7.00`],
  },
  {
    page: WAGG,
    name: 'ROLLUP in a window aggregation',
    tables: ['Bid'],
    sql: "SELECT window_start, supplier_id, COUNT(*) FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) WHERE window_start = TIMESTAMP '2024-01-01 08:00:00' GROUP BY window_start, window_end, ROLLUP (supplier_id)",
    rows: [`${ts('08:00:00')}, NULL, 4`, `${ts('08:00:00')}, s1, 2`, `${ts('08:00:00')}, s2, 2`],
  },
  {
    page: WAGG,
    name: 'window_time in GROUP BY and the select list',
    tables: ['Bid'],
    sql: "SELECT window_start, window_time, SUM(price) FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end, window_time",
    rows: [`${ts('08:00:00')}, 2024-01-01 08:09:59.999, 11.00`, `${ts('08:10:00')}, 2024-01-01 08:19:59.999, 13.00`, `${ts('08:30:00')}, 2024-01-01 08:39:59.999, 7.00`],
  },
  {
    page: WAGG,
    name: 'cascading window aggregation over window_time',
    tables: ['Bid'],
    sql: "CREATE VIEW window1 AS SELECT window_start AS w5_start, window_end AS w5_end, window_time AS rowtime, SUM(price) AS partial_price FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES)) GROUP BY supplier_id, window_start, window_end, window_time;\nSELECT window_start, window_end, SUM(partial_price) FROM TABLE(TUMBLE(TABLE window1, DESCRIPTOR(rowtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end",
    rows: [`${ts('08:00:00')}, ${ts('08:10:00')}, 11.00`, `${ts('08:10:00')}, ${ts('08:20:00')}, 13.00`, `${ts('08:30:00')}, ${ts('08:40:00')}, 7.00`],
  },
  { page: WAGG, name: 'legacy GROUP BY TUMBLE(…) with TUMBLE_START', tables: ['Bid'], sql: "SELECT TUMBLE_START(bidtime, INTERVAL '10' MINUTE), SUM(price) FROM Bid GROUP BY TUMBLE(bidtime, INTERVAL '10' MINUTE)", rows: [`${ts('08:00:00')}, 11.00`, `${ts('08:10:00')}, 13.00`, `${ts('08:30:00')}, 7.00`] },

  {
    page: WTOPN,
    name: 'window Top-N of rows',
    tables: ['Bid'],
    sql: "SELECT window_start, item, price, rownum FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rownum FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))) WHERE rownum <= 2",
    rows: [`${ts('08:00:00')}, A, 3.00, 2`, `${ts('08:00:00')}, C, 5.00, 1`, `${ts('08:10:00')}, E, 4.00, 2`, `${ts('08:10:00')}, F, 6.00, 1`, `${ts('08:30:00')}, H, 7.00, 1`],
  },
  {
    page: WTOPN,
    name: 'window Top-N after a window aggregation',
    tables: ['Bid'],
    sql: "SELECT window_start, supplier_id, price, cnt FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rownum FROM (SELECT window_start, window_end, supplier_id, SUM(price) AS price, COUNT(*) AS cnt FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end, supplier_id)) WHERE rownum <= 1",
    rows: [`${ts('08:00:00')}, s1, 8.00, 2`, `${ts('08:10:00')}, s1, 7.00, 2`, `${ts('08:30:00')}, s2, 7.00, 1`],
  },
  {
    page: WDEDUP,
    name: 'the last row of every window',
    tables: ['Bid'],
    sql: "SELECT window_start, item FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY bidtime DESC) AS rownum FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))) WHERE rownum <= 1",
    rows: [`${ts('08:00:00')}, D`, `${ts('08:10:00')}, G`, `${ts('08:30:00')}, H`],
  },
  {
    page: WJOIN,
    name: 'a window join of two TUMBLE windows',
    tables: ['Bid'],
    sql: "SELECT L.item, R.item FROM (SELECT * FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))) L JOIN (SELECT * FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))) R ON L.supplier_id = R.supplier_id AND L.window_start = R.window_start AND L.window_end = R.window_end WHERE L.item < R.item",
    rows: ['A, C', 'B, D', 'E, G'],
  },

  { page: TOPN, name: 'Top-N per category', tables: ['ShopSales'], sql: 'SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY category ORDER BY sales DESC) AS row_num FROM ShopSales) WHERE row_num <= 2', rows: ['p1, fruit, apple, 30, 2', 'p2, fruit, pear, 50, 1', 'p4, veg, leek, 20, 2', 'p5, veg, kale, 40, 1'] },
  { page: TOPN, name: 'Top-N without the rank column', tables: ['ShopSales'], sql: 'SELECT product_id, category, product_name, sales FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY category ORDER BY sales DESC) AS row_num FROM ShopSales) WHERE row_num <= 2', rows: ['p1, fruit, apple, 30', 'p2, fruit, pear, 50', 'p4, veg, leek, 20', 'p5, veg, kale, 40'] },
  { page: TOPN, name: 'Top-1 over an aggregate', tables: ['ShopSales'], sql: 'SELECT category, product_id, total FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY category ORDER BY total DESC) AS rn FROM (SELECT category, product_id, SUM(sales) AS total FROM ShopSales GROUP BY category, product_id)) WHERE rn = 1', rows: ['fruit, p2, 55', 'veg, p5, 40'] },
  { page: TOPN, name: 'Top-N with RANK', tables: ['ShopSales'], sql: 'SELECT product_id, r FROM (SELECT *, RANK() OVER (ORDER BY sales DESC) AS r FROM ShopSales) WHERE r <= 3', rows: ['p1, 3', 'p2, 1', 'p5, 2'] },

  { page: DEDUP, name: 'keep the first row per key (processing time)', tables: ['POrders'], sql: 'SELECT order_id, `user`, product, amount FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY proctime ASC) AS row_num FROM POrders) WHERE row_num = 1', rows: ['1, alice, apple, 3', '2, bob, pear, 5', '3, carol, plum, 2'] },
  { page: DEDUP, name: 'keep the last row per key (processing time)', tables: ['POrders'], sql: 'SELECT order_id, `user`, product, amount FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY proctime DESC) AS row_num FROM POrders) WHERE row_num = 1', rows: ['1, alice, apple, 9', '2, bob, pear, 8', '3, carol, plum, 2'] },
  { page: DEDUP, name: 'keep the first row per key (PROCTIME() of a view)', tables: ['Orders'], sql: 'CREATE VIEW o AS SELECT *, PROCTIME() AS proctime FROM Orders; SELECT order_id, `user` FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY `user` ORDER BY proctime ASC) AS row_num FROM o) WHERE row_num = 1', rows: ['1, alice', '2, bob', '4, carol'] },
  { page: DEDUP, name: 'keep the first row per key (event time)', tables: ['Orders'], sql: 'SELECT `user`, order_id FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY `user` ORDER BY order_time ASC) AS row_num FROM Orders) WHERE row_num = 1', rows: ['alice, 1', 'bob, 2', 'carol, 4'] },
  { page: DEDUP, name: 'keep the last row per key (event time)', tables: ['Orders'], sql: 'SELECT `user`, order_id FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY `user` ORDER BY order_time DESC) AS row_num FROM Orders) WHERE row_num = 1', rows: ['alice, 6', 'bob, 8', 'carol, 7'] },

  { page: JOINS, name: 'INNER JOIN', tables: ['Orders', 'Product'], sql: 'SELECT o.order_id, p.name FROM Orders o INNER JOIN Product p ON o.product = p.id', rows: ['1, Apple', '2, Pear', '3, Pear', '4, Apple', '5, Apple', '7, Pear'] },
  { page: JOINS, name: 'LEFT JOIN', tables: ['Orders', 'Product'], sql: 'SELECT o.order_id, p.name FROM Orders o LEFT JOIN Product p ON o.product = p.id', rows: ['1, Apple', '2, Pear', '3, Pear', '4, Apple', '5, Apple', '6, NULL', '7, Pear', '8, NULL'] },
  { page: JOINS, name: 'RIGHT JOIN', tables: ['Orders', 'Product'], sql: 'SELECT o.order_id, p.name FROM Orders o RIGHT JOIN Product p ON o.product = p.id', rows: ['1, Apple', '2, Pear', '3, Pear', '4, Apple', '5, Apple', '7, Pear', 'NULL, Fig'] },
  { page: JOINS, name: 'FULL OUTER JOIN', tables: ['Orders', 'Product'], sql: 'SELECT o.order_id, p.name FROM Orders o FULL OUTER JOIN Product p ON o.product = p.id', rows: ['1, Apple', '2, Pear', '3, Pear', '4, Apple', '5, Apple', '6, NULL', '7, Pear', '8, NULL', 'NULL, Fig'] },
  { page: JOINS, name: 'an interval join', tables: ['Orders', 'Shipments'], sql: "SELECT o.order_id, s.ship_id FROM Orders o, Shipments s WHERE o.order_id = s.order_id AND o.order_time BETWEEN s.ship_time - INTERVAL '4' HOUR AND s.ship_time - INTERVAL '5' MINUTE", rows: ['1, 10', '4, 12'] },
  { page: JOINS, name: 'an event-time temporal join', tables: ['COrders', 'currency_rates'], sql: 'SELECT order_id, price, o.currency, conversion_rate FROM COrders AS o LEFT JOIN currency_rates FOR SYSTEM_TIME AS OF o.order_time ON o.currency = currency_rates.currency', rows: ['1, 10.0, EUR, 1.1', '2, 20.0, EUR, 1.2', '3, 30.0, GBP, 1.3', '4, 40.0, EUR, 1.0'] },
  { page: JOINS, name: 'JOIN … USING', tables: ['Orders', 'Shipments'], sql: 'SELECT order_id, ship_id FROM Orders JOIN Shipments USING (order_id)', rows: ['1, 10', '2, 11', '4, 12'] },
  { page: JOINS, name: 'LEFT JOIN … USING and SELECT *', tables: ['Orders', 'Shipments'], sql: 'SELECT * FROM (SELECT order_id, amount FROM Orders WHERE order_id < 4) LEFT JOIN (SELECT order_id, ship_id FROM Shipments) USING (order_id)', rows: ['1, 3, 10', '2, 5, 11', '3, 2, NULL'] },
  { page: JOINS, name: 'a join with a LATERAL TABLE user function', tables: ['Docs'], sql: "CREATE FUNCTION split_words AS 'split.ts#splitWords';\nSELECT id, word, len FROM Docs, LATERAL TABLE(split_words(line)) AS T(word, len)", rows: ['1, a, 1', '1, b, 1', '3, c, 1'] },
  { page: JOINS, name: 'UNNEST of a constant array joined to VALUES', sql: "SELECT * FROM (VALUES ('order_1')), UNNEST(ARRAY['shirt', 'pants', 'hat'])", rows: ['order_1, hat', 'order_1, pants', 'order_1, shirt'] },
  { page: JOINS, name: 'CROSS JOIN UNNEST … WITH ORDINALITY of a constant array', sql: "SELECT * FROM (VALUES ('order_1')) CROSS JOIN UNNEST(ARRAY['shirt', 'pants', 'hat']) WITH ORDINALITY AS t (product_name, index)", rows: ['order_1, hat, 3', 'order_1, pants, 2', 'order_1, shirt, 1'] },
  { page: JOINS, name: 'CROSS JOIN UNNEST of an array column', tables: ['Baskets'], sql: 'SELECT order_id, product_name FROM Baskets CROSS JOIN UNNEST(product_names) AS t (product_name)', rows: ['1, pants', '1, shirt', '3, hat'] },
  { page: JOINS, name: 'CROSS JOIN UNNEST of an array column WITH ORDINALITY', tables: ['Baskets'], sql: 'SELECT order_id, product_name, product_index FROM Baskets CROSS JOIN UNNEST(product_names) WITH ORDINALITY AS t (product_name, product_index)', rows: ['1, pants, 2', '1, shirt, 1', '3, hat, 1'] },
  { page: JOINS, name: 'LEFT JOIN UNNEST … ON TRUE keeps an empty array', tables: ['Baskets'], sql: 'SELECT order_id, product_name FROM Baskets LEFT JOIN UNNEST(product_names) AS t (product_name) ON TRUE', rows: ['1, pants', '1, shirt', '2, NULL', '3, hat'] },
  { page: JOINS, name: 'CROSS JOIN UNNEST of a map column', tables: ['Baskets'], sql: 'SELECT order_id, product, quantity FROM Baskets CROSS JOIN UNNEST(quantities) AS t (product, quantity)', rows: ['1, pants, 1', '1, shirt, 2', '3, hat, 5'] },
  { page: JOINS, name: 'UNNEST alone in FROM', sql: 'SELECT * FROM UNNEST(ARRAY[1, 2, 3]) AS t (x)', rows: ['1', '2', '3'] },
  { page: JOINS, name: 'UNNEST of a map literal alone in FROM', sql: "SELECT k, v FROM UNNEST(MAP['a', 1, 'b', 2]) AS t (k, v)", rows: ['a, 1', 'b, 2'] },
  { page: JOINS, name: 'UNNEST of several collections, zipped', sql: "SELECT * FROM UNNEST(ARRAY[1, 2, 3], ARRAY['a', 'b']) AS t (n, s)", rows: ['1, a', '2, b', '3, NULL'] },
  { page: JOINS, name: 'LEFT JOIN LATERAL TABLE … ON TRUE', tables: ['Docs'], sql: "CREATE FUNCTION split_words AS 'split.ts#splitWords';\nSELECT id, word FROM Docs LEFT JOIN LATERAL TABLE(split_words(line)) AS T(word, len) ON TRUE", rows: ['1, a', '1, b', '2, NULL', '3, c'] },

  { page: SETOPS, name: 'UNION', sql: "CREATE VIEW t1(s) AS VALUES ('x'), ('y'), ('y'), ('z');\nCREATE VIEW t2(s) AS VALUES ('y'), ('w'), ('w');\nSELECT s FROM t1 UNION SELECT s FROM t2", rows: ['w', 'x', 'y', 'z'] },
  { page: SETOPS, name: 'UNION ALL', sql: "CREATE VIEW t1(s) AS VALUES ('x'), ('y'), ('y'), ('z');\nCREATE VIEW t2(s) AS VALUES ('y'), ('w'), ('w');\nSELECT s FROM t1 UNION ALL SELECT s FROM t2", rows: ['w', 'w', 'x', 'y', 'y', 'y', 'z'] },
  { page: SETOPS, name: 'INTERSECT', sql: "CREATE VIEW t1(s) AS VALUES ('x'), ('y'), ('y'), ('z');\nCREATE VIEW t2(s) AS VALUES ('y'), ('w'), ('w');\nSELECT s FROM t1 INTERSECT SELECT s FROM t2", rows: ['y'] },
  { page: SETOPS, name: 'INTERSECT ALL', sql: "CREATE VIEW t1(s) AS VALUES ('x'), ('y'), ('y'), ('z');\nCREATE VIEW t2(s) AS VALUES ('y'), ('w'), ('w');\nSELECT s FROM t1 INTERSECT ALL SELECT s FROM t2", rows: ['y'] },
  { page: SETOPS, name: 'EXCEPT', sql: "CREATE VIEW t1(s) AS VALUES ('x'), ('y'), ('y'), ('z');\nCREATE VIEW t2(s) AS VALUES ('y'), ('w'), ('w');\nSELECT s FROM t1 EXCEPT SELECT s FROM t2", rows: ['x', 'z'] },
  { page: SETOPS, name: 'EXCEPT ALL', sql: "CREATE VIEW t1(s) AS VALUES ('x'), ('y'), ('y'), ('z');\nCREATE VIEW t2(s) AS VALUES ('y'), ('w'), ('w');\nSELECT s FROM t1 EXCEPT ALL SELECT s FROM t2", rows: ['x', 'y', 'z'] },
  { page: SETOPS, name: 'IN (subquery)', sql: "CREATE VIEW t1(s) AS VALUES ('x'), ('y'), ('y'), ('z');\nCREATE VIEW t2(s) AS VALUES ('y'), ('w'), ('w');\nSELECT s FROM t1 WHERE s IN (SELECT s FROM t2)", rows: ['y', 'y'] },
  { page: SETOPS, name: 'EXISTS (correlated subquery)', sql: "CREATE VIEW t1(s) AS VALUES ('x'), ('y'), ('y'), ('z');\nCREATE VIEW t2(s) AS VALUES ('y'), ('w'), ('w');\nSELECT s FROM t1 WHERE EXISTS (SELECT s FROM t2 WHERE t1.s = t2.s)", rows: ['y', 'y'] },
  { page: SETOPS, name: 'NOT EXISTS (correlated subquery)', sql: "CREATE VIEW t1(s) AS VALUES ('x'), ('y'), ('y'), ('z');\nCREATE VIEW t2(s) AS VALUES ('y'), ('w'), ('w');\nSELECT s FROM t1 WHERE NOT EXISTS (SELECT s FROM t2 WHERE t1.s = t2.s)", rows: ['x', 'z'] },
  // The page's own views: t1 = c, a, b, b, c and t2 = d, e, a, b, b.
  { page: SETOPS, name: "INTERSECT of the page's t1 and t2", sql: "CREATE VIEW t1(s) AS VALUES ('c'), ('a'), ('b'), ('b'), ('c');\nCREATE VIEW t2(s) AS VALUES ('d'), ('e'), ('a'), ('b'), ('b');\n(SELECT s FROM t1) INTERSECT (SELECT s FROM t2)", rows: ['a', 'b'] },
  { page: SETOPS, name: "INTERSECT ALL of the page's t1 and t2", sql: "CREATE VIEW t1(s) AS VALUES ('c'), ('a'), ('b'), ('b'), ('c');\nCREATE VIEW t2(s) AS VALUES ('d'), ('e'), ('a'), ('b'), ('b');\n(SELECT s FROM t1) INTERSECT ALL (SELECT s FROM t2)", rows: ['a', 'b', 'b'] },
  { page: SETOPS, name: "EXCEPT of the page's t1 and t2", sql: "CREATE VIEW t1(s) AS VALUES ('c'), ('a'), ('b'), ('b'), ('c');\nCREATE VIEW t2(s) AS VALUES ('d'), ('e'), ('a'), ('b'), ('b');\n(SELECT s FROM t1) EXCEPT (SELECT s FROM t2)", rows: ['c'] },
  { page: SETOPS, name: "EXCEPT ALL of the page's t1 and t2", sql: "CREATE VIEW t1(s) AS VALUES ('c'), ('a'), ('b'), ('b'), ('c');\nCREATE VIEW t2(s) AS VALUES ('d'), ('e'), ('a'), ('b'), ('b');\n(SELECT s FROM t1) EXCEPT ALL (SELECT s FROM t2)", rows: ['c', 'c'] },
  { page: SETOPS, name: 'EXCEPT retracts a row when its match arrives', sql: "CREATE VIEW t1(s) AS VALUES ('c'), ('a'), ('b'), ('b'), ('c');\nCREATE VIEW t2(s) AS VALUES ('d'), ('e'), ('a'), ('b'), ('b');\n(SELECT s FROM t1) EXCEPT (SELECT s FROM t2)", changelog: ['+I[c]', '+I[a]', '+I[b]', '-D[a]', '-D[b]'] },
  { page: SETOPS, name: 'IN (subquery) of a table', tables: ['Orders', 'Product'], sql: 'SELECT `user`, amount FROM Orders WHERE product IN (SELECT id FROM Product)', rows: ['alice, 2', 'alice, 3', 'bob, 1', 'bob, 5', 'carol, 6', 'carol, 7'] },
  { page: SETOPS, name: 'NOT IN (subquery) of a table', tables: ['Orders', 'Product'], sql: 'SELECT order_id FROM Orders WHERE product NOT IN (SELECT id FROM Product)', rows: ids(6, 8) },
  { page: SETOPS, name: 'NOT IN a subquery holding NULL is never TRUE', tables: ['Orders'], sql: 'SELECT order_id FROM Orders WHERE product NOT IN (SELECT CAST(NULL AS STRING) FROM Orders)', rows: [] },
  { page: SETOPS, name: 'EXISTS (correlated subquery) with a non-equi condition', tables: ['Orders', 'Product'], sql: 'SELECT `user`, amount FROM Orders o WHERE EXISTS (SELECT * FROM Product p WHERE p.id = o.product AND p.shelf > 1)', rows: ['alice, 2', 'bob, 5', 'carol, 6'] },
  // Apple AVG(3, 7, 1) = 3, pear AVG(5, 2, 6) = 4, plum AVG(4, 2) = 3 (AVG of an INT is an INT).
  { page: SETOPS, name: 'correlated scalar subquery (above the product average)', tables: ['Orders'], sql: 'SELECT order_id FROM Orders o1 WHERE amount > (SELECT AVG(amount) FROM Orders o2 WHERE o2.product = o1.product)', rows: ids(2, 4, 6, 7) },
  { page: SETOPS, name: 'correlated COUNT subquery in the SELECT list is 0 without rows', tables: ['Orders', 'Product'], sql: 'SELECT order_id, (SELECT COUNT(*) FROM Product p WHERE p.id = o.product) AS listed FROM Orders o', rows: ['1, 1', '2, 1', '3, 1', '4, 1', '5, 1', '6, 0', '7, 1', '8, 0'] },
  { page: SETOPS, name: 'correlated IN (subquery) with GROUP BY', tables: ['Orders'], sql: 'SELECT order_id FROM Orders o WHERE amount IN (SELECT MAX(amount) FROM Orders o2 WHERE o2.product = o.product GROUP BY o2.product)', rows: ids(4, 6, 7) },
  { page: SETOPS, name: 'IN (subquery) in the SELECT list', tables: ['Orders', 'Product'], sql: 'SELECT order_id, product IN (SELECT id FROM Product) AS listed FROM Orders WHERE order_id > 4', rows: ['5, true', '6, false', '7, true', '8, false'] },
  { page: SETOPS, name: 'EXISTS (correlated subquery) under OR', tables: ['Orders', 'Product'], sql: 'SELECT order_id FROM Orders o WHERE amount > 5 OR EXISTS (SELECT * FROM Product p WHERE p.id = o.product AND p.shelf > 1)', rows: ids(2, 3, 4, 7) },
  { page: SETOPS, name: 'IN (subquery) in HAVING', tables: ['Orders', 'Product'], sql: 'SELECT product, SUM(amount) FROM Orders GROUP BY product HAVING MAX(product) IN (SELECT id FROM Product WHERE shelf = 1) OR COUNT(*) = 2', rows: ['apple, 11', 'plum, 6'] },
  { page: SETOPS, name: 'a correlated UNION subquery is rejected, as Flink cannot decorrelate it', tables: ['Orders', 'Product'], sql: 'SELECT order_id FROM Orders o WHERE product IN (SELECT id FROM Product p WHERE p.shelf = o.amount UNION SELECT product FROM Orders)', error: 'line 3:99: a correlated subquery cannot be a UNION query (Flink cannot decorrelate it either): refer to the outer query in a WHERE clause of a SELECT that reads the set operation as a derived table' },

  { page: WITH, name: 'WITH a named subquery', tables: ['Orders'], sql: 'WITH orders_with_total AS (SELECT order_id, price * amount AS total FROM Orders) SELECT order_id, SUM(total) FROM orders_with_total GROUP BY order_id', rows: ['1, 4.5', '2, 10.0', '3, 4.0', '4, 10.5', '5, 1.5', '6, 12.0', '7, 12.0', '8, 6.0'] },
  { page: WITH, name: 'WITH two named subqueries, the second reading the first', tables: ['Orders'], sql: "WITH a AS (SELECT * FROM Orders WHERE product = 'apple'), b AS (SELECT `user`, amount FROM a) SELECT `user`, SUM(amount) FROM b GROUP BY `user`", rows: ['alice, 3', 'bob, 1', 'carol, 7'] },
  { page: ORDERBY, name: 'ORDER BY a time attribute', tables: ['Orders'], sql: 'SELECT order_id FROM Orders ORDER BY order_time, order_id', changelog: ['+I[1]', '+I[2]', '+I[3]', '+I[4]', '+I[5]', '+I[6]', '+I[7]', '+I[8]'] },
  { page: ORDERBY, name: 'ORDER BY a time attribute, out-of-order rows sorted, ties by the next key, a late row dropped', tables: ['LateOrders'], sql: 'SELECT order_id FROM LateOrders ORDER BY order_time, amount DESC', changelog: ['+I[2]', '+I[1]', '+I[4]', '+I[3]', '+I[7]', '+I[5]'] },
  { page: ORDERBY, name: 'ORDER BY a PROCTIME() attribute', tables: ['POrders'], sql: 'SELECT order_id, amount FROM POrders ORDER BY proctime, amount', rows: ['1, 3', '1, 9', '2, 5', '2, 8', '3, 2'] },
  { page: ORDERBY, name: 'ORDER BY a time attribute DESC is rejected', tables: ['Orders'], sql: 'SELECT order_id FROM Orders ORDER BY order_time DESC', error: 'line 2:38: Sort on a non-time-attribute field is not supported: a streaming ORDER BY without LIMIT must start with a time attribute ascending' },
  { page: ORDERBY, name: 'ORDER BY a non-time column alone is rejected', tables: ['Orders'], sql: 'SELECT order_id, amount FROM Orders ORDER BY amount', error: 'line 2:46: Sort on a non-time-attribute field is not supported: a streaming ORDER BY without LIMIT must start with a time attribute ascending' },
  { page: LIMIT, name: 'ORDER BY … LIMIT', tables: ['Orders'], sql: 'SELECT order_id, amount FROM Orders ORDER BY amount DESC LIMIT 3', rows: ['2, 5', '4, 7', '7, 6'] },
  { page: LIMIT, name: 'ORDER BY a time attribute … LIMIT', tables: ['Orders'], sql: 'SELECT order_id FROM Orders ORDER BY order_time LIMIT 3', rows: ids(1, 2, 3) },
  { page: LIMIT, name: 'ORDER BY a time attribute DESC … LIMIT', tables: ['Orders'], sql: 'SELECT order_id FROM Orders ORDER BY order_time DESC LIMIT 2', rows: ids(7, 8) },
  { page: LIMIT, name: 'LIMIT without ORDER BY', tables: ['Orders'], sql: 'SELECT order_id FROM Orders LIMIT 2', rows: ids(1, 2) },
  { page: LIMIT, name: 'LIMIT … OFFSET without ORDER BY', tables: ['Orders'], sql: 'SELECT order_id FROM Orders LIMIT 2 OFFSET 3', changelog: ['+I[4]', '+I[5]'] },
  { page: LIMIT, name: 'FETCH FIRST n ROWS ONLY', tables: ['Orders'], sql: 'SELECT order_id FROM Orders OFFSET 1 ROWS FETCH NEXT 2 ROWS ONLY', rows: ids(2, 3) },
  {
    page: LIMIT,
    name: 'LIMIT over an updating input',
    tables: ['Orders'],
    sql: 'SELECT product, COUNT(*) FROM Orders GROUP BY product LIMIT 2',
    changelog: ['+I[apple, 1]', '+I[pear, 1]', '-D[pear, 1]', '+I[pear, 2]', '-D[apple, 1]', '+I[apple, 2]', '-D[apple, 2]', '+I[apple, 3]', '-D[pear, 2]', '+I[plum, 1]', '-D[plum, 1]', '+I[pear, 3]'],
  },
  { page: LIMIT, name: 'LIMIT 0', tables: ['Orders'], sql: 'SELECT order_id FROM Orders LIMIT 0', rows: [] },
  { page: LIMIT, name: 'OFFSET without FETCH is rejected', tables: ['Orders'], sql: 'SELECT order_id FROM Orders OFFSET 2 ROWS', error: 'line 2:36: FETCH is missed, which on streaming table is not supported currently: OFFSET needs LIMIT n (or FETCH FIRST n ROWS ONLY)' },
];

const UDF = 'functions/udfs';

/** The user-defined functions page (the functions are in functions.ts). */
const USER_FUNCTIONS: ConformanceCase[] = [
  { page: UDF, name: 'a scalar function (SubstringFunction)', tables: ['Orders'], sql: "CREATE FUNCTION substr2 AS 'substring.ts#substringOf';\nSELECT order_id, substr2(product, 0, 2) FROM Orders WHERE order_id <= 2", rows: ['1, ap', '2, pe'] },
  { page: UDF, name: "Nexmark q14's count_char", tables: ['Orders'], sql: "CREATE FUNCTION count_char AS 'count-char.ts#countChar';\nSELECT order_id, count_char(product, 'p') AS ps FROM Orders WHERE count_char(product, 'p') > 0 AND order_id <= 3", rows: ['1, 2', '2, 1', '3, 1'] },
  { page: UDF, name: 'a table function with its declared column names (CROSS JOIN LATERAL)', tables: ['Docs'], sql: "CREATE FUNCTION split_words AS 'split.ts#splitWords';\nSELECT id, word, len FROM Docs CROSS JOIN LATERAL TABLE(split_words(line))", rows: ['1, a, 1', '1, b, 1', '3, c, 1'] },
  { page: UDF, name: 'a table function in JOIN … ON TRUE, renamed', tables: ['Docs'], sql: "CREATE FUNCTION split_words AS 'split.ts#splitWords';\nSELECT id, UPPER(T.w) FROM Docs JOIN LATERAL TABLE(split_words(line)) AS T(w, l) ON TRUE WHERE id < 3", rows: ['1, A', '1, B'] },
  { page: UDF, name: 'a table function over an updating input', tables: ['Orders'], sql: "CREATE FUNCTION split_words AS 'split.ts#splitWords';\nSELECT `user`, word FROM (SELECT `user`, LISTAGG(product, ' ') AS products FROM Orders GROUP BY `user`), LATERAL TABLE(split_words(products)) AS T(word, len) WHERE `user` = 'bob'", rows: ['bob, apple', 'bob, pear', 'bob, plum'] },
  { page: UDF, name: 'an aggregate function', tables: ['Orders'], sql: "CREATE FUNCTION my_avg AS 'avg.ts#myAvg';\nSELECT product, my_avg(price) FROM Orders GROUP BY product", rows: ['apple, 1.5', 'pear, 2.0', 'plum, 3.0'] },
  { page: UDF, name: 'an aggregate function with retraction', tables: ['Orders'], sql: "CREATE FUNCTION my_avg AS 'avg.ts#myAvg';\nSELECT my_avg(CAST(cnt AS DOUBLE)) FROM (SELECT product, COUNT(*) AS cnt FROM Orders GROUP BY product)", changelog: ['+I[1.0]', '-U[1.0]', '+U[1.5]', '-U[1.5]', '+U[2.0]', '-U[2.0]', '+U[2.5]', '-U[2.5]', '+U[2.0]', '-U[2.0]', '+U[2.3333333333333335]', '-U[2.3333333333333335]', '+U[3.0]', '-U[3.0]', '+U[2.6666666666666665]'] },
  { page: UDF, name: 'an aggregate function in a window aggregation', tables: ['Bid'], sql: "CREATE FUNCTION my_avg AS 'avg.ts#myAvg';\nSELECT window_start, my_avg(CAST(price AS DOUBLE)) FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end", rows: [`${ts('08:00:00')}, 2.75`, `${ts('08:10:00')}, 4.333333333333333`, `${ts('08:30:00')}, 7.0`] },
  { page: UDF, name: 'a table function joined ON a condition', tables: ['Docs'], sql: "CREATE FUNCTION split_words AS 'split.ts#splitWords';\nSELECT id, w FROM Docs JOIN LATERAL TABLE(split_words(line)) AS T(w, l) ON w <> 'a'", rows: ['1, b', '3, c'] },
  { page: UDF, name: 'a scalar function with overloaded eval (SumFunction), DECIMAL literals cast to its DOUBLE varargs', sql: "CREATE FUNCTION sum_of AS 'sum.ts#sumOf';\nSELECT sum_of(1, 2), sum_of('10', '20'), sum_of(1.5, 2.5, 3.5), sum_of()", rows: ['3, 30, 7, 0'] },
  { page: UDF, name: 'a call no declared signature takes is rejected (SumFunction)', sql: "CREATE FUNCTION sum_of AS 'sum.ts#sumOf';\nSELECT sum_of(TRUE, 1)", error: 'line 2:15: no declared signature of sum_of takes (BOOLEAN, INT): sum_of(INT, INT) — argument 1 of sum_of (true) is BOOLEAN, which does not cast implicitly to INT; sum_of(STRING, STRING) — argument 1 of sum_of (true) is BOOLEAN, which does not cast implicitly to STRING; sum_of(DOUBLE...) — argument 1 of sum_of (true) is BOOLEAN, which does not cast implicitly to DOUBLE' },
  { page: UDF, name: 'a scalar function argument that does not cast implicitly is rejected (SubstringFunction)', tables: ['Orders'], sql: "CREATE FUNCTION substr2 AS 'substring.ts#substringOf';\nSELECT substr2(product, 0, price) FROM Orders", error: 'line 3:28: argument 3 of substr2 (price) is DOUBLE, which does not cast implicitly to INT, the declared parameter type of substr2(STRING, INT, INT)' },
  { page: UDF, name: 'an aggregate function of a DOUBLE over a DECIMAL column in a window aggregation', tables: ['Bid'], sql: "CREATE FUNCTION my_avg AS 'avg.ts#myAvg';\nSELECT window_start, my_avg(price) FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end", rows: [`${ts('08:00:00')}, 2.75`, `${ts('08:10:00')}, 4.333333333333333`, `${ts('08:30:00')}, 7.0`] },
  { page: UDF, name: 'an aggregate function of two arguments (WeightedAvg)', tables: ['Orders'], sql: "CREATE FUNCTION weighted_avg AS 'weighted-avg.ts#weightedAvg';\nSELECT product, weighted_avg(order_id, amount) FROM Orders GROUP BY product", rows: ['apple, 3', 'pear, 4', 'plum, 6'] },
  { page: UDF, name: 'an aggregate function with DISTINCT', tables: ['Orders'], sql: "CREATE FUNCTION my_avg AS 'avg.ts#myAvg';\nSELECT my_avg(DISTINCT CAST(amount AS DOUBLE)) FROM Orders", rows: ['4.0'] },
  { page: UDF, name: 'an aggregate function with FILTER', tables: ['Orders'], sql: "CREATE FUNCTION my_avg AS 'avg.ts#myAvg';\nSELECT product, my_avg(CAST(amount AS DOUBLE)) FILTER (WHERE amount > 2) FROM Orders GROUP BY product", rows: ['apple, 5.0', 'pear, 5.5', 'plum, 4.0'] },
  {
    page: UDF,
    name: 'an aggregate function with merge in a HOP window aggregation',
    tables: ['Bid'],
    sql: "CREATE FUNCTION weighted_avg AS 'weighted-avg.ts#weightedAvg';\nSELECT window_start, weighted_avg(CAST(price AS BIGINT), CASE WHEN supplier_id = 's1' THEN 2 ELSE 1 END) FROM TABLE(HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)) GROUP BY window_start, window_end",
    rows: [`${ts('07:55:00')}, 2`, `${ts('08:00:00')}, 3`, `${ts('08:05:00')}, 4`, `${ts('08:10:00')}, 4`, `${ts('08:15:00')}, 3`, `${ts('08:25:00')}, 7`, `${ts('08:30:00')}, 7`],
  },
  {
    page: UDF,
    name: 'an aggregate function with merge in a SESSION window aggregation',
    tables: ['Bid'],
    sql: "CREATE FUNCTION weighted_avg AS 'weighted-avg.ts#weightedAvg';\nSELECT window_start, supplier_id, weighted_avg(CAST(price AS BIGINT), CASE WHEN supplier_id = 's1' THEN 2 ELSE 1 END) FROM TABLE(SESSION(TABLE Bid PARTITION BY supplier_id, DESCRIPTOR(bidtime), INTERVAL '7' MINUTES)) GROUP BY window_start, window_end, supplier_id",
    rows: [`${ts('08:01:00')}, s1, 3`, `${ts('08:04:00')}, s2, 3`, `${ts('08:31:00')}, s2, 7`],
  },
  { page: UDF, name: 'an aggregate function without merge in a HOP window is rejected', tables: ['Bid'], sql: "CREATE FUNCTION my_avg AS 'avg.ts#myAvg';\nSELECT window_start, my_avg(CAST(price AS DOUBLE)) FROM TABLE(HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)) GROUP BY window_start, window_end", error: 'line 3:22: the aggregate user function MY_AVG has no merge method: as in Flink, a HOP window aggregation merges accumulators (of the slices of a window), so declare merge(acc, other) in its aggregateFunction(…) (TUMBLE windows and GROUP BY do without)' },
  { page: UDF, name: 'LEFT JOIN LATERAL with a condition is rejected', tables: ['Docs'], sql: "CREATE FUNCTION split_words AS 'split.ts#splitWords';\nSELECT id FROM Docs LEFT JOIN LATERAL TABLE(split_words(line)) AS T(w, l) ON l > 1", error: 'line 3:80: LEFT JOIN with a table function supports only ON TRUE (as in Flink)' },
];

/** How EXPLAIN prints the Orders fixture's source. */
const ORDERS_SOURCE = 'Source(table=[Orders], fields=[order_id, user, product, amount, price, order_time], watermark=[-(order_time, 1000:INTERVAL MILLISECOND)])';

/** The statement pages: DDL, INSERT, views, EXPLAIN. */
const STATEMENTS: ConformanceCase[] = [
  { page: CREATE, name: 'a computed column', sql: "CREATE TABLE MyOrders (order_id BIGINT, amount INT, double_amount AS amount * 2) WITH ('connector' = 'filesystem', 'path' = '{{Orders}}', 'format' = 'json');\nSELECT order_id, double_amount FROM MyOrders WHERE order_id < 3", rows: ['1, 6', '2, 10'] },
  { page: CREATE, name: 'a METADATA column of the filesystem connector', sql: "CREATE TABLE MyOrders (order_id BIGINT, file_name STRING NOT NULL METADATA FROM 'file.name' VIRTUAL) WITH ('connector' = 'filesystem', 'path' = '{{Orders}}', 'format' = 'json');\nSELECT order_id, file_name FROM MyOrders WHERE order_id = 1", rows: ['1, Orders.jsonl'] },
  { page: CREATE, name: 'a WATERMARK on a computed column', sql: "CREATE TABLE Events (id BIGINT, ts BIGINT, rowtime AS TO_TIMESTAMP(FROM_UNIXTIME(ts)), WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '{{Clicks}}', 'format' = 'json');\nSELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE Events, DESCRIPTOR(rowtime), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end", rows: [`${ts('00:00:00')}, 2`, `${ts('00:01:00')}, 1`] },
  { page: CREATE, name: 'PRIMARY KEY NOT ENFORCED on a sink', tables: ['Orders'], sql: "CREATE TABLE totals (`user` STRING, total INT, PRIMARY KEY (`user`) NOT ENFORCED) WITH ('connector' = 'print');\nINSERT INTO totals SELECT `user`, SUM(amount) FROM Orders GROUP BY `user`", rows: ['alice, 9', 'bob, 8', 'carol, 13'] },
  { page: CREATE, name: 'CREATE TABLE … LIKE', tables: ['Orders'], sql: "CREATE TABLE Orders2 WITH ('path' = '{{Orders}}') LIKE Orders;\nSELECT order_id FROM Orders2 WHERE amount = 2", rows: ids(3, 8) },
  { page: CREATE, name: 'CREATE TABLE … AS SELECT', tables: ['Orders'], sql: "CREATE TABLE o2 WITH ('connector' = 'print') AS SELECT order_id FROM Orders WHERE amount = 2", rows: ids(3, 8) },
  { page: VIEW, name: 'CREATE VIEW with a column list', tables: ['Orders'], sql: 'CREATE VIEW v (id, qty) AS SELECT order_id, amount FROM Orders;\nSELECT id, qty FROM v WHERE qty > 5', rows: ['4, 7', '7, 6'] },
  { page: INSERT, name: 'INSERT INTO … SELECT', tables: ['Orders'], sql: "CREATE TABLE out_t (id BIGINT, p STRING) WITH ('connector' = 'print');\nINSERT INTO out_t SELECT order_id, product FROM Orders WHERE amount = 2", rows: ['3, pear', '8, plum'] },
  { page: INSERT, name: 'INSERT INTO … VALUES', sql: "CREATE TABLE out_t (id BIGINT, p STRING) WITH ('connector' = 'print');\nINSERT INTO out_t VALUES (1, 'a'), (2, 'b')", rows: ['1, a', '2, b'] },
  { page: INSERT, name: 'INSERT with a column list', tables: ['Orders'], sql: "CREATE TABLE out_t (id BIGINT, p STRING) WITH ('connector' = 'print');\nINSERT INTO out_t (id) SELECT order_id FROM Orders WHERE order_id = 1", rows: ['1, NULL'] },
  { page: INSERT, name: 'a statement set of two INSERTs', tables: ['Orders'], sql: "CREATE TABLE a_t (id BIGINT) WITH ('connector' = 'print');\nCREATE TABLE b_t (id BIGINT) WITH ('connector' = 'print');\nEXECUTE STATEMENT SET BEGIN\nINSERT INTO a_t SELECT order_id FROM Orders WHERE amount > 6;\nINSERT INTO b_t SELECT order_id FROM Orders WHERE amount < 2;\nEND;", rows: ['a_t: 4', 'b_t: 5'] },
  {
    page: EXPLAIN,
    name: 'EXPLAIN PLAN FOR',
    tables: ['Orders'],
    sql: 'EXPLAIN PLAN FOR SELECT order_id FROM Orders',
    explain: [
      '== Abstract Syntax Tree ==',
      'Sink(table=[print], fields=[order_id])',
      '+- Calc(select=[order_id])',
      `   +- ${ORDERS_SOURCE}`,
      '',
      '== Optimized Logical Plan ==',
      'Sink(table=[print], fields=[order_id])',
      '+- Calc(select=[order_id])',
      `   +- ${ORDERS_SOURCE}`,
      '',
      '== Physical Execution Plan ==',
      'Stage 1 : Data Source',
      `\tcontent : ${ORDERS_SOURCE}`,
      '',
      'Stage 2 : Operator',
      '\tcontent : Calc(select=[order_id])',
      '\tship_strategy : FORWARD',
      '',
      'Stage 3 : Data Sink',
      '\tcontent : Sink(table=[print], fields=[order_id])',
      '\tship_strategy : FORWARD',
    ].join('\n'),
  },
  {
    page: EXPLAIN,
    name: 'EXPLAIN CHANGELOG_MODE of an aggregation',
    tables: ['Orders'],
    sql: "EXPLAIN CHANGELOG_MODE SELECT `user`, COUNT(*) FROM Orders WHERE product LIKE 'p%' GROUP BY `user`",
    explain: [
      '== Abstract Syntax Tree ==',
      'Sink(table=[print], fields=[user, EXPR$1])',
      '+- GroupAggregate(groupBy=[user], select=[user, COUNT(*) AS EXPR$1])',
      '   +- Calc(select=[user])',
      "      +- Calc(select=[order_id, user, product, amount, price, order_time], where=[LIKE(product, 'p%')])",
      `         +- ${ORDERS_SOURCE}`,
      '',
      '== Optimized Logical Plan ==',
      'Sink(table=[print], fields=[user, EXPR$1], changelogMode=[I,UB,UA,D])',
      '+- GroupAggregate(groupBy=[user], select=[user, COUNT(*) AS EXPR$1], changelogMode=[I,UB,UA,D])',
      '   +- Exchange(distribution=[hash[user]], changelogMode=[I])',
      "      +- Calc(select=[user], where=[LIKE(product, 'p%')], changelogMode=[I])",
      `         +- ${ORDERS_SOURCE.replace(/\)$/, ', changelogMode=[I])')}`,
      '',
      '== Physical Execution Plan ==',
      'Stage 1 : Data Source',
      `\tcontent : ${ORDERS_SOURCE}`,
      '',
      'Stage 2 : Operator',
      "\tcontent : Calc(select=[user], where=[LIKE(product, 'p%')])",
      '\tship_strategy : FORWARD',
      '',
      'Stage 3 : Operator',
      '\tcontent : GroupAggregate(groupBy=[user], select=[user, COUNT(*) AS EXPR$1])',
      '\tship_strategy : HASH',
      '',
      'Stage 4 : Data Sink',
      '\tcontent : Sink(table=[print], fields=[user, EXPR$1])',
      '\tship_strategy : FORWARD',
    ].join('\n'),
  },
  { page: 'sql/queries/match_recognize', name: 'MATCH_RECOGNIZE', tables: ['Orders'], sql: "SELECT * FROM Orders MATCH_RECOGNIZE (PARTITION BY product ORDER BY order_time MEASURES A.order_id AS id PATTERN (A) DEFINE A AS A.amount > 1)" },
];

/** One expression of the functions page as `SELECT expr` (no FROM). */
const fn = (expr: string, result: string): ConformanceCase => ({ page: FUNCTIONS, name: expr, sql: `SELECT ${expr}`, rows: [result] });
/** An aggregate of the functions page over Orders (`GROUP BY product` when `grouped`). */
const agg = (call: string, rows: readonly string[], grouped = true): ConformanceCase => ({
  page: `${FUNCTIONS} (aggregate functions)`,
  name: `${call}${grouped ? ' GROUP BY product' : ''}`,
  tables: ['Orders'],
  sql: grouped ? `SELECT product, ${call} FROM Orders GROUP BY product` : `SELECT ${call} FROM Orders`,
  rows,
});

/** The function pages. */
const FUNCTION_CASES: ConformanceCase[] = [
  fn('1 = 1', 'true'),
  fn("'a' <> 'b'", 'true'),
  fn('CAST(NULL AS INT) IS NULL', 'true'),
  fn('1 IS DISTINCT FROM CAST(NULL AS INT)', 'true'),
  fn('CAST(NULL AS INT) IS NOT DISTINCT FROM CAST(NULL AS INT)', 'true'),
  fn('3 BETWEEN 1 AND 5', 'true'),
  fn('3 NOT BETWEEN 1 AND 5', 'false'),
  fn("'flink' LIKE 'fl%'", 'true'),
  fn("'flink' SIMILAR TO 'fl(i|a)nk'", 'true'),
  fn("'flink' NOT SIMILAR TO 'fl(i|a)nk'", 'false'),
  fn('12 BETWEEN 15 AND 12', 'false'),
  fn('12 BETWEEN SYMMETRIC 15 AND 12', 'true'),
  fn('12 BETWEEN SYMMETRIC CAST(NULL AS INT) AND 12', 'NULL'),
  fn('12 NOT BETWEEN SYMMETRIC 15 AND 12', 'false'),
  fn('12 NOT BETWEEN 15 AND CAST(NULL AS INT)', 'true'),
  fn('2 IN (1, 2, 3)', 'true'),
  fn('TRUE OR FALSE', 'true'),
  fn('NOT TRUE', 'false'),
  fn('(1 > 2) IS FALSE', 'true'),
  fn('CAST(NULL AS BOOLEAN) IS UNKNOWN', 'true'),
  fn('-(3)', '-3'),
  fn('7 + 2 * 3', '13'),
  fn('7 / 2', '3'),
  // DECIMAL(2, 1) / INT: Flink's result scale is max(6, 1 + 10 + 1) = 12.
  fn('7.0 / 2', '3.500000000000'),
  fn('POWER(2, 10)', '1024.0'),
  fn('ABS(-4)', '4'),
  fn('MOD(17, 5)', '2'),
  fn('SQRT(16)', '4.0'),
  fn('LN(1)', '0.0'),
  fn('LOG10(1000)', '3.0'),
  fn('LOG2(8)', '3.0'),
  fn('LOG(2, 8)', '3.0'),
  fn('EXP(0)', '1.0'),
  fn('CEIL(1.2)', '2'),
  fn('FLOOR(1.8)', '1'),
  fn('ROUND(3.14159, 2)', '3.14'),
  fn('ROUND(2.5)', '3'),
  fn('SIN(0)', '0.0'),
  fn('COS(0)', '1.0'),
  fn('SIGN(-5)', '-1'),
  fn('PI()', '3.141592653589793'),
  fn('TRUNCATE(3.789, 1)', '3.7'),
  fn('TRUNCATE(42.324, 2)', '42.32'),
  fn('TRUNCATE(CAST(42.324 AS DOUBLE))', '42.0'),
  fn('RAND(42)', '0.7275636800328681'),
  fn('RAND_INTEGER(10) < 10', 'true'),
  fn('CHAR_LENGTH(UUID())', '36'),
  fn('BIN(12)', '1100'),
  fn('HEX(255)', 'FF'),
  fn('HEX(-1)', 'FFFFFFFFFFFFFFFF'),
  fn("UNHEX('466C696E6B')", "x'466c696e6b'"),
  fn("HEX('hi,you')", '68692C796F75'),
  fn('ATAN2(1, 1) * 4', '3.141592653589793'),
  fn('DEGREES(PI())', '180.0'),
  fn("IS_ALPHA('ab1')", 'false'),
  fn("'ab' || 'cd'", 'abcd'),
  fn("CHAR_LENGTH('flink')", '5'),
  fn("UPPER('flink')", 'FLINK'),
  fn("LOWER('FLINK')", 'flink'),
  fn("POSITION('in' IN 'flink')", '3'),
  fn("TRIM(BOTH 'x' FROM 'xxflinkxx')", 'flink'),
  fn("LTRIM('  flink')", 'flink'),
  fn("RTRIM('flink  ')", 'flink'),
  fn("LTRIM(' This is a test String.')", 'This is a test String.'),
  fn("RTRIM('This is a test String. ')", 'This is a test String.'),
  fn("PARSE_URL('http://facebook.com/path1/p.php?k1=v1&k2=v2#Ref1', 'HOST')", 'facebook.com'),
  fn("PARSE_URL('http://facebook.com/path1/p.php?k1=v1&k2=v2#Ref1', 'QUERY', 'k1')", 'v1'),
  fn("REPEAT('ab', 3)", 'ababab'),
  fn("REGEXP_REPLACE('flink 1.19', '[0-9]', '#')", 'flink #.##'),
  fn("OVERLAY('flink' PLACING 'XX' FROM 2 FOR 3)", 'fXXk'),
  fn("SUBSTRING('flink' FROM 2 FOR 3)", 'lin'),
  fn("SUBSTR('flink', 2)", 'link'),
  fn("REPLACE('flink flink', 'fl', 'bl')", 'blink blink'),
  fn("REGEXP_EXTRACT('user-42-x', 'user-([0-9]+)', 1)", '42'),
  fn("INITCAP('hello flink')", 'Hello Flink'),
  fn("CONCAT('a', 'b', 'c')", 'abc'),
  fn("CONCAT_WS('-', 'a', 'b', 'c')", 'a-b-c'),
  fn("LPAD('7', 3, '0')", '007'),
  fn("RPAD('7', 3, '0')", '700'),
  fn("REVERSE('flink')", 'knilf'),
  fn("SPLIT_INDEX('a,b,c', ',', 1)", 'b'),
  fn("REGEXP('flink', 'l.n')", 'true'),
  fn("ASCII('A')", '65'),
  fn('CHR(65)', 'A'),
  fn("LEFT('flink', 2)", 'fl'),
  fn("RIGHT('flink', 2)", 'nk'),
  fn("LOCATE('n', 'flink')", '4'),
  fn("MD5('flink')", '68c03a76152dc53fdd2c7c7ab07f2721'),
  fn("SHA1('flink')", '2723c8ab7b0bea02519794459729a1ba8e773d9f'),
  fn("SHA256('flink')", '7f025323639628aa5e5d24bd56f43317552b140c71406d0eb5a555671bd534d2'),
  fn("TO_BASE64('flink')", 'Zmxpbms='),
  fn("FROM_BASE64('Zmxpbms=')", 'flink'),
  fn("DATE_FORMAT(TIMESTAMP '2024-03-05 07:08:09', 'yyyy/MM/dd HH:mm')", '2024/03/05 07:08'),
  fn("TIMESTAMPADD(HOUR, 2, TIMESTAMP '2024-01-01 23:00:00')", '2024-01-02 01:00:00.000'),
  fn("TIMESTAMPDIFF(MINUTE, TIMESTAMP '2024-01-01 10:00:00', TIMESTAMP '2024-01-01 10:45:30')", '45'),
  fn("EXTRACT(MONTH FROM TIMESTAMP '2024-03-05 07:08:09')", '3'),
  fn("YEAR(TIMESTAMP '2024-03-05 07:08:09')", '2024'),
  fn("HOUR(TIMESTAMP '2024-03-05 07:08:09')", '7'),
  fn("FLOOR(TIMESTAMP '2024-03-05 07:08:09' TO HOUR)", '2024-03-05 07:00:00.000'),
  fn("CEIL(TIMESTAMP '2024-03-05 07:08:09' TO DAY)", '2024-03-06 00:00:00.000'),
  fn("TO_TIMESTAMP('2024-03-05 07:08:09')", '2024-03-05 07:08:09.000'),
  fn("UNIX_TIMESTAMP('2024-01-01 00:00:00')", '1704067200'),
  fn('FROM_UNIXTIME(1704067200)', '2024-01-01 00:00:00'),
  fn("TIMESTAMP '2024-01-01 00:00:00' + INTERVAL '90' MINUTE", '2024-01-01 01:30:00.000'),
  fn('CURRENT_TIMESTAMP IS NOT NULL', 'true'),
  fn('NOW() IS NOT NULL', 'true'),
  fn('LOCALTIMESTAMP IS NOT NULL', 'true'),
  fn('CURRENT_DATE IS NOT NULL', 'true'),
  fn("DATE '2024-03-05'", '2024-03-05'),
  fn("TO_DATE('2024-03-05')", '2024-03-05'),
  fn("CONVERT_TZ('2024-01-01 00:00:00', 'UTC', 'Asia/Tokyo')", '2024-01-01 09:00:00'),
  fn("CASE 2 WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'many' END", 'two'),
  fn("CASE WHEN 5 > 3 THEN 'yes' ELSE 'no' END", 'yes'),
  fn('NULLIF(5, 5)', 'NULL'),
  fn('COALESCE(CAST(NULL AS INT), 2, 3)', '2'),
  fn('IFNULL(CAST(NULL AS STRING), \'d\')', 'd'),
  fn("IF(1 < 2, 'a', 'b')", 'a'),
  fn('GREATEST(3, 9, 4)', '9'),
  fn('LEAST(3, 9, 4)', '3'),
  fn("IS_DIGIT('123')", 'true'),
  fn("CAST('42' AS INT) + 1", '43'),
  fn("TRY_CAST('x' AS INT)", 'NULL'),
  fn('CAST(3.7 AS INT)', '3'),
  fn("CAST(TIMESTAMP '2024-01-01 10:00:00.000' AS STRING)", '2024-01-01 10:00:00.000'),
  fn('TYPEOF(1)', 'INT NOT NULL'),
  fn("JSON_VALUE('{\"a\": {\"b\": 7}}', '$.a.b')", '7'),
  fn("JSON_VALUE('{\"a\": 7}', '$.a' RETURNING INT)", '7'),
  fn("JSON_QUERY('{\"a\": [1, 2]}', '$.a')", '[1,2]'),
  fn("JSON_QUERY('{\"a\":[{\"c\":\"c1\"},{\"c\":\"c2\"}]}', 'lax $.a[*].c')", '["c1","c2"]'),
  fn("JSON_QUERY('{\"a\":[{\"c\":\"c1\"},{\"c\":\"c2\"}]}', 'lax $.a[*].c' RETURNING ARRAY<STRING>)", '[c1, c2]'),
  fn("JSON_QUERY('{}', '$' WITH CONDITIONAL ARRAY WRAPPER)", '[{}]'),
  fn("JSON_QUERY('[1, 2]', '$' WITH UNCONDITIONAL ARRAY WRAPPER)", '[[1,2]]'),
  fn("JSON_EXISTS('{\"a\": 1}', '$.a')", 'true'),
  fn("JSON_OBJECT('k' VALUE 1)", '{"k":1}'),
  fn("JSON_ARRAY(1, 'two')", '[1,"two"]'),
  fn("'{\"a\": 1}' IS JSON OBJECT", 'true'),
  fn("JSON_STRING(1)", '1'),
  fn('JSON_STRING(CAST(NULL AS INT))', 'NULL'),
  fn('JSON_STRING(TRUE)', 'true'),
  fn("JSON_STRING('Hello, World!')", '"Hello, World!"'),
  fn('JSON_STRING(ARRAY[1, 2])', '[1,2]'),
  fn('UUID() IS NOT NULL', 'true'),
  fn('RAND() < 1', 'true'),
  fn("ARRAY[1, 2, 3]", '[1, 2, 3]'),
  fn("MAP['k', 1]", '{k=1}'),
  fn("ROW(1, 'a')", '(1, a)'),
  agg('COUNT(DISTINCT `user`)', ['apple, 3', 'pear, 3', 'plum, 2']),
  agg('LISTAGG(`user`)', ['apple, alice,carol,bob', 'pear, bob,alice,carol', 'plum, alice,bob']),
  agg("LISTAGG(`user`, ';')", ['apple, alice;carol;bob', 'pear, bob;alice;carol', 'plum, alice;bob']),
  agg('FIRST_VALUE(amount)', ['apple, 3', 'pear, 5', 'plum, 4']),
  agg('LAST_VALUE(amount)', ['apple, 1', 'pear, 6', 'plum, 2']),
  agg('VAR_POP(price)', ['0.33984375'], false),
  agg('VAR_SAMP(price)', ['0.38839285714285715'], false),
  agg('VARIANCE(price)', ['0.38839285714285715'], false),
  agg('STDDEV_POP(price)', ['0.582961190818051'], false),
  agg('STDDEV_SAMP(price)', ['0.6232117273791125'], false),
  agg('STDDEV(price)', ['0.6232117273791125'], false),
  agg('STDDEV_POP(amount)', ['1'], false),
  agg('COLLECT(amount)', ['{1=1, 2=2, 3=1, 4=1, 5=1, 6=1, 7=1}'], false),
  agg('COLLECT(DISTINCT `user`)', ['apple, {alice=1, bob=1, carol=1}', 'pear, {alice=1, bob=1, carol=1}', 'plum, {alice=1, bob=1}']),
  agg('ARRAY_AGG(amount)', ['apple, [3, 7, 1]', 'pear, [5, 2, 6]', 'plum, [4, 2]']),
  agg('PERCENTILE(amount, 0.5)', ['apple, 3.0', 'pear, 5.0', 'plum, 3.0']),
  agg('PERCENTILE(amount, ARRAY[0.25, 0.75])', ['apple, [2.0, 5.0]', 'pear, [3.5, 5.5]', 'plum, [2.5, 3.5]']),
  {
    page: `${FUNCTIONS} (aggregate functions)`,
    name: 'JSON_OBJECTAGG(KEY product VALUE cnt)',
    tables: ['Orders'],
    sql: 'SELECT JSON_OBJECTAGG(KEY product VALUE cnt) FROM (SELECT product, COUNT(*) AS cnt FROM Orders GROUP BY product)',
    rows: ['{"apple":3,"pear":3,"plum":2}'],
  },
  {
    page: `${FUNCTIONS} (aggregate functions)`,
    name: 'JSON_ARRAYAGG(product)',
    tables: ['Orders'],
    sql: 'SELECT JSON_ARRAYAGG(product) FROM (SELECT DISTINCT product FROM Orders)',
    rows: ['["apple","pear","plum"]'],
  },
  // Over an updating input: the products' counts move from group to group (retraction).
  {
    page: `${FUNCTIONS} (aggregate functions)`,
    name: 'LISTAGG, FIRST_VALUE and LAST_VALUE with retraction',
    tables: ['Orders'],
    sql: 'SELECT cnt, LISTAGG(product), FIRST_VALUE(product), LAST_VALUE(product) FROM (SELECT product, COUNT(*) AS cnt FROM Orders GROUP BY product) GROUP BY cnt',
    rows: ['2, plum, plum, plum', '3, apple,pear, apple, pear'],
  },
  {
    page: `${FUNCTIONS} (aggregate functions)`,
    name: 'VAR_POP and STDDEV_SAMP with retraction',
    tables: ['Orders'],
    sql: 'SELECT VAR_POP(CAST(cnt AS DOUBLE)), STDDEV_SAMP(cnt) FROM (SELECT product, COUNT(*) AS cnt FROM Orders GROUP BY product)',
    rows: ['0.22222222222222263, 0'],
  },
  {
    page: `${WAGG} (aggregate functions)`,
    name: 'LISTAGG, FIRST_VALUE, LAST_VALUE and STDDEV_POP in a TUMBLE window aggregation',
    tables: ['Bid'],
    sql: "SELECT window_start, LISTAGG(item, ''), FIRST_VALUE(item), LAST_VALUE(item), STDDEV_POP(CAST(price AS DOUBLE)) FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end",
    rows: [`${ts('08:00:00')}, ABCD, A, D, 1.479019945774904`, `${ts('08:10:00')}, EFG, E, G, 1.2472191289246468`, `${ts('08:30:00')}, H, H, H, 0.0`],
  },
  {
    page: `${WAGG} (aggregate functions)`,
    name: 'LISTAGG in a HOP window aggregation',
    tables: ['Bid'],
    sql: "SELECT window_start, LISTAGG(item) FROM TABLE(HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)) GROUP BY window_start, window_end",
    rows: [`${ts('07:55:00')}, A,B`, `${ts('08:00:00')}, A,B,C,D`, `${ts('08:05:00')}, C,D,E,F`, `${ts('08:10:00')}, E,F,G`, `${ts('08:15:00')}, G`, `${ts('08:25:00')}, H`, `${ts('08:30:00')}, H`],
  },
  {
    page: `${FUNCTIONS} (grouping functions)`,
    name: 'GROUPING, GROUPING_ID and GROUP_ID with GROUPING SETS',
    tables: ['Orders'],
    sql: 'SELECT product, `user`, GROUPING(product), GROUPING_ID(product, `user`), GROUP_ID(), COUNT(*) FROM Orders WHERE amount > 3 GROUP BY GROUPING SETS ((product, `user`), (product), (), ())',
    rows: ['NULL, NULL, 1, 3, 0, 4', 'NULL, NULL, 1, 3, 1, 4', 'apple, NULL, 0, 1, 0, 1', 'apple, carol, 0, 0, 0, 1', 'pear, NULL, 0, 1, 0, 2', 'pear, bob, 0, 0, 0, 1', 'pear, carol, 0, 0, 0, 1', 'plum, NULL, 0, 1, 0, 1', 'plum, alice, 0, 0, 0, 1'],
  },
  // DECIMAL(10, 2) prices: DECIMAL(38, 6) results, computed exactly as Flink's rewrite does.
  { page: `${FUNCTIONS} (aggregate functions)`, name: 'STDDEV of a DECIMAL', tables: ['Bid'], sql: 'SELECT STDDEV(price) FROM Bid', rows: ['2.031010'] },
  { page: `${FUNCTIONS} (aggregate functions)`, name: 'VAR_POP of a DECIMAL', tables: ['Bid'], sql: 'SELECT VAR_POP(price), VAR_SAMP(price), STDDEV_POP(price) FROM Bid', rows: ['3.609375, 4.125000, 1.899836'] },
  {
    page: `${WAGG} (aggregate functions)`,
    name: 'COLLECT, ARRAY_AGG, PERCENTILE and STDDEV_POP of a DECIMAL in a TUMBLE window aggregation',
    tables: ['Bid'],
    sql: "SELECT window_start, COLLECT(supplier_id), ARRAY_AGG(item), PERCENTILE(price, 0.5), STDDEV_POP(price) FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end",
    rows: [`${ts('08:00:00')}, {s1=2, s2=2}, [A, B, C, D], 2.5, 1.479020`, `${ts('08:10:00')}, {s1=2, s2=1}, [E, F, G], 4.0, 1.247219`, `${ts('08:30:00')}, {s2=1}, [H], 7.0, 0.000000`],
  },
];

const TIMEZONE = 'concepts/timezone';
/** `SET 'table.local-time-zone' = zone;` then the statements. */
const inZone = (zone: string, sql: string): string => `SET 'table.local-time-zone' = '${zone}';\n${sql}`;
const MYVIEW3 = "SELECT ltz, CAST(ltz AS TIMESTAMP(3)), CAST(ltz AS STRING), ntz, CAST(ntz AS TIMESTAMP_LTZ(3)) FROM (SELECT TO_TIMESTAMP_LTZ(4001, 3) AS ltz, TIMESTAMP '1970-01-01 00:00:01.001' AS ntz)";
const LTZ_TUMBLE = "SELECT window_start, window_end, window_time, MAX(price) FROM TABLE(TUMBLE(TABLE LtzBid, DESCRIPTOR(ts_ltz), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end, window_time";
const day = (time: string): string => `2024-01-01 ${time}`;

/**
 * The examples of the concepts/timezone page: TIMESTAMP_LTZ shown and cast in the session time
 * zone, event-time windows over TIMESTAMP (the zone does not matter) and over TIMESTAMP_LTZ
 * (aligned in the zone), and its daylight-saving day. Processing-time windows give different
 * windows on each run, so their examples are not compared (test/sql/temporal-types.test.ts and
 * test/sql/proctime-views.test.ts run them).
 */
const TIMEZONE_CASES: ConformanceCase[] = [
  { page: TIMEZONE, name: 'TO_TIMESTAMP_LTZ(4001, 3) in UTC', sql: inZone('UTC', 'SELECT TO_TIMESTAMP_LTZ(4001, 3)'), rows: ['1970-01-01 00:00:04.001'] },
  { page: TIMEZONE, name: 'TO_TIMESTAMP_LTZ(4001, 3) in Asia/Shanghai', sql: inZone('Asia/Shanghai', 'SELECT TO_TIMESTAMP_LTZ(4001, 3)'), rows: ['1970-01-01 08:00:04.001'] },
  { page: TIMEZONE, name: 'casts of TIMESTAMP_LTZ and TIMESTAMP in UTC (MyView3)', sql: inZone('UTC', MYVIEW3), rows: ['1970-01-01 00:00:04.001, 1970-01-01 00:00:04.001, 1970-01-01 00:00:04.001, 1970-01-01 00:00:01.001, 1970-01-01 00:00:01.001'] },
  { page: TIMEZONE, name: 'casts of TIMESTAMP_LTZ and TIMESTAMP in Asia/Shanghai (MyView3)', sql: inZone('Asia/Shanghai', MYVIEW3), rows: ['1970-01-01 08:00:04.001, 1970-01-01 08:00:04.001, 1970-01-01 08:00:04.001, 1970-01-01 00:00:01.001, 1970-01-01 00:00:01.001'] },
  {
    page: TIMEZONE,
    name: 'an event-time window over TIMESTAMP is the same in any zone (MyView4)',
    tables: ['Bid'],
    sql: inZone('Asia/Shanghai', "SELECT window_start, window_end, window_time, MAX(price) FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end, window_time"),
    rows: [`${ts('08:00:00')}, ${ts('08:10:00')}, ${day('08:09:59.999')}, 5.00`, `${ts('08:10:00')}, ${ts('08:20:00')}, ${day('08:19:59.999')}, 6.00`, `${ts('08:30:00')}, ${ts('08:40:00')}, ${day('08:39:59.999')}, 7.00`],
  },
  {
    page: TIMEZONE,
    name: 'an event-time window over TIMESTAMP_LTZ in UTC (MyView5)',
    tables: ['LtzBid'],
    sql: inZone('UTC', LTZ_TUMBLE),
    rows: [`${ts('08:00:00')}, ${ts('08:10:00')}, ${day('08:09:59.999')}, 5.0`, `${ts('08:10:00')}, ${ts('08:20:00')}, ${day('08:19:59.999')}, 6.0`, `${ts('08:30:00')}, ${ts('08:40:00')}, ${day('08:39:59.999')}, 7.0`],
  },
  {
    page: TIMEZONE,
    name: 'an event-time window over TIMESTAMP_LTZ in Asia/Shanghai (MyView5)',
    tables: ['LtzBid'],
    sql: inZone('Asia/Shanghai', LTZ_TUMBLE),
    rows: [`${ts('16:00:00')}, ${ts('16:10:00')}, ${day('16:09:59.999')}, 5.0`, `${ts('16:10:00')}, ${ts('16:20:00')}, ${day('16:19:59.999')}, 6.0`, `${ts('16:30:00')}, ${ts('16:40:00')}, ${day('16:39:59.999')}, 7.0`],
  },
  {
    page: TIMEZONE,
    name: 'a daylight-saving day: the 4-hour window from 00:00 holds 3 hours in America/Los_Angeles',
    tables: ['DstEvents'],
    sql: inZone('America/Los_Angeles', "SELECT window_start, window_end, window_time, COUNT(*) FROM TABLE(TUMBLE(TABLE DstEvents, DESCRIPTOR(ts_ltz), INTERVAL '4' HOURS)) GROUP BY window_start, window_end, window_time"),
    rows: ['2021-03-14 00:00:00.000, 2021-03-14 04:00:00.000, 2021-03-14 03:59:59.999, 3', '2021-03-14 04:00:00.000, 2021-03-14 08:00:00.000, 2021-03-14 07:59:59.999, 1'],
  },
  { page: TIMEZONE, name: 'PROCTIME() is a TIMESTAMP_LTZ(3) written into a result', tables: ['POrders'], sql: 'SELECT order_id, proctime IS NOT NULL, CAST(proctime AS TIMESTAMP(3)) IS NOT NULL FROM POrders WHERE order_id = 3', rows: ['3, true, true'] },
  { page: TIMEZONE, name: 'FROM_UNIXTIME and UNIX_TIMESTAMP read and write wall-clock text of the session zone', sql: inZone('Asia/Shanghai', "SELECT FROM_UNIXTIME(0), UNIX_TIMESTAMP('1970-01-01 08:00:00')"), rows: ['1970-01-01 08:00:00, 0'] },
  { page: TIMEZONE, name: 'a TIMESTAMP compares with a TIMESTAMP_LTZ as the wall-clock time of the session zone', sql: inZone('Asia/Shanghai', "SELECT TO_TIMESTAMP_LTZ(0, 3) = TIMESTAMP '1970-01-01 08:00:00', DATE_FORMAT(TO_TIMESTAMP_LTZ(0, 3), 'HH:mm'), HOUR(TO_TIMESTAMP_LTZ(0, 3)), CAST(TO_TIMESTAMP_LTZ(0, 3) AS DATE)"), rows: ['true, 08:00, 8, 1970-01-01'] },
  { page: TIMEZONE, name: 'LOCALTIMESTAMP is the wall-clock time of NOW() in the session zone', sql: inZone('GMT+08:00', 'SELECT TIMESTAMPDIFF(MINUTE, CAST(NOW() AS TIMESTAMP(3)), LOCALTIMESTAMP) < 1, CURRENT_DATE = CAST(LOCALTIMESTAMP AS DATE) OR HOUR(LOCALTIMESTAMP) = 0'), rows: ['true, true'] },
  { page: TIMEZONE, name: 'ORDER BY a DATE column with LIMIT', tables: ['Orders'], sql: 'SELECT order_id, CAST(order_time AS DATE) AS d FROM Orders ORDER BY d DESC, order_id LIMIT 2', rows: ['1, 2024-01-01', '2, 2024-01-01'] },
  { page: TIMEZONE, name: 'an invalid session time zone', sql: "SET 'table.local-time-zone' = 'Mars/Olympus';\nSELECT 1", error: "line 1:1: invalid time zone 'Mars/Olympus': give a tz database name such as 'America/Los_Angeles' (daylight saving time included), a fixed offset such as 'GMT+08:00', or 'UTC'" },
];

/** Flink's temporal functions over DATE, TIME and TIMESTAMP_LTZ (functions/systemFunctions, Temporal Functions). */
const TEMPORAL_CASES: ConformanceCase[] = [
  fn("DATE '2024-03-05' + INTERVAL '1' DAY", '2024-03-06'),
  fn("TIME '12:34:56'", '12:34:56'),
  fn("TIME '12:34:56' + INTERVAL '30' MINUTE", '13:04:56'),
  fn("DATE '2024-01-31' + INTERVAL '1' MONTH", '2024-02-29'),
  fn("DATE '2024-03-05' - INTERVAL '1' YEAR", '2023-03-05'),
  fn("TIMESTAMP '2024-01-31 10:00:00' + INTERVAL '1-2' YEAR TO MONTH", '2025-03-31 10:00:00.000'),
  { page: FUNCTIONS, name: 'a YEAR or MONTH interval on a TIME is rejected', sql: "SELECT TIME '10:00:00' + INTERVAL '1' MONTH", error: "line 1:24: cannot apply '+' to TIME(0) and BIGINT in +(10:00:00, 1:INTERVAL MONTH) (a YEAR or MONTH interval cannot be added to or subtracted from a TIME)" },
  fn("YEAR(DATE '1994-09-27')", '1994'),
  fn("QUARTER(DATE '1994-09-27')", '3'),
  fn("MONTH(DATE '1994-09-27')", '9'),
  fn("WEEK(DATE '1994-09-27')", '39'),
  fn("DAYOFYEAR(DATE '1994-09-27')", '270'),
  fn("DAYOFMONTH(DATE '1994-09-27')", '27'),
  fn("DAYOFWEEK(DATE '1994-09-27')", '3'),
  fn("HOUR(TIMESTAMP '1994-09-27 13:14:15')", '13'),
  fn("MINUTE(TIMESTAMP '1994-09-27 13:14:15')", '14'),
  fn("SECOND(TIMESTAMP '1994-09-27 13:14:15')", '15'),
  fn("HOUR(TIME '13:14:15')", '13'),
  fn("EXTRACT(DAY FROM DATE '2006-06-05')", '5'),
  fn("FLOOR(TIME '12:44:31' TO MINUTE)", '12:44:00'),
  fn("CEIL(TIME '12:44:31' TO MINUTE)", '12:45:00'),
  fn("FLOOR(DATE '2024-03-05' TO MONTH)", '2024-03-01'),
  fn("CEIL(DATE '2024-03-05' TO MONTH)", '2024-04-01'),
  fn("TIMESTAMPADD(WEEK, 1, DATE '2003-01-02')", '2003-01-09'),
  fn("TIMESTAMPDIFF(DAY, TIMESTAMP '2003-01-02 10:00:00', TIMESTAMP '2003-01-03 10:00:00')", '1'),
  fn("TIMESTAMPDIFF(MONTH, DATE '2024-01-31', DATE '2024-03-01')", '1'),
  fn("TO_DATE('05/03/2024', 'dd/MM/yyyy')", '2024-03-05'),
  fn("TO_TIMESTAMP_LTZ(1704067200, 0)", '2024-01-01 00:00:00.000'),
  fn("CONVERT_TZ('1970-01-01 00:00:00', 'UTC', 'America/Los_Angeles')", '1969-12-31 16:00:00'),
  fn("DATE_FORMAT(DATE '2024-03-05', 'yyyy/MM/dd')", '2024/03/05'),
  fn("CAST('2024-03-05' AS DATE)", '2024-03-05'),
  fn("CAST(DATE '2024-03-05' AS TIMESTAMP(3))", '2024-03-05 00:00:00.000'),
  fn("CAST(TIMESTAMP '2024-03-05 10:11:12.345' AS DATE)", '2024-03-05'),
  fn("CAST(TIMESTAMP '2024-03-05 10:11:12.345' AS TIME)", '10:11:12'),
  fn("CAST(TIME '10:11:12' AS STRING)", '10:11:12'),
  fn("DATE '2024-03-05' < DATE '2024-03-06'", 'true'),
  fn("DATE '2024-03-05' = '2024-03-05'", 'true'),
  fn("DATE '2024-03-05' < TIMESTAMP '2024-03-05 00:00:01'", 'true'),
  { page: FUNCTIONS, name: 'CAST(DATE … AS TIME) is rejected', sql: "SELECT CAST(DATE '2024-03-05' AS TIME)", error: "line 1:8: cannot cast DATE to TIME(0) in CAST(2024-03-05 AS TIME(0)): Flink casts a DATE only to a TIMESTAMP, TIMESTAMP_LTZ or STRING, and a TIME only to a TIMESTAMP, TIMESTAMP_LTZ or STRING" },
  { page: FUNCTIONS, name: 'CAST(a number AS TIMESTAMP_LTZ) is rejected', sql: 'SELECT CAST(1 AS TIMESTAMP_LTZ(3))', error: 'line 1:8: cannot cast INT to TIMESTAMP_LTZ(3) in CAST(1 AS TIMESTAMP_LTZ(3)): Flink does not cast numbers to TIMESTAMP_LTZ; use TO_TIMESTAMP_LTZ(n, precision)' },
];

/** Every case. */
export const CASES: readonly ConformanceCase[] = [...QUERIES, ...STATEMENTS, ...CATALOG_CASES, ...FUNCTION_CASES, ...USER_FUNCTIONS, ...MORE_CASES, ...TIMEZONE_CASES, ...TEMPORAL_CASES, ...TYPES_CASES, ...WINDOW_CASES];

/**
 * What Flink runs and Flambda does not (yet), by case name → the message Flambda gives (up to
 * `; supported:`, the list of known functions that grows with each one). Removing an entry once
 * the feature lands makes the suite assert the case's documented result.
 */
export const NOT_SUPPORTED: ReadonlyMap<string, string> = new Map<string, string>([
  ...MORE_NOT_SUPPORTED,
  ["INSERT … PARTITION", "line 3:17: INSERT … PARTITION (…) is not supported: it writes a partitioned table (PARTITIONED BY), which Flambda does not write"],
  ["MATCH_RECOGNIZE", "line 2:22: MATCH_RECOGNIZE is not supported"],
]);

/** The part of an error message the suite asserts. */
export function assertedMessage(message: string): string {
  const cut = message.indexOf('; supported:');
  return cut >= 0 ? message.slice(0, cut) : message;
}

/** The README's list of what the suite shows not supported, one line per case, by page. */
export function readmeSection(cases: readonly ConformanceCase[] = CASES): string {
  const missing = cases.filter((c) => NOT_SUPPORTED.has(c.name));
  const lines = [
    `The conformance suite (test/sql/conformance/) runs ${cases.length} examples of Flink's documentation pages over its own data: ${cases.length - missing.length} give the documented result (or Flink's own error); these ${missing.length} are not supported yet, with the error Flambda gives:`,
    '',
  ];
  for (const c of missing) lines.push(`- ${c.page}: \`${c.name.replace(/`/g, '')}\` — ${(NOT_SUPPORTED.get(c.name) ?? '').replace(/`/g, "'")}`);
  return lines.join('\n');
}
