/**
 * Temporal built-ins, as Flink documents them (functions/systemFunctions, "Temporal
 * Functions"), over DATE (days since 1970-01-01), TIME(p) (milliseconds of the day), TIMESTAMP(3)
 * (a wall-clock reading) and TIMESTAMP_LTZ(3) (an instant) values: EXTRACT, YEAR … SECOND,
 * QUARTER, WEEK, DAYOFYEAR, DAYOFWEEK, FLOOR / CEIL … TO unit, TIMESTAMPADD, TIMESTAMPDIFF,
 * DATE_FORMAT, TO_DATE, TO_TIMESTAMP, TO_TIMESTAMP_LTZ, UNIX_TIMESTAMP, FROM_UNIXTIME, CONVERT_TZ,
 * and the current time (CURRENT_DATE, CURRENT_TIME, LOCALTIME, LOCALTIMESTAMP, CURRENT_TIMESTAMP,
 * NOW, CURRENT_ROW_TIMESTAMP), evaluated per record as Flink does in streaming mode.
 *
 * Calendar arithmetic works on wall-clock readings: a TIMESTAMP_LTZ is read in the call's
 * session time zone (`SET 'table.local-time-zone'`, UTC by default) and a result of that type
 * turned back into an instant, as Flink does (its `concepts/timezone` page). The types follow
 * Flink 1.13+: CURRENT_TIMESTAMP, NOW and CURRENT_ROW_TIMESTAMP are TIMESTAMP_LTZ(3),
 * LOCALTIMESTAMP TIMESTAMP(3), CURRENT_DATE DATE, CURRENT_TIME and LOCALTIME TIME(0).
 */
import { PlanError, RecordError } from '../core/errors.ts';
import { calendarFields, daysFromCivil, parseTimestamp, truncateTimePrecision } from '../core/timestamp.ts';
import { lenientTimeZoneOf, toInstant, toLocalMillis, type TimeZone } from '../core/time-zone.ts';
import type { LogicalType, Row, Value } from '../core/types.ts';
import type { Call } from './expr.ts';
import { printExpr } from './expr-print.ts';
import { compileDatePattern, millisOfDay } from './expr-date-format.ts';
import {
  BIGINT,
  type Builtin,
  checkArgs,
  DATE,
  type FnArg,
  INT,
  INTEGERS,
  keywordArg,
  NUMERICS,
  nullableIf,
  requireRoots,
  strict,
  STRING,
  STRINGS,
  TIME,
  TIMESTAMP,
  TIMESTAMP_LTZ,
} from './expr-fn.ts';
import { parseDatePattern } from './expr-date-parse.ts';

const MS_PER_SECOND = 1000;
const MS_PER_MINUTE = 60_000;
const MS_PER_HOUR = 3_600_000;
const MS_PER_DAY = 86_400_000;

const DATE_UNITS = ['MILLENNIUM', 'CENTURY', 'DECADE', 'YEAR', 'QUARTER', 'MONTH', 'WEEK', 'DAY', 'DOY', 'DOW', 'ISODOW', 'EPOCH'];
const TIME_UNITS = ['HOUR', 'MINUTE', 'SECOND', 'MILLISECOND'];
const EXTRACT_UNITS = [...DATE_UNITS, ...TIME_UNITS];
const FLOOR_UNITS = ['YEAR', 'QUARTER', 'MONTH', 'WEEK', 'DAY', 'HOUR', 'MINUTE', 'SECOND', 'MILLISECOND'];
const ARITH_UNITS = ['YEAR', 'QUARTER', 'MONTH', 'WEEK', 'DAY', 'HOUR', 'MINUTE', 'SECOND', 'MILLISECOND'];
/** The units a DATE or a TIME has (a DATE has no hours, a TIME no days). */
const DATE_FLOOR_UNITS = ['YEAR', 'QUARTER', 'MONTH', 'WEEK', 'DAY'];
const TIME_FLOOR_UNITS = ['HOUR', 'MINUTE', 'SECOND', 'MILLISECOND'];

/** The date-time roots a time point may have. */
const DATETIMES = ['DATE', 'TIME', 'TIMESTAMP', 'TIMESTAMP_LTZ'];
/** The roots with a date (so a calendar). */
const DATED = ['DATE', 'TIMESTAMP', 'TIMESTAMP_LTZ'];
/** The roots with a time of day. */
const TIMED = ['TIME', 'TIMESTAMP', 'TIMESTAMP_LTZ'];

/** Milliseconds of the fixed-length units. */
const FIXED: Readonly<Record<string, number>> = { WEEK: 7 * MS_PER_DAY, DAY: MS_PER_DAY, HOUR: MS_PER_HOUR, MINUTE: MS_PER_MINUTE, SECOND: MS_PER_SECOND, MILLISECOND: 1 };

/**
 * A date-time value as a wall-clock reading (epoch milliseconds of the reading taken as UTC):
 * a TIMESTAMP as it is, a TIMESTAMP_LTZ in `zone`, a DATE at midnight, a TIME on 1970-01-01.
 */
export function wallClockOf(type: LogicalType, zone: TimeZone): (value: number) => number {
  switch (type.root) {
    case 'TIMESTAMP_LTZ':
      return (v) => toLocalMillis(v, zone);
    case 'DATE':
      return (v) => v * MS_PER_DAY;
    default:
      return (v) => v;
  }
}

/** The inverse of {@link wallClockOf}: a wall-clock reading as a value of `type` (a DATE drops the time, a TIME the date). */
export function fromWallClock(type: LogicalType, zone: TimeZone): (local: number) => number {
  switch (type.root) {
    case 'TIMESTAMP_LTZ':
      return (ms) => toInstant(ms, zone);
    case 'DATE':
      return (ms) => Math.floor(ms / MS_PER_DAY);
    case 'TIME': {
      const precision = type.precision ?? 0;
      return (ms) => truncateTimePrecision(millisOfDay(ms), precision);
    }
    default:
      return (ms) => ms;
  }
}

/** ISO-8601 week number (weeks start on Monday; week 1 holds the year's first Thursday). */
function isoWeek(ms: number): number {
  const f = calendarFields(ms);
  const days = Math.floor(ms / MS_PER_DAY);
  const thursday = days + 4 - f.dayOfWeek;
  const t = calendarFields(thursday * MS_PER_DAY);
  return Math.floor((t.dayOfYear - 1) / 7) + 1;
}

/** `EXTRACT(unit FROM ts)` of a wall-clock reading: BIGINT. DOW is 1 (Sunday) to 7, ISODOW 1 (Monday) to 7. */
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
  return Math.round(daysFromCivil(month === 12 ? year + 1 : year, month === 12 ? 1 : month + 1, 1) - daysFromCivil(year, month, 1));
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

/** A wall-clock reading plus `n` months by the calendar (the day clamped to the month's length). */
export function addMonths(local: number, n: number): number {
  return addUnits('MONTH', n, local);
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

/** A string → wall-clock ms parser for a constant or per-row format. */
function parserFor(format: Value | undefined): ((text: string) => number | undefined) | undefined {
  if (format === undefined) return parseDefault;
  if (format === null) return undefined;
  return parseDatePattern(format as string);
}

/**
 * A string → value evaluator (TO_DATE, TO_TIMESTAMP, TO_TIMESTAMP_LTZ): the text parsed by the
 * optional format (a constant compiles once), then `convert`ed; NULL when it does not parse.
 */
function parseEvaluator(text: FnArg, format: FnArg | undefined, convert: (local: number) => Value): (row: Row) => Value {
  if (format === undefined || format.constant !== undefined) {
    const parse = parserFor(format?.constant?.value);
    if (parse === undefined) return () => null;
    return strict([text], ([s]) => {
      const local = parse(s as string);
      return local === undefined ? null : convert(local);
    });
  }
  return strict([text, format], ([s, fmt]) => {
    const local = parseDatePattern(fmt as string)(s as string);
    return local === undefined ? null : convert(local);
  });
}

/** The clock the current-time functions read while an operator evaluates them (see {@link withClock}). */
let clock: (() => number) | undefined;

/**
 * Runs `fn` with the current-time functions (CURRENT_TIMESTAMP, NOW, LOCALTIMESTAMP, …, and so a
 * PROCTIME() attribute materialized as one) reading `processingTime`: the runtime's
 * processing-time clock, which is the wall clock in a job and a controlled one in tests, as
 * Flink's PROCTIME_MATERIALIZE reads its operator's timer service. Outside, they read Date.now.
 */
export function withClock<T>(processingTime: () => number, fn: () => T): T {
  const previous = clock;
  clock = processingTime;
  try {
    return fn();
  } finally {
    clock = previous;
  }
}

const now = (): number => (clock ?? Date.now)();

/** A current-time function: `type`, from the current instant read in the call's zone. */
function currentTime(type: LogicalType, fromInstant: (instant: number, zone: TimeZone) => number): Builtin {
  return {
    // Calcite's dynamic functions: per record in streaming, so non-deterministic there (Flink's
    // concepts/determinism page).
    nonDeterministic: true,
    type: (call) => {
      checkArgs(call, 0, 0);
      return type;
    },
    evaluator: ({ zone }) => () => fromInstant(now(), zone),
  };
}

/** The unit keyword at `index`, checked against what the operand's type has. */
function unitFor(call: Call, index: number, operand: LogicalType, units: readonly string[], dateUnits: readonly string[], timeUnits: readonly string[]): string {
  const unit = keywordArg(call, index, units, 'a time unit');
  if (operand.root === 'DATE' && !dateUnits.includes(unit)) {
    throw new PlanError(`${call.fn} of a DATE takes a date unit (${dateUnits.join(', ')}), not ${unit}, in ${printExpr(call)}`);
  }
  if (operand.root === 'TIME' && !timeUnits.includes(unit)) {
    throw new PlanError(`${call.fn} of a TIME takes a time unit (${timeUnits.join(', ')}), not ${unit}, in ${printExpr(call)}`);
  }
  return unit;
}

function floorCeil(ceil: boolean): Builtin {
  return {
    type: (call, types) => {
      checkArgs(call, 2, 2);
      requireRoots(call, types, DATETIMES, STRINGS);
      unitFor(call, 1, types[0]!, FLOOR_UNITS, DATE_FLOOR_UNITS, TIME_FLOOR_UNITS);
      return types[0]!;
    },
    evaluator: ({ call, args, zone }) => {
      const type = args[0]!.type;
      const unit = unitFor(call, 1, type, FLOOR_UNITS, DATE_FLOOR_UNITS, TIME_FLOOR_UNITS);
      const toLocal = wallClockOf(type, zone);
      const back = fromWallClock(type, zone);
      const f = args[0]!.fn;
      return (row) => {
        const v = f(row);
        if (v === null) return null;
        const local = toLocal(v as number);
        return back(ceil ? ceilTo(unit, local) : floorTo(unit, local));
      };
    },
  };
}

/** YEAR(x) … SECOND(x): EXTRACT of one unit, BIGINT as in Flink. */
function datePart(unit: string): Builtin {
  const roots = DATE_UNITS.includes(unit) ? DATED : TIMED;
  return {
    type: (call, types) => {
      checkArgs(call, 1, 1);
      requireRoots(call, types, roots);
      return nullableIf(BIGINT, types);
    },
    evaluator: ({ args, zone }) => {
      const toLocal = wallClockOf(args[0]!.type, zone);
      return strict(args, ([v]) => extract(unit, toLocal(v as number)));
    },
  };
}

/** `TIMESTAMPADD(unit, n, x)`: a DATE stays a DATE for whole days and longer, else becomes a TIMESTAMP (Calcite). */
function timestampAddType(call: Call, types: readonly LogicalType[]): LogicalType {
  checkArgs(call, 3, 3);
  requireRoots(call, types, STRINGS, INTEGERS, DATETIMES);
  const unit = keywordArg(call, 0, ARITH_UNITS, 'a time unit');
  const target = types[2]!;
  if (target.root === 'TIME' && !TIME_FLOOR_UNITS.includes(unit)) {
    throw new PlanError(`TIMESTAMPADD of a TIME takes a time unit (${TIME_FLOOR_UNITS.join(', ')}), not ${unit}, in ${printExpr(call)}`);
  }
  const result = target.root === 'DATE' && TIME_FLOOR_UNITS.includes(unit) ? TIMESTAMP : target;
  return nullableIf({ ...result, nullable: false }, types.slice(1));
}

/** CONVERT_TZ's zone argument: a constant resolves once (a bad one is a plan error), a column per row. */
function zoneArg(arg: FnArg, where: string): (row: Row) => TimeZone | null {
  if (arg.constant !== undefined) {
    const id = arg.constant.value;
    if (id === null) return () => null;
    let zone: TimeZone;
    try {
      zone = lenientTimeZoneOf(id as string);
    } catch (err) {
      throw new PlanError(`${err instanceof Error ? err.message : String(err)} in ${where}`, { cause: err });
    }
    return () => zone;
  }
  const f = arg.fn;
  return (row) => {
    const id = f(row);
    if (id === null) return null;
    try {
      return lenientTimeZoneOf(id as string);
    } catch (err) {
      throw new RecordError(`${err instanceof Error ? err.message : String(err)} in ${where}`);
    }
  };
}

/** A DATE_FORMAT / FROM_UNIXTIME pattern: a constant compiles once, a column per row (bad ones fail the record). */
function patternEvaluator(pattern: FnArg, where: string): (row: Row) => ((ms: number) => string) | null {
  if (pattern.constant !== undefined) {
    if (pattern.constant.value === null) return () => null;
    let format: (ms: number) => string;
    try {
      format = compileDatePattern(pattern.constant.value as string);
    } catch (err) {
      throw new PlanError(`${err instanceof Error ? err.message : String(err)} in ${where}`, { cause: err });
    }
    return () => format;
  }
  const cache = new Map<string, (ms: number) => string>();
  const f = pattern.fn;
  return (row) => {
    const p = f(row);
    if (p === null) return null;
    let format = cache.get(p as string);
    if (format === undefined) {
      try {
        format = compileDatePattern(p as string);
      } catch (err) {
        throw new RecordError(`${err instanceof Error ? err.message : String(err)} in ${where}`);
      }
      if (cache.size >= 64) cache.clear();
      cache.set(p as string, format);
    }
    return format;
  };
}

/** The temporal built-ins by name. */
export const TIME_FUNCTIONS: Readonly<Record<string, Builtin>> = {
  NOW: currentTime(TIMESTAMP_LTZ, (instant) => instant),
  CURRENT_TIMESTAMP: currentTime(TIMESTAMP_LTZ, (instant) => instant),
  CURRENT_ROW_TIMESTAMP: currentTime(TIMESTAMP_LTZ, (instant) => instant),
  LOCALTIMESTAMP: currentTime(TIMESTAMP, (instant, zone) => toLocalMillis(instant, zone)),
  CURRENT_DATE: currentTime(DATE, (instant, zone) => Math.floor(toLocalMillis(instant, zone) / MS_PER_DAY)),
  CURRENT_TIME: currentTime(TIME, (instant, zone) => truncateTimePrecision(millisOfDay(toLocalMillis(instant, zone)), 0)),
  LOCALTIME: currentTime(TIME, (instant, zone) => truncateTimePrecision(millisOfDay(toLocalMillis(instant, zone)), 0)),
  EXTRACT: {
    type: (call, types) => {
      checkArgs(call, 2, 2);
      requireRoots(call, types, STRINGS, DATETIMES);
      unitFor(call, 0, types[1]!, EXTRACT_UNITS, DATE_UNITS, TIME_UNITS);
      return nullableIf(BIGINT, types.slice(1));
    },
    evaluator: ({ call, args, zone }) => {
      const type = args[1]!.type;
      const unit = unitFor(call, 0, type, EXTRACT_UNITS, DATE_UNITS, TIME_UNITS);
      // The epoch of an instant is the instant's, whatever the zone.
      const toLocal = unit === 'EPOCH' && type.root === 'TIMESTAMP_LTZ' ? (v: number) => v : wallClockOf(type, zone);
      const f = args[1]!.fn;
      return (row) => {
        const v = f(row);
        return v === null ? null : extract(unit, toLocal(v as number));
      };
    },
  },
  YEAR: datePart('YEAR'),
  QUARTER: datePart('QUARTER'),
  MONTH: datePart('MONTH'),
  WEEK: datePart('WEEK'),
  DAYOFYEAR: datePart('DOY'),
  DAYOFMONTH: datePart('DAY'),
  DAYOFWEEK: datePart('DOW'),
  HOUR: datePart('HOUR'),
  MINUTE: datePart('MINUTE'),
  SECOND: datePart('SECOND'),
  'FLOOR TO': floorCeil(false),
  'CEIL TO': floorCeil(true),
  TIMESTAMPADD: {
    type: timestampAddType,
    evaluator: ({ call, args, type, zone }) => {
      const unit = keywordArg(call, 0, ARITH_UNITS, 'a time unit');
      const from = args[2]!.type;
      const toLocal = wallClockOf(from, zone);
      const back = fromWallClock(type, zone);
      // An instant moves by fixed units on the time line, by calendar units on its wall clock.
      if (from.root === 'TIMESTAMP_LTZ' && FIXED[unit] !== undefined && unit !== 'DAY' && unit !== 'WEEK') {
        const step = FIXED[unit]!;
        return strict(args.slice(1), ([n, ts]) => (ts as number) + (n as number) * step);
      }
      return strict(args.slice(1), ([n, ts]) => back(addUnits(unit, n as number, toLocal(ts as number))));
    },
  },
  TIMESTAMPDIFF: {
    type: (call, types) => {
      checkArgs(call, 3, 3);
      requireRoots(call, types, STRINGS, DATED);
      keywordArg(call, 0, ARITH_UNITS, 'a time unit');
      return nullableIf(INT, types.slice(1));
    },
    evaluator: ({ call, args, zone }) => {
      const unit = keywordArg(call, 0, ARITH_UNITS, 'a time unit');
      const a = wallClockOf(args[1]!.type, zone);
      const b = wallClockOf(args[2]!.type, zone);
      return strict(args.slice(1), ([x, y]) => diffUnits(unit, a(x as number), b(y as number)));
    },
  },
  DATE_FORMAT: {
    type: (call, types) => {
      checkArgs(call, 2, 2);
      requireRoots(call, types, [...DATED, 'STRING'], STRINGS);
      return nullableIf(STRING, types);
    },
    evaluator: ({ args, where, zone }) => {
      const [value, pattern] = args as [FnArg, FnArg];
      // A string is read as a timestamp first (Flink's DATE_FORMAT(string, format)).
      const toLocal = value.type.root === 'STRING' ? (s: Value): number | null => parseDefault(s as string) ?? null : (v: Value): number => wallClockOf(value.type, zone)(v as number);
      const formatOf = patternEvaluator(pattern, where);
      const f = value.fn;
      return (row) => {
        const v = f(row);
        if (v === null) return null;
        const format = formatOf(row);
        if (format === null) return null;
        const local = toLocal(v);
        return local === null ? null : format(local);
      };
    },
  },
  TO_DATE: {
    // NULL when the string does not parse, as in Flink.
    type: (call, types) => {
      checkArgs(call, 1, 2);
      requireRoots(call, types, STRINGS);
      return { ...DATE, nullable: true };
    },
    evaluator: ({ args }) => parseEvaluator(args[0]!, args[1], (local) => Math.floor(local / MS_PER_DAY)),
  },
  TO_TIMESTAMP: {
    // NULL when the string does not parse, as in Flink.
    type: (call, types) => {
      checkArgs(call, 1, 2);
      requireRoots(call, types, STRINGS);
      return { ...TIMESTAMP, nullable: true };
    },
    evaluator: ({ args }) => parseEvaluator(args[0]!, args[1], (local) => local),
  },
  TO_TIMESTAMP_LTZ: {
    // TO_TIMESTAMP_LTZ(epoch, precision) with precision 0 (seconds) or 3 (milliseconds); or
    // TO_TIMESTAMP_LTZ(text [, format [, zone]]), the text a wall-clock time of the zone (the
    // session's by default). NULL when the text does not parse.
    type: (call, types) => {
      checkArgs(call, 1, 3);
      if (types[0]!.root === 'STRING') {
        requireRoots(call, types, STRINGS);
        return { ...TIMESTAMP_LTZ, nullable: true };
      }
      checkArgs(call, 2, 2);
      requireRoots(call, types, NUMERICS, INTEGERS);
      keywordPrecision(call);
      return nullableIf(TIMESTAMP_LTZ, types);
    },
    evaluator: ({ call, args, zone, where }) => {
      if (args[0]!.type.root === 'STRING') {
        if (args.length === 3) {
          const zoneOf = zoneArg(args[2]!, where);
          const parse = parseEvaluator(args[0]!, args[1], (local) => local);
          return (row) => {
            const local = parse(row);
            if (local === null) return null;
            const z = zoneOf(row);
            return z === null ? null : toInstant(local as number, z);
          };
        }
        return parseEvaluator(args[0]!, args[1], (local) => toInstant(local, zone));
      }
      const scale = keywordPrecision(call) === 0 ? 1000 : 1;
      const type = args[0]!.type;
      return strict([args[0]!], ([n]) => {
        const seconds = type.root === 'DECIMAL' ? Number(n as bigint) / 10 ** (type.scale ?? 0) : (n as number);
        return Math.floor(seconds * scale);
      });
    },
  },
  UNIX_TIMESTAMP: {
    // Only the form without arguments reads the clock (FLINK-41637).
    nonDeterministic: (call) => call.args.length === 0,
    type: (call, types) => {
      checkArgs(call, 0, 2);
      requireRoots(call, types, STRINGS);
      return nullableIf(BIGINT, types);
    },
    evaluator: ({ args, zone }) => {
      if (args.length === 0) return () => Math.floor(now() / 1000);
      // Flink returns Long.MIN_VALUE for a string it cannot parse; the text is a wall-clock
      // time of the session time zone.
      const fail = -9223372036854775808;
      return strict(args, ([s, fmt]) => {
        const local = fmt === undefined ? parseDefault(s as string) : parseDatePattern(fmt as string)(s as string);
        return local === undefined ? fail : Math.floor(toInstant(local, zone) / 1000);
      });
    },
  },
  FROM_UNIXTIME: {
    type: (call, types) => {
      checkArgs(call, 1, 2);
      requireRoots(call, types, INTEGERS, STRINGS);
      return nullableIf(STRING, types);
    },
    evaluator: ({ args, where, zone }) => {
      const [seconds, format] = args;
      const defaultFormat = compileDatePattern('yyyy-MM-dd HH:mm:ss');
      const formatOf = format === undefined ? () => defaultFormat : patternEvaluator(format, where);
      const f = seconds!.fn;
      return (row) => {
        const n = f(row);
        if (n === null) return null;
        const print = formatOf(row);
        return print === null ? null : print(toLocalMillis((n as number) * 1000, zone));
      };
    },
  },
  CONVERT_TZ: {
    // CONVERT_TZ('1970-01-01 00:00:00', 'UTC', 'America/Los_Angeles') = '1969-12-31 16:00:00'.
    type: (call, types) => {
      checkArgs(call, 3, 3);
      requireRoots(call, types, STRINGS);
      return { ...STRING, nullable: true };
    },
    evaluator: ({ args, where }) => {
      const from = zoneArg(args[1]!, where);
      const to = zoneArg(args[2]!, where);
      const print = compileDatePattern('yyyy-MM-dd HH:mm:ss');
      const f = args[0]!.fn;
      return (row) => {
        const text = f(row);
        if (text === null) return null;
        const local = parseDefault(text as string);
        if (local === undefined) return null;
        const zf = from(row);
        const zt = to(row);
        return zf === null || zt === null ? null : print(toLocalMillis(toInstant(local, zf), zt));
      };
    },
  },
};

/** TO_TIMESTAMP_LTZ's precision: the constant 0 or 3. */
function keywordPrecision(call: Call): number {
  const p = call.args[1];
  const value = p?.kind === 'literal' ? p.value : undefined;
  if (value !== 0 && value !== 3) {
    throw new PlanError(`TO_TIMESTAMP_LTZ takes the precision 0 (seconds) or 3 (milliseconds) as a constant, in ${printExpr(call)}`);
  }
  return value;
}
