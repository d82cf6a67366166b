/**
 * Nexmark q15 and q19 on the generated test data through real kinesalite streams and a dynalite state table,
 * each stage a StageHandler fed by a LocalEventSourceMapping (test/aws/faults/pipeline-driver.ts):
 * the sink's materialized final result (upsert by its key) must equal the reference's
 * result at downstream parallelism 1 and 4, and stay exact when, at parallelism 4, half the input
 * is processed, then the source stream's first shard is split (SplitShard) and two exchange
 * shards are merged (MergeShards), then the rest is put.
 *
 * No +∞ watermark is sent: a Kinesis source is never bounded, and neither query needs one
 * (q15 is a group aggregation, q19 a non-windowed Top-N; both emit updates as they go).
 */
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { asRecords, auctionLines, bidLines, nexmarkJob } from './faults/nexmark-jobs.ts';
import type { NexmarkQuery } from './faults/nexmark-jobs.ts';
import { canonical, mergeShards, openShards, runJobOnEmulators, splitShard } from './faults/pipeline-driver.ts';
import type { JobPhase, JobRunResult } from './faults/pipeline-driver.ts';
import { listAllShards } from './kinesis-emulator.ts';
import { useEmulators } from './use-emulators.ts';

const SOURCE_SHARDS = 2;

let kinesis: KinesisClient;
let dynamoDb: DynamoDBClient;
useEmulators((clients) => ({ kinesis, dynamoDb } = clients));

const lines = bidLines();
const half = Math.floor(lines.length / 2);

/** The run's single sink: no duplicates with other rows, no malformed retractions, no dead letters. */
function checkedRows(result: JobRunResult): ReturnType<NonNullable<ReturnType<JobRunResult['sinks']['get']>>['rows']> {
  expect(result.deadLetters).toEqual([]);
  expect(result.sinks.size).toBe(1);
  const sink = [...result.sinks.values()][0]!;
  expect(sink.violations).toEqual([]);
  expect(sink.view.malformed).toBe(0);
  expect(sink.applied).toBeGreaterThan(0);
  return sink.rows();
}

describe.each<NexmarkQuery>(['q15', 'q19'])('Nexmark %s on kinesalite and dynalite', (query) => {
  it.each([1, 4])('matches the expected result at parallelism %i', async (parallelism) => {
    const job = await nexmarkJob(query, parallelism, SOURCE_SHARDS);
    expect(job.graph.stages.map((s) => s.input.type)).toEqual(['source', 'exchange']);
    const result = await runJobOnEmulators({
      clients: { kinesis, dynamoDb },
      graph: job.graph,
      code: job.code,
      name: `nx-${query}-p${parallelism}`,
      batchSize: 7,
      phases: [{ put: new Map([['bid', asRecords(lines)]]) }],
    });
    expect(result.errors).toEqual([]);
    const exchange = result.mappings.get(job.graph.stages[1]!.id)!;
    expect(Object.keys(exchange.shards)).toHaveLength(parallelism);
    expect(result.mappings.get(job.graph.stages[0]!.id)!.records).toBe(lines.length);
    expect(canonical(checkedRows(result))).toEqual(canonical(job.expected));
  });

  it('stays exact across a source split and an exchange merge in the middle of the input (parallelism 4)', async () => {
    const job = await nexmarkJob(query, 4, SOURCE_SHARDS);
    const name = `nx-${query}-reshard`;
    const observed: { source: string[]; exchange: string[] } = { source: [], exchange: [] };
    const phases: JobPhase[] = [
      { put: new Map([['bid', asRecords(lines.slice(0, half))]]) },
      {
        before: async (running) => {
          const sourceStream = running.sourceStreams.get('bid')!;
          const exchangeStream = running.inputStreams.get(job.graph.stages[1]!.id)!;
          const [firstSource] = await openShards(kinesis, sourceStream);
          await splitShard(kinesis, sourceStream, firstSource!);
          const [a, b] = await openShards(kinesis, exchangeStream);
          await mergeShards(kinesis, exchangeStream, a!, b!);
          observed.source = (await listAllShards(kinesis, sourceStream)).map((s) => s.ShardId!);
          observed.exchange = (await listAllShards(kinesis, exchangeStream)).map((s) => s.ShardId!);
        },
        put: new Map([['bid', asRecords(lines.slice(half), half)]]),
      },
    ];
    const result = await runJobOnEmulators({
      clients: { kinesis, dynamoDb },
      graph: job.graph,
      code: job.code,
      name,
      batchSize: 7,
      shardDiscoveryIntervalMs: 50,
      phases,
    });
    // Misrouted bundles after the merge are re-sent by the writer, not failures.
    expect(result.errors).toEqual([]);
    // 2 source shards + 2 children of the split; 4 exchange shards + 1 merged.
    expect(observed.source).toHaveLength(SOURCE_SHARDS + 2);
    expect(observed.exchange).toHaveLength(4 + 1);
    const source = result.mappings.get(job.graph.stages[0]!.id)!;
    const exchange = result.mappings.get(job.graph.stages[1]!.id)!;
    expect(source.records).toBe(lines.length);
    // Every shard, children included, was read.
    expect(Object.values(source.shards).filter((s) => s.records > 0).length).toBeGreaterThanOrEqual(SOURCE_SHARDS + 1);
    expect(Object.values(exchange.shards).every((s) => s.status === 'finished' || s.status === 'active')).toBe(true);
    expect(exchange.shards[observed.exchange[observed.exchange.length - 1]!]?.records ?? 0).toBeGreaterThan(0);
    expect(canonical(checkedRows(result))).toEqual(canonical(job.expected));
  });
});

describe('a join (auctions FULL OUTER JOIN high bids) on kinesalite and dynalite', () => {
  const auctions = auctionLines();

  it.each([1, 4])('matches the expected result at parallelism %i, both sources put at once', async (parallelism) => {
    const job = await nexmarkJob('join', parallelism, SOURCE_SHARDS);
    const result = await runJobOnEmulators({
      clients: { kinesis, dynamoDb },
      graph: job.graph,
      code: job.code,
      name: `nx-join-p${parallelism}`,
      batchSize: 7,
      phases: [{ put: new Map([['auction', asRecords(auctions)], ['bid', asRecords(lines)]]) }],
    });
    expect(result.errors).toEqual([]);
    const join = result.mappings.get(job.graph.stages[2]!.id)!;
    expect(Object.keys(join.shards)).toHaveLength(parallelism);
    expect(canonical(checkedRows(result))).toEqual(canonical(job.expected));
  });

  it('stays exact when the bids come first and the join stream is resharded between the halves', async () => {
    const job = await nexmarkJob('join', 4, SOURCE_SHARDS);
    const phases: JobPhase[] = [
      { put: new Map([['bid', asRecords(lines.slice(0, half))]]) },
      {
        before: async (running) => {
          const joinStream = running.inputStreams.get(job.graph.stages[2]!.id)!;
          const [a, b] = await openShards(kinesis, joinStream);
          await mergeShards(kinesis, joinStream, a!, b!);
          const [first] = await openShards(kinesis, running.sourceStreams.get('auction')!);
          await splitShard(kinesis, running.sourceStreams.get('auction')!, first!);
        },
        put: new Map([['auction', asRecords(auctions)], ['bid', asRecords(lines.slice(half), half)]]),
      },
    ];
    const result = await runJobOnEmulators({
      clients: { kinesis, dynamoDb },
      graph: job.graph,
      code: job.code,
      name: 'nx-join-reshard',
      batchSize: 7,
      shardDiscoveryIntervalMs: 50,
      phases,
    });
    expect(result.errors).toEqual([]);
    expect(canonical(checkedRows(result))).toEqual(canonical(job.expected));
  });
});
