import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlanError } from '../../shared/core/errors.ts';
import { formatTimestamp, MAX_TIMESTAMP_MS, MIN_TIMESTAMP_MS, parseTimestamp } from '../../shared/core/timestamp.ts';
import { calendarFields } from '../../shared/core/timestamp.ts';
import { compileDatePattern, millisOfDay } from '../../shared/plan/expr-date-format.ts';

const ts = (text: string): number => parseTimestamp(text)!;
// From year 1: SimpleDateFormat's `yyyy` is the year of era, so year 0 prints as 0001 (1 BC).
const msArb = fc.integer({ min: ts('0001-01-01 00:00:00'), max: MAX_TIMESTAMP_MS });

describe('calendarFields', () => {
  it('agrees with Date in UTC, including day of week and day of year', () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15 / 100, max: 8.64e15 / 100 }), (ms) => {
        const d = new Date(ms);
        const f = calendarFields(ms);
        expect([f.year, f.month, f.day, f.hour, f.minute, f.second, f.millis]).toEqual([
          d.getUTCFullYear(),
          d.getUTCMonth() + 1,
          d.getUTCDate(),
          d.getUTCHours(),
          d.getUTCMinutes(),
          d.getUTCSeconds(),
          d.getUTCMilliseconds(),
        ]);
        expect(f.dayOfWeek % 7).toBe(d.getUTCDay());
        // Date.UTC would read years 0–99 as 1900–1999.
        const startOfYear = new Date(0).setUTCFullYear(d.getUTCFullYear(), 0, 1);
        expect(f.dayOfYear).toBe(Math.floor((ms - startOfYear) / 86_400_000) + 1);
      }),
    );
  });

  it('handles the last day of a leap year', () => {
    expect(calendarFields(ts('2016-12-31 00:00:00')).dayOfYear).toBe(366);
    expect(calendarFields(ts('2016-03-01 00:00:00')).dayOfYear).toBe(61);
  });
});

describe('millisOfDay', () => {
  it('is non-negative before 1970', () => {
    expect(millisOfDay(-1)).toBe(86_399_999);
  });
});

describe('compileDatePattern', () => {
  const at = ts('2015-07-05 21:04:05.006');

  it('agrees with formatTimestamp for the full pattern', () => {
    const f = compileDatePattern('yyyy-MM-dd HH:mm:ss.SSS');
    fc.assert(
      fc.property(msArb, (ms) => {
        expect(f(ms)).toBe(formatTimestamp(ms));
      }),
    );
  });

  it('supports the SimpleDateFormat letters', () => {
    const cases: [string, string][] = [
      ['yy/M/d', '15/7/5'],
      ['MMM MMMM', 'Jul July'],
      ['EEE EEEE u', 'Sun Sunday 7'],
      ['h:mm a', '9:04 PM'],
      ['K k H', '9 21 21'],
      ['D', '186'],
      ['S SSSS', '6 0006'],
      ['G yyyy', 'AD 2015'],
      ['z Z X', 'UTC +0000 Z'],
    ];
    for (const [pattern, expected] of cases) expect(compileDatePattern(pattern)(at)).toBe(expected);
    expect(compileDatePattern('h a k')(ts('2015-07-05 00:30:00'))).toBe('12 AM 24');
  });

  it('copies quoted text and non-letters literally', () => {
    expect(compileDatePattern("yyyy-MM-dd'T'HH:mm")(at)).toBe('2015-07-05T21:04');
    expect(compileDatePattern("'at' HH 'o''clock'")(at)).toBe("at 21 o'clock");
    expect(compileDatePattern("''HH''")(at)).toBe("'21'");
    expect(compileDatePattern("'only text'")(at)).toBe('only text');
  });

  it('prints year 0 as year 1 BC, as SimpleDateFormat does', () => {
    expect(compileDatePattern('yyyy G')(MIN_TIMESTAMP_MS)).toBe('0001 BC');
  });

  it('rejects unsupported letters and unterminated quotes', () => {
    expect(() => compileDatePattern('ww')).toThrow(PlanError);
    expect(() => compileDatePattern('ww')).toThrow(/unsupported DATE_FORMAT pattern letter 'w'/);
    expect(() => compileDatePattern("'abc")).toThrow(/unterminated quote/);
  });
});
