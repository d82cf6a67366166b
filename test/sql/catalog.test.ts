/**
 * The catalog statements inside running scripts, on both runtimes: a table made by LIKE and
 * changed by ALTER TABLE, CREATE TABLE … AS SELECT, a table of another database read by its
 * qualified name after USE — each job gives the same rows on the embedded runtime and on the
 * AWS runtime over emulators. Also EXPLAIN PLAN_ADVICE's checks of a lookup join and of state
 * TTL, and what SHOW FUNCTIONS and DROP FUNCTION see.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { renderStatementOutputs } from '../../shared/cli/statement-outputs.ts';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { sqlError } from './helpers.ts';
import { inputDir, runEmbeddedSql, runLocalSql } from './run-both.ts';

const files = inputDir('catalog');
afterAll(() => files.cleanup());

const orders = files.file('orders', [
  { id: 1, product: 'apple', amount: 3, ts: '2024-01-01 10:00:00.000' },
  { id: 2, product: 'pear', amount: 5, ts: '2024-01-01 10:02:00.000' },
  { id: 3, product: 'apple', amount: 2, ts: '2024-01-01 10:11:00.000' },
  { id: 4, product: 'plum', amount: 7, ts: '2024-01-01 10:12:00.000' },
  { id: 5, product: 'pear', amount: 1, ts: '2024-01-01 10:25:00.000' },
]);
const dim = files.file('dim', [
  { product: 'apple', color: 'red' },
  { product: 'pear', color: 'green' },
]);
const BASE = `CREATE TABLE orders (id BIGINT, product STRING, amount INT, ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '${orders}', 'format' = 'json');`;

/** Runs a script on both runtimes and checks both give `rows`. */
async function bothGive(script: string, rows: readonly string[]): Promise<void> {
  expect((await runEmbeddedSql(script)).rows).toEqual(rows);
  expect((await runLocalSql(script)).rows).toEqual(rows);
}

describe('catalog statements in a running script (both runtimes)', () => {
  it('a LIKE copy with a watermark added by ALTER TABLE runs a window aggregation', async () => {
    await bothGive(
      `${BASE}
      CREATE TABLE orders_wm WITH ('scan.parallelism' = '1') LIKE orders;
      ALTER TABLE orders_wm ADD (WATERMARK FOR ts AS ts - INTERVAL '1' SECOND, big AS amount > 2 AFTER amount);
      SELECT window_start, COUNT(*) AS n, SUM(amount) AS total FROM TABLE(TUMBLE(TABLE orders_wm, DESCRIPTOR(ts), INTERVAL '10' MINUTES)) WHERE big GROUP BY window_start, window_end`,
      ['{"window_start":"2024-01-01 10:00:00.000","n":2,"total":8}', '{"window_start":"2024-01-01 10:10:00.000","n":1,"total":7}'],
    );
  }, 120_000);

  it('CREATE TABLE … AS SELECT writes the query into the table it declares', async () => {
    await bothGive(`${BASE}\nCREATE TABLE totals WITH ('connector' = 'print') AS SELECT product, SUM(amount) AS total FROM orders GROUP BY product`, [
      '{"product":"apple","total":5}',
      '{"product":"pear","total":6}',
      '{"product":"plum","total":7}',
    ]);
  }, 120_000);

  it('a table of another database is read by its qualified name after USE', async () => {
    await bothGive(
      `${BASE}
      CREATE DATABASE shop;
      USE shop;
      CREATE VIEW big_orders AS SELECT id, product FROM default_catalog.default_database.orders WHERE amount > 2;
      SELECT product, COUNT(*) AS n FROM shop.big_orders GROUP BY product`,
      ['{"product":"apple","n":1}', '{"product":"pear","n":1}', '{"product":"plum","n":1}'],
    );
  }, 120_000);

  it('names the unknown catalog or database of a qualified name', () => {
    expect(sqlError(() => compileSql(`${BASE}\nSELECT * FROM hive.db.orders`)).message).toBe('line 2:15: A catalog with name [hive] does not exist.');
    expect(sqlError(() => compileSql(`${BASE}\nSELECT * FROM db.orders`)).message).toBe('line 2:15: A database with name [db] does not exist in the catalog: [default_catalog].');
    expect(sqlError(() => compileSql(`${BASE}\nINSERT INTO nocat.db.t SELECT * FROM orders`)).message).toBe('line 2:1: A catalog with name [nocat] does not exist.');
  });
});

describe('EXPLAIN PLAN_ADVICE', () => {
  const lookup = (table: string, hint = ''): string => `${BASE}
    CREATE TABLE dim (product STRING, color STRING) WITH ('connector' = 'filesystem', 'path' = '${dim}', 'format' = 'json'${table});
    CREATE VIEW o AS SELECT *, PROCTIME() AS pt FROM orders;
    SET 'table.exec.state.ttl' = '1 h';
    EXPLAIN PLAN_ADVICE SELECT ${hint}o.id, d.color FROM o JOIN dim FOR SYSTEM_TIME AS OF o.pt AS d ON o.product = d.product`;

  it("advises hashing a lookup join's input by its key, and tags the node", async () => {
    const [out] = await renderStatementOutputs(compileSql(lookup('')));
    expect(out).toMatch(/ {3}\+- LookupJoin\(advice=\[1\], table=\[dim\]/);
    expect(out).toContain(
      "\n\nadvice[1]: [ADVICE] You might want to hash the input of the lookup join on 'dim' by its join key (product) — 'lookup.enable_hash' = 'true' on the table, or /*+ LOOKUP('table'='dim', 'shuffle'='true') */ — so that each shard looks up, and caches, only its share of the keys.\n\n== Physical Execution Plan ==",
    );
  });

  it('has no advice for a hashed lookup join, in either form', async () => {
    for (const script of [lookup(", 'lookup.enable_hash' = 'true'"), lookup('', "/*+ LOOKUP('table'='dim', 'shuffle'='true') */ ")]) {
      const [out] = await renderStatementOutputs(compileSql(script));
      expect(out).toContain('\n\nNo available advice...\n\n== Physical Execution Plan ==');
      expect(out).not.toContain('advice=[');
    }
  });

  it('warns of every stateful node without state TTL under one advice, and not once the TTL is set', async () => {
    const query = 'SELECT o.product, o.n FROM (SELECT product, COUNT(*) AS n FROM orders GROUP BY product) AS o JOIN (SELECT DISTINCT product FROM orders) AS p ON o.product = p.product';
    const [without] = await renderStatementOutputs(compileSql(`${BASE}\nEXPLAIN PLAN_ADVICE ${query}`));
    expect(without?.match(/advice=\[1\]/g)).toHaveLength(3);
    expect(without).toMatch(/Join\(advice=\[1\], /);
    expect(without).toContain("\n\nadvice[1]: [WARNING] You might want to pay attention to this node because state expiration configuration 'table.exec.state.ttl' is not set.\n\n");
    const [withTtl] = await renderStatementOutputs(compileSql(`${BASE}\nSET 'table.exec.state.ttl' = '1 h';\nEXPLAIN PLAN_ADVICE ${query}`));
    expect(withTtl).toContain('No available advice...');
  });
});

describe('functions in the catalog', () => {
  it('SHOW FUNCTIONS lists the built-in functions and the user ones; DROP FUNCTION removes one', async () => {
    const program = compileSql("CREATE TEMPORARY SYSTEM FUNCTION Twice AS 'm.ts#twice';\nSHOW FUNCTIONS LIKE 't%';\nDROP TEMPORARY SYSTEM FUNCTION twice;\nSHOW USER FUNCTIONS", {
      functions: new Map([['m.ts#twice', { kind: 'scalar', resultType: { root: 'INT', nullable: true }, fn: (x: unknown) => x } as never]]),
    });
    const [listed, after] = await renderStatementOutputs(program);
    // Names as Flink lists them: lower case, sorted; the user function beside the built-in ones.
    const names = (listed ?? '').split('\n').slice(3, -2).map((l) => l.replace(/[| ]/g, ''));
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(['tan', 'timestampadd', 'to_timestamp', 'tumble', 'twice']));
    expect(names.every((n) => n.startsWith('t'))).toBe(true);
    expect(after).toBe('Empty set');
  });

  it('names a function that is not there', () => {
    expect(sqlError(() => compileSql('DROP FUNCTION nope', { allowNoQuery: true })).message).toBe("line 1:1: Catalog function default_catalog.default_database.nope doesn't exist.");
    expect(() => compileSql('DROP FUNCTION IF EXISTS nope', { allowNoQuery: true })).not.toThrow();
  });
});

describe('views, keys and temporary objects', () => {
  const outputs = async (script: string): Promise<string[]> => renderStatementOutputs(compileSql(script, { allowNoQuery: true }));

  it('SHOW CREATE VIEW prints the view with its columns and query', async () => {
    expect(await outputs(`${BASE}\nCREATE TEMPORARY VIEW v (pid, qty) AS SELECT id, amount FROM orders WHERE amount > 2;\nSHOW CREATE VIEW v`)).toEqual([
      'CREATE TEMPORARY VIEW `default_catalog`.`default_database`.`v`(`pid`, `qty`) as\nSELECT id, amount FROM orders WHERE amount > 2',
    ]);
    expect(sqlError(() => compileSql(`${BASE}\nSHOW CREATE VIEW orders`, { allowNoQuery: true })).message).toBe(
      'line 2:18: SHOW CREATE VIEW is only supported for views, but `default_catalog`.`default_database`.`orders` is a table. Please use SHOW CREATE TABLE instead.',
    );
  });

  it('ALTER TABLE changes the primary key: MODIFY, then DROP CONSTRAINT by its name', async () => {
    const [before, modified, dropped] = await outputs(`CREATE TABLE t (a INT, b INT, CONSTRAINT pk_a PRIMARY KEY (a) NOT ENFORCED) WITH ('connector' = 'datagen');
      SHOW CREATE TABLE t;
      ALTER TABLE t MODIFY PRIMARY KEY (a, b) NOT ENFORCED;
      SHOW CREATE TABLE t;
      ALTER TABLE t DROP CONSTRAINT PK_4066;
      SHOW CREATE TABLE t`);
    expect(before).toContain('  CONSTRAINT `pk_a` PRIMARY KEY (`a`) NOT ENFORCED\n)');
    // A key declared without a name gets Flink's: "PK_" and Java's hash code of its column list (31 × (31 + 'a') + 'b' = 4066).
    expect(modified).toContain('  CONSTRAINT `PK_4066` PRIMARY KEY (`a`, `b`) NOT ENFORCED\n)');
    expect(dropped).not.toContain('PRIMARY KEY');
    expect(sqlError(() => compileSql("CREATE TABLE t (a INT) WITH ('connector' = 'datagen');\nALTER TABLE t DROP CONSTRAINT pk", { allowNoQuery: true })).message).toBe(
      'line 2:31: The base table does not define a primary key constraint named `pk`. Available constraint name: [].',
    );
  });

  it('keeps a function under IF NOT EXISTS and drops temporary objects only with TEMPORARY', () => {
    const functions = new Map([['m.ts#f', { kind: 'scalar', resultType: { root: 'INT', nullable: true }, fn: (x: unknown) => x } as never]]);
    expect(() => compileSql("CREATE FUNCTION f AS 'm.ts#f';\nCREATE FUNCTION IF NOT EXISTS f AS 'm.ts#f'", { functions, allowNoQuery: true })).not.toThrow();
    expect(sqlError(() => compileSql("CREATE FUNCTION f AS 'm.ts#f';\nCREATE FUNCTION f AS 'm.ts#f'", { functions, allowNoQuery: true })).message).toBe("line 2:1: function 'f' is declared twice");
    expect(sqlError(() => compileSql(`${BASE}\nCREATE VIEW v AS SELECT id FROM orders;\nDROP TEMPORARY VIEW v`, { allowNoQuery: true })).message).toBe(
      "line 3:1: Temporary table or view with identifier 'default_catalog.default_database.v' does not exist.",
    );
  });
});

