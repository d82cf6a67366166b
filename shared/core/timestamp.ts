/**
 * TIMESTAMP(3) values (epoch milliseconds of the wall-clock reading taken as UTC), DATE values
 * (days since 1970-01-01) and TIME values (milliseconds since midnight), years 0000–9999.
 *
 * Parsing and printing are hand-written digit arithmetic with a civil-calendar conversion
 * (proleptic Gregorian, as Java's LocalDateTime) instead of `Date`: they run once per record,
 * allocate nothing but the result, and avoid `Date.UTC`'s mapping of years 0–99 to 1900–1999.
 */
import { RecordError } from './errors.ts';

const MS_PER_DAY = 86_400_000;

/**
 * Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
 * Works for any year, including year 0 and earlier.
 */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const monthFromMarch = month > 2 ? month - 3 : month + 9;
  const dayOfYear = Math.floor((153 * monthFromMarch + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

/** Earliest supported TIMESTAMP(3): `0000-01-01 00:00:00.000`. */
export const MIN_TIMESTAMP_MS = daysFromCivil(0, 1, 1) * MS_PER_DAY;

/** Latest supported TIMESTAMP(3): `9999-12-31 23:59:59.999`. */
export const MAX_TIMESTAMP_MS = daysFromCivil(9999, 12, 31) * MS_PER_DAY + MS_PER_DAY - 1;

/**
 * The processing time a bounded job ends at: the latest valid JavaScript epoch millisecond. Both
 * runtimes advance processing time to it at the end of bounded input, so processing-time
 * windows, sorts and sessions emit their last results instead of losing them.
 */
export const END_OF_PROCESSING_TIME = 8.64e15;

/** True when `ms` is an integer inside the supported range (years 0000–9999). */
export function isTimestampInRange(ms: number): boolean {
  return Number.isInteger(ms) && ms >= MIN_TIMESTAMP_MS && ms <= MAX_TIMESTAMP_MS;
}

/** Days in a month of the proleptic Gregorian calendar. */
function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** The decimal digit at `i`, or -1 when the character is not a digit. */
function digitAt(text: string, i: number): number {
  const d = text.charCodeAt(i) - 48;
  return d >= 0 && d <= 9 ? d : -1;
}

/** A two-digit field at `i`, or -1 when either character is not a digit. */
function twoDigits(text: string, i: number): number {
  const a = digitAt(text, i);
  const b = digitAt(text, i + 1);
  return a < 0 || b < 0 ? -1 : a * 10 + b;
}

/**
 * Parses `YYYY-MM-DD HH:MM:SS[.fraction]` (or with `T` as the separator, optionally ending in
 * `Z`) as UTC epoch milliseconds; `undefined` when the text is not a valid timestamp.
 *
 * Every field must have exactly its digit count and be in range (no month 13, April 31,
 * February 29 outside leap years, hour 24 or second 60). The fraction may have 1 to 9 digits;
 * digits beyond milliseconds are truncated, as Flink does when it casts a string or a
 * higher-precision timestamp to TIMESTAMP(3) (`…00.1239` → `…00.123`). Surrounding whitespace
 * and UTC offsets other than `Z` are rejected; callers that want Flink's lenient CAST trim first.
 */
export function parseTimestamp(text: string): number | undefined {
  const length = text.length;
  if (length < 19) return undefined;
  const y0 = digitAt(text, 0);
  const y1 = digitAt(text, 1);
  const y2 = digitAt(text, 2);
  const y3 = digitAt(text, 3);
  if (y0 < 0 || y1 < 0 || y2 < 0 || y3 < 0) return undefined;
  const year = y0 * 1000 + y1 * 100 + y2 * 10 + y3;
  const sep = text.charCodeAt(10);
  if (
    text.charCodeAt(4) !== 45 /* - */ ||
    text.charCodeAt(7) !== 45 ||
    (sep !== 32 /* space */ && sep !== 84) /* T */ ||
    text.charCodeAt(13) !== 58 /* : */ ||
    text.charCodeAt(16) !== 58
  ) {
    return undefined;
  }
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  const hour = twoDigits(text, 11);
  const minute = twoDigits(text, 14);
  const second = twoDigits(text, 17);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return undefined;

  let millis = 0;
  let i = 19;
  if (i < length && text.charCodeAt(i) === 46 /* . */) {
    i++;
    const start = i;
    while (i < length) {
      const d = digitAt(text, i);
      if (d < 0) break;
      // Only the first three digits count; the rest are validated and truncated.
      if (i - start < 3) millis = millis * 10 + d;
      i++;
    }
    const digits = i - start;
    if (digits === 0 || digits > 9) return undefined;
    if (digits === 1) millis *= 100;
    else if (digits === 2) millis *= 10;
  }
  if (i < length && text.charCodeAt(i) === 90 /* Z */) i++;
  if (i !== length) return undefined;

  return daysFromCivil(year, month, day) * MS_PER_DAY + hour * 3_600_000 + minute * 60_000 + second * 1000 + millis;
}

/** Zero-pads to two digits. */
function pad2(n: number): string {
  return n < 10 ? `0${n}` : `${n}`;
}

/** Zero-pads to three digits. */
function pad3(n: number): string {
  return n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`;
}

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

/**
 * Prints epoch milliseconds as `YYYY-MM-DD HH:MM:SS.fff` (UTC, always three fraction digits),
 * the way Flink prints TIMESTAMP(3).
 *
 * @throws RecordError when `ms` is not an integer or lies outside years 0000–9999: such a value
 *   can only come from arithmetic on a record's data, so the record is the one to dead-letter.
 */
export function formatTimestamp(ms: number): string {
  if (!isTimestampInRange(ms)) {
    throw new RecordError(
      `TIMESTAMP value ${ms} ms is outside the supported range 0000-01-01 00:00:00.000 to 9999-12-31 23:59:59.999`,
    );
  }
  const { year, month, day, hour, minute, second, millis } = calendarFields(ms);
  const yearText = year < 10 ? `000${year}` : year < 100 ? `00${year}` : year < 1000 ? `0${year}` : `${year}`;
  return `${yearText}-${pad2(month)}-${pad2(day)} ${pad2(hour)}:${pad2(minute)}:${pad2(second)}.${pad3(millis)}`;
}

/** Earliest supported DATE: `0000-01-01`, in days since 1970-01-01. */
export const MIN_DATE_DAYS = daysFromCivil(0, 1, 1);

/** Latest supported DATE: `9999-12-31`, in days since 1970-01-01. */
export const MAX_DATE_DAYS = daysFromCivil(9999, 12, 31);

/** True when `days` is an integer inside the supported DATE range (years 0000–9999). */
export function isDateInRange(days: number): boolean {
  return Number.isInteger(days) && days >= MIN_DATE_DAYS && days <= MAX_DATE_DAYS;
}

/** Reads 1 to `max` digits at `i`; `[value, next index]`, or undefined without a digit. */
function digitsAt(text: string, i: number, max: number): [number, number] | undefined {
  let value = 0;
  let j = i;
  while (j < text.length && j - i < max) {
    const d = digitAt(text, j);
    if (d < 0) break;
    value = value * 10 + d;
    j++;
  }
  return j === i ? undefined : [value, j];
}

/**
 * Parses a DATE as Flink's `CAST(… AS DATE)` and `DATE '…'` read it: `yyyy-M-d` (the month and
 * day with one or two digits); a time after a space or `T` is accepted and dropped, as Flink
 * reads a timestamp string as its date. Days since 1970-01-01, or undefined when the text is not
 * a valid date. Callers trim.
 */
export function parseDate(text: string): number | undefined {
  const year = digitsAt(text, 0, 4);
  if (year === undefined || year[1] !== 4 || text.charCodeAt(4) !== 45 /* - */) return undefined;
  const month = digitsAt(text, 5, 2);
  if (month === undefined || text.charCodeAt(month[1]) !== 45) return undefined;
  const day = digitsAt(text, month[1] + 1, 2);
  if (day === undefined) return undefined;
  const [y, m, d] = [year[0], month[0], day[0]];
  if (m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m)) return undefined;
  const end = day[1];
  if (end !== text.length) {
    const sep = text.charCodeAt(end);
    if ((sep !== 32 && sep !== 84) || parseTime(text.slice(end + 1)) === undefined) return undefined;
  }
  return daysFromCivil(y, m, d);
}

/**
 * Parses a TIME as Flink reads one: `H:mm[:ss[.fraction]]` (the hour with one or two digits,
 * a fraction of 1 to 9 digits, truncated to milliseconds). Milliseconds since midnight, or
 * undefined when the text is not a valid time. Callers trim.
 */
export function parseTime(text: string): number | undefined {
  const hour = digitsAt(text, 0, 2);
  if (hour === undefined || text.charCodeAt(hour[1]) !== 58 /* : */) return undefined;
  const minute = digitsAt(text, hour[1] + 1, 2);
  if (minute === undefined || minute[1] - hour[1] !== 3) return undefined;
  let i = minute[1];
  let second = 0;
  let millis = 0;
  if (i < text.length) {
    if (text.charCodeAt(i) !== 58) return undefined;
    const s = digitsAt(text, i + 1, 2);
    if (s === undefined || s[1] - i !== 3) return undefined;
    second = s[0];
    i = s[1];
    if (i < text.length) {
      if (text.charCodeAt(i) !== 46 /* . */) return undefined;
      const start = ++i;
      while (i < text.length) {
        const d = digitAt(text, i);
        if (d < 0) return undefined;
        if (i - start < 3) millis = millis * 10 + d;
        i++;
      }
      const digits = i - start;
      if (digits === 0 || digits > 9) return undefined;
      if (digits === 1) millis *= 100;
      else if (digits === 2) millis *= 10;
    }
  }
  if (hour[0] > 23 || minute[0] > 59 || second > 59) return undefined;
  return hour[0] * 3_600_000 + minute[0] * 60_000 + second * 1000 + millis;
}

/** A four-digit year. */
function pad4(n: number): string {
  return n < 10 ? `000${n}` : n < 100 ? `00${n}` : n < 1000 ? `0${n}` : `${n}`;
}

/**
 * Prints a DATE (days since 1970-01-01) as `yyyy-MM-dd`, the way Flink prints DATE.
 *
 * @throws RecordError outside years 0000–9999 (such a value comes from a record's arithmetic).
 */
export function formatDate(days: number): string {
  if (!isDateInRange(days)) {
    throw new RecordError(`DATE value ${days} (days since 1970-01-01) is outside the supported range 0000-01-01 to 9999-12-31`);
  }
  const { year, month, day } = calendarFields(days * MS_PER_DAY);
  return `${pad4(year)}-${pad2(month)}-${pad2(day)}`;
}

/**
 * Prints a TIME(p) (milliseconds since midnight) as Flink does: `HH:mm:ss`, then `.` and `p`
 * fraction digits when `p` > 0 (`TIME(0)` → `12:34:56`, `TIME(3)` → `12:34:56.789`).
 */
export function formatTime(msOfDay: number, precision: number): string {
  const hour = Math.floor(msOfDay / 3_600_000);
  const minute = Math.floor(msOfDay / 60_000) % 60;
  const second = Math.floor(msOfDay / 1000) % 60;
  const text = `${pad2(hour)}:${pad2(minute)}:${pad2(second)}`;
  return precision <= 0 ? text : `${text}.${pad3(msOfDay % 1000).slice(0, precision)}`;
}

/** Milliseconds since midnight truncated to `precision` fraction digits (0..3), as a TIME(p) holds them. */
export function truncateTimePrecision(msOfDay: number, precision: number): number {
  if (precision >= 3) return msOfDay;
  const unit = precision === 2 ? 10 : precision === 1 ? 100 : 1000;
  return msOfDay - (msOfDay % unit);
}
