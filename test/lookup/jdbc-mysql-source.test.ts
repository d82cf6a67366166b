import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnection } from 'mysql2/promise';
import type { Connection } from 'mysql2/promise';
import { schemaOf } from '../../shared/core/type-parse.ts';
import type { DimensionSource } from '../../shared/lookup/dimension-source.ts';
import { createMySqlPool, createMySqlSource, quoteMySqlIdentifier } from '../../shared/lookup/jdbc-mysql-source.ts';
import type { MySqlPoolLike } from '../../shared/lookup/jdbc-mysql-source.ts';
import { dimSchema, insertValues, ms, uniqueTableName } from './sql-fixture.ts';
import { sqlSourceSuite } from './sql-source-suite.ts';

const URL = 'jdbc:mysql://127.0.0.1:3306/test';
const table = uniqueTableName('lkp_my');
const badTable = `${table}_bad`;
let admin: Connection;
let source: DimensionSource;
let badSource: DimensionSource;
let queries = 0;

beforeAll(async () => {
  admin = await createConnection({ host: '127.0.0.1', port: 3306, user: 'root', database: 'test' });
  await admin.query(
    `CREATE TABLE ${table} (id BIGINT NOT NULL PRIMARY KEY, region VARCHAR(10), sku INT, price DECIMAL(10,2), ts DATETIME(3), flag BOOLEAN, score DOUBLE, name VARCHAR(20), grp VARCHAR(10))`,
  );
  await admin.query(`INSERT INTO ${table} VALUES ${insertValues.join(', ')}`);
  await admin.query(`CREATE TABLE ${badTable} (id BIGINT, price DECIMAL(10,4))`);
  await admin.query(`INSERT INTO ${badTable} VALUES (1, 1.2345)`);
  const config = { url: URL, user: 'root', passwordFrom: 'LOOKUP_TEST_MYSQL_PASSWORD', table, schema: dimSchema };
  const env = { LOOKUP_TEST_MYSQL_PASSWORD: '' };
  const real = createMySqlPool(config, env);
  // Counts the statements the database receives.
  const counting: MySqlPoolLike = {
    query: (sql, values) => {
      queries++;
      return real.query(sql, values) as unknown as Promise<[unknown, unknown]>;
    },
    end: () => real.end(),
  };
  source = createMySqlSource(config, { pool: counting });
  badSource = createMySqlSource({ url: URL, user: 'root', table: badTable, schema: schemaOf({ id: 'BIGINT', price: 'DECIMAL(10, 2)' }) });
});

afterAll(async () => {
  await source?.close();
  await badSource?.close();
  await admin?.query(`DROP TABLE IF EXISTS ${table}, ${badTable}`);
  await admin?.end();
});

describe('MySQL/MariaDB dimension source', () => {
  sqlSourceSuite({ source: () => source, queries: () => queries, badSource: () => badSource });

  it('reads TIMESTAMP columns in UTC whatever the server session zone was at insert', async () => {
    const tz = `${table}_tz`;
    await admin.query(`CREATE TABLE ${tz} (id BIGINT, ts TIMESTAMP(3) NULL)`);
    try {
      await admin.query("SET time_zone = '+02:00'");
      await admin.query(`INSERT INTO ${tz} VALUES (1, '2024-01-02 05:04:05.678')`);
      const s = createMySqlSource({ url: URL, user: 'root', table: tz, schema: schemaOf({ id: 'BIGINT', ts: 'TIMESTAMP(3)' }) });
      const result = await s.lookupMany([{ id: 1 }]);
      expect([...result.values()]).toEqual([[{ id: 1, ts: ms('2024-01-02 03:04:05.678') }]]);
      await s.close();
    } finally {
      await admin.query("SET time_zone = '+00:00'");
      await admin.query(`DROP TABLE ${tz}`);
    }
  });

  it('reads DATE, TIME and TIMESTAMP columns as DATE, TIME(3) and TIMESTAMP_LTZ(3), and finds keys of them', async () => {
    const dt = `${table}_dt`;
    await admin.query(`CREATE TABLE ${dt} (id BIGINT, d DATE, t TIME(3), ltz TIMESTAMP(3) NULL)`);
    try {
      await admin.query(`INSERT INTO ${dt} VALUES (1, '2024-03-05', '12:34:56.789', '2024-01-02 03:04:05.678'), (2, '1969-12-31', '00:00:00', NULL)`);
      const s = createMySqlSource({ url: URL, user: 'root', table: dt, schema: schemaOf({ id: 'BIGINT', d: 'DATE', t: 'TIME(3)', ltz: 'TIMESTAMP_LTZ(3)' }) });
      const one = { id: 1, d: 19787, t: 45_296_789, ltz: ms('2024-01-02 03:04:05.678') };
      expect([...(await s.lookupMany([{ d: 19787 }, { d: 0 }])).values()]).toEqual([[one]]);
      expect([...(await s.lookupMany([{ t: 0 }])).values()]).toEqual([[{ id: 2, d: -1, t: 0, ltz: null }]]);
      expect([...(await s.lookupMany([{ ltz: one.ltz }])).values()]).toEqual([[one]]);
      await s.close();
    } finally {
      await admin.query(`DROP TABLE ${dt}`);
    }
  });

  it('keys compare exactly: a case-insensitive collation match is not a match', async () => {
    const before = queries;
    const result = await source.lookupMany([{ region: 'EU', sku: 10 }]);
    expect(queries - before).toBe(1);
    expect(result.size).toBe(0);
  });

  it('quotes identifiers', () => {
    expect(quoteMySqlIdentifier('we`ird')).toBe('`we``ird`');
  });

  it('a missing table is a non-retryable error', async () => {
    const missing = createMySqlSource({ url: URL, user: 'root', table: `${table}_nope`, schema: dimSchema });
    await expect(missing.lookupMany([{ id: 1 }])).rejects.toMatchObject({ code: 'ER_NO_SUCH_TABLE' });
    await missing.close();
  });
});
