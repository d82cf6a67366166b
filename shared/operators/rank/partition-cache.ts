/**
 * The in-memory cache of partition buffers in front of keyed state: Flink's `kvSortedMap` /
 * `kvRowKeyMap`, a Guava cache bounded by `table.exec.topn.cache-size`. Here the capacity counts
 * partitions.
 *
 * Eviction is least-recently-used, approximated by CLOCK (second chance), as Guava's own cache
 * approximates LRU: a hit only sets a flag on its entry, and eviction walks the entries in
 * insertion order, giving each flagged entry a second chance (flag cleared, moved to the back)
 * and dropping the first unflagged one. Exact recency would cost two hash-map operations per
 * access; this costs a field write, and eviction is amortized O(1).
 *
 * Operators write every change through to state as it happens, so an entry can be dropped at any
 * time and rebuilt from state with identical content: the cache changes speed, never results.
 */

/** Flink's default `table.exec.topn.cache-size`. */
export const DEFAULT_CACHE_SIZE = 10_000;

/** What the cache needs of an entry: its CLOCK reference flag, kept on the entry itself. */
export interface Cached {
  /** Set on each use; cleared when the entry gets its second chance. */
  referenced: boolean;
}

/** A bounded map from partition key to its cached buffer; see the module documentation. */
export class PartitionCache<P extends Cached> {
  private readonly entries = new Map<string, P>();

  /** @param capacity partitions kept; beyond it the least recently used one is dropped */
  constructor(private readonly capacity: number) {}

  /** The cached entry, marking it as used. */
  get(key: string): P | undefined {
    const entry = this.entries.get(key);
    if (entry !== undefined) entry.referenced = true;
    return entry;
  }

  /** Caches an entry (as just used), evicting one beyond capacity. */
  put(key: string, value: P): void {
    value.referenced = true;
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.evict();
  }

  /** Drops an entry (its state expired). */
  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Drops everything. */
  clear(): void {
    this.entries.clear();
  }

  /** Number of cached partitions. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Drops the oldest entry not used since its last second chance. Entries moved to the back
   * come up again, flag cleared, after one pass, so the loop ends.
   */
  private evict(): void {
    for (const [key, entry] of this.entries) {
      this.entries.delete(key);
      if (!entry.referenced) return;
      entry.referenced = false;
      this.entries.set(key, entry);
    }
  }
}
