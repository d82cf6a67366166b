/**
 * The one retry module: bounded attempts with "full jitter" exponential backoff (AWS Architecture
 * Blog, "Exponential Backoff And Jitter"): before retry n the delay is uniform in
 * [0, min(max, base × 2^(n−1))), which spreads the retries of many writers throttled together.
 */
import { PlanError } from './errors.ts';

/** Options every retrying writer accepts. */
export interface RetryOptions {
  /** Failed attempts of one entry before giving up with a TransientError (1..100). @default per writer */
  readonly maxAttempts?: number;
  /** Backoff base in milliseconds: the first retry waits up to this long. @default per writer */
  readonly baseDelayMs?: number;
  /** Backoff cap in milliseconds. @default 5000 */
  readonly maxDelayMs?: number;
  /** Source of jitter in [0, 1). @default Math.random */
  readonly random?: () => number;
  /** Waits between attempts. @default - a setTimeout promise */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** A validated retry policy. */
export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly sleep: (ms: number) => Promise<void>;
  /** The delay before the attempt that follows `failures` failed ones (failures ≥ 1). */
  delay(failures: number): number;
}

/**
 * The full-jitter wait before the attempt that follows `failures` failed ones (failures ≥ 1):
 * uniform in [0, min(max, base × 2^(failures−1))).
 */
export function backoffDelay(failures: number, options: { readonly baseDelayMs: number; readonly maxDelayMs?: number; readonly random?: () => number }): number {
  const cap = Math.min(options.maxDelayMs ?? 5_000, options.baseDelayMs * 2 ** (failures - 1));
  return Math.floor((options.random ?? Math.random)() * cap);
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Applies defaults and validates; errors name the bad value. */
export function retryPolicy(options: RetryOptions, defaults: { readonly maxAttempts: number; readonly baseDelayMs: number }): RetryPolicy {
  const maxAttempts = options.maxAttempts ?? defaults.maxAttempts;
  const baseDelayMs = options.baseDelayMs ?? defaults.baseDelayMs;
  const maxDelayMs = options.maxDelayMs ?? 5_000;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > 100) {
    throw new PlanError(`maxAttempts must be an integer 1..100 (given ${maxAttempts})`);
  }
  if (!(baseDelayMs >= 0) || !(maxDelayMs >= baseDelayMs)) {
    throw new PlanError(`backoff delays must satisfy 0 <= baseDelayMs <= maxDelayMs (given ${baseDelayMs}, ${maxDelayMs})`);
  }
  const random = options.random ?? Math.random;
  return {
    maxAttempts,
    baseDelayMs,
    maxDelayMs,
    sleep: options.sleep ?? sleep,
    delay: (failures) => backoffDelay(failures, { baseDelayMs, maxDelayMs, random }),
  };
}
