/**
 * PartitionCache: bounded by its capacity, evicting by CLOCK (second chance) — an entry used
 * since the last sweep survives an eviction that an unused one does not.
 */
import { describe, expect, it } from 'vitest';
import { PartitionCache } from '../../../shared/operators/rank/partition-cache.ts';

const entry = (name: string) => ({ name, referenced: false });

describe('Class: PartitionCache', () => {
  it('never holds more than its capacity', () => {
    const cache = new PartitionCache<ReturnType<typeof entry>>(3);
    for (let i = 0; i < 100; i++) {
      cache.put(`k${i}`, entry(`k${i}`));
      expect(cache.size).toBeLessThanOrEqual(3);
      // The entry just put is never the one evicted.
      expect(cache.get(`k${i}`)?.name).toBe(`k${i}`);
    }
  });

  it('keeps an entry used since the last sweep and evicts an unused one, even a newer one', () => {
    const cache = new PartitionCache<ReturnType<typeof entry>>(2);
    cache.put('a', entry('a'));
    cache.put('b', entry('b'));
    // Every entry gets its second chance; then the oldest, a, goes.
    cache.put('c', entry('c'));
    cache.get('b');
    // b was used since, c was not: c goes although b is older.
    cache.put('d', entry('d'));
    expect(['a', 'b', 'c', 'd'].map((k) => cache.get(k) !== undefined)).toEqual([false, true, false, true]);
  });

  it('delete and clear drop entries', () => {
    const cache = new PartitionCache<ReturnType<typeof entry>>(2);
    cache.put('a', entry('a'));
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
    cache.put('b', entry('b'));
    cache.clear();
    expect(cache.size).toBe(0);
  });
});
