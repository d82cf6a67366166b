/** Counters of a lookup cache, published by the runtimes (EMF on AWS, the summary locally). */

/** A snapshot of a cache's counters. */
export interface LookupCacheMetrics {
  /** Distinct keys answered from the cache. */
  readonly hits: number;
  /** Distinct keys not in the cache (fetched, or not found in a FULL cache). */
  readonly misses: number;
  /** Calls to the underlying source (`lookupMany` for NONE/PARTIAL, `loadAll` for FULL). */
  readonly loads: number;
  /** Total time spent in those calls, in milliseconds of the cache's clock. */
  readonly loadTimeMs: number;
  /** Entries dropped by the LRU bound. */
  readonly evictions: number;
  /** Entries found expired (expire-after-write / -access) when read. */
  readonly expirations: number;
  /** FULL reloads that failed while an older snapshot kept serving. */
  readonly reloadFailures: number;
  /** Entries (keys) held now; rows held for FULL. */
  readonly size: number;
  /** hits / (hits + misses); 0 before the first lookup. */
  readonly hitRate: number;
}

/** Mutable counters behind {@link LookupCacheMetrics}. */
export class CacheCounters {
  hits = 0;
  misses = 0;
  loads = 0;
  loadTimeMs = 0;
  evictions = 0;
  expirations = 0;
  reloadFailures = 0;

  /** A snapshot with the current `size`. */
  snapshot(size: number): LookupCacheMetrics {
    const lookups = this.hits + this.misses;
    return {
      hits: this.hits,
      misses: this.misses,
      loads: this.loads,
      loadTimeMs: this.loadTimeMs,
      evictions: this.evictions,
      expirations: this.expirations,
      reloadFailures: this.reloadFailures,
      size,
      hitRate: lookups === 0 ? 0 : this.hits / lookups,
    };
  }
}
