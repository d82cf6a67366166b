/**
 * Heartbeats for idle shards: a scheduled function (EventBridge, every minute by default) writes
 * one heartbeat record to every open shard of each stream it is given. A stage handler reading a
 * heartbeat advances its processing time (processing-time timers fire) and, on a source shard
 * with an idleness timeout, moves the watermark of a shard that gets no data
 * (stage-input/source-reader.ts), so downstream windows still close.
 *
 * Each record goes exactly to its shard: ExplicitHashKey = the shard's StartingHashKey, and the
 * record names its target (`to`), so a record that lands on another shard after a reshard is
 * recognised and dropped by the reader, and the next heartbeat goes to the new shards.
 */
import { PutRecordsCommand } from '@aws-sdk/client-kinesis';
import type { KinesisClient, PutRecordsRequestEntry } from '@aws-sdk/client-kinesis';
import type { Schema } from '../../core/types.ts';
import { TransientError } from '../../core/errors.ts';
import { BundleCodec } from '../kinesis/bundle-codec.ts';
import { listOpenShards, MAX_PUT_RECORDS_ENTRIES } from '../kinesis/kinesis-writer.ts';
import { retryPolicy } from '../../core/retry.ts';
import type { RetryOptions } from '../../core/retry.ts';

/** The producer a scheduled heartbeat names (readers accept heartbeats from any producer). */
export const HEARTBEAT_PRODUCER = { stage: 'heartbeat', shard: 'schedule' } as const;

/** Heartbeats carry no rows, so any schema encodes them. */
const NO_ROWS: Schema = { fields: [] };

/** What one {@link writeHeartbeats} call did. */
export interface HeartbeatReport {
  /** Records written, per stream. */
  readonly shards: Record<string, number>;
  /** PutRecords calls, retries included. */
  readonly calls: number;
}

/**
 * Writes a heartbeat at processing time `at` to every open shard of every stream. Entries
 * Kinesis rejects (throttling) are retried alone with backoff. `watermark` +∞ marks the end of a
 * bounded input (source readers then emit +∞); scheduled heartbeats leave it at −∞.
 *
 * @throws TransientError when an entry still fails after the retries.
 */
export async function writeHeartbeats(
  client: Pick<KinesisClient, 'send'>,
  streams: readonly string[],
  at: number,
  retry: RetryOptions = {},
  watermark = -Infinity,
): Promise<HeartbeatReport> {
  const policy = retryPolicy(retry, { maxAttempts: 5, baseDelayMs: 100 });
  const codec = new BundleCodec(NO_ROWS);
  const shards: Record<string, number> = {};
  let calls = 0;
  for (const streamName of streams) {
    const open = await listOpenShards(client as KinesisClient, streamName);
    let pending: PutRecordsRequestEntry[] = open.map((shard) => {
      const record = codec.encodeHeartbeat(
        { producerStage: HEARTBEAT_PRODUCER.stage, producerShard: HEARTBEAT_PRODUCER.shard, targetShard: shard.shardId, partitionKey: 'heartbeat' },
        at,
        watermark,
      );
      return { Data: record.data, PartitionKey: 'heartbeat', ExplicitHashKey: shard.range.startingHashKey.toString(10) };
    });
    shards[streamName] = pending.length;
    for (let failures = 0; pending.length > 0; ) {
      const failed: PutRecordsRequestEntry[] = [];
      for (let i = 0; i < pending.length; i += MAX_PUT_RECORDS_ENTRIES) {
        const entries = pending.slice(i, i + MAX_PUT_RECORDS_ENTRIES);
        calls++;
        const output = await client.send(new PutRecordsCommand({ StreamName: streamName, Records: entries }));
        output.Records?.forEach((result, j) => {
          if (result.ErrorCode !== undefined) failed.push(entries[j] as PutRecordsRequestEntry);
        });
      }
      pending = failed;
      if (pending.length === 0) break;
      failures++;
      if (failures >= policy.maxAttempts) {
        throw new TransientError(`${pending.length} heartbeat(s) to stream '${streamName}' still failed after ${failures} attempts`);
      }
      await policy.sleep(policy.delay(failures));
    }
  }
  return { shards, calls };
}
