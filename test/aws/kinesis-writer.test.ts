import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MergeShardsCommand, PutRecordsCommand, SplitShardCommand } from '@aws-sdk/client-kinesis';
import type { KinesisClient, PutRecordsCommandOutput, PutRecordsRequestEntry } from '@aws-sdk/client-kinesis';
import { BundleCodec, stageRecordKey } from '../../shared/aws/kinesis/bundle-codec.ts';
import type { RowBundle, StageRecord } from '../../shared/aws/kinesis/bundle-codec.ts';
import { KinesisStageWriter, MAX_PUT_RECORDS_ENTRIES, listOpenShards } from '../../shared/aws/kinesis/kinesis-writer.ts';
import type { KinesisStageWriterOptions, StageWriteBatch } from '../../shared/aws/kinesis/kinesis-writer.ts';
import { FlambdaError, PlanError, RecordError, TransientError } from '../../shared/core/errors.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import { schemaOf } from '../../shared/core/type-parse.ts';
import { HASH_KEY_SPACE, md5HashKey } from '../../shared/partition/kinesis-hash.ts';
import { encodeKey } from '../../shared/partition/key-encoding.ts';
import { KinesisPartitioner } from '../../shared/partition/partitioner.ts';
import { createStream, emulatorClient, listAllShards, readStream, startKinesalite, waitForActive } from './kinesis-emulator.ts';
import type { KinesaliteHandle, ReadRecord } from './kinesis-emulator.ts';

const schema = schemaOf({ user: 'STRING NOT NULL', seq: 'BIGINT NOT NULL', amount: 'DECIMAL(10, 2)' });
const codec = new BundleCodec(schema);

let emulator: KinesaliteHandle;
let client: KinesisClient;
let streamCounter = 0;

beforeAll(async () => {
  emulator = await startKinesalite();
  client = emulatorClient(emulator.endpoint);
});

afterAll(async () => {
  client.destroy();
  await emulator.close();
});

/** A fresh stream with `shards` shards. */
async function newStream(shards: number): Promise<string> {
  const name = `exchange-${++streamCounter}`;
  await createStream(client, name, shards);
  return name;
}

/** A writer for `streamName` with fast, deterministic backoff. */
function writer(streamName: string, options: Partial<KinesisStageWriterOptions> = {}): KinesisStageWriter {
  return new KinesisStageWriter({
    client,
    streamName,
    schema,
    distribution: { type: 'hash', keys: ['user'] },
    producerStage: 'stage-0',
    producerShard: 'shardId-000000000007',
    baseDelayMs: 1,
    maxDelayMs: 4,
    ...options,
  });
}

/** `n` rows over `users` users; `seq` numbers them in emission order. */
function rows(n: number, users = 50, offset = 0): ChangeRow[] {
  return Array.from({ length: n }, (_, i) => ({
    kind: i % 5 === 4 ? '-U' : '+I',
    row: { user: `user-${(i * 7) % users}`, seq: offset + i, amount: BigInt(i) * 3n },
  }));
}

function batch(rowList: readonly ChangeRow[], watermark: number, first = '100', last = '200'): StageWriteBatch {
  return { first, last, rows: rowList, watermark };
}

/** A decoded record with where it was read from. */
interface Landed {
  readonly shardId: string;
  readonly raw: ReadRecord;
  readonly record: StageRecord;
}

/** Reads and decodes every record of the stream, per shard in shard order. */
async function landed(streamName: string): Promise<Landed[]> {
  const out: Landed[] = [];
  for (const [shardId, records] of await readStream(client, streamName)) {
    for (const raw of records) out.push({ shardId, raw, record: codec.decode(raw.data, `${shardId}@${raw.sequenceNumber}`) });
  }
  return out;
}

/** Records a receiver would accept: `to` matches the shard they were read from. */
function accepted(all: readonly Landed[]): Landed[] {
  return all.filter((l) => (l.record.type === 'heartbeat' ? l.record.targetShard : l.record.id.targetShard) === l.shardId);
}

/** The rows of accepted row bundles per shard, in shard order. */
function rowsByShard(all: readonly Landed[]): Map<string, ChangeRow[]> {
  const result = new Map<string, ChangeRow[]>();
  for (const l of accepted(all)) {
    if (l.record.type !== 'rows') continue;
    const list = result.get(l.shardId) ?? [];
    list.push(...l.record.rows);
    result.set(l.shardId, list);
  }
  return result;
}

/** Expected shard id of a row by the partitioner over the stream's open shards now. */
async function expectedShardOf(streamName: string): Promise<(row: ChangeRow) => string> {
  const open = await listOpenShards(client, streamName);
  const partitioner = new KinesisPartitioner(open.map((s) => s.range));
  return (row) => open[partitioner.shardOf(encodeKey([row.row['user'] ?? null]))]!.shardId;
}

type Send = (command: unknown) => Promise<unknown>;

/** Replaces `client.send` with `intercept` (given the real send) until the returned restore is called. */
function interceptSend(intercept: (command: unknown, send: Send) => Promise<unknown>): () => void {
  const target = client as unknown as { send: Send };
  const original = target.send;
  const real = original.bind(client);
  target.send = (command) => intercept(command, real);
  return () => {
    target.send = original;
  };
}

/**
 * Sends only the entries `fail` does not pick to Kinesis and reports the picked ones as failed
 * with `errorCode`, as Kinesis reports a partially failed PutRecords.
 */
async function partialPut(
  command: PutRecordsCommand,
  send: Send,
  fail: (index: number) => boolean,
  errorCode = 'ProvisionedThroughputExceededException',
): Promise<PutRecordsCommandOutput> {
  const entries = command.input.Records ?? [];
  const failed = entries.map((_, i) => fail(i));
  const kept = entries.filter((_, i) => !failed[i]);
  const real = kept.length > 0 ? ((await send(new PutRecordsCommand({ ...command.input, Records: kept }))) as PutRecordsCommandOutput) : undefined;
  let k = 0;
  return {
    $metadata: {},
    FailedRecordCount: entries.length - kept.length,
    Records: entries.map((_, i) => (failed[i] ? { ErrorCode: errorCode, ErrorMessage: 'Rate exceeded for shard' } : real!.Records![k++]!)),
  };
}

describe('Class: KinesisStageWriter', () => {
  describe('Method: write (routing)', () => {
    it('puts every row on the shard KinesisPartitioner computes, in order, one bundle per shard', async () => {
      const stream = await newStream(4);
      const input = rows(2_000);
      const stats = await writer(stream).write(batch(input, 5_000));
      expect(stats).toMatchObject({ records: 4, rowRecords: 4, watermarkRecords: 0, rows: 2_000, putCalls: 1, retriedEntries: 0 });

      const all = await landed(stream);
      expect(accepted(all)).toHaveLength(all.length);
      const shardOf = await expectedShardOf(stream);
      const byShard = rowsByShard(all);
      expect(byShard.size).toBe(4);
      for (const [shardId, list] of byShard) {
        // Exactly the rows the partitioner puts there, in emission order.
        expect(list).toEqual(input.filter((r) => shardOf(r) === shardId));
      }
      // The exact Kinesis rule: MD5(encoded key) lies in the shard's hash-key range.
      const ranges = new Map((await listAllShards(client, stream)).map((s) => [s.ShardId!, s.HashKeyRange!]));
      for (const [shardId, list] of byShard) {
        const range = ranges.get(shardId)!;
        for (const r of list) {
          const hash = md5HashKey(encodeKey([r.row['user'] ?? null]));
          expect(hash >= BigInt(range.StartingHashKey!) && hash <= BigInt(range.EndingHashKey!)).toBe(true);
        }
      }
      for (const l of all) {
        expect(l.raw.partitionKey).toBe('stage-0/shardId-000000000007');
        expect((l.record as RowBundle).watermark).toBe(5_000);
      }
    });

    it('keeps per-shard order across many parts per shard and across writes', async () => {
      const stream = await newStream(4);
      const w = writer(stream, { maxRecordBytes: 2_048 });
      const first = rows(600);
      const second = rows(600, 50, 600);
      const s1 = await w.write(batch(first, 1, '1', '10'));
      const s2 = await w.write(batch(second, 2, '11', '20'));
      expect(s1.rowRecords).toBeGreaterThan(8);
      expect(s2.rowRecords).toBeGreaterThan(8);
      // One record per shard per call: at least as many calls as the longest shard's parts.
      expect(s1.putCalls).toBeGreaterThanOrEqual(Math.ceil(s1.rowRecords / 4));

      const all = await landed(stream);
      const shardOf = await expectedShardOf(stream);
      for (const [shardId, list] of rowsByShard(all)) {
        expect(list).toEqual([...first, ...second].filter((r) => shardOf(r) === shardId));
      }
      // Parts of each (range, shard) arrive 0, 1, …, of-1 and only the last has the watermark.
      for (const shardId of new Set(all.map((l) => l.shardId))) {
        for (const range of ['1', '11']) {
          const parts = all.filter((l) => l.shardId === shardId && l.record.type === 'rows' && l.record.id.first === range).map((l) => l.record as RowBundle);
          expect(parts.map((p) => p.id.part)).toEqual(parts.map((_, i) => i));
          expect(parts.every((p) => p.id.parts === parts.length)).toBe(true);
          expect(parts.map((p) => p.watermark)).toEqual(parts.map((_, i) => (i === parts.length - 1 ? (range === '1' ? 1 : 2) : undefined)));
        }
      }
    });

    it('routes single to the shard owning hash key 0 and broadcast to every shard', async () => {
      const stream = await newStream(3);
      const input = rows(20);
      await writer(stream, { distribution: { type: 'single' } }).write(batch(input, 7));
      const open = await listOpenShards(client, stream);
      const firstShard = open.find((s) => s.range.startingHashKey === 0n)!.shardId;
      const byShard = rowsByShard(await landed(stream));
      expect([...byShard.keys()]).toEqual([firstShard]);
      expect(byShard.get(firstShard)).toEqual(input);

      const stream2 = await newStream(3);
      const stats = await writer(stream2, { distribution: { type: 'broadcast' } }).write(batch(input, 7));
      expect(stats.rows).toBe(60);
      const byShard2 = rowsByShard(await landed(stream2));
      expect(byShard2.size).toBe(3);
      for (const list of byShard2.values()) expect(list).toEqual(input);
    });

    it('rejects a row larger than a record before sending anything', async () => {
      const stream = await newStream(2);
      const w = writer(stream);
      const big: ChangeRow = { kind: '+I', row: { user: 'x'.repeat(1_100_000), seq: 1, amount: null } };
      const err = await w.write(batch([...rows(5), big, ...rows(5)], 0)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RecordError);
      // Named by its position in the batch, not within its shard's rows.
      expect((err as RecordError).position).toBe('row 5');
      expect((err as Error).message).toMatch(/^row 5 \(\+I\) for shard shardId-\d+ encodes to 1100\d{3} bytes/);
      expect(await landed(stream)).toEqual([]);
    });

    it('validates its options', () => {
      expect(() => writer('s', { distribution: { type: 'hash', keys: ['nope'] } })).toThrow(PlanError);
      expect(() => writer('s', { maxAttempts: 0 })).toThrow(/maxAttempts must be an integer 1\.\.100 \(given 0\)/);
      expect(() => writer('s', { baseDelayMs: 10, maxDelayMs: 5 })).toThrow(PlanError);
    });
  });

  describe('Method: write (watermarks)', () => {
    it('sends watermark-only records to shards that got no rows, only when their watermark advanced', async () => {
      const stream = await newStream(4);
      const w = writer(stream);
      const shardOf = await expectedShardOf(stream);
      // Rows for one shard only.
      const all = rows(200);
      const target = shardOf(all[0]!);
      const some = all.filter((r) => shardOf(r) === target);

      const s1 = await w.write(batch(some, 1_000, '1', '1'));
      expect(s1).toMatchObject({ rowRecords: 1, watermarkRecords: 3 });
      const s2 = await w.write(batch(some, 1_000, '2', '2'));
      expect(s2).toMatchObject({ rowRecords: 1, watermarkRecords: 0 });
      const s3 = await w.write(batch([], 2_000, '3', '3'));
      expect(s3).toMatchObject({ rowRecords: 0, watermarkRecords: 4, putCalls: 1 });
      const s4 = await w.write(batch([], 1_500, '4', '4'));
      expect(s4).toMatchObject({ records: 0, putCalls: 0 });

      const summary = (l: Landed): [string, string, number | undefined] =>
        l.record.type === 'heartbeat' ? ['h', '', l.record.watermark] : [l.record.type, l.record.id.first, l.record.watermark];
      const records = await landed(stream);
      for (const shardId of new Set(records.map((l) => l.shardId))) {
        const seen = records.filter((l) => l.shardId === shardId).map(summary);
        expect(seen).toEqual(
          shardId === target
            ? [['rows', '1', 1_000], ['rows', '2', 1_000], ['watermark', '3', 2_000]]
            : [['watermark', '1', 1_000], ['watermark', '3', 2_000]],
        );
      }
    });

    it('sends heartbeats to every shard with the last watermark', async () => {
      const stream = await newStream(3);
      const w = writer(stream);
      await w.write(batch([], 42));
      const stats = await w.heartbeat(1_700_000_000_000);
      expect(stats).toMatchObject({ heartbeatRecords: 3, records: 3, putCalls: 1 });
      const beats = (await landed(stream)).filter((l) => l.record.type === 'heartbeat');
      expect(beats.map((l) => l.record)).toEqual(
        beats.map((l) => ({ type: 'heartbeat', producerStage: 'stage-0', producerShard: 'shardId-000000000007', targetShard: l.shardId, at: 1_700_000_000_000, watermark: 42 })),
      );
    });
  });

  describe('Method: write (resharding)', () => {
    it('detects a split from the PutRecords ShardIds, refreshes and re-routes to the children', async () => {
      const stream = await newStream(2);
      const w = writer(stream);
      const before = rows(300, 40);
      await w.write(batch(before, 1, '1', '1'));
      const stale = w.targetShards.map((s) => s.shardId);

      // Split shard 0 in the middle, behind the writer's back.
      const [shard0] = await listOpenShards(client, stream);
      const middle = (shard0!.range.startingHashKey + shard0!.range.endingHashKey + 1n) / 2n;
      await client.send(new SplitShardCommand({ StreamName: stream, ShardToSplit: shard0!.shardId, NewStartingHashKey: middle.toString() }));
      await waitForActive(client, stream);

      const after = rows(300, 40, 300);
      const stats = await w.write(batch(after, 2, '2', '2'));
      expect(stats.misroutedEntries).toBe(1);
      expect(stats.shardRefreshes).toBe(1);
      expect(w.targetShards.map((s) => s.shardId)).not.toEqual(stale);
      expect(w.targetShards).toHaveLength(3);

      const all = await landed(stream);
      // The misrouted bundle sits in the child holding the parent's starting hash key; receivers drop it.
      const dropped = all.filter((l) => !accepted(all).includes(l));
      expect(dropped).toHaveLength(1);
      expect((dropped[0]!.record as RowBundle).id.targetShard).toBe(shard0!.shardId);

      // Every row of the second batch is accepted exactly once, on the shard the new map computes.
      const shardOf = await expectedShardOf(stream);
      const byShard = rowsByShard(all);
      const secondBatch = [...byShard.values()].flat().filter((r) => (r.row['seq'] as number) >= 300);
      expect(secondBatch.map((r) => r.row['seq']).sort((a, b) => (a as number) - (b as number))).toEqual(after.map((r) => r.row['seq']));
      for (const [shardId, list] of byShard) {
        expect(list.filter((r) => (r.row['seq'] as number) >= 300)).toEqual(after.filter((r) => shardOf(r) === shardId));
      }
      // Each key reads in order: parent (drained first) then child.
      const parent = byShard.get(shard0!.shardId) ?? [];
      expect(parent).toEqual(before.filter((r) => md5HashKey(encodeKey([r.row['user'] ?? null])) < shard0!.range.endingHashKey + 1n));
    });

    it('re-routes after a merge too, and a fresh write routes correctly from the start', async () => {
      const stream = await newStream(4);
      const w = writer(stream);
      await w.write(batch(rows(100), 1, '1', '1'));
      const [a, b] = await listOpenShards(client, stream);
      await client.send(new MergeShardsCommand({ StreamName: stream, ShardToMerge: a!.shardId, AdjacentShardToMerge: b!.shardId }));
      await waitForActive(client, stream);

      const after = rows(100, 50, 100);
      const stats = await w.write(batch(after, 2, '2', '2'));
      expect(stats.misroutedEntries).toBe(2);
      expect(stats.shardRefreshes).toBe(1);
      expect(w.targetShards).toHaveLength(3);

      const shardOf = await expectedShardOf(stream);
      for (const [shardId, list] of rowsByShard(await landed(stream))) {
        expect(list.filter((r) => (r.row['seq'] as number) >= 100)).toEqual(after.filter((r) => shardOf(r) === shardId));
      }
      const later = await w.write(batch(rows(10, 50, 200), 3, '3', '3'));
      expect(later.misroutedEntries).toBe(0);
    });

    it('gives every new child shard the watermark', async () => {
      const stream = await newStream(1);
      const w = writer(stream);
      await w.write(batch([], 10, '1', '1'));
      const [only] = await listOpenShards(client, stream);
      await client.send(new SplitShardCommand({ StreamName: stream, ShardToSplit: only!.shardId, NewStartingHashKey: (HASH_KEY_SPACE / 2n).toString() }));
      await waitForActive(client, stream);
      const stats = await w.write(batch([], 20, '2', '2'));
      expect(stats).toMatchObject({ misroutedEntries: 1, watermarkRecords: 2 });
      const children = (await listOpenShards(client, stream)).map((s) => s.shardId);
      const marks = accepted(await landed(stream)).filter((l) => children.includes(l.shardId));
      expect(marks.map((l) => [l.shardId, (l.record as { watermark: number }).watermark]).sort()).toEqual(children.map((id) => [id, 20]).sort());
    });
  });

  describe('Method: write (failures)', () => {
    it('retries only the failed entries and keeps shard order', async () => {
      const stream = await newStream(4);
      const calls: PutRecordsRequestEntry[][] = [];
      const restore = interceptSend(async (command, send) => {
        if (!(command instanceof PutRecordsCommand)) return send(command);
        calls.push(command.input.Records ?? []);
        // The first attempt fails every other entry.
        return calls.length === 1 ? partialPut(command, send, (i) => i % 2 === 1) : send(command);
      });
      const sleeps: number[] = [];
      try {
        const input = rows(400);
        const w = writer(stream, { baseDelayMs: 100, maxDelayMs: 1_000, sleep: async (ms) => void sleeps.push(ms), random: () => 0.5 });
        const stats = await w.write(batch(input, 9));
        expect(stats).toMatchObject({ records: 4, putCalls: 2, retriedEntries: 2 });
        expect(calls[0]).toHaveLength(4);
        // The retry call carries exactly the two failed entries, unchanged.
        expect(calls[1]).toEqual([calls[0]![1], calls[0]![3]]);
        expect(sleeps).toEqual([50]);

        const all = await landed(stream);
        expect(all).toHaveLength(4);
        const shardOf = await expectedShardOf(stream);
        for (const [shardId, list] of rowsByShard(all)) expect(list).toEqual(input.filter((r) => shardOf(r) === shardId));
      } finally {
        restore();
      }
    });

    it('never lets a later part overtake a throttled one', async () => {
      const stream = await newStream(4);
      let call = 0;
      let seed = 7;
      const random = (): number => {
        seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
        return seed / 2 ** 31;
      };
      const restore = interceptSend(async (command, send) => {
        if (!(command instanceof PutRecordsCommand)) return send(command);
        call++;
        // Throttle about 40% of the entries of the first 12 calls, InternalFailure now and then.
        return call <= 12 ? partialPut(command, send, () => random() < 0.4, call % 3 === 0 ? 'InternalFailure' : undefined) : send(command);
      });
      try {
        const input = rows(800);
        const stats = await writer(stream, { maxRecordBytes: 2_048, sleep: async () => {} }).write(batch(input, 3));
        expect(stats.retriedEntries).toBeGreaterThan(0);
        const all = await landed(stream);
        expect(all).toHaveLength(stats.records);
        const shardOf = await expectedShardOf(stream);
        for (const [shardId, list] of rowsByShard(all)) expect(list).toEqual(input.filter((r) => shardOf(r) === shardId));
        for (const shardId of new Set(all.map((l) => l.shardId))) {
          const parts = all.filter((l) => l.shardId === shardId).map((l) => (l.record as RowBundle).id.part);
          expect(parts).toEqual(parts.map((_, i) => i));
        }
      } finally {
        restore();
      }
    });

    it('retries a whole call that failed with a retryable error', async () => {
      const stream = await newStream(2);
      let failures = 1;
      const restore = interceptSend(async (command, send) => {
        if (command instanceof PutRecordsCommand && failures-- > 0) {
          throw Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable', $fault: 'server' });
        }
        return send(command);
      });
      try {
        const stats = await writer(stream, { sleep: async () => {} }).write(batch(rows(50), 1));
        expect(stats).toMatchObject({ records: 2, putCalls: 2, retriedEntries: 2 });
        expect(await landed(stream)).toHaveLength(2);
      } finally {
        restore();
      }
    });

    it('gives up after maxAttempts with a TransientError, backing off exponentially with full jitter', async () => {
      const stream = await newStream(2);
      const restore = interceptSend(async (command, send) =>
        command instanceof PutRecordsCommand ? partialPut(command, send, (i) => i === 0) : send(command),
      );
      const sleeps: number[] = [];
      try {
        const w = writer(stream, { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 500, random: () => 0.999, sleep: async (ms) => void sleeps.push(ms) });
        const err = await w.write(batch(rows(50), 1)).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(TransientError);
        expect((err as TransientError).retry).toBe('retry');
        expect((err as Error).message).toMatch(/failed 5 times \(last: ProvisionedThroughputExceededException: Rate exceeded for shard\)/);
        expect(sleeps).toEqual([99, 199, 399, 499]);
      } finally {
        restore();
      }
    });

    it('fails without retrying on a non-retryable error', async () => {
      let calls = 0;
      const restore = interceptSend(async (command, send) => {
        if (command instanceof PutRecordsCommand) calls++;
        return send(command);
      });
      try {
        const err = await writer('no-such-stream').write(batch(rows(5), 1)).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(FlambdaError);
        expect(err).not.toBeInstanceOf(TransientError);
        expect((err as FlambdaError).domain).toBe('external');
        expect((err as Error).message).toContain("ListShards on stream 'no-such-stream' failed: ResourceNotFoundException");
        expect(calls).toBe(0);
      } finally {
        restore();
      }
    });

    it('refuses concurrent writes', async () => {
      const stream = await newStream(1);
      const w = writer(stream);
      const first = w.write(batch(rows(5), 1));
      await expect(w.write(batch(rows(5), 2))).rejects.toThrow(/already writing/);
      await first;
    });
  });

  describe('Method: write (replays)', () => {
    it('produces byte-identical records with identical ids when the same input is written again', async () => {
      const stream = await newStream(4);
      const input = rows(500);
      await writer(stream, { maxRecordBytes: 4_096 }).write(batch(input, 8, '1000', '1999'));
      // A retried Lambda batch in a fresh container: a new writer, the same input.
      await writer(stream, { maxRecordBytes: 4_096 }).write(batch(input, 8, '1000', '1999'));

      for (const [, records] of await readStream(client, stream)) {
        expect(records.length % 2).toBe(0);
        const half = records.length / 2;
        const original = records.slice(0, half);
        const replay = records.slice(half);
        expect(replay.map((r) => Buffer.from(r.data).toString('base64'))).toEqual(original.map((r) => Buffer.from(r.data).toString('base64')));
        const keys = records.map((r) => stageRecordKey(codec.decode(r.data)));
        expect(keys.slice(half)).toEqual(keys.slice(0, half));
        expect(new Set(keys).size).toBe(half);
      }
    });
  });

  it('packs a round into calls of at most 500 entries', async () => {
    expect(MAX_PUT_RECORDS_ENTRIES).toBe(500);
    const stream = await newStream(600);
    const stats = await writer(stream, { distribution: { type: 'broadcast' } }).write(batch(rows(1), 1));
    expect(stats).toMatchObject({ records: 600, putCalls: 2 });
  });
});
