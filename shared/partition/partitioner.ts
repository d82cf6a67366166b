/**
 * Key → shard routing identical to Kinesis, fast enough for the embedded runtime's hash
 * exchange.
 *
 * Kinesis sends a record to the open shard whose HashKeyRange contains MD5(partition key) read as
 * a 128-bit integer. Comparing 128-bit BigInts per record is slow, so the lookup compares the
 * hash's top 48 bits (exact in a double) with the top 48 bits of each range boundary. Only when
 * those are equal — probability about (2 × shards) / 2^48 per record — is the full hash built as
 * a BigInt and compared exactly, so the result always equals the BigInt reference
 * (`shardForHashKey(md5HashKey(key), ranges)`).
 *
 * A bucket table indexed by the hash's leading bits points at the first candidate range, so a
 * lookup touches about one boundary whatever the shard count.
 */
import { FlambdaError } from '../core/errors.ts';
import { wordsToHashKey, hashKeyWords } from './hash-words.ts';
import { HASH_KEY_SPACE } from './kinesis-hash.ts';
import { md5Words } from './md5.ts';
import { hashRangeOrder, shardHashRanges } from './shard-ranges.ts';
import type { HashKeyRange } from './shard-ranges.ts';

/** The compared prefix is the hash's top 48 bits: word 0 and the top half of word 1. */
const PREFIX_SHIFT = 80n;

/** Routes encoded keys and hash keys to shards of one Kinesis stream (or embedded exchange). */
export class KinesisPartitioner {
  /** The ranges this partitioner routes to, in the caller's order; shard numbers index it. */
  readonly ranges: readonly HashKeyRange[];

  /** Ranges in ascending hash order: position → the caller's index. */
  private readonly order: Int32Array;
  /** Top 48 bits of each range's starting / ending hash key, in hash order. */
  private readonly startPrefix: Float64Array;
  private readonly endPrefix: Float64Array;
  /** Exact starting / ending hash keys, in hash order, for prefix ties. */
  private readonly startKey: readonly bigint[];
  private readonly endKey: readonly bigint[];
  /**
   * For each of 2^bits buckets of the hash space: the hash-order position of the last range
   * starting at or below the bucket's first hash key (-1 when none does).
   */
  private readonly bucket: Int32Array;
  /** 32 - bucket bits: shifting hash word 0 right by this gives the bucket. */
  private readonly bucketShift: number;

  /**
   * @param shards a shard count, for the even ranges CreateStream makes, or the stream's open
   *   shards' hash-key ranges (e.g. after resharding) in any order; `shardOf` returns indices into
   *   this list.
   */
  constructor(shards: number | readonly HashKeyRange[]) {
    this.ranges = typeof shards === 'number' ? shardHashRanges(shards) : [...shards];
    const positions = hashRangeOrder(this.ranges);
    const n = positions.length;
    const sorted = positions.map((i) => this.ranges[i] as HashKeyRange);
    this.order = Int32Array.from(positions);
    this.startKey = sorted.map((r) => r.startingHashKey);
    this.endKey = sorted.map((r) => r.endingHashKey);
    this.startPrefix = Float64Array.from(sorted, (r) => Number(r.startingHashKey >> PREFIX_SHIFT));
    this.endPrefix = Float64Array.from(sorted, (r) => Number(r.endingHashKey >> PREFIX_SHIFT));

    // About 8 buckets per range (at most 2^16), so a bucket rarely spans a boundary.
    const bits = Math.min(16, Math.max(4, Math.ceil(Math.log2(n)) + 3));
    this.bucketShift = 32 - bits;
    this.bucket = new Int32Array(1 << bits);
    const width = HASH_KEY_SPACE >> BigInt(bits);
    let position = -1;
    for (let j = 0; j < this.bucket.length; j++) {
      const bucketStart = BigInt(j) * width;
      while (position + 1 < n && (this.startKey[position + 1] as bigint) <= bucketStart) position++;
      this.bucket[j] = position;
    }
  }

  /** The number of shards (ranges) routed to. */
  get shardCount(): number {
    return this.ranges.length;
  }

  /** The shard Kinesis would put a record with this partition key (encoded key) on. */
  shardOf(encodedKey: string): number {
    const words = md5Words(encodedKey);
    return this.locate(words[0] as number, words[1] as number, words[2] as number, words[3] as number);
  }

  /** The shard whose hash-key range contains `hash` (e.g. an ExplicitHashKey). */
  shardOfHash(hash: bigint): number {
    const [w0, w1, w2, w3] = hashKeyWords(hash);
    return this.locate(w0, w1, w2, w3);
  }

  /** The caller's index of the range containing the hash given as four words. */
  private locate(w0: number, w1: number, w2: number, w3: number): number {
    const prefix = w0 * 0x10000 + (w1 >>> 16);
    const startPrefix = this.startPrefix;
    const n = startPrefix.length;
    let hash: bigint | undefined;
    let i = this.bucket[w0 >>> this.bucketShift] as number;
    // Advance to the last range starting at or below the hash.
    while (i + 1 < n) {
      const next = startPrefix[i + 1] as number;
      if (next > prefix) break;
      if (next === prefix) {
        hash ??= wordsToHashKey(w0, w1, w2, w3);
        if ((this.startKey[i + 1] as bigint) > hash) break;
      }
      i++;
    }
    if (i >= 0) {
      const end = this.endPrefix[i] as number;
      if (prefix < end) return this.order[i] as number;
      if (prefix === end && (hash ?? wordsToHashKey(w0, w1, w2, w3)) <= (this.endKey[i] as bigint)) {
        return this.order[i] as number;
      }
    }
    throw new FlambdaError(
      `hash key ${wordsToHashKey(w0, w1, w2, w3)} is in no shard's hash-key range`,
      'internal',
      'fail',
    );
  }
}
