/**
 * Which declared signature a user-function call takes (Flink's implicit casts and its choice
 * among overloaded `eval` methods), and the messages of a call none takes.
 */
import { describe, expect, it } from 'vitest';
import { parseType } from '../../shared/core/type-parse.ts';
import type { LogicalType } from '../../shared/core/types.ts';
import { formatUdfSignature, implicitlyCastable, resolveUdfCall, type UdfArgument, type UdfSignature } from '../../shared/plan/udf-signature.ts';

const t = (text: string): LogicalType => parseType(text);
const sig = (...params: string[]): UdfSignature => {
  const last = params[params.length - 1];
  const varargs = last?.endsWith('...') === true;
  return { params: params.map((p) => t(p.replace('...', ''))), ...(varargs ? { varargs: true } : {}) };
};
const arg = (type: string, text = 'x'): UdfArgument => ({ type: t(type), text });
const params = (r: ReturnType<typeof resolveUdfCall>): string[] => (r.ok ? r.params.map((p) => `${p.root}${p.precision !== undefined && p.root === 'DECIMAL' ? `(${p.precision}, ${p.scale})` : ''}`) : [`error: ${r.message}`]);

/** Flink's SumFunction: eval(Integer, Integer), eval(String, String), eval(Double...). */
const SUM = [sig('INT', 'INT'), sig('STRING', 'STRING'), sig('DOUBLE...')];

describe('implicitlyCastable (Flink LogicalTypeCasts.supportsImplicitCast)', () => {
  it('widens numbers and generalizes strings, never parses or narrows across roots', () => {
    const yes: [string, string][] = [
      ['INT', 'BIGINT'],
      ['INT', 'DOUBLE'],
      ['BIGINT', 'DECIMAL(19, 0)'],
      ['DECIMAL(10, 2)', 'DOUBLE'],
      ['DOUBLE', 'DECIMAL(10, 2)'],
      ['DECIMAL(10, 2)', 'DECIMAL(5, 1)'],
      ['VARCHAR(3)', 'STRING'],
      ['STRING', 'VARCHAR(3)'],
      ['TIMESTAMP(3)', 'TIMESTAMP(3)'],
      ['TIMESTAMP(3)', 'DATE'],
      ['TIMESTAMP(3)', 'TIME(0)'],
      ['TIME(0)', 'TIME(3)'],
      ['TIMESTAMP_LTZ(3)', 'TIMESTAMP_LTZ(3)'],
      ['ARRAY<INT>', 'ARRAY<DOUBLE>'],
      ['ROW<a INT, b STRING>', 'ROW<x BIGINT, y STRING>'],
      ['MAP<STRING, DECIMAL(10, 2)>', 'MAP<STRING, DOUBLE>'],
    ];
    const no: [string, string][] = [
      ['BIGINT', 'INT'],
      ['DOUBLE', 'INT'],
      ['DECIMAL(10, 2)', 'BIGINT'],
      ['STRING', 'INT'],
      ['INT', 'STRING'],
      ['BOOLEAN', 'INT'],
      ['INT', 'BOOLEAN'],
      ['TIMESTAMP(3)', 'BIGINT'],
      ['DATE', 'TIMESTAMP(3)'],
      ['DATE', 'TIME(0)'],
      ['STRING', 'DATE'],
      ['TIMESTAMP(3)', 'TIMESTAMP_LTZ(3)'],
      ['TIMESTAMP_LTZ(3)', 'TIMESTAMP(3)'],
      ['TIMESTAMP_LTZ(3)', 'DATE'],
      ['ARRAY<DOUBLE>', 'ARRAY<INT>'],
      ['ARRAY<INT>', 'INT'],
      ['ROW<a INT>', 'ROW<a INT, b INT>'],
    ];
    for (const [from, to] of yes) expect(implicitlyCastable(t(from), t(to)), `${from} → ${to}`).toBe(true);
    for (const [from, to] of no) expect(implicitlyCastable(t(from), t(to)), `${from} → ${to}`).toBe(false);
  });
});

describe('resolveUdfCall', () => {
  it("takes the first signature the arguments fit exactly, else the first they cast to (Flink's OrInputTypeStrategy)", () => {
    expect(params(resolveUdfCall('sum_of', SUM, [arg('INT NOT NULL'), arg('INT')]))).toEqual(['INT', 'INT']);
    expect(params(resolveUdfCall('sum_of', SUM, [arg('VARCHAR(2)'), arg('STRING')]))).toEqual(['STRING', 'STRING']);
    expect(params(resolveUdfCall('sum_of', SUM, [arg('DECIMAL(2, 1)'), arg('DECIMAL(2, 1)'), arg('DECIMAL(2, 1)')]))).toEqual(['DOUBLE', 'DOUBLE', 'DOUBLE']);
    // BIGINT, INT fits only the varargs one (BIGINT does not narrow to INT).
    expect(params(resolveUdfCall('sum_of', SUM, [arg('BIGINT'), arg('INT')]))).toEqual(['DOUBLE', 'DOUBLE']);
    expect(params(resolveUdfCall('sum_of', SUM, []))).toEqual([]);
    // An exact match later wins over a cast earlier: (DOUBLE...) before (BIGINT, BIGINT).
    expect(params(resolveUdfCall('f', [sig('DOUBLE...'), sig('BIGINT', 'BIGINT')], [arg('BIGINT'), arg('BIGINT')]))).toEqual(['BIGINT', 'BIGINT']);
    expect(params(resolveUdfCall('f', [sig('DOUBLE...'), sig('BIGINT', 'BIGINT')], [arg('INT'), arg('BIGINT')]))).toEqual(['DOUBLE', 'DOUBLE']);
  });

  it('lets an untyped NULL literal take any parameter, and fixed parameters before varargs', () => {
    expect(params(resolveUdfCall('sum_of', SUM, [{ type: t('INT'), text: 'NULL', isNull: true }, arg('VARCHAR(1)')]))).toEqual(['STRING', 'STRING']);
    const f = [sig('STRING', 'INT...')];
    expect(params(resolveUdfCall('f', f, [arg('STRING'), arg('INT'), arg('INT')]))).toEqual(['STRING', 'INT', 'INT']);
    expect(params(resolveUdfCall('f', f, [arg('STRING')]))).toEqual(['STRING']);
    expect(resolveUdfCall('f', f, [])).toEqual({ ok: false, message: 'f(STRING, INT...) takes at least 1 argument, not 0' });
  });

  it('names the function, the argument and both types of a call no signature takes', () => {
    expect(resolveUdfCall('substr2', [sig('STRING', 'INT', 'INT')], [arg('STRING', 'product'), arg('INT', '0'), arg('DOUBLE', 'price')])).toEqual({
      ok: false,
      message: 'argument 3 of substr2 (price) is DOUBLE, which does not cast implicitly to INT, the declared parameter type of substr2(STRING, INT, INT)',
      argument: 2,
    });
    expect(resolveUdfCall('substr2', [sig('STRING', 'INT', 'INT')], [arg('STRING', 'product')])).toEqual({ ok: false, message: 'substr2(STRING, INT, INT) takes 3 arguments, not 1' });
    // Several signatures failing at different arguments point at the call.
    expect(resolveUdfCall('sum_of', SUM, [arg('INT', 'a'), arg('BOOLEAN', 'b')])).toEqual({
      ok: false,
      message:
        'no declared signature of sum_of takes (INT, BOOLEAN): sum_of(INT, INT) — argument 2 of sum_of (b) is BOOLEAN, which does not cast implicitly to INT; ' +
        'sum_of(STRING, STRING) — argument 1 of sum_of (a) is INT, which does not cast implicitly to STRING; sum_of(DOUBLE...) — argument 2 of sum_of (b) is BOOLEAN, which does not cast implicitly to DOUBLE',
    });
  });

  it('without a declaration keeps the arguments’ types but refuses a DECIMAL too wide for a JS number', () => {
    expect(params(resolveUdfCall('f', undefined, [arg('DECIMAL(15, 2)'), arg('STRING')]))).toEqual(['DECIMAL(15, 2)', 'STRING']);
    expect(resolveUdfCall('f', undefined, [arg('INT'), arg('DECIMAL(38, 2)', 'SUM(price)')])).toEqual({
      ok: false,
      message: 'argument 2 of f (SUM(price)) is DECIMAL(38, 2), which a JS number cannot hold exactly (more than 15 digits): declare the parameter types of f — DOUBLE for a number, DECIMAL(38, 2) for the exact value as a string',
      argument: 1,
    });
    expect(resolveUdfCall('f', undefined, [arg('ROW<a INT, b DECIMAL(20, 0)>', 'r')])).toMatchObject({ ok: false, argument: 0 });
    expect(resolveUdfCall('f', undefined, [{ type: t('DECIMAL(38, 2)'), text: 'NULL', isNull: true }])).toMatchObject({ ok: true });
  });

  it('prints signatures as Java varargs do', () => {
    expect(formatUdfSignature('sum_of', sig('DOUBLE...'))).toBe('sum_of(DOUBLE...)');
    expect(formatUdfSignature('f', sig('DECIMAL(10, 2)', 'VARCHAR(3)'))).toBe('f(DECIMAL(10, 2), VARCHAR(3))');
    expect(formatUdfSignature('g', sig())).toBe('g()');
  });
});
