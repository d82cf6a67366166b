/**
 * Subqueries inside expressions: the scalar subqueries (scalar-subqueries.ts) and the IN / EXISTS
 * values (mark-joins.ts) of WHERE conjuncts, HAVING conjuncts and select items, each joined to the
 * query's rows and read where it stands; and the WHERE / HAVING conjuncts that are IN / EXISTS of
 * their own once NOT is pushed down, which are semi and anti joins (subqueries.ts), as Flink's
 * FlinkSubQueryRemoveRule finds them after Calcite's simplification.
 */
import type { Stream } from '../api/stream.ts';
import type { Row } from '../core/types.ts';
import type { Expr } from '../plan/expr.ts';
import type { SqlExpr } from './ast.ts';
import { atPosition } from './errors.ts';
import { compileExpr, type ExprHooks } from './expressions.ts';
import { containsSubquery } from './decorrelate.ts';
import type { JoinContext } from './joins.ts';
import { markJoin } from './mark-joins.ts';
import type { Relation } from './relation.ts';
import { comparedSubqueries, scalarSubqueryJoin } from './scalar-subqueries.ts';
import { sqlChildren, sqlConjuncts } from './sql-expr-walk.ts';
import { isSubqueryCondition, subqueryJoin } from './subqueries.ts';

export { containsSubquery } from './decorrelate.ts';

type SubqueryNode = Extract<SqlExpr, { k: 'scalarQuery' } | { k: 'inQuery' } | { k: 'exists' }>;

/**
 * The conjuncts of a WHERE or HAVING condition, with NOT pushed down through AND and OR in those
 * that hold IN / EXISTS (De Morgan's laws hold in SQL's three-valued logic) and `p IS TRUE` of
 * such a predicate read as `p`, so that `NOT (a LIKE 'x' OR b NOT IN (…))` gives the conjunct
 * `b IN (…)`, a semi join, as in Flink's plan.
 */
export function subqueryConjuncts(condition: SqlExpr | undefined): SqlExpr[] {
  return sqlConjuncts(condition).flatMap((c) => (holdsInOrExists(c) ? sqlConjuncts(pushNot(c, false)) : [c]));
}

function holdsInOrExists(e: SqlExpr): boolean {
  return e.k === 'inQuery' || e.k === 'exists' || sqlChildren(e).some(holdsInOrExists);
}

function pushNot(e: SqlExpr, negate: boolean): SqlExpr {
  if (e.k === 'not') return pushNot(e.arg, !negate);
  if (e.k === 'bin' && (e.op === 'AND' || e.op === 'OR')) {
    const op = negate ? (e.op === 'AND' ? 'OR' : 'AND') : e.op;
    return { ...e, op, left: pushNot(e.left, negate), right: pushNot(e.right, negate) };
  }
  if (e.k === 'isbool' && e.value && !e.not && isSubqueryCondition(e.expr)) return pushNot(e.expr, negate);
  return negate ? { k: 'not', arg: e, pos: e.pos } : e;
}

/**
 * Applies a WHERE / HAVING conjunct that is IN / EXISTS of its own as a semi or anti join; the
 * subqueries inside its IN operand (`(SELECT MAX(…) …) IN (…)`) are joined first.
 */
export function semiAntiJoin(input: Relation, condition: SqlExpr, jc: JoinContext, hooks: ExprHooks = {}): Relation {
  const e = condition.k === 'not' ? condition.arg : condition;
  if (e.k !== 'inQuery' || !containsSubquery(e.expr)) return subqueryJoin(input, condition, jc, hooks);
  const inner = joinExpressionSubqueries(input, [], [e.expr], jc, hooks);
  return subqueryJoin(inner.relation, condition, jc, inner.hooks);
}

/**
 * Joins every subquery standing in `conditions` (WHERE or HAVING conjuncts) and `items` (select
 * expressions) to `input`, then filters by `conditions`. The subqueries' values are columns of the
 * returned relation's rows, not of its scope (`*` does not see them); the returned hooks read them
 * where the subqueries stand, after `hooks` (an aggregate's calls).
 */
export function joinExpressionSubqueries(input: Relation, conditions: readonly SqlExpr[], items: readonly SqlExpr[], jc: JoinContext, hooks: ExprHooks = {}): { relation: Relation; hooks: ExprHooks } {
  const nodes = [...conditions, ...items].flatMap(subqueriesOf);
  const compared = new Set<SqlExpr>(conditions.flatMap(comparedSubqueries));
  const values = new Map<SqlExpr, Expr>();
  const combined: ExprHooks = { replace: (e) => values.get(e) ?? hooks.replace?.(e) };
  let relation = input;
  for (const node of nodes) {
    const joined = node.k === 'scalarQuery' ? scalarSubqueryJoin(relation, node, compared.has(node), jc, combined) : markJoin(relation, node, jc, combined);
    relation = joined.relation;
    values.set(node, joined.value);
  }
  for (const c of conditions) {
    const condition = compileExpr(c, relation.scope, combined);
    const current = relation;
    const filtered = atPosition(c.pos, () => current.stream.filter(condition)) as Stream<Row>;
    relation = { stream: filtered, scope: { ...current.scope, schema: filtered.schema } };
  }
  return { relation, hooks: combined };
}

/** The subqueries of `e` (not inside other subqueries), inner ones first: an IN's operand may hold one. */
function subqueriesOf(e: SqlExpr): SubqueryNode[] {
  const inner = sqlChildren(e).flatMap(subqueriesOf);
  return e.k === 'scalarQuery' || e.k === 'inQuery' || e.k === 'exists' ? [...inner, e] : inner;
}
