/**
 * Partition key → hash key, exactly as Kinesis Data Streams does it.
 *
 * Kinesis "uses an MD5 hash function to map partition keys to 128-bit integer values and to map
 * associated data records to shards" (PutRecord API reference, `PartitionKey`). The 128-bit
 * integer is the digest read big-endian, which is why shard hash ranges are decimal numbers in
 * 0..2^128-1 (ListShards `HashKeyRange`). This module is the exact, BigInt reference; the
 * partitioner's fast path is tested against it.
 */
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';

/** The number of distinct hash keys: 2^128. */
export const HASH_KEY_SPACE = 2n ** 128n;

/** The largest hash key, 2^128 - 1: the ending hash key of a stream's last shard. */
export const MAX_HASH_KEY = HASH_KEY_SPACE - 1n;

/**
 * Kinesis limits PartitionKey to 256 characters (PutRecord API reference, length constraints
 * 1..256).
 */
export const MAX_PARTITION_KEY_LENGTH = 256;

/**
 * The hash key Kinesis assigns to a partition key: MD5 of the key's UTF-8 bytes, read as an
 * unsigned 128-bit big-endian integer.
 */
export function md5HashKey(partitionKey: string): bigint {
  return BigInt('0x' + createHash('md5').update(partitionKey, 'utf8').digest('hex'));
}

/** The key fields of a PutRecord(s) entry. */
export interface KinesisRecordKeys {
  /** Always present, as Kinesis requires, and within the 1..256 character limit. */
  readonly partitionKey: string;
  /**
   * Present when the encoded key cannot be sent as the partition key itself: the decimal hash
   * key (the pattern `0|([1-9]\d{0,38})` Kinesis accepts), which overrides the partition key's
   * hash so the record still lands where `md5HashKey(encodedKey)` says.
   */
  readonly explicitHashKey?: string;
}

/**
 * The PartitionKey/ExplicitHashKey pair that routes a record with this encoded key to the shard
 * Kinesis would pick for `md5HashKey(encodedKey)`.
 *
 * A key of 1..256 characters that is also at most 256 UTF-8 bytes is sent as is and Kinesis
 * hashes it itself (the byte bound keeps us valid whether the service counts characters or
 * bytes). Longer and empty keys, which PutRecord would reject, are sent with the hex MD5 as the
 * partition key and the hash key as ExplicitHashKey.
 */
export function kinesisRecordKeys(encodedKey: string): KinesisRecordKeys {
  if (
    encodedKey.length >= 1 &&
    encodedKey.length <= MAX_PARTITION_KEY_LENGTH &&
    Buffer.byteLength(encodedKey, 'utf8') <= MAX_PARTITION_KEY_LENGTH
  ) {
    return { partitionKey: encodedKey };
  }
  const hex = createHash('md5').update(encodedKey, 'utf8').digest('hex');
  return { partitionKey: hex, explicitHashKey: BigInt('0x' + hex).toString(10) };
}
