/**
 * The lookup cache, as a decorator around any {@link DimensionSource} (Flink's
 * `CachingLookupFunction` + `DefaultLookupCache` for PARTIAL, `CachingLookupFunction` with a
 * `LookupFullCache` for FULL). See cache-spec.ts for the options.
 *
 * - PARTIAL: an LRU (lru-cache) of encoded key → rows, bounded by `maxRows` keys. Expiry is
 *   checked against the injected clock when an entry is read, so tests control time exactly; an
 *   expired entry counts as a miss and is fetched again. Only the keys that miss are passed on, in
 *   one `lookupMany` call per lookup.
 * - FULL: `loadAll` on the first lookup, then again on the first lookup after
 *   `reloadIntervalMs`. Reloading lazily at a lookup (not on a background timer) is deliberate: a
 *   frozen Lambda container runs no timers, and it keeps tests deterministic. Lookups are served
 *   from memory only. If a reload fails while an older snapshot exists, the old snapshot keeps
 *   serving (counted in `reloadFailures`) and the next lookup tries again; a failing first load
 *   throws.
 * - NONE: every key is passed on; loads and load time are still counted.
 */
import { LRUCache } from 'lru-cache';
import { PlanError } from '../core/errors.ts';
import type { Row } from '../core/types.ts';
import type { LookupCacheMetrics } from './cache-metrics.ts';
import { CacheCounters } from './cache-metrics.ts';
import type { FullLookupCacheSpec, LookupCacheSpec, PartialLookupCacheSpec } from './cache-spec.ts';
import { validateCacheSpec } from './cache-spec.ts';
import type { DimensionSource } from './dimension-source.ts';
import { distinctKeys, encodeLookupKey as encodeOf, keyColumnsOf } from './dimension-source.ts';
import { MemoryIndex } from './memory-index.ts';

/** A source with a cache in front of it. */
export interface CachedDimensionSource extends DimensionSource {
  /** The cache type in use. */
  readonly cacheType: LookupCacheSpec['type'];
  /** The cache's counters now. */
  metrics(): LookupCacheMetrics;
}

/** Options of {@link createCachedSource}. */
export interface CachedSourceOptions {
  /** Milliseconds clock for expiry, reloads and load time. @default performance.now() + time origin */
  readonly clock?: () => number;
}

const defaultClock = (): number => performance.timeOrigin + performance.now();

/**
 * Wraps `source` with the cache `spec` (see the module header).
 *
 * @throws PlanError for an invalid spec, or FULL on a source without `loadAll`.
 */
export function createCachedSource(source: DimensionSource, spec: LookupCacheSpec, options: CachedSourceOptions = {}): CachedDimensionSource {
  validateCacheSpec(spec, source.table);
  const clock = options.clock ?? defaultClock;
  switch (spec.type) {
    case 'NONE':
      return uncached(source, clock);
    case 'PARTIAL':
      return partialCache(source, spec, clock);
    case 'FULL':
      return fullCache(source, spec, clock);
  }
}

/** Times one call to the underlying source into the counters. */
async function timedLoad<T>(counters: CacheCounters, clock: () => number, load: () => Promise<T>): Promise<T> {
  const started = clock();
  try {
    return await load();
  } finally {
    counters.loads++;
    counters.loadTimeMs += clock() - started;
  }
}

function uncached(source: DimensionSource, clock: () => number): CachedDimensionSource {
  const counters = new CacheCounters();
  return {
    table: source.table,
    cacheType: 'NONE',
    async lookupMany(keys) {
      const columns = keyColumnsOf(keys);
      const { keys: distinct } = distinctKeys(keys, columns);
      if (distinct.length === 0) return new Map();
      counters.misses += distinct.length;
      return timedLoad(counters, clock, () => source.lookupMany(distinct));
    },
    ...(source.loadAll === undefined ? {} : { loadAll: source.loadAll.bind(source) }),
    metrics: () => counters.snapshot(0),
    close: () => source.close(),
  };
}

/** One cached key: its rows (empty for a cached miss) and when it was loaded / last read. */
interface Entry {
  readonly rows: Row[];
  readonly writtenAt: number;
  accessedAt: number;
}

function partialCache(source: DimensionSource, spec: PartialLookupCacheSpec, clock: () => number): CachedDimensionSource {
  const counters = new CacheCounters();
  const cacheMissingKey = spec.cacheMissingKey ?? true;
  const cache = new LRUCache<string, Entry>({
    max: spec.maxRows,
    dispose: (_value, _key, reason) => {
      if (reason === 'evict') counters.evictions++;
    },
  });
  const expired = (entry: Entry, now: number): boolean =>
    (spec.expireAfterWriteMs !== undefined && now - entry.writtenAt >= spec.expireAfterWriteMs) ||
    (spec.expireAfterAccessMs !== undefined && now - entry.accessedAt >= spec.expireAfterAccessMs);

  return {
    table: source.table,
    cacheType: 'PARTIAL',
    async lookupMany(keys) {
      const columns = keyColumnsOf(keys);
      const result = new Map<string, Row[]>();
      const { keys: distinct } = distinctKeys(keys, columns);
      if (distinct.length === 0) return result;
      const now = clock();
      const missing: Row[] = [];
      const missingEncoded: string[] = [];
      for (const key of distinct) {
        const encoded = encodeOf(key, columns);
        const entry = cache.get(encoded);
        if (entry !== undefined && expired(entry, now)) {
          counters.expirations++;
          cache.delete(encoded);
        } else if (entry !== undefined) {
          counters.hits++;
          entry.accessedAt = now;
          if (entry.rows.length > 0) result.set(encoded, entry.rows);
          continue;
        }
        counters.misses++;
        missing.push(key);
        missingEncoded.push(encoded);
      }
      if (missing.length === 0) return result;
      const fetched = await timedLoad(counters, clock, () => source.lookupMany(missing));
      const loadedAt = clock();
      for (const encoded of missingEncoded) {
        const rows = fetched.get(encoded);
        if (rows !== undefined && rows.length > 0) {
          result.set(encoded, rows);
          cache.set(encoded, { rows, writtenAt: loadedAt, accessedAt: loadedAt });
        } else if (cacheMissingKey) {
          cache.set(encoded, { rows: [], writtenAt: loadedAt, accessedAt: loadedAt });
        }
      }
      return result;
    },
    ...(source.loadAll === undefined ? {} : { loadAll: source.loadAll.bind(source) }),
    metrics: () => counters.snapshot(cache.size),
    async close() {
      cache.clear();
      await source.close();
    },
  };
}

function fullCache(source: DimensionSource, spec: FullLookupCacheSpec, clock: () => number): CachedDimensionSource {
  const loadAll = source.loadAll?.bind(source);
  if (loadAll === undefined) throw new PlanError(`lookup table '${source.table}': a FULL cache needs a source that can load the whole table`);
  const counters = new CacheCounters();
  let snapshot: MemoryIndex | undefined;
  let loadedAt = 0;

  const current = async (): Promise<MemoryIndex> => {
    const stale = snapshot !== undefined && spec.reloadIntervalMs !== undefined && clock() - loadedAt >= spec.reloadIntervalMs;
    if (snapshot !== undefined && !stale) return snapshot;
    try {
      const rows = await timedLoad(counters, clock, loadAll);
      snapshot = new MemoryIndex(rows);
      loadedAt = clock();
    } catch (err) {
      if (snapshot === undefined) throw err;
      counters.reloadFailures++;
    }
    return snapshot;
  };

  return {
    table: source.table,
    cacheType: 'FULL',
    async lookupMany(keys) {
      const columns = keyColumnsOf(keys);
      const { keys: distinct } = distinctKeys(keys, columns);
      if (distinct.length === 0) return new Map();
      const index = await current();
      const result = index.lookupMany(distinct);
      counters.hits += result.size;
      counters.misses += distinct.length - result.size;
      return result;
    },
    loadAll: async () => [...(await current()).rows],
    metrics: () => counters.snapshot(snapshot?.rows.length ?? 0),
    async close() {
      snapshot = undefined;
      await source.close();
    },
  };
}
