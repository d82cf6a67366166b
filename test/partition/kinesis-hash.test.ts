import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  HASH_KEY_SPACE,
  MAX_HASH_KEY,
  kinesisRecordKeys,
  md5HashKey,
} from '../../shared/partition/kinesis-hash.ts';

describe('md5HashKey', () => {
  it('reads the MD5 digest as an unsigned 128-bit big-endian integer', () => {
    // Computed independently: `printf %s KEY | md5sum`, hex → decimal with python3 int(h, 16).
    const vectors: [string, bigint][] = [
      ['', 281949768489412648962353822266799178366n],
      ['a', 16955237001963240173058271559858726497n],
      ['abc', 191415658344158766168031473277922803570n],
      ['hello', 123957004363873451094272536567338222994n],
      ['message digest', 331535486309434048055371704012530344400n],
      ['user-42', 157107139746365290205026809710278036035n],
      ['n42', 629317298332874274844870568256467730n],
      ['Sabc', 231159274150783932392584414831745078959n],
      ['é', 136732923097551493579404309126273812335n],
      ['日本語', 88491575051939950596574576699976684n],
      ['😀', 55842721998748738903166261021950683062n],
    ];
    for (const [key, hash] of vectors) expect(md5HashKey(key)).toBe(hash);
  });

  it('stays within 0..MAX_HASH_KEY', () => {
    expect(MAX_HASH_KEY).toBe(340282366920938463463374607431768211455n);
    expect(HASH_KEY_SPACE).toBe(MAX_HASH_KEY + 1n);
    fc.assert(
      fc.property(fc.string(), (key) => {
        const hash = md5HashKey(key);
        expect(hash >= 0n && hash <= MAX_HASH_KEY).toBe(true);
      }),
    );
  });
});

describe('kinesisRecordKeys', () => {
  it('sends a valid key as the partition key and lets Kinesis hash it', () => {
    expect(kinesisRecordKeys('Sabc')).toEqual({ partitionKey: 'Sabc' });
    expect(kinesisRecordKeys('x'.repeat(256))).toEqual({ partitionKey: 'x'.repeat(256) });
  });

  it('sends the hash key explicitly for keys PutRecord would reject', () => {
    for (const key of ['', 'x'.repeat(257), 'é'.repeat(200)]) {
      const hex = createHash('md5').update(key, 'utf8').digest('hex');
      expect(kinesisRecordKeys(key)).toEqual({ partitionKey: hex, explicitHashKey: md5HashKey(key).toString() });
    }
    expect(kinesisRecordKeys('').explicitHashKey).toBe('281949768489412648962353822266799178366');
  });

  it('always yields a valid PartitionKey and ExplicitHashKey', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (key) => {
        const keys = kinesisRecordKeys(key);
        expect(keys.partitionKey.length).toBeGreaterThanOrEqual(1);
        expect(Buffer.byteLength(keys.partitionKey, 'utf8')).toBeLessThanOrEqual(256);
        if (keys.explicitHashKey !== undefined) {
          expect(keys.explicitHashKey).toMatch(/^(0|[1-9]\d{0,38})$/);
          expect(BigInt(keys.explicitHashKey)).toBe(md5HashKey(key));
        } else {
          expect(keys.partitionKey).toBe(key);
        }
      }),
    );
  });
});
