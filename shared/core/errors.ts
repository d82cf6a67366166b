/**
 * One error hierarchy for the whole engine. Every error carries a domain and a retry hint so a
 * runtime can decide, without parsing messages, whether to dead-letter the record (bad data),
 * retry the batch (transient), or stop (a bug or a bad pipeline).
 */

/** Who is at fault: the user's data or pipeline, an external system, or Flambda itself. */
export type ErrorDomain = 'user' | 'external' | 'internal';

/** What a runtime should do about the error. */
export type RetryHint = 'dead-letter' | 'retry' | 'fail';

/** Base class of all Flambda errors. */
export class FlambdaError extends Error {
  readonly domain: ErrorDomain;
  readonly retry: RetryHint;

  constructor(message: string, domain: ErrorDomain, retry: RetryHint, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.domain = domain;
    this.retry = retry;
  }
}

/** A pipeline, plan or CLI argument is invalid. Never retried. */
export class PlanError extends FlambdaError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 'user', 'fail', options);
  }
}

/** A record does not match its schema or cannot be decoded: it goes to the dead-letter output. */
export class RecordError extends FlambdaError {
  /** The offending field, when one field is to blame. */
  readonly field: string | undefined;
  /** Where the record came from, e.g. `bid.jsonl:17` or a Kinesis sequence number. */
  readonly position: string | undefined;

  constructor(message: string, details: { field?: string; position?: string; cause?: unknown } = {}) {
    super(message, 'user', 'dead-letter', { cause: details.cause });
    this.field = details.field;
    this.position = details.position;
  }
}

/** An external system failed in a way that may succeed on retry (throttling, timeouts). */
export class TransientError extends FlambdaError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 'external', 'retry', options);
  }
}

/**
 * What a runtime does with a record whose processing raised a data error (a {@link RecordError}:
 * a bad CAST, division by zero, a DECIMAL overflow, a value its sink cannot hold):
 * `dead-letter` sets that one record aside with its reason and position and goes on with the
 * next; `fail` stops the job, as Flink does. Set by `'pipeline.error-policy'`.
 */
export type ErrorPolicy = 'dead-letter' | 'fail';

/** The policy when none is set: a bad record never stops a job. */
export const DEFAULT_ERROR_POLICY: ErrorPolicy = 'dead-letter';

/** The option key of the error policy (SQL `SET`, pipeline options, job graph). */
export const ERROR_POLICY_OPTION = 'pipeline.error-policy';

/** Reads an error-policy value; `where` names the option in the error (e.g. `--error-policy`). */
export function parseErrorPolicy(value: string, where: string = `'${ERROR_POLICY_OPTION}'`): ErrorPolicy {
  if (value === 'dead-letter' || value === 'fail') return value;
  throw new PlanError(`${where} must be 'dead-letter' or 'fail' (given '${value}')`);
}
