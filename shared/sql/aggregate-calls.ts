/**
 * An aggregate call of a query (`SUM(x)`, `LISTAGG(s, ';')`, `STDDEV(x) FILTER (WHERE …)`) →
 * the API's AggregateSpec, for group and window aggregation alike.
 */
import type { AggregateSpec } from '../api/aggregates.ts';
import type { AggFunctionName } from '../operators/aggregate/agg-function.ts';
import type { SqlExpr } from './ast.ts';
import { SqlError } from './errors.ts';
import { compileExpr, type Scope } from './expressions.ts';
import { missingMergeError } from '../api/user-functions.ts';
import { checkUserCall, userAggregate, userAggregateDefinition } from './user-functions.ts';

/** Flink's synonyms: STDDEV is STDDEV_SAMP, VARIANCE is VAR_SAMP. */
const SYNONYMS: Readonly<Record<string, AggFunctionName>> = { STDDEV: 'STDDEV_SAMP', VARIANCE: 'VAR_SAMP' };

/**
 * The spec of aggregate call `e`, its argument and filter compiled against `scope`; `windowType`
 * (TUMBLE, HOP, …) for a call of a window aggregation.
 */
export function aggregateSpecOf(e: Extract<SqlExpr, { k: 'call' }>, scope: Scope, containsAggregate: (e: SqlExpr) => boolean, windowType?: string): AggregateSpec {
  const user = userAggregate(e.name);
  if (user) {
    const missingMerge = windowType === undefined ? undefined : missingMergeError(e.name, userAggregateDefinition(e.name), windowType);
    if (missingMerge !== undefined) throw new SqlError(e.pos, missingMerge);
    // Flink passes every argument to accumulate(acc, a, b, …); DISTINCT keeps each value once.
    if (e.star) throw new SqlError(e.pos, `${e.name}(*) is not valid: an aggregate user function takes its arguments by value`);
    if (e.withinGroup) throw new SqlError(e.pos, `${e.name}(…) WITHIN GROUP (ORDER BY …) is not supported`);
    if (e.distinct && e.args.length !== 1) throw new SqlError(e.pos, `${e.name}(DISTINCT …) of ${e.args.length === 0 ? 'no argument' : 'several arguments'} is not supported yet: DISTINCT takes one argument here`);
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
  const [first, second] = e.args;
  if (e.star && fn !== 'COUNT') throw new SqlError(e.pos, `${e.name}(*) is not valid; only COUNT(*)`);
  if (!e.star && first === undefined) throw new SqlError(e.pos, `${e.name} needs an argument`);
  if (e.withinGroup) throw new SqlError(e.pos, `${e.name}(…) WITHIN GROUP (ORDER BY …) is not supported yet`);
  let separator: string | undefined;
  if (fn === 'LISTAGG' && second !== undefined) {
    if (second.k !== 'str') throw new SqlError(second.pos, "LISTAGG's separator must be a string literal");
    separator = second.value;
  }
  if (e.args.length > (fn === 'LISTAGG' ? 2 : 1)) throw new SqlError(e.pos, `${e.name} takes ${fn === 'LISTAGG' ? 'one or two arguments' : 'one argument'}`);
  if (first && containsAggregate(first)) throw new SqlError(first.pos, 'aggregate calls cannot be nested');
  if (e.distinct && fn !== 'COUNT' && fn !== 'SUM' && fn !== 'MIN' && fn !== 'MAX' && fn !== 'AVG') throw new SqlError(e.pos, `${e.name}(DISTINCT …) is not supported yet`);
  const arg = first ? compileExpr(first, scope) : undefined;
  const filter = e.filter ? compileExpr(e.filter, scope) : undefined;
  return {
    fn,
    ...(arg ? { arg: arg.kind === 'ref' ? arg.name : arg } : {}),
    distinct: e.distinct,
    ...(separator !== undefined ? { separator } : {}),
    ...(filter ? { filter } : {}),
  };
}
