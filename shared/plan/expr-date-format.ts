/**
 * `DATE_FORMAT` patterns (Java SimpleDateFormat letters, which Flink's DATE_FORMAT uses) and
 * calendar fields of TIMESTAMP values, all in UTC with the proleptic Gregorian calendar.
 *
 * A pattern is compiled once into a list of parts; formatting a value computes the calendar
 * fields once and concatenates the parts.
 */
import { PlanError } from '../core/errors.ts';
import { calendarFields, type CalendarFields } from '../core/timestamp.ts';

const MS_PER_DAY = 86_400_000;

/** Milliseconds since midnight UTC of the timestamp's day. */
export function millisOfDay(ms: number): number {
  const r = ms % MS_PER_DAY;
  return r < 0 ? r + MS_PER_DAY : r;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

function pad(n: number, width: number): string {
  const text = String(n);
  return text.length >= width ? text : '0'.repeat(width - text.length) + text;
}

type Part = string | ((f: CalendarFields) => string);

/** The formatter of one run of a pattern letter, e.g. `yyyy` or `MMM`. */
function fieldPart(letter: string, count: number, pattern: string): Part {
  switch (letter) {
    case 'G':
      return (f) => (f.year > 0 ? 'AD' : 'BC');
    case 'y':
      // SimpleDateFormat: `yy` is the two-digit year, other counts pad the year of era.
      return count === 2
        ? (f) => pad((f.year > 0 ? f.year : 1 - f.year) % 100, 2)
        : (f) => pad(f.year > 0 ? f.year : 1 - f.year, count);
    case 'M':
      if (count >= 4) return (f) => MONTHS[f.month - 1]!;
      if (count === 3) return (f) => MONTHS[f.month - 1]!.slice(0, 3);
      return (f) => pad(f.month, count);
    case 'd':
      return (f) => pad(f.day, count);
    case 'D':
      return (f) => pad(f.dayOfYear, count);
    case 'E':
      return count >= 4 ? (f) => WEEKDAYS[f.dayOfWeek - 1]! : (f) => WEEKDAYS[f.dayOfWeek - 1]!.slice(0, 3);
    case 'u':
      return (f) => pad(f.dayOfWeek, count);
    case 'a':
      return (f) => (f.hour < 12 ? 'AM' : 'PM');
    case 'H':
      return (f) => pad(f.hour, count);
    case 'k':
      return (f) => pad(f.hour === 0 ? 24 : f.hour, count);
    case 'K':
      return (f) => pad(f.hour % 12, count);
    case 'h':
      return (f) => pad(f.hour % 12 === 0 ? 12 : f.hour % 12, count);
    case 'm':
      return (f) => pad(f.minute, count);
    case 's':
      return (f) => pad(f.second, count);
    case 'S':
      // SimpleDateFormat's S is a millisecond count, not a fraction: `S` of 5 ms is `5`.
      return (f) => pad(f.millis, count);
    case 'z':
      return count >= 4 ? 'Coordinated Universal Time' : 'UTC';
    case 'Z':
      return '+0000';
    case 'X':
      return 'Z';
    default:
      throw new PlanError(
        `unsupported DATE_FORMAT pattern letter '${letter}' in '${pattern}'; supported: G y M d D E u a H k K h m s S z Z X and quoted 'text'`,
      );
  }
}

function isAsciiLetter(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/**
 * Compiles a SimpleDateFormat pattern into a formatter of epoch milliseconds (UTC).
 *
 * @throws PlanError for unsupported letters (week-based fields, which depend on a locale) and
 * unterminated quotes.
 */
export function compileDatePattern(pattern: string): (ms: number) => string {
  const parts: Part[] = [];
  let literal = '';
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === "'") {
      // Quoted literal text; '' stands for one quote, inside or outside quotes.
      if (pattern[i + 1] === "'") {
        literal += "'";
        i += 2;
        continue;
      }
      let j = i + 1;
      for (;;) {
        const close = pattern.indexOf("'", j);
        if (close < 0) throw new PlanError(`unterminated quote in DATE_FORMAT pattern '${pattern}'`);
        literal += pattern.slice(j, close);
        if (pattern[close + 1] !== "'") {
          i = close + 1;
          break;
        }
        literal += "'";
        j = close + 2;
      }
      continue;
    }
    if (isAsciiLetter(c)) {
      let j = i;
      while (pattern[j] === c) j++;
      const part = fieldPart(c, j - i, pattern);
      if (typeof part === 'string') {
        literal += part;
      } else {
        if (literal !== '') parts.push(literal);
        literal = '';
        parts.push(part);
      }
      i = j;
      continue;
    }
    literal += c;
    i++;
  }
  if (literal !== '') parts.push(literal);

  if (parts.every((p) => typeof p === 'string')) {
    const constant = parts.join('');
    return () => constant;
  }
  return (ms) => {
    const fields = calendarFields(ms);
    let out = '';
    for (let k = 0; k < parts.length; k++) {
      const p = parts[k]!;
      out += typeof p === 'string' ? p : p(fields);
    }
    return out;
  };
}
