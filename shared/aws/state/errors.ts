/**
 * Maps what the AWS SDK throws to Flambda's error classes, so the runtime decides between retry
 * and stop from the class (shared/core/errors.ts), never from messages.
 */
import { FlambdaError, TransientError } from '../../core/errors.ts';

/**
 * DynamoDB error names that are worth retrying once the SDK's own retries are spent: throttling
 * (on-demand tables throttle while they scale; provisioned ones past their capacity) and
 * server-side failures (the SDK's `$retryable` and HTTP 5xx cover those it knows).
 */
const RETRYABLE_NAMES: ReadonlySet<string> = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'LimitExceededException',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);

/** Socket-level failures (Node errno codes) that a retry may get past. */
const RETRYABLE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

interface AwsLikeError {
  readonly name?: unknown;
  readonly code?: unknown;
  readonly message?: unknown;
  readonly $retryable?: unknown;
  readonly $metadata?: { readonly httpStatusCode?: unknown };
}

/** Whether an SDK error is retryable: throttling, a 5xx, a timeout or a dropped connection. */
export function isRetryableAwsError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as AwsLikeError;
  if (e.$retryable !== undefined && e.$retryable !== null && e.$retryable !== false) return true;
  if (typeof e.name === 'string' && RETRYABLE_NAMES.has(e.name)) return true;
  if (typeof e.code === 'string' && RETRYABLE_CODES.has(e.code)) return true;
  const status = e.$metadata?.httpStatusCode;
  return typeof status === 'number' && status >= 500;
}

/**
 * Wraps an error thrown while doing `what` (e.g. `Query on table 'state'`): FlambdaErrors pass
 * through; retryable AWS failures become {@link TransientError}; a ValidationException is a bug
 * in how Flambda built the request (internal, fail); anything else an external failure that a
 * retry will not fix (missing table, access denied).
 */
export function toStateError(error: unknown, what: string): FlambdaError {
  if (error instanceof FlambdaError) return error;
  const e = (typeof error === 'object' && error !== null ? error : {}) as AwsLikeError;
  const name = typeof e.name === 'string' ? e.name : 'Error';
  const message = `${what} failed: ${name}: ${typeof e.message === 'string' ? e.message : String(error)}`;
  if (isRetryableAwsError(error)) return new TransientError(message, { cause: error });
  if (name === 'ValidationException' || name === 'SerializationException') {
    return new FlambdaError(message, 'internal', 'fail', { cause: error });
  }
  return new FlambdaError(message, 'external', 'fail', { cause: error });
}
