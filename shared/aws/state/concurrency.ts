/**
 * Bounded concurrency and backoff for the state backend's requests (the backoff is the one
 * retry module's, shared/core/retry.ts, in the state backend's option names).
 */
import { backoffDelay as coreBackoffDelay, sleep } from '../../core/retry.ts';

/**
 * Runs `task` over every item with at most `limit` tasks in flight, and waits for all of them,
 * even after a failure, so no request is still running when the caller handles the error.
 * Rejects with the first failure, in item order.
 */
export async function forEachLimited<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown; index: number } | undefined;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      try {
        await task(items[index]!);
      } catch (error) {
        if (failure === undefined || index < failure.index) failure = { error, index };
      }
    }
  };
  const workers: Promise<void>[] = [];
  for (let i = 0; i < Math.min(limit, items.length); i++) workers.push(worker());
  await Promise.all(workers);
  if (failure !== undefined) throw failure.error;
}

/** Backoff parameters; see {@link backoffDelay}. */
export interface BackoffOptions {
  /** The delay cap of the first retry, ms. */
  readonly baseMs: number;
  /** The largest delay cap, ms. */
  readonly maxMs: number;
  /** Uniform [0, 1) source; injected by tests. */
  readonly random: () => number;
}

/**
 * "Full jitter" exponential backoff (AWS Architecture Blog, "Exponential Backoff And Jitter"):
 * a uniform delay in [0, min(max, base × 2^retry)), which spreads retries of many writers
 * that were throttled together.
 */
export function backoffDelay(retry: number, options: BackoffOptions): number {
  return coreBackoffDelay(retry + 1, { baseDelayMs: options.baseMs, maxDelayMs: options.maxMs, random: options.random });
}

export { sleep };
