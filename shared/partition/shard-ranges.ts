/**
 * Shard hash-key ranges, as Kinesis creates and reports them.
 *
 * CreateStream with N shards splits the hash-key space 0..2^128-1 evenly: shard i starts at
 * floor(i * 2^128 / N) and ends one below the next shard's start, the last shard ending at
 * 2^128 - 1 (e.g. 3 shards end at …070484 and …140969, as DescribeStream/ListShards report).
 * After SplitShard/MergeShards the open shards still tile the space, but unevenly, so lookups
 * here work on any list of disjoint ranges.
 */
import { FlambdaError, PlanError } from '../core/errors.ts';
import { HASH_KEY_SPACE, MAX_HASH_KEY } from './kinesis-hash.ts';

/** A shard's inclusive hash-key range (ListShards `HashKeyRange`, parsed to bigint). */
export interface HashKeyRange {
  readonly startingHashKey: bigint;
  readonly endingHashKey: bigint;
}

/**
 * The largest shard count accepted. Kinesis caps a stream's shards by account quota; 10000 is
 * far above any stream Flambda plans and keeps precomputed lookup tables small.
 */
export const MAX_SHARD_COUNT = 10_000;

/** Throws a PlanError unless `shardCount` is an integer in 1..MAX_SHARD_COUNT. */
export function checkShardCount(shardCount: number): void {
  if (!Number.isInteger(shardCount) || shardCount < 1 || shardCount > MAX_SHARD_COUNT) {
    throw new PlanError(`shard count must be an integer from 1 to ${MAX_SHARD_COUNT}, got ${String(shardCount)}`);
  }
}

/** The hash-key ranges CreateStream gives a stream of `shardCount` shards, in shard order. */
export function shardHashRanges(shardCount: number): HashKeyRange[] {
  checkShardCount(shardCount);
  const n = BigInt(shardCount);
  const ranges: HashKeyRange[] = [];
  let start = 0n;
  for (let i = 1n; i <= n; i++) {
    const nextStart = (i * HASH_KEY_SPACE) / n;
    ranges.push({ startingHashKey: start, endingHashKey: nextStart - 1n });
    start = nextStart;
  }
  return ranges;
}

/**
 * Checks that `ranges` is a non-empty list of disjoint ranges inside 0..2^128-1, in any order
 * (ListShards does not promise hash order), and returns their indices in ascending hash order.
 * Gaps are allowed; a hash key in a gap belongs to no range. Throws a PlanError otherwise.
 */
export function hashRangeOrder(ranges: readonly HashKeyRange[]): number[] {
  if (ranges.length === 0) throw new PlanError('hash-key range list is empty');
  if (ranges.length > MAX_SHARD_COUNT) {
    throw new PlanError(`at most ${MAX_SHARD_COUNT} hash-key ranges are supported, got ${ranges.length}`);
  }
  ranges.forEach((range, i) => {
    const { startingHashKey: start, endingHashKey: end } = range;
    if (start < 0n || end > MAX_HASH_KEY || start > end) {
      throw new PlanError(`hash-key range ${i} (${start}..${end}) is not a non-empty range inside 0..2^128-1`);
    }
  });
  const sorted = ranges
    .map((range, index) => ({ range, index }))
    .sort((a, b) => compareBigInt(a.range.startingHashKey, b.range.startingHashKey));
  let previous: { range: HashKeyRange; index: number } | undefined;
  for (const entry of sorted) {
    if (previous !== undefined && entry.range.startingHashKey <= previous.range.endingHashKey) {
      const p = previous.range;
      const c = entry.range;
      throw new PlanError(
        `hash-key ranges ${previous.index} (${p.startingHashKey}..${p.endingHashKey}) and ` +
          `${entry.index} (${c.startingHashKey}..${c.endingHashKey}) overlap`,
      );
    }
    previous = entry;
  }
  return sorted.map((entry) => entry.index);
}

/**
 * The index of the range containing `hash`, by binary search. `ranges` must be disjoint and
 * sorted by starting hash key, as `shardHashRanges` returns them (use `hashRangeOrder` to sort a
 * ListShards result). Throws if no range contains `hash`.
 */
export function shardForHashKey(hash: bigint, ranges: readonly HashKeyRange[]): number {
  // Find the last range starting at or below the hash; only it can contain the hash.
  let low = 0;
  let high = ranges.length - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    if (rangeAt(ranges, mid).startingHashKey <= hash) {
      found = mid;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  if (found < 0 || hash > rangeAt(ranges, found).endingHashKey) {
    throw new FlambdaError(`hash key ${hash} is in no shard's hash-key range`, 'internal', 'fail');
  }
  return found;
}

/** `ranges[i]`, for indices the caller knows are in bounds. */
function rangeAt(ranges: readonly HashKeyRange[], i: number): HashKeyRange {
  const range = ranges[i];
  if (range === undefined) throw new FlambdaError(`hash-key range index ${i} out of bounds`, 'internal', 'fail');
  return range;
}

/** Three-way comparison of bigints, for sorting. */
function compareBigInt(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
