/**
 * The naive baseline of the `state-io` benchmark: a keyed state store that writes through to
 * DynamoDB on every state call, one request per call, with no cache, no batching and no
 * coalescing of repeated writes to the same item.
 *
 * The {@link KeyedStateStore} interface is synchronous, so a store cannot await a GetItem and
 * return its result. This one keeps the state in an in-memory mirror (a MemoryStateStore, so the
 * operator sees exactly the values it would see on any backend) and, for every call, really
 * sends the request a per-record write-through store would send, asynchronously:
 *
 * ```
 *  value get / map get                         → GetItem of the entry's item
 *  value put / map put                         → PutItem of the entry's item
 *  value delete / map delete                   → DeleteItem of the entry's item
 *  entries / size / ascending / descending     → Query of the state's items of the key
 *  first / last                                → Query with Limit 1
 *  clear                                       → DeleteItem per entry the map holds
 * ```
 *
 * Requests to one item are sent in call order (each waits for the previous one to that item),
 * at most `concurrency` at once overall; {@link WriteThroughStateStore.drain} waits for all of
 * them and is awaited at the end of every batch, like the DynamoDB store's flush. Items use the
 * DynamoDB backend's keys (item-keys.ts) and value encoding (value-codec.ts). GetItem and Query
 * results are not used: the mirror already holds the answer.
 */
import {
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { ATTR } from '../aws/state/constants.ts';
import { mapSortKey, partitionKey, valueSortKey } from '../aws/state/item-keys.ts';
import type { DynamoDbSender } from '../aws/state/table-io.ts';
import { encodeValue } from '../aws/state/value-codec.ts';
import { DEFAULT_KEY_GROUPS, keyGroupOf } from '../partition/key-groups.ts';
import { MemoryStateStore } from '../state/memory-backend.ts';
import type { KeyedStateStore, MapState, SortedMapState, StateOptions, ValueState } from '../state/state.ts';

/** Options of {@link WriteThroughStateStore}. */
export interface WriteThroughStateStoreOptions {
  readonly client: DynamoDbSender;
  readonly tableName: string;
  readonly operatorId: string;
  /** @default 256 */
  readonly keyGroups?: number;
  /** Requests in flight at once. @default 16 */
  readonly concurrency?: number;
}

/** Requests sent so far, by kind. */
export interface WriteThroughStats {
  readonly getItem: number;
  readonly query: number;
  readonly putItem: number;
  readonly deleteItem: number;
  /** GetItem + Query. */
  readonly readRequests: number;
  /** PutItem + DeleteItem. */
  readonly writeRequests: number;
}

type Kind = 'getItem' | 'query' | 'putItem' | 'deleteItem';

/** What the wrapped states need from the store. */
interface Sender {
  pk(key: string): string;
  readonly client: DynamoDbSender;
  /** Queues `send` behind earlier requests to the same item. */
  issue(itemId: string, kind: Kind, send: () => Promise<unknown>): void;
}

function keyAttrs(pk: string, sk: string): Record<string, AttributeValue> {
  return { [ATTR.pk]: { S: pk }, [ATTR.sk]: { S: sk } };
}

class Requests {
  constructor(
    private readonly sender: Sender,
    private readonly tableName: string,
  ) {}

  get(key: string, sk: string): void {
    const pk = this.sender.pk(key);
    const command = new GetItemCommand({ TableName: this.tableName, Key: keyAttrs(pk, sk), ConsistentRead: true });
    this.sender.issue(pk + '\u0000' + sk, 'getItem', () => this.sender.client.send(command));
  }

  put(key: string, sk: string, value: unknown): void {
    const pk = this.sender.pk(key);
    const item = { ...keyAttrs(pk, sk), [ATTR.value]: { S: encodeValue(value) } };
    const command = new PutItemCommand({ TableName: this.tableName, Item: item });
    this.sender.issue(pk + '\u0000' + sk, 'putItem', () => this.sender.client.send(command));
  }

  delete(key: string, sk: string): void {
    const pk = this.sender.pk(key);
    const command = new DeleteItemCommand({ TableName: this.tableName, Key: keyAttrs(pk, sk) });
    this.sender.issue(pk + '\u0000' + sk, 'deleteItem', () => this.sender.client.send(command));
  }

  /** One Query of the items of state `name` of `key` (`<name>#…` sort keys). */
  query(key: string, name: string, options: { limit?: number; descending?: boolean } = {}): void {
    const pk = this.sender.pk(key);
    const command = new QueryCommand({
      TableName: this.tableName,
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      ExpressionAttributeNames: { '#pk': ATTR.pk, '#sk': ATTR.sk },
      ExpressionAttributeValues: { ':pk': { S: pk }, ':prefix': { S: mapSortKey(name, '').sk } },
      ConsistentRead: true,
      Limit: options.limit,
      ScanIndexForward: options.descending !== true,
    });
    this.sender.issue(pk, 'query', () => this.sender.client.send(command));
  }
}

class WriteThroughValueState<T> implements ValueState<T> {
  private readonly sk: string;
  constructor(
    private readonly inner: ValueState<T>,
    private readonly requests: Requests,
    name: string,
  ) {
    this.sk = valueSortKey(name);
  }

  get(key: string): T | undefined {
    this.requests.get(key, this.sk);
    return this.inner.get(key);
  }

  put(key: string, value: T): void {
    if (value === undefined) return this.delete(key);
    this.requests.put(key, this.sk, value);
    this.inner.put(key, value);
  }

  delete(key: string): void {
    this.requests.delete(key, this.sk);
    this.inner.delete(key);
  }
}

class WriteThroughMapState<V, S extends MapState<V>> implements MapState<V> {
  constructor(
    protected readonly inner: S,
    protected readonly requests: Requests,
    protected readonly name: string,
  ) {}

  get(key: string, mapKey: string): V | undefined {
    this.requests.get(key, mapSortKey(this.name, mapKey).sk);
    return this.inner.get(key, mapKey);
  }

  put(key: string, mapKey: string, value: V): void {
    if (value === undefined) return this.delete(key, mapKey);
    this.requests.put(key, mapSortKey(this.name, mapKey).sk, value);
    this.inner.put(key, mapKey, value);
  }

  delete(key: string, mapKey: string): void {
    this.requests.delete(key, mapSortKey(this.name, mapKey).sk);
    this.inner.delete(key, mapKey);
  }

  entries(key: string): IterableIterator<[string, V]> {
    this.requests.query(key, this.name);
    return this.inner.entries(key);
  }

  size(key: string): number {
    this.requests.query(key, this.name);
    return this.inner.size(key);
  }

  clear(key: string): void {
    for (const [mapKey] of [...this.inner.entries(key)]) this.requests.delete(key, mapSortKey(this.name, mapKey).sk);
    this.inner.clear(key);
  }
}

class WriteThroughSortedMapState<V> extends WriteThroughMapState<V, SortedMapState<V>> implements SortedMapState<V> {
  ascending(key: string, fromKey?: string): IterableIterator<[string, V]> {
    this.requests.query(key, this.name);
    return this.inner.ascending(key, fromKey);
  }

  descending(key: string, fromKey?: string): IterableIterator<[string, V]> {
    this.requests.query(key, this.name, { descending: true });
    return this.inner.descending(key, fromKey);
  }

  first(key: string): [string, V] | undefined {
    this.requests.query(key, this.name, { limit: 1 });
    return this.inner.first(key);
  }

  last(key: string): [string, V] | undefined {
    this.requests.query(key, this.name, { limit: 1, descending: true });
    return this.inner.last(key);
  }
}

/** The write-through-per-record baseline; see the module documentation. */
export class WriteThroughStateStore implements KeyedStateStore {
  private readonly mirror = new MemoryStateStore();
  private readonly requests: Requests;
  private readonly counts: Record<Kind, number> = { getItem: 0, query: 0, putItem: 0, deleteItem: 0 };
  private readonly states = new Map<string, unknown>();
  /** Last request queued per item, so requests to one item go out in call order. */
  private tails = new Map<string, Promise<void>>();
  private readonly inFlight = new Set<Promise<void>>();
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private failure: { error: unknown } | undefined;
  private readonly keyGroups: number;
  private readonly concurrency: number;

  constructor(options: WriteThroughStateStoreOptions) {
    this.keyGroups = options.keyGroups ?? DEFAULT_KEY_GROUPS;
    this.concurrency = options.concurrency ?? 16;
    const sender: Sender = {
      client: options.client,
      pk: (key) => partitionKey(options.operatorId, keyGroupOf(key, this.keyGroups), key),
      issue: (itemId, kind, send) => this.issue(itemId, kind, send),
    };
    this.requests = new Requests(sender, options.tableName);
  }

  valueState<T>(name: string, options?: StateOptions): ValueState<T> {
    return this.declare(name, () => new WriteThroughValueState<T>(this.mirror.valueState<T>(name, options), this.requests, name));
  }

  mapState<V>(name: string, options?: StateOptions): MapState<V> {
    return this.declare(name, () => new WriteThroughMapState<V, MapState<V>>(this.mirror.mapState<V>(name, options), this.requests, name));
  }

  sortedMapState<V>(name: string, options?: StateOptions): SortedMapState<V> {
    return this.declare(name, () => new WriteThroughSortedMapState<V>(this.mirror.sortedMapState<V>(name, options), this.requests, name));
  }

  /** A write-through store reads on access, so there is nothing to load ahead. */
  prefetch(_keys: Iterable<string>): void {}

  /** Waits until every request sent so far has completed; rethrows the first failure. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
    this.tails = new Map();
    if (this.failure !== undefined) {
      const { error } = this.failure;
      this.failure = undefined;
      throw error;
    }
  }

  /** Requests sent so far. */
  stats(): WriteThroughStats {
    const c = this.counts;
    return { ...c, readRequests: c.getItem + c.query, writeRequests: c.putItem + c.deleteItem };
  }

  private declare<S>(name: string, create: () => S): S {
    let state = this.states.get(name) as S | undefined;
    if (state === undefined) this.states.set(name, (state = create()));
    return state;
  }

  private issue(itemId: string, kind: Kind, send: () => Promise<unknown>): void {
    this.counts[kind]++;
    const previous = this.tails.get(itemId) ?? Promise.resolve();
    const done = previous
      .then(() => this.limited(send))
      .catch((error: unknown) => {
        this.failure ??= { error };
      });
    this.tails.set(itemId, done);
    this.inFlight.add(done);
    void done.then(() => this.inFlight.delete(done));
  }

  private async limited(send: () => Promise<unknown>): Promise<void> {
    // A finishing request hands its slot straight to the next waiter.
    if (this.running >= this.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      await send();
    } finally {
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.running--;
    }
  }
}
