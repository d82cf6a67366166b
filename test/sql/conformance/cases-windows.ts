/**
 * Conformance cases of the windowing pages for SESSION windows and processing time: what Flink
 * refuses straight after a SESSION window table function (the "Limitation" sections of
 * window-topn, window-deduplication and window-join), the window Top-N it runs after a SESSION
 * window aggregation, and PROCTIME() windowing and sorting whose results do not depend on the
 * clock's readings (exact results under a controlled clock are in test/sql/proctime-windows.test.ts).
 */
import type { ConformanceCase } from './cases.ts';

const ts = (time: string): string => `2024-01-01 ${time}.000`;

const TVF = 'sql/queries/window-tvf';
const WTOPN = 'sql/queries/window-topn';
const WDEDUP = 'sql/queries/window-deduplication';
const WJOIN = 'sql/queries/window-join';
const LIMIT = 'sql/queries/limit';

const SESSION = "TABLE(SESSION(TABLE Bid PARTITION BY supplier_id, DESCRIPTOR(bidtime), INTERVAL '7' MINUTES))";

/** The cases; see the module documentation. */
export const WINDOW_CASES: ConformanceCase[] = [
  {
    page: WTOPN,
    name: 'window Top-N directly after a SESSION window TVF is rejected (Limitation)',
    tables: ['Bid'],
    sql: `SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rownum FROM ${SESSION}) WHERE rownum <= 3`,
    error:
      'line 2:26: window Top-N directly after a SESSION window table function is not supported, as in Flink (window-topn "Limitation": TUMBLE, HOP and CUMULATE only); aggregate the sessions first (GROUP BY window_start, window_end), then rank the aggregate',
  },
  {
    page: WDEDUP,
    name: 'window deduplication directly after a SESSION window TVF is rejected (Limitation)',
    tables: ['Bid'],
    sql: `SELECT bidtime, price, item, supplier_id, window_start, window_end FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY bidtime DESC) AS rownum FROM ${SESSION}) WHERE rownum <= 1`,
    error: 'line 2:84: window deduplication directly after a SESSION window table function is not supported, as in Flink (window-deduplication "Limitation": TUMBLE, HOP or CUMULATE only)',
  },
  {
    page: WJOIN,
    name: 'window join directly after SESSION window TVFs is rejected (Limitation)',
    tables: ['Bid'],
    sql: `SELECT L.item, R.item FROM (SELECT * FROM ${SESSION}) L JOIN (SELECT * FROM ${SESSION}) R ON L.supplier_id = R.supplier_id AND L.window_start = R.window_start AND L.window_end = R.window_end`,
    error: 'line 2:140: window join directly after a SESSION window table function is not supported, as in Flink (window-join "Limitation": TUMBLE, HOP or CUMULATE only)',
  },
  {
    page: WTOPN,
    name: 'window Top-N after a SESSION window aggregation',
    tables: ['Bid'],
    sql: `SELECT window_start, window_end, supplier_id, price, rownum FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rownum FROM (SELECT window_start, window_end, supplier_id, SUM(price) AS price FROM ${SESSION} GROUP BY window_start, window_end, supplier_id)) WHERE rownum <= 3`,
    // The sessions of window-agg's SESSION example, each the only row of its window.
    rows: [`${ts('08:01:00')}, ${ts('08:25:00')}, s1, 15.00, 1`, `${ts('08:04:00')}, ${ts('08:21:00')}, s2, 9.00, 1`, `${ts('08:31:00')}, ${ts('08:38:00')}, s2, 7.00, 1`],
  },
  {
    page: TVF,
    name: 'HOP over a PROCTIME() attribute alone: each row once per window',
    tables: ['POrders'],
    sql: "SELECT order_id, TIMESTAMPDIFF(MINUTE, window_start, window_end) FROM TABLE(HOP(TABLE POrders, DESCRIPTOR(proctime), INTERVAL '1' MINUTE, INTERVAL '2' MINUTES))",
    rows: ['1, 2', '1, 2', '1, 2', '1, 2', '2, 2', '2, 2', '2, 2', '2, 2', '3, 2', '3, 2'],
  },
  {
    page: TVF,
    name: 'TUMBLE over a PROCTIME() attribute alone into a regular aggregate',
    tables: ['POrders'],
    sql: "SELECT `user`, COUNT(*), SUM(amount) FROM TABLE(TUMBLE(TABLE POrders, DESCRIPTOR(proctime), INTERVAL '10' SECONDS)) WHERE TIMESTAMPDIFF(SECOND, window_start, window_end) = 10 GROUP BY `user`",
    rows: ['alice, 2, 12', 'bob, 2, 13', 'carol, 1, 2'],
  },
  {
    page: LIMIT,
    name: 'ORDER BY a PROCTIME() attribute DESC with LIMIT: a Top-N of the latest rows',
    tables: ['POrders'],
    sql: 'SELECT COUNT(*) FROM (SELECT order_id FROM POrders ORDER BY proctime DESC LIMIT 2)',
    rows: ['2'],
  },
];
