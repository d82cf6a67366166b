/**
 * Temporal built-ins, as Flink documents them, on TIMESTAMP(3) values (epoch milliseconds, UTC:
 * the session time zone is UTC): EXTRACT, FLOOR / CEIL … TO unit, TIMESTAMPADD, TIMESTAMPDIFF,
 * TO_TIMESTAMP, UNIX_TIMESTAMP, FROM_UNIXTIME, and the current time (NOW, CURRENT_TIMESTAMP,
 * LOCALTIMESTAMP, CURRENT_ROW_TIMESTAMP), evaluated per record as Flink does in streaming mode.
 */
import { RecordError } from '../core/errors.ts';
import { calendarFields, daysFromCivil, parseTimestamp } from '../core/timestamp.ts';
import type { Value } from '../core/types.ts';
import { compileDatePattern, millisOfDay } from './expr-date-format.ts';
import { BIGINT, type Builtin, checkArgs, INT, INTEGERS, keywordArg, nullableIf, requireRoots, strict, STRING, STRINGS, TIMESTAMP } from './expr-fn.ts';
import { parseDatePattern } from './expr-date-parse.ts';

const MS_PER_SECOND = 1000;
const MS_PER_MINUTE = 60_000;
const MS_PER_HOUR = 3_600_000;
const MS_PER_DAY = 86_400_000;

const EXTRACT_UNITS = ['MILLENNIUM', 'CENTURY', 'DECADE', 'YEAR', 'QUARTER', 'MONTH', 'WEEK', 'DAY', 'DOY', 'DOW', 'ISODOW', 'HOUR', 'MINUTE', 'SECOND', 'MILLISECOND', 'EPOCH'];
const FLOOR_UNITS = ['YEAR', 'QUARTER', 'MONTH', 'WEEK', 'DAY', 'HOUR', 'MINUTE', 'SECOND', 'MILLISECOND'];
const ARITH_UNITS = ['YEAR', 'QUARTER', 'MONTH', 'WEEK', 'DAY', 'HOUR', 'MINUTE', 'SECOND', 'MILLISECOND'];

/** Milliseconds of the fixed-length units. */
const FIXED: Readonly<Record<string, number>> = { WEEK: 7 * MS_PER_DAY, DAY: MS_PER_DAY, HOUR: MS_PER_HOUR, MINUTE: MS_PER_MINUTE, SECOND: MS_PER_SECOND, MILLISECOND: 1 };

/** ISO-8601 week number (weeks start on Monday; week 1 holds the year's first Thursday). */
function isoWeek(ms: number): number {
  const f = calendarFields(ms);
  const days = Math.floor(ms / MS_PER_DAY);
  const thursday = days + 4 - f.dayOfWeek;
  const t = calendarFields(thursday * MS_PER_DAY);
  return Math.floor((t.dayOfYear - 1) / 7) + 1;
}

/** `EXTRACT(unit FROM ts)`: BIGINT. DOW is 1 (Sunday) to 7, ISODOW 1 (Monday) to 7. */
function extract(unit: string, ms: number): number {
  const f = calendarFields(ms);
  switch (unit) {
    case 'MILLENNIUM':
      return Math.floor((f.year - 1) / 1000) + 1;
    case 'CENTURY':
      return Math.floor((f.year - 1) / 100) + 1;
    case 'DECADE':
      return Math.floor(f.year / 10);
    case 'YEAR':
      return f.year;
    case 'QUARTER':
      return Math.floor((f.month - 1) / 3) + 1;
    case 'MONTH':
      return f.month;
    case 'WEEK':
      return isoWeek(ms);
    case 'DAY':
      return f.day;
    case 'DOY':
      return f.dayOfYear;
    case 'DOW':
      return (f.dayOfWeek % 7) + 1;
    case 'ISODOW':
      return f.dayOfWeek;
    case 'HOUR':
      return f.hour;
    case 'MINUTE':
      return f.minute;
    case 'SECOND':
      return f.second;
    case 'MILLISECOND':
      return f.second * 1000 + f.millis;
    default:
      // EPOCH: seconds since 1970-01-01 00:00:00.
      return Math.floor(ms / 1000);
  }
}

/** The start of the calendar unit holding `ms` (weeks start on Sunday, as Calcite's FLOOR TO WEEK). */
function floorTo(unit: string, ms: number): number {
  const fixed = FIXED[unit];
  if (unit === 'WEEK') {
    const day = Math.floor(ms / MS_PER_DAY);
    // 1970-01-01 was a Thursday: day 3 (1970-01-04) was a Sunday.
    return (day - ((((day - 3) % 7) + 7) % 7)) * MS_PER_DAY;
  }
  if (fixed !== undefined) return Math.floor(ms / fixed) * fixed;
  const f = calendarFields(ms);
  const month = unit === 'YEAR' ? 1 : unit === 'QUARTER' ? f.month - ((f.month - 1) % 3) : f.month;
  return daysFromCivil(f.year, month, 1) * MS_PER_DAY;
}

/** The end of the unit (the next unit's start), or `ms` when it starts a unit. */
function ceilTo(unit: string, ms: number): number {
  const floor = floorTo(unit, ms);
  return floor === ms ? ms : addUnits(unit, 1, floor);
}

function daysInMonth(year: number, month: number): number {
  return Math.round((daysFromCivil(month === 12 ? year + 1 : year, month === 12 ? 1 : month + 1, 1) - daysFromCivil(year, month, 1)));
}

/** `ts` plus `n` units; months clamp the day to the target month's length (Jan 31 + 1 month = Feb 28/29). */
function addUnits(unit: string, n: number, ms: number): number {
  const fixed = FIXED[unit];
  if (fixed !== undefined) return ms + n * fixed;
  const months = unit === 'YEAR' ? 12 * n : unit === 'QUARTER' ? 3 * n : n;
  const f = calendarFields(ms);
  const total = f.year * 12 + (f.month - 1) + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12 + 1;
  const day = Math.min(f.day, daysInMonth(year, month));
  return daysFromCivil(year, month, day) * MS_PER_DAY + millisOfDay(ms);
}

/** Whole units from `a` to `b`, truncated toward zero (months by the calendar). */
function diffUnits(unit: string, a: number, b: number): number {
  const fixed = FIXED[unit];
  if (fixed !== undefined) return Math.trunc((b - a) / fixed);
  const fa = calendarFields(a);
  const fb = calendarFields(b);
  let months = (fb.year - fa.year) * 12 + (fb.month - fa.month);
  const restA = fa.day * MS_PER_DAY + millisOfDay(a);
  const restB = fb.day * MS_PER_DAY + millisOfDay(b);
  if (months > 0 && restB < restA) months--;
  if (months < 0 && restB > restA) months++;
  return unit === 'YEAR' ? Math.trunc(months / 12) : unit === 'QUARTER' ? Math.trunc(months / 3) : months;
}

/** A parser of the default format `yyyy-MM-dd HH:mm:ss` (also with a fraction, or a date alone). */
function parseDefault(text: string): number | undefined {
  const t = text.trim();
  return parseTimestamp(t.length === 10 ? `${t} 00:00:00` : t);
}

/** A string → epoch ms parser for a constant or per-row format. */
function parserFor(format: Value | undefined): ((text: string) => number | undefined) | undefined {
  if (format === undefined) return parseDefault;
  if (format === null) return undefined;
  return parseDatePattern(format as string);
}

const now = (): number => Date.now();

function currentTime(): Builtin {
  return {
    type: (call) => {
      checkArgs(call, 0, 0);
      return TIMESTAMP;
    },
    evaluator: () => now,
  };
}

function floorCeil(ceil: boolean): Builtin {
  return {
    type: (call, types) => {
      checkArgs(call, 2, 2);
      requireRoots(call, types, ['TIMESTAMP'], STRINGS);
      keywordArg(call, 1, FLOOR_UNITS, 'a time unit');
      return nullableIf(TIMESTAMP, types.slice(0, 1));
    },
    evaluator: ({ call, args }) => {
      const unit = keywordArg(call, 1, FLOOR_UNITS, 'a time unit');
      const f = args[0]!.fn;
      return (row) => {
        const v = f(row);
        return v === null ? null : ceil ? ceilTo(unit, v as number) : floorTo(unit, v as number);
      };
    },
  };
}

/** The temporal built-ins by name. */
export const TIME_FUNCTIONS: Readonly<Record<string, Builtin>> = {
  NOW: currentTime(),
  CURRENT_TIMESTAMP: currentTime(),
  LOCALTIMESTAMP: currentTime(),
  CURRENT_ROW_TIMESTAMP: currentTime(),
  EXTRACT: {
    type: (call, types) => {
      checkArgs(call, 2, 2);
      requireRoots(call, types, STRINGS, ['TIMESTAMP']);
      keywordArg(call, 0, EXTRACT_UNITS, 'a time unit');
      return nullableIf(BIGINT, types.slice(1));
    },
    evaluator: ({ call, args }) => {
      const unit = keywordArg(call, 0, EXTRACT_UNITS, 'a time unit');
      const f = args[1]!.fn;
      return (row) => {
        const v = f(row);
        return v === null ? null : extract(unit, v as number);
      };
    },
  },
  'FLOOR TO': floorCeil(false),
  'CEIL TO': floorCeil(true),
  TIMESTAMPADD: {
    type: (call, types) => {
      checkArgs(call, 3, 3);
      requireRoots(call, types, STRINGS, INTEGERS, ['TIMESTAMP']);
      keywordArg(call, 0, ARITH_UNITS, 'a time unit');
      return nullableIf(TIMESTAMP, types.slice(1));
    },
    evaluator: ({ call, args }) => {
      const unit = keywordArg(call, 0, ARITH_UNITS, 'a time unit');
      return strict(args.slice(1), ([n, ts]) => addUnits(unit, n as number, ts as number));
    },
  },
  TIMESTAMPDIFF: {
    type: (call, types) => {
      checkArgs(call, 3, 3);
      requireRoots(call, types, STRINGS, ['TIMESTAMP']);
      keywordArg(call, 0, ARITH_UNITS, 'a time unit');
      return nullableIf(INT, types.slice(1));
    },
    evaluator: ({ call, args }) => {
      const unit = keywordArg(call, 0, ARITH_UNITS, 'a time unit');
      return strict(args.slice(1), ([a, b]) => diffUnits(unit, a as number, b as number));
    },
  },
  TO_TIMESTAMP: {
    // NULL when the string does not parse, as in Flink.
    type: (call, types) => {
      checkArgs(call, 1, 2);
      requireRoots(call, types, STRINGS);
      return { ...TIMESTAMP, nullable: true };
    },
    evaluator: ({ args }) => {
      const [text, format] = args;
      if (format === undefined || format.constant !== undefined) {
        const parse = parserFor(format?.constant?.value);
        if (parse === undefined) return () => null;
        return strict([text!], ([s]) => parse(s as string) ?? null);
      }
      return strict(args, ([s, fmt]) => parseDatePattern(fmt as string)(s as string) ?? null);
    },
  },
  UNIX_TIMESTAMP: {
    type: (call, types) => {
      checkArgs(call, 0, 2);
      requireRoots(call, types, STRINGS);
      return nullableIf(BIGINT, types);
    },
    evaluator: ({ args }) => {
      if (args.length === 0) return () => Math.floor(now() / 1000);
      // Flink returns Long.MIN_VALUE for a string it cannot parse.
      const fail = -9223372036854775808;
      return strict(args, ([s, fmt]) => {
        const ms = fmt === undefined ? parseDefault(s as string) : parseDatePattern(fmt as string)(s as string);
        return ms === undefined ? fail : Math.floor(ms / 1000);
      });
    },
  },
  FROM_UNIXTIME: {
    type: (call, types) => {
      checkArgs(call, 1, 2);
      requireRoots(call, types, INTEGERS, STRINGS);
      return nullableIf(STRING, types);
    },
    evaluator: ({ args, where }) => {
      const [seconds, format] = args;
      const constant = format === undefined ? 'yyyy-MM-dd HH:mm:ss' : format.constant?.value;
      if (constant !== undefined) {
        if (constant === null) return () => null;
        const print = compileDatePattern(constant as string);
        return strict([seconds!], ([n]) => print((n as number) * 1000));
      }
      return strict(args, ([n, fmt]) => {
        try {
          return compileDatePattern(fmt as string)((n as number) * 1000);
        } catch (err) {
          throw new RecordError(`${err instanceof Error ? err.message : String(err)} in ${where}`);
        }
      });
    },
  },
};
