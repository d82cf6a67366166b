/**
 * The `lookup-l2` benchmark suite: how many lookups reach the dimension database in the first
 * 100,000 events after every Lambda container of a lookup-join stage was replaced (a
 * deployment, a scale-out), with the in-container cache only (`cold-l1-only`) and with the
 * DynamoDB second level behind it (`cold-l1-l2`, shared/aws/lookup-cache/).
 *
 * Setup, the same for both cases: 10,000 dimension keys; the probe stream hashed by the join key
 * onto 4 shards exactly as a Kinesis exchange routes it (so each shard sees a disjoint key
 * range, the seed's hash shuffle); per shard an L1 PARTIAL cache of 10,000 rows; batches of 500
 * events per shard, each batch's distinct uncached keys fetched in one call. A warm-up of
 * 100,000 events fills the caches; then every shard's containers are replaced (new L1s, new L2
 * decorators over the same DynamoDB table) and the next 100,000 events are measured. The source
 * is an in-process function that counts the keys asked of it; L2 lives in dynalite, started
 * in-process on 127.0.0.1.
 *
 * Figures: `source_lookups_per_1000` = keys the source was asked for per 1,000 measured events;
 * `l2_hits_per_1000`; `reduction` (cold-l1-l2 only) = the l1-only figure / this one, or the text
 * `every lookup served by L2` when no lookup reached the source.
 */
import { createDynamoDbClient } from '../aws/clients.ts';
import { startDynalite } from '../aws/local/emulators.ts';
import { createDynamoDbL2Source } from '../aws/lookup-cache/dynamodb-l2-source.ts';
import type { L2DimensionSource } from '../aws/lookup-cache/dynamodb-l2-source.ts';
import { createStateTable } from '../aws/state/create-state-table.ts';
import { schemaOf } from '../core/type-parse.ts';
import type { Row } from '../core/types.ts';
import { createCachedSource } from '../lookup/cached-source.ts';
import type { DimensionSource } from '../lookup/dimension-source.ts';
import { createFunctionSource } from '../lookup/function-source.ts';
import { encodeKey } from '../partition/key-encoding.ts';
import { KinesisPartitioner } from '../partition/partitioner.ts';
import { seededRandom } from './bench-input.ts';
import type { BenchResult } from './bench-common.ts';

/** Dimension keys. */
const KEYS = 10_000;
/** Shards of the hashed lookup stage. */
const SHARDS = 4;
/** Events per shard per batch. */
const BATCH = 500;
/** Events before the cold start. */
const WARM_UP = 100_000;

const schema = schemaOf({ id: 'BIGINT NOT NULL', value: 'STRING' });

/** Runs both cases over `events` measured events (default 100,000). */
export async function runLookupL2Suite(events: number): Promise<BenchResult[]> {
  const emulator = await startDynalite();
  const client = createDynamoDbClient({ endpoint: emulator.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' } });
  try {
    const results: BenchResult[] = [];
    let l1Only = 0;
    for (const withL2 of [false, true]) {
      const tableName = `lookup-l2-${withL2 ? 'on' : 'off'}`;
      await createStateTable(client, tableName);
      let asked = 0;
      const source: DimensionSource = createFunctionSource({
        table: 'dim',
        schema,
        lookup: (keys) => {
          asked += keys.length;
          return keys.map((k): Row => ({ id: k.id as number, value: `v${String(k.id)}` }));
        },
      });
      let l2s: L2DimensionSource[] = [];
      const containers = (): DimensionSource[] => {
        l2s = [];
        return Array.from({ length: SHARDS }, () => {
          let next: DimensionSource = source;
          if (withL2) {
            const l2 = createDynamoDbL2Source(source, { client, tableName, ttlMs: 3_600_000 });
            l2s.push(l2);
            next = l2;
          }
          return createCachedSource(next, { type: 'PARTIAL', maxRows: KEYS });
        });
      };
      const random = seededRandom(7);
      const partitioner = new KinesisPartitioner(SHARDS);
      const run = async (shards: DimensionSource[], count: number): Promise<void> => {
        let pending: Row[][] = shards.map(() => []);
        const flush = async (): Promise<void> => {
          await Promise.all(shards.map((s, i) => ((pending[i] as Row[]).length > 0 ? s.lookupMany(pending[i] as Row[]) : undefined)));
          pending = shards.map(() => []);
        };
        for (let e = 0; e < count; e++) {
          const id = Math.floor(random() * KEYS);
          const shard = partitioner.shardOf(encodeKey([id]));
          const list = pending[shard] as Row[];
          list.push({ id });
          if (list.length >= BATCH) await flush();
        }
        await flush();
      };
      await run(containers(), WARM_UP);
      asked = 0;
      const started = Date.now();
      await run(containers(), events);
      const perThousand = Math.round((asked * 1_000_000) / events) / 1000;
      const l2Hits = l2s.reduce((n, l2) => n + l2.metrics().l2Hits, 0);
      if (!withL2) l1Only = perThousand;
      results.push({
        suite: 'lookup-l2',
        case: withL2 ? 'cold-l1-l2' : 'cold-l1-only',
        events,
        keys: KEYS,
        shards: SHARDS,
        distribution: 'hash',
        source_lookups_per_1000: perThousand,
        l2_hits_per_1000: Math.round((l2Hits * 1_000_000) / events) / 1000,
        // With every key served by L2 the ratio is unbounded: say so rather than divide by zero.
        ...(withL2 ? { reduction: perThousand === 0 ? 'every lookup served by L2' : Math.round((l1Only / perThousand) * 10) / 10 } : {}),
        elapsed_ms: Date.now() - started,
      });
    }
    return results;
  } finally {
    client.destroy();
    await emulator.close();
  }
}
