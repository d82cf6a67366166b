import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { RecordError } from '../../shared/core/errors.ts';
import {
  MAX_TIMESTAMP_MS,
  MIN_TIMESTAMP_MS,
  daysFromCivil,
  formatTimestamp,
  isTimestampInRange,
  parseTimestamp,
} from '../../shared/core/timestamp.ts';

const msArb = fc.integer({ min: MIN_TIMESTAMP_MS, max: MAX_TIMESTAMP_MS });

describe('parseTimestamp', () => {
  it.each([
    ['1970-01-01 00:00:00', 0],
    ['1970-01-01 00:00:00.000', 0],
    ['2015-07-15 00:00:01.5', Date.UTC(2015, 6, 15, 0, 0, 1, 500)],
    ['2015-07-15 00:00:01.05', Date.UTC(2015, 6, 15, 0, 0, 1, 50)],
    ['2015-07-15 00:00:01.005', Date.UTC(2015, 6, 15, 0, 0, 1, 5)],
    ['2015-07-15T12:34:56.789', Date.UTC(2015, 6, 15, 12, 34, 56, 789)],
    ['2015-07-15T12:34:56.789Z', Date.UTC(2015, 6, 15, 12, 34, 56, 789)],
    ['2015-07-15 12:34:56Z', Date.UTC(2015, 6, 15, 12, 34, 56)],
    ['2024-02-29 23:59:59', Date.UTC(2024, 1, 29, 23, 59, 59)],
    ['2000-02-29 00:00:00', Date.UTC(2000, 1, 29)],
    ['1969-12-31 23:59:59.999', -1],
    ['0000-01-01 00:00:00', MIN_TIMESTAMP_MS],
    ['9999-12-31 23:59:59.999', MAX_TIMESTAMP_MS],
    ['0001-01-01 00:00:00', Date.parse('0001-01-01T00:00:00Z')],
    ['0099-06-15 00:00:00', Date.parse('0099-06-15T00:00:00Z')],
  ])('parses %s', (text, ms) => {
    expect(parseTimestamp(text)).toBe(ms);
  });

  it('truncates fractions beyond milliseconds, as Flink casts to TIMESTAMP(3)', () => {
    expect(parseTimestamp('2020-01-01 00:00:00.1239')).toBe(Date.UTC(2020, 0, 1, 0, 0, 0, 123));
    expect(parseTimestamp('2020-01-01 00:00:00.999999999')).toBe(Date.UTC(2020, 0, 1, 0, 0, 0, 999));
    expect(parseTimestamp('1969-12-31 23:59:59.9999')).toBe(-1);
  });

  it.each([
    '',
    '2020-01-01',
    '2020-01-01 00:00',
    '2020-13-01 00:00:00',
    '2020-00-01 00:00:00',
    '2020-04-31 00:00:00',
    '2020-01-00 00:00:00',
    '2020-01-32 00:00:00',
    '2023-02-29 00:00:00',
    '1900-02-29 00:00:00',
    '2020-01-01 25:00:00',
    '2020-01-01 24:00:00',
    '2020-01-01 23:60:00',
    '2020-01-01 23:59:60',
    '2020-01-01 00:00:00.',
    '2020-01-01 00:00:00.1234567890',
    '2020-01-01 00:00:00.12a',
    '2020-01-01 00:00:00 ',
    ' 2020-01-01 00:00:00',
    '2020-01-01 00:00:00+02:00',
    '2020-01-01 00:00:00z',
    '2020-01-01 00:00:00ZZ',
    '2020-01-01_00:00:00',
    '2020/01/01 00:00:00',
    '2020-1-01 00:00:00',
    '2020-01-01 0:00:00',
    '20a0-01-01 00:00:00',
    '+2020-01-01 00:00:00',
    '2020-01-01 00:00:0a',
    '2020-01-01 00:0-:00',
  ])('rejects %j', (text) => {
    expect(parseTimestamp(text)).toBeUndefined();
  });

  it('agrees with Date on ISO strings across the whole range', () => {
    fc.assert(
      fc.property(msArb, (ms) => {
        const iso = new Date(ms).toISOString();
        expect(parseTimestamp(iso)).toBe(ms);
      }),
    );
  });

  it('parses exactly the valid calendar dates', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 31 }),
        (year, month, day) => {
          const text = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')} 00:00:00`;
          const date = new Date(0);
          date.setUTCFullYear(year, month - 1, day);
          const valid = date.getUTCDate() === day;
          expect(parseTimestamp(text) !== undefined).toBe(valid);
        },
      ),
    );
  });
});

describe('formatTimestamp', () => {
  it.each([
    [0, '1970-01-01 00:00:00.000'],
    [-1, '1969-12-31 23:59:59.999'],
    [Date.UTC(2015, 6, 15, 0, 0, 1, 5), '2015-07-15 00:00:01.005'],
    [MIN_TIMESTAMP_MS, '0000-01-01 00:00:00.000'],
    [MAX_TIMESTAMP_MS, '9999-12-31 23:59:59.999'],
    [Date.parse('0042-03-04T05:06:07.089Z'), '0042-03-04 05:06:07.089'],
  ])('prints %d as %s', (ms, text) => {
    expect(formatTimestamp(ms)).toBe(text);
  });

  it('rejects values outside years 0000-9999 and non-integers', () => {
    for (const bad of [MIN_TIMESTAMP_MS - 1, MAX_TIMESTAMP_MS + 1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => formatTimestamp(bad)).toThrow(RecordError);
      expect(isTimestampInRange(bad)).toBe(false);
    }
    expect(() => formatTimestamp(MAX_TIMESTAMP_MS + 1)).toThrow(/outside the supported range 0000-01-01 00:00:00.000 to 9999-12-31 23:59:59.999/);
  });

  it('agrees with Date across the whole range', () => {
    fc.assert(
      fc.property(msArb, (ms) => {
        expect(formatTimestamp(ms)).toBe(new Date(ms).toISOString().replace('T', ' ').slice(0, 23));
      }),
    );
  });

  it('round-trips through parseTimestamp', () => {
    fc.assert(
      fc.property(msArb, (ms) => {
        expect(parseTimestamp(formatTimestamp(ms))).toBe(ms);
      }),
    );
  });
});

describe('daysFromCivil', () => {
  it('counts days from the epoch, before and after it', () => {
    expect(daysFromCivil(1970, 1, 1)).toBe(0);
    expect(daysFromCivil(1969, 12, 31)).toBe(-1);
    expect(daysFromCivil(2000, 3, 1)).toBe(11017);
  });
});
