/**
 * The in-memory keyed state backend: Flink's HashMapStateBackend for Flambda. One
 * {@link MemoryStateStore} serves one operator instance (one shard of one operator).
 *
 * Layout, chosen for the per-record path:
 * - ValueState: `Map<key, value>`, so `get`/`put` are one Map lookup and allocate nothing.
 * - MapState: `Map<key, Map<subKey, value>>`.
 * - SortedMapState: `Map<key, BTree<subKey, value>>` ordered by UTF-16 code units, the order
 *   DynamoDB uses for string sort keys, so sub-key encodings behave the same on both backends.
 *
 * Idle-state retention follows Flink's StateTtlConfig: an entry's timestamp is refreshed on
 * create and write (OnCreateAndWrite) and, with `updateOnRead`, on read too (OnReadAndWrite);
 * expired entries are never returned (NeverReturnExpired). Like Flink's heap backend, expired
 * entries are removed lazily when touched, plus explicitly by {@link MemoryStateStore.purgeExpired}
 * (Flink's full-snapshot / incremental cleanup). TTL uses processing time from an injected clock.
 *
 * Values are kept by reference, as in Flink's heap backend: an operator that mutates a value it
 * got must still `put` it back, which is what the DynamoDB backend needs to mark it dirty.
 */
import { BTree, seekPair, walkSorted } from './btree.ts';
import { FlambdaError, PlanError } from '../core/errors.ts';
import type {
  KeyedStateStore,
  MapState,
  SortedMapState,
  StateOptions,
  StateTtlConfig,
  ValueState,
} from './state.ts';

type SubKeyTree = InstanceType<typeof BTree<string, unknown>>;

/** A processing-time clock in epoch milliseconds; injected so tests control TTL. */
export type Clock = () => number;

/** The three kinds of keyed state. */
export type StateKind = 'value' | 'map' | 'sorted-map';

/** One ValueState entry in a snapshot; `lastAccess` is present exactly when the state has TTL. */
export type ValueEntrySnapshot = readonly [key: string, value: unknown, lastAccess?: number];

/** One MapState / SortedMapState entry in a snapshot; `lastAccess` present exactly with TTL. */
export type MapEntrySnapshot = readonly [key: string, subKey: string, value: unknown, lastAccess?: number];

/** The snapshot of one declared state. */
export type StateTableSnapshot =
  | {
      readonly name: string;
      readonly kind: 'value';
      readonly ttl?: StateTtlConfig;
      readonly entries: readonly ValueEntrySnapshot[];
    }
  | {
      readonly name: string;
      readonly kind: 'map' | 'sorted-map';
      readonly ttl?: StateTtlConfig;
      readonly entries: readonly MapEntrySnapshot[];
    };

/**
 * A point-in-time copy of a store. Plain data that survives `structuredClone` (values may hold
 * bigint, so JSON is not guaranteed). Expired-but-unpurged entries are kept with their
 * timestamps so a restored store behaves exactly like the original.
 */
export interface StateSnapshot {
  readonly format: 'flambda.memory-state.v1';
  readonly tables: readonly StateTableSnapshot[];
}

/** Access counters of a store, for benchmarks and metrics. */
export interface StateStats {
  /** Calls that read state: `get`, `size`, `first`, `last` and each iteration started. */
  readonly reads: number;
  /** Calls that change state: `put`, `delete`, `clear`. */
  readonly writes: number;
  /** Entries removed because their TTL elapsed (lazily or by `purgeExpired`). */
  readonly expired: number;
  /** Entries currently stored, including expired ones not yet removed. */
  readonly entries: number;
}

/** Mutable counters shared by all states of one store; plain fields so bumping them is cheap. */
interface Counters {
  reads: number;
  writes: number;
  expired: number;
}

/** A stored value plus its last access time; mutated in place on refresh to avoid allocation. */
interface TtlCell {
  value: unknown;
  lastAccess: number;
}

/** What the store needs from each declared state, whatever its kind. */
interface StateTable {
  readonly name: string;
  readonly kind: StateKind;
  readonly ttl: StateTtlConfig | undefined;
  snapshot(): StateTableSnapshot;
  load(table: StateTableSnapshot): void;
  purgeExpired(now: number): number;
  entryCount(): number;
}

/** The minimal map interface shared by `Map` and `BTree`, so MapState logic is written once. */
interface SubMap {
  get(subKey: string): unknown;
  set(subKey: string, value: unknown): unknown;
  delete(subKey: string): boolean;
  readonly size: number;
  entries(): IterableIterator<[string, unknown]>;
}

/** UTF-16 code unit order, which is what `<` on strings compares (and DynamoDB sorts by). */
function compareUtf16(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function validateTtl(name: string, ttl: StateTtlConfig | undefined): void {
  if (ttl !== undefined && !(Number.isFinite(ttl.ttlMs) && ttl.ttlMs > 0)) {
    throw new PlanError(`State '${name}': TTL must be a positive finite number of ms, got ${ttl.ttlMs}`);
  }
}

function sameTtl(a: StateTtlConfig | undefined, b: StateTtlConfig | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.ttlMs === b.ttlMs && (a.updateOnRead === true) === (b.updateOnRead === true);
}

function copyTtl(ttl: StateTtlConfig | undefined): StateTtlConfig | undefined {
  return ttl === undefined ? undefined : { ttlMs: ttl.ttlMs, updateOnRead: ttl.updateOnRead === true };
}

function corrupt(name: string, detail: string): FlambdaError {
  return new FlambdaError(`State snapshot of '${name}' is malformed: ${detail}`, 'internal', 'fail');
}

/** TTL bookkeeping shared by all state kinds. */
abstract class TableBase {
  protected readonly hasTtl: boolean;
  protected readonly ttlMs: number;
  protected readonly refreshOnRead: boolean;

  constructor(
    readonly name: string,
    readonly ttl: StateTtlConfig | undefined,
    protected readonly clock: Clock,
    protected readonly counters: Counters,
  ) {
    this.hasTtl = ttl !== undefined;
    this.ttlMs = ttl?.ttlMs ?? 0;
    this.refreshOnRead = ttl?.updateOnRead === true;
  }

  /** Flink's TtlUtils.expired: expired once `lastAccess + ttl <= now`. */
  protected isExpired(cell: TtlCell, now: number): boolean {
    return cell.lastAccess + this.ttlMs <= now;
  }

  protected readLastAccess(value: number | undefined, where: string): number {
    if (typeof value !== 'number') throw corrupt(this.name, `${where} has no TTL timestamp`);
    return value;
  }
}

/** ValueState: one value (or TTL cell) per key. */
class MemoryValueState<T> extends TableBase implements ValueState<T>, StateTable {
  readonly kind = 'value';
  private readonly data = new Map<string, unknown>();

  get(key: string): T | undefined {
    this.counters.reads++;
    const stored = this.data.get(key);
    if (!this.hasTtl || stored === undefined) return stored as T | undefined;
    const cell = stored as TtlCell;
    const now = this.clock();
    if (this.isExpired(cell, now)) {
      this.data.delete(key);
      this.counters.expired++;
      return undefined;
    }
    if (this.refreshOnRead) cell.lastAccess = now;
    return cell.value as T;
  }

  put(key: string, value: T): void {
    // `undefined` means absent on read, so storing it is a delete (as Flink's update(null)).
    if (value === undefined) {
      this.delete(key);
      return;
    }
    this.counters.writes++;
    if (!this.hasTtl) {
      this.data.set(key, value);
      return;
    }
    const now = this.clock();
    const cell = this.data.get(key) as TtlCell | undefined;
    if (cell === undefined) {
      this.data.set(key, { value, lastAccess: now });
    } else {
      cell.value = value;
      cell.lastAccess = now;
    }
  }

  delete(key: string): void {
    this.counters.writes++;
    this.data.delete(key);
  }

  snapshot(): StateTableSnapshot {
    const entries: ValueEntrySnapshot[] = [];
    for (const [key, stored] of this.data) {
      if (this.hasTtl) {
        const cell = stored as TtlCell;
        entries.push([key, cell.value, cell.lastAccess]);
      } else {
        entries.push([key, stored]);
      }
    }
    return { name: this.name, kind: 'value', ttl: copyTtl(this.ttl), entries };
  }

  load(table: StateTableSnapshot): void {
    for (const entry of table.entries as readonly ValueEntrySnapshot[]) {
      const [key, value, lastAccess] = entry;
      this.data.set(key, this.hasTtl ? { value, lastAccess: this.readLastAccess(lastAccess, `key '${key}'`) } : value);
    }
  }

  purgeExpired(now: number): number {
    if (!this.hasTtl) return 0;
    let removed = 0;
    for (const [key, stored] of this.data) {
      if (this.isExpired(stored as TtlCell, now)) {
        this.data.delete(key);
        removed++;
      }
    }
    this.counters.expired += removed;
    return removed;
  }

  entryCount(): number {
    return this.data.size;
  }
}

/**
 * MapState over any {@link SubMap}. Flink keeps TTL per map entry (TtlMapState), so each
 * sub-key carries its own timestamp. Empty per-key maps are dropped so memory follows live keys.
 */
abstract class MapTableBase<V> extends TableBase implements MapState<V>, StateTable {
  abstract readonly kind: 'map' | 'sorted-map';
  protected readonly data = new Map<string, SubMap>();

  protected abstract newSubMap(): SubMap;

  get(key: string, mapKey: string): V | undefined {
    this.counters.reads++;
    const map = this.data.get(key);
    if (map === undefined) return undefined;
    const stored = map.get(mapKey);
    if (!this.hasTtl || stored === undefined) return stored as V | undefined;
    const cell = stored as TtlCell;
    const now = this.clock();
    if (this.isExpired(cell, now)) {
      this.removeExpired(key, map, mapKey);
      return undefined;
    }
    if (this.refreshOnRead) cell.lastAccess = now;
    return cell.value as V;
  }

  put(key: string, mapKey: string, value: V): void {
    if (value === undefined) {
      this.delete(key, mapKey);
      return;
    }
    this.counters.writes++;
    let map = this.data.get(key);
    if (map === undefined) {
      map = this.newSubMap();
      this.data.set(key, map);
    }
    if (!this.hasTtl) {
      map.set(mapKey, value);
      return;
    }
    const now = this.clock();
    const cell = map.get(mapKey) as TtlCell | undefined;
    if (cell === undefined) {
      map.set(mapKey, { value, lastAccess: now });
    } else {
      cell.value = value;
      cell.lastAccess = now;
    }
  }

  delete(key: string, mapKey: string): void {
    this.counters.writes++;
    const map = this.data.get(key);
    if (map === undefined) return;
    map.delete(mapKey);
    if (map.size === 0) this.data.delete(key);
  }

  entries(key: string): IterableIterator<[string, V]> {
    this.counters.reads++;
    return this.iterate(key);
  }

  size(key: string): number {
    this.counters.reads++;
    const map = this.data.get(key);
    if (map === undefined) return 0;
    if (this.hasTtl) {
      this.purgeMap(key, map, this.clock());
      if (map.size === 0) return 0;
    }
    return map.size;
  }

  clear(key: string): void {
    this.counters.writes++;
    this.data.delete(key);
  }

  /**
   * Unordered iteration straight over the per-key Map. Deleting entries while iterating is safe
   * (JS Map iteration tolerates it); entries added meanwhile may or may not be visited.
   */
  protected *iterate(key: string): IterableIterator<[string, V]> {
    const map = this.data.get(key);
    if (map === undefined) return;
    if (!this.hasTtl) {
      yield* map.entries() as IterableIterator<[string, V]>;
      return;
    }
    const now = this.clock();
    for (const [mapKey, stored] of map.entries()) {
      const cell = stored as TtlCell;
      if (this.isExpired(cell, now)) {
        this.removeExpired(key, map, mapKey);
        continue;
      }
      // Flink's TtlMapState iterator refreshes each entry it returns under OnReadAndWrite.
      if (this.refreshOnRead) cell.lastAccess = now;
      yield [mapKey, cell.value as V];
    }
  }

  protected removeExpired(key: string, map: SubMap, mapKey: string): void {
    map.delete(mapKey);
    this.counters.expired++;
    if (map.size === 0 && this.data.get(key) === map) this.data.delete(key);
  }

  private purgeMap(key: string, map: SubMap, now: number): number {
    const expiredKeys: string[] = [];
    for (const [mapKey, stored] of map.entries()) {
      if (this.isExpired(stored as TtlCell, now)) expiredKeys.push(mapKey);
    }
    for (const mapKey of expiredKeys) this.removeExpired(key, map, mapKey);
    return expiredKeys.length;
  }

  snapshot(): StateTableSnapshot {
    const entries: MapEntrySnapshot[] = [];
    for (const [key, map] of this.data) {
      for (const [mapKey, stored] of map.entries()) {
        if (this.hasTtl) {
          const cell = stored as TtlCell;
          entries.push([key, mapKey, cell.value, cell.lastAccess]);
        } else {
          entries.push([key, mapKey, stored]);
        }
      }
    }
    return { name: this.name, kind: this.kind, ttl: copyTtl(this.ttl), entries };
  }

  load(table: StateTableSnapshot): void {
    for (const entry of table.entries as readonly MapEntrySnapshot[]) {
      const [key, mapKey, value, lastAccess] = entry;
      let map = this.data.get(key);
      if (map === undefined) {
        map = this.newSubMap();
        this.data.set(key, map);
      }
      const where = `key '${key}' sub-key '${mapKey}'`;
      map.set(mapKey, this.hasTtl ? { value, lastAccess: this.readLastAccess(lastAccess, where) } : value);
    }
  }

  purgeExpired(now: number): number {
    if (!this.hasTtl) return 0;
    let removed = 0;
    // Deleting from a Map while iterating it is safe in JS, so no copy is needed.
    for (const [key, map] of this.data) removed += this.purgeMap(key, map, now);
    return removed;
  }

  entryCount(): number {
    let count = 0;
    for (const map of this.data.values()) count += map.size;
    return count;
  }
}

/** MapState backed by a `Map` per key. */
class MemoryMapState<V> extends MapTableBase<V> {
  readonly kind = 'map';

  protected newSubMap(): SubMap {
    return new Map<string, unknown>();
  }
}

/**
 * SortedMapState backed by a B+ tree per key. Iteration is cursor-based (each step re-seeks
 * strictly past the last returned sub-key), so operators may insert or delete while iterating
 * — e.g. a Top-N evicting the tail — and still see a consistent ordered walk.
 */
class MemorySortedMapState<V> extends MapTableBase<V> implements SortedMapState<V> {
  readonly kind = 'sorted-map';

  protected newSubMap(): SubMap {
    return new BTree<string, unknown>(undefined, compareUtf16);
  }

  ascending(key: string, fromKey?: string): IterableIterator<[string, V]> {
    this.counters.reads++;
    return this.walk(key, fromKey, false);
  }

  descending(key: string, fromKey?: string): IterableIterator<[string, V]> {
    this.counters.reads++;
    return this.walk(key, fromKey, true);
  }

  first(key: string): [string, V] | undefined {
    this.counters.reads++;
    return this.seek(key, undefined, false, true);
  }

  last(key: string): [string, V] | undefined {
    this.counters.reads++;
    return this.seek(key, undefined, true, true);
  }

  protected override iterate(key: string): IterableIterator<[string, V]> {
    return this.walk(key, undefined, false);
  }

  private walk(key: string, fromKey: string | undefined, descending: boolean): IterableIterator<[string, V]> {
    return walkSorted((from, inclusive) => this.seek(key, from, descending, inclusive), fromKey);
  }

  /**
   * The first live entry at or beyond `from` (beyond only, when not `inclusive`) in the given
   * direction; removes expired entries it passes over. Returns a fresh pair.
   */
  private seek(
    key: string,
    from: string | undefined,
    descending: boolean,
    inclusive: boolean,
  ): [string, V] | undefined {
    // Re-fetch the tree on every step: it may have been dropped and recreated meanwhile.
    const tree = this.data.get(key) as SubKeyTree | undefined;
    if (tree === undefined) return undefined;
    let pair = seekPair(tree, from, descending, inclusive);
    if (!this.hasTtl) return pair as [string, V] | undefined;
    const now = this.clock();
    while (pair !== undefined) {
      const cell = pair[1] as TtlCell;
      if (!this.isExpired(cell, now)) {
        if (this.refreshOnRead) cell.lastAccess = now;
        return [pair[0], cell.value as V];
      }
      const expiredKey = pair[0];
      this.removeExpired(key, tree, expiredKey);
      pair = descending ? tree.nextLowerPair(expiredKey) : tree.nextHigherPair(expiredKey);
    }
    return undefined;
  }
}

type TableConstructor = new (
  name: string,
  ttl: StateTtlConfig | undefined,
  clock: Clock,
  counters: Counters,
) => StateTable;

const TABLE_CLASSES: Record<StateKind, TableConstructor> = {
  value: MemoryValueState,
  map: MemoryMapState,
  'sorted-map': MemorySortedMapState,
};

/**
 * Keyed state of one operator instance, held in memory. States are declared by name (usually
 * in `Operator.open`); declaring the same name again returns the same state, as Flink's
 * `getState(descriptor)` does.
 */
export class MemoryStateStore implements KeyedStateStore {
  private readonly tables = new Map<string, StateTable>();
  /** Restored tables not declared yet; kept (and re-snapshotted) until the operator asks. */
  private readonly pending = new Map<string, StateTableSnapshot>();
  private readonly counters: Counters = { reads: 0, writes: 0, expired: 0 };

  /** @param clock processing-time source for TTL; `Date.now` by default. */
  constructor(private readonly clock: Clock = Date.now) {}

  /**
   * Rebuilds a store from {@link MemoryStateStore.snapshot} output. States come back with their
   * entries and TTL timestamps once the operator declares them again.
   */
  static restore(snapshot: StateSnapshot, clock: Clock = Date.now): MemoryStateStore {
    if (snapshot.format !== 'flambda.memory-state.v1') {
      throw new PlanError(`Unsupported state snapshot format '${String(snapshot.format)}'`);
    }
    const store = new MemoryStateStore(clock);
    // Copy so that restoring twice from one snapshot yields independent stores.
    for (const table of structuredClone(snapshot.tables)) {
      if (store.pending.has(table.name)) throw corrupt(table.name, 'the state appears twice');
      store.pending.set(table.name, table);
    }
    return store;
  }

  /** Declares (or returns the already declared) ValueState `name`. */
  valueState<T>(name: string, options?: StateOptions): ValueState<T> {
    return this.declare(name, 'value', options) as MemoryValueState<T>;
  }

  /** Declares (or returns the already declared) MapState `name`. */
  mapState<V>(name: string, options?: StateOptions): MapState<V> {
    return this.declare(name, 'map', options) as MemoryMapState<V>;
  }

  /** Declares (or returns the already declared) SortedMapState `name`. */
  sortedMapState<V>(name: string, options?: StateOptions): SortedMapState<V> {
    return this.declare(name, 'sorted-map', options) as MemorySortedMapState<V>;
  }

  /** Everything is already in memory, so there is nothing to load. */
  prefetch(_keys: Iterable<string>): void {}

  /** Removes every expired entry of every TTL state now; returns how many were removed. */
  purgeExpired(): number {
    const now = this.clock();
    let removed = 0;
    for (const table of this.tables.values()) removed += table.purgeExpired(now);
    return removed;
  }

  /** A deep, structuredClone-able copy of all state, including restored but undeclared states. */
  snapshot(): StateSnapshot {
    const tables: StateTableSnapshot[] = [];
    for (const table of this.tables.values()) tables.push(table.snapshot());
    for (const table of this.pending.values()) tables.push(table);
    // Deep-copy values so later in-place mutation by the operator cannot leak into the snapshot.
    return structuredClone({ format: 'flambda.memory-state.v1', tables });
  }

  /** Access counters since creation or the last {@link MemoryStateStore.resetStats}. */
  stats(): StateStats {
    let entries = 0;
    for (const table of this.tables.values()) entries += table.entryCount();
    for (const table of this.pending.values()) entries += table.entries.length;
    return { reads: this.counters.reads, writes: this.counters.writes, expired: this.counters.expired, entries };
  }

  /** Zeroes the read, write and expired counters (e.g. between benchmark phases). */
  resetStats(): void {
    this.counters.reads = 0;
    this.counters.writes = 0;
    this.counters.expired = 0;
  }

  private declare(name: string, kind: StateKind, options: StateOptions | undefined): StateTable {
    const ttl = options?.ttl;
    const existing = this.tables.get(name);
    if (existing !== undefined) {
      if (existing.kind !== kind || !sameTtl(existing.ttl, ttl)) {
        throw new FlambdaError(
          `State '${name}' is already declared as ${existing.kind} state with different options`,
          'internal',
          'fail',
        );
      }
      return existing;
    }
    validateTtl(name, ttl);
    const table = new TABLE_CLASSES[kind](name, copyTtl(ttl), this.clock, this.counters);
    const restored = this.pending.get(name);
    if (restored !== undefined) {
      if (restored.kind !== kind) {
        throw new PlanError(`State '${name}' was saved as ${restored.kind} state but is declared as ${kind} state`);
      }
      // Flink refuses to switch TTL on or off across a restore (StateMigrationException);
      // changing the duration is fine because entries store last-access times, not deadlines.
      if ((restored.ttl === undefined) !== (ttl === undefined)) {
        throw new PlanError(
          `State '${name}' was saved ${restored.ttl === undefined ? 'without' : 'with'} TTL and cannot be ` +
            `restored ${ttl === undefined ? 'without' : 'with'} it`,
        );
      }
      table.load(restored);
      this.pending.delete(name);
    }
    this.tables.set(name, table);
    return table;
  }
}
