import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FlambdaError, PlanError } from '../../shared/core/errors.ts';
import { MAX_HASH_KEY, md5HashKey } from '../../shared/partition/kinesis-hash.ts';
import { KinesisPartitioner } from '../../shared/partition/partitioner.ts';
import { shardForHashKey, shardHashRanges } from '../../shared/partition/shard-ranges.ts';
import type { HashKeyRange } from '../../shared/partition/shard-ranges.ts';

const LOW_80_BITS = (1n << 80n) - 1n;

/** Partitioners and ranges are cached per shard count: building them for 10000 shards takes milliseconds. */
const evenCache = new Map<number, { partitioner: KinesisPartitioner; ranges: HashKeyRange[] }>();
function even(n: number): { partitioner: KinesisPartitioner; ranges: HashKeyRange[] } {
  let entry = evenCache.get(n);
  if (entry === undefined) {
    entry = { partitioner: new KinesisPartitioner(n), ranges: shardHashRanges(n) };
    evenCache.set(n, entry);
  }
  return entry;
}

/** The reference: a linear scan with exact BigInt comparisons; -1 for a hash in no range. */
function referenceShard(hash: bigint, ranges: readonly HashKeyRange[]): number {
  return ranges.findIndex((r) => r.startingHashKey <= hash && hash <= r.endingHashKey);
}

/** shardOfHash, with -1 for "in no range" so it can be compared with the reference. */
function shardOrMissing(partitioner: KinesisPartitioner, hash: bigint): number {
  try {
    return partitioner.shardOfHash(hash);
  } catch (error) {
    expect(error).toBeInstanceOf(FlambdaError);
    return -1;
  }
}

/** Hash keys that stress the fast path: each boundary ±1 and hashes sharing a boundary's top 48 bits. */
function hashesAround(boundary: bigint, low80: bigint): bigint[] {
  const candidates = [
    boundary - 1n,
    boundary,
    boundary + 1n,
    (boundary & ~LOW_80_BITS) | low80,
    boundary & ~LOW_80_BITS,
    boundary | LOW_80_BITS,
  ];
  return candidates.filter((h) => h >= 0n && h <= MAX_HASH_KEY);
}

const shardCount = fc.oneof(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 1, max: 10_000 }));

describe('KinesisPartitioner', () => {
  it('routes known keys as Kinesis would', () => {
    // Expected shards computed independently with python3 hashlib.md5 and floor(i * 2^128 / n).
    const keys = ['', 'a', 'abc', 'hello', 'user-42', 'n42', 'Sabc', 'é', '日本語', '😀'];
    const expected: Record<number, number[]> = {
      1: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      3: [2, 0, 1, 1, 1, 0, 2, 1, 0, 0],
      4: [3, 0, 2, 1, 1, 0, 2, 1, 0, 0],
      7: [5, 0, 3, 2, 3, 0, 4, 2, 0, 1],
    };
    for (const [n, shards] of Object.entries(expected)) {
      const partitioner = new KinesisPartitioner(Number(n));
      expect(keys.map((k) => partitioner.shardOf(k))).toEqual(shards);
    }
  });

  it('equals the BigInt reference for random keys and shard counts', () => {
    fc.assert(
      fc.property(shardCount, fc.array(fc.string({ unit: 'binary', maxLength: 40 }), { maxLength: 50 }), (n, keys) => {
        const { partitioner, ranges } = even(n);
        for (const key of keys) {
          const hash = md5HashKey(key);
          const expected = shardForHashKey(hash, ranges);
          expect(partitioner.shardOf(key)).toBe(expected);
          expect(partitioner.shardOfHash(hash)).toBe(expected);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('is exact at every boundary of even ranges, including ties of the top 48 bits', () => {
    fc.assert(
      fc.property(shardCount, fc.bigInt({ min: 0n, max: LOW_80_BITS }), (n, low80) => {
        const { partitioner, ranges } = even(n);
        // All boundaries for small counts, a sample of them for large ones.
        const step = Math.max(1, Math.floor(n / 64));
        const mismatches: string[] = [];
        for (let i = 0; i < n; i += step) {
          const r = ranges[i] as HashKeyRange;
          for (const hash of [...hashesAround(r.startingHashKey, low80), ...hashesAround(r.endingHashKey, low80)]) {
            const actual = partitioner.shardOfHash(hash);
            const expected = shardForHashKey(hash, ranges);
            if (actual !== expected) mismatches.push(`${hash}: ${actual} instead of ${expected}`);
          }
        }
        expect(mismatches).toEqual([]);
        expect(partitioner.shardOfHash(0n)).toBe(0);
        expect(partitioner.shardOfHash(MAX_HASH_KEY)).toBe(n - 1);
      }),
      { numRuns: 200 },
    );
  });

  it('is exact for uneven ranges in any order, with gaps', () => {
    const layout = fc.record({
      // Sorted distinct cut points; consecutive pairs become ranges, some dropped to leave gaps.
      cuts: fc.uniqueArray(fc.bigInt({ min: 1n, max: MAX_HASH_KEY }), { minLength: 1, maxLength: 40 }),
      keep: fc.array(fc.boolean(), { minLength: 41, maxLength: 41 }),
      // Cut points close together too, so neighbouring boundaries share their top 48 bits.
      nearby: fc.uniqueArray(fc.bigInt({ min: 1n, max: 1n << 100n }), { maxLength: 6 }),
      order: fc.array(fc.nat(), { minLength: 47, maxLength: 47 }),
      low80: fc.bigInt({ min: 0n, max: LOW_80_BITS }),
      probes: fc.array(fc.bigInt({ min: 0n, max: MAX_HASH_KEY }), { maxLength: 20 }),
    });
    fc.assert(
      fc.property(layout, ({ cuts, keep, nearby, order, low80, probes }) => {
        const base = cuts[0] as bigint;
        const points = [...new Set([0n, ...cuts, ...nearby.map((d) => base + d).filter((p) => p <= MAX_HASH_KEY)])]
          .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        let ranges: HashKeyRange[] = points.map((start, i) => ({
          startingHashKey: start,
          endingHashKey: i + 1 < points.length ? (points[i + 1] as bigint) - 1n : MAX_HASH_KEY,
        }));
        ranges = ranges.filter((_, i) => keep[i % keep.length] === true);
        if (ranges.length === 0) return;
        // Shuffle by the generated order keys, as ListShards may list shards in any order.
        ranges = ranges
          .map((r, i) => ({ r, k: order[i % order.length] ?? 0 }))
          .sort((a, b) => a.k - b.k)
          .map(({ r }) => r);
        const partitioner = new KinesisPartitioner(ranges);
        const hashes = [...probes, 0n, MAX_HASH_KEY];
        for (const r of ranges) {
          hashes.push(...hashesAround(r.startingHashKey, low80), ...hashesAround(r.endingHashKey, low80));
        }
        for (const hash of hashes) {
          expect(shardOrMissing(partitioner, hash)).toBe(referenceShard(hash, ranges));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('returns indices into the caller-ordered range list', () => {
    const ranges = shardHashRanges(4);
    const shuffled = [ranges[2], ranges[0], ranges[3], ranges[1]] as HashKeyRange[];
    const partitioner = new KinesisPartitioner(shuffled);
    expect(partitioner.shardCount).toBe(4);
    expect(partitioner.ranges).toEqual(shuffled);
    // 'abc' hashes into the even split's shard 2, listed first here.
    expect(partitioner.shardOf('abc')).toBe(0);
    expect(partitioner.shardOfHash(0n)).toBe(1);
    expect(partitioner.shardOfHash(MAX_HASH_KEY)).toBe(2);
  });

  it('throws for a key hashing into a gap', () => {
    // 'abc' hashes to 191415658344158766168031473277922803570, inside the gap below.
    const partitioner = new KinesisPartitioner([
      { startingHashKey: 0n, endingHashKey: 10n ** 38n },
      { startingHashKey: 2n * 10n ** 38n, endingHashKey: MAX_HASH_KEY },
    ]);
    expect(partitioner.shardOf('a')).toBe(0);
    expect(() => partitioner.shardOf('abc')).toThrow(/191415658344158766168031473277922803570/);
  });

  it('rejects bad shard counts, bad ranges and hash keys outside 0..2^128-1', () => {
    expect(() => new KinesisPartitioner(0)).toThrow(PlanError);
    expect(() => new KinesisPartitioner(10_001)).toThrow(/10001/);
    expect(() => new KinesisPartitioner([])).toThrow(PlanError);
    expect(
      () =>
        new KinesisPartitioner([
          { startingHashKey: 0n, endingHashKey: 100n },
          { startingHashKey: 50n, endingHashKey: MAX_HASH_KEY },
        ]),
    ).toThrow(/overlap/);
    const partitioner = new KinesisPartitioner(2);
    expect(() => partitioner.shardOfHash(-1n)).toThrow(FlambdaError);
    expect(() => partitioner.shardOfHash(MAX_HASH_KEY + 1n)).toThrow(FlambdaError);
  });
});
