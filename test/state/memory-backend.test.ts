import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { FlambdaError, PlanError } from '../../shared/core/errors.ts';
import { MemoryStateStore } from '../../shared/state/memory-backend.ts';
import type { StateSnapshot } from '../../shared/state/memory-backend.ts';

/** A clock the test moves by hand. */
function manualClock(start = 0): { now: number; clock: () => number } {
  const c = { now: start, clock: () => c.now };
  return c;
}

describe('MemoryStateStore value state', () => {
  it('stores one value per key and state name', () => {
    const store = new MemoryStateStore();
    const a = store.valueState<number>('a');
    const b = store.valueState<number>('b');
    a.put('k1', 1);
    a.put('k2', 2);
    b.put('k1', 10);
    expect(a.get('k1')).toBe(1);
    expect(a.get('k2')).toBe(2);
    expect(b.get('k1')).toBe(10);
    expect(b.get('k2')).toBeUndefined();
    a.delete('k1');
    expect(a.get('k1')).toBeUndefined();
    expect(a.get('k2')).toBe(2);
  });

  it('keeps null as a value and treats putting undefined as delete', () => {
    const store = new MemoryStateStore();
    const s = store.valueState<number | null | undefined>('s');
    s.put('k', null);
    expect(s.get('k')).toBeNull();
    s.put('k', undefined);
    expect(s.get('k')).toBeUndefined();
    expect(store.stats().entries).toBe(0);
  });

  it('returns the same state when declared twice with the same options', () => {
    const store = new MemoryStateStore();
    const first = store.valueState<number>('s', { ttl: { ttlMs: 5 } });
    first.put('k', 1);
    const again = store.valueState<number>('s', { ttl: { ttlMs: 5, updateOnRead: false } });
    expect(again).toBe(first);
  });

  it('rejects redeclaring a name with another kind or TTL', () => {
    const store = new MemoryStateStore();
    store.valueState('s');
    expect(() => store.mapState('s')).toThrow(FlambdaError);
    expect(() => store.valueState('s', { ttl: { ttlMs: 1 } })).toThrow(/different options/);
  });

  it('rejects a non-positive TTL', () => {
    const store = new MemoryStateStore();
    expect(() => store.valueState('s', { ttl: { ttlMs: 0 } })).toThrow(PlanError);
    expect(() => store.mapState('m', { ttl: { ttlMs: Number.NaN } })).toThrow(PlanError);
  });

  it('prefetch is a no-op', () => {
    const store = new MemoryStateStore();
    expect(store.prefetch(['a', 'b'])).toBeUndefined();
  });
});

describe('MemoryStateStore map state', () => {
  it('supports get, put, delete, entries, size and clear per key', () => {
    const store = new MemoryStateStore();
    const m = store.mapState<string>('m');
    m.put('k', 'x', 'X');
    m.put('k', 'y', 'Y');
    m.put('other', 'x', 'O');
    expect(m.get('k', 'x')).toBe('X');
    expect(m.size('k')).toBe(2);
    expect(new Map(m.entries('k'))).toEqual(new Map([['x', 'X'], ['y', 'Y']]));
    m.delete('k', 'x');
    expect(m.get('k', 'x')).toBeUndefined();
    expect([...m.entries('k')]).toEqual([['y', 'Y']]);
    m.clear('k');
    expect(m.size('k')).toBe(0);
    expect([...m.entries('k')]).toEqual([]);
    expect(m.get('other', 'x')).toBe('O');
  });

  it('drops a key whose map becomes empty', () => {
    const store = new MemoryStateStore();
    const m = store.mapState<number>('m');
    m.put('k', 'a', 1);
    m.delete('k', 'a');
    expect(store.stats().entries).toBe(0);
    expect(store.snapshot().tables[0]?.entries).toEqual([]);
  });

  it('tolerates deleting entries while iterating', () => {
    const store = new MemoryStateStore();
    const m = store.mapState<number>('m');
    for (let i = 0; i < 10; i++) m.put('k', `s${i}`, i);
    const seen: number[] = [];
    for (const [sub, v] of m.entries('k')) {
      seen.push(v);
      m.delete('k', sub);
    }
    expect(seen.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(m.size('k')).toBe(0);
  });
});

describe('MemoryStateStore sorted map state', () => {
  function filled(): ReturnType<MemoryStateStore['sortedMapState']> {
    const store = new MemoryStateStore();
    const s = store.sortedMapState<number>('s');
    for (const [k, v] of [['b', 2], ['d', 4], ['a', 1], ['c', 3]] as const) s.put('key', k, v);
    return s;
  }

  it('iterates in ascending and descending sub-key order', () => {
    const s = filled();
    expect([...s.ascending('key')].map(([k]) => k)).toEqual(['a', 'b', 'c', 'd']);
    expect([...s.descending('key')].map(([k]) => k)).toEqual(['d', 'c', 'b', 'a']);
    expect([...s.entries('key')].map(([k]) => k)).toEqual(['a', 'b', 'c', 'd']);
    expect(s.first('key')).toEqual(['a', 1]);
    expect(s.last('key')).toEqual(['d', 4]);
    expect(s.first('missing')).toBeUndefined();
    expect([...s.ascending('missing')]).toEqual([]);
  });

  it('starts from fromKey inclusive, or the next entry when fromKey is absent', () => {
    const s = filled();
    expect([...s.ascending('key', 'b')].map(([k]) => k)).toEqual(['b', 'c', 'd']);
    expect([...s.ascending('key', 'bb')].map(([k]) => k)).toEqual(['c', 'd']);
    expect([...s.descending('key', 'c')].map(([k]) => k)).toEqual(['c', 'b', 'a']);
    expect([...s.descending('key', 'bb')].map(([k]) => k)).toEqual(['b', 'a']);
    expect([...s.ascending('key', 'z')]).toEqual([]);
    expect([...s.descending('key', '0')]).toEqual([]);
  });

  it('orders by UTF-16 code units, as DynamoDB sort keys', () => {
    const store = new MemoryStateStore();
    const s = store.sortedMapState<number>('s');
    // Code point order would put U+1F600 after U+FFFF; UTF-16 puts its high surrogate first.
    const subKeys = ['\uFFFF', '\u{1F600}', 'a', 'Z', '', 'ab'];
    subKeys.forEach((k, i) => s.put('key', k, i));
    expect([...s.ascending('key')].map(([k]) => k)).toEqual(['', 'Z', 'a', 'ab', '\u{1F600}', '\uFFFF']);
  });

  it('sees deletions and insertions made during iteration', () => {
    const s = filled();
    const seen: string[] = [];
    for (const [k] of s.ascending('key')) {
      seen.push(k);
      if (k === 'a') {
        s.delete('key', 'b');
        s.put('key', 'bb', 22);
      }
    }
    expect(seen).toEqual(['a', 'bb', 'c', 'd']);
    // Top-N style eviction of the tail while walking backwards.
    for (const [k] of s.descending('key')) if (k > 'bb') s.delete('key', k);
    expect([...s.ascending('key')]).toEqual([['a', 1], ['bb', 22]]);
  });

  it('behaves like a sorted reference model under random operations', () => {
    const keys = fc.constantFrom('k1', 'k2');
    // Include surrogates and high BMP characters so UTF-16 order is exercised.
    const subKeys = fc.string({ maxLength: 3, unit: fc.constantFrom('a', 'b', 'Z', '\uD83D', '\uDE00', '\uFFFF') });
    const op = fc.oneof(
      fc.record({ type: fc.constant('put' as const), key: keys, sub: subKeys, value: fc.integer() }),
      fc.record({ type: fc.constant('delete' as const), key: keys, sub: subKeys }),
      fc.record({ type: fc.constant('clear' as const), key: fc.constantFrom('k1', 'k2') }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), subKeys, (ops, from) => {
        const store = new MemoryStateStore();
        const s = store.sortedMapState<number>('s');
        const model = new Map<string, Map<string, number>>();
        for (const o of ops) {
          const m = model.get(o.key) ?? new Map<string, number>();
          model.set(o.key, m);
          if (o.type === 'put') {
            s.put(o.key, o.sub, o.value);
            m.set(o.sub, o.value);
          } else if (o.type === 'delete') {
            s.delete(o.key, o.sub);
            m.delete(o.sub);
          } else {
            s.clear(o.key);
            m.clear();
          }
        }
        for (const key of ['k1', 'k2']) {
          const entries = [...(model.get(key) ?? new Map<string, number>())];
          const expected = entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
          expect([...s.ascending(key)]).toEqual(expected);
          expect([...s.descending(key)]).toEqual([...expected].reverse());
          expect([...s.ascending(key, from)]).toEqual(expected.filter(([k]) => k >= from));
          expect([...s.descending(key, from)]).toEqual([...expected].reverse().filter(([k]) => k <= from));
          expect(s.size(key)).toBe(expected.length);
          expect(s.first(key)).toEqual(expected[0]);
          expect(s.last(key)).toEqual(expected[expected.length - 1]);
        }
      }),
    );
  });
});

describe('MemoryStateStore TTL', () => {
  it('expires a value ttlMs after its last write (OnCreateAndWrite), reads do not refresh', () => {
    const t = manualClock(1000);
    const store = new MemoryStateStore(t.clock);
    const s = store.valueState<string>('s', { ttl: { ttlMs: 100 } });
    s.put('k', 'v');
    t.now = 1050;
    expect(s.get('k')).toBe('v');
    t.now = 1099;
    expect(s.get('k')).toBe('v');
    // Flink: expired once lastAccess + ttl <= now.
    t.now = 1100;
    expect(s.get('k')).toBeUndefined();
    expect(store.stats().expired).toBe(1);
    expect(store.stats().entries).toBe(0);
  });

  it('refreshes the timestamp on write', () => {
    const t = manualClock();
    const store = new MemoryStateStore(t.clock);
    const s = store.valueState<number>('s', { ttl: { ttlMs: 100 } });
    s.put('k', 1);
    t.now = 80;
    s.put('k', 2);
    t.now = 179;
    expect(s.get('k')).toBe(2);
    t.now = 180;
    expect(s.get('k')).toBeUndefined();
  });

  it('refreshes on read with updateOnRead (OnReadAndWrite)', () => {
    const t = manualClock();
    const store = new MemoryStateStore(t.clock);
    const s = store.valueState<number>('s', { ttl: { ttlMs: 100, updateOnRead: true } });
    s.put('k', 1);
    t.now = 90;
    expect(s.get('k')).toBe(1);
    t.now = 180;
    expect(s.get('k')).toBe(1);
    t.now = 280;
    expect(s.get('k')).toBeUndefined();
  });

  it('keeps a timestamp per map entry and never returns expired entries', () => {
    const t = manualClock();
    const store = new MemoryStateStore(t.clock);
    const m = store.mapState<number>('m', { ttl: { ttlMs: 10 } });
    m.put('k', 'old', 1);
    t.now = 5;
    m.put('k', 'new', 2);
    t.now = 10;
    expect(m.get('k', 'old')).toBeUndefined();
    expect(m.size('k')).toBe(1);
    expect([...m.entries('k')]).toEqual([['new', 2]]);
    t.now = 15;
    expect([...m.entries('k')]).toEqual([]);
    expect(m.size('k')).toBe(0);
    expect(store.stats()).toMatchObject({ expired: 2, entries: 0 });
  });

  it('refreshes map entries returned by iteration under updateOnRead', () => {
    const t = manualClock();
    const store = new MemoryStateStore(t.clock);
    const m = store.mapState<number>('m', { ttl: { ttlMs: 10, updateOnRead: true } });
    m.put('k', 'a', 1);
    m.put('k', 'b', 2);
    t.now = 9;
    expect([...m.entries('k')].length).toBe(2);
    t.now = 18;
    expect(m.get('k', 'a')).toBe(1);
    expect(m.get('k', 'b')).toBe(2);
  });

  it('skips and removes expired sorted entries in iteration, first and last', () => {
    const t = manualClock();
    const store = new MemoryStateStore(t.clock);
    const s = store.sortedMapState<number>('s', { ttl: { ttlMs: 10 } });
    s.put('k', 'a', 1);
    s.put('k', 'd', 4);
    t.now = 5;
    s.put('k', 'b', 2);
    s.put('k', 'c', 3);
    t.now = 10;
    expect(s.first('k')).toEqual(['b', 2]);
    expect(s.last('k')).toEqual(['c', 3]);
    expect([...s.ascending('k')]).toEqual([['b', 2], ['c', 3]]);
    expect([...s.descending('k', 'z')]).toEqual([['c', 3], ['b', 2]]);
    expect(store.stats().expired).toBe(2);
    t.now = 15;
    expect(s.first('k')).toBeUndefined();
    expect([...s.descending('k')]).toEqual([]);
    expect(store.stats().entries).toBe(0);
  });

  it('purgeExpired removes every expired entry of every state', () => {
    const t = manualClock();
    const store = new MemoryStateStore(t.clock);
    const v = store.valueState<number>('v', { ttl: { ttlMs: 10 } });
    const m = store.mapState<number>('m', { ttl: { ttlMs: 10 } });
    const s = store.sortedMapState<number>('s', { ttl: { ttlMs: 10 } });
    const forever = store.valueState<number>('forever');
    for (let i = 0; i < 3; i++) {
      v.put(`k${i}`, i);
      m.put(`k${i}`, 'x', i);
      s.put(`k${i}`, 'x', i);
      forever.put(`k${i}`, i);
    }
    t.now = 5;
    v.put('k0', 100);
    t.now = 10;
    expect(store.stats().entries).toBe(12);
    expect(store.purgeExpired()).toBe(8);
    expect(store.stats()).toMatchObject({ entries: 4, expired: 8 });
    expect(v.get('k0')).toBe(100);
    expect(forever.get('k2')).toBe(2);
  });
});

describe('MemoryStateStore stats', () => {
  it('counts reads and writes and can be reset', () => {
    const store = new MemoryStateStore();
    const v = store.valueState<number>('v');
    const s = store.sortedMapState<number>('s');
    v.put('k', 1);
    v.get('k');
    v.get('k');
    v.delete('k');
    s.put('k', 'a', 1);
    expect([...s.ascending('k')]).toHaveLength(1);
    s.first('k');
    s.size('k');
    expect(store.stats()).toEqual({ reads: 5, writes: 3, expired: 0, entries: 1 });
    store.resetStats();
    expect(store.stats()).toEqual({ reads: 0, writes: 0, expired: 0, entries: 1 });
  });
});

describe('MemoryStateStore snapshot and restore', () => {
  function populate(store: MemoryStateStore): void {
    store.valueState<unknown>('v').put('k', { total: 12n, items: ['a', null], ok: true });
    store.valueState<number>('ttl', { ttl: { ttlMs: 100 } }).put('k', 7);
    store.mapState<number>('m').put('k', 'x', 1);
    const s = store.sortedMapState<string>('s', { ttl: { ttlMs: 50, updateOnRead: true } });
    s.put('k', 'b', 'B');
    s.put('k', 'a', 'A');
  }

  function declare(store: MemoryStateStore) {
    return {
      v: store.valueState<unknown>('v'),
      ttl: store.valueState<number>('ttl', { ttl: { ttlMs: 100 } }),
      m: store.mapState<number>('m'),
      s: store.sortedMapState<string>('s', { ttl: { ttlMs: 50, updateOnRead: true } }),
    };
  }

  it('restores all kinds of state, surviving structuredClone (bigint included)', () => {
    const t = manualClock(0);
    const store = new MemoryStateStore(t.clock);
    populate(store);
    const snapshot = structuredClone(store.snapshot());
    const restored = declare(MemoryStateStore.restore(snapshot, t.clock));
    expect(restored.v.get('k')).toEqual({ total: 12n, items: ['a', null], ok: true });
    expect(restored.ttl.get('k')).toBe(7);
    expect([...restored.m.entries('k')]).toEqual([['x', 1]]);
    expect([...restored.s.ascending('k')]).toEqual([['a', 'A'], ['b', 'B']]);
  });

  it('keeps TTL timestamps, so a restored store expires entries at the same time', () => {
    const t = manualClock(0);
    const store = new MemoryStateStore(t.clock);
    populate(store);
    t.now = 40;
    const snapshot = store.snapshot();
    const restored = declare(MemoryStateStore.restore(snapshot, t.clock));
    const original = declare(store);
    for (const now of [49, 99, 100]) {
      t.now = now;
      expect(restored.ttl.get('k')).toBe(original.ttl.get('k'));
      expect([...restored.s.ascending('k')]).toEqual([...original.s.ascending('k')]);
    }
    expect(restored.ttl.get('k')).toBeUndefined();
  });

  it('takes a deep copy: later mutation does not change the snapshot, restores are independent', () => {
    const store = new MemoryStateStore();
    const v = store.valueState<{ n: number }>('v');
    const value = { n: 1 };
    v.put('k', value);
    const snapshot = store.snapshot();
    value.n = 2;
    const r1 = MemoryStateStore.restore(snapshot).valueState<{ n: number }>('v');
    const r2 = MemoryStateStore.restore(snapshot).valueState<{ n: number }>('v');
    expect(r1.get('k')).toEqual({ n: 1 });
    (r1.get('k') as { n: number }).n = 3;
    expect(r2.get('k')).toEqual({ n: 1 });
  });

  it('carries states not declared after restore into the next snapshot', () => {
    const store = new MemoryStateStore();
    store.valueState<number>('kept').put('k', 1);
    store.valueState<number>('used').put('k', 2);
    const restored = MemoryStateStore.restore(store.snapshot());
    restored.valueState<number>('used').put('k', 3);
    expect(restored.stats().entries).toBe(2);
    const again = MemoryStateStore.restore(restored.snapshot());
    expect(again.valueState<number>('kept').get('k')).toBe(1);
    expect(again.valueState<number>('used').get('k')).toBe(3);
  });

  it('rejects a kind change and switching TTL on or off, but allows a new TTL duration', () => {
    const store = new MemoryStateStore();
    store.valueState<number>('plain').put('k', 1);
    store.valueState<number>('timed', { ttl: { ttlMs: 10 } }).put('k', 1);
    const snapshot = store.snapshot();
    expect(() => MemoryStateStore.restore(snapshot).mapState('plain')).toThrow(PlanError);
    expect(() => MemoryStateStore.restore(snapshot).valueState('plain', { ttl: { ttlMs: 5 } })).toThrow(/TTL/);
    expect(() => MemoryStateStore.restore(snapshot).valueState('timed')).toThrow(/TTL/);
    const t = manualClock(0);
    const longer = MemoryStateStore.restore(snapshot, t.clock).valueState<number>('timed', { ttl: { ttlMs: 1000 } });
    t.now = 500;
    expect(longer.get('k')).toBe(1);
  });

  it('rejects an unknown snapshot format', () => {
    const bogus = { format: 'nope', tables: [] } as unknown as StateSnapshot;
    expect(() => MemoryStateStore.restore(bogus)).toThrow(PlanError);
  });
});
