/**
 * Kinesalite (an in-process Kinesis emulator with exact shard hash ranges) for tests, started on
 * 127.0.0.1 by the tests themselves, plus stream helpers: create and wait, reshard and wait, read
 * a whole shard back.
 */
import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CreateStreamCommand,
  DescribeStreamSummaryCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  ListShardsCommand,
} from '@aws-sdk/client-kinesis';
import type { KinesisClient, Shard } from '@aws-sdk/client-kinesis';
import { createKinesisClient } from '../../shared/aws/kinesis/client.ts';

/** Kinesalite's factory: an http.Server serving the Kinesis JSON API. */
type KinesaliteFactory = (options: { createStreamMs: number; deleteStreamMs: number; updateStreamMs: number; shardLimit?: number }) => Server;

// kinesalite is CommonJS without type declarations.
const kinesalite = createRequire(import.meta.url)('kinesalite') as KinesaliteFactory;

/** A running emulator. */
export interface KinesaliteHandle {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** Stops the server (and its in-memory store). */
  close(): Promise<void>;
}

/** Starts kinesalite on 127.0.0.1 on a free port, with instant stream state changes. */
export async function startKinesalite(): Promise<KinesaliteHandle> {
  const server = kinesalite({ createStreamMs: 0, deleteStreamMs: 0, updateStreamMs: 0, shardLimit: 1000 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}

/** A client for the emulator, with dummy credentials and region. */
export function emulatorClient(endpoint: string): KinesisClient {
  return createKinesisClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
}

/** Waits until the stream is ACTIVE (after create, split or merge). */
export async function waitForActive(client: KinesisClient, streamName: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const out = await client.send(new DescribeStreamSummaryCommand({ StreamName: streamName }));
    if (out.StreamDescriptionSummary?.StreamStatus === 'ACTIVE') return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`stream ${streamName} did not become ACTIVE`);
}

/** Creates a stream with `shardCount` shards and waits for it. */
export async function createStream(client: KinesisClient, streamName: string, shardCount: number): Promise<void> {
  await client.send(new CreateStreamCommand({ StreamName: streamName, ShardCount: shardCount }));
  await waitForActive(client, streamName);
}

/** Every shard of the stream, open and closed, as ListShards reports them. */
export async function listAllShards(client: KinesisClient, streamName: string): Promise<Shard[]> {
  const out = await client.send(new ListShardsCommand({ StreamName: streamName }));
  return out.Shards ?? [];
}

/** A record read back. */
export interface ReadRecord {
  readonly shardId: string;
  readonly sequenceNumber: string;
  readonly partitionKey: string;
  readonly data: Uint8Array;
}

/** Reads one shard from TRIM_HORIZON to its current end. */
export async function readShard(client: KinesisClient, streamName: string, shardId: string): Promise<ReadRecord[]> {
  const records: ReadRecord[] = [];
  const start = await client.send(
    new GetShardIteratorCommand({ StreamName: streamName, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' }),
  );
  let iterator = start.ShardIterator;
  while (iterator !== undefined) {
    const out = await client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 10_000 }));
    const batch = out.Records ?? [];
    for (const r of batch) {
      records.push({ shardId, sequenceNumber: r.SequenceNumber ?? '', partitionKey: r.PartitionKey ?? '', data: r.Data ?? new Uint8Array() });
    }
    // An open shard ends when a read returns nothing; a closed one when the iterator ends.
    if (batch.length === 0) break;
    iterator = out.NextShardIterator;
  }
  return records;
}

/** Reads every shard of the stream (open and closed): shard id → records in shard order. */
export async function readStream(client: KinesisClient, streamName: string): Promise<Map<string, ReadRecord[]>> {
  const result = new Map<string, ReadRecord[]>();
  for (const shard of await listAllShards(client, streamName)) {
    const id = shard.ShardId as string;
    result.set(id, await readShard(client, streamName, id));
  }
  return result;
}
