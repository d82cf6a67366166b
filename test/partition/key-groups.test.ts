import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FlambdaError, PlanError } from '../../shared/core/errors.ts';
import {
  DEFAULT_KEY_GROUPS,
  MAX_KEY_GROUPS,
  keyGroupOf,
  keyGroupOfHash,
  keyGroupsOfRange,
} from '../../shared/partition/key-groups.ts';
import { HASH_KEY_SPACE, MAX_HASH_KEY, md5HashKey } from '../../shared/partition/kinesis-hash.ts';
import { shardHashRanges } from '../../shared/partition/shard-ranges.ts';

/** The definition: floor(hash × K / 2^128). */
const reference = (hash: bigint, keyGroups: number): number => Number((hash * BigInt(keyGroups)) >> 128n);

/** The first hash key of key group g: ceil(g × 2^128 / K). */
const firstHashOf = (g: number, keyGroups: number): bigint =>
  (BigInt(g) * HASH_KEY_SPACE + BigInt(keyGroups) - 1n) / BigInt(keyGroups);

const keyGroupCount = fc.oneof(
  fc.integer({ min: 1, max: MAX_KEY_GROUPS }),
  fc.constantFrom(1, 2, 3, 7, 128, 256, 1000, 4096, MAX_KEY_GROUPS),
);

describe('key groups', () => {
  it('defaults to 256 key groups', () => {
    expect(DEFAULT_KEY_GROUPS).toBe(256);
  });

  it('maps known keys to the bucket of their MD5 hash key', () => {
    // With 256 key groups the key group is the digest's first byte (`printf %s KEY | md5sum`).
    const expected: [string, number][] = [
      ['', 0xd4],
      ['a', 0x0c],
      ['abc', 0x90],
      ['hello', 0x5d],
      ['n42', 0x00],
      ['Sabc', 0xad],
      ['😀', 0x2a],
    ];
    for (const [key, group] of expected) expect(keyGroupOf(key, 256)).toBe(group);
    expect(keyGroupOf('abc', 1)).toBe(0);
  });

  it('equals floor(hash × K / 2^128) for random keys', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 30 }), keyGroupCount, (key, keyGroups) => {
        expect(keyGroupOf(key, keyGroups)).toBe(reference(md5HashKey(key), keyGroups));
      }),
      { numRuns: 2000 },
    );
  });

  it('is exact at key-group boundaries, where the fast path must fall back', () => {
    fc.assert(
      fc.property(keyGroupCount, fc.double({ min: 0, max: 1, noNaN: true }), (keyGroups, at) => {
        const g = Math.min(keyGroups - 1, Math.floor(at * keyGroups));
        const first = firstHashOf(g, keyGroups);
        expect(keyGroupOfHash(first, keyGroups)).toBe(g);
        expect(keyGroupOfHash(first + 1n, keyGroups)).toBe(reference(first + 1n, keyGroups));
        if (g > 0) expect(keyGroupOfHash(first - 1n, keyGroups)).toBe(g - 1);
      }),
      { numRuns: 2000 },
    );
    expect(keyGroupOfHash(0n, MAX_KEY_GROUPS)).toBe(0);
    expect(keyGroupOfHash(MAX_HASH_KEY, MAX_KEY_GROUPS)).toBe(MAX_KEY_GROUPS - 1);
  });

  it('equals the definition for random hash keys', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: MAX_HASH_KEY }), keyGroupCount, (hash, keyGroups) => {
        expect(keyGroupOfHash(hash, keyGroups)).toBe(reference(hash, keyGroups));
      }),
      { numRuns: 2000 },
    );
  });

  it('gives the key-group span of a shard range', () => {
    expect(shardHashRanges(4).map((r) => keyGroupsOfRange(r, 256))).toEqual([
      { startKeyGroup: 0, endKeyGroup: 63 },
      { startKeyGroup: 64, endKeyGroup: 127 },
      { startKeyGroup: 128, endKeyGroup: 191 },
      { startKeyGroup: 192, endKeyGroup: 255 },
    ]);
    // 3 shards split at floor(2^128 / 3): key groups 85 and 170 straddle the boundaries.
    expect(shardHashRanges(3).map((r) => keyGroupsOfRange(r, 256))).toEqual([
      { startKeyGroup: 0, endKeyGroup: 85 },
      { startKeyGroup: 85, endKeyGroup: 170 },
      { startKeyGroup: 170, endKeyGroup: 255 },
    ]);
  });

  it('spans of even ranges cover every key group, neighbours sharing at most one', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), keyGroupCount, (shards, keyGroups) => {
        const spans = shardHashRanges(shards).map((r) => keyGroupsOfRange(r, keyGroups));
        expect(spans[0]?.startKeyGroup).toBe(0);
        expect(spans[shards - 1]?.endKeyGroup).toBe(keyGroups - 1);
        for (let i = 1; i < shards; i++) {
          const previous = spans[i - 1]?.endKeyGroup ?? -1;
          const start = spans[i]?.startKeyGroup ?? -1;
          expect(start === previous || start === previous + 1).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('gives power-of-two shard counts whole key groups', () => {
    for (const shards of [1, 2, 4, 8, 64, 256]) {
      const spans = shardHashRanges(shards).map((r) => keyGroupsOfRange(r, 256));
      spans.forEach((span, i) => {
        expect(span).toEqual({ startKeyGroup: (i * 256) / shards, endKeyGroup: ((i + 1) * 256) / shards - 1 });
      });
    }
  });

  it('rejects bad key-group counts, naming the value, and bad hash keys', () => {
    for (const bad of [0, -1, 2.5, MAX_KEY_GROUPS + 1, Number.NaN]) {
      expect(() => keyGroupOf('a', bad)).toThrow(PlanError);
      expect(() => keyGroupOfHash(0n, bad)).toThrow(String(bad));
    }
    expect(() => keyGroupOfHash(-1n, 256)).toThrow(FlambdaError);
    expect(() => keyGroupOfHash(MAX_HASH_KEY + 1n, 256)).toThrow(FlambdaError);
    expect(() => keyGroupsOfRange({ startingHashKey: 5n, endingHashKey: 4n }, 256)).toThrow(FlambdaError);
  });
});
