import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { md5Words } from '../../shared/partition/md5.ts';

/** The digest as 32 hex digits, from the four words. */
function hexOf(input: string): string {
  return Array.from(md5Words(input), (w) => w.toString(16).padStart(8, '0')).join('');
}

function nodeMd5(input: string): string {
  return createHash('md5').update(input, 'utf8').digest('hex');
}

/** Strings mixing ASCII, 2-, 3- and 4-byte UTF-8 and unpaired surrogates. */
const anyUnit = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 1 }),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('a', 'é', '€', '😀', '\u0000', '\uffff'),
);

describe('md5Words', () => {
  it('matches the RFC 1321 test suite', () => {
    // Digests from RFC 1321 appendix A.5 (also `printf %s … | md5sum`).
    expect(hexOf('')).toBe('d41d8cd98f00b204e9800998ecf8427e');
    expect(hexOf('a')).toBe('0cc175b9c0f1b6a831c399e269772661');
    expect(hexOf('abc')).toBe('900150983cd24fb0d6963f7d28e17f72');
    expect(hexOf('message digest')).toBe('f96b697d7cb7938d525a2f31aaf161d0');
    expect(hexOf('abcdefghijklmnopqrstuvwxyz')).toBe('c3fcd3d76192e4007dfb496cca67e13b');
    expect(hexOf('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789')).toBe(
      'd174ab98d277d9f5a5611c2c9f419d9f',
    );
    expect(hexOf('1234567890'.repeat(8))).toBe('57edf4a22be3c955ac49da2e2107b67a');
  });

  it('hashes the UTF-8 bytes of non-ASCII text', () => {
    expect(hexOf('é')).toBe('66ddcd97cfdeabb2f6fb8a999b4bc76f');
    expect(hexOf('日本語')).toBe('00110af8b4393ef3f72c50be5b332bec');
    expect(hexOf('😀')).toBe('2a02eac39d716a70ecf37579185927b6');
  });

  it('matches node:crypto at every padding boundary', () => {
    // 55/56 and 119/120 bytes are where the length field moves to an extra block.
    for (let n = 0; n <= 200; n++) {
      expect(hexOf('x'.repeat(n))).toBe(nodeMd5('x'.repeat(n)));
      expect(hexOf('é'.repeat(n))).toBe(nodeMd5('é'.repeat(n)));
    }
  });

  it('matches node:crypto for unpaired surrogates (encoded as U+FFFD)', () => {
    for (const s of ['\ud800', '\udc00', 'a\ud800', '\ud800a', '\udc00\ud800', '\ud83d\ud83d\ude00', 'x\udfff']) {
      expect(hexOf(s)).toBe(nodeMd5(s));
    }
  });

  it('matches node:crypto for keys larger than the retained scratch buffer', () => {
    const big = '€'.repeat(30_000);
    expect(hexOf(big)).toBe(nodeMd5(big));
    expect(hexOf('small')).toBe(nodeMd5('small'));
  });

  it('matches node:crypto for random strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: anyUnit, maxLength: 150 }), (s) => {
        expect(hexOf(s)).toBe(nodeMd5(s));
      }),
      { numRuns: 2000 },
    );
  });
});
