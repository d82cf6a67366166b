/**
 * A MySQL / MariaDB dimension source over a mysql2/promise pool.
 *
 * The pool is configured so that no value is converted lossily by the driver: BIGINT and
 * DECIMAL arrive as text (`supportBigNumbers` + `bigNumberStrings`), DATETIME/TIMESTAMP as text
 * (`dateStrings`) in a UTC session (`SET time_zone = '+00:00'` on every new connection), and
 * shared/lookup/dimension-values.ts converts them exactly. Statements use client-side `?`
 * parameters (`query`, not `execute`): IN lists vary in length, and server-side prepared
 * statements would pile up one per length.
 */
import { createPool } from 'mysql2/promise';
import type { Pool, PoolOptions } from 'mysql2/promise';
import type { Row } from '../core/types.ts';
import type { DimensionSource } from './dimension-source.ts';
import type { JdbcSourceConfig } from './jdbc-config.ts';
import { parseJdbcUrl, resolveCredentials, validateJdbcConfig } from './jdbc-config.ts';
import { SqlLookup, checkIdentifier } from './sql-lookup.ts';

/** The part of a mysql2/promise pool the source uses; tests may wrap a real pool with it. */
export interface MySqlPoolLike {
  query(sql: string, values: unknown[]): Promise<[unknown, unknown]>;
  end(): Promise<void>;
}

/** Options of {@link createMySqlSource}. */
export interface MySqlSourceOptions {
  /** Use this pool instead of creating one from the config (the source still ends it on close). */
  readonly pool?: MySqlPoolLike;
  /** Environment to resolve `passwordFrom` in. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
}

/** The mysql2 pool options for a config; see the module header for why each is set. */
export function mysqlPoolOptions(config: JdbcSourceConfig, env: NodeJS.ProcessEnv = process.env): PoolOptions {
  validateJdbcConfig(config);
  const url = parseJdbcUrl(config.url);
  const { user, password } = resolveCredentials(config, url, env);
  return {
    host: url.host,
    port: url.port,
    database: url.database,
    user,
    password,
    connectionLimit: config.poolSize ?? 4,
    connectTimeout: config.connectTimeoutMs ?? 10_000,
    supportBigNumbers: true,
    bigNumberStrings: true,
    dateStrings: true,
    decimalNumbers: false,
    timezone: 'Z',
  };
}

/** Creates a mysql2/promise pool for a config, with every new connection in a UTC session. */
export function createMySqlPool(config: JdbcSourceConfig, env?: NodeJS.ProcessEnv): Pool {
  const pool = createPool(mysqlPoolOptions(config, env));
  // TIMESTAMP columns are rendered in the session time zone; UTC keeps them epoch-exact.
  pool.pool.on('connection', (connection) => {
    connection.query("SET time_zone = '+00:00'");
  });
  return pool;
}

/** Quotes a MySQL identifier with backticks (a backtick inside is doubled). */
export function quoteMySqlIdentifier(identifier: string): string {
  checkIdentifier(identifier);
  return '`' + identifier.replaceAll('`', '``') + '`';
}

/**
 * Creates a MySQL/MariaDB dimension source: `lookupMany` sends one `SELECT … WHERE k IN (?, …)`
 * (or `(k1, k2) IN ((?, ?), …)`) per call; `loadAll` selects the whole table.
 *
 * @throws PlanError for an invalid URL, config or unset `passwordFrom` variable.
 */
export function createMySqlSource(config: JdbcSourceConfig, options: MySqlSourceOptions = {}): DimensionSource {
  validateJdbcConfig(config);
  const pool: MySqlPoolLike = options.pool ?? (createMySqlPool(config, options.env) as unknown as MySqlPoolLike);
  const lookup = new SqlLookup(config.table, config.schema, { quote: quoteMySqlIdentifier, placeholder: () => '?' }, async (sql, params) => {
    const [rows] = await pool.query(sql, [...params]);
    return rows as Record<string, unknown>[];
  });
  return {
    table: config.table,
    lookupMany: (keys: readonly Row[]) => lookup.lookupMany(keys),
    loadAll: () => lookup.loadAll(),
    close: () => pool.end(),
  };
}
