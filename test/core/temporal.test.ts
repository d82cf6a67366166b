/**
 * DATE, TIME and TIMESTAMP_LTZ values: their text forms (Flink's `yyyy-MM-dd`, `HH:mm:ss[.SSS]`),
 * the session time zone's conversions between instants and wall-clock readings (Java's
 * `atZone` rules at daylight-saving gaps and overlaps), and the casts among the date-time types.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlanError, RecordError } from '../../shared/core/errors.ts';
import { lenientTimeZoneOf, timeZoneOf, toInstant, toLocalMillis } from '../../shared/core/time-zone.ts';
import {
  formatDate,
  formatTime,
  formatTimestamp,
  MAX_DATE_DAYS,
  MAX_TIMESTAMP_MS,
  MIN_DATE_DAYS,
  MIN_TIMESTAMP_MS,
  parseDate,
  parseTime,
  parseTimestamp,
  truncateTimePrecision,
} from '../../shared/core/timestamp.ts';
import type { LogicalType, Value } from '../../shared/core/types.ts';
import { castConverter, type NonNullValue } from '../../shared/plan/expr-cast.ts';
import { castProblem } from '../../shared/plan/expr-type-rules.ts';

const ts = (text: string): number => parseTimestamp(text)!;
const iso = (ms: number): string => new Date(ms).toISOString();

describe('DATE text', () => {
  it.each([
    ['1970-01-01', 0],
    ['2024-03-05', 19787],
    ['1969-12-31', -1],
    ['0000-01-01', MIN_DATE_DAYS],
    ['9999-12-31', MAX_DATE_DAYS],
    ['2024-02-29', 19782],
  ])('reads and prints %s as day %d', (text, days) => {
    expect(parseDate(text)).toBe(days);
    expect(formatDate(days)).toBe(text);
  });

  it('reads one-digit months and days and a timestamp as its date, as Flink casts', () => {
    expect(parseDate('2024-3-5')).toBe(19787);
    expect(parseDate('2024-03-05 10:11:12')).toBe(19787);
    expect(parseDate('2024-03-05T10:11:12.5')).toBe(19787);
  });

  it.each(['2023-02-29', '2024-13-01', '2024-04-31', '24-03-05', '2024/03/05', '2024-03-05 25:00:00', '2024-03-05x', ''])('rejects %j', (text) => {
    expect(parseDate(text)).toBeUndefined();
  });

  it('round-trips every day of years 0000-9999 (print → parse)', () => {
    fc.assert(
      fc.property(fc.integer({ min: MIN_DATE_DAYS, max: MAX_DATE_DAYS }), (days) => {
        expect(parseDate(formatDate(days))).toBe(days);
      }),
    );
  });

  it('refuses to print a day outside years 0000-9999 (a record error)', () => {
    expect(() => formatDate(MAX_DATE_DAYS + 1)).toThrow(RecordError);
  });
});

describe('TIME text', () => {
  it.each([
    ['00:00:00', 0, 0],
    ['12:34:56', 0, 45_296_000],
    ['23:59:59.999', 3, 86_399_999],
    ['09:05:07.120', 3, 32_707_120],
    ['09:05:07.1', 1, 32_707_100],
  ])('reads and prints %s at precision %d', (text, precision, ms) => {
    expect(parseTime(text)).toBe(ms);
    expect(formatTime(ms, precision)).toBe(text);
  });

  it('reads H:mm, missing seconds and up to nine fraction digits (cut to milliseconds)', () => {
    expect(parseTime('9:05')).toBe(32_700_000);
    expect(parseTime('12:00:00.123999999')).toBe(43_200_123);
  });

  it.each(['24:00:00', '12:60:00', '12:00:60', '12:00:00.', '12:0:00', '12:00:00.1234567890', 'noon'])('rejects %j', (text) => {
    expect(parseTime(text)).toBeUndefined();
  });

  it('round-trips every millisecond of the day at every precision', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 86_399_999 }), fc.integer({ min: 0, max: 3 }), (ms, precision) => {
        const value = truncateTimePrecision(ms, precision);
        expect(parseTime(formatTime(value, precision))).toBe(value);
      }),
    );
  });
});

describe('time zones', () => {
  const la = timeZoneOf('America/Los_Angeles');
  const shanghai = timeZoneOf('Asia/Shanghai');

  it('reads an instant on the zone clock (the timezone page: 4001 ms is 08:00:04.001 in Shanghai)', () => {
    expect(formatTimestamp(toLocalMillis(4001, shanghai))).toBe('1970-01-01 08:00:04.001');
    expect(formatTimestamp(toLocalMillis(4001, timeZoneOf('UTC')))).toBe('1970-01-01 00:00:04.001');
    expect(formatTimestamp(toLocalMillis(4001, timeZoneOf('GMT-03:30')))).toBe('1969-12-31 20:30:04.001');
    expect(timeZoneOf('GMT+8').offsetAt(0)).toBe(8 * 3_600_000);
  });

  it('follows daylight saving time: Los Angeles is UTC-8 in winter and UTC-7 in summer', () => {
    expect(la.offsetAt(ts('2021-01-15 12:00:00'))).toBe(-8 * 3_600_000);
    expect(la.offsetAt(ts('2021-07-15 12:00:00'))).toBe(-7 * 3_600_000);
    // The switch is at 2021-03-14 10:00 UTC (02:00 PST → 03:00 PDT), to the millisecond.
    expect(la.offsetAt(ts('2021-03-14 09:59:59.999'))).toBe(-8 * 3_600_000);
    expect(la.offsetAt(ts('2021-03-14 10:00:00'))).toBe(-7 * 3_600_000);
  });

  it('moves a wall-clock time in a gap later by the gap, as Java does', () => {
    expect(iso(toInstant(ts('2021-03-14 01:59:59'), la))).toBe('2021-03-14T09:59:59.000Z');
    expect(iso(toInstant(ts('2021-03-14 02:30:00'), la))).toBe('2021-03-14T10:30:00.000Z');
    expect(formatTimestamp(toLocalMillis(toInstant(ts('2021-03-14 02:30:00'), la), la))).toBe('2021-03-14 03:30:00.000');
    expect(iso(toInstant(ts('2021-03-14 03:00:00'), la))).toBe('2021-03-14T10:00:00.000Z');
  });

  it('takes the earlier offset for a wall-clock time an overlap repeats, as Java does', () => {
    // 01:30 happens twice on 2021-11-07: first in PDT (08:30 UTC), then in PST (09:30 UTC).
    expect(iso(toInstant(ts('2021-11-07 01:30:00'), la))).toBe('2021-11-07T08:30:00.000Z');
    expect(formatTimestamp(toLocalMillis(ts('2021-11-07 09:30:00'), la))).toBe('2021-11-07 01:30:00.000');
    expect(iso(toInstant(ts('2021-11-07 02:00:00'), la))).toBe('2021-11-07T10:00:00.000Z');
  });

  it('keeps local mean time before standard zones and the last rules past them (years 0000-9999)', () => {
    expect(la.offsetAt(MIN_TIMESTAMP_MS)).toBe(-(7 * 3_600_000 + 52 * 60_000 + 58_000));
    expect(formatTimestamp(toLocalMillis(toInstant(MIN_TIMESTAMP_MS, la), la))).toBe('0000-01-01 00:00:00.000');
    expect(formatTimestamp(toLocalMillis(toInstant(MAX_TIMESTAMP_MS, la), la))).toBe('9999-12-31 23:59:59.999');
    expect(toLocalMillis(Infinity, la)).toBe(Infinity);
  });

  it.each(['UTC', 'Asia/Shanghai', 'America/Los_Angeles', 'Europe/London', 'Australia/Lord_Howe', 'GMT+05:45'])(
    'round-trips instants through the %s wall clock (an overlap reads back its earlier instant)',
    (id) => {
      const zone = timeZoneOf(id);
      fc.assert(
        fc.property(fc.integer({ min: MIN_TIMESTAMP_MS + 86_400_000, max: MAX_TIMESTAMP_MS - 86_400_000 }), (instant) => {
          const local = toLocalMillis(instant, zone);
          const back = toInstant(local, zone);
          expect(toLocalMillis(back, zone)).toBe(local);
          expect(back).toBeLessThanOrEqual(instant);
          expect(instant - back).toBeLessThanOrEqual(2 * 3_600_000);
        }),
        { numRuns: 300 },
      );
    },
  );

  it('round-trips print → parse of a TIMESTAMP_LTZ in a zone', () => {
    fc.assert(
      fc.property(fc.integer({ min: MIN_TIMESTAMP_MS + 86_400_000, max: MAX_TIMESTAMP_MS - 86_400_000 }), (instant) => {
        const text = formatTimestamp(toLocalMillis(instant, shanghai));
        expect(toInstant(parseTimestamp(text)!, shanghai)).toBe(instant);
      }),
    );
  });

  it.each(['PST', 'Mars/Olympus', 'GMT+19', 'UTC+08:00', '', 'asia shanghai'])('rejects the session zone %j, naming it', (id) => {
    expect(() => timeZoneOf(id)).toThrow(PlanError);
    expect(() => timeZoneOf(id)).toThrow(`invalid time zone '${id}'`);
  });

  it("lets CONVERT_TZ read abbreviations such as 'PST', as Java's TimeZone does", () => {
    expect(lenientTimeZoneOf('PST').offsetAt(0)).toBe(-8 * 3_600_000);
    expect(() => timeZoneOf('PST')).toThrow(PlanError);
  });
});

describe('casts among date-time types', () => {
  const T = (root: LogicalType['root'], precision?: number): LogicalType => ({ root, nullable: false, ...(precision !== undefined ? { precision } : {}) });
  const cast = (from: LogicalType, to: LogicalType, value: Value, zone = 'UTC'): Value => {
    const convert = castConverter(from, to, 'test', timeZoneOf(zone));
    return convert === undefined ? value : convert(value as NonNullValue);
  };
  const LTZ = T('TIMESTAMP_LTZ', 3);
  const TS = T('TIMESTAMP', 3);
  const STRING = T('STRING');

  it('shows and reads a TIMESTAMP_LTZ in the session time zone', () => {
    expect(cast(LTZ, STRING, 4001, 'Asia/Shanghai')).toBe('1970-01-01 08:00:04.001');
    expect(cast(STRING, LTZ, '1970-01-01 08:00:04.001', 'Asia/Shanghai')).toBe(4001);
    expect(cast(LTZ, TS, 4001, 'Asia/Shanghai')).toBe(ts('1970-01-01 08:00:04.001'));
    expect(cast(TS, LTZ, ts('1970-01-01 00:00:01.001'), 'Asia/Shanghai')).toBe(1001 - 8 * 3_600_000);
  });

  it('casts a TIMESTAMP in a daylight-saving gap to the instant after it', () => {
    expect(iso(cast(TS, LTZ, ts('2021-03-14 02:30:00'), 'America/Los_Angeles') as number)).toBe('2021-03-14T10:30:00.000Z');
  });

  it('takes the date and the time of day of a timestamp, on the zone clock for an instant', () => {
    const instant = ts('2024-03-05 20:30:00');
    expect(formatDate(cast(LTZ, T('DATE'), instant, 'Asia/Shanghai') as number)).toBe('2024-03-06');
    expect(formatDate(cast(LTZ, T('DATE'), instant) as number)).toBe('2024-03-05');
    expect(formatTime(cast(LTZ, T('TIME', 0), instant, 'Asia/Shanghai') as number, 0)).toBe('04:30:00');
    expect(cast(TS, T('TIME', 0), ts('2024-03-05 10:11:12.345'))).toBe(36_672_000);
    expect(cast(T('DATE'), TS, 19787)).toBe(ts('2024-03-05 00:00:00'));
    expect(cast(T('DATE'), LTZ, 19787, 'Asia/Shanghai')).toBe(ts('2024-03-04 16:00:00'));
    expect(cast(T('TIME', 3), TS, 45_296_789)).toBe(ts('1970-01-01 12:34:56.789'));
  });

  it('cuts a TIME to the target precision and reads and writes text', () => {
    expect(cast(T('TIME', 3), T('TIME', 0), 45_296_789)).toBe(45_296_000);
    expect(cast(STRING, T('TIME', 1), ' 12:34:56.789 ')).toBe(45_296_700);
    expect(cast(T('TIME', 3), STRING, 45_296_789)).toBe('12:34:56.789');
    expect(cast(STRING, T('DATE'), '2024-03-05')).toBe(19787);
    expect(() => cast(STRING, T('DATE'), '2024-02-30')).toThrow("cannot cast '2024-02-30' to DATE in test");
  });

  it('refuses the pairs Flink refuses, naming why', () => {
    expect(castProblem(T('DATE'), T('TIME', 0))).toContain('Flink casts a DATE only to a TIMESTAMP, TIMESTAMP_LTZ or STRING');
    expect(castProblem(T('TIME', 0), T('DATE'))).toContain('a TIME only to a TIMESTAMP, TIMESTAMP_LTZ or STRING');
    expect(castProblem(T('INT'), LTZ)).toBe('Flink does not cast numbers to TIMESTAMP_LTZ; use TO_TIMESTAMP_LTZ(n, precision)');
    expect(castProblem(T('DATE'), T('BIGINT'))).toBe('Flink does not cast DATE to numbers; use UNIX_TIMESTAMP or EXTRACT(EPOCH FROM …)');
    expect(castProblem(T('BOOLEAN'), T('DATE'))).toBe('the types are not castable');
    expect(castProblem(LTZ, T('TIME', 0))).toBeUndefined();
  });
});
