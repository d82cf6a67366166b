/**
 * The in-memory cache of partition buffers in front of keyed state: Flink's `kvSortedMap` /
 * `kvRowKeyMap` (a Guava LRU cache sized by `table.exec.topn.cache-size`). Here the capacity
 * counts partitions, and a JavaScript Map's insertion order is the recency order.
 *
 * Operators write every change through to state as it happens, so an entry can be dropped at any
 * time and rebuilt from state with identical content: the cache changes speed, never results.
 */

/** Flink's default `table.exec.topn.cache-size`. */
export const DEFAULT_CACHE_SIZE = 10_000;

/** A least-recently-used map from partition key to its cached buffer. */
export class PartitionCache<P> {
  private readonly entries = new Map<string, P>();

  /** @param capacity partitions kept; the least recently used is dropped beyond it */
  constructor(private readonly capacity: number) {}

  /** The cached entry, without changing its recency. */
  get(key: string): P | undefined {
    return this.entries.get(key);
  }

  /** Caches an entry as the most recently used, dropping the least recently used beyond capacity. */
  put(key: string, value: P): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  /**
   * Marks an entry as just used. Operators call this once per batch for each partition the
   * batch touches, so recency costs nothing per record.
   */
  touch(key: string): void {
    const value = this.entries.get(key);
    if (value === undefined) return;
    this.entries.delete(key);
    this.entries.set(key, value);
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
}
