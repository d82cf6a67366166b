import { describe, it, expect } from 'vitest';
import { PlanError } from '../../../shared/core/errors.ts';
import { parseType } from '../../../shared/core/type-parse.ts';
import { aggResultType } from '../../../shared/operators/aggregate/result-type.ts';

const t = parseType;

describe('aggResultType', () => {
  it('COUNT is BIGINT NOT NULL, with or without an argument', () => {
    expect(aggResultType('COUNT', undefined)).toEqual(t('BIGINT NOT NULL'));
    expect(aggResultType('COUNT', t('STRING'))).toEqual(t('BIGINT NOT NULL'));
  });

  it('SUM keeps integer and DOUBLE types and widens DECIMAL to precision 38', () => {
    expect(aggResultType('SUM', t('INT NOT NULL'))).toEqual(t('INT'));
    expect(aggResultType('SUM', t('BIGINT'))).toEqual(t('BIGINT'));
    expect(aggResultType('SUM', t('DOUBLE'))).toEqual(t('DOUBLE'));
    expect(aggResultType('SUM', t('DECIMAL(10, 2) NOT NULL'))).toEqual(t('DECIMAL(38, 2)'));
  });

  it('MIN/MAX return the argument type, nullable', () => {
    expect(aggResultType('MIN', t('VARCHAR(5) NOT NULL'))).toEqual(t('VARCHAR(5)'));
    expect(aggResultType('MAX', t('TIMESTAMP(3)'))).toEqual(t('TIMESTAMP(3)'));
    expect(aggResultType('MAX', t('DECIMAL(7, 3)'))).toEqual(t('DECIMAL(7, 3)'));
    expect(aggResultType('MIN', t('BOOLEAN'))).toEqual(t('BOOLEAN'));
  });

  it('VAR_POP … STDDEV_SAMP have the AVG type: DECIMAL(p, s) → DECIMAL(38, max(6, s))', () => {
    expect(aggResultType('STDDEV_SAMP', t('DECIMAL(10, 2)'))).toEqual(t('DECIMAL(38, 6)'));
    expect(aggResultType('VAR_POP', t('DECIMAL(20, 9) NOT NULL'))).toEqual(t('DECIMAL(38, 9)'));
    expect(aggResultType('VAR_SAMP', t('INT'))).toEqual(t('INT'));
  });

  it('AVG keeps integer types and DOUBLE; DECIMAL(p, s) → DECIMAL(38, max(6, s))', () => {
    expect(aggResultType('AVG', t('INT NOT NULL'))).toEqual(t('INT'));
    expect(aggResultType('AVG', t('BIGINT'))).toEqual(t('BIGINT'));
    expect(aggResultType('AVG', t('DOUBLE'))).toEqual(t('DOUBLE'));
    expect(aggResultType('AVG', t('DECIMAL(10, 2)'))).toEqual(t('DECIMAL(38, 6)'));
    expect(aggResultType('AVG', t('DECIMAL(30, 10)'))).toEqual(t('DECIMAL(38, 10)'));
  });

  it('rejects non-numeric SUM/AVG and missing arguments with a PlanError naming the call', () => {
    expect(() => aggResultType('SUM', t('STRING'), 'SUM(name) AS total')).toThrow(PlanError);
    expect(() => aggResultType('SUM', t('STRING'), 'SUM(name) AS total')).toThrow(/SUM\(name\) AS total/);
    expect(() => aggResultType('AVG', t('BOOLEAN'))).toThrow(/AVG\(BOOLEAN\) is not supported/);
    expect(() => aggResultType('AVG', t('TIMESTAMP(3)'))).toThrow(PlanError);
    expect(() => aggResultType('MAX', undefined, 'MAX(*) AS m')).toThrow(/MAX requires an argument in MAX\(\*\) AS m/);
  });
});
