/**
 * A PostgreSQL dimension source over a `pg` Pool.
 *
 * Every column arrives as PostgreSQL's own text output (a type parser that returns the text
 * unchanged), so int8, numeric and timestamps are never squeezed through a JS number or a local
 * Date; shared/lookup/dimension-values.ts converts the text exactly. Sessions run in UTC, so
 * `timestamptz` text carries `+00` and plain `timestamp` parameters mean UTC.
 *
 * One key column uses `k = ANY($1)` with one array parameter (one statement shape whatever the
 * number of keys); a composite key uses `(k1, k2) IN (($1, $2), …)`.
 */
import pg from 'pg';
import type { PoolConfig } from 'pg';
import type { Row } from '../core/types.ts';
import type { DimensionSource } from './dimension-source.ts';
import type { JdbcSourceConfig } from './jdbc-config.ts';
import { parseJdbcUrl, resolveCredentials, validateJdbcConfig } from './jdbc-config.ts';
import { SqlLookup, checkIdentifier } from './sql-lookup.ts';

/** The part of a `pg` Pool the source uses; tests may wrap a real pool with it. */
export interface PostgresPoolLike {
  query(sql: string, values: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
}

/** Options of {@link createPostgresSource}. */
export interface PostgresSourceOptions {
  /** Use this pool instead of creating one from the config (the source still ends it on close). */
  readonly pool?: PostgresPoolLike;
  /** Environment to resolve `passwordFrom` in. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
}

/** Returns PostgreSQL's text output as is, for every type. */
const rawText = (value: string): string => value;

/** The `pg` pool config for a source config; see the module header for why. */
export function postgresPoolConfig(config: JdbcSourceConfig, env: NodeJS.ProcessEnv = process.env): PoolConfig {
  validateJdbcConfig(config);
  const url = parseJdbcUrl(config.url);
  const { user, password } = resolveCredentials(config, url, env);
  return {
    host: url.host,
    port: url.port,
    database: url.database,
    user,
    password,
    max: config.poolSize ?? 4,
    connectionTimeoutMillis: config.connectTimeoutMs ?? 10_000,
    options: '-c TimeZone=UTC',
    types: { getTypeParser: (() => rawText) as unknown as typeof pg.types.getTypeParser },
  };
}

/** Creates a `pg` Pool for a source config. */
export function createPostgresPool(config: JdbcSourceConfig, env?: NodeJS.ProcessEnv): pg.Pool {
  const pool = new pg.Pool(postgresPoolConfig(config, env));
  // An idle client that loses its connection emits 'error' on the pool; without a listener
  // Node would crash the process. The next query simply gets a fresh client.
  pool.on('error', () => undefined);
  return pool;
}

/** Quotes a PostgreSQL identifier with double quotes (a quote inside is doubled). */
export function quotePostgresIdentifier(identifier: string): string {
  checkIdentifier(identifier);
  return '"' + identifier.replaceAll('"', '""') + '"';
}

/**
 * Creates a PostgreSQL dimension source: `lookupMany` sends one statement per call (see the
 * module header); `loadAll` selects the whole table.
 *
 * @throws PlanError for an invalid URL, config or unset `passwordFrom` variable.
 */
export function createPostgresSource(config: JdbcSourceConfig, options: PostgresSourceOptions = {}): DimensionSource {
  validateJdbcConfig(config);
  const pool: PostgresPoolLike = options.pool ?? (createPostgresPool(config, options.env) as unknown as PostgresPoolLike);
  const dialect = {
    quote: quotePostgresIdentifier,
    placeholder: (i: number) => `$${i + 1}`,
    singleColumnIn: (column: string, values: readonly unknown[]) => ({ sql: `${column} = ANY($1)`, params: [[...values]] }),
  };
  const lookup = new SqlLookup(config.table, config.schema, dialect, async (sql, params) => (await pool.query(sql, [...params])).rows);
  return {
    table: config.table,
    lookupMany: (keys: readonly Row[]) => lookup.lookupMany(keys),
    loadAll: () => lookup.loadAll(),
    close: () => pool.end(),
  };
}
