/**
 * Property: under any sequence of batches — prefetch, then value / map / sorted-map reads and
 * writes (with TTL on a controlled clock), then optionally a flush, an eviction of every clean
 * key or an invalidate() — the DynamoDB backend (on dynalite, with a cache of two keys) answers
 * every call exactly as the memory backend does, and what it leaves in DynamoDB is the memory
 * backend's final state.
 *
 * invalidate() discards unflushed changes, so the model is rolled back to a snapshot taken at
 * the last flush.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fc from 'fast-check';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDbStateStore } from '../../shared/aws/state/dynamodb-state-store.ts';
import { createStateTable } from '../../shared/aws/state/create-state-table.ts';
import { MemoryStateStore } from '../../shared/state/memory-backend.ts';
import type { StateSnapshot } from '../../shared/state/memory-backend.ts';
import type { KeyedStateStore, MapState, SortedMapState, ValueState } from '../../shared/state/state.ts';
import { startDynalite } from './dynamodb-emulator.ts';
import type { DynamoDbEmulator } from './dynamodb-emulator.ts';

const TABLE = 'flambda-state-property';
let emulator: DynamoDbEmulator;
let client: DynamoDBClient;
let run = 0;

beforeAll(async () => {
  emulator = await startDynalite();
  client = emulator.client();
  await createStateTable(client, TABLE);
});

afterAll(async () => {
  client?.destroy();
  await emulator?.stop();
});

const KEYS = ['a', 'b', 'c', '', '~k'] as const;
const SUB_KEYS = ['', 'a', 'b', 'ab', '~', 'a~b', '#~chunk#0', 'zz', 'L'.repeat(600)] as const;
const TTL_MS = 50;

/** The states every store under test declares. */
interface States {
  readonly v: ValueState<unknown>;
  readonly vt: ValueState<unknown>;
  readonly m: MapState<unknown>;
  readonly mt: MapState<unknown>;
  readonly s: SortedMapState<unknown>;
  readonly st: SortedMapState<unknown>;
}

function declare(store: KeyedStateStore): States {
  return {
    v: store.valueState('v'),
    vt: store.valueState('vt', { ttl: { ttlMs: TTL_MS, updateOnRead: true } }),
    m: store.mapState('m'),
    mt: store.mapState('mt', { ttl: { ttlMs: TTL_MS, updateOnRead: true } }),
    s: store.sortedMapState('s'),
    st: store.sortedMapState('st', { ttl: { ttlMs: TTL_MS } }),
  };
}

type ValueName = 'v' | 'vt';
type MapName = 'm' | 'mt' | 's' | 'st';
type SortedName = 's' | 'st';

type Op =
  | { readonly op: 'get'; readonly state: ValueName; readonly key: number }
  | { readonly op: 'put'; readonly state: ValueName; readonly key: number; readonly value: unknown }
  | { readonly op: 'delete'; readonly state: ValueName; readonly key: number }
  | { readonly op: 'mget'; readonly state: MapName; readonly key: number; readonly sub: string }
  | { readonly op: 'mput'; readonly state: MapName; readonly key: number; readonly sub: string; readonly value: unknown }
  | { readonly op: 'mdelete'; readonly state: MapName; readonly key: number; readonly sub: string }
  | { readonly op: 'entries' | 'size' | 'clear'; readonly state: MapName; readonly key: number }
  | { readonly op: 'ascending' | 'descending'; readonly state: SortedName; readonly key: number; readonly from: string | undefined; readonly limit: number }
  | { readonly op: 'first' | 'last'; readonly state: SortedName; readonly key: number }
  | { readonly op: 'tick'; readonly ms: number };

interface Batch {
  /** Indices into the batch's keys. */
  readonly keys: readonly number[];
  readonly ops: readonly Op[];
  readonly after: 'none' | 'flush' | 'flush-evict' | 'invalidate';
  readonly advance: number;
}

const valueArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -1000, max: 1000 }) },
  { weight: 3, arbitrary: fc.string({ maxLength: 8 }) },
  { weight: 2, arbitrary: fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }) },
  { weight: 2, arbitrary: fc.record({ n: fc.double(), l: fc.array(fc.oneof(fc.integer(), fc.constant(null)), { maxLength: 3 }), $x: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constantFrom({ $bigint: '1' }, [undefined, -0], null) },
  // Larger than one DynamoDB item: chunked.
  { weight: 1, arbitrary: fc.nat(9).map((n) => String(n).repeat(420_000)) },
);

const subKeyArb = fc.constantFrom(...SUB_KEYS);
const valueStateArb = fc.constantFrom<ValueName>('v', 'vt');
const mapStateArb = fc.constantFrom<MapName>('m', 'mt', 's', 'st');
const sortedStateArb = fc.constantFrom<SortedName>('s', 'st');

function opArb(keyCount: number): fc.Arbitrary<Op> {
  const key = fc.nat(keyCount - 1);
  return fc.oneof(
    { weight: 3, arbitrary: fc.record({ op: fc.constant('get' as const), state: valueStateArb, key }) },
    { weight: 4, arbitrary: fc.record({ op: fc.constant('put' as const), state: valueStateArb, key, value: valueArb }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), state: valueStateArb, key }) },
    { weight: 3, arbitrary: fc.record({ op: fc.constant('mget' as const), state: mapStateArb, key, sub: subKeyArb }) },
    { weight: 5, arbitrary: fc.record({ op: fc.constant('mput' as const), state: mapStateArb, key, sub: subKeyArb, value: valueArb }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('mdelete' as const), state: mapStateArb, key, sub: subKeyArb }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constantFrom('entries' as const, 'size' as const, 'clear' as const), state: mapStateArb, key }) },
    {
      weight: 2,
      arbitrary: fc.record({
        op: fc.constantFrom('ascending' as const, 'descending' as const),
        state: sortedStateArb,
        key,
        from: fc.option(subKeyArb, { nil: undefined }),
        limit: fc.integer({ min: 1, max: 5 }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ op: fc.constantFrom('first' as const, 'last' as const), state: sortedStateArb, key }) },
    // Steps of 25 and 50 against a TTL of 50 land exactly on expiry boundaries often.
    { weight: 2, arbitrary: fc.record({ op: fc.constant('tick' as const), ms: fc.constantFrom(10, 25, 50) }) },
  );
}

const batchArb: fc.Arbitrary<Batch> = fc
  .uniqueArray(fc.nat(KEYS.length - 1), { minLength: 1, maxLength: 3 })
  .chain((keys) =>
    fc.record({
      keys: fc.constant(keys),
      ops: fc.array(opArb(keys.length), { maxLength: 10 }),
      after: fc.constantFrom<Batch['after']>('none', 'flush', 'flush', 'flush-evict', 'invalidate'),
      advance: fc.constantFrom(0, 0, 25, 50),
    }),
  );

function take<T>(iterator: Iterator<T>, limit: number): T[] {
  const out: T[] = [];
  while (out.length < limit) {
    const r = iterator.next();
    if (r.done === true) break;
    out.push(r.value);
  }
  return out;
}

/** Applies one operation and returns what it observed (or undefined for writes). */
function apply(states: States, keys: readonly string[], op: Exclude<Op, { op: 'tick' }>): unknown {
  const key = keys[op.key]!;
  switch (op.op) {
    case 'get':
      return states[op.state].get(key);
    case 'put':
      return states[op.state].put(key, structuredClone(op.value));
    case 'delete':
      return states[op.state].delete(key);
    case 'mget':
      return states[op.state].get(key, op.sub);
    case 'mput':
      return states[op.state].put(key, op.sub, structuredClone(op.value));
    case 'mdelete':
      return states[op.state].delete(key, op.sub);
    case 'entries':
      return [...states[op.state].entries(key)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    case 'size':
      return states[op.state].size(key);
    case 'clear':
      return states[op.state].clear(key);
    case 'ascending':
      return take(states[op.state].ascending(key, op.from), op.limit);
    case 'descending':
      return take(states[op.state].descending(key, op.from), op.limit);
    case 'first':
      return states[op.state].first(key);
    case 'last':
      return states[op.state].last(key);
  }
}

/** Everything a store holds for the given keys, read through its public API. */
function dump(states: States): unknown {
  const out: Record<string, unknown> = {};
  for (const key of KEYS) {
    out[`${key}/v`] = states.v.get(key);
    out[`${key}/vt`] = states.vt.get(key);
    for (const name of ['m', 'mt', 's', 'st'] as const) {
      out[`${key}/${name}`] = [...states[name].entries(key)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    }
  }
  return out;
}

describe('DynamoDbStateStore against MemoryStateStore', () => {
  it('answers every call alike and ends with the same state', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(batchArb, { minLength: 1, maxLength: 7 }), async (batches) => {
        const time = { now: 1_000 };
        const clock = (): number => time.now;
        const operatorId = `prop${++run}`;
        let model = new MemoryStateStore(clock);
        let modelStates = declare(model);
        let flushed: StateSnapshot = model.snapshot();
        const real = new DynamoDbStateStore({ client, tableName: TABLE, operatorId, clock, maxCachedKeys: 2, maxCachedBytes: 600_000 });
        const realStates = declare(real);

        for (const batch of batches) {
          const keys = batch.keys.map((i) => KEYS[i]!);
          await real.prefetch(keys);
          for (const op of batch.ops) {
            if (op.op === 'tick') {
              time.now += op.ms;
              continue;
            }
            const expected = apply(modelStates, keys, op);
            const actual = apply(realStates, keys, op);
            expect(actual, JSON.stringify(op, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))).toEqual(expected);
          }
          if (batch.after === 'flush' || batch.after === 'flush-evict') {
            await real.flush();
            flushed = model.snapshot();
            if (batch.after === 'flush-evict') real.evictClean();
          } else if (batch.after === 'invalidate') {
            real.invalidate();
            model = MemoryStateStore.restore(flushed, clock);
            modelStates = declare(model);
          }
          time.now += batch.advance;
        }

        await real.flush();
        const cold = new DynamoDbStateStore({ client, tableName: TABLE, operatorId, clock });
        const coldStates = declare(cold);
        await cold.prefetch(KEYS);
        expect(dump(coldStates)).toEqual(dump(modelStates));
      }),
      { numRuns: 100 },
    );
  });
});
