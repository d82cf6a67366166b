/**
 * More built-ins of Flink's function tables, with its semantics: trigonometry (SIN … ATAN2,
 * DEGREES, RADIANS on DOUBLE, as Java's Math), SIGN, PI, E; strings REPEAT, REVERSE, LEFT, RIGHT,
 * ASCII, CHR, REGEXP (a partial match, NULL for a pattern that does not compile), TO_BASE64 /
 * FROM_BASE64 (UTF-8), IS_DIGIT / IS_ALPHA; TYPEOF (the operand's type, as Flink names it); BIN and HEX of integers (two's complement of a
 * negative BIGINT, as Java's Long.toBinaryString / toHexString) and HEX of a string's UTF-8 bytes.
 */
import { PlanError } from '../core/errors.ts';
import { formatSerializableType, formatTypeSummary } from '../core/type-parse.ts';
import type { LogicalType } from '../core/types.ts';
import type { Call } from './expr.ts';
import { printExpr } from './expr-print.ts';
import { BOOLEAN, type Builtin, checkArgs, DOUBLE, INT, INTEGERS, NUMERICS, nullableIf, requireRoots, strict, STRING, STRINGS } from './expr-fn.ts';
import { compileRegExp } from './expr-strings.ts';

function numeric(v: unknown, t: LogicalType): number {
  if (typeof v === 'bigint') return t.root === 'DECIMAL' ? Number(v) / 10 ** (t.scale ?? 0) : Number(v);
  return v as number;
}

function doubleOf(arity: number, op: (...xs: number[]) => number): Builtin {
  return {
    type: (call, types) => {
      checkArgs(call, arity, arity);
      requireRoots(call, types, NUMERICS);
      return nullableIf(DOUBLE, types);
    },
    evaluator: ({ args }) => strict(args, (vs) => op(...vs.map((v, i) => numeric(v, args[i]!.type)))),
  };
}

function constant(value: number): Builtin {
  return {
    type: (call) => {
      checkArgs(call, 0, 0);
      return DOUBLE;
    },
    evaluator: () => () => value,
  };
}

function stringOf(arity: number, roots: readonly (readonly string[])[], result: LogicalType, op: (...vs: never[]) => string | number | boolean | null): Builtin {
  return {
    type: (call, types) => {
      checkArgs(call, arity, arity);
      requireRoots(call, types, ...roots);
      return nullableIf(result, types);
    },
    evaluator: ({ args }) => strict(args, (vs) => op(...(vs as never[]))),
  };
}

/** Java's Long.toString(x, radix) of the 64-bit two's complement, for BIN and HEX. */
function unsignedText(x: number, radix: number): string {
  return BigInt.asUintN(64, BigInt(x)).toString(radix);
}

/** TYPEOF's force_serializable: a BOOLEAN literal. */
function serializableFlag(call: Call): boolean {
  const a = call.args[1];
  if (a?.kind !== 'literal' || typeof a.value !== 'boolean') throw new PlanError(`the second argument of TYPEOF must be TRUE or FALSE in ${printExpr(call)}`);
  return a.value;
}

/** The built-ins by name. */
export const MORE_FUNCTIONS: Readonly<Record<string, Builtin>> = {
  SIN: doubleOf(1, Math.sin),
  COS: doubleOf(1, Math.cos),
  TAN: doubleOf(1, Math.tan),
  COT: doubleOf(1, (x) => 1 / Math.tan(x)),
  ASIN: doubleOf(1, Math.asin),
  ACOS: doubleOf(1, Math.acos),
  ATAN: doubleOf(1, Math.atan),
  ATAN2: doubleOf(2, Math.atan2),
  SINH: doubleOf(1, Math.sinh),
  COSH: doubleOf(1, Math.cosh),
  TANH: doubleOf(1, Math.tanh),
  DEGREES: doubleOf(1, (x) => (x * 180) / Math.PI),
  RADIANS: doubleOf(1, (x) => (x / 180) * Math.PI),
  PI: constant(Math.PI),
  E: constant(Math.E),
  SIGN: {
    // The operand's type: SIGN(-5) is INT -1, SIGN(2.5) is DECIMAL 1.0.
    type: (call, types) => {
      checkArgs(call, 1, 1);
      requireRoots(call, types, NUMERICS);
      return nullableIf(types[0]!, types);
    },
    evaluator: ({ args }) => {
      const t = args[0]!.type;
      const one = t.root === 'DECIMAL' ? 10n ** BigInt(t.scale ?? 0) : 1;
      return strict(args, ([v]) => {
        if (typeof v === 'bigint') return v > 0n ? (one as bigint) : v < 0n ? -(one as bigint) : 0n;
        return Math.sign(v as number);
      });
    },
  },
  BIN: stringOf(1, [INTEGERS], STRING, (x: number) => unsignedText(x, 2)),
  HEX: {
    type: (call, types) => {
      checkArgs(call, 1, 1);
      requireRoots(call, types, [...INTEGERS, ...STRINGS]);
      return nullableIf(STRING, types);
    },
    evaluator: ({ args }) => {
      const text = args[0]!.type.root === 'STRING';
      return strict(args, ([v]) => (text ? Buffer.from(v as string, 'utf8').toString('hex').toUpperCase() : unsignedText(v as number, 16).toUpperCase()));
    },
  },
  REPEAT: stringOf(2, [STRINGS, INTEGERS], STRING, (s: string, n: number) => (n <= 0 ? '' : s.repeat(n))),
  REVERSE: stringOf(1, [STRINGS], STRING, (s: string) => [...s].reverse().join('')),
  LEFT: stringOf(2, [STRINGS, INTEGERS], STRING, (s: string, n: number) => (n <= 0 ? '' : [...s].slice(0, n).join(''))),
  RIGHT: stringOf(2, [STRINGS, INTEGERS], STRING, (s: string, n: number) => (n <= 0 ? '' : [...s].slice(-n).join(''))),
  ASCII: stringOf(1, [STRINGS], INT, (s: string) => (s.length === 0 ? 0 : (s.codePointAt(0) as number))),
  CHR: stringOf(1, [INTEGERS], STRING, (n: number) => (n < 0 ? '' : String.fromCharCode(n % 256))),
  TO_BASE64: stringOf(1, [STRINGS], STRING, (s: string) => Buffer.from(s, 'utf8').toString('base64')),
  FROM_BASE64: stringOf(1, [STRINGS], STRING, (s: string) => Buffer.from(s, 'base64').toString('utf8')),
  IS_DIGIT: stringOf(1, [STRINGS], BOOLEAN, (s: string) => /^[0-9]+$/.test(s)),
  IS_ALPHA: stringOf(1, [STRINGS], BOOLEAN, (s: string) => /^[A-Za-z]+$/.test(s)),
  TYPEOF: {
    // The operand's type as a constant string: Flink's summary string (`INT NOT NULL`, `STRING`),
    // or with force_serializable TRUE the full form (`VARCHAR(2147483647)`, `TIMESTAMP(3) WITH
    // LOCAL TIME ZONE`).
    type: (call) => {
      checkArgs(call, 1, 2);
      if (call.args.length === 2) serializableFlag(call);
      return STRING;
    },
    evaluator: ({ call, args }) => {
      const t = args[0]!.type;
      const text = call.args.length === 2 && serializableFlag(call) ? formatSerializableType(t) : formatTypeSummary(t);
      return () => text;
    },
  },
  REGEXP: {
    type: (call, types) => {
      checkArgs(call, 2, 2);
      requireRoots(call, types, STRINGS);
      return { ...BOOLEAN, nullable: true };
    },
    evaluator: ({ args }) =>
      strict(args, ([s, re]) => {
        const compiled = compileRegExp(re as string);
        return compiled === undefined ? null : compiled.test(s as string);
      }),
  },
};

