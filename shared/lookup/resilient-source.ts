/**
 * Chunking, bounded concurrency and retries around a raw {@link DimensionSource}; sits between
 * the cache and the store, so the cache only ever stores final answers.
 *
 * - Chunking: the keys of one call are split into chunks of at most `batchSize`, fetched at most
 *   `maxConcurrency` at a time (one store request per chunk — an IN list or a BatchGetItem).
 * - Transient failures (connection reset, throttling, TransientError; see errors.ts) of a chunk
 *   are retried with full-jitter exponential backoff, up to `maxAttempts` attempts per chunk; then
 *   the call throws a TransientError so the runtime retries the batch. Anything else is classified
 *   at once (RecordError for a rejected key value, DimensionDataError otherwise) — never a NULL.
 * - Retry on miss (FLIP-234, `lookup.max-retries` with a fixed delay, for dimension rows that
 *   arrive after the probe row): keys that found no row are asked again, only those, after
 *   `delayMs`, up to `maxAttempts` attempts in total. Keys still missing are a normal miss.
 */
import { PlanError, TransientError } from '../core/errors.ts';
import type { Row } from '../core/types.ts';
import { backoffDelay, sleep as sleepMs } from '../core/retry.ts';
import { mapConcurrent } from './concurrency.ts';
import type { DimensionSource } from './dimension-source.ts';
import { distinctKeys, encodeLookupKey, keyColumnsOf } from './dimension-source.ts';
import { classifyLookupError, errorText } from './errors.ts';

/** Retry settings of a lookup join (FLIP-234's fixed-delay strategy, plus error retries). */
export interface LookupRetrySpec {
  /** Attempts in total, including the first, for a miss and for a transient error (1..100). */
  readonly maxAttempts: number;
  /** Fixed delay between miss retries, and the base of the error backoff (ms, ≥ 0). */
  readonly delayMs: number;
  /** Retry keys that found no row (FLIP-234 `lookup_miss`). @default true */
  readonly onMiss?: boolean;
}

/** Transient-error retries when the spec has no `retry`: 3 attempts, backoff from 100 ms. */
export const DEFAULT_ERROR_RETRY = { maxAttempts: 3, baseDelayMs: 100 } as const;

/** Options of {@link createResilientSource}. */
export interface ResilientSourceOptions {
  readonly retry?: LookupRetrySpec;
  /** Keys per store request. @default unbounded (one request per call) */
  readonly batchSize?: number;
  /** Store requests in flight per call. @default 4 */
  readonly maxConcurrency?: number;
  /** Waits between attempts. @default a setTimeout promise */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Jitter source for the error backoff. @default Math.random */
  readonly random?: () => number;
  /** Told about each retry, for metrics. */
  readonly onRetry?: (reason: 'miss' | 'error', keys: number) => void;
}

/**
 * Validates the retry and batching settings; errors name the table and the value.
 *
 * @throws PlanError for an out-of-range value.
 */
export function validateResilience(options: Pick<ResilientSourceOptions, 'retry' | 'batchSize' | 'maxConcurrency'>, table: string): void {
  const where = `lookup table '${table}'`;
  const retry = options.retry;
  if (retry !== undefined) {
    if (!Number.isInteger(retry.maxAttempts) || retry.maxAttempts < 1 || retry.maxAttempts > 100) {
      throw new PlanError(`${where}: retry.maxAttempts must be an integer 1..100 (given ${retry.maxAttempts})`);
    }
    if (!(typeof retry.delayMs === 'number' && retry.delayMs >= 0 && Number.isFinite(retry.delayMs))) {
      throw new PlanError(`${where}: retry.delayMs must be a non-negative number (given ${retry.delayMs})`);
    }
  }
  for (const [name, value] of [['batchSize', options.batchSize], ['maxConcurrency', options.maxConcurrency]] as const) {
    if (value !== undefined && (!Number.isInteger(value) || value < 1)) throw new PlanError(`${where}: ${name} must be a positive integer (given ${value})`);
  }
}

/** Wraps `source` with chunking, concurrency and retries (see the module header). */
export function createResilientSource(source: DimensionSource, options: ResilientSourceOptions = {}): DimensionSource {
  validateResilience(options, source.table);
  const table = source.table;
  const sleep = options.sleep ?? sleepMs;
  const retry = options.retry;
  const errorBackoff = {
    maxAttempts: retry?.maxAttempts ?? DEFAULT_ERROR_RETRY.maxAttempts,
    baseDelayMs: retry?.delayMs ?? DEFAULT_ERROR_RETRY.baseDelayMs,
    random: options.random,
  };
  const missAttempts = retry !== undefined && retry.onMiss !== false ? retry.maxAttempts : 1;
  const batchSize = options.batchSize ?? Number.POSITIVE_INFINITY;
  const concurrency = options.maxConcurrency ?? 4;

  /** Runs `call`, retrying transient failures; throws a classified error. */
  const withErrorRetry = async <T>(call: () => Promise<T>, keys: number): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (err) {
        const classified = classifyLookupError(err, table);
        if (!(classified instanceof TransientError)) throw classified;
        if (attempt >= errorBackoff.maxAttempts) {
          throw new TransientError(`lookup of table '${table}' failed after ${attempt} attempt${attempt === 1 ? '' : 's'}: ${errorText(err)}`, { cause: err });
        }
        options.onRetry?.('error', keys);
        await sleep(backoffDelay(attempt, errorBackoff));
      }
    }
  };

  const fetchChunked = async (keys: readonly Row[]): Promise<Map<string, Row[]>> => {
    const chunks: Row[][] = [];
    for (let i = 0; i < keys.length; i += batchSize) chunks.push(keys.slice(i, i + batchSize));
    const maps = await mapConcurrent(chunks, concurrency, (chunk) => withErrorRetry(() => source.lookupMany(chunk), chunk.length));
    if (maps.length === 1) return maps[0]!;
    const merged = new Map<string, Row[]>();
    for (const map of maps) for (const [key, rows] of map) merged.set(key, rows);
    return merged;
  };

  return {
    table,
    async lookupMany(keys) {
      const columns = keyColumnsOf(keys);
      let pending = distinctKeys(keys, columns).keys;
      const result = new Map<string, Row[]>();
      for (let attempt = 1; pending.length > 0; attempt++) {
        const fetched = await fetchChunked(pending);
        for (const [key, rows] of fetched) if (rows.length > 0) result.set(key, rows);
        pending = pending.filter((key) => !result.has(encodeLookupKey(key, columns)));
        if (attempt >= missAttempts || pending.length === 0) break;
        options.onRetry?.('miss', pending.length);
        await sleep(retry?.delayMs ?? 0);
      }
      return result;
    },
    ...(source.loadAll === undefined ? {} : { loadAll: () => withErrorRetry(() => source.loadAll!(), 0) }),
    close: () => source.close(),
  };
}
