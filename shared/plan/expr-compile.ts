/**
 * Compiles expression trees into closures, once per operator instance: the per-row path runs
 * the closures only, without looking at the tree again.
 *
 * SQL semantics: NULL propagates through operators and functions; AND/OR/NOT are three-valued;
 * operands are widened to a common type first (INT → BIGINT → DECIMAL → DOUBLE, see
 * expr-types.ts); errors caused by a record's data (division by zero, failed casts, DECIMAL
 * overflow) throw a RecordError naming the expression, so the runtime dead-letters the record.
 * Arithmetic details are in expr-arithmetic.ts, comparisons in expr-compare.ts, casts in
 * expr-cast.ts.
 */
import { PlanError, RecordError } from '../core/errors.ts';
import { pow10 } from '../core/decimal.ts';
import { requireField } from '../core/type-parse.ts';
import { truncateTimePrecision } from '../core/timestamp.ts';
import { timeZoneOf, UTC_ZONE_ID, type TimeZone } from '../core/time-zone.ts';
import type { LogicalType, Row, Schema, Value } from '../core/types.ts';
import type { ArithmeticOperator } from './expr-arithmetic.ts';
import { compileArithmetic, compileNegate } from './expr-arithmetic.ts';
import { castConverter, type Converter } from './expr-cast.ts';
import type { ComparisonOperator } from './expr-compare.ts';
import { compileComparison, compileIn } from './expr-compare.ts';
import type { Call, CastExpr, Expr, UdfCall } from './expr.ts';
import { printExpr } from './expr-print.ts';
import { udfArguments } from './udf-signature.ts';
import { bindUdfCall, udfResultConverter } from './udf-values.ts';
import { builtin } from './expr-builtins.ts';
import { isMonthInterval } from './expr-build.ts';
import { addMonths, fromWallClock, wallClockOf } from './expr-fn-time.ts';
import {
  codePointLength,
  compileRegExp,
  likeToRegExp,
  regexpExtract,
  splitIndex,
  substringSql,
  trimSpaces,
} from './expr-strings.ts';
import {
  allIndices,
  canonicalFunctionName,
  caseBranches,
  castProblem,
  commonTypeOfOperands,
  comparisonType,
  isDatetime,
  typeName,
  withNullable,
} from './expr-type-rules.ts';
import { inferCallType } from './expr-types.ts';

/** A compiled expression: evaluates one row. */
export type Evaluator = (row: Row) => Value;

/** User-defined scalar functions of a pipeline, by the `ref` of their {@link UdfCall}s. */
export type UdfRegistry = ReadonlyMap<string, (row: Row) => Value>;

/** A compiled node with its type and what is statically known about it. */
interface Compiled {
  readonly fn: Evaluator;
  readonly type: LogicalType;
  /** A plain column reference (possibly behind a no-op conversion). */
  readonly column?: string;
  /** A constant value. */
  readonly constant?: { readonly value: Value };
}

function constant(value: Value, type: LogicalType): Compiled {
  return { fn: () => value, type, constant: { value } };
}

/** Null-propagating unary evaluator. */
function strict1<A>(f: Evaluator, op: (x: A) => Value): Evaluator {
  return (row) => {
    const x = f(row);
    return x === null ? null : op(x as A);
  };
}

const MS_PER_DAY = 86_400_000;

/** A small cache for values computed from non-constant arguments (patterns, regexes). */
function memo<V>(compute: (key: string) => V, limit = 64): (key: string) => V {
  const cache = new Map<string, V>();
  return (key) => {
    let v = cache.get(key);
    if (v === undefined) {
      v = compute(key);
      // Varying patterns would grow the cache forever; start over instead of tracking recency.
      if (cache.size >= limit) cache.clear();
      cache.set(key, v);
    }
    return v;
  };
}

class Compiler {
  constructor(
    private readonly schema: Schema,
    private readonly udfs: UdfRegistry,
  ) {}

  compile(expr: Expr): Compiled {
    switch (expr.kind) {
      case 'ref': {
        const field = requireField(this.schema, expr.name, 'expression');
        const name = expr.name;
        return { fn: (row) => row[name] ?? null, type: field.type, column: name };
      }
      case 'literal':
        return constant(expr.value, expr.type);
      case 'udf':
        return this.udf(expr);
      case 'cast':
        return this.cast(expr);
      case 'call':
        return this.call(expr);
    }
  }

  private udf(expr: UdfCall): Compiled {
    const fn = this.udfs.get(expr.ref);
    if (fn === undefined) {
      const known = [...this.udfs.keys()];
      throw new PlanError(
        `unknown user-defined function '${expr.display}' (ref '${expr.ref}'); registered: ${known.length === 0 ? '(none)' : known.join(', ')}`,
      );
    }
    if (expr.args === undefined) {
      // A UDF returning undefined means "no value"; SQL has only NULL for that.
      return { fn: (row) => fn(row) ?? null, type: expr.type };
    }
    // A function of values: each argument cast to its parameter and converted to its JS value,
    // the result converted back to the declared type (udf-values.ts).
    const args = expr.args.map((a) => this.compile(a));
    const bound = bindUdfCall(expr.display, expr.input, udfArguments(expr.args, args.map((a) => a.type)));
    const result = udfResultConverter(expr.type, `user function ${expr.display}`);
    const call = fn as unknown as (...values: unknown[]) => unknown;
    const evaluators = args.map((a) => a.fn);
    return { fn: (row) => result(call(...bound.toJs(evaluators.map((ev) => ev(row))))), type: expr.type };
  }

  private cast(expr: CastExpr): Compiled {
    const inner = this.compile(expr.expr);
    const problem = castProblem(inner.type, expr.type);
    if (problem !== undefined) {
      throw new PlanError(`cannot cast ${typeName(inner.type)} to ${typeName(expr.type)} in ${printExpr(expr)}: ${problem}`);
    }
    return this.coerce(inner, expr.type, printExpr(expr), timeZoneOf(expr.zone ?? UTC_ZONE_ID), expr.safe === true);
  }

  /**
   * Converts a compiled node to another type's representation (explicit or implicit cast).
   * `safe` (TRY_CAST): a value the conversion rejects gives NULL, so the type is nullable. Only
   * the conversion's data error is caught: one raised while computing the operand (a division by
   * zero inside the TRY_CAST) still fails the record, as in Flink.
   */
  private coerce(c: Compiled, to: LogicalType, where: string, zone: TimeZone, safe = false): Compiled {
    const type = withNullable(to, safe || c.type.nullable);
    if (c.constant !== undefined && c.constant.value === null) return constant(null, type);
    const castOf = castConverter(c.type, to, where, zone);
    if (castOf === undefined) return { ...c, type };
    const convert: Converter = safe ? nullOnDataError(castOf) : castOf;
    if (c.constant !== undefined) {
      try {
        return constant(convert(c.constant.value as Exclude<Value, null>), type);
      } catch (err) {
        // Not folded: a constant that cannot be cast fails each record that reaches it, as a
        // CASE branch that is never taken must not fail the whole pipeline.
        if (!(err instanceof RecordError)) throw err;
      }
    }
    const f = c.fn;
    return {
      fn: (row) => {
        const v = f(row);
        return v === null ? null : convert(v);
      },
      type,
    };
  }

  private call(call: Call): Compiled {
    const args = call.args.map((a) => this.compile(a));
    const argTypes = args.map((a) => a.type);
    const type = inferCallType(call, argTypes);
    const fn = canonicalFunctionName(call.fn);
    const where = printExpr(call);
    const zone = timeZoneOf(call.zone ?? UTC_ZONE_ID);
    const special = (fn === 'FLOOR' || fn === 'CEIL') && args.length === 2 ? `${fn} TO` : fn === 'TRIM' && args.length === 3 ? 'TRIM FROM' : undefined;
    const b = builtin(special ?? fn);
    if (b) {
      return { fn: b.evaluator({ call, args, type, where, zone, coerce: (a, to) => this.coerce(a, to, where, zone) }), type };
    }
    return { fn: this.callEvaluator(fn, call, args, type, where, zone), type };
  }

  private callEvaluator(fn: string, call: Call, args: readonly Compiled[], type: LogicalType, where: string, zone: TimeZone): Evaluator {
    const a0 = args[0]!;
    switch (fn) {
      case '+':
      case '-':
      case '*':
      case '/':
      case 'MOD':
        if (args.length === 1) return compileNegate(a0, where);
        if (isDatetime(type)) {
          const months = isMonthInterval(call.args[0]) || isMonthInterval(call.args[1]);
          return months ? compileMonthShift(fn, args[0]!, args[1]!, type, zone) : compileDatetimeShift(fn, args[0]!, args[1]!, type);
        }
        return compileArithmetic(fn as ArithmeticOperator, a0, args[1]!, type, where);
      case '=':
      case '<>':
      case '<':
      case '<=':
      case '>':
      case '>=': {
        const cmpType = comparisonType(a0.type, args[1]!.type)!;
        const left = this.coerce(a0, cmpType, where, zone);
        const right = this.coerce(args[1]!, cmpType, where, zone);
        return compileComparison(fn as ComparisonOperator, cmpType, left, right);
      }
      case 'IN': {
        const common = commonTypeOfOperands(call, args.map((a) => a.type), allIndices(call));
        const [value, ...list] = args.map((a) => this.coerce(a, common, where, zone));
        return compileIn(value!, list);
      }
      case 'AND':
        return and(args.map((a) => a.fn));
      case 'OR':
        return or(args.map((a) => a.fn));
      case 'NOT':
        return strict1<boolean>(a0.fn, (v) => !v);
      case 'IS NULL': {
        const f = a0.fn;
        return (row) => f(row) === null;
      }
      case 'IS NOT NULL': {
        const f = a0.fn;
        return (row) => f(row) !== null;
      }
      case 'IS TRUE': {
        const f = a0.fn;
        return (row) => f(row) === true;
      }
      case 'IS NOT TRUE': {
        const f = a0.fn;
        return (row) => f(row) !== true;
      }
      case 'IS FALSE': {
        const f = a0.fn;
        return (row) => f(row) === false;
      }
      case 'IS NOT FALSE': {
        const f = a0.fn;
        return (row) => f(row) !== false;
      }
      case 'CASE':
        return this.caseWhen(call, args, type, where, zone);
      case 'COALESCE':
        return coalesce(args.map((a) => this.coerce(a, type, where, zone).fn));
      default:
        return this.functionEvaluator(fn, args, where);
    }
  }

  private caseWhen(call: Call, args: readonly Compiled[], type: LogicalType, where: string, zone: TimeZone): Evaluator {
    const { whens, values } = caseBranches(call);
    const conds = whens.map((i) => args[i]!.fn);
    const results = values.map((i) => this.coerce(args[i]!, type, where, zone).fn);
    const otherwise: Evaluator = results.length > conds.length ? results[conds.length]! : () => null;
    if (conds.length === 1) {
      const cond = conds[0]!;
      const then = results[0]!;
      return (row) => (cond(row) === true ? then(row) : otherwise(row));
    }
    return (row) => {
      for (let i = 0; i < conds.length; i++) {
        if (conds[i]!(row) === true) return results[i]!(row);
      }
      return otherwise(row);
    };
  }

  /** Scalar functions: strict (NULL in, NULL out) unless noted. */
  private functionEvaluator(fn: string, args: readonly Compiled[], where: string): Evaluator {
    const a0 = args[0]!;
    const f0 = a0.fn;
    switch (fn) {
      case 'UPPER':
        return strict1<string>(f0, (s) => s.toUpperCase());
      case 'LOWER':
        return strict1<string>(f0, (s) => s.toLowerCase());
      case 'TRIM':
        return strict1<string>(f0, (s) => trimSpaces(s, true, true));
      case 'CHAR_LENGTH':
        return strict1<string>(f0, codePointLength);
      case 'CONCAT':
      case '||':
        return concat(args.map((a) => a.fn));
      case 'SUBSTRING':
        return substring(args, where);
      case 'LIKE':
        return like(args, where);
      case 'REGEXP_EXTRACT':
        return regexpExtractEvaluator(args, where);
      case 'SPLIT_INDEX': {
        const [fs, fsep, fi] = args.map((a) => a.fn) as [Evaluator, Evaluator, Evaluator];
        return (row) => {
          const s = fs(row);
          if (s === null) return null;
          const sep = fsep(row);
          if (sep === null) return null;
          const i = fi(row);
          return i === null ? null : splitIndex(s as string, sep as string, i as number);
        };
      }
      case 'ABS':
        return absEvaluator(a0);
      case 'FLOOR':
      case 'CEIL':
        return roundEvaluator(a0, fn === 'FLOOR');
      default:
        // inferCallType accepted the name, so the two lists are out of step.
        throw new Error(`internal: no evaluator for function '${fn}' in ${where}`);
    }
  }
}

/**
 * `x ± INTERVAL` (or `INTERVAL + x`): a TIMESTAMP or TIMESTAMP_LTZ moves by the interval's
 * milliseconds (an instant on the time line, as Flink adds a day-time interval to one), a DATE by
 * whole days of it (Calcite drops the rest), a TIME wraps around midnight. NULL stays NULL.
 */
function compileDatetimeShift(fn: string, first: Compiled, second: Compiled, type: LogicalType): Evaluator {
  const [point, length] = first.type.root === type.root ? [first, second] : [second, first];
  const fa = point.fn;
  const fb = length.fn;
  const sign = fn === '-' ? -1 : 1;
  let shift: (x: number, ms: number) => number;
  switch (type.root) {
    case 'DATE':
      shift = (days, ms) => days + Math.trunc(ms / MS_PER_DAY);
      break;
    case 'TIME': {
      const precision = type.precision ?? 0;
      shift = (t, ms) => truncateTimePrecision((((t + ms) % MS_PER_DAY) + MS_PER_DAY) % MS_PER_DAY, precision);
      break;
    }
    default:
      shift = (ts, ms) => ts + ms;
  }
  return (row) => {
    const x = fa(row);
    const y = fb(row);
    return x === null || y === null ? null : shift(x as number, sign * (y as number));
  };
}

/**
 * `x ± INTERVAL 'n' MONTH` (or YEAR): the calendar month moves on the wall clock (a
 * TIMESTAMP_LTZ in the session time zone) and the day is clamped to the target month's length,
 * as Flink adds a year-month interval. NULL stays NULL.
 */
function compileMonthShift(fn: string, first: Compiled, second: Compiled, type: LogicalType, zone: TimeZone): Evaluator {
  const [point, length] = first.type.root === type.root ? [first, second] : [second, first];
  const toLocal = wallClockOf(type, zone);
  const back = fromWallClock(type, zone);
  const fa = point.fn;
  const fb = length.fn;
  const sign = fn === '-' ? -1 : 1;
  return (row) => {
    const x = fa(row);
    const n = fb(row);
    return x === null || n === null ? null : back(addMonths(toLocal(x as number), sign * (n as number)));
  };
}

/** Three-valued AND: false wins, then NULL, then true; stops at the first false. */
function and(fns: readonly Evaluator[]): Evaluator {
  if (fns.length === 2) {
    const [a, b] = fns as [Evaluator, Evaluator];
    return (row) => {
      const x = a(row);
      if (x === false) return false;
      const y = b(row);
      if (y === false) return false;
      return x === null || y === null ? null : true;
    };
  }
  return (row) => {
    let sawNull = false;
    for (let i = 0; i < fns.length; i++) {
      const v = fns[i]!(row);
      if (v === false) return false;
      if (v === null) sawNull = true;
    }
    return sawNull ? null : true;
  };
}

/** Three-valued OR: true wins, then NULL, then false; stops at the first true. */
function or(fns: readonly Evaluator[]): Evaluator {
  if (fns.length === 2) {
    const [a, b] = fns as [Evaluator, Evaluator];
    return (row) => {
      const x = a(row);
      if (x === true) return true;
      const y = b(row);
      if (y === true) return true;
      return x === null || y === null ? null : false;
    };
  }
  return (row) => {
    let sawNull = false;
    for (let i = 0; i < fns.length; i++) {
      const v = fns[i]!(row);
      if (v === true) return true;
      if (v === null) sawNull = true;
    }
    return sawNull ? null : false;
  };
}

function coalesce(fns: readonly Evaluator[]): Evaluator {
  return (row) => {
    for (let i = 0; i < fns.length; i++) {
      const v = fns[i]!(row);
      if (v !== null) return v;
    }
    return null;
  };
}

/** CONCAT and `||`: NULL if any operand is NULL, as in Flink. */
function concat(fns: readonly Evaluator[]): Evaluator {
  if (fns.length === 2) {
    const [a, b] = fns as [Evaluator, Evaluator];
    return (row) => {
      const x = a(row);
      if (x === null) return null;
      const y = b(row);
      return y === null ? null : (x as string) + (y as string);
    };
  }
  return (row) => {
    let out = '';
    for (let i = 0; i < fns.length; i++) {
      const v = fns[i]!(row);
      if (v === null) return null;
      out += v as string;
    }
    return out;
  };
}

function substring(args: readonly Compiled[], where: string): Evaluator {
  const fs = args[0]!.fn;
  const fpos = args[1]!.fn;
  const flen = args[2]?.fn;
  return (row) => {
    const s = fs(row);
    if (s === null) return null;
    const pos = fpos(row);
    if (pos === null) return null;
    let length = Infinity;
    if (flen !== undefined) {
      const l = flen(row);
      if (l === null) return null;
      // Standard SQL: a negative length is a data exception ("substring error").
      if ((l as number) < 0) throw new RecordError(`negative length ${String(l)} in ${where}`);
      length = l as number;
    }
    return substringSql(s as string, pos as number, length);
  };
}

function like(args: readonly Compiled[], where: string): Evaluator {
  const fs = args[0]!.fn;
  const pattern = args[1]!;
  const escape = args[2];
  if (pattern.constant !== undefined && (escape === undefined || escape.constant !== undefined)) {
    if (pattern.constant.value === null || escape?.constant?.value === null) return () => null;
    const re = likeToRegExp(pattern.constant.value as string, escape?.constant?.value as string | undefined);
    if (typeof re === 'string') throw new PlanError(`${re} in ${where}`);
    return strict1<string>(fs, (s) => re.test(s));
  }
  const fp = pattern.fn;
  const fe = escape?.fn;
  const compile = memo((key: string) => {
    const [p, e] = JSON.parse(key) as [string, string | undefined];
    return likeToRegExp(p, e ?? undefined);
  });
  return (row) => {
    const s = fs(row);
    if (s === null) return null;
    const p = fp(row);
    if (p === null) return null;
    const e = fe === undefined ? undefined : fe(row);
    if (e === null) return null;
    const re = compile(JSON.stringify([p, e]));
    if (typeof re === 'string') throw new RecordError(`${re} in ${where}`);
    return re.test(s as string);
  };
}

function regexpExtractEvaluator(args: readonly Compiled[], where: string): Evaluator {
  const fs = args[0]!.fn;
  const regex = args[1]!;
  // Without an index Flink returns the whole match (group 0).
  const fi = args[2]?.fn ?? (() => 0);
  let lookup: (row: Row) => RegExp | null;
  if (regex.constant !== undefined) {
    const source = regex.constant.value;
    const re = source === null ? null : compileRegExp(source as string);
    if (re === undefined) throw new PlanError(`invalid regular expression '${String(source)}' in ${where}`);
    lookup = () => re;
  } else {
    // Flink returns NULL for a pattern it cannot compile; so do we.
    const compile = memo((source: string) => compileRegExp(source) ?? null);
    const fr = regex.fn;
    lookup = (row) => {
      const source = fr(row);
      return source === null ? null : compile(source as string);
    };
  }
  return (row) => {
    const s = fs(row);
    if (s === null) return null;
    const re = lookup(row);
    if (re === null) return null;
    const i = fi(row);
    return i === null ? null : regexpExtract(s as string, re, i as number);
  };
}

function absEvaluator(a: Compiled): Evaluator {
  switch (a.type.root) {
    case 'INT':
      // Java's Math.abs(Integer.MIN_VALUE) stays MIN_VALUE; `| 0` reproduces the wrap.
      return strict1<number>(a.fn, (v) => Math.abs(v) | 0);
    case 'SMALLINT':
      // Flink casts Math.abs of the short's int back: ABS(-32768) is -32768.
      return strict1<number>(a.fn, (v) => (Math.abs(v) << 16) >> 16);
    case 'TINYINT':
      return strict1<number>(a.fn, (v) => (Math.abs(v) << 24) >> 24);
    case 'DECIMAL':
      return strict1<bigint>(a.fn, (v) => (v < 0n ? -v : v));
    default:
      return strict1<number>(a.fn, Math.abs);
  }
}

function roundEvaluator(a: Compiled, floor: boolean): Evaluator {
  const t = a.type;
  if (t.root === 'DOUBLE' || t.root === 'FLOAT') return strict1<number>(a.fn, floor ? Math.floor : Math.ceil);
  if (t.root !== 'DECIMAL' || (t.scale ?? 0) === 0) return a.fn;
  // DECIMAL(p, s) → DECIMAL(p - s + 1, 0): divide the unscaled value by 10^s, rounding down or up.
  const divisor = pow10(t.scale ?? 0);
  return strict1<bigint>(a.fn, (v) => {
    const q = v / divisor;
    const r = v % divisor;
    if (r === 0n) return q;
    if (floor) return r < 0n ? q - 1n : q;
    return r > 0n ? q + 1n : q;
  });
}

/**
 * Compiles an expression over rows of `schema` into a closure.
 *
 * @throws PlanError when the expression does not type-check against the schema or calls an
 * unknown function or UDF. The returned closure throws RecordError for data errors.
 */
export function compileExpr(expr: Expr, schema: Schema, udfs: UdfRegistry): Evaluator {
  return new Compiler(schema, udfs).compile(expr).fn;
}

/**
 * Compiles an expression and also returns its type (what {@link compileExpr} computes anyway),
 * for callers that need both without inferring twice.
 */
export function compileTypedExpr(expr: Expr, schema: Schema, udfs: UdfRegistry): { evaluate: Evaluator; type: LogicalType } {
  const compiled = new Compiler(schema, udfs).compile(expr);
  return { evaluate: compiled.fn, type: compiled.type };
}

/**
 * Compiles a BOOLEAN condition as SQL's WHERE uses it: rows where it is NULL or false are
 * rejected.
 *
 * @throws PlanError when the expression is not BOOLEAN (or as {@link compileExpr}).
 */
export function compilePredicate(expr: Expr, schema: Schema, udfs: UdfRegistry): (row: Row) => boolean {
  const compiled = new Compiler(schema, udfs).compile(expr);
  if (compiled.type.root !== 'BOOLEAN') {
    throw new PlanError(`a condition must be BOOLEAN, but ${printExpr(expr)} is ${typeName(compiled.type)}`);
  }
  if (compiled.constant !== undefined) {
    const result = compiled.constant.value === true;
    return () => result;
  }
  const f = compiled.fn;
  return (row) => f(row) === true;
}



/** TRY_CAST's conversion: NULL where `convert` raises a data error. */
function nullOnDataError(convert: Converter): Converter {
  return (value) => {
    try {
      return convert(value);
    } catch (err) {
      if (err instanceof RecordError) return null;
      throw err;
    }
  };
}
