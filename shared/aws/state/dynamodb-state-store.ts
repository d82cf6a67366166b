/**
 * The DynamoDB keyed state backend: one {@link DynamoDbStateStore} per operator instance on one
 * shard, over a single table shared by every operator of a pipeline (the target design's §4
 * "State in DynamoDB"; docs/architecture.md describes it as built).
 *
 * Items: partition key `<operatorId>#<keyGroup>#<encoded key>`, sort key `<state>` or
 * `<state>#<sub-key>` (item-keys.ts); values as tagged JSON (value-codec.ts), split into chunk
 * items above DynamoDB's 400 KB item limit (item-codec.ts).
 *
 * Access follows the operator contract of shared/state/state.ts: the runtime awaits
 * `prefetch(keys)` once per batch, the operator then reads and writes synchronously, and the
 * runtime awaits `flush()` at the end of the batch.
 *
 * ```
 *  prefetch(keys) ── one strongly consistent Query per uncached key (all of this operator's
 *       │            states of that key), `readConcurrency` at a time; cached keys are hits
 *  get / put / delete / iterate ── served from the cache; writes mark entries dirty
 *       │
 *  flush() ── dirty entries → BatchWriteItem, 25 per call; then clean keys beyond the cache
 *             bounds are evicted, least recently prefetched first
 * ```
 *
 * The cache is bounded by key count and by an estimate of bytes (the size of each key's items
 * as last loaded or written). Only clean keys are evicted, and never a key prefetched since the
 * last flush: the batch in progress may still use it. A synchronous access to a key that is not
 * cached is a bug in the calling operator (it did not prefetch), so it throws rather than
 * reading as empty.
 *
 * TTL follows the memory backend (Flink's StateTtlConfig, OnCreateAndWrite / OnReadAndWrite,
 * NeverReturnExpired) on an injected clock. An entry of a TTL state stores its exact write time
 * (`wt`, epoch ms), from which expiry is decided on every read, plus an epoch-seconds expiry
 * attribute for DynamoDB TTL. DynamoDB deletes expired items only eventually ("typically
 * within a few days"), and an expired item it has not deleted yet is still returned by Query,
 * so an item is never trusted past `wt + ttl`. A refreshing read (`updateOnRead`) rewrites the
 * entry at the next flush, so the refreshed time survives eviction. Expired entries met on load
 * or on access are dropped and deleted at the next flush, so state stays bounded even where
 * DynamoDB TTL is not enabled on the table.
 */
import { BTree, seekPair, walkSorted } from '../../state/btree.ts';
import type { WriteRequest } from '@aws-sdk/client-dynamodb';
import { FlambdaError, PlanError } from '../../core/errors.ts';
import { DEFAULT_KEY_GROUPS, checkKeyGroups, keyGroupOf } from '../../partition/key-groups.ts';
import type { Clock } from '../../state/memory-backend.ts';
import type {
  KeyedStateStore,
  MapState,
  SortedMapState,
  StateOptions,
  StateTtlConfig,
  ValueState,
} from '../../state/state.ts';
import { forEachLimited, sleep as realSleep } from './concurrency.ts';
import { ATTR, DEFAULT_TTL_ATTRIBUTE } from './constants.ts';
import { buildEntryItems, deleteRequest, parseItems } from './item-codec.ts';
import type { Item, LoadedEntry, StoredInfo } from './item-codec.ts';
import { checkOperatorId, checkStateName, chunkSortKey, mapSortKey, partitionKey, valueSortKey } from './item-keys.ts';
import { batchWrite, newIoCounters, queryPartition } from './table-io.ts';
import type { BatchWriteOptions, DynamoDbSender, IoCounters } from './table-io.ts';
import { decodeValue, encodeValue } from './value-codec.ts';

type SubKeyTree = InstanceType<typeof BTree<string, unknown>>;

/** Options of {@link DynamoDbStateStore}. */
export interface DynamoDbStateStoreOptions {
  /** The DynamoDB client (see shared/aws/clients.ts `createDynamoDbClient`). */
  readonly client: DynamoDbSender;
  /** The pipeline's state table (partition key `pk`, sort key `sk`, both strings). */
  readonly tableName: string;
  /** The operator's id in the job graph; part of every partition key, so it must not hold `#`. */
  readonly operatorId: string;
  /** The job's key-group count (shared/partition/key-groups.ts). @default 256 */
  readonly keyGroups?: number;
  /** Processing-time clock for TTL, epoch ms. @default Date.now */
  readonly clock?: Clock;
  /** Name of the epoch-seconds attribute DynamoDB TTL is enabled on. @default 'ttl' */
  readonly ttlAttribute?: string;
  /** Most keys kept in the cache (dirty keys and the current batch's keys may exceed it). @default 10000 */
  readonly maxCachedKeys?: number;
  /** Most estimated bytes kept in the cache (same exceptions). @default 64 MiB */
  readonly maxCachedBytes?: number;
  /** Query requests in flight during a prefetch, 1..256. @default 16 */
  readonly readConcurrency?: number;
  /** BatchWriteItem requests in flight during a flush, 1..256. @default 8 */
  readonly writeConcurrency?: number;
  /** BatchWriteItem calls per group of 25 before unprocessed items fail the flush, 1..100. @default 8 */
  readonly maxWriteAttempts?: number;
  /** Backoff cap of the first UnprocessedItems retry, ms. @default 50 */
  readonly backoffBaseMs?: number;
  /** Largest backoff cap, ms. @default 5000 */
  readonly backoffMaxMs?: number;
  /** Waits between retries; injected by tests. @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Uniform [0, 1) jitter source; injected by tests. @default Math.random */
  readonly random?: () => number;
  /**
   * Where a key's items are read from instead of a Query of its partition: the stage handler's
   * changelog state (shard-state.ts), whose pages and changelog hold the items. @default a Query
   */
  readonly partitions?: (pk: string) => Promise<Item[]>;
}

/** What one {@link DynamoDbStateStore.flush} wrote. */
export interface FlushResult {
  /** Keys that had dirty entries. */
  readonly keys: number;
  /** Items put (inline entries, heads and chunks). */
  readonly puts: number;
  /** Items deleted (entries, and chunks no longer referenced). */
  readonly deletes: number;
  /** BatchWriteItem calls, retries included. */
  readonly requests: number;
  /** BatchWriteItem calls that resent UnprocessedItems. */
  readonly retries: number;
}

/**
 * The writes of one flush, planned but not yet made (see {@link DynamoDbStateStore.prepareFlush}):
 * three phases to apply in order (chunks, then heads, then deletes of replaced chunks), each of
 * distinct items, so one BatchWriteItem per 25 requests of a phase.
 */
export interface PreparedFlush {
  readonly phases: readonly [chunkPuts: readonly WriteRequest[], heads: readonly WriteRequest[], cleanup: readonly WriteRequest[]];
  /** The state key of every partition key written. */
  readonly partitionKeys: ReadonlyMap<string, string>;
  /** Keys that had dirty entries. */
  readonly keys: number;
  readonly puts: number;
  readonly deletes: number;
  /** Every phase was written: the store records the items as stored. */
  landed(): void;
  /** The writes may not have landed: every planned entry is dirty again. */
  failed(): void;
}

/** Counters of a {@link DynamoDbStateStore}, for benchmarks and metrics. */
export interface DynamoDbStateStats {
  /** State calls that read (as the memory backend counts them). */
  readonly reads: number;
  /** State calls that write (as the memory backend counts them). */
  readonly writes: number;
  /** Entries dropped because their TTL elapsed. */
  readonly expired: number;
  /** Query requests (one per page). */
  readonly readRequests: number;
  /** Items returned by Query. */
  readonly readItems: number;
  /** Read capacity units consumed, as DynamoDB reports them (0 where an emulator does not). */
  readonly readCapacityUnits: number;
  /** BatchWriteItem requests, retries included. */
  readonly writeRequests: number;
  /** Items written or deleted. */
  readonly writeItems: number;
  /** BatchWriteItem requests that resent UnprocessedItems. */
  readonly writeRetries: number;
  /** Write capacity units consumed, as reported. */
  readonly writeCapacityUnits: number;
  /** Keys asked for by prefetch that were cached. */
  readonly cacheHits: number;
  /** Keys asked for by prefetch that had to be loaded. */
  readonly cacheMisses: number;
  /** Clean keys dropped from the cache to respect its bounds (or by evictClean). */
  readonly evictions: number;
  /** Calls of invalidate(). */
  readonly invalidations: number;
  /** Keys cached now. */
  readonly cachedKeys: number;
  /** Estimated bytes cached now. */
  readonly cachedBytes: number;
  /** Keys with unflushed changes now. */
  readonly dirtyKeys: number;
}

/** The three kinds of keyed state. */
type StateKind = 'value' | 'map' | 'sorted-map';

/** The bookkeeping sub-key of a value state's single entry. */
const VALUE_ENTRY = '';

/** Fixed per-key overhead in the byte estimate (maps, slots, strings). */
const KEY_OVERHEAD_BYTES = 200;

/** A stored value plus its last access time (TTL states only), mutated in place on refresh. */
interface TtlCell {
  value: unknown;
  lastAccess: number;
}

/** The minimal map interface shared by `Map` and `BTree`, as in the memory backend. */
interface SubMap {
  get(subKey: string): unknown;
  set(subKey: string, value: unknown): unknown;
  delete(subKey: string): boolean;
  has(subKey: string): boolean;
  readonly size: number;
  entries(): IterableIterator<[string, unknown]>;
  keys(): IterableIterator<string>;
}

/** One declared state of one cached key. */
interface Slot {
  /** Value state: the value (a TtlCell with TTL); undefined when absent. */
  value: unknown;
  /** Map states: sub-key → value (TtlCell with TTL); undefined when empty. */
  map: SubMap | undefined;
  /** What DynamoDB holds per sub-key ({@link VALUE_ENTRY} for a value state). */
  stored: Map<string, StoredInfo> | undefined;
  /** Sub-keys changed since the last flush. */
  dirty: Set<string> | undefined;
}

/** Everything cached for one key. */
interface CachedKey {
  readonly key: string;
  readonly pk: string;
  /** One slot per declared state, by declaration index. */
  readonly slots: (Slot | undefined)[];
  /** Loaded entries of states not declared yet, by state name. */
  pending: Map<string, LoadedEntry[]> | undefined;
  /** Chunk items no head points to, by entry sort key: deleted at the next flush. */
  garbage: Map<string, Set<number>> | undefined;
  /** In the store's dirty set. */
  dirty: boolean;
  /** Flushes in flight that write this key: never evicted meanwhile. */
  writing: number;
  /** Estimated bytes. */
  bytes: number;
  /** The flush epoch in which it was last prefetched: pinned until that epoch ends. */
  pin: number;
}

/** Counters bumped on the synchronous path. */
interface Counters {
  reads: number;
  writes: number;
  expired: number;
}

/** What the state classes need from their store. */
interface StoreInternals {
  readonly counters: Counters;
  readonly clock: Clock;
  /** The cached key, or an internal error naming the operator, the state and the key. */
  entry(key: string, stateName: string): CachedKey;
  markDirty(entry: CachedKey, slot: Slot, subKey: string): void;
  corrupt(entry: CachedKey, sk: string, detail: string, cause?: unknown): FlambdaError;
}

/** Sentinel for "nothing to keep" when installing a loaded entry. */
const ABSENT: unique symbol = Symbol('absent');

function compareUtf16(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function newSlot(): Slot {
  return { value: undefined, map: undefined, stored: undefined, dirty: undefined };
}

function sameTtl(a: StateTtlConfig | undefined, b: StateTtlConfig | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.ttlMs === b.ttlMs && (a.updateOnRead === true) === (b.updateOnRead === true);
}

function shortKey(key: string): string {
  return JSON.stringify(key.length > 200 ? key.slice(0, 200) + '…' : key);
}

/** TTL bookkeeping and loading shared by all state kinds. */
abstract class StateBase {
  abstract readonly kind: StateKind;
  readonly hasTtl: boolean;
  readonly ttlMs: number;
  protected readonly refreshOnRead: boolean;

  constructor(
    protected readonly store: StoreInternals,
    readonly index: number,
    readonly name: string,
    readonly ttl: StateTtlConfig | undefined,
  ) {
    this.hasTtl = ttl !== undefined;
    this.ttlMs = ttl?.ttlMs ?? 0;
    this.refreshOnRead = ttl?.updateOnRead === true;
  }

  /** Flink's TtlUtils.expired: expired once `lastAccess + ttl <= now`. */
  protected isExpired(cell: TtlCell, now: number): boolean {
    return cell.lastAccess + this.ttlMs <= now;
  }

  protected ensureSlot(entry: CachedKey): Slot {
    let slot = entry.slots[this.index];
    if (slot === undefined) entry.slots[this.index] = slot = newSlot();
    return slot;
  }

  /** The stored representation of one entry (value, or TtlCell), for flush. */
  abstract storedValue(slot: Slot, subKey: string): unknown;

  /** Puts one loaded entry into the cache. */
  abstract install(entry: CachedKey, loaded: LoadedEntry, now: number): void;

  /** The sort key (and attribute `k`) of one entry. */
  sortKey(subKey: string): { sk: string; storedSubKey: string | undefined } {
    return this.kind === 'value' ? { sk: valueSortKey(this.name), storedSubKey: undefined } : mapSortKey(this.name, subKey);
  }

  /**
   * Decodes a loaded entry into what the cache keeps, or {@link ABSENT} when it expired (then
   * it is marked for deletion). Entries whose TTL attributes do not match the declaration are
   * marked dirty so the next flush rewrites them: a TTL state's entry without `wt` counts as
   * written now (retention starts when TTL was switched on), and a non-TTL state's entry loses
   * its expiry attribute so DynamoDB TTL does not delete it.
   */
  protected decodeLoaded(entry: CachedKey, slot: Slot, subKey: string, loaded: LoadedEntry, now: number): unknown {
    const stale = (): typeof ABSENT => {
      this.store.counters.expired++;
      this.store.markDirty(entry, slot, subKey);
      return ABSENT;
    };
    if (this.hasTtl && loaded.writeTime !== undefined && loaded.writeTime + this.ttlMs <= now) return stale();
    if (loaded.json === undefined) {
      // Chunks of an item with an expiry attribute vanish when DynamoDB TTL deletes them, which
      // may happen a little before our clock says the head expired (clock skew).
      if (loaded.expiresAt !== undefined) return stale();
      throw this.store.corrupt(entry, loaded.sk, 'chunks of the value are missing');
    }
    let value: unknown;
    try {
      value = decodeValue(loaded.json);
    } catch (error) {
      throw this.store.corrupt(entry, loaded.sk, 'the value does not decode', error);
    }
    if (!this.hasTtl) {
      if (loaded.writeTime !== undefined || loaded.expiresAt !== undefined) this.store.markDirty(entry, slot, subKey);
      return value;
    }
    let lastAccess = loaded.writeTime;
    if (lastAccess === undefined) {
      lastAccess = now;
      this.store.markDirty(entry, slot, subKey);
    }
    return { value, lastAccess } satisfies TtlCell;
  }
}

/** ValueState over the cache. */
class DynamoValueState<T> extends StateBase implements ValueState<T> {
  readonly kind = 'value';

  get(key: string): T | undefined {
    const store = this.store;
    store.counters.reads++;
    const entry = store.entry(key, this.name);
    const slot = entry.slots[this.index];
    if (slot === undefined) return undefined;
    const stored = slot.value;
    if (!this.hasTtl || stored === undefined) return stored as T | undefined;
    const cell = stored as TtlCell;
    const now = store.clock();
    if (this.isExpired(cell, now)) {
      slot.value = undefined;
      store.counters.expired++;
      store.markDirty(entry, slot, VALUE_ENTRY);
      return undefined;
    }
    if (this.refreshOnRead) {
      cell.lastAccess = now;
      store.markDirty(entry, slot, VALUE_ENTRY);
    }
    return cell.value as T;
  }

  put(key: string, value: T): void {
    // `undefined` means absent on read, so storing it is a delete (as in the memory backend).
    if (value === undefined) {
      this.delete(key);
      return;
    }
    const store = this.store;
    store.counters.writes++;
    const entry = store.entry(key, this.name);
    const slot = this.ensureSlot(entry);
    if (!this.hasTtl) {
      slot.value = value;
    } else {
      const now = store.clock();
      const cell = slot.value as TtlCell | undefined;
      if (cell === undefined) slot.value = { value, lastAccess: now } satisfies TtlCell;
      else {
        cell.value = value;
        cell.lastAccess = now;
      }
    }
    store.markDirty(entry, slot, VALUE_ENTRY);
  }

  delete(key: string): void {
    const store = this.store;
    store.counters.writes++;
    const entry = store.entry(key, this.name);
    const slot = entry.slots[this.index];
    if (slot === undefined) return;
    slot.value = undefined;
    store.markDirty(entry, slot, VALUE_ENTRY);
  }

  storedValue(slot: Slot): unknown {
    return slot.value;
  }

  install(entry: CachedKey, loaded: LoadedEntry, now: number): void {
    if (loaded.subKey !== undefined) throw kindMismatch(this.name, this.kind, 'map entries');
    const slot = this.ensureSlot(entry);
    (slot.stored ??= new Map()).set(VALUE_ENTRY, loaded.info);
    const value = this.decodeLoaded(entry, slot, VALUE_ENTRY, loaded, now);
    if (value !== ABSENT) slot.value = value;
  }
}

function kindMismatch(name: string, kind: StateKind, found: string): PlanError {
  return new PlanError(`State '${name}' is declared as ${kind} state but DynamoDB holds ${found} under that name`);
}

/** MapState over the cache; per-entry TTL as Flink's TtlMapState. */
abstract class MapStateBase<V> extends StateBase implements MapState<V> {
  abstract override readonly kind: 'map' | 'sorted-map';

  protected abstract newSubMap(): SubMap;

  get(key: string, mapKey: string): V | undefined {
    const store = this.store;
    store.counters.reads++;
    const entry = store.entry(key, this.name);
    const slot = entry.slots[this.index];
    const map = slot?.map;
    if (map === undefined) return undefined;
    const stored = map.get(mapKey);
    if (!this.hasTtl || stored === undefined) return stored as V | undefined;
    const cell = stored as TtlCell;
    const now = store.clock();
    if (this.isExpired(cell, now)) {
      this.removeExpired(entry, slot!, map, mapKey);
      return undefined;
    }
    if (this.refreshOnRead) {
      cell.lastAccess = now;
      store.markDirty(entry, slot!, mapKey);
    }
    return cell.value as V;
  }

  put(key: string, mapKey: string, value: V): void {
    if (value === undefined) {
      this.delete(key, mapKey);
      return;
    }
    const store = this.store;
    store.counters.writes++;
    const entry = store.entry(key, this.name);
    const slot = this.ensureSlot(entry);
    const map = (slot.map ??= this.newSubMap());
    if (!this.hasTtl) {
      map.set(mapKey, value);
    } else {
      const now = store.clock();
      const cell = map.get(mapKey) as TtlCell | undefined;
      if (cell === undefined) map.set(mapKey, { value, lastAccess: now } satisfies TtlCell);
      else {
        cell.value = value;
        cell.lastAccess = now;
      }
    }
    store.markDirty(entry, slot, mapKey);
  }

  delete(key: string, mapKey: string): void {
    const store = this.store;
    store.counters.writes++;
    const entry = store.entry(key, this.name);
    const slot = entry.slots[this.index];
    if (slot === undefined) return;
    const map = slot.map;
    if (map !== undefined && map.delete(mapKey) && map.size === 0) slot.map = undefined;
    store.markDirty(entry, slot, mapKey);
  }

  entries(key: string): IterableIterator<[string, V]> {
    this.store.counters.reads++;
    this.store.entry(key, this.name);
    return this.iterate(key);
  }

  size(key: string): number {
    const store = this.store;
    store.counters.reads++;
    const entry = store.entry(key, this.name);
    const slot = entry.slots[this.index];
    const map = slot?.map;
    if (map === undefined) return 0;
    if (this.hasTtl) {
      const now = store.clock();
      const expired: string[] = [];
      for (const [mapKey, stored] of map.entries()) if (this.isExpired(stored as TtlCell, now)) expired.push(mapKey);
      for (const mapKey of expired) this.removeExpired(entry, slot!, map, mapKey);
      return slot!.map === undefined ? 0 : map.size;
    }
    return map.size;
  }

  clear(key: string): void {
    const store = this.store;
    store.counters.writes++;
    const entry = store.entry(key, this.name);
    const slot = entry.slots[this.index];
    if (slot === undefined) return;
    // Every entry in the map is either stored or already dirty (put since the last flush), so
    // marking the stored ones deletes everything, expired entries not dropped yet included.
    if (slot.stored !== undefined) for (const mapKey of slot.stored.keys()) store.markDirty(entry, slot, mapKey);
    slot.map = undefined;
  }

  /**
   * Unordered iteration over the live per-key map, as the memory backend does: deleting while
   * iterating is safe; entries added meanwhile may or may not be visited.
   */
  protected *iterate(key: string): IterableIterator<[string, V]> {
    const entry = this.store.entry(key, this.name);
    const slot = entry.slots[this.index];
    const map = slot?.map;
    if (map === undefined) return;
    if (!this.hasTtl) {
      yield* map.entries() as IterableIterator<[string, V]>;
      return;
    }
    const now = this.store.clock();
    for (const [mapKey, stored] of map.entries()) {
      const cell = stored as TtlCell;
      if (this.isExpired(cell, now)) {
        this.removeExpired(entry, slot!, map, mapKey);
        continue;
      }
      if (this.refreshOnRead) {
        cell.lastAccess = now;
        this.store.markDirty(entry, slot!, mapKey);
      }
      yield [mapKey, cell.value as V];
    }
  }

  protected removeExpired(entry: CachedKey, slot: Slot, map: SubMap, mapKey: string): void {
    map.delete(mapKey);
    this.store.counters.expired++;
    this.store.markDirty(entry, slot, mapKey);
    if (map.size === 0 && slot.map === map) slot.map = undefined;
  }

  storedValue(slot: Slot, subKey: string): unknown {
    return slot.map?.get(subKey);
  }

  install(entry: CachedKey, loaded: LoadedEntry, now: number): void {
    if (loaded.subKey === undefined) throw kindMismatch(this.name, this.kind, 'a value');
    const slot = this.ensureSlot(entry);
    (slot.stored ??= new Map()).set(loaded.subKey, loaded.info);
    const value = this.decodeLoaded(entry, slot, loaded.subKey, loaded, now);
    if (value !== ABSENT) (slot.map ??= this.newSubMap()).set(loaded.subKey, value);
  }
}

/** MapState backed by a `Map` per key. */
class DynamoMapState<V> extends MapStateBase<V> {
  readonly kind = 'map';

  protected newSubMap(): SubMap {
    return new Map<string, unknown>();
  }
}

/**
 * SortedMapState backed by a B+ tree per key, ordered by UTF-16 code units as in the memory
 * backend. Iteration is cursor-based (each step re-seeks past the last returned sub-key), so
 * inserts and deletes while iterating are safe.
 */
class DynamoSortedMapState<V> extends MapStateBase<V> implements SortedMapState<V> {
  readonly kind = 'sorted-map';

  protected newSubMap(): SubMap {
    return new BTree<string, unknown>(undefined, compareUtf16) as unknown as SubMap;
  }

  ascending(key: string, fromKey?: string): IterableIterator<[string, V]> {
    this.store.counters.reads++;
    this.store.entry(key, this.name);
    return this.walk(key, fromKey, false);
  }

  descending(key: string, fromKey?: string): IterableIterator<[string, V]> {
    this.store.counters.reads++;
    this.store.entry(key, this.name);
    return this.walk(key, fromKey, true);
  }

  first(key: string): [string, V] | undefined {
    this.store.counters.reads++;
    return this.seek(key, undefined, false, true);
  }

  last(key: string): [string, V] | undefined {
    this.store.counters.reads++;
    return this.seek(key, undefined, true, true);
  }

  protected override iterate(key: string): IterableIterator<[string, V]> {
    return this.walk(key, undefined, false);
  }

  private walk(key: string, fromKey: string | undefined, descending: boolean): IterableIterator<[string, V]> {
    return walkSorted((from, inclusive) => this.seek(key, from, descending, inclusive), fromKey);
  }

  /** The first live entry at or beyond `from` in the given direction; drops expired ones passed. */
  private seek(key: string, from: string | undefined, descending: boolean, inclusive: boolean): [string, V] | undefined {
    const entry = this.store.entry(key, this.name);
    const slot = entry.slots[this.index];
    // Re-fetch the tree on every step: it may have been dropped and recreated meanwhile.
    const tree = slot?.map as SubKeyTree | undefined;
    if (tree === undefined) return undefined;
    let pair = seekPair(tree, from, descending, inclusive);
    if (!this.hasTtl) return pair as [string, V] | undefined;
    const now = this.store.clock();
    while (pair !== undefined) {
      const cell = pair[1] as TtlCell;
      if (!this.isExpired(cell, now)) {
        if (this.refreshOnRead) {
          cell.lastAccess = now;
          this.store.markDirty(entry, slot!, pair[0]);
        }
        return [pair[0], cell.value as V];
      }
      const expiredKey = pair[0];
      this.removeExpired(entry, slot!, tree as unknown as SubMap, expiredKey);
      pair = descending ? tree.nextLowerPair(expiredKey) : tree.nextHigherPair(expiredKey);
    }
    return undefined;
  }
}

type AnyState = DynamoValueState<unknown> | DynamoMapState<unknown> | DynamoSortedMapState<unknown>;

/** One entry's write (or delete) in a flush, kept to update the bookkeeping afterwards. */
interface PlannedEntry {
  readonly entry: CachedKey;
  readonly slot: Slot;
  readonly subKey: string;
  readonly sk: string;
  readonly before: StoredInfo | undefined;
  /** The bookkeeping after success; undefined when the entry is deleted. */
  readonly after: StoredInfo | undefined;
}

function positiveInt(name: string, value: number | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new PlanError(`${name} must be an integer from 1 to ${max} (given ${String(value)})`);
  }
  return value;
}

/**
 * Keyed state of one operator instance in DynamoDB, with a bounded write-back cache; see the
 * module documentation for the access protocol and the item layout.
 *
 * @example
 * ```ts
 * const store = new DynamoDbStateStore({ client, tableName: 'flambda-state', operatorId: 'GroupAggregate_2' });
 * const counts = store.valueState<number>('count');
 * await store.prefetch(['Sa', 'Sb']);
 * counts.put('Sa', (counts.get('Sa') ?? 0) + 1);
 * await store.flush();
 * ```
 */
export class DynamoDbStateStore implements KeyedStateStore {
  /** The operator whose state this is. */
  readonly operatorId: string;
  /** The DynamoDB table. */
  readonly tableName: string;

  private readonly client: DynamoDbSender;
  private readonly keyGroups: number;
  private readonly clock: Clock;
  private readonly ttlAttribute: string;
  private readonly maxKeys: number;
  private readonly maxBytes: number;
  private readonly readConcurrency: number;
  private readonly writeOptions: BatchWriteOptions;
  private readonly internals: StoreInternals;
  private readonly partitions: ((pk: string) => Promise<Item[]>) | undefined;

  private readonly states: AnyState[] = [];
  private readonly byName = new Map<string, AnyState>();
  /** Cached keys in least-recently-prefetched-first order. */
  private readonly cache = new Map<string, CachedKey>();
  private readonly dirtyKeys = new Set<CachedKey>();
  private readonly loading = new Map<string, Promise<void>>();
  /** Bumped by every flush and invalidate: keys pinned in an older epoch may be evicted. */
  private epoch = 0;
  /** Bumped by invalidate: loads started before it are discarded. */
  private generation = 0;
  private cachedBytes = 0;
  private flushing = false;

  private readonly counters: Counters = { reads: 0, writes: 0, expired: 0 };
  private io: IoCounters = newIoCounters();
  private cacheHits = 0;
  private cacheMisses = 0;
  private evictions = 0;
  private invalidations = 0;

  /**
   * @throws PlanError for an out-of-range option; FlambdaError for an operator id that cannot be
   * part of a partition key.
   */
  constructor(options: DynamoDbStateStoreOptions) {
    checkOperatorId(options.operatorId);
    if (options.tableName.length === 0) throw new PlanError('tableName must not be empty');
    this.operatorId = options.operatorId;
    this.tableName = options.tableName;
    this.client = options.client;
    this.keyGroups = options.keyGroups ?? DEFAULT_KEY_GROUPS;
    checkKeyGroups(this.keyGroups);
    this.clock = options.clock ?? Date.now;
    this.ttlAttribute = options.ttlAttribute ?? DEFAULT_TTL_ATTRIBUTE;
    if (this.ttlAttribute.length === 0 || (Object.values(ATTR) as string[]).includes(this.ttlAttribute)) {
      throw new PlanError(`ttlAttribute must be a non-empty name not used by the state items (given '${this.ttlAttribute}')`);
    }
    this.maxKeys = positiveInt('maxCachedKeys', options.maxCachedKeys, 10_000, Number.MAX_SAFE_INTEGER);
    this.maxBytes = positiveInt('maxCachedBytes', options.maxCachedBytes, 64 * 1024 * 1024, Number.MAX_SAFE_INTEGER);
    this.readConcurrency = positiveInt('readConcurrency', options.readConcurrency, 16, 256);
    this.partitions = options.partitions;
    const baseMs = options.backoffBaseMs ?? 50;
    const maxMs = options.backoffMaxMs ?? 5_000;
    if (!(baseMs >= 0 && maxMs >= baseMs)) throw new PlanError(`backoff must satisfy 0 <= backoffBaseMs <= backoffMaxMs (given ${baseMs}, ${maxMs})`);
    this.writeOptions = {
      client: this.client,
      tableName: this.tableName,
      concurrency: positiveInt('writeConcurrency', options.writeConcurrency, 8, 256),
      maxAttempts: positiveInt('maxWriteAttempts', options.maxWriteAttempts, 8, 100),
      baseMs,
      maxMs,
      random: options.random ?? Math.random,
      sleep: options.sleep ?? realSleep,
    };
    this.internals = {
      counters: this.counters,
      clock: this.clock,
      entry: (key, stateName) => {
        const entry = this.cache.get(key);
        if (entry === undefined) throw this.notPrefetched(key, stateName);
        return entry;
      },
      markDirty: (entry, slot, subKey) => {
        (slot.dirty ??= new Set()).add(subKey);
        if (!entry.dirty) {
          entry.dirty = true;
          this.dirtyKeys.add(entry);
        }
      },
      corrupt: (entry, sk, detail, cause) =>
        new FlambdaError(
          `State item (${JSON.stringify(entry.pk)}, ${JSON.stringify(sk)}) of operator '${this.operatorId}' in table '${this.tableName}' is corrupt: ${detail}`,
          'internal',
          'fail',
          { cause },
        ),
    };
  }

  /** Whether the operator declared any state (a stage whose operators declare none writes no changelog). */
  get hasStates(): boolean {
    return this.states.length > 0;
  }

  /** Declares (or returns the already declared) ValueState `name`. */
  valueState<T>(name: string, options?: StateOptions): ValueState<T> {
    return this.declare(name, 'value', options) as DynamoValueState<T>;
  }

  /** Declares (or returns the already declared) MapState `name`. */
  mapState<V>(name: string, options?: StateOptions): MapState<V> {
    return this.declare(name, 'map', options) as DynamoMapState<V>;
  }

  /** Declares (or returns the already declared) SortedMapState `name`. */
  sortedMapState<V>(name: string, options?: StateOptions): SortedMapState<V> {
    return this.declare(name, 'sorted-map', options) as DynamoSortedMapState<V>;
  }

  /**
   * Makes the state of `keys` available to the synchronous calls until the end of the next
   * {@link flush}: cached keys are hits (and become most recently used); the others are loaded
   * with one Query each (every state of the key in one partition, paginated),
   * `readConcurrency` at a time. Returns nothing when every key is cached, so a batch of hot
   * keys costs no await. Call it once at a time: the runtime processes one batch at a time.
   *
   * @throws TransientError (as a rejection) for throttling and other retryable failures.
   */
  prefetch(keys: Iterable<string>): Promise<void> | void {
    const epoch = this.epoch;
    let missing: Set<string> | undefined;
    for (const key of keys) {
      const entry = this.cache.get(key);
      if (entry !== undefined) {
        this.cacheHits++;
        entry.pin = epoch;
        this.cache.delete(key);
        this.cache.set(key, entry);
      } else {
        (missing ??= new Set()).add(key);
      }
    }
    if (missing === undefined) return;
    this.cacheMisses += missing.size;
    return this.load([...missing]);
  }

  /**
   * Writes every dirty entry with BatchWriteItem (25 requests per call, `writeConcurrency`
   * calls at once) and returns what it wrote; then ends the batch: keys prefetched so far may
   * be evicted, and clean keys beyond the cache bounds are, least recently prefetched first.
   *
   * Values larger than one item are written in three phases (chunks, then heads, then deletes
   * of replaced chunks; see item-codec.ts) so a reader never sees half a value. On failure
   * every entry of the flush stays dirty, so calling flush again writes them all again (puts
   * and deletes are idempotent).
   *
   * @throws TransientError when DynamoDB keeps items unprocessed or throttles past the retries;
   * FlambdaError for a value that cannot be stored (e.g. a Map) or another failure.
   */
  async flush(): Promise<FlushResult> {
    if (this.flushing) throw new FlambdaError(`flush() of operator '${this.operatorId}' called while another flush is running`, 'internal', 'fail');
    if (this.dirtyKeys.size === 0) {
      this.endBatch();
      return { keys: 0, puts: 0, deletes: 0, requests: 0, retries: 0 };
    }
    this.flushing = true;
    try {
      return await this.writeDirty();
    } finally {
      this.flushing = false;
    }
  }

  /**
   * Drops the whole cache, unflushed changes included: for when another invocation may have
   * written this shard's state (a retried batch after a timeout, a container that served
   * another shard), or when a failed batch's changes must be discarded. Loads in flight are
   * discarded too.
   */
  invalidate(): void {
    this.generation++;
    this.epoch++;
    this.invalidations++;
    this.cache.clear();
    this.dirtyKeys.clear();
    this.cachedBytes = 0;
  }

  /**
   * Evicts every clean key not prefetched since the last flush, whatever the bounds (e.g.
   * before a container idles); returns how many keys were evicted.
   */
  evictClean(): number {
    const before = this.evictions;
    for (const entry of this.cache.values()) if (this.evictable(entry)) this.evict(entry);
    return this.evictions - before;
  }

  /** Counters since creation or the last {@link resetStats}, plus the cache's current size. */
  stats(): DynamoDbStateStats {
    return {
      reads: this.counters.reads,
      writes: this.counters.writes,
      expired: this.counters.expired,
      ...this.io,
      cacheHits: this.cacheHits,
      cacheMisses: this.cacheMisses,
      evictions: this.evictions,
      invalidations: this.invalidations,
      cachedKeys: this.cache.size,
      cachedBytes: this.cachedBytes,
      dirtyKeys: this.dirtyKeys.size,
    };
  }

  /** Zeroes the counters (e.g. between benchmark phases); the cache is untouched. */
  resetStats(): void {
    this.counters.reads = 0;
    this.counters.writes = 0;
    this.counters.expired = 0;
    this.io = newIoCounters();
    this.cacheHits = 0;
    this.cacheMisses = 0;
    this.evictions = 0;
    this.invalidations = 0;
  }

  private declare(name: string, kind: StateKind, options: StateOptions | undefined): AnyState {
    const ttl = options?.ttl;
    const existing = this.byName.get(name);
    if (existing !== undefined) {
      if (existing.kind !== kind || !sameTtl(existing.ttl, ttl)) {
        throw new FlambdaError(`State '${name}' is already declared as ${existing.kind} state with different options`, 'internal', 'fail');
      }
      return existing;
    }
    checkStateName(name);
    if (ttl !== undefined && !(Number.isFinite(ttl.ttlMs) && ttl.ttlMs > 0)) {
      throw new PlanError(`State '${name}': TTL must be a positive finite number of ms, got ${ttl.ttlMs}`);
    }
    const copy = ttl === undefined ? undefined : { ttlMs: ttl.ttlMs, updateOnRead: ttl.updateOnRead === true };
    const index = this.states.length;
    const state: AnyState =
      kind === 'value'
        ? new DynamoValueState(this.internals, index, name, copy)
        : kind === 'map'
          ? new DynamoMapState(this.internals, index, name, copy)
          : new DynamoSortedMapState(this.internals, index, name, copy);
    this.states.push(state);
    this.byName.set(name, state);
    // Keys loaded before this declaration keep their entries of it aside until now.
    const now = this.clock();
    for (const entry of this.cache.values()) {
      const loaded = entry.pending?.get(name);
      if (loaded === undefined) continue;
      entry.pending!.delete(name);
      for (const item of loaded) state.install(entry, item, now);
    }
    return state;
  }

  private notPrefetched(key: string, stateName: string): FlambdaError {
    return new FlambdaError(
      `Operator '${this.operatorId}' accessed state '${stateName}' of key ${shortKey(key)} that is not in the state cache: ` +
        'the operator must await prefetch(keys) for every key of a batch before reading or writing their state',
      'internal',
      'fail',
    );
  }

  private async load(keys: string[]): Promise<void> {
    const generation = this.generation;
    await forEachLimited(keys, this.readConcurrency, async (key) => {
      let loading = this.loading.get(key);
      if (loading === undefined) {
        loading = this.loadKey(key, generation).finally(() => this.loading.delete(key));
        this.loading.set(key, loading);
      }
      await loading;
    });
    this.trim();
  }

  private async loadKey(key: string, generation: number): Promise<void> {
    const pk = partitionKey(this.operatorId, keyGroupOf(key, this.keyGroups), key);
    const items = this.partitions === undefined ? await queryPartition(this.client, this.tableName, pk, this.io) : await this.partitions(pk);
    // invalidate() ran meanwhile: what was read may predate the writes it is about.
    if (generation !== this.generation) return;
    const loaded = parseItems(pk, items, this.ttlAttribute);
    const entry: CachedKey = {
      key,
      pk,
      slots: [],
      pending: undefined,
      garbage: loaded.garbage,
      dirty: false,
      writing: 0,
      bytes: KEY_OVERHEAD_BYTES + 2 * key.length + loaded.bytes,
      pin: this.epoch,
    };
    const now = this.clock();
    for (const item of loaded.entries) {
      const state = this.byName.get(item.stateName);
      if (state !== undefined) {
        state.install(entry, item, now);
        continue;
      }
      const pending = (entry.pending ??= new Map());
      let ofState = pending.get(item.stateName);
      if (ofState === undefined) pending.set(item.stateName, (ofState = []));
      ofState.push(item);
    }
    if (entry.garbage !== undefined) this.markKeyDirty(entry);
    this.cache.set(key, entry);
    this.cachedBytes += entry.bytes;
  }

  private async writeDirty(): Promise<FlushResult> {
    const requestsBefore = this.io.writeRequests;
    const retriesBefore = this.io.writeRetries;
    const prepared = this.planDirty();
    try {
      // Chunks before the heads that point at them; replaced chunks only after the heads moved.
      for (const phase of prepared.phases) if (phase.length > 0) await batchWrite(phase, this.writeOptions, this.io);
    } catch (error) {
      prepared.failed();
      throw error;
    }
    prepared.landed();
    return {
      keys: prepared.keys,
      puts: prepared.puts,
      deletes: prepared.deletes,
      requests: this.io.writeRequests - requestsBefore,
      retries: this.io.writeRetries - retriesBefore,
    };
  }

  /**
   * Takes the dirty entries out of the cache's dirty set as the item writes that store them,
   * without writing anything: for a caller that makes the writes durable in its own way first
   * (the stage handler's redo log, docs/effectively-once.md) and applies them afterwards. The
   * caller must end with exactly one of `landed()` (every phase was written, in order) or
   * `failed()` (they may not have been; the entries become dirty again). Meanwhile the keys
   * stay in the cache and cannot be evicted; a concurrent {@link flush} throws.
   *
   * @throws FlambdaError for a value that cannot be stored; the store is then unchanged.
   */
  prepareFlush(): PreparedFlush {
    if (this.flushing) throw new FlambdaError(`prepareFlush() of operator '${this.operatorId}' called while another flush is running`, 'internal', 'fail');
    if (this.dirtyKeys.size === 0) {
      return { phases: [[], [], []], partitionKeys: new Map(), keys: 0, puts: 0, deletes: 0, landed: () => this.endBatch(), failed: () => undefined };
    }
    this.flushing = true;
    try {
      const prepared = this.planDirty();
      let open = true;
      const finish = (then: () => void): void => {
        if (!open) throw new FlambdaError(`a prepared flush of operator '${this.operatorId}' was finished twice`, 'internal', 'fail');
        open = false;
        this.flushing = false;
        then();
      };
      return { ...prepared, landed: () => finish(prepared.landed), failed: () => finish(prepared.failed) };
    } catch (error) {
      this.flushing = false;
      throw error;
    }
  }

  /** Plans the writes of every dirty entry and marks the entries as being written. */
  private planDirty(): PreparedFlush {
    const chunkPuts: WriteRequest[] = [];
    const heads: WriteRequest[] = [];
    const cleanup: WriteRequest[] = [];
    const cleanupSeen = new Set<string>();
    const planned: PlannedEntry[] = [];
    const keys = [...this.dirtyKeys];
    let puts = 0;
    let deletes = 0;
    const dropChunk = (entry: CachedKey, sk: string, index: number): void => {
      const chunkSk = chunkSortKey(sk, index);
      const id = entry.pk + '\u0000' + chunkSk;
      if (cleanupSeen.has(id)) return;
      cleanupSeen.add(id);
      cleanup.push(deleteRequest(entry.pk, chunkSk));
      deletes++;
    };

    // Plan everything before changing any bookkeeping, so a value that cannot be encoded
    // leaves the store exactly as it was.
    for (const entry of keys) {
      for (const state of this.states) {
        const slot = entry.slots[state.index];
        if (slot?.dirty === undefined) continue;
        for (const subKey of slot.dirty) {
          const before = slot.stored?.get(subKey);
          const stored = state.storedValue(slot, subKey);
          const { sk, storedSubKey } = state.sortKey(subKey);
          if (stored === undefined) {
            if (before === undefined) continue;
            heads.push(deleteRequest(entry.pk, sk));
            deletes++;
            if (before.chunks !== undefined) for (let i = 0; i < before.chunks.count; i++) dropChunk(entry, sk, before.chunks.first + i);
            planned.push({ entry, slot, subKey, sk, before, after: undefined });
            continue;
          }
          let value: unknown = stored;
          let ttl;
          if (state.hasTtl) {
            const cell = stored as TtlCell;
            value = cell.value;
            ttl = { writeTime: cell.lastAccess, expiresAt: Math.ceil((cell.lastAccess + state.ttlMs) / 1000) };
          }
          let json: string;
          try {
            json = encodeValue(value);
          } catch (error) {
            throw new FlambdaError(
              `Operator '${this.operatorId}' stored a value in state '${state.name}' of key ${shortKey(entry.key)} that DynamoDB state cannot hold: ${(error as Error).message}`,
              'internal',
              'fail',
              { cause: error },
            );
          }
          let firstChunk = before?.nextChunk ?? 0;
          const garbage = entry.garbage?.get(sk);
          if (garbage !== undefined) for (const index of garbage) firstChunk = Math.max(firstChunk, index + 1);
          const write = buildEntryItems({ pk: entry.pk, sk, storedSubKey, json, ttl, ttlAttribute: this.ttlAttribute, firstChunk });
          for (const put of write.chunkPuts) chunkPuts.push(put);
          heads.push(write.head);
          puts += 1 + write.chunkPuts.length;
          if (before?.chunks !== undefined) for (let i = 0; i < before.chunks.count; i++) dropChunk(entry, sk, before.chunks.first + i);
          const nextChunk = write.chunks === undefined ? firstChunk : write.chunks.first + write.chunks.count;
          planned.push({ entry, slot, subKey, sk, before, after: { bytes: write.bytes, chunks: write.chunks, nextChunk } });
        }
      }
      if (entry.garbage !== undefined) for (const [sk, indices] of entry.garbage) for (const index of indices) dropChunk(entry, sk, index);
    }

    const garbage = new Map<CachedKey, Map<string, Set<number>>>();
    for (const entry of keys) {
      for (const slot of entry.slots) if (slot !== undefined) slot.dirty = undefined;
      if (entry.garbage !== undefined) garbage.set(entry, entry.garbage);
      entry.garbage = undefined;
      entry.dirty = false;
      entry.writing++;
    }
    this.dirtyKeys.clear();

    const release = (): void => {
      for (const entry of keys) entry.writing--;
    };
    return {
      phases: [chunkPuts, heads, cleanup],
      partitionKeys: new Map(keys.map((entry) => [entry.pk, entry.key])),
      keys: keys.length,
      puts,
      deletes,
      landed: () => {
        release();
        for (const { entry, slot, subKey, before, after } of planned) {
          const delta = (after?.bytes ?? 0) - (before?.bytes ?? 0);
          if (after === undefined) slot.stored?.delete(subKey);
          else (slot.stored ??= new Map()).set(subKey, after);
          entry.bytes += delta;
          if (this.cache.get(entry.key) === entry) this.cachedBytes += delta;
        }
        this.endBatch();
      },
      failed: () => {
        release();
        this.afterFailedFlush(planned, garbage);
      },
    };
  }

  /**
   * After a failed flush nothing is known about which writes landed. Every planned entry is
   * dirty again; any chunk it had or was writing becomes garbage (deleted only by a later flush,
   * after that flush has rewritten the head), and new chunk indices start past all of them.
   */
  private afterFailedFlush(planned: readonly PlannedEntry[], garbage: Map<CachedKey, Map<string, Set<number>>>): void {
    for (const [entry, taken] of garbage) {
      if (this.cache.get(entry.key) !== entry) continue;
      for (const [sk, indices] of taken) addGarbage(entry, sk, indices);
      this.markKeyDirty(entry);
    }
    for (const { entry, slot, subKey, sk, before, after } of planned) {
      if (this.cache.get(entry.key) !== entry) continue;
      for (const range of [before?.chunks, after?.chunks]) {
        if (range === undefined) continue;
        const indices = [];
        for (let i = 0; i < range.count; i++) indices.push(range.first + i);
        addGarbage(entry, sk, indices);
      }
      (slot.stored ??= new Map()).set(subKey, {
        bytes: Math.max(before?.bytes ?? 0, after?.bytes ?? 0),
        chunks: undefined,
        nextChunk: Math.max(before?.nextChunk ?? 0, after?.nextChunk ?? 0),
      });
      this.internals.markDirty(entry, slot, subKey);
    }
  }

  /** Puts a key in the dirty set without a dirty entry: it has garbage chunks to delete. */
  private markKeyDirty(entry: CachedKey): void {
    if (entry.dirty) return;
    entry.dirty = true;
    this.dirtyKeys.add(entry);
  }

  /** Ends the batch: unpins every key, then evicts down to the bounds. */
  private endBatch(): void {
    this.epoch++;
    this.trim();
  }

  private evictable(entry: CachedKey): boolean {
    return !entry.dirty && entry.writing === 0 && entry.pin !== this.epoch;
  }

  private evict(entry: CachedKey): void {
    this.cache.delete(entry.key);
    this.cachedBytes -= entry.bytes;
    this.evictions++;
  }

  /** Evicts clean, unpinned keys, least recently prefetched first, until within the bounds. */
  private trim(): void {
    if (this.cache.size <= this.maxKeys && this.cachedBytes <= this.maxBytes) return;
    for (const entry of this.cache.values()) {
      if (this.cache.size <= this.maxKeys && this.cachedBytes <= this.maxBytes) return;
      if (this.evictable(entry)) this.evict(entry);
    }
  }
}

function addGarbage(entry: CachedKey, sk: string, indices: Iterable<number>): void {
  const garbage = (entry.garbage ??= new Map());
  let ofEntry = garbage.get(sk);
  if (ofEntry === undefined) garbage.set(sk, (ofEntry = new Set()));
  for (const index of indices) ofEntry.add(index);
}
