/**
 * Pattern-matching built-ins with Flink's semantics:
 *
 * - `s [NOT] SIMILAR TO pattern [ESCAPE c]`: the whole string matches the SQL regular expression
 *   (Calcite's translation, expr-strings.ts `similarToRegExp`); NULL in, NULL out; an invalid
 *   pattern is an error, as Flink fails on it.
 * - `REGEXP_COUNT(s, re)` (INT: the number of matches), `REGEXP_INSTR(s, re)` (INT: the 1-based
 *   position of the first match, 0 for none), `REGEXP_SUBSTR(s, re)` (the first match, NULL for
 *   none) and `REGEXP_EXTRACT_ALL(s, re [, group])` (ARRAY<STRING>: that group — 1 by default, 0
 *   is the whole match — of every match; NULL for a group the pattern does not have): Java
 *   regular expressions, matched left to right without overlapping, as `Matcher.find` does. A
 *   NULL operand or a pattern that does not compile gives NULL (Flink's documented behaviour).
 */
import { PlanError, RecordError } from '../core/errors.ts';
import type { LogicalType, Row, Value } from '../core/types.ts';
import type { Call } from './expr.ts';
import { printExpr } from './expr-print.ts';
import { BOOLEAN, type Builtin, checkArgs, type FnArg, INT, INTEGERS, nullableIf, requireRoots, STRING, STRINGS } from './expr-fn.ts';
import { compileRegExp, similarToRegExp } from './expr-strings.ts';

/** A compiled pattern per row: compiled once for a constant, through a small cache otherwise. */
function patternOf<P>(arg: FnArg, compile: (source: string) => P): (row: Row) => P | null {
  if (arg.constant !== undefined) {
    const source = arg.constant.value;
    const compiled = source === null ? null : compile(source as string);
    return () => compiled;
  }
  const cache = new Map<string, P>();
  const f = arg.fn;
  return (row) => {
    const source = f(row);
    if (source === null) return null;
    let compiled = cache.get(source as string);
    if (compiled === undefined) {
      compiled = compile(source as string);
      // Varying patterns would grow the cache forever; start over instead of tracking recency.
      if (cache.size >= 64) cache.clear();
      cache.set(source as string, compiled);
    }
    return compiled;
  };
}

/** The same pattern with the `g` flag, for `Matcher.find`-style iteration; undefined when it does not compile. */
function globalRegExp(source: string): RegExp | undefined {
  const re = compileRegExp(source);
  return re === undefined ? undefined : new RegExp(re.source, 'g');
}

/** Every match of `re` (a `g` RegExp) in `s`, left to right; an empty match moves on by one character, as Java's find does. */
function* matches(re: RegExp, s: string): Generator<RegExpExecArray> {
  re.lastIndex = 0;
  for (;;) {
    const m = re.exec(s);
    if (m === null) return;
    if (m[0] === '') re.lastIndex++;
    yield m;
    if (re.lastIndex > s.length) return;
  }
}

/** The pattern and escape of a SIMILAR TO call when both are literals (checked when the query is planned). */
function literalPattern(call: Call): { pattern: string | null; escape: string | null | undefined } | undefined {
  const [, p, e] = call.args;
  if (p?.kind !== 'literal' || (e !== undefined && e.kind !== 'literal')) return undefined;
  return { pattern: p.value as string | null, escape: e === undefined ? undefined : (e.value as string | null) };
}

const SIMILAR_TO: Builtin = {
  type: (call, types) => {
    checkArgs(call, 2, 3);
    requireRoots(call, types, STRINGS);
    const literal = literalPattern(call);
    if (literal?.pattern != null && literal.escape !== null) {
      const re = similarToRegExp(literal.pattern, literal.escape);
      if (typeof re === 'string') throw new PlanError(`${re} in ${printExpr(call)}`);
    }
    return nullableIf(BOOLEAN, types);
  },
  evaluator: ({ args, where }) => {
    const [text, pattern, escape] = args as [FnArg, FnArg, FnArg | undefined];
    // A constant pattern is checked once, when the query is planned.
    if (pattern.constant !== undefined && (escape === undefined || escape.constant !== undefined)) {
      const p = pattern.constant.value;
      const e = escape?.constant?.value;
      if (p === null || e === null) return () => null;
      const re = similarToRegExp(p as string, e as string | undefined);
      if (typeof re === 'string') throw new PlanError(`${re} in ${where}`);
      const f = text.fn;
      return (row) => {
        const s = f(row);
        return s === null ? null : re.test(s as string);
      };
    }
    // Otherwise by the pattern and escape of each row, as one cache key.
    const key: FnArg = {
      type: STRING,
      fn: (row) => {
        const p = pattern.fn(row);
        const e = escape === undefined ? undefined : escape.fn(row);
        return p === null || e === null ? null : JSON.stringify([p, e ?? null]);
      },
    };
    const compiled = patternOf(key, (k) => {
      const [p, e] = JSON.parse(k) as [string, string | null];
      return similarToRegExp(p, e ?? undefined);
    });
    const f = text.fn;
    return (row) => {
      const s = f(row);
      if (s === null) return null;
      const re = compiled(row);
      if (re === null) return null;
      if (typeof re === 'string') throw new RecordError(`${re} in ${where}`);
      return re.test(s as string);
    };
  },
};

/** A function of a string and a Java regular expression; NULL for NULL operands or a pattern that does not compile. */
function regexpFn(result: LogicalType, op: (re: RegExp, s: string, rest: readonly Value[]) => Value, extra: readonly (readonly string[])[] = []): Builtin {
  return {
    type: (call, types) => {
      checkArgs(call, 2, 2 + extra.length);
      requireRoots(call, types, STRINGS, STRINGS, ...extra);
      return { ...result, nullable: true };
    },
    evaluator: ({ args }) => {
      const [text, pattern, ...rest] = args as [FnArg, FnArg, ...FnArg[]];
      const compiled = patternOf(pattern, (source) => globalRegExp(source) ?? null);
      const f = text.fn;
      const fs = rest.map((a) => a.fn);
      return (row) => {
        const s = f(row);
        if (s === null) return null;
        const re = compiled(row);
        if (re === null) return null;
        const values: Value[] = [];
        for (const g of fs) {
          const v = g(row);
          if (v === null) return null;
          values.push(v);
        }
        return op(re, s as string, values);
      };
    },
  };
}

/** The number of capturing groups of a pattern. */
function groupCount(re: RegExp): number {
  return (new RegExp(`${re.source}|`).exec('') as RegExpExecArray).length - 1;
}

/** The pattern-matching built-ins by name. */
export const REGEXP_FUNCTIONS: Readonly<Record<string, Builtin>> = {
  'SIMILAR TO': SIMILAR_TO,
  REGEXP_COUNT: regexpFn(INT, (re, s) => {
    let n = 0;
    for (const _ of matches(re, s)) n++;
    return n;
  }),
  REGEXP_INSTR: regexpFn(INT, (re, s) => {
    for (const m of matches(re, s)) return m.index + 1;
    return 0;
  }),
  REGEXP_SUBSTR: regexpFn(STRING, (re, s) => {
    for (const m of matches(re, s)) return m[0];
    return null;
  }),
  REGEXP_EXTRACT_ALL: regexpFn(
    { root: 'ARRAY', nullable: true, element: { ...STRING, nullable: true } },
    (re, s, [index]) => {
      const group = (index ?? 1) as number;
      if (group < 0 || group > groupCount(re)) return null;
      return [...matches(re, s)].map((m) => m[group] ?? null);
    },
    [INTEGERS],
  ),
};
