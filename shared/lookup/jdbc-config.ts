/**
 * Connection settings of the JDBC-style sources (MySQL/MariaDB, PostgreSQL), shared by both.
 * Passwords never live in the job graph: a config names an environment variable
 * (`passwordFrom`), which on AWS is filled from Secrets Manager at cold start.
 */
import { PlanError } from '../core/errors.ts';
import type { Schema } from '../core/types.ts';

/** Where and as whom to connect; plain data, safe to serialize (no secret in it unless `password` is set in code). */
export interface JdbcConnectionConfig {
  /** `jdbc:mysql://host[:port]/db`, `jdbc:mariadb://…` or `jdbc:postgresql://host[:port]/db`. */
  readonly url: string;
  /** Database user. @default the URL's `user` query parameter */
  readonly user?: string;
  /** Password given directly (tests, local runs). Prefer {@link passwordFrom}. */
  readonly password?: string;
  /** Name of an environment variable holding the password. */
  readonly passwordFrom?: string;
  /** Maximum connections in the pool. @default 4 */
  readonly poolSize?: number;
  /** Milliseconds to wait for a connection. @default 10000 */
  readonly connectTimeoutMs?: number;
}

/** A JDBC dimension source: a connection plus the table and the schema of the columns to read. */
export interface JdbcSourceConfig extends JdbcConnectionConfig {
  /** Table name, optionally qualified (`db.table`); each part is quoted. */
  readonly table: string;
  /** The dimension columns read (their names are the table's column names) and their types. */
  readonly schema: Schema;
}

/** A parsed JDBC URL. */
export interface JdbcUrl {
  readonly protocol: 'mysql' | 'postgresql';
  readonly host: string;
  readonly port: number;
  readonly database: string;
  /** The query parameters, e.g. `user`. */
  readonly params: ReadonlyMap<string, string>;
}

/**
 * Parses `jdbc:mysql://host:port/db?user=u`, `jdbc:mariadb://…` or `jdbc:postgresql://…`
 * (port defaults 3306 / 5432; IPv6 hosts in brackets).
 *
 * @throws PlanError naming the URL when it is not one of these forms.
 */
export function parseJdbcUrl(url: string): JdbcUrl {
  const m = /^jdbc:(mysql|mariadb|postgresql):\/\/(\[[^\]]+\]|[^/:?]+)(?::(\d+))?\/([^?/]+)(?:\?(.*))?$/.exec(url);
  if (m === null) {
    throw new PlanError(`invalid JDBC URL ${JSON.stringify(url)}: expected jdbc:mysql://host[:port]/database or jdbc:postgresql://host[:port]/database`);
  }
  const protocol = m[1] === 'postgresql' ? 'postgresql' : 'mysql';
  const port = m[3] === undefined ? (protocol === 'mysql' ? 3306 : 5432) : Number(m[3]);
  if (port < 1 || port > 65535) throw new PlanError(`invalid JDBC URL ${JSON.stringify(url)}: port ${port} out of range`);
  const host = m[2]!.startsWith('[') ? m[2]!.slice(1, -1) : m[2]!;
  const params = new Map<string, string>(new URLSearchParams(m[5] ?? '').entries());
  if (params.has('password')) {
    throw new PlanError(`JDBC URL ${JSON.stringify(url.replace(/password=[^&]*/, 'password=***'))} carries a password: use passwordFrom (an environment variable) instead`);
  }
  return { protocol, host, port, database: decodeURIComponent(m[4]!), params };
}

/** Resolved credentials. */
export interface JdbcCredentials {
  readonly user: string | undefined;
  readonly password: string | undefined;
}

/**
 * The user and password of a config: `password`, else the environment variable `passwordFrom`.
 *
 * @throws PlanError when `passwordFrom` names an unset variable.
 */
export function resolveCredentials(config: JdbcConnectionConfig, url: JdbcUrl, env: NodeJS.ProcessEnv = process.env): JdbcCredentials {
  const user = config.user ?? url.params.get('user');
  let password = config.password;
  if (password === undefined && config.passwordFrom !== undefined) {
    password = env[config.passwordFrom];
    if (password === undefined) throw new PlanError(`lookup source: environment variable '${config.passwordFrom}' (passwordFrom) is not set`);
  }
  return { user, password };
}

/** Splits a possibly qualified table name into parts, quoting each with `quote`. */
export function quoteQualified(name: string, quote: (identifier: string) => string): string {
  return name.split('.').map(quote).join('.');
}

/** Rejects configs that cannot work, before connecting. */
export function validateJdbcConfig(config: JdbcSourceConfig): void {
  if (config.table === '') throw new PlanError('lookup source: table name is empty');
  if (config.schema.fields.length === 0) throw new PlanError(`lookup table '${config.table}': the dimension schema has no columns`);
  if (config.poolSize !== undefined && (!Number.isInteger(config.poolSize) || config.poolSize < 1)) {
    throw new PlanError(`lookup table '${config.table}': poolSize must be a positive integer (given ${config.poolSize})`);
  }
}
