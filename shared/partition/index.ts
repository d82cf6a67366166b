/**
 * Partitioning identical to Kinesis: partition key → MD5 hash key → shard hash-key range, the
 * canonical key and sort-key encodings, and key groups over the hash-key space.
 */
export {
  HASH_KEY_SPACE,
  MAX_HASH_KEY,
  MAX_PARTITION_KEY_LENGTH,
  kinesisRecordKeys,
  md5HashKey,
} from './kinesis-hash.ts';
export type { KinesisRecordKeys } from './kinesis-hash.ts';
export { MAX_SHARD_COUNT, checkShardCount, hashRangeOrder, shardForHashKey, shardHashRanges } from './shard-ranges.ts';
export type { HashKeyRange } from './shard-ranges.ts';
export { KinesisPartitioner } from './partitioner.ts';
export { decodeKey, encodeKey } from './key-encoding.ts';
export { compareValues, encodeSortKey } from './sort-key.ts';
export type { SortDirection } from './sort-key.ts';
export {
  DEFAULT_KEY_GROUPS,
  MAX_KEY_GROUPS,
  checkKeyGroups,
  keyGroupOf,
  keyGroupOfHash,
  keyGroupsOfRange,
} from './key-groups.ts';
export type { KeyGroupSpan } from './key-groups.ts';
