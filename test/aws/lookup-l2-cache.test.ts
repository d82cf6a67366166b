/**
 * The DynamoDB second cache level of lookup joins, on dynalite over a real MariaDB dimension
 * table whose queries are counted: a cold container (a fresh L1 and a fresh L2 decorator over
 * the same state table) serves the keys its predecessor loaded from L2 without querying the
 * database; missing keys are cached as negative entries; an expired entry is loaded again (even
 * though DynamoDB has not deleted it); an L2 outage falls back to the database, counted, and
 * never fails the lookup.
 */
import { randomBytes } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDbL2Source } from '../../shared/aws/lookup-cache/dynamodb-l2-source.ts';
import { createStateTable } from '../../shared/aws/state/create-state-table.ts';
import { schemaOf } from '../../shared/core/type-parse.ts';
import type { Row } from '../../shared/core/types.ts';
import { createCachedSource } from '../../shared/lookup/cached-source.ts';
import { createMySqlSource } from '../../shared/lookup/jdbc-mysql-source.ts';
import type { MySqlPoolLike } from '../../shared/lookup/jdbc-mysql-source.ts';
import { encodeKey } from '../../shared/partition/key-encoding.ts';
import { startDynalite } from './dynamodb-emulator.ts';
import type { DynamoDbEmulator } from './dynamodb-emulator.ts';

const TABLE = `l2_dim_${process.pid}_${randomBytes(3).toString('hex')}`;
const schema = schemaOf({ id: 'BIGINT NOT NULL', name: 'STRING', price: 'DECIMAL(10, 2)' });

let dynalite: DynamoDbEmulator;
let dynamoDb: DynamoDBClient;
let admin: mysql.Connection;

beforeAll(async () => {
  dynalite = await startDynalite();
  dynamoDb = dynalite.client();
  await createStateTable(dynamoDb, 'l2-state');
  admin = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', database: 'test' });
  await admin.query(`CREATE TABLE ${TABLE} (id BIGINT PRIMARY KEY, name VARCHAR(20), price DECIMAL(10,2))`);
  const values = Array.from({ length: 50 }, (_, i) => `(${i + 1}, 'item${i + 1}', ${(i + 1) * 1.25})`).join(', ');
  await admin.query(`INSERT INTO ${TABLE} VALUES ${values}`);
});

afterAll(async () => {
  await admin?.query(`DROP TABLE IF EXISTS ${TABLE}`);
  await admin?.end();
  dynamoDb?.destroy();
  await dynalite?.stop();
});

/** A container's view: its own pool (queries counted), an L2 decorator, an L1 in front. */
function container(options: { clock?: () => number; ttlMs?: number; client?: DynamoDBClient } = {}) {
  const pool = mysql.createPool({ host: '127.0.0.1', port: 3306, user: 'root', database: 'test', connectionLimit: 2 });
  const queries: string[] = [];
  const counting: MySqlPoolLike = {
    query: (sql, values) => {
      queries.push(sql);
      return pool.query(sql, values) as unknown as Promise<[unknown, unknown]>;
    },
    end: () => pool.end(),
  };
  const source = createMySqlSource({ url: 'jdbc:mysql://127.0.0.1:3306/test', user: 'root', table: TABLE, schema }, { pool: counting });
  const errors: string[] = [];
  const l2 = createDynamoDbL2Source(source, {
    client: options.client ?? dynamoDb,
    tableName: 'l2-state',
    ttlMs: options.ttlMs ?? 60_000,
    ...(options.clock ? { clock: options.clock } : {}),
    onError: (_e, phase) => errors.push(phase),
  });
  const l1 = createCachedSource(l2, { type: 'PARTIAL', maxRows: 1000 });
  return { l1, l2, queries, errors, close: () => l1.close() };
}

const keys = (...ids: number[]): Row[] => ids.map((id) => ({ id }));

describe('Function: createDynamoDbL2Source', () => {
  it('lets a cold container serve warmed keys from L2 without querying the database', async () => {
    const warm = container();
    const first = await warm.l1.lookupMany(keys(1, 2, 3, 999));
    expect(first.get(encodeKey([1]))).toEqual([{ id: 1, name: 'item1', price: 125n }]);
    expect(first.has(encodeKey([999]))).toBe(false);
    expect(warm.queries).toHaveLength(1);
    await warm.close();

    const cold = container();
    const again = await cold.l1.lookupMany(keys(1, 2, 3, 999));
    expect(again).toEqual(first);
    // Every key, the missing one included (a negative entry), came from L2.
    expect(cold.queries).toEqual([]);
    expect(cold.l2.metrics()).toMatchObject({ l2Hits: 4, l2Misses: 0, sourceKeys: 0, sourceCalls: 0 });
    // A new key goes to the database once, in one query, and is then in L2 as well.
    await cold.l1.lookupMany(keys(1, 4, 5));
    expect(cold.queries).toHaveLength(1);
    expect(cold.l2.metrics()).toMatchObject({ l2Hits: 4, l2Misses: 2, sourceKeys: 2, sourceCalls: 1, l2ReadFailures: 0, l2WriteFailures: 0 });
    await cold.close();
  });

  it('never trusts an expired entry, even one DynamoDB has not deleted yet', async () => {
    let now = 1_000_000;
    const a = container({ clock: () => now, ttlMs: 10_000 });
    await a.l1.lookupMany(keys(10, 11));
    await a.close();
    now += 10_001;
    const b = container({ clock: () => now, ttlMs: 10_000 });
    const rows = await b.l1.lookupMany(keys(10, 11));
    expect(rows.get(encodeKey([11]))).toEqual([{ id: 11, name: 'item11', price: 1375n }]);
    expect(b.queries).toHaveLength(1);
    expect(b.l2.metrics()).toMatchObject({ l2Expired: 2, l2Hits: 0, sourceKeys: 2 });
    await b.close();
    // Reloaded entries are fresh again for the next cold container.
    const c = container({ clock: () => now + 1, ttlMs: 10_000 });
    await c.l1.lookupMany(keys(10, 11));
    expect(c.queries).toEqual([]);
    await c.close();
  });

  it('falls back to the database when L2 is unreachable, counts it, and still answers', async () => {
    const broken = Object.create(dynamoDb) as DynamoDBClient;
    (broken as unknown as { send: () => Promise<never> }).send = () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    const c = container({ client: broken });
    const rows = await c.l1.lookupMany(keys(20, 21, 999));
    expect(rows.get(encodeKey([20]))).toEqual([{ id: 20, name: 'item20', price: 2500n }]);
    expect(rows.has(encodeKey([999]))).toBe(false);
    expect(c.queries).toHaveLength(1);
    expect(c.l2.metrics()).toMatchObject({ l2ReadFailures: 1, l2WriteFailures: 1, sourceKeys: 3 });
    expect(c.errors).toEqual(['read', 'write']);
    await c.close();
  });

  it('names a bad TTL', () => {
    const source = { table: 'dim', lookupMany: () => Promise.resolve(new Map()), close: () => Promise.resolve() };
    expect(() => createDynamoDbL2Source(source, { client: dynamoDb, tableName: 't', ttlMs: 0 })).toThrow(/L2 cache TTL must be a positive number of ms \(given 0\)/);
  });
});

describe('L2 under a FULL cache', () => {
  it('passes loadAll through to the source, so a FULL cache reloads from the database', async () => {
    const c = container();
    const full = createCachedSource(c.l2, { type: 'FULL' });
    const rows = await full.lookupMany(keys(1, 50, 51));
    expect(rows.get(encodeKey([50]))).toEqual([{ id: 50, name: 'item50', price: 6250n }]);
    expect(rows.has(encodeKey([51]))).toBe(false);
    // One full scan, no per-key query; L2 is not consulted for a FULL cache.
    expect(c.queries).toHaveLength(1);
    expect(c.queries[0]).not.toMatch(/ IN /i);
    expect(c.l2.metrics()).toMatchObject({ l2Hits: 0, l2Misses: 0 });
    await full.close();
  });
});
