import { describe, expect, it } from 'vitest';
import { PlanError } from '../../shared/core/errors.ts';
import { createCachedSource } from '../../shared/lookup/cached-source.ts';
import { encodeLookupKey } from '../../shared/lookup/dimension-source.ts';
import { createFunctionSource } from '../../shared/lookup/function-source.ts';
import { idNameSchema, manualClock, recordingSource } from './helpers.ts';

const ids = (...values: number[]) => values.map((id) => ({ id }));
const k = (id: number): string => encodeLookupKey({ id }, ['id']);
const rows = () => [
  { id: 1, name: 'a' },
  { id: 2, name: 'b' },
  { id: 3, name: 'c' },
  { id: 4, name: 'd' },
];

describe('PARTIAL cache', () => {
  it('serves repeated keys from memory; only misses reach the source, in one call', async () => {
    const source = recordingSource(rows());
    const cache = createCachedSource(source, { type: 'PARTIAL', maxRows: 10 }, { clock: manualClock().now });
    expect([...(await cache.lookupMany(ids(1, 2, 2, 9))).keys()]).toEqual([k(1), k(2)]);
    const second = await cache.lookupMany(ids(1, 2, 3, 9));
    expect([...second.keys()].sort()).toEqual([k(1), k(2), k(3)].sort());
    expect(second.get(k(3))).toEqual([{ id: 3, name: 'c' }]);
    expect(source.calls).toEqual([ids(1, 2, 9), ids(3)]);
    expect(cache.metrics()).toMatchObject({ hits: 3, misses: 4, loads: 2, evictions: 0, size: 4, hitRate: 3 / 7 });
  });

  it('evicts the least recently used key beyond maxRows', async () => {
    const source = recordingSource(rows());
    const cache = createCachedSource(source, { type: 'PARTIAL', maxRows: 2 });
    await cache.lookupMany(ids(1));
    await cache.lookupMany(ids(2));
    await cache.lookupMany(ids(1)); // 1 is now more recent than 2
    await cache.lookupMany(ids(3)); // evicts 2
    await cache.lookupMany(ids(1, 2));
    expect(source.calls).toEqual([ids(1), ids(2), ids(3), ids(2)]);
    expect(cache.metrics()).toMatchObject({ hits: 2, misses: 4, evictions: 2, size: 2 });
  });

  it('expire-after-write reloads an entry once it is old, however often it was read', async () => {
    const clock = manualClock(1000);
    const source = recordingSource(rows());
    const cache = createCachedSource(source, { type: 'PARTIAL', maxRows: 10, expireAfterWriteMs: 100 }, { clock: clock.now });
    await cache.lookupMany(ids(1));
    clock.advance(60);
    await cache.lookupMany(ids(1));
    source.rows[0] = { id: 1, name: 'A' };
    clock.advance(39);
    expect((await cache.lookupMany(ids(1))).get(k(1))).toEqual([{ id: 1, name: 'a' }]);
    clock.advance(1);
    expect((await cache.lookupMany(ids(1))).get(k(1))).toEqual([{ id: 1, name: 'A' }]);
    expect(source.calls.length).toBe(2);
    expect(cache.metrics()).toMatchObject({ hits: 2, misses: 2, expirations: 1 });
  });

  it('expire-after-access keeps an entry alive while it is read', async () => {
    const clock = manualClock();
    const source = recordingSource(rows());
    const cache = createCachedSource(source, { type: 'PARTIAL', maxRows: 10, expireAfterAccessMs: 100 }, { clock: clock.now });
    await cache.lookupMany(ids(1, 2));
    for (let i = 0; i < 5; i++) {
      clock.advance(99);
      await cache.lookupMany(ids(1));
    }
    clock.advance(1);
    await cache.lookupMany(ids(1, 2)); // 1 was read 1 ms ago; 2 has been idle 496 ms
    expect(source.calls).toEqual([ids(1, 2), ids(2)]);
    expect(cache.metrics()).toMatchObject({ hits: 6, misses: 3, expirations: 1 });
  });

  it('caches missing keys by default, and not when cacheMissingKey is false', async () => {
    const on = recordingSource(rows());
    const cacheOn = createCachedSource(on, { type: 'PARTIAL', maxRows: 10 });
    await cacheOn.lookupMany(ids(8));
    expect((await cacheOn.lookupMany(ids(8))).size).toBe(0);
    expect(on.calls.length).toBe(1);
    expect(cacheOn.metrics()).toMatchObject({ hits: 1, misses: 1, size: 1 });

    const off = recordingSource(rows());
    const cacheOff = createCachedSource(off, { type: 'PARTIAL', maxRows: 10, cacheMissingKey: false });
    await cacheOff.lookupMany(ids(8));
    off.rows.push({ id: 8, name: 'late' });
    expect((await cacheOff.lookupMany(ids(8))).get(k(8))).toEqual([{ id: 8, name: 'late' }]);
    expect(off.calls.length).toBe(2);
    expect(cacheOff.metrics()).toMatchObject({ hits: 0, misses: 2, size: 1 });
  });

  it('counts load time with the injected clock', async () => {
    const clock = manualClock();
    const slow = createFunctionSource({
      table: 'dim',
      schema: idNameSchema,
      lookup: () => {
        clock.advance(7);
        return [];
      },
    });
    const cache = createCachedSource(slow, { type: 'PARTIAL', maxRows: 10 }, { clock: clock.now });
    await cache.lookupMany(ids(1));
    await cache.lookupMany(ids(2));
    expect(cache.metrics()).toMatchObject({ loads: 2, loadTimeMs: 14 });
  });

  it('rejects invalid settings', () => {
    const source = recordingSource(rows());
    expect(() => createCachedSource(source, { type: 'PARTIAL', maxRows: 0 })).toThrow(/maxRows must be a positive integer \(given 0\)/);
    expect(() => createCachedSource(source, { type: 'PARTIAL', maxRows: 1, expireAfterWriteMs: -1 })).toThrow(PlanError);
    expect(() => createCachedSource(source, { type: 'FULL', reloadIntervalMs: 0 })).toThrow(PlanError);
  });
});

describe('FULL cache', () => {
  it('loads the table once and serves every lookup from memory', async () => {
    const source = recordingSource(rows());
    const cache = createCachedSource(source, { type: 'FULL' });
    expect((await cache.lookupMany(ids(1, 9))).get(k(1))).toEqual([{ id: 1, name: 'a' }]);
    expect((await cache.lookupMany(ids(2, 3))).size).toBe(2);
    expect(source.calls).toEqual([]);
    expect(source.loadAlls).toBe(1);
    expect(cache.metrics()).toMatchObject({ hits: 3, misses: 1, loads: 1, size: 4 });
  });

  it('reloads at the first lookup after the interval', async () => {
    const clock = manualClock();
    const source = recordingSource(rows());
    const cache = createCachedSource(source, { type: 'FULL', reloadIntervalMs: 1000 }, { clock: clock.now });
    await cache.lookupMany(ids(1));
    source.rows = [{ id: 1, name: 'new' }];
    clock.advance(999);
    expect((await cache.lookupMany(ids(1))).get(k(1))).toEqual([{ id: 1, name: 'a' }]);
    clock.advance(1);
    expect((await cache.lookupMany(ids(1, 2))).get(k(1))).toEqual([{ id: 1, name: 'new' }]);
    expect(source.loadAlls).toBe(2);
    expect(cache.metrics()).toMatchObject({ hits: 3, misses: 1, loads: 2, size: 1 });
  });

  it('keeps serving the old snapshot when a reload fails, and throws when the first load fails', async () => {
    const clock = manualClock();
    let fail = false;
    const source = createFunctionSource({
      table: 'dim',
      schema: idNameSchema,
      lookup: () => [],
      loadAll: () => {
        if (fail) throw new Error('ECONNRESET');
        return rows();
      },
    });
    const cache = createCachedSource(source, { type: 'FULL', reloadIntervalMs: 10 }, { clock: clock.now });
    await cache.lookupMany(ids(1));
    fail = true;
    clock.advance(10);
    expect((await cache.lookupMany(ids(1))).size).toBe(1);
    expect(cache.metrics().reloadFailures).toBe(1);

    const broken = createCachedSource(source, { type: 'FULL' });
    await expect(broken.lookupMany(ids(1))).rejects.toThrow('ECONNRESET');
  });

  it('needs a source that can load everything', () => {
    const source = createFunctionSource({ table: 'dim', schema: idNameSchema, lookup: () => [] });
    expect(() => createCachedSource(source, { type: 'FULL' })).toThrow(/FULL cache needs a source that can load the whole table/);
  });
});

describe('NONE', () => {
  it('passes every distinct key on and counts them as misses', async () => {
    const source = recordingSource(rows());
    const cache = createCachedSource(source, { type: 'NONE' });
    await cache.lookupMany(ids(1, 1, 2));
    await cache.lookupMany(ids(1));
    expect(source.calls).toEqual([ids(1, 2), ids(1)]);
    expect(cache.metrics()).toMatchObject({ hits: 0, misses: 3, loads: 2, hitRate: 0 });
  });
});
