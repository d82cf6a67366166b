/**
 * Subquery conditions of a WHERE (or HAVING) clause → semi and anti joins, decorrelated as Flink's
 * FlinkSubQueryRemoveRule (after Calcite's SubQueryRemoveRule) does:
 *
 * - `[NOT] EXISTS (SELECT … FROM t WHERE …)`: the subquery's own conditions filter `t`; its
 *   conditions on outer columns (correlations) become the join condition — `outer.a = t.b`
 *   equalities its keys, anything else (`outer.a < t.b`) its residual condition. EXISTS is a
 *   SEMI join, NOT EXISTS an ANTI join. Without any correlation the subquery is one row or none,
 *   as Flink plans it: `GroupAggregate(MIN(true) AS m)` filtered on `m IS NOT NULL`, joined with
 *   no keys.
 * - `x [NOT] IN (SELECT y FROM t WHERE …)`, also `(a, b) IN (SELECT c, d …)` and expressions on
 *   either side (projected as `$fN` first, as Flink does): the pairs `x = y` join the correlations.
 *   NOT IN has SQL's three-valued logic: `x NOT IN S` is TRUE only when every `x = y` is FALSE,
 *   so a NULL on either side matches every row — the null-aware ANTI join condition
 *   `OR(IS NULL(x), IS NULL(y), =(x, y))` of Flink's plan for a nullable pair (a pair of NOT NULL
 *   columns stays a key). A NULL in the subquery's result thus makes NOT IN never TRUE, and a
 *   NULL `x` passes only an empty subquery.
 * - Any other subquery (GROUP BY, DISTINCT, set operations, VALUES, joins, …) is compiled on its
 *   own and joined on its columns; one that refers to the outer query is decorrelated first
 *   (decorrelate.ts: GROUP BY and DISTINCT keep the correlated columns, joins and correlated
 *   derived tables pass them up), as Flink's SubQueryDecorrelator does.
 * - A correlation `t.b = outer expression` is a join key (the expression projected as `$fN`
 *   first, as Flink does); any other correlation is part of the join condition.
 *
 * The subquery side is projected to the columns the join reads (Flink prunes them too), so its
 * state holds only those. The join is the regular SEMI / ANTI join, or a window join when both
 * sides are windowed alike and correlated on both window columns (api/joins.ts decides).
 */
import { buildJoin, type JoinKeyPair } from '../api/joins.ts';
import type { Stream } from '../api/stream.ts';
import { min } from '../api/aggregates.ts';
import type { LogicalType, Row } from '../core/types.ts';
import { joinedFieldNames, keyTypeProblem } from '../operators/join/join-spec.ts';
import { call, col, lit } from '../plan/expr-build.ts';
import type { Expr } from '../plan/expr.ts';
import type { SqlExpr, SqlQuery, SqlSelect } from './ast.ts';
import { SqlError, atPosition } from './errors.ts';
import { compileExpr, isAggregateCall, type ExprHooks, type Scope } from './expressions.ts';
import { containsSubquery, correlationKeys, correlationScope, decorrelate, isUnknownName, prune, withExpressions, type CorrelationScope, type SubqueryRows } from './decorrelate.ts';
import { stateTtls, type JoinContext } from './joins.ts';
import { sqlAnd, sqlChildren, sqlConjuncts } from './sql-expr-walk.ts';
import type { Relation } from './relation.ts';

/** `x [NOT] IN (SELECT …)`, `[NOT] EXISTS (SELECT …)`: a WHERE conjunct that is a semi / anti join. */
export function isSubqueryCondition(e: SqlExpr): boolean {
  const inner = e.k === 'not' ? e.arg : e;
  return inner.k === 'inQuery' || inner.k === 'exists';
}

/**
 * Applies the semi / anti join of a subquery conjunct of the WHERE (or HAVING) clause of a query
 * reading `input` (see the module documentation); `hooks` compile the outer side's expressions
 * (an aggregate's calls in HAVING, subqueries already joined).
 *
 * @throws SqlError for an IN whose sides have different numbers of columns, a subquery Flink
 *   cannot decorrelate, or incomparable keys.
 */
export function subqueryJoin(input: Relation, condition: SqlExpr, jc: JoinContext, hooks: ExprHooks = {}): Relation {
  const negated = condition.k === 'not';
  const e = condition.k === 'not' ? condition.arg : condition;
  if (e.k !== 'inQuery' && e.k !== 'exists') throw new SqlError(condition.pos, 'internal: not a subquery condition');
  const anti = negated !== (e.k === 'inQuery' && e.not);
  const what = `${anti ? 'NOT ' : ''}${e.k === 'exists' ? 'EXISTS' : 'IN'} subquery`;
  const parts = subqueryRows(e.query, e.k === 'inQuery', jc);
  const outerExprs = e.k === 'inQuery' ? inOperands(e) : [];
  if (outerExprs.length !== parts.items.length) {
    throw new SqlError(e.pos, `IN compares ${outerExprs.length} column${outerExprs.length === 1 ? '' : 's'} with a subquery of ${parts.items.length} column${parts.items.length === 1 ? '' : 's'}`);
  }
  if (e.k === 'exists' && parts.correlated.length === 0) return joinOneRowOrNone(input, parts.sub, anti, what, e.query, jc);

  // Correlations: keys (the outer side a column, or an expression projected as `$fN`) and residual conjuncts.
  const correlation = correlationKeys(input, parts.sub, parts.correlated, hooks);
  const residual = correlation.residual;
  // The IN expressions and the keys' outer expressions as columns of the outer rows.
  const left = withExpressions(input, [...outerExprs.map((x) => compileExpr(x, input.scope, hooks)), ...correlation.keys.map((k) => k.outer)], e.query.pos);
  const inColumns = left.columns.slice(0, outerExprs.length);
  const keys: JoinKeyPair[] = correlation.keys.map((k, i) => ({ left: left.columns[outerExprs.length + i] as string, right: k.sub }));
  // The subquery side: the IN items as columns, pruned to what the join reads.
  const inner = withExpressions(parts.sub, parts.items, e.query.pos);
  const residualRefs = residual.flatMap((c) => referencedSubFields(c, correlationScope(left.relation, inner.relation)));
  const right = prune(inner.relation, new Set([...keys.map((k) => k.right), ...inner.columns, ...residualRefs]));
  const names = joinedFieldNames(left.relation.stream.schema, right.stream.schema).right;
  const joinedName = new Map(right.stream.schema.fields.map((f, i) => [f.name, names[i] as string]));
  const scope = correlationScope(left.relation, right);
  const conditions: Expr[] = residual.map((c) => compileExpr(c, scope));
  // The IN pairs: `=` keys; NOT IN's null-aware condition for a pair that may hold NULL.
  inColumns.forEach((l, i) => {
    const r = inner.columns[i] as string;
    const lt = fieldType(left.relation, l);
    const rt = fieldType(right, r);
    const nullable = lt.nullable || rt.nullable;
    if (!(anti && nullable) && keyTypeProblem(lt, rt) === undefined) {
      keys.push({ left: l, right: r });
      return;
    }
    const equal = call('=', col(l), col(joinedName.get(r) as string));
    const nulls = [...(lt.nullable ? [call('IS NULL', col(l))] : []), ...(rt.nullable ? [call('IS NULL', col(joinedName.get(r) as string))] : [])];
    conditions.push(anti && nulls.length > 0 ? call('OR', ...nulls, equal) : equal);
  });
  const joined = atPosition(e.query.pos, () =>
    buildJoin(left.relation.stream, right.stream, {
      type: anti ? 'ANTI' : 'SEMI',
      keys,
      ...(conditions.length > 0 ? { condition: conditions.length === 1 ? (conditions[0] as Expr) : call('AND', ...conditions) } : {}),
      ...stateTtls(jc, input, parts.sub),
      what,
    }),
  );
  const stream = dropExpressions(joined, input, left.added, e.query.pos);
  return { stream, scope: { ...input.scope, schema: stream.schema } };
}

/** The outer expressions of `x IN (…)` / `(a, b) IN (…)`. */
export function inOperands(e: Extract<SqlExpr, { k: 'inQuery' }>): readonly SqlExpr[] {
  return e.expr.k === 'constructor' && e.expr.type === 'ROW' ? e.expr.args : [e.expr];
}

/**
 * A subquery's rows, selected items (`isIn`) and correlations: a plain SELECT is taken apart
 * here (its own conditions filter its FROM, its conditions on outer columns are the
 * correlations); any other subquery is compiled on its own, or decorrelated (decorrelate.ts)
 * when it refers to the outer query.
 */
export function subqueryRows(q: SqlQuery, isIn: boolean, jc: JoinContext): SubqueryRows {
  if (isPlainSelect(q)) {
    try {
      return plainRows(q, isIn, jc);
    } catch (error) {
      // A correlated derived table in FROM, or an outer column where only a decorrelated subquery may have one.
      if (!isUnknownName(error)) throw error;
    }
    return decorrelated(q, isIn, jc);
  }
  let sub: Relation;
  try {
    sub = jc.compileQuery(q);
  } catch (error) {
    if (!isUnknownName(error)) throw error;
    return decorrelated(q, isIn, jc);
  }
  return { sub, items: isIn ? sub.stream.schema.fields.map((f) => col(f.name)) : [], correlated: [] };
}

function decorrelated(q: SqlQuery, isIn: boolean, jc: JoinContext): SubqueryRows {
  const rows = decorrelate(q, jc);
  return isIn ? rows : { ...rows, items: [] };
}

/**
 * Whether a SELECT is taken apart here: one FROM item, WHERE conjuncts that are conditions or
 * IN / EXISTS subqueries of their own, plain select items.
 */
function isPlainSelect(q: SqlQuery): q is SqlSelect {
  return (
    q.k === 'select' &&
    q.groupBy.length === 0 &&
    q.having === undefined &&
    !q.distinct &&
    q.from.k !== 'join' &&
    !q.items.some((i) => aggregates(i.expr) || containsSubquery(i.expr)) &&
    !sqlConjuncts(q.where).some((c) => !isSubqueryCondition(c) && containsSubquery(c))
  );
}

/** Whether an expression holds an aggregate call (the subquery is then an aggregation). */
function aggregates(e: SqlExpr): boolean {
  return isAggregateCall(e) || sqlChildren(e).some(aggregates);
}

function plainRows(q: SqlSelect, isIn: boolean, jc: JoinContext): SubqueryRows {
  let sub = jc.compileFrom(q.from);
  const own: SqlExpr[] = [];
  const nested: SqlExpr[] = [];
  const correlated: SqlExpr[] = [];
  for (const c of sqlConjuncts(q.where)) {
    if (isSubqueryCondition(c)) nested.push(c);
    else if (resolves(c, sub.scope)) own.push(c);
    else correlated.push(c);
  }
  if (own.length > 0) sub = jc.filter(sub, sqlAnd(own) as SqlExpr);
  // A subquery in the subquery's WHERE is a semi / anti join of the subquery's rows (uncorrelated with the outer query).
  for (const c of nested) sub = subqueryJoin(sub, c, jc);
  if (!isIn) return { sub, items: [], correlated };
  const items = q.items.flatMap((item) => {
    if (item.expr.k !== 'star') return [compileExpr(item.expr, sub.scope)];
    const qualifier = item.expr.qualifier;
    return sub.scope.columns.filter((c) => !c.proctime && (qualifier === undefined ? !c.qualifiedOnly : c.qualifiers.includes(qualifier))).map((c) => col(c.field));
  });
  return { sub, items, correlated };
}

/** Whether every column `c` names is a column of `scope` (an own condition of the subquery). */
function resolves(c: SqlExpr, scope: Scope): boolean {
  try {
    compileExpr(c, scope);
    return true;
  } catch (error) {
    if (isUnknownName(error)) return false;
    throw error;
  }
}

/** The subquery fields a correlated condition reads (by their name in the subquery). */
function referencedSubFields(c: SqlExpr, scope: CorrelationScope): string[] {
  const joined = new Map([...scope.subColumns].map(([column, field]) => [column.field, field]));
  const refs = (e: Expr): string[] => {
    switch (e.kind) {
      case 'ref':
        return [e.name];
      case 'call':
        return e.args.flatMap(refs);
      case 'cast':
        return refs(e.expr);
      case 'udf':
        // A function of the whole row: every column.
        return [...joined.keys()];
      default:
        return [];
    }
  };
  return refs(compileExpr(c, scope)).flatMap((name) => (joined.has(name) ? [joined.get(name) as string] : []));
}

/** The semi / anti join's output without the `$fN` columns added to the outer side. */
function dropExpressions(joined: Stream<Row>, input: Relation, added: readonly string[], pos: SqlExpr['pos']): Stream<Row> {
  if (added.length === 0) return joined;
  return atPosition(pos, () => joined.calc(input.stream.schema.fields.map((f) => ({ name: f.name, expr: col(f.name) as Expr }))));
}

function fieldType(r: Relation, name: string): LogicalType {
  const field = r.stream.schema.fields.find((f) => f.name === name);
  if (!field) throw new SqlError({ line: 1, column: 1 }, `internal: no column '${name}'`);
  return field.type;
}

/**
 * `[NOT] EXISTS (uncorrelated subquery)`: a join with no keys against one row while the subquery
 * has rows and none while it has none — Flink's `GroupAggregate(select=[MIN(i) AS m])` over
 * `true AS i`, filtered on `m IS NOT NULL`.
 */
function joinOneRowOrNone(input: Relation, sub: Relation, anti: boolean, what: string, q: SqlQuery, jc: JoinContext): Relation {
  const stream = atPosition(q.pos, () => {
    const marked = sub.stream.calc([{ name: 'i', expr: lit(true) }]);
    const aggregated = marked.groupBy().aggregate({ m: min('i') }) as unknown as Stream<Row>;
    const someRow = aggregated.calc([{ name: 'm', expr: col('m') }], call('IS NOT NULL', col('m')));
    return buildJoin(input.stream, someRow, { type: anti ? 'ANTI' : 'SEMI', keys: [], ...stateTtls(jc, input, sub), what });
  });
  return { stream, scope: { ...input.scope, schema: stream.schema } };
}
