import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlanError, RecordError } from '../../shared/core/errors.ts';
import { formatDecimal } from '../../shared/core/decimal.ts';
import { parseTimestamp } from '../../shared/core/timestamp.ts';
import { schemaOf } from '../../shared/core/type-parse.ts';
import type { Row, Value } from '../../shared/core/types.ts';
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
import type { UdfRegistry } from '../../shared/plan/expr-compile.ts';
import { compileExpr, compilePredicate, compileTypedExpr } from '../../shared/plan/expr-compile.ts';

const schema = schemaOf({
  i: 'INT',
  j: 'INT',
  b: 'BIGINT',
  c: 'BIGINT',
  d: 'DOUBLE',
  m: 'DECIMAL(10, 2)',
  n: 'DECIMAL(5, 1)',
  s: 'STRING',
  t: 'STRING',
  p: 'BOOLEAN',
  q: 'BOOLEAN',
  ts: 'TIMESTAMP(3)',
});

const none: UdfRegistry = new Map();

function run(expr: Expr, row: Row = {}, udfs: UdfRegistry = none): Value {
  const full: Record<string, Value> = {};
  for (const f of schema.fields) full[f.name] = null;
  return compileExpr(expr, schema, udfs)({ ...full, ...row });
}

const ts = (text: string): number => parseTimestamp(text)!;

describe('compileExpr: references and literals', () => {
  it('reads columns and constants', () => {
    expect(run(col('b'), { b: 42 })).toBe(42);
    expect(run(lit('x'))).toBe('x');
    expect(run(col('s'))).toBeNull();
  });

  it('treats a missing field as NULL', () => {
    expect(compileExpr(col('b'), schema, none)({})).toBeNull();
  });

  it('rejects unknown columns at compile time', () => {
    expect(() => compileExpr(col('nope'), schema, none)).toThrow(/Column 'nope' not found/);
  });
});

describe('compileExpr: integer arithmetic', () => {
  it('computes INT and BIGINT results', () => {
    expect(run(add(col('i'), col('j')), { i: 2, j: 3 })).toBe(5);
    expect(run(sub(col('b'), 10), { b: 3 })).toBe(-7);
    expect(run(mul(col('b'), col('c')), { b: 6, c: 7 })).toBe(42);
  });

  it('divides integers truncating toward zero (7 / 2 = 3)', () => {
    expect(run(div(lit(7), lit(2)))).toBe(3);
    expect(run(div(col('i'), 2), { i: -7 })).toBe(-3);
    expect(run(div(col('b'), col('c')), { b: -7, c: 2 })).toBe(-3);
    expect(run(div(col('b'), col('c')), { b: 9007199254740991, c: 9007199254740990 })).toBe(1);
    expect(Object.is(run(div(col('b'), col('c')), { b: 0, c: -5 }), 0)).toBe(true);
  });

  it('wraps INT at 32 bits like Java', () => {
    expect(run(add(col('i'), 1), { i: 2147483647 })).toBe(-2147483648);
    expect(run(mul(col('i'), col('j')), { i: 65536, j: 65536 })).toBe(0);
    expect(run(div(col('i'), col('j')), { i: -2147483648, j: -1 })).toBe(-2147483648);
    expect(run(call('-', col('i')), { i: -2147483648 })).toBe(-2147483648);
    expect(run(call('ABS', col('i')), { i: -2147483648 })).toBe(-2147483648);
  });

  it('computes MOD with the dividend sign and never returns -0', () => {
    expect(run(mod(col('b'), 123), { b: 246 })).toBe(0);
    expect(run(mod(col('b'), 5), { b: -7 })).toBe(-2);
    expect(Object.is(run(mod(col('b'), 2), { b: -4 }), 0)).toBe(true);
    expect(run(call('%', col('i'), col('j')), { i: 7, j: -3 })).toBe(1);
  });

  it('throws a RecordError naming the expression on division by zero', () => {
    expect(() => run(div(col('b'), col('c')), { b: 1, c: 0 })).toThrow(RecordError);
    expect(() => run(div(col('b'), col('c')), { b: 1, c: 0 })).toThrow('division by zero in /(b, c)');
    expect(() => run(mod(col('i'), col('j')), { i: 1, j: 0 })).toThrow('division by zero in MOD(i, j)');
    expect(() => run(div(col('m'), col('n')), { m: 100n, n: 0n })).toThrow(RecordError);
  });

  it('agrees with exact bigint arithmetic on safe integers', () => {
    const safe = fc.integer({ min: -(2 ** 26), max: 2 ** 26 });
    fc.assert(
      fc.property(safe, safe, (x, y) => {
        expect(run(add(col('b'), col('c')), { b: x, c: y })).toBe(x + y);
        expect(run(mul(col('b'), col('c')), { b: x, c: y })).toBe(Number(BigInt(x) * BigInt(y)));
        if (y !== 0) {
          expect(run(div(col('b'), col('c')), { b: x, c: y })).toBe(Number(BigInt(x) / BigInt(y)));
          expect(run(mod(col('b'), col('c')), { b: x, c: y })).toBe(Number(BigInt(x) % BigInt(y)));
        }
      }),
    );
  });
});

describe('compileExpr: DOUBLE and DECIMAL arithmetic', () => {
  it('follows IEEE 754 for DOUBLE, as Java does', () => {
    expect(run(add(col('d'), 1), { d: 0.5 })).toBe(1.5);
    expect(run(div(col('d'), 0), { d: 1 })).toBe(Infinity);
    expect(run(div(col('b'), lit(2, 'DOUBLE')), { b: 7 })).toBe(3.5);
  });

  it('computes DECIMAL exactly at the result scale', () => {
    // 12.34 + 5 = 17.34 as DECIMAL(13, 2)
    expect(run(add(col('m'), col('i')), { m: 1234n, i: 5 })).toBe(1734n);
    // 12.34 - 1.5 = 10.84
    expect(run(sub(col('m'), col('n')), { m: 1234n, n: 15n })).toBe(1084n);
    // 0.908 * 10000 = 9080.000 (Nexmark q1)
    expect(run(mul(lit(908n, 'DECIMAL(3, 3)'), col('b')), { b: 10000 })).toBe(9080000n);
    // 10.00 / 3.0 = 3.33333333 at scale 8, HALF_UP
    expect(run(div(col('m'), col('n')), { m: 1000n, n: 30n })).toBe(333333333n);
    // 20.00 / 3.0 = 6.66666667
    expect(run(div(col('m'), col('n')), { m: 2000n, n: 30n })).toBe(666666667n);
    // -12.34 MOD 5.0 = -2.34
    expect(run(mod(col('m'), col('n')), { m: -1234n, n: 50n })).toBe(-234n);
  });

  it('mixes DECIMAL with DOUBLE as DOUBLE', () => {
    expect(run(add(col('m'), col('d')), { m: 150n, d: 0.25 })).toBe(1.75);
  });

  it('rescales when the result scale is smaller than the natural one', () => {
    const big = { root: 'DECIMAL', nullable: false, precision: 38, scale: 10 } as const;
    const product = compileTypedExpr(mul(lit(15000000000n, big), lit(15000000000n, big)), schema, none);
    expect(product.type).toMatchObject({ precision: 38, scale: 6 });
    // 1.5 * 1.5 = 2.25
    expect(product.evaluate({})).toBe(2250000n);
  });

  it('throws a RecordError when a DECIMAL result overflows its precision', () => {
    const big = { root: 'DECIMAL', nullable: false, precision: 38, scale: 0 } as const;
    const max = 10n ** 38n - 1n;
    expect(() => compileExpr(add(lit(max, big), lit(max, big)), schema, none)({})).toThrow(/DECIMAL overflow in \+/);
  });

  it('agrees with exact rational arithmetic for + and *', () => {
    const dec = fc.bigInt({ min: -(10n ** 10n) + 1n, max: 10n ** 10n - 1n });
    const dec5 = fc.bigInt({ min: -(10n ** 5n) + 1n, max: 10n ** 5n - 1n });
    fc.assert(
      fc.property(dec, dec5, (x, y) => {
        // m has scale 2, n scale 1: align n to scale 2 for the sum
        expect(run(add(col('m'), col('n')), { m: x, n: y })).toBe(x + y * 10n);
        expect(run(mul(col('m'), col('n')), { m: x, n: y })).toBe(x * y);
      }),
    );
  });

  it('negates every numeric type', () => {
    expect(run(call('-', col('b')), { b: 5 })).toBe(-5);
    expect(Object.is(run(call('-', col('b')), { b: 0 }), 0)).toBe(true);
    expect(run(call('-', col('d')), { d: 1.5 })).toBe(-1.5);
    expect(run(call('-', col('m')), { m: 150n })).toBe(-150n);
  });
});

describe('compileExpr: null propagation', () => {
  it('returns NULL when an operand is NULL', () => {
    for (const e of [add(col('i'), 1), mul(col('m'), 2), gt(col('b'), 1), call('UPPER', col('s')), div(col('b'), 0)]) {
      expect(run(e)).toBeNull();
    }
    expect(run(div(lit(null, 'INT'), col('i')), { i: 0 })).toBeNull();
  });
});

describe('compileExpr: comparisons', () => {
  it('compares numbers of mixed types', () => {
    expect(run(gt(col('b'), 10000), { b: 10001 })).toBe(true);
    expect(run(gt(lit(10000), col('b')), { b: 10001 })).toBe(false);
    expect(run(le(col('i'), col('d')), { i: 2, d: 2.5 })).toBe(true);
    expect(run(eq(col('m'), col('i')), { m: 500n, i: 5 })).toBe(true);
    expect(run(lt(col('m'), col('n')), { m: 149n, n: 15n })).toBe(true);
    expect(run(eq(col('m'), 1.5), { m: 150n })).toBe(true);
    expect(run(neq(col('m'), lit(15n, 'DECIMAL(2, 1)')), { m: 150n })).toBe(false);
  });

  it('compares every operator both ways round', () => {
    const ops = [eq, neq, lt, le, gt, ge];
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 5 }), fc.integer({ min: -5, max: 5 }), (x, y) => {
        const expected = [x === y, x !== y, x < y, x <= y, x > y, x >= y];
        ops.forEach((op, k) => {
          expect(run(op(col('b'), y), { b: x })).toBe(expected[k]);
          expect(run(op(x, col('b')), { b: y })).toBe(expected[k]);
          expect(run(op(col('b'), col('c')), { b: x, c: y })).toBe(expected[k]);
        });
      }),
    );
  });

  it('compares strings in code point order', () => {
    expect(run(lt(col('s'), col('t')), { s: 'apple', t: 'banana' })).toBe(true);
    expect(run(eq(col('s'), 'x'), { s: 'x' })).toBe(true);
    // U+FF5E sorts before U+1F600 by code point, after it by UTF-16 unit.
    expect(run(lt(col('s'), col('t')), { s: '\uff5e', t: '\u{1f600}' })).toBe(true);
    expect(run(ge(col('s'), col('t')), { s: 'b', t: 'ab' })).toBe(true);
  });

  it('compares booleans (false < true) and timestamps as numbers', () => {
    expect(run(lt(col('p'), col('q')), { p: false, q: true })).toBe(true);
    expect(run(gt(col('ts'), lit(ts('2015-07-15 00:00:00'), 'TIMESTAMP(3)')), { ts: ts('2015-07-15 00:00:01') })).toBe(true);
  });

  it('reads a string as a timestamp when compared with one', () => {
    expect(run(ge(col('ts'), '2015-07-15 00:00:00'), { ts: ts('2015-07-15 00:00:00') })).toBe(true);
    expect(run(lt(col('s'), col('ts')), { s: '2015-07-14 23:59:59.999', ts: ts('2015-07-15 00:00:00') })).toBe(true);
    expect(() => run(lt(col('s'), col('ts')), { s: 'soon', ts: 0 })).toThrow(RecordError);
  });

  it('propagates NULL through comparisons, including against a NULL constant', () => {
    expect(run(eq(col('b'), lit(null, 'BIGINT')), { b: 1 })).toBeNull();
    expect(run(eq(lit(null, 'BIGINT'), col('b')), { b: 1 })).toBeNull();
    expect(run(gt(col('b'), 1))).toBeNull();
    expect(run(gt(col('b'), col('c')), { b: 1 })).toBeNull();
  });

  it('evaluates IN with SQL NULL semantics', () => {
    const inList = call('IN', col('s'), 'OR', 'ID', 'CA');
    expect(run(inList, { s: 'ID' })).toBe(true);
    expect(run(inList, { s: 'WA' })).toBe(false);
    expect(run(inList)).toBeNull();
    expect(run(call('IN', col('s'), 'OR', lit(null, 'STRING')), { s: 'WA' })).toBeNull();
    expect(run(call('IN', col('s'), 'OR', lit(null, 'STRING')), { s: 'OR' })).toBe(true);
    expect(run(call('IN', col('b'), col('c'), 3), { b: 3, c: 1 })).toBe(true);
    expect(run(call('IN', col('b'), col('c'), 3), { b: 2 })).toBeNull();
    expect(run(call('IN', col('b'), col('c'), 3), { b: 2, c: 1 })).toBe(false);
    expect(run(call('IN', col('m'), 1, 2), { m: 200n })).toBe(true);
  });
});

describe('compileExpr: three-valued logic', () => {
  const values = [true, false, null] as const;
  const and3 = (x: boolean | null, y: boolean | null): boolean | null =>
    x === false || y === false ? false : x === null || y === null ? null : true;
  const or3 = (x: boolean | null, y: boolean | null): boolean | null =>
    x === true || y === true ? true : x === null || y === null ? null : false;

  it('implements the AND, OR and NOT truth tables', () => {
    for (const x of values) {
      for (const y of values) {
        expect(run(and(col('p'), col('q')), { p: x, q: y })).toBe(and3(x, y));
        expect(run(or(col('p'), col('q')), { p: x, q: y })).toBe(or3(x, y));
        expect(run(and(col('p'), col('q'), true), { p: x, q: y })).toBe(and3(x, y));
        expect(run(or(col('p'), col('q'), false), { p: x, q: y })).toBe(or3(x, y));
      }
      expect(run(not(col('p')), { p: x })).toBe(x === null ? null : !x);
    }
  });

  it('short-circuits AND on false, so a guarded division does not fail', () => {
    const guarded = and(neq(col('c'), 0), gt(div(col('b'), col('c')), 1));
    expect(run(guarded, { b: 5, c: 0 })).toBe(false);
    expect(run(or(eq(col('c'), 0), gt(div(col('b'), col('c')), 1)), { b: 5, c: 0 })).toBe(true);
  });

  it('implements IS [NOT] NULL and IS [NOT] TRUE/FALSE', () => {
    expect(run(isNull(col('b')))).toBe(true);
    expect(run(isNotNull(col('b')), { b: 0 })).toBe(true);
    const expected: Record<string, (boolean | null)[]> = {
      'IS TRUE': [true, false, false],
      'IS NOT TRUE': [false, true, true],
      'IS FALSE': [false, true, false],
      'IS NOT FALSE': [true, false, true],
    };
    for (const [fn, results] of Object.entries(expected)) {
      values.forEach((p, k) => expect(run(call(fn, col('p')), { p })).toBe(results[k]));
    }
  });
});

describe('compileExpr: CASE and COALESCE', () => {
  const hourType = caseWhen(
    [
      [and(ge(call('HOUR', col('ts')), 8), le(call('HOUR', col('ts')), 18)), 'dayTime'],
      [or(le(call('HOUR', col('ts')), 6), ge(call('HOUR', col('ts')), 20)), 'nightTime'],
    ],
    'otherTime',
  );

  it('picks the first true branch (Nexmark q14)', () => {
    expect(run(hourType, { ts: ts('2015-07-15 09:00:00') })).toBe('dayTime');
    expect(run(hourType, { ts: ts('2015-07-15 05:00:00') })).toBe('nightTime');
    expect(run(hourType, { ts: ts('2015-07-15 19:00:00') })).toBe('otherTime');
  });

  it('treats a NULL condition as not true and a missing ELSE as NULL', () => {
    expect(run(caseWhen([[col('p'), 1]], 2))).toBe(2);
    expect(run(caseWhen([[col('p'), 1]]), { p: false })).toBeNull();
    expect(run(caseWhen([[col('p'), 1]]), { p: true })).toBe(1);
  });

  it('converts branches to the common type', () => {
    expect(run(caseWhen([[col('p'), col('i')]], col('m')), { p: true, i: 3, m: 1n })).toBe(300n);
    expect(run(caseWhen([[col('p'), col('i')]], col('d')), { p: true, i: 3 })).toBe(3);
    expect(run(caseWhen([[col('p'), col('i')]], lit(null, 'STRING')), { p: false })).toBeNull();
  });

  it('returns the first non-NULL COALESCE operand, converted', () => {
    expect(run(call('COALESCE', col('b'), col('c'), 7))).toBe(7);
    expect(run(call('COALESCE', col('b'), col('c')), { c: 2 })).toBe(2);
    expect(run(call('COALESCE', col('i'), col('m')), { i: 4 })).toBe(400n);
    expect(run(call('COALESCE', col('b')))).toBeNull();
  });
});

describe('compileExpr: CAST', () => {
  it('converts between numeric types like Java casts', () => {
    expect(run(cast(col('i'), 'BIGINT'), { i: 5 })).toBe(5);
    expect(run(cast(col('b'), 'INT'), { b: 2 ** 32 + 7 })).toBe(7);
    expect(run(cast(col('d'), 'INT'), { d: -2.9 })).toBe(-2);
    expect(run(cast(col('d'), 'INT'), { d: 1e12 })).toBe(2147483647);
    expect(run(cast(col('d'), 'BIGINT'), { d: Number.NaN })).toBe(0);
    expect(run(cast(col('m'), 'INT'), { m: -1299n })).toBe(-12);
    expect(run(cast(col('m'), 'DOUBLE'), { m: 1299n })).toBe(12.99);
    expect(run(cast(col('d'), 'DECIMAL(5, 2)'), { d: 1.005 })).toBe(101n);
    expect(run(cast(col('m'), 'DECIMAL(5, 1)'), { m: 1255n })).toBe(126n);
    expect(run(cast(col('i'), 'DECIMAL(5, 2)'), { i: 7 })).toBe(700n);
  });

  it('converts to and from STRING as Flink prints values', () => {
    expect(run(cast(col('b'), 'STRING'), { b: 42 })).toBe('42');
    expect(run(cast(col('d'), 'STRING'), { d: 1e10 })).toBe('1.0E10');
    expect(run(cast(col('m'), 'STRING'), { m: 150n })).toBe('1.50');
    expect(run(cast(col('p'), 'STRING'), { p: true })).toBe('TRUE');
    expect(run(cast(col('ts'), 'STRING'), { ts: 0 })).toBe('1970-01-01 00:00:00.000');
    expect(run(cast(col('s'), 'INT'), { s: ' 42 ' })).toBe(42);
    expect(run(cast(col('s'), 'BIGINT'), { s: '-1.9' })).toBe(-1);
    expect(run(cast(col('s'), 'DOUBLE'), { s: '1.5e3' })).toBe(1500);
    expect(run(cast(col('s'), 'DECIMAL(5, 2)'), { s: '3.14159' })).toBe(314n);
    expect(run(cast(col('s'), 'BOOLEAN'), { s: 'Yes' })).toBe(true);
    expect(run(cast(col('s'), 'TIMESTAMP(3)'), { s: '2015-07-15 01:02:03.5' })).toBe(ts('2015-07-15 01:02:03.500'));
    expect(run(cast(col('s'), 'TIMESTAMP(3)'), { s: '2015-07-15' })).toBe(ts('2015-07-15 00:00:00'));
    expect(run(cast(col('s'), 'VARCHAR(3)'), { s: 'abcdef' })).toBe('abc');
  });

  it('throws a RecordError naming value and expression for a failed cast', () => {
    expect(() => run(cast(col('s'), 'INT'), { s: 'abc' })).toThrow("cannot cast 'abc' to INT in CAST(s AS INT)");
    expect(() => run(cast(col('s'), 'INT'), { s: '3000000000' })).toThrow(RecordError);
    expect(() => run(cast(col('s'), 'BOOLEAN'), { s: 'maybe' })).toThrow(RecordError);
    expect(() => run(cast(col('m'), 'DECIMAL(3, 2)'), { m: 12345n })).toThrow(/overflows DECIMAL precision 3/);
    expect(() => run(cast(col('d'), 'DECIMAL(5, 2)'), { d: Infinity })).toThrow(RecordError);
  });

  it('folds constant casts but defers failing ones to the rows that reach them', () => {
    const e = caseWhen([[col('p'), cast(lit('x'), 'INT')]], 0);
    const f = compileExpr(e, schema, none);
    expect(f({ p: false })).toBe(0);
    expect(() => f({ p: true })).toThrow(RecordError);
  });

  it('passes NULL through', () => {
    expect(run(cast(col('s'), 'INT'))).toBeNull();
  });
});

describe('compileExpr: string functions', () => {
  it('implements UPPER, LOWER, TRIM, CHAR_LENGTH and CONCAT', () => {
    expect(run(call('UPPER', col('s')), { s: 'Apple' })).toBe('APPLE');
    expect(run(call('LOWER', col('s')), { s: 'Apple' })).toBe('apple');
    expect(run(call('TRIM', col('s')), { s: '  a b \t ' })).toBe('a b \t');
    expect(run(call('LTRIM', col('s')), { s: '  a  ' })).toBe('a  ');
    expect(run(call('RTRIM', col('s')), { s: '  a  ' })).toBe('  a');
    expect(run(call('CHAR_LENGTH', col('s')), { s: 'a\u{1f600}b' })).toBe(3);
    expect(run(call('CONCAT', col('s'), '-', col('t')), { s: 'a', t: 'b' })).toBe('a-b');
    expect(run(call('CONCAT', col('s'), '-', col('t')), { s: 'a' })).toBeNull();
    expect(run(call('||', col('s'), col('t')), { s: 'a', t: 'b' })).toBe('ab');
  });

  it('implements SUBSTRING with 1-based and negative positions', () => {
    const sub2 = (pos: number, len?: number): Value =>
      run(len === undefined ? call('SUBSTRING', col('s'), pos) : call('SUBSTRING', col('s'), pos, len), { s: 'Flambda' });
    expect(sub2(1, 3)).toBe('Fla');
    expect(sub2(3)).toBe('ambda');
    expect(sub2(0, 2)).toBe('Fl');
    expect(sub2(-3)).toBe('bda');
    expect(sub2(-3, 2)).toBe('bd');
    expect(sub2(8)).toBe('');
    expect(sub2(-8)).toBe('');
    expect(sub2(2, 100)).toBe('lambda');
    expect(run(call('SUBSTRING', col('s'), 2, 1), { s: '\u{1f600}\u{1f601}' })).toBe('\u{1f601}');
    expect(() => sub2(1, -1)).toThrow(/negative length -1 in SUBSTRING/);
  });

  it('implements LIKE with % and _ and an optional escape', () => {
    expect(run(call('LIKE', col('s'), 'a%'), { s: 'apple' })).toBe(true);
    expect(run(call('LIKE', col('s'), 'a_p%'), { s: 'apple' })).toBe(true);
    expect(run(call('LIKE', col('s'), 'a_'), { s: 'apple' })).toBe(false);
    expect(run(call('LIKE', col('s'), '%.%'), { s: 'ab' })).toBe(false);
    expect(run(call('LIKE', col('s'), '100!%', '!'), { s: '100%' })).toBe(true);
    expect(run(call('LIKE', col('s'), '100!%', '!'), { s: '1000' })).toBe(false);
    expect(run(call('LIKE', col('s'), col('t')), { s: 'abc', t: '_b_' })).toBe(true);
    expect(() => compileExpr(call('LIKE', col('s'), 'a!', '!'), schema, none)).toThrow(PlanError);
  });

  it('implements REGEXP_EXTRACT as in Nexmark q21', () => {
    const channelId = call('REGEXP_EXTRACT', col('s'), '(&|^)channel_id=([^&]*)', 2);
    expect(run(channelId, { s: 'a=1&channel_id=42&b=2' })).toBe('42');
    expect(run(channelId, { s: 'channel_id=7' })).toBe('7');
    expect(run(channelId, { s: 'a=1' })).toBeNull();
    expect(run(call('REGEXP_EXTRACT', col('s'), 'b+'), { s: 'abbbc' })).toBe('bbb');
    expect(run(call('REGEXP_EXTRACT', col('s'), '(a)', 5), { s: 'a' })).toBeNull();
    expect(run(call('REGEXP_EXTRACT', col('s'), col('t'), 0), { s: 'abc', t: '[' })).toBeNull();
    expect(run(call('REGEXP_EXTRACT', col('s'), col('t'), 0), { s: 'abc', t: 'b.' })).toBe('bc');
    expect(() => compileExpr(call('REGEXP_EXTRACT', col('s'), '['), schema, none)).toThrow(PlanError);
  });

  it('implements SPLIT_INDEX as in Nexmark q22', () => {
    const url = 'https://www.nexmark.com/abc/def/ghi/item.htm';
    expect(run(call('SPLIT_INDEX', col('s'), '/', 3), { s: url })).toBe('abc');
    expect(run(call('SPLIT_INDEX', col('s'), '/', 1), { s: url })).toBe('');
    expect(run(call('SPLIT_INDEX', col('s'), '/', 9), { s: url })).toBeNull();
    expect(run(call('SPLIT_INDEX', col('s'), '/', -1), { s: url })).toBeNull();
    expect(run(call('SPLIT_INDEX', col('s'), '/', 0), { s: '' })).toBeNull();
  });
});

describe('compileExpr: numeric functions', () => {
  it('implements ABS, FLOOR and CEIL per type', () => {
    expect(run(call('ABS', col('b')), { b: -3 })).toBe(3);
    expect(run(call('ABS', col('m')), { m: -150n })).toBe(150n);
    expect(run(call('FLOOR', col('d')), { d: -1.5 })).toBe(-2);
    expect(run(call('CEIL', col('d')), { d: -1.5 })).toBe(-1);
    expect(run(call('FLOOR', col('m')), { m: -150n })).toBe(-2n);
    expect(run(call('CEIL', col('m')), { m: -150n })).toBe(-1n);
    expect(run(call('FLOOR', col('m')), { m: 150n })).toBe(1n);
    expect(run(call('CEIL', col('m')), { m: 150n })).toBe(2n);
    expect(run(call('CEIL', col('m')), { m: 200n })).toBe(2n);
    expect(run(call('FLOOR', col('b')), { b: 7 })).toBe(7);
  });
});

describe('compileExpr: time functions', () => {
  const at = ts('2015-07-15 13:04:05.006');

  it('formats timestamps with SimpleDateFormat patterns in UTC (Nexmark q10, q15, q16)', () => {
    expect(run(dateFormat(col('ts'), 'yyyy-MM-dd'), { ts: at })).toBe('2015-07-15');
    expect(run(dateFormat(col('ts'), 'HH:mm'), { ts: at })).toBe('13:04');
    expect(run(dateFormat(col('ts'), "yyyy-MM-dd'T'HH:mm:ss.SSS"), { ts: at })).toBe('2015-07-15T13:04:05.006');
    expect(run(dateFormat(col('ts'), 'yyyy'))).toBeNull();
    expect(run(call('DATE_FORMAT', col('ts'), col('s')), { ts: at, s: 'dd/MM' })).toBe('15/07');
    expect(() => run(call('DATE_FORMAT', col('ts'), col('s')), { ts: at, s: 'ww' })).toThrow(RecordError);
    expect(() => compileExpr(dateFormat(col('ts'), 'ww'), schema, none)).toThrow(PlanError);
  });

  it('extracts calendar fields as BIGINT', () => {
    expect(run(call('YEAR', col('ts')), { ts: at })).toBe(2015);
    expect(run(call('MONTH', col('ts')), { ts: at })).toBe(7);
    expect(run(call('DAYOFMONTH', col('ts')), { ts: at })).toBe(15);
    expect(run(call('HOUR', col('ts')), { ts: at })).toBe(13);
    expect(run(call('MINUTE', col('ts')), { ts: at })).toBe(4);
    expect(run(call('SECOND', col('ts')), { ts: at })).toBe(5);
    expect(run(call('HOUR', col('ts')), { ts: ts('1969-12-31 23:00:00') })).toBe(23);
  });
});

describe('compileExpr: UDFs', () => {
  const udf: Expr = { kind: 'udf', ref: 'fn1', display: 'count_char', type: { root: 'INT', nullable: true } };

  it('calls the registered function with the row', () => {
    const udfs: UdfRegistry = new Map([['fn1', (row: Row) => (row.s as string).split('c').length - 1]]);
    expect(run(add(udf, 1), { s: 'abcc' }, udfs)).toBe(3);
  });

  it('maps undefined results to NULL', () => {
    const udfs = new Map([['fn1', () => undefined as unknown as Value]]);
    expect(run(udf, {}, udfs)).toBeNull();
  });

  it('names a missing UDF and lists the registered ones', () => {
    expect(() => compileExpr(udf, schema, new Map([['other', () => 1]]))).toThrow(
      "unknown user-defined function 'count_char' (ref 'fn1'); registered: other",
    );
  });
});

describe('compilePredicate', () => {
  it('treats NULL as false, as SQL WHERE does', () => {
    const keep = compilePredicate(gt(col('b'), 10000), schema, none);
    expect(keep({ b: 10001 })).toBe(true);
    expect(keep({ b: 1 })).toBe(false);
    expect(keep({ b: null })).toBe(false);
  });

  it('rejects non-BOOLEAN conditions', () => {
    expect(() => compilePredicate(col('b'), schema, none)).toThrow('a condition must be BOOLEAN, but b is BIGINT');
  });

  it('folds constant conditions', () => {
    expect(compilePredicate(lit(true), schema, none)({})).toBe(true);
    expect(compilePredicate(lit(null, 'BOOLEAN'), schema, none)({})).toBe(false);
  });
});

describe('compileTypedExpr', () => {
  it('returns the inferred type with the closure', () => {
    const { evaluate, type } = compileTypedExpr(mul(lit(908n, 'DECIMAL(3, 3) NOT NULL'), col('b')), schema, none);
    expect(type).toEqual({ root: 'DECIMAL', nullable: true, precision: 23, scale: 3 });
    expect(formatDecimal(evaluate({ b: 3 }) as bigint, 3)).toBe('2.724');
  });
});
