/**
 * Error classification for dimension lookups. A lookup must never turn a failure into a silent
 * NULL, so every error leaving the lookup layer is one of:
 *
 * - {@link TransientError} — the dimension store is unreachable, throttled or overloaded; the
 *   runtime retries the whole batch later;
 * - {@link RecordError} — the probe record carries a key value the store rejects (wrong type,
 *   out of range); the runtime dead-letters that record;
 * - {@link DimensionDataError} — the dimension table holds a value that does not fit the declared
 *   dimension schema, or the table/connection is misconfigured; retrying cannot help, so the
 *   pipeline stops with a message naming table, column and value.
 */
import { FlambdaError, RecordError, TransientError } from '../core/errors.ts';

/** A dimension table's contents or configuration do not match the declared schema. Never retried. */
export class DimensionDataError extends FlambdaError {
  /** The dimension table. */
  readonly table: string;
  /** The offending column, when one column is to blame. */
  readonly column: string | undefined;

  constructor(message: string, details: { table: string; column?: string; cause?: unknown }) {
    super(message, 'external', 'fail', { cause: details.cause });
    this.table = details.table;
    this.column = details.column;
  }
}

/** Node socket errors that mean "try again" (a dropped or refused connection, DNS hiccups). */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
]);

/** mysql2 / MariaDB error codes that are transient (connection loss, lock contention, overload). */
const MYSQL_TRANSIENT_CODES: ReadonlySet<string> = new Set([
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_TOO_MANY_USER_CONNECTIONS',
  'ER_LOCK_DEADLOCK',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_SERVER_SHUTDOWN',
  'ER_QUERY_INTERRUPTED',
  'ER_CLIENT_INTERACTION_TIMEOUT',
]);

/** mysql2 / MariaDB error codes for a parameter value the server cannot use. */
const MYSQL_BAD_VALUE_CODES: ReadonlySet<string> = new Set([
  'ER_TRUNCATED_WRONG_VALUE',
  'ER_TRUNCATED_WRONG_VALUE_FOR_FIELD',
  'ER_WARN_DATA_OUT_OF_RANGE',
  'ER_DATA_OUT_OF_RANGE',
  'ER_INVALID_CHARACTER_STRING',
]);

/** DynamoDB / AWS SDK error names that are throttling or service-side failures. */
const AWS_TRANSIENT_NAMES: ReadonlySet<string> = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);

/** A property of an unknown error object, when it is a string. */
function stringProp(err: unknown, name: string): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const value = (err as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

/** True when `err` is worth retrying: see the code lists above, plus PostgreSQL SQLSTATE classes. */
export function isTransientLookupError(err: unknown): boolean {
  if (err instanceof TransientError) return true;
  if (err instanceof FlambdaError) return false;
  const code = stringProp(err, 'code');
  if (code !== undefined) {
    if (NETWORK_CODES.has(code) || MYSQL_TRANSIENT_CODES.has(code)) return true;
    // PostgreSQL SQLSTATE: 08 connection exception, 53 insufficient resources, 57P0x shutdown
    // / cannot connect now, 40001 serialization failure, 40P01 deadlock.
    if (/^[0-9A-Z]{5}$/.test(code) && (code.startsWith('08') || code.startsWith('53') || code.startsWith('57P') || code === '40001' || code === '40P01')) {
      return true;
    }
  }
  const name = stringProp(err, 'name');
  if (name !== undefined && AWS_TRANSIENT_NAMES.has(name)) return true;
  if (typeof err === 'object' && err !== null) {
    const e = err as { $retryable?: unknown; $metadata?: { httpStatusCode?: unknown } };
    if (e.$retryable !== undefined && e.$retryable !== null) return true;
    const status = e.$metadata?.httpStatusCode;
    if (typeof status === 'number' && status >= 500) return true;
  }
  // pg reports a connection dropped mid-query with this message and no code.
  const message = err instanceof Error ? err.message : '';
  return /Connection terminated|connection timeout|socket hang up/i.test(message);
}

/** True when the store rejected a key value (not the connection): the record is at fault. */
function isBadValueError(err: unknown): boolean {
  if (err instanceof RecordError) return true;
  const code = stringProp(err, 'code');
  if (code === undefined) return false;
  // PostgreSQL class 22: data exception (invalid text representation, numeric out of range, …).
  return MYSQL_BAD_VALUE_CODES.has(code) || (/^22[0-9A-Z]{3}$/.test(code) && code.length === 5);
}

/** Text of an unknown error for a message. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Turns whatever a source threw into one of the classified errors of this module's header.
 * Flambda errors keep their class; unknown non-transient, non-data errors stop the pipeline as a
 * {@link DimensionDataError} (a missing table or a syntax error will not heal by retrying).
 */
export function classifyLookupError(err: unknown, table: string): FlambdaError {
  if (err instanceof FlambdaError) return err;
  const text = errorText(err);
  if (isTransientLookupError(err)) return new TransientError(`lookup of table '${table}' failed: ${text}`, { cause: err });
  if (isBadValueError(err)) return new RecordError(`lookup of table '${table}' rejected a key value: ${text}`, { cause: err });
  return new DimensionDataError(`lookup of table '${table}' failed: ${text}`, { table, cause: err });
}
