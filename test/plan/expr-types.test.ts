import { describe, expect, it } from 'vitest';
import { PlanError } from '../../shared/core/errors.ts';
import { parseType, schemaOf } from '../../shared/core/type-parse.ts';
import type { LogicalType } from '../../shared/core/types.ts';
import type { Expr } from '../../shared/plan/expr.ts';
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
  gt,
  isNull,
  lit,
  mod,
  mul,
  not,
  sub,
} from '../../shared/plan/expr-build.ts';
import { typeName } from '../../shared/plan/expr-type-rules.ts';
import { inferType } from '../../shared/plan/expr-types.ts';

const schema = schemaOf({
  i: 'INT NOT NULL',
  ni: 'INT',
  b: 'BIGINT NOT NULL',
  d: 'DOUBLE NOT NULL',
  m: 'DECIMAL(10, 2) NOT NULL',
  s: 'STRING NOT NULL',
  ns: 'STRING',
  v: 'VARCHAR(5) NOT NULL',
  flag: 'BOOLEAN',
  ts: 'TIMESTAMP(3) NOT NULL',
});

const typeOf = (e: Expr): LogicalType => inferType(e, schema);
const t = (text: string): LogicalType => parseType(text);

describe('inferType: references and literals', () => {
  it('returns column and literal types', () => {
    expect(typeOf(col('m'))).toEqual(t('DECIMAL(10, 2) NOT NULL'));
    expect(typeOf(lit(3))).toEqual(t('INT NOT NULL'));
  });

  it('names an unknown column and lists the available ones', () => {
    expect(() => typeOf(col('prise'))).toThrow(PlanError);
    expect(() => typeOf(col('prise'))).toThrow(/Column 'prise' not found.*available columns: i, ni, b, d, m, s/);
  });

  it('carries the declared type of a UDF', () => {
    expect(typeOf({ kind: 'udf', ref: 'f', display: 'f', type: t('BIGINT') })).toEqual(t('BIGINT'));
  });
});

describe('inferType: arithmetic', () => {
  it('widens INT < BIGINT < DECIMAL < DOUBLE', () => {
    expect(typeOf(add(col('i'), col('i')))).toEqual(t('INT NOT NULL'));
    expect(typeOf(add(col('i'), col('b')))).toEqual(t('BIGINT NOT NULL'));
    expect(typeOf(mul(col('b'), col('d')))).toEqual(t('DOUBLE NOT NULL'));
    expect(typeOf(add(col('m'), col('d')))).toEqual(t('DOUBLE NOT NULL'));
  });

  it('keeps integer division integral (7 / 2 is INT)', () => {
    expect(typeOf(div(lit(7), lit(2)))).toEqual(t('INT NOT NULL'));
    expect(typeOf(div(col('b'), lit(2)))).toEqual(t('BIGINT NOT NULL'));
  });

  it("derives DECIMAL precision and scale with Flink's rules", () => {
    // + : max(s1, s2) + max(p1 - s1, p2 - s2) + 1, INT counting as DECIMAL(10, 0)
    expect(typeOf(add(col('m'), col('i')))).toEqual(t('DECIMAL(13, 2) NOT NULL'));
    expect(typeOf(sub(col('m'), col('m')))).toEqual(t('DECIMAL(11, 2) NOT NULL'));
    // * : p1 + p2 + 1, s1 + s2 — Nexmark q1's 0.908 * price
    expect(typeOf(mul(lit(908n, 'DECIMAL(3, 3) NOT NULL'), col('b')))).toEqual(t('DECIMAL(23, 3) NOT NULL'));
    // / : scale max(6, s1 + p2 + 1), precision p1 - s1 + s2 + scale
    expect(typeOf(div(col('m'), lit(15n, 'DECIMAL(5, 1) NOT NULL')))).toEqual(t('DECIMAL(17, 8) NOT NULL'));
    // MOD: min(p1 - s1, p2 - s2) + max(s1, s2)
    expect(typeOf(mod(col('m'), lit(15n, 'DECIMAL(5, 1) NOT NULL')))).toEqual(t('DECIMAL(6, 2) NOT NULL'));
  });

  it('shrinks the scale above precision 38 but keeps at least min(scale, 6) digits', () => {
    const big = lit(1n, 'DECIMAL(38, 10) NOT NULL');
    expect(typeOf(mul(big, big))).toEqual(t('DECIMAL(38, 6) NOT NULL'));
    const small = lit(1n, 'DECIMAL(38, 2) NOT NULL');
    expect(typeOf(mul(small, small))).toEqual(t('DECIMAL(38, 4) NOT NULL'));
    expect(typeOf(add(col('b'), lit(1n, 'DECIMAL(38, 20) NOT NULL')))).toEqual(t('DECIMAL(38, 18) NOT NULL'));
  });

  it('gives integer MOD the divisor type and rejects approximate MOD', () => {
    expect(typeOf(mod(col('b'), lit(123)))).toEqual(t('INT NOT NULL'));
    expect(typeOf(call('%', col('i'), col('b')))).toEqual(t('BIGINT NOT NULL'));
    expect(() => typeOf(mod(col('d'), lit(2)))).toThrow("cannot apply 'MOD' to DOUBLE and INT in MOD(d, 2)");
  });

  it('names the expression and operand types when operands do not fit', () => {
    expect(() => typeOf(add(col('s'), lit(1)))).toThrow("cannot apply '+' to STRING and INT in +(s, 1)");
    expect(() => typeOf(add(col('ts'), lit(1)))).toThrow(/TIMESTAMP\(3\) and INT/);
  });

  it('types unary minus as its operand', () => {
    expect(typeOf(call('-', col('m')))).toEqual(t('DECIMAL(10, 2) NOT NULL'));
    expect(() => typeOf(call('-', col('s')))).toThrow(PlanError);
  });

  it('propagates nullability', () => {
    expect(typeOf(add(col('ni'), col('i')))).toEqual(t('INT'));
    expect(typeOf(add(col('i'), lit(null, 'INT')))).toEqual(t('INT'));
  });
});

describe('inferType: comparisons and logic', () => {
  it('gives BOOLEAN for comparable operands', () => {
    expect(typeOf(gt(col('b'), lit(10000)))).toEqual(t('BOOLEAN NOT NULL'));
    expect(typeOf(eq(col('m'), col('d')))).toEqual(t('BOOLEAN NOT NULL'));
    expect(typeOf(eq(col('ns'), col('v')))).toEqual(t('BOOLEAN'));
    expect(typeOf(gt(col('ts'), lit('2015-07-15 00:00:00')))).toEqual(t('BOOLEAN NOT NULL'));
  });

  it('rejects incomparable operands', () => {
    expect(() => typeOf(eq(col('s'), lit(1)))).toThrow("cannot apply '=' to STRING and INT in =(s, 1)");
    expect(() => typeOf(gt(col('flag'), lit(1)))).toThrow(PlanError);
    expect(() => typeOf(eq(col('ts'), col('b')))).toThrow(PlanError);
  });

  it('types AND/OR/NOT over BOOLEAN only', () => {
    expect(typeOf(and(col('flag'), gt(col('i'), 1)))).toEqual(t('BOOLEAN'));
    expect(typeOf(not(gt(col('i'), 1)))).toEqual(t('BOOLEAN NOT NULL'));
    expect(() => typeOf(and(col('flag'), col('i')))).toThrow("cannot apply 'AND' to BOOLEAN and INT in AND(flag, i)");
  });

  it('makes IS [NOT] NULL and IS TRUE never null', () => {
    expect(typeOf(isNull(col('ni')))).toEqual(t('BOOLEAN NOT NULL'));
    expect(typeOf(call('IS NOT TRUE', col('flag')))).toEqual(t('BOOLEAN NOT NULL'));
  });

  it('types IN over a common comparison type', () => {
    expect(typeOf(call('IN', col('ns'), 'OR', 'ID'))).toEqual(t('BOOLEAN'));
    expect(() => typeOf(call('IN', col('s'), 'OR', 1))).toThrow(/no common type/);
  });

  it('checks arity', () => {
    expect(() => typeOf(call('=', col('i')))).toThrow("'=' takes 2 arguments, got 1 in =(i)");
    expect(() => typeOf(call('SUBSTRING', col('s')))).toThrow(/takes 2 to 3 arguments/);
    expect(() => typeOf(call('COALESCE'))).toThrow(/at least 1 argument/);
  });
});

describe('inferType: CASE, COALESCE, CAST', () => {
  it('gives CASE the common type of its branches', () => {
    expect(typeOf(caseWhen([[col('flag'), col('i')]], col('b')))).toEqual(t('BIGINT NOT NULL'));
    expect(typeOf(caseWhen([[col('flag'), col('i')]], col('m')))).toEqual(t('DECIMAL(12, 2) NOT NULL'));
    expect(typeOf(caseWhen([[col('flag'), lit('dayTime')]], lit('otherTime')))).toEqual(t('STRING NOT NULL'));
    expect(typeOf(caseWhen([[col('flag'), col('v')]], lit('x', 'VARCHAR(8) NOT NULL')))).toEqual(t('VARCHAR(8) NOT NULL'));
  });

  it('treats NULL branches as untyped and a missing ELSE as NULL', () => {
    expect(typeOf(caseWhen([[col('flag'), col('i')]], lit(null, 'STRING')))).toEqual(t('INT'));
    expect(typeOf(caseWhen([[col('flag'), col('i')]]))).toEqual(t('INT'));
  });

  it('rejects non-BOOLEAN conditions and branches without a common type', () => {
    expect(() => typeOf(caseWhen([[col('i'), col('i')]], 0))).toThrow(/WHEN condition i is not BOOLEAN/);
    expect(() => typeOf(caseWhen([[col('flag'), col('i')]], 'x'))).toThrow(/no common type/);
  });

  it('makes COALESCE nullable only when every operand is', () => {
    expect(typeOf(call('COALESCE', col('ni'), col('i')))).toEqual(t('INT NOT NULL'));
    expect(typeOf(call('COALESCE', col('ni'), col('ni')))).toEqual(t('INT'));
    expect(typeOf(call('COALESCE', col('ni'), col('b')))).toEqual(t('BIGINT NOT NULL'));
  });

  it('gives CAST the target type with the operand nullability', () => {
    expect(typeOf(cast(col('i'), 'BIGINT'))).toEqual(t('BIGINT NOT NULL'));
    expect(typeOf(cast(col('ns'), 'INT NOT NULL'))).toEqual(t('INT'));
    expect(typeOf(cast(col('ts'), 'STRING'))).toEqual(t('STRING NOT NULL'));
  });

  it('refuses casts Flink refuses', () => {
    expect(() => typeOf(cast(col('ts'), 'BIGINT'))).toThrow(/cannot cast TIMESTAMP\(3\) to BIGINT in CAST\(ts AS BIGINT\)/);
    expect(() => typeOf(cast(col('b'), 'TIMESTAMP(3)'))).toThrow(PlanError);
    expect(() => typeOf(cast(col('flag'), 'TIMESTAMP(3)'))).toThrow(PlanError);
  });
});

describe('inferType: functions', () => {
  it('types string functions', () => {
    expect(typeOf(call('UPPER', col('v')))).toEqual(t('VARCHAR(5) NOT NULL'));
    expect(typeOf(call('CHAR_LENGTH', col('ns')))).toEqual(t('INT'));
    expect(typeOf(call('CONCAT', col('s'), col('v'), 'x'))).toEqual(t('STRING NOT NULL'));
    expect(typeOf(call('||', col('s'), col('ns')))).toEqual(t('STRING'));
    expect(typeOf(call('SUBSTRING', col('s'), 1, 2))).toEqual(t('STRING NOT NULL'));
    expect(typeOf(call('TRIM', col('s')))).toEqual(t('STRING NOT NULL'));
    expect(typeOf(call('LIKE', col('s'), '%a'))).toEqual(t('BOOLEAN NOT NULL'));
    expect(() => typeOf(call('UPPER', col('i')))).toThrow("cannot apply 'UPPER' to INT in UPPER(i)");
  });

  it('makes REGEXP_EXTRACT and SPLIT_INDEX nullable (Nexmark q21, q22)', () => {
    expect(typeOf(call('REGEXP_EXTRACT', col('s'), '(&|^)channel_id=([^&]*)', 2))).toEqual(t('STRING'));
    expect(typeOf(call('SPLIT_INDEX', col('s'), '/', 3))).toEqual(t('STRING'));
  });

  it('types numeric functions', () => {
    expect(typeOf(call('ABS', col('m')))).toEqual(t('DECIMAL(10, 2) NOT NULL'));
    expect(typeOf(call('FLOOR', col('d')))).toEqual(t('DOUBLE NOT NULL'));
    expect(typeOf(call('CEIL', col('m')))).toEqual(t('DECIMAL(9, 0) NOT NULL'));
    expect(typeOf(call('CEILING', col('b')))).toEqual(t('BIGINT NOT NULL'));
  });

  it('types time functions (Nexmark q10, q14)', () => {
    expect(typeOf(dateFormat(col('ts'), 'yyyy-MM-dd'))).toEqual(t('STRING NOT NULL'));
    expect(typeOf(call('HOUR', col('ts')))).toEqual(t('BIGINT NOT NULL'));
    // Flink's DATE_FORMAT also takes a timestamp string; not a number.
    expect(typeOf(dateFormat(col('s'), 'yyyy')).root).toBe('STRING');
    expect(() => typeOf(dateFormat(col('i'), 'yyyy'))).toThrow(/DATE_FORMAT/);
  });

  it('lists the supported functions for an unknown one', () => {
    expect(() => typeOf(call('FOO', col('i')))).toThrow(/unknown function 'FOO' in FOO\(i\); supported: \+, -, \*/);
  });
});

describe('typeName', () => {
  it('prints short names for messages', () => {
    expect(typeName(t('STRING'))).toBe('STRING');
    expect(typeName(t('VARCHAR(3)'))).toBe('VARCHAR(3)');
    expect(typeName(t('DECIMAL(5, 1) NOT NULL'))).toBe('DECIMAL(5, 1)');
  });
});
