/**
 * Uncorrelated scalar subqueries — `WHERE x > (SELECT AVG(y) FROM t)`, `SELECT (SELECT MAX(y)
 * FROM t) FROM s` — as Flink plans them (Calcite's SubQueryRemoveRule): the query joined with
 * the subquery's one row, without keys (one shard), its value a column of the joined row.
 *
 * - The join is a LEFT join, so an empty subquery gives NULL; where every use is an operand of
 *   a comparison in a WHERE conjunct, NULL could never pass, and Flink's FilterJoinRule makes it
 *   an INNER join — so is it here.
 * - The subquery must be an aggregation without GROUP BY, which is one row (once its input has a
 *   row: a streaming aggregate emits nothing before, as in Flink). Any other subquery may hold
 *   more rows; Flink checks that at run time with its SINGLE_VALUE aggregate, which is not
 *   supported yet, and neither are correlated scalar subqueries: both are rejected by name.
 */
import { buildJoin } from '../api/joins.ts';
import type { Stream } from '../api/stream.ts';
import type { Row } from '../core/types.ts';
import { joinedFieldNames } from '../operators/join/join-spec.ts';
import { col } from '../plan/expr-build.ts';
import type { Expr } from '../plan/expr.ts';
import type { SqlExpr, SqlQuery } from './ast.ts';
import { SqlError, atPosition } from './errors.ts';
import { compileExpr, isAggregateCall, type ExprHooks } from './expressions.ts';
import { stateTtls, type JoinContext } from './joins.ts';
import type { Relation } from './relation.ts';
import { sqlChildren } from './sql-expr-walk.ts';

type ScalarQuery = Extract<SqlExpr, { k: 'scalarQuery' }>;

/** The scalar subqueries in `e` (not inside other subqueries). */
export function scalarSubqueriesOf(e: SqlExpr): ScalarQuery[] {
  if (e.k === 'scalarQuery') return [e];
  return sqlChildren(e).flatMap(scalarSubqueriesOf);
}

const COMPARISONS = new Set(['=', '<>', '!=', '<', '<=', '>', '>=']);

/** The scalar subqueries that are a direct operand of a comparison (NULL never passes it). */
function comparedSubqueries(e: SqlExpr): ScalarQuery[] {
  if (e.k === 'bin' && COMPARISONS.has(e.op)) return [e.left, e.right].filter((x): x is ScalarQuery => x.k === 'scalarQuery');
  return [];
}

/** Whether a subquery is one row: an aggregation without GROUP BY. */
function isOneRow(q: SqlQuery): boolean {
  if (q.k === 'with') return isOneRow(q.body);
  const aggregates = (e: SqlExpr): boolean => isAggregateCall(e) || sqlChildren(e).some(aggregates);
  return q.k === 'select' && q.groupBy.length === 0 && q.groupingSets === undefined && q.items.some((i) => aggregates(i.expr));
}

/**
 * Joins `input` with every scalar subquery of the WHERE conjuncts `conditions` and of the
 * select expressions `items`, then filters by `conditions`. The subqueries' values are columns
 * of the returned relation's rows (not of its scope: `*` does not see them); `hooks` read them
 * where the subqueries stand.
 *
 * @throws SqlError for a subquery of more than one column, one that may be more than one row,
 *   or one that refers to the outer query.
 */
export function joinScalarSubqueries(input: Relation, conditions: readonly SqlExpr[], items: readonly SqlExpr[], jc: JoinContext): { relation: Relation; hooks: ExprHooks } {
  const all = [...conditions, ...items].flatMap(scalarSubqueriesOf);
  const compared = new Set(conditions.flatMap(comparedSubqueries));
  const columns = new Map<SqlExpr, string>();
  let stream = input.stream;
  for (const s of all) {
    const value = compileScalar(s, jc);
    const inner = compared.has(s);
    const left = stream;
    const joined = atPosition(s.pos, () => buildJoin(left, value.stream, { type: inner ? 'INNER' : 'LEFT', keys: [], ...stateTtls(jc, input, value), what: 'scalar subquery' }));
    columns.set(s, joinedFieldNames(left.schema, value.stream.schema).right[0] as string);
    stream = joined;
  }
  const hooks: ExprHooks = {
    replace: (e) => {
      const name = columns.get(e);
      return name === undefined ? undefined : col(name);
    },
  };
  let relation: Relation = { stream, scope: { ...input.scope, schema: stream.schema } };
  for (const c of conditions) {
    const condition: Expr = compileExpr(c, relation.scope, hooks);
    const filtered = atPosition(c.pos, () => relation.stream.filter(condition)) as Stream<Row>;
    relation = { stream: filtered, scope: { ...relation.scope, schema: filtered.schema } };
  }
  return { relation, hooks };
}

/** The subquery of a scalar subquery, compiled on its own; one column, one row. */
function compileScalar(s: ScalarQuery, jc: JoinContext): Relation {
  if (!isOneRow(s.query)) {
    throw new SqlError(
      s.pos,
      'a scalar subquery that may return more than one row is not supported yet (Flink checks it at run time with SINGLE_VALUE): write it as an aggregation without GROUP BY, e.g. (SELECT MAX(y) FROM t)',
    );
  }
  let value: Relation;
  try {
    value = jc.compileQuery(s.query);
  } catch (error) {
    if (error instanceof SqlError && /unknown (column|table or alias)/.test(error.message)) {
      throw new SqlError({ line: error.line, column: error.column }, `${error.message.replace(/^line \d+:\d+: /, '')}; correlated scalar subqueries are not supported yet`);
    }
    throw error;
  }
  const width = value.stream.schema.fields.length;
  if (width !== 1) throw new SqlError(s.pos, `a scalar subquery must select one column (this one selects ${width})`);
  return value;
}
