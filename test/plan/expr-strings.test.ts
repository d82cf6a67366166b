import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  codePointLength,
  compareStrings,
  likeToRegExp,
  splitIndex,
  substringSql,
  trimSpaces,
  truncateCodePoints,
} from '../../shared/plan/expr-strings.ts';

const textArb = fc.string({ unit: 'binary', maxLength: 12 });

/** Reference code point comparison. */
function referenceCompare(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0)!);
  const y = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

describe('compareStrings', () => {
  it('orders by code point (UTF-8 byte order)', () => {
    fc.assert(
      fc.property(textArb, textArb, (a, b) => {
        expect(Math.sign(compareStrings(a, b))).toBe(Math.sign(referenceCompare(a, b)));
      }),
    );
    expect(compareStrings('\uffff', '\u{10000}')).toBeLessThan(0);
  });
});

describe('code point helpers', () => {
  it('count and truncate characters, not UTF-16 units', () => {
    fc.assert(
      fc.property(textArb, fc.nat(14), (s, n) => {
        expect(codePointLength(s)).toBe(Array.from(s).length);
        expect(truncateCodePoints(s, n)).toBe(Array.from(s).slice(0, n).join(''));
      }),
    );
  });
});

describe('substringSql', () => {
  it('matches the reference definition on characters', () => {
    fc.assert(
      fc.property(textArb, fc.integer({ min: -15, max: 15 }), fc.option(fc.nat(15), { nil: undefined }), (s, pos, len) => {
        const chars = Array.from(s);
        const n = chars.length;
        let expected: string;
        const start = pos > 0 ? pos - 1 : pos < 0 ? n + pos : 0;
        if (s === '' || start >= n || start < 0) expected = '';
        else expected = chars.slice(start, len === undefined ? n : Math.min(n, start + len)).join('');
        expect(substringSql(s, pos, len ?? Infinity)).toBe(expected);
      }),
    );
  });
});

describe('trimSpaces', () => {
  it('removes spaces only', () => {
    expect(trimSpaces('  a  ', true, true)).toBe('a');
    expect(trimSpaces('\ta ', true, true)).toBe('\ta');
    expect(trimSpaces('   ', true, false)).toBe('');
  });
});

describe('likeToRegExp', () => {
  it('escapes regex syntax and matches whole strings across lines', () => {
    const re = likeToRegExp('a.c%', undefined) as RegExp;
    expect(re.test('a.c\nd')).toBe(true);
    expect(re.test('abc')).toBe(false);
    expect((likeToRegExp('_', undefined) as RegExp).test('\u{1f600}')).toBe(true);
    expect((likeToRegExp('a\\%', '\\') as RegExp).test('a%')).toBe(true);
  });

  it('reports bad escapes', () => {
    expect(likeToRegExp('a!b', '!')).toMatch(/invalid escape/);
    expect(likeToRegExp('a', '!!')).toMatch(/one character/);
  });
});

describe('splitIndex', () => {
  it('keeps empty tokens and splits at whitespace for an empty separator', () => {
    expect(splitIndex('a//b', '/', 1)).toBe('');
    expect(splitIndex('a//b', '/', 2)).toBe('b');
    expect(splitIndex('a/', '/', 1)).toBe('');
    expect(splitIndex('a-!-b', '-!-', 1)).toBe('b');
    expect(splitIndex('a b', '', 1)).toBe('b');
  });
});
