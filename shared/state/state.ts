/**
 * Keyed state interfaces, shared by every backend (memory here; DynamoDB in shared/aws/).
 *
 * State is addressed explicitly by the record key (the canonical key encoding of
 * shared/partition/key-encoding.ts) rather than by an implicit "current key": an operator
 * passes the key on every call. Backends may map that to storage however they like, e.g.
 * DynamoDB partition key `operatorId#key` and sort key `stateName#subKey`.
 *
 * Access is synchronous so the per-record path stays fast. A backend whose storage is remote
 * loads what a batch needs in `prefetch` (awaited once per batch by the runtime) and serves the
 * synchronous calls from its write-back cache.
 */

/** Time-to-live of state entries (Flink's idle-state retention). */
export interface StateTtlConfig {
  /** Entries not written (or, with `updateOnRead`, not read) for this long are treated as absent. */
  readonly ttlMs: number;
  /** Refresh the entry's timestamp on reads too (Flink's OnReadAndWrite). @default false */
  readonly updateOnRead?: boolean;
}

/** Options common to every state declaration. */
export interface StateOptions {
  /** Idle-state retention for this state; absent means keep forever. */
  readonly ttl?: StateTtlConfig;
}

/** One value per key. */
export interface ValueState<T> {
  get(key: string): T | undefined;
  put(key: string, value: T): void;
  delete(key: string): void;
}

/** A map per key, with string sub-keys. */
export interface MapState<V> {
  get(key: string, mapKey: string): V | undefined;
  put(key: string, mapKey: string, value: V): void;
  delete(key: string, mapKey: string): void;
  /** Entries of one key's map, in no particular order. */
  entries(key: string): IterableIterator<[string, V]>;
  /** Number of entries in one key's map. */
  size(key: string): number;
  /** Removes one key's whole map. */
  clear(key: string): void;
}

/**
 * A map per key whose sub-keys are kept in ascending lexicographic (UTF-16 code unit) order —
 * the order DynamoDB uses for string sort keys, so the same encoding works on both backends.
 * Use shared/partition/key-encoding.ts `encodeSortKey` to make order-preserving sub-keys.
 */
export interface SortedMapState<V> extends MapState<V> {
  /** Entries of one key's map in ascending sub-key order, optionally from `fromKey` inclusive. */
  ascending(key: string, fromKey?: string): IterableIterator<[string, V]>;
  /** Entries in descending sub-key order, optionally from `fromKey` inclusive. */
  descending(key: string, fromKey?: string): IterableIterator<[string, V]>;
  /** The smallest entry, if any. */
  first(key: string): [string, V] | undefined;
  /** The largest entry, if any. */
  last(key: string): [string, V] | undefined;
}

/** Declares and creates an operator's keyed state; one store per operator instance. */
export interface KeyedStateStore {
  valueState<T>(name: string, options?: StateOptions): ValueState<T>;
  mapState<V>(name: string, options?: StateOptions): MapState<V>;
  sortedMapState<V>(name: string, options?: StateOptions): SortedMapState<V>;
  /**
   * Loads the state of these keys before a batch is processed. The memory backend does
   * nothing; remote backends fetch what is not cached.
   */
  prefetch(keys: Iterable<string>): Promise<void> | void;
}

/** Which clock a timer follows. */
export type TimeDomain = 'event' | 'processing';

/** A registered timer: fires once when its domain's time reaches `timestamp`. */
export interface Timer {
  readonly key: string;
  /** Distinguishes timers of one key, e.g. a window `start,end`; empty string when unused. */
  readonly namespace: string;
  readonly timestamp: number;
  readonly domain: TimeDomain;
}

/**
 * Per-key timers (Flink's InternalTimerService). Registering the same (key, namespace,
 * timestamp, domain) twice keeps one timer. Timers fire in timestamp order.
 */
export interface TimerService {
  registerEventTimeTimer(key: string, namespace: string, timestamp: number): void;
  deleteEventTimeTimer(key: string, namespace: string, timestamp: number): void;
  registerProcessingTimeTimer(key: string, namespace: string, timestamp: number): void;
  deleteProcessingTimeTimer(key: string, namespace: string, timestamp: number): void;
  /** The operator's current event-time watermark (-Infinity before the first one). */
  currentWatermark(): number;
  /** The current processing time in epoch milliseconds. */
  currentProcessingTime(): number;
}
