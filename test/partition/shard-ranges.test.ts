import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FlambdaError, PlanError } from '../../shared/core/errors.ts';
import { MAX_HASH_KEY } from '../../shared/partition/kinesis-hash.ts';
import {
  hashRangeOrder,
  shardForHashKey,
  shardHashRanges,
} from '../../shared/partition/shard-ranges.ts';
import type { HashKeyRange } from '../../shared/partition/shard-ranges.ts';

const range = (startingHashKey: bigint, endingHashKey: bigint): HashKeyRange => ({ startingHashKey, endingHashKey });

describe('shardHashRanges', () => {
  it('gives one shard the whole hash-key space', () => {
    expect(shardHashRanges(1)).toEqual([range(0n, MAX_HASH_KEY)]);
  });

  it('splits 4 shards as CreateStream does', () => {
    expect(shardHashRanges(4)).toEqual([
      range(0n, 85070591730234615865843651857942052863n),
      range(85070591730234615865843651857942052864n, 170141183460469231731687303715884105727n),
      range(170141183460469231731687303715884105728n, 255211775190703847597530955573826158591n),
      range(255211775190703847597530955573826158592n, 340282366920938463463374607431768211455n),
    ]);
  });

  it('splits 3 shards as CreateStream does (floor of i * 2^128 / 3)', () => {
    expect(shardHashRanges(3)).toEqual([
      range(0n, 113427455640312821154458202477256070484n),
      range(113427455640312821154458202477256070485n, 226854911280625642308916404954512140969n),
      range(226854911280625642308916404954512140970n, 340282366920938463463374607431768211455n),
    ]);
  });

  it('tiles 0..2^128-1 contiguously for any shard count', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), (n) => {
        const ranges = shardHashRanges(n);
        expect(ranges).toHaveLength(n);
        expect(ranges[0]?.startingHashKey).toBe(0n);
        expect(ranges[n - 1]?.endingHashKey).toBe(MAX_HASH_KEY);
        const wrong = ranges.findIndex(
          (r, i) =>
            r.startingHashKey !== (BigInt(i) << 128n) / BigInt(n) ||
            (i > 0 && r.startingHashKey !== (ranges[i - 1] as HashKeyRange).endingHashKey + 1n),
        );
        expect(wrong).toBe(-1);
      }),
      { numRuns: 30 },
    );
  });

  it('rejects shard counts outside 1..10000, naming the value', () => {
    for (const bad of [0, -1, 1.5, 10_001, Number.NaN, Infinity]) {
      expect(() => shardHashRanges(bad)).toThrow(PlanError);
      expect(() => shardHashRanges(bad)).toThrow(String(bad));
    }
    expect(shardHashRanges(10_000)).toHaveLength(10_000);
  });
});

describe('shardForHashKey', () => {
  it('finds the shard at and around every boundary', () => {
    for (const n of [1, 2, 3, 4, 7, 100]) {
      const ranges = shardHashRanges(n);
      ranges.forEach((r, i) => {
        expect(shardForHashKey(r.startingHashKey, ranges)).toBe(i);
        expect(shardForHashKey(r.endingHashKey, ranges)).toBe(i);
        if (i > 0) expect(shardForHashKey(r.startingHashKey - 1n, ranges)).toBe(i - 1);
      });
    }
  });

  it('works on uneven ranges after a split', () => {
    // Shard 1 of a 2-shard stream split at 3 * 2^126 (SplitShard NewStartingHashKey).
    const ranges = [
      range(0n, 2n ** 127n - 1n),
      range(2n ** 127n, 3n * 2n ** 126n - 1n),
      range(3n * 2n ** 126n, MAX_HASH_KEY),
    ];
    expect(shardForHashKey(2n ** 127n - 1n, ranges)).toBe(0);
    expect(shardForHashKey(2n ** 127n, ranges)).toBe(1);
    expect(shardForHashKey(3n * 2n ** 126n - 1n, ranges)).toBe(1);
    expect(shardForHashKey(3n * 2n ** 126n, ranges)).toBe(2);
    expect(shardForHashKey(MAX_HASH_KEY, ranges)).toBe(2);
  });

  it('throws for a hash key in no range', () => {
    const ranges = [range(10n, 20n), range(30n, 40n)];
    expect(shardForHashKey(10n, ranges)).toBe(0);
    expect(shardForHashKey(40n, ranges)).toBe(1);
    for (const hash of [9n, 21n, 29n, 41n, -1n]) {
      expect(() => shardForHashKey(hash, ranges)).toThrow(FlambdaError);
    }
    expect(() => shardForHashKey(25n, ranges)).toThrow('25');
  });
});

describe('hashRangeOrder', () => {
  it('orders ranges listed in any order', () => {
    const ranges = [range(50n, MAX_HASH_KEY), range(0n, 9n), range(10n, 49n)];
    expect(hashRangeOrder(ranges)).toEqual([1, 2, 0]);
  });

  it('accepts gaps but rejects overlaps, empty and out-of-space ranges', () => {
    expect(hashRangeOrder([range(0n, 5n), range(10n, 20n)])).toEqual([0, 1]);
    expect(() => hashRangeOrder([])).toThrow(PlanError);
    expect(() => hashRangeOrder([range(0n, 10n), range(10n, 20n)])).toThrow(/overlap/);
    expect(() => hashRangeOrder([range(5n, 4n)])).toThrow(PlanError);
    expect(() => hashRangeOrder([range(-1n, 4n)])).toThrow(PlanError);
    expect(() => hashRangeOrder([range(0n, MAX_HASH_KEY + 1n)])).toThrow(PlanError);
  });
});
