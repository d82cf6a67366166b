/**
 * Conformance cases of the catalog pages — sql/create (LIKE, AS SELECT, IF NOT EXISTS),
 * sql/show, sql/describe, sql/drop, sql/alter, sql/use — and of EXPLAIN's details and INSERT
 * OVERWRITE. Where a page prints a result, the case's `explain` is that page's output (the SQL
 * client's tables, `N rows in set`), rewritten over our tables where the page's tables differ.
 */
import type { ConformanceCase } from './cases.ts';

const CREATE = 'sql/create';
const LIKE = 'sql/create (LIKE)';
const CTAS = 'sql/create (AS SELECT)';
const SHOW = 'sql/show';
const DESCRIBE = 'sql/describe';
const DROP = 'sql/drop';
const ALTER = 'sql/alter';
const USE = 'sql/use';
const EXPLAIN = 'sql/explain';
const INSERT = 'sql/insert';

/** A result table's lines as the SQL client prints them. */
const table = (...lines: string[]): string => lines.join('\n');

/** The sql/describe and sql/show pages' `orders` table (its options: datagen, which Flambda has). */
const DOC_ORDERS =
  "CREATE TABLE Orders (`user` BIGINT NOT NULl comment 'this is primary key', product VARCHAR(32), amount INT, ts TIMESTAMP(3) comment 'notice: watermark', ptime AS PROCTIME() comment 'this is a computed column', PRIMARY KEY(`user`) NOT ENFORCED, WATERMARK FOR ts AS ts - INTERVAL '1' SECONDS) with ('connector' = 'datagen')";

/** sql/alter's walk-through: each DESCRIBE after each ALTER, as the page prints them. */
const ALTER_WALK = [
  "CREATE TABLE Orders (`user` BIGINT, product STRING, amount INT) WITH ('connector' = 'datagen');",
  "ALTER TABLE Orders ADD `order` INT COMMENT 'order identifier' FIRST;",
  'DESCRIBE Orders;',
  "ALTER TABLE Orders ADD (ts TIMESTAMP(3), category STRING AFTER product, PRIMARY KEY(`order`) NOT ENFORCED, WATERMARK FOR ts AS ts - INTERVAL '1' HOUR);",
  'DESCRIBE Orders;',
  "ALTER TABLE Orders MODIFY (amount DOUBLE NOT NULL, category STRING COMMENT 'category identifier' AFTER `order`, WATERMARK FOR ts AS ts);",
  'DESCRIBE Orders;',
  'ALTER TABLE Orders DROP WATERMARK;',
  'DESCRIBE Orders;',
  'ALTER TABLE Orders DROP (amount, ts, category);',
  'DESCRIBE Orders;',
  'ALTER TABLE Orders RENAME `order` to `order_id`;',
  'DESCRIBE Orders;',
  'SHOW TABLES;',
  'ALTER TABLE Orders RENAME TO NewOrders;',
  'SHOW TABLES',
].join('\n');

const ALTER_WALK_OUTPUT = [
  table(
    '+---------+--------+------+-----+--------+-----------+------------------+',
    '|    name |   type | null | key | extras | watermark |          comment |',
    '+---------+--------+------+-----+--------+-----------+------------------+',
    '|   order |    INT | TRUE |     |        |           | order identifier |',
    '|    user | BIGINT | TRUE |     |        |           |                  |',
    '| product | STRING | TRUE |     |        |           |                  |',
    '|  amount |    INT | TRUE |     |        |           |                  |',
    '+---------+--------+------+-----+--------+-----------+------------------+',
    '4 rows in set',
  ),
  table(
    '+----------+------------------------+-------+------------+--------+--------------------------+------------------+',
    '|     name |                   type |  null |        key | extras |                watermark |          comment |',
    '+----------+------------------------+-------+------------+--------+--------------------------+------------------+',
    '|    order |                    INT | FALSE | PRI(order) |        |                          | order identifier |',
    '|     user |                 BIGINT |  TRUE |            |        |                          |                  |',
    '|  product |                 STRING |  TRUE |            |        |                          |                  |',
    '| category |                 STRING |  TRUE |            |        |                          |                  |',
    '|   amount |                    INT |  TRUE |            |        |                          |                  |',
    "|       ts | TIMESTAMP(3) *ROWTIME* |  TRUE |            |        | `ts` - INTERVAL '1' HOUR |                  |",
    '+----------+------------------------+-------+------------+--------+--------------------------+------------------+',
    '6 rows in set',
  ),
  table(
    '+----------+------------------------+-------+------------+--------+-----------+---------------------+',
    '|     name |                   type |  null |        key | extras | watermark |             comment |',
    '+----------+------------------------+-------+------------+--------+-----------+---------------------+',
    '|    order |                    INT | FALSE | PRI(order) |        |           |    order identifier |',
    '| category |                 STRING |  TRUE |            |        |           | category identifier |',
    '|     user |                 BIGINT |  TRUE |            |        |           |                     |',
    '|  product |                 STRING |  TRUE |            |        |           |                     |',
    '|   amount |                 DOUBLE | FALSE |            |        |           |                     |',
    '|       ts | TIMESTAMP(3) *ROWTIME* |  TRUE |            |        |      `ts` |                     |',
    '+----------+------------------------+-------+------------+--------+-----------+---------------------+',
    '6 rows in set',
  ),
  table(
    '+----------+--------------+-------+------------+--------+-----------+---------------------+',
    '|     name |         type |  null |        key | extras | watermark |             comment |',
    '+----------+--------------+-------+------------+--------+-----------+---------------------+',
    '|    order |          INT | FALSE | PRI(order) |        |           |    order identifier |',
    '| category |       STRING |  TRUE |            |        |           | category identifier |',
    '|     user |       BIGINT |  TRUE |            |        |           |                     |',
    '|  product |       STRING |  TRUE |            |        |           |                     |',
    '|   amount |       DOUBLE | FALSE |            |        |           |                     |',
    '|       ts | TIMESTAMP(3) |  TRUE |            |        |           |                     |',
    '+----------+--------------+-------+------------+--------+-----------+---------------------+',
    '6 rows in set',
  ),
  table(
    '+---------+--------+-------+------------+--------+-----------+------------------+',
    '|    name |   type |  null |        key | extras | watermark |          comment |',
    '+---------+--------+-------+------------+--------+-----------+------------------+',
    '|   order |    INT | FALSE | PRI(order) |        |           | order identifier |',
    '|    user | BIGINT |  TRUE |            |        |           |                  |',
    '| product | STRING |  TRUE |            |        |           |                  |',
    '+---------+--------+-------+------------+--------+-----------+------------------+',
    '3 rows in set',
  ),
  table(
    '+----------+--------+-------+---------------+--------+-----------+------------------+',
    '|     name |   type |  null |           key | extras | watermark |          comment |',
    '+----------+--------+-------+---------------+--------+-----------+------------------+',
    '| order_id |    INT | FALSE | PRI(order_id) |        |           | order identifier |',
    '|     user | BIGINT |  TRUE |               |        |           |                  |',
    '|  product | STRING |  TRUE |               |        |           |                  |',
    '+----------+--------+-------+---------------+--------+-----------+------------------+',
    '3 rows in set',
  ),
  table('+------------+', '| table name |', '+------------+', '|     Orders |', '+------------+', '1 row in set'),
  table('+------------+', '| table name |', '+------------+', '|  NewOrders |', '+------------+', '1 row in set'),
].join('\n\n');

/** The sql/describe page's result for its Orders table. */
const DESCRIBE_ORDERS = table(
  '+---------+-----------------------------+-------+-----------+---------------+----------------------------+---------------------------+',
  '|    name |                        type |  null |       key |        extras |                  watermark |                   comment |',
  '+---------+-----------------------------+-------+-----------+---------------+----------------------------+---------------------------+',
  '|    user |                      BIGINT | FALSE | PRI(user) |               |                            |       this is primary key |',
  '| product |                 VARCHAR(32) |  TRUE |           |               |                            |                           |',
  '|  amount |                         INT |  TRUE |           |               |                            |                           |',
  "|      ts |      TIMESTAMP(3) *ROWTIME* |  TRUE |           |               | `ts` - INTERVAL '1' SECOND |         notice: watermark |",
  '|   ptime | TIMESTAMP_LTZ(3) *PROCTIME* | FALSE |           | AS PROCTIME() |                            | this is a computed column |',
  '+---------+-----------------------------+-------+-----------+---------------+----------------------------+---------------------------+',
  '5 rows in set',
);

export const CATALOG_CASES: readonly ConformanceCase[] = [
  // sql/create: LIKE, with the page's two examples and the errors of its merging rules.
  {
    page: LIKE,
    name: 'LIKE adds a watermark and overwrites an option (the default OVERWRITING OPTIONS)',
    sql: "CREATE TABLE Orders (`user` BIGINT, product STRING, order_time TIMESTAMP(3)) WITH ('connector' = 'datagen', 'number-of-rows' = '10');\nCREATE TABLE Orders_with_watermark (WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND) WITH ('number-of-rows' = '5') LIKE Orders;\nSHOW CREATE TABLE Orders_with_watermark",
    explain: [
      'CREATE TABLE `default_catalog`.`default_database`.`Orders_with_watermark` (',
      '  `user` BIGINT,',
      '  `product` VARCHAR(2147483647),',
      '  `order_time` TIMESTAMP(3),',
      "  WATERMARK FOR `order_time` AS `order_time` - INTERVAL '5' SECOND",
      ') WITH (',
      "  'connector' = 'datagen',",
      "  'number-of-rows' = '5'",
      ')',
    ].join('\n'),
  },
  {
    page: LIKE,
    name: 'LIKE … (EXCLUDING ALL INCLUDING GENERATED) keeps the computed column, drops partitions and options',
    sql: "CREATE TABLE Orders_in_file (`user` BIGINT, product STRING, order_time_string STRING, order_time AS TO_TIMESTAMP(order_time_string)) PARTITIONED BY (`user`) WITH ('connector' = 'filesystem', 'path' = '/data/orders', 'format' = 'json');\nCREATE TABLE Orders_in_datagen (WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND) WITH ('connector' = 'datagen') LIKE Orders_in_file (EXCLUDING ALL INCLUDING GENERATED);\nSHOW CREATE TABLE Orders_in_datagen",
    explain: [
      'CREATE TABLE `default_catalog`.`default_database`.`Orders_in_datagen` (',
      '  `user` BIGINT,',
      '  `product` VARCHAR(2147483647),',
      '  `order_time_string` VARCHAR(2147483647),',
      '  `order_time` AS TO_TIMESTAMP(`order_time_string`),',
      "  WATERMARK FOR `order_time` AS `order_time` - INTERVAL '5' SECOND",
      ') WITH (',
      "  'connector' = 'datagen'",
      ')',
    ].join('\n'),
  },
  {
    page: LIKE,
    name: 'LIKE copies the base table and runs a window aggregation over it',
    tables: ['Orders'],
    sql: "CREATE TABLE Orders2 WITH ('scan.parallelism' = '1') LIKE Orders (EXCLUDING WATERMARKS);\nALTER TABLE Orders2 ADD WATERMARK FOR order_time AS order_time;\nSELECT window_start, SUM(amount) FROM TABLE(TUMBLE(TABLE Orders2, DESCRIPTOR(order_time), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end",
    rows: ['2024-01-01 10:00:00.000, 10', '2024-01-01 10:10:00.000, 12', '2024-01-01 10:20:00.000, 8'],
  },
  {
    page: LIKE,
    name: 'LIKE with INCLUDING OPTIONS and an option of the base table',
    tables: ['Orders'],
    sql: "CREATE TABLE Orders2 WITH ('format' = 'csv') LIKE Orders (INCLUDING OPTIONS)",
    error: "line 2:39: There already exists an option ['format' -> 'json']  in the base table. You might want to specify EXCLUDING OPTIONS or OVERWRITING OPTIONS.",
  },
  {
    page: LIKE,
    name: 'LIKE with a computed column of the base table redeclared',
    sql: "CREATE TABLE base (a INT, b AS a * 2) WITH ('connector' = 'datagen');\nCREATE TABLE derived (b AS a * 3) WITH ('number-of-rows' = '1') LIKE base",
    error: "line 2:23: A generated column named 'b' already exists in the base table. You might want to specify EXCLUDING GENERATED or OVERWRITING GENERATED.",
  },
  {
    page: LIKE,
    name: 'LIKE … (OVERWRITING GENERATED) replaces a computed column in place',
    sql: "CREATE TABLE base (a INT, b AS a * 2, c STRING) WITH ('connector' = 'datagen');\nCREATE TABLE derived (b AS a * 3) LIKE base (OVERWRITING GENERATED);\nSHOW COLUMNS FROM derived",
    explain: table(
      '+------+--------+------+-----+------------+-----------+',
      '| name |   type | null | key |     extras | watermark |',
      '+------+--------+------+-----+------------+-----------+',
      '|    a |    INT | TRUE |     |            |           |',
      '|    b |    INT | TRUE |     | AS `a` * 3 |           |',
      '|    c | STRING | TRUE |     |            |           |',
      '+------+--------+------+-----+------------+-----------+',
      '3 rows in set',
    ),
  },
  {
    page: LIKE,
    name: 'LIKE with a primary key in both tables',
    sql: "CREATE TABLE base (a INT, PRIMARY KEY (a) NOT ENFORCED) WITH ('connector' = 'datagen');\nCREATE TABLE derived (b INT, PRIMARY KEY (b) NOT ENFORCED) LIKE base",
    error: 'line 2:1: The base table already has a primary key. You might want to specify EXCLUDING CONSTRAINTS.',
  },
  {
    page: LIKE,
    name: 'LIKE with a physical column of the base table redeclared',
    sql: "CREATE TABLE base (a INT) WITH ('connector' = 'datagen');\nCREATE TABLE derived (a BIGINT) LIKE base",
    error: "line 2:23: A column named 'a' already exists in the base table.",
  },
  {
    page: LIKE,
    name: 'LIKE of a view',
    tables: ['Orders'],
    sql: "CREATE VIEW v AS SELECT order_id FROM Orders;\nCREATE TABLE t WITH ('connector' = 'print') LIKE v",
    error: "line 3:50: Source table 'default_catalog.default_database.v' of the LIKE clause can not be a VIEW",
  },

  // sql/create: AS SELECT and IF NOT EXISTS.
  {
    page: CTAS,
    name: 'CTAS takes the query’s schema',
    tables: ['Orders'],
    sql: "CREATE TABLE my_ctas_table WITH ('connector' = 'blackhole') AS SELECT order_id, `user`, amount * 2 AS twice FROM Orders WHERE MOD(order_id, 2) = 0;\nDESCRIBE my_ctas_table",
    explain: table(
      '+----------+--------+------+-----+--------+-----------+',
      '|     name |   type | null | key | extras | watermark |',
      '+----------+--------+------+-----+--------+-----------+',
      '| order_id | BIGINT | TRUE |     |        |           |',
      '|     user | STRING | TRUE |     |        |           |',
      '|    twice |    INT | TRUE |     |        |           |',
      '+----------+--------+------+-----+--------+-----------+',
      '3 rows in set',
    ),
  },
  {
    page: CTAS,
    name: 'CREATE TABLE IF NOT EXISTS … AS SELECT inserts into the table it finds',
    tables: ['Orders'],
    sql: "CREATE TABLE o2 (order_id BIGINT) WITH ('connector' = 'print');\nCREATE TABLE IF NOT EXISTS o2 WITH ('connector' = 'print') AS SELECT order_id FROM Orders WHERE amount > 5",
    rows: ['4', '7'],
  },
  {
    page: CTAS,
    name: 'CTAS of a temporary table',
    tables: ['Orders'],
    sql: "CREATE TEMPORARY TABLE o2 WITH ('connector' = 'print') AS SELECT order_id FROM Orders",
    error: 'line 2:1: CREATE TABLE AS SELECT syntax does not support to create temporary table yet.',
  },
  {
    page: CREATE,
    name: 'CREATE TABLE IF NOT EXISTS keeps the table there',
    tables: ['Orders'],
    sql: "CREATE TABLE IF NOT EXISTS Orders (x INT) WITH ('connector' = 'datagen');\nSELECT COUNT(*) FROM Orders",
    rows: ['8'],
  },
  {
    page: CREATE,
    name: 'CREATE VIEW IF NOT EXISTS and a TEMPORARY VIEW',
    tables: ['Orders'],
    sql: 'CREATE TEMPORARY VIEW v AS SELECT order_id FROM Orders WHERE amount = 2;\nCREATE VIEW IF NOT EXISTS v AS SELECT order_id FROM Orders;\nSELECT order_id FROM v',
    rows: ['3', '8'],
  },
  {
    page: CREATE,
    name: 'CREATE TABLE of a name in use',
    tables: ['Orders'],
    sql: "CREATE TABLE Orders (x INT) WITH ('connector' = 'datagen')",
    error: "line 2:1: table 'Orders' is declared twice",
  },

  // sql/show.
  {
    page: SHOW,
    name: 'SHOW CATALOGS, CURRENT CATALOG, DATABASES and CURRENT DATABASE',
    sql: 'SHOW CATALOGS;\nSHOW CURRENT CATALOG;\nSHOW DATABASES;\nSHOW CURRENT DATABASE',
    explain: [
      table('+-----------------+', '|    catalog name |', '+-----------------+', '| default_catalog |', '+-----------------+', '1 row in set'),
      table('+----------------------+', '| current catalog name |', '+----------------------+', '|      default_catalog |', '+----------------------+', '1 row in set'),
      table('+------------------+', '|    database name |', '+------------------+', '| default_database |', '+------------------+', '1 row in set'),
      table('+-----------------------+', '| current database name |', '+-----------------------+', '|      default_database |', '+-----------------------+', '1 row in set'),
    ].join('\n\n'),
  },
  {
    page: SHOW,
    name: 'SHOW TABLES [NOT] LIKE, and SHOW VIEWS',
    sql: "CREATE TABLE items (a INT) WITH ('connector' = 'datagen');\nCREATE TABLE orders (a INT) WITH ('connector' = 'datagen');\nCREATE VIEW person AS SELECT a FROM items;\nSHOW TABLES;\nSHOW TABLES LIKE '%n';\nSHOW TABLES NOT LIKE '%s';\nSHOW VIEWS",
    explain: [
      table('+------------+', '| table name |', '+------------+', '|      items |', '|     orders |', '|     person |', '+------------+', '3 rows in set'),
      table('+------------+', '| table name |', '+------------+', '|     person |', '+------------+', '1 row in set'),
      table('+------------+', '| table name |', '+------------+', '|     person |', '+------------+', '1 row in set'),
      table('+-----------+', '| view name |', '+-----------+', '|    person |', '+-----------+', '1 row in set'),
    ].join('\n\n'),
  },
  {
    page: SHOW,
    name: 'SHOW CREATE TABLE',
    sql: "CREATE TABLE orders (\n  order_id BIGINT NOT NULL comment 'this is the primary key, named ''order_id''.',\n  product VARCHAR(32),\n  amount INT,\n  ts TIMESTAMP(3) comment 'notice: watermark, named ''ts''.',\n  ptime AS PROCTIME() comment 'notice: computed column, named ''ptime''.',\n  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND,\n  CONSTRAINT `PK_order_id` PRIMARY KEY (order_id) NOT ENFORCED\n) WITH (\n  'connector' = 'datagen'\n);\nshow create table orders",
    explain: [
      'CREATE TABLE `default_catalog`.`default_database`.`orders` (',
      "  `order_id` BIGINT NOT NULL COMMENT 'this is the primary key, named ''order_id''.',",
      '  `product` VARCHAR(32),',
      '  `amount` INT,',
      "  `ts` TIMESTAMP(3) COMMENT 'notice: watermark, named ''ts''.',",
      "  `ptime` AS PROCTIME() COMMENT 'notice: computed column, named ''ptime''.',",
      "  WATERMARK FOR `ts` AS `ts` - INTERVAL '1' SECOND,",
      '  CONSTRAINT `PK_order_id` PRIMARY KEY (`order_id`) NOT ENFORCED',
      ') WITH (',
      "  'connector' = 'datagen'",
      ')',
    ].join('\n'),
  },
  {
    page: SHOW,
    name: 'SHOW COLUMNS [NOT] LIKE',
    sql: `${DOC_ORDERS};\nshow columns from Orders like '%r';\nshow columns in Orders not like '%_r'`,
    explain: [
      table(
        '+------+--------+-------+-----------+--------+-----------+---------------------+',
        '| name |   type |  null |       key | extras | watermark |             comment |',
        '+------+--------+-------+-----------+--------+-----------+---------------------+',
        '| user | BIGINT | FALSE | PRI(user) |        |           | this is primary key |',
        '+------+--------+-------+-----------+--------+-----------+---------------------+',
        '1 row in set',
      ),
      table(
        '+---------+-----------------------------+-------+-----+---------------+----------------------------+---------------------------+',
        '|    name |                        type |  null | key |        extras |                  watermark |                   comment |',
        '+---------+-----------------------------+-------+-----+---------------+----------------------------+---------------------------+',
        '| product |                 VARCHAR(32) |  TRUE |     |               |                            |                           |',
        '|  amount |                         INT |  TRUE |     |               |                            |                           |',
        "|      ts |      TIMESTAMP(3) *ROWTIME* |  TRUE |     |               | `ts` - INTERVAL '1' SECOND |         notice: watermark |",
        '|   ptime | TIMESTAMP_LTZ(3) *PROCTIME* | FALSE |     | AS PROCTIME() |                            | this is a computed column |',
        '+---------+-----------------------------+-------+-----+---------------+----------------------------+---------------------------+',
        '4 rows in set',
      ),
    ].join('\n\n'),
  },
  {
    page: SHOW,
    name: 'SHOW USER FUNCTIONS and SHOW MODULES',
    sql: "CREATE FUNCTION f1 AS 'substring.ts#substringOf';\nSHOW USER FUNCTIONS;\nSHOW FULL MODULES",
    explain: [
      table('+---------------+', '| function name |', '+---------------+', '|            f1 |', '+---------------+', '1 row in set'),
      table('+-------------+------+', '| module name | used |', '+-------------+------+', '|        core | TRUE |', '+-------------+------+', '1 row in set'),
    ].join('\n\n'),
  },

  // sql/describe.
  { page: DESCRIBE, name: 'DESCRIBE a table', sql: `${DOC_ORDERS};\nDESCRIBE Orders;\nDESC Orders`, explain: `${DESCRIBE_ORDERS}\n\n${DESCRIBE_ORDERS}` },
  {
    page: DESCRIBE,
    name: 'DESCRIBE a view',
    tables: ['Orders'],
    sql: 'CREATE VIEW v AS SELECT `user`, SUM(amount) AS total, MAX(order_time) AS last_time FROM Orders GROUP BY `user`;\nDESCRIBE v',
    explain: table(
      '+-----------+--------------+------+-----+--------+-----------+',
      '|      name |         type | null | key | extras | watermark |',
      '+-----------+--------------+------+-----+--------+-----------+',
      '|      user |       STRING | TRUE |     |        |           |',
      '|     total |          INT | TRUE |     |        |           |',
      '| last_time | TIMESTAMP(3) | TRUE |     |        |           |',
      '+-----------+--------------+------+-----+--------+-----------+',
      '3 rows in set',
    ),
  },
  { page: DESCRIBE, name: 'DESCRIBE an unknown table', sql: 'DESCRIBE nope', error: "line 1:10: Tables or views with the identifier 'default_catalog.default_database.nope' doesn't exist." },

  // sql/drop.
  {
    page: DROP,
    name: 'DROP TABLE, DROP VIEW and IF EXISTS',
    tables: ['Orders'],
    sql: 'CREATE VIEW v AS SELECT order_id FROM Orders;\nDROP VIEW v;\nDROP VIEW IF EXISTS v;\nDROP TABLE Orders;\nDROP TABLE IF EXISTS Orders;\nSHOW TABLES',
    explain: 'Empty set',
  },
  { page: DROP, name: 'DROP TABLE of an unknown table', sql: 'DROP TABLE nope', error: "line 1:1: Table with identifier 'default_catalog.default_database.nope' does not exist." },
  {
    page: DROP,
    name: 'DROP TABLE of a temporary table',
    sql: "CREATE TEMPORARY TABLE t (a INT) WITH ('connector' = 'datagen');\nDROP TABLE t",
    error: "line 2:1: Temporary table with identifier '`default_catalog`.`default_database`.`t`' exists. Drop it first before removing the permanent table.",
  },
  {
    page: DROP,
    name: 'DROP TEMPORARY TABLE and DROP TEMPORARY FUNCTION',
    sql: "CREATE TEMPORARY TABLE t (a INT) WITH ('connector' = 'datagen');\nCREATE TEMPORARY FUNCTION f AS 'substring.ts#substringOf';\nDROP TEMPORARY TABLE t;\nDROP TEMPORARY FUNCTION f;\nSHOW TABLES;\nSHOW USER FUNCTIONS",
    explain: 'Empty set\n\nEmpty set',
  },
  {
    page: DROP,
    name: 'a query of a dropped table',
    tables: ['Orders'],
    sql: 'DROP TABLE Orders;\nSELECT * FROM Orders',
    error: "line 3:15: unknown table 'Orders' (declared: none)",
  },

  // sql/alter.
  { page: ALTER, name: 'ALTER TABLE ADD, MODIFY, DROP and RENAME (the page’s walk-through)', sql: ALTER_WALK, explain: ALTER_WALK_OUTPUT },
  {
    page: ALTER,
    name: 'ALTER TABLE SET and RESET options',
    tables: ['Orders'],
    sql: "CREATE TABLE d (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');\nALTER TABLE d SET ('number-of-rows' = '5', 'fields.a.kind' = 'sequence', 'fields.a.start' = '1', 'fields.a.end' = '5');\nALTER TABLE d RESET ('fields.a.kind');\nALTER TABLE d SET ('fields.a.kind' = 'sequence');\nSELECT SUM(a) FROM d",
    rows: ['15'],
  },
  {
    page: ALTER,
    name: 'ALTER TABLE ADD of a column there already',
    tables: ['Orders'],
    sql: 'ALTER TABLE Orders ADD amount BIGINT',
    error: 'line 2:24: Try to add a column `amount` which already exists in the table.',
  },
  {
    page: ALTER,
    name: 'ALTER TABLE DROP of the watermark column',
    tables: ['Orders'],
    sql: 'ALTER TABLE Orders DROP order_time',
    error: "line 2:25: The column `order_time` is referenced by watermark expression `order_time` AS `order_time` - INTERVAL '1' SECOND.",
  },
  {
    page: ALTER,
    name: 'ALTER VIEW RENAME TO and AS',
    tables: ['Orders'],
    sql: 'CREATE VIEW v AS SELECT order_id FROM Orders WHERE amount = 2;\nALTER VIEW v RENAME TO v2;\nALTER VIEW v2 AS SELECT order_id FROM Orders WHERE amount > 5;\nSELECT order_id FROM v2',
    rows: ['4', '7'],
  },
  { page: ALTER, name: 'ALTER TABLE IF EXISTS of an unknown table', sql: 'ALTER TABLE IF EXISTS nope RENAME TO other;\nSHOW TABLES', explain: 'Empty set' },

  // sql/use.
  {
    page: USE,
    name: 'CREATE DATABASE and USE',
    sql: "CREATE DATABASE db1 COMMENT 'the first';\nUSE db1;\nCREATE TABLE Orders (order_id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '2');\nSHOW TABLES;\nSHOW DATABASES;\nUSE CATALOG default_catalog;\nSHOW CURRENT DATABASE;\nUSE default_catalog.default_database;\nSHOW TABLES",
    explain: [
      table('+------------+', '| table name |', '+------------+', '|     Orders |', '+------------+', '1 row in set'),
      table('+------------------+', '|    database name |', '+------------------+', '|              db1 |', '| default_database |', '+------------------+', '2 rows in set'),
      // USE CATALOG of the current catalog keeps the current database, as Flink's CatalogManager does.
      table('+-----------------------+', '| current database name |', '+-----------------------+', '|                   db1 |', '+-----------------------+', '1 row in set'),
      'Empty set',
    ].join('\n\n'),
  },
  {
    page: USE,
    name: 'a table of another database by its qualified name',
    tables: ['Orders'],
    sql: "CREATE DATABASE db1;\nCREATE TABLE db1.Orders (order_id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '2');\nUSE db1;\nSELECT COUNT(*) AS n FROM Orders UNION ALL SELECT COUNT(*) AS n FROM default_catalog.default_database.Orders",
    rows: ['2', '8'],
  },
  { page: USE, name: 'USE CATALOG of an unknown catalog', sql: 'USE CATALOG cat1', error: 'line 1:13: A catalog with name [cat1] does not exist.' },
  { page: USE, name: 'USE of an unknown database', sql: 'USE db1', error: 'line 1:5: A database with name [db1] does not exist in the catalog: [default_catalog].' },
  {
    page: USE,
    name: 'DROP DATABASE of a database with tables',
    sql: "CREATE DATABASE db1;\nCREATE TABLE db1.t (a INT) WITH ('connector' = 'datagen');\nDROP DATABASE db1",
    error: 'line 3:1: Database db1 in catalog default_catalog is not empty.',
  },

  // sql/explain: the details.
  {
    page: EXPLAIN,
    name: 'EXPLAIN PLAN_ADVICE without advice',
    tables: ['Orders'],
    sql: 'EXPLAIN PLAN_ADVICE SELECT order_id FROM Orders WHERE amount > 100',
    explainMatches: /== Optimized Logical Plan With Advice ==\nSink\(table=\[print\], fields=\[order_id\]\)\n\+- Calc\(select=\[order_id\], where=\[>\(amount, 100\)\]\)\n {3}\+- Source\(table=\[Orders\].*\n\nNo available advice\.\.\.\n\n== Physical Execution Plan ==/,
  },
  {
    page: EXPLAIN,
    name: 'EXPLAIN PLAN_ADVICE of a group aggregation without state TTL',
    tables: ['Orders'],
    sql: 'EXPLAIN PLAN_ADVICE SELECT `user`, COUNT(*) FROM Orders GROUP BY `user`',
    explainMatches:
      /\+- GroupAggregate\(advice=\[1\], groupBy=\[user\], select=\[user, COUNT\(\*\) AS EXPR\$1\]\)\n[\s\S]*\n\nadvice\[1\]: \[WARNING\] You might want to pay attention to this node because state expiration configuration 'table.exec.state.ttl' is not set\.\n\n== Physical/,
  },
  {
    page: EXPLAIN,
    name: 'EXPLAIN JSON_EXECUTION_PLAN',
    tables: ['Orders'],
    sql: 'EXPLAIN JSON_EXECUTION_PLAN SELECT order_id FROM Orders',
    explainMatches: /== Physical Execution Plan ==\n\{\n {2}"version": 1,\n {2}"name": "sql-explain-1",\n[\s\S]*"stages": \[\n[\s\S]*"type": "Calc"[\s\S]*\n\}$/,
  },
  {
    page: EXPLAIN,
    name: 'EXPLAIN ESTIMATED_COST',
    tables: ['Orders'],
    sql: 'EXPLAIN ESTIMATED_COST SELECT order_id FROM Orders',
    explainMatches:
      /\n\n== Estimated Cost: Flambda's AWS bill for this job, per stage and operator \(not Calcite's cost model\) ==\n== Cost at 1,000 events\/s \(1024-byte events; us-east-1 prices of [^)]+\) ==\nmeasured: 8 sample events through the stage handlers on the local emulators, [\s\S]*\nFlambda total: \$[\d,.]+\/month[\s\S]*\nManaged Service for Apache Flink: \$[\d,.]+\/month/,
  },

  // sql/insert: what streaming Flink does not write.
  {
    page: INSERT,
    name: 'INSERT OVERWRITE',
    tables: ['Orders'],
    sql: "CREATE TABLE out_t (id BIGINT) WITH ('connector' = 'print');\nINSERT OVERWRITE out_t SELECT order_id FROM Orders",
    error: "line 3:1: INSERT OVERWRITE is not supported: INSERT OVERWRITE requires that the underlying DynamicTableSink of table 'default_catalog.default_database.out_t' implements the SupportsOverwrite interface.",
  },
  {
    page: INSERT,
    name: 'INSERT … PARTITION',
    tables: ['Orders'],
    sql: "CREATE TABLE p_t (id BIGINT, p STRING) PARTITIONED BY (p) WITH ('connector' = 'filesystem', 'path' = '/data/p', 'format' = 'json');\nINSERT INTO p_t PARTITION (p = 'x') SELECT order_id FROM Orders",
  },
];
