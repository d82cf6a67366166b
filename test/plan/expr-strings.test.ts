import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  codePointLength,
  compareStrings,
  likeToRegExp,
  similarToRegExp,
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

describe('similarToRegExp', () => {
  const similar = (pattern: string, escape?: string): RegExp => {
    const re = similarToRegExp(pattern, escape);
    if (typeof re === 'string') throw new Error(re);
    return re;
  };

  it('agrees with LIKE on patterns of letters, % and _ (the two share those)', () => {
    const pattern = fc.stringMatching(/^[ab%_]{0,6}$/);
    const text = fc.stringMatching(/^[abc]{0,6}$/);
    fc.assert(
      fc.property(pattern, text, (p, s) => {
        const like = likeToRegExp(p, undefined) as RegExp;
        expect(similar(p).test(s)).toBe(like.test(s));
      }),
    );
  });

  it('keeps the regex operators and makes $ and \\ literal, as Calcite translates', () => {
    expect(similar('(ab|c)+d?').test('abcabd')).toBe(true);
    expect(similar('(ab|c)+d?').test('abd d')).toBe(false);
    expect(similar('x{2}').test('xx')).toBe(true);
    expect(similar('[a-c[:DIGIT:]]*').test('a1c9')).toBe(true);
    expect(similar('[[:LOWER:]]').test('A')).toBe(false);
    expect(similar('a$').test('a$')).toBe(true);
    expect(similar('a\\').test('a\\')).toBe(true);
    expect(similar('.').test('\u{1F600}')).toBe(true);
    expect(similar('a!_b', '!').test('a_b')).toBe(true);
    expect(similar('a!_b', '!').test('axb')).toBe(false);
    expect(similar('a!!', '!').test('a!')).toBe(true);
  });

  it('names what is wrong with a pattern', () => {
    expect(similarToRegExp('a]', undefined)).toBe("Invalid regular expression 'a]'");
    expect(similarToRegExp('[ab', undefined)).toBe("Invalid regular expression '[ab'");
    expect(similarToRegExp('[[:FOO:]]', undefined)).toBe("Invalid regular expression '[[:FOO:]]'");
    expect(similarToRegExp('a', '!!')).toBe("Invalid escape character '!!'");
    expect(similarToRegExp('a!b', '!')).toBe("Invalid escape sequence 'a!b', 1");
    expect(similarToRegExp('a_b_', '_')).toBe("Invalid escape sequence 'a_b_', 1");
  });
});
