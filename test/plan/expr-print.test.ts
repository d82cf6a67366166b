import { describe, expect, it } from 'vitest';
import { add, and, call, caseWhen, cast, col, dateFormat, gt, isNull, lit, lt } from '../../shared/plan/expr-build.ts';
import { printExpr } from '../../shared/plan/expr-print.ts';

describe('printExpr', () => {
  it('prints operators prefix-style as Flink EXPLAIN does', () => {
    expect(printExpr(gt(col('price'), 10000))).toBe('>(price, 10000)');
    expect(printExpr(and(gt(col('a'), 1), lt(col('b'), 2)))).toBe('AND(>(a, 1), <(b, 2))');
    expect(printExpr(add(col('a'), col('b')))).toBe('+(a, b)');
    expect(printExpr(isNull(col('x')))).toBe('IS NULL(x)');
  });

  it('prints functions, CAST and CASE', () => {
    expect(printExpr(dateFormat(col('date_time'), 'yyyy-MM-dd'))).toBe("DATE_FORMAT(date_time, 'yyyy-MM-dd')");
    expect(printExpr(cast(col('x'), 'BIGINT NOT NULL'))).toBe('CAST(x AS BIGINT)');
    expect(printExpr(cast(col('x'), 'STRING'))).toBe('CAST(x AS VARCHAR(2147483647))');
    expect(printExpr(cast(col('x'), 'DECIMAL(10, 2)'))).toBe('CAST(x AS DECIMAL(10, 2))');
    expect(printExpr(caseWhen([[col('c1'), col('v1')]], col('v2')))).toBe('CASE(c1, v1, v2)');
    expect(printExpr(call('CONCAT', col('a'), 'b', 'c'))).toBe("CONCAT(a, 'b', 'c')");
  });

  it('prints literals readably', () => {
    expect(printExpr(lit("it's"))).toBe("'it''s'");
    expect(printExpr(lit(true))).toBe('true');
    expect(printExpr(lit(5, 'BIGINT'))).toBe('5:BIGINT');
    expect(printExpr(lit(1.5))).toBe('1.5E0:DOUBLE');
    expect(printExpr(lit(2))).toBe('2');
    expect(printExpr(lit(2, 'DOUBLE'))).toBe('2.0E0:DOUBLE');
    expect(printExpr(lit(1e-7, 'DOUBLE'))).toBe('1.0E-7:DOUBLE');
    expect(printExpr(lit(908n, 'DECIMAL(4, 3)'))).toBe('0.908');
    expect(printExpr(lit(90n, 'DECIMAL(3, 2)'))).toBe('0.90');
    expect(printExpr(lit(-5n, 'DECIMAL(4, 3)'))).toBe('-0.005');
    expect(printExpr(lit(null, 'INT'))).toBe('null:INT');
    expect(printExpr(lit(1436918400000, 'TIMESTAMP(3)'))).toBe('2015-07-15 00:00:00.000:TIMESTAMP(3)');
    expect(printExpr(lit(Number.NaN, 'DOUBLE'))).toBe('NaN:DOUBLE');
  });

  it('prints UDF calls by display name and never throws on odd literals', () => {
    expect(printExpr({ kind: 'udf', ref: 'f1', display: 'count_char', type: { root: 'INT', nullable: true } })).toBe(
      'count_char()',
    );
    expect(printExpr({ kind: 'literal', value: 1e20, type: { root: 'TIMESTAMP', nullable: false, precision: 3 } })).toBe(
      '100000000000000000000:TIMESTAMP(3)',
    );
  });
});
