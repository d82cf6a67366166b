import { describe, expect, it } from 'vitest';
import { PlanError } from '../../shared/core/errors.ts';
import {
  add,
  and,
  call,
  caseWhen,
  cast,
  col,
  dateFormat,
  div,
  eq,
  ge,
  gt,
  isNotNull,
  isNull,
  le,
  lit,
  lt,
  mod,
  mul,
  neq,
  not,
  or,
  sub,
} from '../../shared/plan/expr-build.ts';

describe('lit', () => {
  it('infers INT for 32-bit integers and BIGINT beyond, like Flink literals', () => {
    expect(lit(7).type).toEqual({ root: 'INT', nullable: false });
    expect(lit(-2147483648).type.root).toBe('INT');
    expect(lit(2147483648).type).toEqual({ root: 'BIGINT', nullable: false });
    expect(lit(Number.MAX_SAFE_INTEGER).type.root).toBe('BIGINT');
  });

  it('infers DOUBLE for fractions and unsafe integers, STRING, BOOLEAN and DECIMAL(p, 0) for bigints', () => {
    expect(lit(1.5).type).toEqual({ root: 'DOUBLE', nullable: false });
    expect(lit(1e300).type.root).toBe('DOUBLE');
    expect(lit('a').type).toEqual({ root: 'STRING', nullable: false });
    expect(lit(true).type).toEqual({ root: 'BOOLEAN', nullable: false });
    expect(lit(-123n).type).toEqual({ root: 'DECIMAL', nullable: false, precision: 3, scale: 0 });
  });

  it('takes an explicit type as text or LogicalType', () => {
    expect(lit(150n, 'DECIMAL(3, 2)')).toEqual({
      kind: 'literal',
      value: 150n,
      type: { root: 'DECIMAL', nullable: true, precision: 3, scale: 2 },
    });
    expect(lit(5, { root: 'BIGINT', nullable: false }).type.root).toBe('BIGINT');
  });

  it('requires a type for null and makes null literals nullable', () => {
    expect(() => lit(null)).toThrow(PlanError);
    expect(lit(null, 'INT NOT NULL').type).toEqual({ root: 'INT', nullable: true });
  });

  it('rejects values that do not fit the declared type', () => {
    expect(() => lit(1.5, 'INT')).toThrow(/does not fit type INT/);
    expect(() => lit(2 ** 40, 'INT')).toThrow(PlanError);
    expect(() => lit(1, 'DECIMAL(3, 2)')).toThrow(/bigint/);
    expect(() => lit(1000n, 'DECIMAL(3, 0)')).toThrow(/more than 3 digits/);
    expect(() => lit('abcd', 'VARCHAR(3)')).toThrow(/longer than 3/);
    expect(() => lit('x', 'BOOLEAN')).toThrow(PlanError);
    expect(() => lit(1.5, 'TIMESTAMP(3)')).toThrow(PlanError);
  });
});

describe('call builders', () => {
  it('build prefix calls with upper-case names and wrap plain values as literals', () => {
    expect(gt(col('price'), 10000)).toEqual({
      kind: 'call',
      fn: '>',
      args: [
        { kind: 'ref', name: 'price' },
        { kind: 'literal', value: 10000, type: { root: 'INT', nullable: false } },
      ],
    });
    expect(call('upper', col('s')).fn).toBe('UPPER');
  });

  it('cover every operator helper', () => {
    const a = col('a');
    const b = col('b');
    const fns = [eq, neq, lt, le, gt, ge, add, sub, mul, div, mod].map((f) => f(a, b).fn);
    expect(fns).toEqual(['=', '<>', '<', '<=', '>', '>=', '+', '-', '*', '/', 'MOD']);
    expect(and(a, b, col('c')).args).toHaveLength(3);
    expect(or(a, b).fn).toBe('OR');
    expect(not(a).fn).toBe('NOT');
    expect(isNull(a).fn).toBe('IS NULL');
    expect(isNotNull(a).fn).toBe('IS NOT NULL');
  });

  it('flattens CASE branches and keeps ELSE optional', () => {
    expect(caseWhen([[col('c'), 1]], 2).args).toHaveLength(3);
    expect(caseWhen([[col('c'), 1], [col('d'), 2]]).args).toHaveLength(4);
    expect(() => caseWhen([])).toThrow(PlanError);
  });

  it('builds CAST and DATE_FORMAT', () => {
    expect(cast(col('x'), 'BIGINT')).toEqual({ kind: 'cast', expr: col('x'), type: { root: 'BIGINT', nullable: true } });
    expect(dateFormat(col('ts'), 'HH:mm')).toEqual(call('DATE_FORMAT', col('ts'), lit('HH:mm')));
  });
});
