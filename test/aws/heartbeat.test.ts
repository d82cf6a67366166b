/**
 * Heartbeats on kinesalite: one record lands on every open shard, addressed to it (also after a
 * split), and an idle source shard that reads them advances its watermark through the stage
 * handler into the exchange stream, so downstream windows can close.
 */
import { Buffer } from 'node:buffer';
import { PutRecordsCommand, SplitShardCommand } from '@aws-sdk/client-kinesis';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KinesisStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { Pipeline, count } from '../../shared/api/index.ts';
import { readHeartbeatStreams } from '../../shared/aws/env.ts';
import { HEARTBEAT_PRODUCER, writeHeartbeats } from '../../shared/aws/heartbeat/heartbeat-writer.ts';
import { BundleCodec } from '../../shared/aws/kinesis/bundle-codec.ts';
import { StageHandler } from '../../shared/aws/handler/stage-handler.ts';
import { createStateTable } from '../../shared/aws/state/create-state-table.ts';
import { PlanError } from '../../shared/core/errors.ts';
import { createStream, listAllShards, readShard, readStream, waitForActive } from './kinesis-emulator.ts';
import type { ReadRecord } from './kinesis-emulator.ts';
import { useEmulators } from './use-emulators.ts';

let kinesis: KinesisClient;
let dynamoDb: DynamoDBClient;
useEmulators((clients) => ({ kinesis, dynamoDb } = clients));

const text = (r: ReadRecord): string => Buffer.from(r.data).toString('utf8');

/** Records as Lambda hands them to a handler: one shard's records read back from the stream. */
function eventOf(streamName: string, records: readonly ReadRecord[], arrivalMs: number): KinesisStreamEvent {
  return {
    Records: records.map((r) => ({
      eventID: `${r.shardId}:${r.sequenceNumber}`,
      eventSourceARN: `arn:aws:kinesis:us-east-1:000000000000:stream/${streamName}`,
      eventSource: 'aws:kinesis',
      eventVersion: '1.0',
      eventName: 'aws:kinesis:record',
      invokeIdentityArn: 'arn:aws:iam::000000000000:role/test',
      awsRegion: 'us-east-1',
      kinesis: { kinesisSchemaVersion: '1.0', partitionKey: r.partitionKey, sequenceNumber: r.sequenceNumber, data: Buffer.from(r.data).toString('base64'), approximateArrivalTimestamp: arrivalMs / 1000 },
    })),
  };
}

describe('Function: writeHeartbeats', () => {
  it('writes one heartbeat to every open shard, addressed to it, after a split too', async () => {
    await createStream(kinesis, 'hb-split', 3);
    const [first] = await listAllShards(kinesis, 'hb-split');
    const start = BigInt(first!.HashKeyRange!.StartingHashKey!);
    const end = BigInt(first!.HashKeyRange!.EndingHashKey!);
    await kinesis.send(new SplitShardCommand({ StreamName: 'hb-split', ShardToSplit: first!.ShardId!, NewStartingHashKey: ((start + end) / 2n).toString() }));
    await waitForActive(kinesis, 'hb-split');

    const report = await writeHeartbeats(kinesis, ['hb-split'], 1_700_000_123_000);
    expect(report).toEqual({ shards: { 'hb-split': 4 }, calls: 1 });
    const byShard = await readStream(kinesis, 'hb-split');
    expect(byShard.get(first!.ShardId!)).toEqual([]); // closed parent: nothing
    const open = [...byShard].filter(([id]) => id !== first!.ShardId);
    expect(open).toHaveLength(4);
    for (const [shardId, records] of open) {
      expect(records).toHaveLength(1);
      const decoded = new BundleCodec({ fields: [] }).decode(text(records[0]!), shardId);
      expect(decoded).toMatchObject({ type: 'heartbeat', producerStage: HEARTBEAT_PRODUCER.stage, targetShard: shardId, at: 1_700_000_123_000 });
    }
  });

  it('reads its stream names from FLAMBDA_HEARTBEAT_STREAMS and names a bad value', () => {
    expect(readHeartbeatStreams({ FLAMBDA_HEARTBEAT_STREAMS: '["a","b"]' })).toEqual(['a', 'b']);
    expect(() => readHeartbeatStreams({})).toThrow(/FLAMBDA_HEARTBEAT_STREAMS is not set/);
    expect(() => readHeartbeatStreams({ FLAMBDA_HEARTBEAT_STREAMS: 'a,b' })).toThrow(PlanError);
    expect(() => readHeartbeatStreams({ FLAMBDA_HEARTBEAT_STREAMS: '[]' })).toThrow(/non-empty JSON array.*given "\[\]"/);
  });

  it('lets an idle source shard advance its watermark into the exchange stream', async () => {
    const p = new Pipeline('heartbeat-idle');
    p.source('ev', {
      schema: { k: 'INT NOT NULL', ts: 'TIMESTAMP(3) NOT NULL' },
      watermark: { column: 'ts', outOfOrdernessMs: 1_000, idleTimeoutMs: 60_000 },
      parallelism: 1,
    })
      .groupBy('k')
      .aggregate({ n: count() })
      .sinkTo('out');
    const graph = p.jobGraph({ parallelism: 1 });
    const [stage0, stage1] = graph.stages;
    await Promise.all([createStream(kinesis, 'hb-src', 1), createStream(kinesis, 'hb-x', 1), createStateTable(dynamoDb, 'hb-state')]);
    const handler = new StageHandler({
      graph,
      stageId: stage0!.id,
      code: { functions: p.userFunctions },
      dynamoDb,
      tableName: 'hb-state',
      kinesis,
      outputStreams: new Map([[stage1!.id, 'hb-x']]),
    });
    const dataAt = Date.parse('2026-11-29T12:00:00Z');
    const [shard] = await listAllShards(kinesis, 'hb-src');
    const shardId = shard!.ShardId!;
    await kinesis.send(new PutRecordsCommand({ StreamName: 'hb-src', Records: [{ PartitionKey: '1', Data: Buffer.from('{"k":1,"ts":"2026-11-29 12:00:00.000"}') }] }));
    expect((await handler.handle(eventOf('hb-src', await readShard(kinesis, 'hb-src', shardId), dataAt))).batchItemFailures).toEqual([]);

    // Ten minutes without data, then a heartbeat: idle for 10 min > 1 min timeout.
    await writeHeartbeats(kinesis, ['hb-src'], dataAt + 10 * 60_000);
    const all = await readShard(kinesis, 'hb-src', shardId);
    expect(all).toHaveLength(2);
    expect((await handler.handle(eventOf('hb-src', all.slice(1), dataAt + 10 * 60_000))).batchItemFailures).toEqual([]);

    const codec = new BundleCodec(stage1!.inputSchema);
    const watermarks = (await readShard(kinesis, 'hb-x', (await listAllShards(kinesis, 'hb-x'))[0]!.ShardId!))
      .map((r) => codec.decode(text(r), r.sequenceNumber))
      .map((d) => (d.type === 'heartbeat' ? undefined : d.watermark))
      .filter((w): w is number => w !== undefined);
    // First the data's watermark (ts − 1 s), then the idle advance (ts − 1 s + 9 min idle past the timeout).
    expect(watermarks[0]).toBe(dataAt - 1_000);
    expect(watermarks[watermarks.length - 1]).toBe(dataAt - 1_000 + 9 * 60_000);
  });
});
