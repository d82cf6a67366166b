/**
 * The conformance suite's tables: our own small data sets, shaped like the tables Flink's
 * documentation pages query (Orders, Bid, ShopSales, Shipments, …). Each DDL is one line so
 * that the line numbers in asserted error messages do not move when a fixture changes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fixture table: its columns (DDL body), its JSON-lines rows and their format. */
interface Fixture {
  readonly columns: string;
  readonly rows: readonly Record<string, unknown>[];
  /** The 'format' option of its DDL. @default 'json' */
  readonly format?: string;
}

const t = (time: string): string => `2024-01-01 ${time}.000`;

/** The fixture tables by name. */
export const FIXTURES: Readonly<Record<string, Fixture>> = {
  // Orders of the select / group-agg / over-agg / with / orderby / limit pages.
  Orders: {
    columns: "order_id BIGINT, `user` STRING, product STRING, amount INT, price DOUBLE, order_time TIMESTAMP(3), WATERMARK FOR order_time AS order_time - INTERVAL '1' SECOND",
    rows: [
      { order_id: 1, user: 'alice', product: 'apple', amount: 3, price: 1.5, order_time: t('10:00:00') },
      { order_id: 2, user: 'bob', product: 'pear', amount: 5, price: 2.0, order_time: t('10:02:00') },
      { order_id: 3, user: 'alice', product: 'pear', amount: 2, price: 2.0, order_time: t('10:04:00') },
      { order_id: 4, user: 'carol', product: 'apple', amount: 7, price: 1.5, order_time: t('10:11:00') },
      { order_id: 5, user: 'bob', product: 'apple', amount: 1, price: 1.5, order_time: t('10:13:00') },
      { order_id: 6, user: 'alice', product: 'plum', amount: 4, price: 3.0, order_time: t('10:17:00') },
      { order_id: 7, user: 'carol', product: 'pear', amount: 6, price: 2.0, order_time: t('10:21:00') },
      { order_id: 8, user: 'bob', product: 'plum', amount: 2, price: 3.0, order_time: t('10:26:00') },
    ],
  },
  // The same orders with a processing-time attribute (deduplication page).
  POrders: {
    columns: "order_id BIGINT, `user` STRING, product STRING, amount INT, proctime AS PROCTIME()",
    rows: [
      { order_id: 1, user: 'alice', product: 'apple', amount: 3 },
      { order_id: 2, user: 'bob', product: 'pear', amount: 5 },
      { order_id: 1, user: 'alice', product: 'apple', amount: 9 },
      { order_id: 3, user: 'carol', product: 'plum', amount: 2 },
      { order_id: 2, user: 'bob', product: 'pear', amount: 8 },
    ],
  },
  // Orders arriving out of time order, 2 s watermark delay (the orderby page's temporal sort): order 6
  // arrives after orders up to 10:00:03 have been sorted out, too late for its place.
  LateOrders: {
    columns: "order_id BIGINT, amount INT, order_time TIMESTAMP(3), WATERMARK FOR order_time AS order_time - INTERVAL '2' SECOND",
    rows: [
      { order_id: 1, amount: 3, order_time: t('10:00:01') },
      { order_id: 2, amount: 5, order_time: t('10:00:00') },
      { order_id: 3, amount: 2, order_time: t('10:00:03') },
      { order_id: 4, amount: 7, order_time: t('10:00:02') },
      { order_id: 5, amount: 1, order_time: t('10:00:05') },
      { order_id: 6, amount: 4, order_time: t('10:00:02') },
      { order_id: 7, amount: 6, order_time: t('10:00:05') },
    ],
  },
  // Bid of the window-tvf / window-agg / window-topn / window-dedup pages.
  Bid: {
    columns: "bidtime TIMESTAMP(3), price DECIMAL(10, 2), item STRING, supplier_id STRING, WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND",
    rows: [
      { bidtime: t('08:01:00'), price: 3, item: 'A', supplier_id: 's1' },
      { bidtime: t('08:04:00'), price: 2, item: 'B', supplier_id: 's2' },
      { bidtime: t('08:06:00'), price: 5, item: 'C', supplier_id: 's1' },
      { bidtime: t('08:09:00'), price: 1, item: 'D', supplier_id: 's2' },
      { bidtime: t('08:12:00'), price: 4, item: 'E', supplier_id: 's1' },
      { bidtime: t('08:14:00'), price: 6, item: 'F', supplier_id: 's2' },
      { bidtime: t('08:18:00'), price: 3, item: 'G', supplier_id: 's1' },
      { bidtime: t('08:31:00'), price: 7, item: 'H', supplier_id: 's2' },
    ],
  },
  // ShopSales of the topn page.
  ShopSales: {
    columns: 'product_id STRING, category STRING, product_name STRING, sales BIGINT',
    rows: [
      { product_id: 'p1', category: 'fruit', product_name: 'apple', sales: 30 },
      { product_id: 'p2', category: 'fruit', product_name: 'pear', sales: 50 },
      { product_id: 'p3', category: 'fruit', product_name: 'plum', sales: 10 },
      { product_id: 'p4', category: 'veg', product_name: 'leek', sales: 20 },
      { product_id: 'p5', category: 'veg', product_name: 'kale', sales: 40 },
      { product_id: 'p2', category: 'fruit', product_name: 'pear', sales: 5 },
    ],
  },
  // Product, for the regular joins of the joins page (ids 1..3; 'plum' has none).
  Product: {
    columns: 'id STRING, name STRING, shelf INT',
    rows: [
      { id: 'apple', name: 'Apple', shelf: 1 },
      { id: 'pear', name: 'Pear', shelf: 2 },
      { id: 'fig', name: 'Fig', shelf: 3 },
    ],
  },
  // Shipments of the interval join on the joins page.
  Shipments: {
    columns: "ship_id BIGINT, order_id BIGINT, ship_time TIMESTAMP(3), WATERMARK FOR ship_time AS ship_time - INTERVAL '1' SECOND",
    rows: [
      { ship_id: 10, order_id: 1, ship_time: t('10:30:00') },
      { ship_id: 12, order_id: 4, ship_time: t('11:00:00') },
      { ship_id: 13, order_id: 9, ship_time: t('11:30:00') },
      { ship_id: 11, order_id: 2, ship_time: t('15:00:00') },
    ],
  },
  // Versioned currency rates of the temporal join (event time) on the joins page.
  currency_rates: {
    columns: "currency STRING, conversion_rate DOUBLE, update_time TIMESTAMP(3), WATERMARK FOR update_time AS update_time, PRIMARY KEY (currency) NOT ENFORCED",
    rows: [
      { currency: 'EUR', conversion_rate: 1.1, update_time: t('09:00:00') },
      { currency: 'EUR', conversion_rate: 1.2, update_time: t('10:05:00') },
      { currency: 'GBP', conversion_rate: 1.3, update_time: t('09:00:00') },
      { currency: 'EUR', conversion_rate: 1.0, update_time: t('11:00:00') },
    ],
  },
  // Orders with a currency, for the temporal join.
  COrders: {
    columns: "order_id BIGINT, price DOUBLE, currency STRING, order_time TIMESTAMP(3), WATERMARK FOR order_time AS order_time",
    rows: [
      { order_id: 1, price: 10, currency: 'EUR', order_time: t('10:00:00') },
      { order_id: 2, price: 20, currency: 'EUR', order_time: t('10:10:00') },
      { order_id: 3, price: 30, currency: 'GBP', order_time: t('10:20:00') },
      { order_id: 4, price: 40, currency: 'EUR', order_time: t('12:00:00') },
    ],
  },
  // Clicks with epoch-second times (the computed-column watermark of the CREATE TABLE page).
  Clicks: {
    columns: 'id BIGINT, ts BIGINT',
    rows: [
      { id: 1, ts: 1704067205 },
      { id: 2, ts: 1704067230 },
      { id: 3, ts: 1704067270 },
    ],
  },
  // A product catalog's Debezium change events (the versioned-tables page's `products`): read
  // with 'format' = 'debezium-json' by the cases that declare it, as a retract changelog.
  ProductChanges: {
    columns: "product_id STRING, product_name STRING, price DECIMAL(10, 2), update_time TIMESTAMP(3), WATERMARK FOR update_time AS update_time, PRIMARY KEY (product_id) NOT ENFORCED",
    rows: [
      { before: null, after: { product_id: 'p1', product_name: 'scooter', price: 11.11, update_time: t('00:01:00') }, op: 'c' },
      { before: null, after: { product_id: 'p2', product_name: 'basketball', price: 23.11, update_time: t('00:02:00') }, op: 'c' },
      { before: { product_id: 'p1', product_name: 'scooter', price: 11.11, update_time: t('00:01:00') }, after: { product_id: 'p1', product_name: 'scooter', price: 12.99, update_time: t('12:00:00') }, op: 'u' },
      { before: { product_id: 'p2', product_name: 'basketball', price: 23.11, update_time: t('00:02:00') }, after: { product_id: 'p2', product_name: 'basketball', price: 19.99, update_time: t('12:00:00') }, op: 'u' },
      { before: null, after: { product_id: 'p3', product_name: 'kite', price: 5.0, update_time: t('12:30:00') }, op: 'c' },
      { before: { product_id: 'p3', product_name: 'kite', price: 5.0, update_time: t('12:30:00') }, after: null, op: 'd' },
    ],
    format: 'debezium-json',
  },
  // Orders of those products, in event time (the temporal join against the versioned table).
  ProductOrders: {
    columns: "order_id STRING, product_id STRING, quantity INT, order_time TIMESTAMP(3), WATERMARK FOR order_time AS order_time",
    rows: [
      { order_id: 'o1', product_id: 'p1', quantity: 1, order_time: t('10:00:00') },
      { order_id: 'o2', product_id: 'p2', quantity: 2, order_time: t('11:00:00') },
      { order_id: 'o3', product_id: 'p1', quantity: 3, order_time: t('12:30:00') },
      { order_id: 'o4', product_id: 'p2', quantity: 1, order_time: t('13:00:00') },
      { order_id: 'o5', product_id: 'p4', quantity: 2, order_time: t('14:00:00') },
    ],
  },
  // LeftTable and RightTable of the window-join page (its rows, on 2024-01-01).
  LeftTable: {
    columns: "row_time TIMESTAMP(3), num INT, id STRING, WATERMARK FOR row_time AS row_time - INTERVAL '1' SECOND",
    rows: [
      { row_time: t('12:02:00'), num: 1, id: 'L1' },
      { row_time: t('12:03:00'), num: 3, id: 'L3' },
      { row_time: t('12:06:00'), num: 2, id: 'L2' },
    ],
  },
  RightTable: {
    columns: "row_time TIMESTAMP(3), num INT, id STRING, WATERMARK FOR row_time AS row_time - INTERVAL '1' SECOND",
    rows: [
      { row_time: t('12:01:00'), num: 2, id: 'R2' },
      { row_time: t('12:04:00'), num: 3, id: 'R3' },
      { row_time: t('12:05:00'), num: 4, id: 'R4' },
    ],
  },
  // The dynamic-tables page's `clicks` (named apart from Clicks, whose file a case-blind disk
  // would share), out of order: the watermark trails by a minute, so 12:58 (after 13:01) is late
  // for the 12:00 hour and 13:20 (after 13:30) is late for an OVER aggregate but not for the 13:00
  // hour, which is still open.
  UserClicks: {
    columns: "`user` STRING, url STRING, cTime TIMESTAMP(3), WATERMARK FOR cTime AS cTime - INTERVAL '1' MINUTE",
    rows: [
      { user: 'Mary', url: './home', cTime: t('12:00:00') },
      { user: 'Bob', url: './cart', cTime: t('12:00:00') },
      { user: 'Mary', url: './prod?id=1', cTime: t('12:02:00') },
      { user: 'Liz', url: './home', cTime: t('12:03:00') },
      { user: 'Bob', url: './prod?id=3', cTime: t('12:55:00') },
      { user: 'Mary', url: './prod?id=7', cTime: t('13:01:00') },
      { user: 'Liz', url: './cart', cTime: t('12:58:00') },
      { user: 'Bob', url: './home', cTime: t('13:30:00') },
      { user: 'Mary', url: './cart', cTime: t('13:20:00') },
    ],
  },
  // Readings with NULL keys and values: NULL is a group of its own and never equals a key in a join.
  Readings: {
    columns: 'k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts',
    rows: [
      { k: 'a', v: 1, ts: t('10:00:00') },
      { k: null, v: 2, ts: t('10:01:00') },
      { k: 'a', v: 3, ts: t('10:02:00') },
      { k: null, v: 4, ts: t('10:03:00') },
      { k: 'b', v: null, ts: t('10:04:00') },
      { k: null, v: 6, ts: t('10:12:00') },
    ],
  },
  // Words and tags for user table functions (Flink's SplitFunction example).
  Docs: {
    columns: 'id BIGINT, line STRING',
    rows: [
      { id: 1, line: 'a b' },
      { id: 2, line: '' },
      { id: 3, line: 'c' },
    ],
  },
  // The Bid rows with their time as epoch milliseconds and a TIMESTAMP_LTZ rowtime (the
  // concepts/timezone page's MyTable3): 2024-01-01 08:01 … 08:31 UTC.
  LtzBid: {
    columns: "item STRING, price DOUBLE, ts BIGINT, ts_ltz AS TO_TIMESTAMP_LTZ(ts, 3), WATERMARK FOR ts_ltz AS ts_ltz - INTERVAL '10' SECOND",
    rows: [
      { item: 'A', price: 3, ts: 1704096060000 },
      { item: 'B', price: 2, ts: 1704096240000 },
      { item: 'C', price: 5, ts: 1704096360000 },
      { item: 'D', price: 1, ts: 1704096540000 },
      { item: 'E', price: 4, ts: 1704096720000 },
      { item: 'F', price: 6, ts: 1704096840000 },
      { item: 'G', price: 3, ts: 1704097080000 },
      { item: 'H', price: 7, ts: 1704097860000 },
    ],
  },
  // The page's daylight-saving day: 2021-03-14 00:00, 01:00, 03:00 and 04:00 in America/Los_Angeles.
  DstEvents: {
    columns: 'k STRING, ts BIGINT, ts_ltz AS TO_TIMESTAMP_LTZ(ts, 3), WATERMARK FOR ts_ltz AS ts_ltz',
    rows: [
      { k: 'x', ts: 1615708800000 },
      { k: 'x', ts: 1615712400000 },
      { k: 'x', ts: 1615716000000 },
      { k: 'x', ts: 1615719600000 },
    ],
  },
  // Orders with an array and a map of products (the joins page's array, multiset and map expansion).
  Baskets: {
    columns: 'order_id BIGINT, product_names ARRAY<STRING>, quantities MAP<STRING, INT>',
    rows: [
      { order_id: 1, product_names: ['shirt', 'pants'], quantities: { shirt: 2, pants: 1 } },
      { order_id: 2, product_names: [], quantities: {} },
      { order_id: 3, product_names: ['hat'], quantities: { hat: 5 } },
    ],
  },
};

/** Writes every fixture's rows to a temporary directory; the DDL of table `name` there. */
export class FixtureFiles {
  private readonly dir = mkdtempSync(join(tmpdir(), 'flambda-conformance-'));

  constructor() {
    for (const [name, f] of Object.entries(FIXTURES)) writeFileSync(this.path(name), f.rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  }

  /** The JSON-lines file of table `name`. */
  path(name: string): string {
    return join(this.dir, `${name}.jsonl`);
  }

  /** `CREATE TABLE name (…) WITH (filesystem, its format);` on one line. */
  ddl(name: string): string {
    const f = FIXTURES[name];
    if (!f) throw new Error(`no fixture table '${name}'`);
    return `CREATE TABLE ${name} (${f.columns}) WITH ('connector' = 'filesystem', 'path' = '${this.path(name)}', 'format' = '${f.format ?? 'json'}');`;
  }

  /** Removes the directory. */
  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
