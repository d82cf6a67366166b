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

/** A shard's hash-key range and the shards it was split or merged from. */
export interface ShardLineage {
  readonly range: HashKeyRange;
  /** ParentShardId and AdjacentParentShardId, when the stream still lists them. */
  readonly parents: readonly string[];
}

/**
 * Every shard of `streamName` (open and closed, as ListShards returns them) with its range and
 * parents, by shard id: a stage handler reads its shard's range and, for a shard without a
 * checkpoint, its parents' state (state/shard-state.ts).
 */
export async function shardLineages(client: Pick<KinesisClient, 'send'>, streamName: string): Promise<Map<string, ShardLineage>> {
  const out = new Map<string, ShardLineage>();
  for (const shard of await listShardsOf(client, streamName)) {
    const start = shard.HashKeyRange?.StartingHashKey;
    const end = shard.HashKeyRange?.EndingHashKey;
    if (shard.ShardId === undefined || start === undefined || end === undefined) continue;
    const parents = [shard.ParentShardId, shard.AdjacentParentShardId].filter((p): p is string => p !== undefined && p !== '');
    out.set(shard.ShardId, { range: { startingHashKey: BigInt(start), endingHashKey: BigInt(end) }, parents });
  }
  return out;
}
