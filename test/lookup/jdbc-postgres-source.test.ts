import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { RecordError } from '../../shared/core/errors.ts';
import { schemaOf } from '../../shared/core/type-parse.ts';
import { createLookupJoinOperator } from '../../shared/lookup/lookup-join.ts';
import { OperatorHarness, insert } from '../harness/index.ts';
import type { DimensionSource } from '../../shared/lookup/dimension-source.ts';
import { createPostgresPool, createPostgresSource, quotePostgresIdentifier } from '../../shared/lookup/jdbc-postgres-source.ts';
import type { PostgresPoolLike } from '../../shared/lookup/jdbc-postgres-source.ts';
import { encodeLookupKey } from '../../shared/lookup/dimension-source.ts';
import { dimSchema, expectedRows, insertValues, uniqueTableName } from './sql-fixture.ts';
import { sqlSourceSuite } from './sql-source-suite.ts';

const URL = 'jdbc:postgresql://127.0.0.1:5432/test';
const table = uniqueTableName('lkp_pg');
const badTable = `${table}_bad`;
let admin: pg.Client;
let source: DimensionSource;
let badSource: DimensionSource;
let queries = 0;

beforeAll(async () => {
  admin = new pg.Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' });
  await admin.connect();
  await admin.query(
    `CREATE TABLE ${table} (id BIGINT NOT NULL PRIMARY KEY, region VARCHAR(10), sku INT, price NUMERIC(10,2), ts TIMESTAMP(3), flag BOOLEAN, score DOUBLE PRECISION, name VARCHAR(20), grp VARCHAR(10))`,
  );
  await admin.query(`INSERT INTO ${table} VALUES ${insertValues.join(', ')}`);
  await admin.query(`CREATE TABLE ${badTable} (id BIGINT, price NUMERIC(10,4))`);
  await admin.query(`INSERT INTO ${badTable} VALUES (1, 1.2345)`);
  const config = { url: `${URL}?user=postgres`, table, schema: dimSchema };
  const real = createPostgresPool(config);
  const counting: PostgresPoolLike = {
    query: (sql, values) => {
      queries++;
      return real.query(sql, values);
    },
    end: () => real.end(),
  };
  source = createPostgresSource(config, { pool: counting });
  badSource = createPostgresSource({ url: URL, user: 'postgres', table: badTable, schema: schemaOf({ id: 'BIGINT', price: 'DECIMAL(10, 2)' }) });
});

afterAll(async () => {
  await source?.close();
  await badSource?.close();
  await admin?.query(`DROP TABLE IF EXISTS ${table}, ${badTable}`);
  await admin?.end();
});

describe('PostgreSQL dimension source', () => {
  sqlSourceSuite({ source: () => source, queries: () => queries, badSource: () => badSource });

  it('a key value the database rejects is a RecordError naming that value', async () => {
    // The dimension schema says STRING, the table says BIGINT: 'abc' cannot be cast by PostgreSQL.
    const probe = schemaOf({ code: 'STRING' });
    const stringIdSchema = schemaOf({ id: 'STRING NOT NULL', name: 'STRING' });
    const dim = createPostgresSource({ url: URL, user: 'postgres', table, schema: stringIdSchema });
    const h = await OperatorHarness.open(() =>
      createLookupJoinOperator({ table, joinType: 'LEFT', keys: [{ probe: 'code', lookup: 'id' }], dimensionSchema: stringIdSchema }, probe, dim),
    );
    const error = await h.processBatch([insert({ code: '1' }), insert({ code: 'abc' })]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RecordError);
    expect((error as RecordError).field).toBe('code');
    expect((error as Error).message).toMatch(/the store rejected the key \(code="abc"\): invalid input syntax for type bigint/);
    expect(await h.processBatch([insert({ code: '1' })])).toEqual([insert({ code: '1', id: '1', name: 'alpha' })]);
    await h.close();
  });

  it('quotes identifiers', () => {
    expect(quotePostgresIdentifier('we"ird')).toBe('"we""ird"');
  });

  it('reads DATE, TIME and timestamptz columns as DATE, TIME(3) and TIMESTAMP_LTZ(3), and finds keys of them', async () => {
    const dt = `${table}_dt`;
    await admin.query(`CREATE TABLE ${dt} (id BIGINT, d DATE, t TIME(3), ltz TIMESTAMPTZ(3))`);
    try {
      await admin.query(`INSERT INTO ${dt} VALUES (1, '2024-03-05', '12:34:56.789', '2024-01-02 05:04:05.678+02'), (2, '1969-12-31', '00:00:00', NULL)`);
      const s = createPostgresSource({ url: URL, user: 'postgres', table: dt, schema: schemaOf({ id: 'BIGINT', d: 'DATE', t: 'TIME(3)', ltz: 'TIMESTAMP_LTZ(3)' }) });
      const one = { id: 1, d: 19787, t: 45_296_789, ltz: expectedRows[1].ts };
      expect([...(await s.lookupMany([{ d: 19787 }, { d: 0 }])).values()]).toEqual([[one]]);
      expect([...(await s.lookupMany([{ t: 0 }])).values()]).toEqual([[{ id: 2, d: -1, t: 0, ltz: null }]]);
      expect([...(await s.lookupMany([{ ltz: one.ltz }])).values()]).toEqual([[one]]);
      await s.close();
    } finally {
      await admin.query(`DROP TABLE ${dt}`);
    }
  });

  it('reads timestamptz exactly in UTC', async () => {
    const tz = `${table}_tz`;
    await admin.query(`CREATE TABLE ${tz} (id BIGINT, ts TIMESTAMPTZ(3))`);
    try {
      await admin.query(`INSERT INTO ${tz} VALUES (1, '2024-01-02 05:04:05.678+02')`);
      const s = createPostgresSource({ url: URL, user: 'postgres', table: tz, schema: schemaOf({ id: 'BIGINT', ts: 'TIMESTAMP(3)' }) });
      const result = await s.lookupMany([{ id: 1 }]);
      expect(result.get(encodeLookupKey({ id: 1 }, ['id']))).toEqual([{ id: 1, ts: expectedRows[1].ts }]);
      await s.close();
    } finally {
      await admin.query(`DROP TABLE ${tz}`);
    }
  });
});
