/**
 * The hash-key range of one shard, open or closed, from ListShards: a stage handler needs its
 * input shard's range to load the timers of the keys that shard owns (a closed parent shard is
 * still read to its end after a split, so closed shards count too).
 */
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import { FlambdaError } from '../../core/errors.ts';
import type { HashKeyRange } from '../../partition/shard-ranges.ts';
import { listShardsOf } from './kinesis-writer.ts';

/**
 * Looks up `shardId` of `streamName`.
 *
 * @throws FlambdaError when the stream has no such shard; TransientError for retryable failures.
 */
export async function shardHashRange(client: Pick<KinesisClient, 'send'>, streamName: string, shardId: string): Promise<HashKeyRange> {
  const shard = (await listShardsOf(client, streamName)).find((s) => s.ShardId === shardId);
  const start = shard?.HashKeyRange?.StartingHashKey;
  const end = shard?.HashKeyRange?.EndingHashKey;
  if (start === undefined || end === undefined) throw new FlambdaError(`stream '${streamName}' has no shard '${shardId}' with a hash-key range`, 'external', 'fail');
  return { startingHashKey: BigInt(start), endingHashKey: BigInt(end) };
}
