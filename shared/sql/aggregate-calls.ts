/**
 * An aggregate call of a query (`SUM(x)`, `LISTAGG(s, ';')`, `STDDEV(x) FILTER (WHERE …)`) →
 * the API's AggregateSpec, for group and window aggregation alike.
 *
 * Arguments beyond the first become what the aggregate operator reads, as Flink's planner
 * projects them: LISTAGG's separator and PERCENTILE's percentages are constants of the call;
 * JSON_ARRAYAGG's value is projected as its JSON text (JSON_STRING, or the text itself for a
 * nested JSON_OBJECT / JSON_ARRAY / JSON_QUERY), JSON_OBJECTAGG's key and value as one
 * ROW(key, JSON text), PERCENTILE's value and frequency as ROW(value, frequency); the ON NULL
 * and RESPECT / IGNORE NULLS clauses are the call's `onNull`.
 */
import type { AggregateSpec } from '../api/aggregates.ts';
import type { AggOptions } from '../operators/aggregate/agg-call.ts';
import type { AggFunctionName } from '../operators/aggregate/agg-function.ts';
import type { Expr } from '../plan/expr.ts';
import { call } from '../plan/expr-build.ts';
import { inferType } from '../plan/expr-types.ts';
import type { SqlExpr } from './ast.ts';
import { SqlError, type SqlPosition } from './errors.ts';
import { compileExpr, type Scope } from './expressions.ts';
import { missingMergeError } from '../api/user-functions.ts';
import { checkUserCall, userAggregate, userAggregateDefinition } from './user-functions.ts';

/** Flink's synonyms: STDDEV is STDDEV_SAMP, VARIANCE is VAR_SAMP. */
const SYNONYMS: Readonly<Record<string, AggFunctionName>> = { STDDEV: 'STDDEV_SAMP', VARIANCE: 'VAR_SAMP' };

/** The aggregates Flink documents with `[ ALL | DISTINCT ]`. */
const DISTINCT_ALLOWED: ReadonlySet<string> = new Set(['COUNT', 'SUM', 'MIN', 'MAX', 'AVG', 'VAR_POP', 'VAR_SAMP', 'STDDEV_POP', 'STDDEV_SAMP', 'COLLECT', 'ARRAY_AGG']);

/** The calls whose value JSON_ARRAYAGG / JSON_OBJECTAGG insert as JSON, not as a string. */
const JSON_CONSTRUCTORS: ReadonlySet<string> = new Set(['JSON_OBJECT', 'JSON_ARRAY', 'JSON_QUERY']);

type CallExpr = Extract<SqlExpr, { k: 'call' }>;

/**
 * The spec of aggregate call `e`, its argument and filter compiled against `scope`; `windowType`
 * (TUMBLE, HOP, …) for a call of a window aggregation.
 */
export function aggregateSpecOf(e: CallExpr, scope: Scope, containsAggregate: (e: SqlExpr) => boolean, windowType?: string): AggregateSpec {
  const user = userAggregate(e.name);
  if (user) {
    const missingMerge = windowType === undefined ? undefined : missingMergeError(e.name, userAggregateDefinition(e.name), windowType);
    if (missingMerge !== undefined) throw new SqlError(e.pos, missingMerge);
    // Flink passes every argument to accumulate(acc, a, b, …); DISTINCT keeps each value (each
    // tuple of values, for several arguments) once.
    if (e.star) throw new SqlError(e.pos, `${e.name}(*) is not valid: an aggregate user function takes its arguments by value`);
    if (e.withinGroup) throw new SqlError(e.pos, `${e.name}(…) WITHIN GROUP (ORDER BY …) is not supported`);
    if (e.distinct && e.args.length === 0) throw new SqlError(e.pos, `${e.name}(DISTINCT) needs an argument`);
    const compiled = e.args.map((a) => {
      if (containsAggregate(a)) throw new SqlError(a.pos, 'aggregate calls cannot be nested');
      return compileExpr(a, scope);
    });
    checkUserCall(user.name, e, user.input, compiled, scope.schema);
    const args = compiled.map((c) => (c.kind === 'ref' ? c.name : c));
    const filter = e.filter ? compileExpr(e.filter, scope) : undefined;
    const [first, ...rest] = args;
    return { fn: 'USER', user, ...(first !== undefined ? { arg: first } : {}), ...(rest.length > 0 ? { extraArgs: rest } : {}), distinct: e.distinct, ...(filter ? { filter } : {}) };
  }
  const fn = SYNONYMS[e.name] ?? (e.name as AggFunctionName);
  const [first] = e.args;
  if (e.star && fn !== 'COUNT') throw new SqlError(e.pos, `${e.name}(*) is not valid; only COUNT(*)`);
  if (!e.star && first === undefined) throw new SqlError(e.pos, `${e.name} needs an argument`);
  if (e.withinGroup) throw new SqlError(e.pos, `${e.name}(…) WITHIN GROUP (ORDER BY …) is not supported yet`);
  for (const a of e.args) if (containsAggregate(a)) throw new SqlError(a.pos, 'aggregate calls cannot be nested');
  if (e.distinct && !DISTINCT_ALLOWED.has(fn)) throw new SqlError(e.pos, `${e.name}(DISTINCT …) is not supported yet`);
  // A rejected row (a duplicate key) must leave the aggregate's state as it was; the group
  // aggregate restores the groups of the batch, the window operators do not yet.
  if (fn === 'JSON_OBJECTAGG' && windowType !== undefined) throw new SqlError(e.pos, 'JSON_OBJECTAGG is supported in GROUP BY aggregation, not yet in window aggregation');
  const { arg, options } = argumentsOf(fn, e, scope);
  const filter = e.filter ? compileExpr(e.filter, scope) : undefined;
  return {
    fn,
    ...(arg ? { arg: arg.kind === 'ref' ? arg.name : arg } : {}),
    distinct: e.distinct,
    ...options,
    ...(filter ? { filter } : {}),
  };
}

/** The call's argument expression (one column to project) and its constant options. */
function argumentsOf(fn: AggFunctionName, e: CallExpr, scope: Scope): { arg?: Expr; options: AggOptions } {
  const plain = e.args.filter((a) => a.k !== 'keyword');
  const clause = e.args.find((a) => a.k === 'keyword');
  const takes = (n: number, what: string): void => {
    if (plain.length > n) throw new SqlError(e.pos, `${e.name} takes ${what}`);
  };
  const onNull = clauseOnNull(e, clause, fn);
  const [first, second, third] = plain;
  const compile = (x: SqlExpr): Expr => compileExpr(x, scope);
  switch (fn) {
    case 'LISTAGG': {
      takes(2, 'one or two arguments');
      if (second !== undefined && second.k !== 'str') throw new SqlError(second.pos, "LISTAGG's separator must be a string literal");
      return { arg: compile(first!), options: second?.k === 'str' ? { separator: second.value } : {} };
    }
    case 'ARRAY_AGG':
      takes(1, 'one argument');
      return { arg: compile(first!), options: onNull };
    case 'JSON_ARRAYAGG':
      takes(1, 'one argument (and NULL ON NULL or ABSENT ON NULL)');
      return { arg: jsonText(first!, scope), options: onNull };
    case 'JSON_OBJECTAGG': {
      if (plain.length !== 2) throw new SqlError(e.pos, 'JSON_OBJECTAGG takes KEY key VALUE value (and NULL ON NULL or ABSENT ON NULL)');
      const key = compile(first!);
      const keyType = inferType(key, scope.schema);
      if (keyType.root !== 'STRING') throw new SqlError(first!.pos, `a JSON_OBJECTAGG key must be a STRING, not ${keyType.root}`);
      return { arg: call('ROW', key, jsonText(second!, scope)), options: onNull };
    }
    case 'PERCENTILE': {
      if (plain.length < 2) throw new SqlError(e.pos, 'PERCENTILE takes a value, a percentage (or an ARRAY of them) and an optional frequency');
      takes(3, 'a value, a percentage (or an ARRAY of them) and an optional frequency');
      const percentages = percentagesOf(second!);
      const value = compile(first!);
      if (third === undefined) return { arg: value, options: { percentages } };
      const frequency = compile(third);
      const frequencyType = inferType(frequency, scope.schema).root;
      if (frequencyType !== 'INT' && frequencyType !== 'BIGINT') throw new SqlError(third.pos, `PERCENTILE's frequency must be an integer, not ${frequencyType}`);
      return { arg: call('ROW', value, frequency), options: { percentages } };
    }
    default:
      takes(1, 'one argument');
      return { ...(first ? { arg: compile(first) } : {}), options: {} };
  }
}

/** The NULL treatment of ARRAY_AGG (RESPECT / IGNORE NULLS) or JSON_*AGG (NULL / ABSENT ON NULL), if written. */
function clauseOnNull(e: CallExpr, clause: SqlExpr | undefined, fn: AggFunctionName): AggOptions {
  if (clause?.k !== 'keyword') return {};
  const fits = fn === 'ARRAY_AGG' ? clause.word.endsWith(' NULLS') : (fn === 'JSON_ARRAYAGG' || fn === 'JSON_OBJECTAGG') && clause.word.endsWith(' ON NULL');
  if (!fits) throw new SqlError(clause.pos, `${clause.word} does not apply to ${e.name}`);
  return { onNull: clause.word === 'IGNORE NULLS' || clause.word === 'ABSENT ON NULL' ? 'ABSENT' : 'NULL' };
}

/** A value as JSON text for JSON_ARRAYAGG / JSON_OBJECTAGG: nested JSON functions as they are, anything else through JSON_STRING. */
function jsonText(x: SqlExpr, scope: Scope): Expr {
  const value = compileExpr(x, scope);
  return x.k === 'call' && JSON_CONSTRUCTORS.has(x.name) ? value : call('JSON_STRING', value);
}

/** PERCENTILE's percentage: a numeric literal in [0, 1], or an ARRAY[…] of them. */
function percentagesOf(x: SqlExpr): number | number[] {
  if (x.k === 'constructor' && x.type === 'ARRAY') return x.args.map((a) => percentage(a, a.pos));
  return percentage(x, x.pos);
}

function percentage(x: SqlExpr, pos: SqlPosition): number {
  const text = x.k === 'num' ? x.text : x.k === 'neg' && x.arg.k === 'num' ? `-${x.arg.text}` : undefined;
  if (text === undefined) throw new SqlError(pos, "PERCENTILE's percentage must be a numeric literal between 0.0 and 1.0 (or an ARRAY of them)");
  const p = Number(text);
  if (!(p >= 0 && p <= 1)) throw new SqlError(pos, `Percentage of PERCENTILE should be between [0.0, 1.0], but was '${text}'.`);
  return p;
}
