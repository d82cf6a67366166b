/**
 * Parsing date-time strings by a SimpleDateFormat pattern (TO_TIMESTAMP(s, fmt),
 * UNIX_TIMESTAMP(s, fmt)): the numeric fields `yyyy yy MM M dd d HH H hh h mm m ss s S… a`,
 * quoted literals and literal characters; the result is epoch milliseconds (UTC) or undefined
 * when the text does not match.
 */
import { daysFromCivil } from '../core/timestamp.ts';

type Field = 'year' | 'month' | 'day' | 'hour' | 'hour12' | 'minute' | 'second' | 'fraction' | 'ampm';
type Part = { readonly literal: string } | { readonly field: Field; readonly width: number };

const LETTERS: Readonly<Record<string, Field>> = { y: 'year', M: 'month', d: 'day', H: 'hour', h: 'hour12', m: 'minute', s: 'second', S: 'fraction', a: 'ampm' };

function compile(pattern: string): Part[] {
  const parts: Part[] = [];
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === "'") {
      const close = pattern.indexOf("'", i + 1);
      const text = close < 0 ? pattern.slice(i + 1) : pattern.slice(i + 1, close);
      parts.push({ literal: text === '' ? "'" : text });
      i = close < 0 ? pattern.length : close + 1;
      continue;
    }
    const field = LETTERS[c];
    if (field) {
      let j = i;
      while (pattern[j] === c) j++;
      parts.push({ field, width: j - i });
      i = j;
      continue;
    }
    parts.push({ literal: c });
    i++;
  }
  return parts;
}

const cache = new Map<string, (text: string) => number | undefined>();

/** The parser of a pattern (compiled once per pattern). */
export function parseDatePattern(pattern: string): (text: string) => number | undefined {
  let parser = cache.get(pattern);
  if (parser) return parser;
  const parts = compile(pattern);
  parser = (text) => {
    const v = { year: 1970, month: 1, day: 1, hour: 0, minute: 0, second: 0, millis: 0, pm: false, hour12: -1 };
    let i = 0;
    for (let k = 0; k < parts.length; k++) {
      const p = parts[k]!;
      if ('literal' in p) {
        if (!text.startsWith(p.literal, i)) return undefined;
        i += p.literal.length;
        continue;
      }
      if (p.field === 'ampm') {
        const word = text.slice(i, i + 2).toUpperCase();
        if (word !== 'AM' && word !== 'PM') return undefined;
        v.pm = word === 'PM';
        i += 2;
        continue;
      }
      // A field followed by another field takes exactly its width; otherwise as many digits as there are.
      const nextIsField = k + 1 < parts.length && 'field' in parts[k + 1]!;
      let j = i;
      const max = nextIsField || p.field === 'fraction' ? i + p.width : text.length;
      while (j < max && j < text.length && text.charCodeAt(j) >= 48 && text.charCodeAt(j) <= 57) j++;
      if (j === i) return undefined;
      const digits = text.slice(i, j);
      const n = Number(digits);
      i = j;
      switch (p.field) {
        case 'year':
          v.year = p.width === 2 && digits.length === 2 ? 2000 + n : n;
          break;
        case 'fraction':
          v.millis = Math.floor(Number(`0.${digits}`) * 1000 + 1e-9);
          break;
        case 'hour12':
          v.hour12 = n;
          break;
        default:
          v[p.field] = n;
      }
    }
    if (i !== text.length) return undefined;
    if (v.hour12 >= 0) v.hour = (v.hour12 % 12) + (v.pm ? 12 : 0);
    if (v.month < 1 || v.month > 12 || v.day < 1 || v.day > 31 || v.hour > 23 || v.minute > 59 || v.second > 59) return undefined;
    const days = daysFromCivil(v.year, v.month, v.day);
    // Reject days past the month's end (April 31), as the lenient-free parser Flink uses does.
    if (daysFromCivil(v.month === 12 ? v.year + 1 : v.year, v.month === 12 ? 1 : v.month + 1, 1) <= days) return undefined;
    return days * 86_400_000 + v.hour * 3_600_000 + v.minute * 60_000 + v.second * 1000 + v.millis;
  };
  if (cache.size > 64) cache.clear();
  cache.set(pattern, parser);
  return parser;
}
