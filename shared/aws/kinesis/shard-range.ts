/**
 * The hash-key range of one shard, open or closed, from ListShards: a stage handler needs its
 * input shard's range to load the timers of the keys that shard owns (a closed parent shard is
 * still read to its end after a split, so closed shards count too).
 */
import { ListShardsCommand } from '@aws-sdk/client-kinesis';
import type { KinesisClient, ListShardsCommandInput } from '@aws-sdk/client-kinesis';
import { FlambdaError, TransientError } from '../../core/errors.ts';
import type { HashKeyRange } from '../../partition/shard-ranges.ts';
import { isRetryableAwsError } from '../state/errors.ts';

/**
 * Looks up `shardId` of `streamName`.
 *
 * @throws FlambdaError when the stream has no such shard; TransientError for retryable failures.
 */
export async function shardHashRange(client: Pick<KinesisClient, 'send'>, streamName: string, shardId: string): Promise<HashKeyRange> {
  let nextToken: string | undefined;
  do {
    // ListShards takes either StreamName or NextToken, never both.
    const input: ListShardsCommandInput = nextToken === undefined ? { StreamName: streamName } : { NextToken: nextToken };
    let output;
    try {
      output = await client.send(new ListShardsCommand(input));
    } catch (error) {
      const message = `ListShards on stream '${streamName}' failed: ${(error as Error).message}`;
      throw isRetryableAwsError(error) ? new TransientError(message, { cause: error }) : new FlambdaError(message, 'external', 'fail', { cause: error });
    }
    for (const shard of output.Shards ?? []) {
      if (shard.ShardId !== shardId) continue;
      const start = shard.HashKeyRange?.StartingHashKey;
      const end = shard.HashKeyRange?.EndingHashKey;
      if (start === undefined || end === undefined) break;
      return { startingHashKey: BigInt(start), endingHashKey: BigInt(end) };
    }
    nextToken = output.NextToken;
  } while (nextToken !== undefined);
  throw new FlambdaError(`stream '${streamName}' has no shard '${shardId}' with a hash-key range`, 'external', 'fail');
}
