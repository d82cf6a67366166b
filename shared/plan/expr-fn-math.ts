/**
 * Numeric and comparison built-ins with Flink's semantics: ROUND (half up, away from zero, at
 * `d` decimal places) and TRUNCATE (towards zero), POWER, SQRT, EXP, LN, LOG, LOG10, LOG2 (DOUBLE; out of domain gives NaN
 * or -Infinity as Java's Math does), GREATEST / LEAST (NULL when any operand is NULL), NULLIF
 * and IS DISTINCT FROM (two NULLs are not distinct).
 */
import { PlanError, RecordError } from '../core/errors.ts';
import { pow10 } from '../core/decimal.ts';
import { MAX_DECIMAL_PRECISION } from '../core/type-parse.ts';
import type { LogicalType, Row, Value } from '../core/types.ts';
import { printExpr } from './expr-print.ts';
import { BOOLEAN, type Builtin, checkArgs, DOUBLE, type FnArg, INTEGERS, NUMERICS, nullableIf, requireRoots, strict } from './expr-fn.ts';
import { compareStrings } from './expr-strings.ts';
import { commonTypeOf, comparisonType, decimalShape, typeName } from './expr-type-rules.ts';

/** A numeric value as a double. */
function toDouble(v: Value, t: LogicalType): number {
  if (typeof v === 'bigint') return t.root === 'DECIMAL' ? Number(v) / 10 ** (t.scale ?? 0) : Number(v);
  return v as number;
}

/** Orders two non-null values of one type. */
function compare(a: Value, b: Value): number {
  if (typeof a === 'string') return compareStrings(a, b as string);
  if (typeof a === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a === b) return 0;
  return (a as number) < (b as number) ? -1 : 1;
}

/**
 * A double rounded half up (or, for TRUNCATE, towards zero) to `d` places (d may be negative),
 * on its decimal digits as Java's `BigDecimal.valueOf(double).setScale(d, mode)` does.
 */
function roundDecimalText(x: number, d: number, down = false): number {
  if (!Number.isFinite(x)) return x;
  const sign = x < 0 ? -1 : 1;
  // The shortest round-trip text (as Java's BigDecimal.valueOf(double) reads it), rounded exactly.
  const [mantissa = '0', expPart] = Math.abs(x).toExponential().split('e');
  const exp = Number(expPart);
  const digits = mantissa.replace('.', '');
  // The value is 0.digits × 10^(exp + 1); keep exp + 1 + d digits.
  const keep = exp + 1 + d;
  if (keep < 0) return 0;
  const head = digits.slice(0, keep).padEnd(keep, '0');
  let n = BigInt(head === '' ? '0' : head);
  if (!down && (digits[keep] ?? '0') >= '5') n += 1n;
  // BigDecimal has no negative zero: -0.4 rounds to 0.0, not -0.0.
  if (n === 0n) return 0;
  return sign * Number(`${n.toString()}e${exp + 1 - keep}`);
}

/**
 * The unscaled `v` (at `scale`) rounded half up — or towards zero with `down` — to `d` < `scale`
 * places: unscaled at scale `d`.
 */
function roundExact(v: bigint, scale: number, d: number, down = false): bigint {
  const drop = scale - d;
  if (drop <= 0) return v;
  const div = pow10(drop);
  const q = v / div;
  if (down) return q;
  const r = v % div;
  const half = div / 2n;
  const rounded = r >= half ? q + 1n : r <= -half ? q - 1n : q;
  return rounded;
}

/** `d` of ROUND(x, d) / TRUNCATE(x, d): an integer literal (Flink's result type depends on it). */
function roundPlaces(call: Parameters<Builtin['type']>[0]): number {
  const a = call.args[1];
  if (a === undefined) return 0;
  if (a.kind !== 'literal' || typeof a.value !== 'number' || !Number.isInteger(a.value)) {
    throw new PlanError(`${call.fn} takes an integer literal as its second argument in ${printExpr(call)}`);
  }
  return a.value;
}

/**
 * ROUND (half up, away from zero) or TRUNCATE (towards zero) at `d` decimal places, with Flink's
 * result type (FlinkReturnTypes.ROUND_FUNCTION for both): the operand's type, or for a DECIMAL
 * rounded below its scale LogicalTypeMerging.findRoundDecimalType.
 */
function rounding(down: boolean): Builtin {
  return {
    type: (call, types) => {
      checkArgs(call, 1, 2);
      requireRoots(call, types, NUMERICS, INTEGERS);
      const t = types[0]!;
      if (t.root !== 'DECIMAL') return nullableIf(t, types);
      const d = roundPlaces(call);
      const { precision, scale } = decimalShape(t);
      if (d >= scale) return nullableIf(t, types);
      const p = d < 0 ? Math.min(MAX_DECIMAL_PRECISION, 1 + precision - scale) : Math.min(MAX_DECIMAL_PRECISION, 1 + precision - scale + d);
      return nullableIf({ root: 'DECIMAL', nullable: false, precision: p, scale: Math.max(d, 0) }, types);
    },
    evaluator: ({ call, args }) => {
      const t = args[0]!.type;
      const d = call.args.length > 1 ? undefined : 0;
      const places = (row: Row): number | null => (d !== undefined ? d : (args[1]!.fn(row) as number | null));
      const f = args[0]!.fn;
      return (row) => {
        const v = f(row);
        const n = places(row);
        if (v === null || n === null) return null;
        switch (t.root) {
          case 'DOUBLE':
            return roundDecimalText(v as number, n, down);
          case 'FLOAT':
            return Math.fround(roundDecimalText(v as number, n, down));
          case 'DECIMAL': {
            // The result has scale n (0 when n < 0), or keeps the operand's when n is not smaller.
            const scale = t.scale ?? 0;
            if (n >= scale) return v;
            const rounded = roundExact(v as bigint, scale, n, down);
            return n >= 0 ? rounded : rounded * pow10(-n);
          }
          default: {
            if (n >= 0) return v;
            const unit = 10 ** -n;
            const x = v as number;
            const r = Math.sign(x) * Math.floor(Math.abs(x) / unit + (down ? 0 : 0.5)) * unit;
            const [min, max] = t.root === 'INT' ? [-2147483648, 2147483647] : t.root === 'SMALLINT' ? [-32768, 32767] : t.root === 'TINYINT' ? [-128, 127] : [-Infinity, Infinity];
            if (r > max || r < min) throw new RecordError(`${call.fn} overflows ${t.root}: ${x}`);
            return r;
          }
        }
      };
    },
  };
}

function doubleFn(arity: number, op: (...xs: number[]) => number): Builtin {
  return {
    type: (call, types) => {
      checkArgs(call, arity, arity);
      requireRoots(call, types, NUMERICS);
      return nullableIf(DOUBLE, types);
    },
    evaluator: ({ args }) => strict(args, (vs) => op(...vs.map((v, i) => toDouble(v, args[i]!.type)))),
  };
}

function extreme(greatest: boolean): Builtin {
  return {
    type: (call, types) => {
      checkArgs(call, 1, Infinity);
      let t: LogicalType | undefined = types[0];
      for (const u of types.slice(1)) t = t && commonTypeOf(t, u);
      if (t === undefined) throw new PlanError(`cannot apply '${call.fn}' to ${types.map(typeName).join(' and ')} in ${printExpr(call)} (the operands have no common type)`);
      return nullableIf(t, types);
    },
    evaluator: ({ args, type, coerce }) => {
      const fns = args.map((a) => coerce(a, type).fn);
      return (row) => {
        let best: Value = null;
        for (let i = 0; i < fns.length; i++) {
          const v = fns[i]!(row);
          if (v === null) return null;
          if (best === null || (greatest ? compare(v, best) > 0 : compare(v, best) < 0)) best = v;
        }
        return best;
      };
    },
  };
}

/** Both operands converted to their comparison type. */
function comparable(args: readonly FnArg[], coerce: (a: FnArg, t: LogicalType) => FnArg): [(row: Row) => Value, (row: Row) => Value] {
  const t = comparisonType(args[0]!.type, args[1]!.type)!;
  return [coerce(args[0]!, t).fn, coerce(args[1]!, t).fn];
}

function checkComparable(call: Parameters<Builtin['type']>[0], types: readonly LogicalType[]): void {
  checkArgs(call, 2, 2);
  if (comparisonType(types[0]!, types[1]!) === undefined) {
    throw new PlanError(`cannot apply '${call.fn}' to ${types.map(typeName).join(' and ')} in ${printExpr(call)}`);
  }
}

/** The numeric and comparison built-ins by name. */
export const MATH_FUNCTIONS: Readonly<Record<string, Builtin>> = {
  ROUND: rounding(false),
  TRUNCATE: rounding(true),
  POWER: doubleFn(2, Math.pow),
  SQRT: doubleFn(1, Math.sqrt),
  EXP: doubleFn(1, Math.exp),
  LN: doubleFn(1, Math.log),
  LOG10: doubleFn(1, Math.log10),
  LOG2: doubleFn(1, Math.log2),
  LOG: {
    type: (call, types) => {
      checkArgs(call, 1, 2);
      requireRoots(call, types, NUMERICS);
      return nullableIf(DOUBLE, types);
    },
    evaluator: ({ args, where }) =>
      strict(args, (vs) => {
        const xs = vs.map((v, i) => toDouble(v, args[i]!.type));
        if (xs.length === 1) return Math.log(xs[0]!);
        const [base, x] = xs as [number, number];
        // Flink: "base of 'log(base, x)' must be > 1".
        if (base <= 1) throw new RecordError(`the base of LOG(base, x) must be greater than 1, got ${base} in ${where}`);
        return Math.log(x) / Math.log(base);
      }),
  },
  GREATEST: extreme(true),
  LEAST: extreme(false),
  NULLIF: {
    type: (call, types) => {
      checkComparable(call, types);
      return { ...types[0]!, nullable: true };
    },
    evaluator: ({ args, coerce }) => {
      const [a, b] = comparable(args, coerce);
      const value = args[0]!.fn;
      return (row) => {
        const x = a(row);
        if (x === null) return null;
        const y = b(row);
        return y !== null && compare(x, y) === 0 ? null : value(row);
      };
    },
  },
  'IS DISTINCT FROM': {
    type: (call, types) => {
      checkComparable(call, types);
      return BOOLEAN;
    },
    evaluator: ({ args, coerce }) => {
      const [a, b] = comparable(args, coerce);
      return (row) => {
        const x = a(row);
        const y = b(row);
        if (x === null || y === null) return (x === null) !== (y === null);
        return compare(x, y) !== 0;
      };
    },
  },
};
