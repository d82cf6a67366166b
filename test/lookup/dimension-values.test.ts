import { describe, expect, it } from 'vitest';
import { PlanError } from '../../shared/core/errors.ts';
import { parseType } from '../../shared/core/type-parse.ts';
import { columnConverter, exactDecimal, exactTimestamp } from '../../shared/lookup/dimension-values.ts';
import { DimensionDataError } from '../../shared/lookup/errors.ts';
import { parseJdbcUrl, resolveCredentials } from '../../shared/lookup/jdbc-config.ts';
import { keyConverter, NO_MATCH } from '../../shared/lookup/lookup-keys.ts';
import { keyAttribute } from '../../shared/lookup/dynamodb-values.ts';
import { ms } from './sql-fixture.ts';

const convert = (type: string) => columnConverter('t', { name: 'c', type: parseType(type) });

describe('exact value conversion', () => {
  it('DECIMAL: exact or an error, never rounded', () => {
    expect(exactDecimal('12.50', 2)).toBe(1250n);
    expect(exactDecimal('1.2300', 2)).toBe(123n);
    expect(exactDecimal('-1e2', 2)).toBe(-10000n);
    expect(exactDecimal('1.234', 2)).toBeUndefined();
    expect(convert('DECIMAL(4, 2)')('99.99')).toBe(9999n);
    expect(() => convert('DECIMAL(4, 2)')('100.00')).toThrow(DimensionDataError);
    expect(convert('DECIMAL(10, 2)')(0.1)).toBe(10n);
  });

  it('integers: range-checked, text accepted', () => {
    expect(convert('BIGINT')('9007199254740991')).toBe(9007199254740991);
    expect(() => convert('BIGINT')('9007199254740993')).toThrow(/column 'c' \(BIGINT\): value "9007199254740993" does not fit/);
    expect(() => convert('INT')(2147483648)).toThrow(DimensionDataError);
    expect(() => convert('INT')(1.5)).toThrow(DimensionDataError);
    expect(convert('INT')(-0)).toBe(0);
  });

  it('TIMESTAMP: text with zones, dates, epoch ms; sub-millisecond digits must be zero', () => {
    expect(exactTimestamp('2024-01-02 05:04:05.678+02')).toBe(ms('2024-01-02 03:04:05.678'));
    expect(exactTimestamp('2024-01-02T03:04:05.678000Z')).toBe(ms('2024-01-02 03:04:05.678'));
    expect(exactTimestamp('2024-01-02')).toBe(ms('2024-01-02 00:00:00'));
    expect(exactTimestamp('2024-01-02 03:04:05.6781')).toBeUndefined();
    expect(convert('TIMESTAMP(3)')(new Date(5))).toBe(5);
    expect(convert('TIMESTAMP(3)')('1436918401000')).toBe(1436918401000);
  });

  it('DATE, TIME and TIMESTAMP_LTZ: the JDBC texts, exact to the column precision', () => {
    expect(convert('DATE')('2024-03-05')).toBe(19787);
    expect(convert('DATE')(new Date(Date.UTC(2024, 2, 5)))).toBe(19787);
    expect(() => convert('DATE')('2024-03-05 10:00:00')).toThrow(/column 'c' \(DATE\): value "2024-03-05 10:00:00" does not fit/);
    expect(() => convert('DATE')(19787)).toThrow(DimensionDataError);
    expect(convert('TIME(0)')('12:34:56')).toBe(45_296_000);
    expect(convert('TIME(3)')('12:34:56.789000')).toBe(45_296_789);
    expect(() => convert('TIME(0)')('12:34:56.5')).toThrow(/column 'c' \(TIME\(0\)\): value "12:34:56.5" does not fit/);
    expect(convert('TIMESTAMP_LTZ(3)')('2024-01-02 05:04:05.678+02')).toBe(ms('2024-01-02 03:04:05.678'));
  });

  it('DATE, TIME and TIMESTAMP_LTZ keys of a DynamoDB table: S text, or epoch-ms N like TIMESTAMP', () => {
    const field = (type: string): { name: string; type: ReturnType<typeof parseType> } => ({ name: 'k', type: parseType(type) });
    expect(keyAttribute(field('DATE'), 19787, 't', 'epoch-ms')).toEqual({ S: '2024-03-05' });
    expect(keyAttribute(field('TIME(3)'), 45_296_789, 't', 'epoch-ms')).toEqual({ S: '12:34:56.789' });
    expect(keyAttribute(field('TIMESTAMP_LTZ(3)'), 5, 't', 'epoch-ms')).toEqual({ N: '5' });
    expect(keyAttribute(field('TIMESTAMP_LTZ(3)'), 5, 't', 'string')).toEqual({ S: '1970-01-01 00:00:00.005' });
  });

  it('BOOLEAN, DOUBLE, STRING and NULLs', () => {
    expect(convert('BOOLEAN')('t')).toBe(true);
    expect(convert('BOOLEAN')(0)).toBe(false);
    expect(() => convert('BOOLEAN')('yes')).toThrow(DimensionDataError);
    expect(convert('DOUBLE')('Infinity')).toBe(Infinity);
    expect(convert('DOUBLE')('-1.5e3')).toBe(-1500);
    expect(convert('VARCHAR(3)')('abc')).toBe('abc');
    expect(() => convert('VARCHAR(3)')('abcd')).toThrow(DimensionDataError);
    expect(convert('STRING')(null)).toBeNull();
    expect(() => convert('STRING NOT NULL')(null)).toThrow(/NULL in a NOT NULL column/);
  });
});

describe('probe key conversion', () => {
  const f = (name: string, type: string) => ({ name, type: parseType(type) });
  it('converts comparable numeric keys exactly, or marks them unmatchable', () => {
    expect(keyConverter('t', f('p', 'INT'), f('l', 'BIGINT'))(5)).toBe(5);
    expect(keyConverter('t', f('p', 'BIGINT'), f('l', 'DECIMAL(10, 2)'))(5)).toBe(500n);
    expect(keyConverter('t', f('p', 'DECIMAL(10, 2)'), f('l', 'DECIMAL(10, 1)'))(125n)).toBe(NO_MATCH);
    expect(keyConverter('t', f('p', 'DECIMAL(10, 2)'), f('l', 'DOUBLE'))(125n)).toBe(1.25);
    expect(keyConverter('t', f('p', 'DOUBLE'), f('l', 'INT'))(1e10)).toBe(NO_MATCH);
    expect(() => keyConverter('t', f('p', 'STRING'), f('l', 'BIGINT'))).toThrow(PlanError);
  });
});

describe('JDBC configuration', () => {
  it('parses MySQL and PostgreSQL URLs', () => {
    expect(parseJdbcUrl('jdbc:mysql://db.example:3307/shop?useSSL=true')).toMatchObject({ protocol: 'mysql', host: 'db.example', port: 3307, database: 'shop' });
    expect(parseJdbcUrl('jdbc:postgresql://[::1]/dims?user=app')).toMatchObject({ protocol: 'postgresql', host: '::1', port: 5432, database: 'dims' });
    expect(parseJdbcUrl('jdbc:mariadb://h/d').port).toBe(3306);
    expect(() => parseJdbcUrl('mysql://h/d')).toThrow(/invalid JDBC URL/);
    expect(() => parseJdbcUrl('jdbc:mysql://h/d?password=secret')).toThrow(/password=\*\*\*.*use passwordFrom/);
  });

  it('reads the password from the named environment variable only', () => {
    const url = parseJdbcUrl('jdbc:postgresql://h/d?user=app');
    expect(resolveCredentials({ url: '', passwordFrom: 'PW' }, url, { PW: 's3cret' })).toEqual({ user: 'app', password: 's3cret' });
    expect(() => resolveCredentials({ url: '', passwordFrom: 'PW' }, url, {})).toThrow(/environment variable 'PW' \(passwordFrom\) is not set/);
  });
});
