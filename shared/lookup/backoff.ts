/**
 * Waiting between attempts: full-jitter exponential backoff for transient failures (as the AWS
 * writers in shared/aws/retry.ts do), and injectable sleep/random so tests need no real time.
 */

/** How a retry loop waits. */
export interface BackoffOptions {
  /** Attempts in total, including the first (≥ 1). */
  readonly maxAttempts: number;
  /** The first retry waits up to this long (ms). */
  readonly baseDelayMs: number;
  /** Cap of one wait (ms). @default 5000 */
  readonly maxDelayMs?: number;
  /** Waits between attempts. @default a setTimeout promise */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Jitter in [0, 1). @default Math.random */
  readonly random?: () => number;
}

/** Resolves after `ms` milliseconds. */
export function sleepMs(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The wait before the attempt that follows `failures` failed ones: uniform in [0, min(cap, base·2^(failures−1))]. */
export function backoffDelay(options: BackoffOptions, failures: number): number {
  const cap = Math.min(options.maxDelayMs ?? 5_000, options.baseDelayMs * 2 ** (failures - 1));
  return Math.floor((options.random ?? Math.random)() * (cap + 1));
}
