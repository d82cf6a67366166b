/**
 * Key groups: a fixed number K of hash-range buckets, the analogue of Flink's key groups (its
 * "max parallelism"). Key group g holds the hash keys h with floor(h × K / 2^128) = g.
 *
 * They are defined on the Kinesis hash-key space rather than on shard ids because shards come
 * and go: SplitShard and MergeShards move hash ranges between shards, so a shard's state is
 * found again by the hash range it covers. A shard's range overlaps a contiguous span of key
 * groups (`keyGroupsOfRange`). When the shard count is a power of two dividing K, the even
 * ranges CreateStream makes are unions of whole key groups; otherwise a key group at a shard
 * boundary is shared by the two shards.
 */
import { FlambdaError, PlanError } from '../core/errors.ts';
import { hashKeyWords, wordsToHashKey } from './hash-words.ts';
import { md5Words } from './md5.ts';
import type { HashKeyRange } from './shard-ranges.ts';

/** The key-group count used unless a job sets another one. */
export const DEFAULT_KEY_GROUPS = 256;

/** The largest key-group count accepted: 2^15, Flink's upper bound for max parallelism. */
export const MAX_KEY_GROUPS = 32_768;

const TWO_32 = 0x1_0000_0000;

/** Throws a PlanError unless `keyGroups` is an integer in 1..MAX_KEY_GROUPS. */
export function checkKeyGroups(keyGroups: number): void {
  if (!Number.isInteger(keyGroups) || keyGroups < 1 || keyGroups > MAX_KEY_GROUPS) {
    throw new PlanError(`key-group count must be an integer from 1 to ${MAX_KEY_GROUPS}, got ${String(keyGroups)}`);
  }
}

/** The key group of a hash key: floor(hash × keyGroups / 2^128). */
export function keyGroupOfHash(hash: bigint, keyGroups: number): number {
  checkKeyGroups(keyGroups);
  const [w0, w1, w2, w3] = hashKeyWords(hash);
  return keyGroupOfWords(w0, w1, w2, w3, keyGroups);
}

/** The key group of an encoded key: the key group of its Kinesis hash key (MD5). */
export function keyGroupOf(encodedKey: string, keyGroups: number): number {
  checkKeyGroups(keyGroups);
  const words = md5Words(encodedKey);
  return keyGroupOfWords(words[0] as number, words[1] as number, words[2] as number, words[3] as number, keyGroups);
}

/** An inclusive span of key groups. */
export interface KeyGroupSpan {
  readonly startKeyGroup: number;
  readonly endKeyGroup: number;
}

/** The key groups a shard's hash-key range overlaps, inclusive at both ends. */
export function keyGroupsOfRange(range: HashKeyRange, keyGroups: number): KeyGroupSpan {
  if (range.startingHashKey > range.endingHashKey) {
    throw new FlambdaError(
      `hash-key range ${range.startingHashKey}..${range.endingHashKey} is empty`,
      'internal',
      'fail',
    );
  }
  return {
    startKeyGroup: keyGroupOfHash(range.startingHashKey, keyGroups),
    endKeyGroup: keyGroupOfHash(range.endingHashKey, keyGroups),
  };
}

/**
 * floor(h × K / 2^128) for h given as four words, without BigInt in the common case.
 *
 * With h = w0 × 2^96 + rest (rest < 2^96): h × K / 2^128 = (w0 × K + rest × K / 2^96) / 2^32,
 * and rest × K / 2^96 < K. w0 × K < 2^47 is exact in a double, so if its remainder mod 2^32 is at
 * most 2^32 - K, adding the fraction cannot carry and the quotient is the answer. Otherwise
 * (probability below K / 2^32) compute exactly.
 */
function keyGroupOfWords(w0: number, w1: number, w2: number, w3: number, keyGroups: number): number {
  const scaled = w0 * keyGroups;
  const quotient = Math.floor(scaled / TWO_32);
  if (scaled - quotient * TWO_32 <= TWO_32 - keyGroups) return quotient;
  return Number((wordsToHashKey(w0, w1, w2, w3) * BigInt(keyGroups)) >> 128n);
}
