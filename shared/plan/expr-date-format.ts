/**
 * `DATE_FORMAT` patterns (Java SimpleDateFormat letters, which Flink's DATE_FORMAT uses) and
 * calendar fields of TIMESTAMP values, all in UTC with the proleptic Gregorian calendar.
 *
 * A pattern is compiled once into a list of parts; formatting a value computes the calendar
 * fields once and concatenates the parts.
 */
import { PlanError } from '../core/errors.ts';

const MS_PER_DAY = 86_400_000;

/** Calendar fields of a timestamp. */
export interface CalendarFields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millis: number;
  /** 1 = Monday … 7 = Sunday (ISO). */
  dayOfWeek: number;
  /** 1-based day of the year. */
  dayOfYear: number;
}

/** Splits epoch milliseconds into UTC calendar fields (Howard Hinnant's civil_from_days). */
export function calendarFields(ms: number): CalendarFields {
  const days = Math.floor(ms / MS_PER_DAY);
  let rest = ms - days * MS_PER_DAY;
  const hour = Math.floor(rest / 3_600_000);
  rest -= hour * 3_600_000;
  const minute = Math.floor(rest / 60_000);
  rest -= minute * 60_000;
  const second = Math.floor(rest / 1000);
  const millis = rest - second * 1000;

  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365,
  );
  const dayOfYearFromMarch = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYearFromMarch + 2) / 153);
  const day = dayOfYearFromMarch - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);

  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const dayOfYear = month > 2 ? dayOfYearFromMarch + 60 + (leap ? 1 : 0) : dayOfYearFromMarch - 305;
  // 1970-01-01 was a Thursday (ISO 4).
  const dayOfWeek = ((((days + 3) % 7) + 7) % 7) + 1;
  return { year, month, day, hour, minute, second, millis, dayOfWeek, dayOfYear };
}

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
