/**
 * Scalar subqueries — `WHERE x > (SELECT AVG(y) FROM t)`, `SELECT (SELECT MAX(y) FROM t WHERE
 * t.k = s.k) FROM s` — as Flink plans them (Calcite's SubQueryRemoveRule, then its
 * decorrelator): the query joined with the subquery's rows, the value a column of the joined row.
 *
 * - An aggregation without GROUP BY (or HAVING) is one row. Any other subquery may be more rows:
 *   as in Flink, `SINGLE_VALUE` aggregates its value (per correlation key), and a second row is a
 *   data error of that row (operators/aggregate/single-value.ts) that the error policy
 *   dead-letters or makes fatal.
 * - A correlated subquery is decorrelated (decorrelate.ts): grouped by the inner columns its
 *   correlations read, which must be equalities of a subquery column with the outer query
 *   (`t.k = s.k`) — they are the join's keys, as Flink's decorrelator requires.
 * - The join is LEFT (no row: NULL), or INNER where the value is an operand of a comparison in a
 *   WHERE conjunct and is NULL without a row, so no row could pass (Flink's FilterJoinRule).
 * - COUNT of no rows of a correlated subquery is 0, not NULL (the "count bug"): the value is
 *   computed above the join with each COUNT read as `CASE(IS NULL(c), 0, c)`, as Calcite's
 *   decorrelator rewrites it. An uncorrelated subquery is not decorrelated, in Flink either: its
 *   global aggregate has no row until its table has one (a streaming aggregate emits nothing
 *   before its first input), so the value is NULL until then, as in Flink's streaming mode (its
 *   batch mode, where a global aggregate of nothing is one row, gives 0).
 */
import { singleValue } from '../api/aggregates.ts';
import { buildJoin } from '../api/joins.ts';
import type { Stream } from '../api/stream.ts';
import type { Row } from '../core/types.ts';
import { joinedFieldNames, joinedSchema } from '../operators/join/join-spec.ts';
import { call, col, lit } from '../plan/expr-build.ts';
import { compileExpr as compilePlanExpr } from '../plan/expr-compile.ts';
import type { Expr } from '../plan/expr.ts';
import type { SqlExpr, SqlQuery, SqlSelectItem } from './ast.ts';
import { SqlError, atPosition } from './errors.ts';
import { compileExpr, isAggregateCall, type ExprHooks, type Scope } from './expressions.ts';
import { correlationKeys, prune, withExpressions } from './decorrelate.ts';
import { stateTtls, type JoinContext } from './joins.ts';
import type { Relation } from './relation.ts';
import { sqlMapChildren } from './sql-expr-walk.ts';
import { subqueryRows } from './subqueries.ts';

type ScalarQuery = Extract<SqlExpr, { k: 'scalarQuery' }>;

const COMPARISONS = new Set(['=', '<>', '!=', '<', '<=', '>', '>=']);

/** The scalar subqueries that are a direct operand of a comparison (NULL never passes it). */
export function comparedSubqueries(e: SqlExpr): ScalarQuery[] {
  if (e.k === 'bin' && COMPARISONS.has(e.op)) return [e.left, e.right].filter((x): x is ScalarQuery => x.k === 'scalarQuery');
  return [];
}

/**
 * An aggregation without GROUP BY or HAVING taken apart: its aggregate calls as select items, and
 * its value as an expression over them (ids `$agg0`, `$agg1`, …).
 */
interface OneRow {
  readonly query: SqlQuery;
  readonly value: SqlExpr;
  /** Which of the calls are COUNTs (0, not NULL, of no rows). */
  readonly counts: readonly boolean[];
}

function oneRow(q: SqlQuery): OneRow | undefined {
  if (q.k === 'with') {
    const body = oneRow(q.body);
    return body && { ...body, query: { ...q, body: body.query } };
  }
  if (q.k !== 'select' || q.groupBy.length > 0 || q.groupingSets !== undefined || q.having !== undefined || q.items.length !== 1) return undefined;
  const item = q.items[0] as SqlSelectItem;
  const calls: Extract<SqlExpr, { k: 'call' }>[] = [];
  const collect = (e: SqlExpr): SqlExpr => {
    if (isAggregateCall(e)) {
      calls.push(e);
      return { k: 'id', parts: [`$agg${calls.length - 1}`], pos: e.pos };
    }
    return sqlMapChildren(e, collect);
  };
  const value = collect(item.expr);
  if (calls.length === 0) return undefined;
  // An item that is one call keeps its name (Flink's `EXPR$0`); the calls of an expression are named `$aggN`.
  const items: SqlSelectItem[] = isAggregateCall(item.expr) ? [item] : calls.map((c, i) => ({ expr: c, alias: `$agg${i}`, pos: c.pos }));
  return { query: { ...q, items }, value, counts: calls.map((c) => c.name === 'COUNT') };
}

/**
 * Joins `input` with a scalar subquery (see the module documentation) and returns the joined
 * relation (its scope still `input`'s columns) and the subquery's value over its rows. `compared`:
 * the subquery is an operand of a comparison in a WHERE conjunct; `hooks` compile the outer
 * sides of its correlations.
 *
 * @throws SqlError for a subquery of more than one column, or one whose correlations are not
 *   equalities with its columns.
 */
export function scalarSubqueryJoin(input: Relation, s: ScalarQuery, compared: boolean, jc: JoinContext, hooks: ExprHooks = {}): { relation: Relation; value: Expr } {
  const single = oneRow(s.query);
  const rows = subqueryRows(single?.query ?? s.query, true, jc);
  if (single === undefined && rows.items.length !== 1) throw new SqlError(s.pos, `a scalar subquery must select one column (this one selects ${rows.items.length})`);
  const correlation = correlationKeys(input, rows.sub, rows.correlated, hooks);
  const odd = correlation.residual[0];
  if (odd !== undefined) {
    throw new SqlError(odd.pos, 'a correlated scalar subquery can correlate by equalities of its columns with the outer query only (t.k = o.k), as Flink decorrelates it: this condition is not one');
  }
  const left = withExpressions(input, correlation.keys.map((k) => k.outer), s.pos);
  const subKeys = [...new Set(correlation.keys.map((k) => k.sub))];
  const values = withExpressions(rows.sub, rows.items, s.pos);
  let right: Stream<Row>;
  let valueColumns: readonly string[];
  if (single !== undefined) {
    right = prune(values.relation, new Set([...subKeys, ...values.columns])).stream;
    valueColumns = values.columns;
  } else {
    // Flink's `GroupAggregate(select=[SINGLE_VALUE(x) AS $f0])`, per correlation key.
    let name = '$f0';
    for (let n = 1; subKeys.includes(name); n++) name = `$f${n}`;
    const item = values.columns[0] as string;
    const projected = prune(values.relation, new Set([...subKeys, item])).stream;
    right = atPosition(s.pos, () => projected.groupBy(...(subKeys as never[])).aggregate({ [name]: singleValue(item) }) as unknown as Stream<Row>);
    valueColumns = [name];
  }
  const names = joinedFieldNames(left.relation.stream.schema, right.schema).right;
  const joinedName = new Map(right.schema.fields.map((f, i) => [f.name, names[i] as string]));
  const schema = joinedSchema({ joinType: 'LEFT', leftSchema: left.relation.stream.schema, rightSchema: right.schema });
  const correlated = correlation.keys.length > 0;
  const value = single === undefined ? col(joinedName.get(valueColumns[0] as string) as string) : oneRowValue(single, valueColumns.map((c) => joinedName.get(c) as string), schema, correlated);
  const inner = compared && isNullWithoutRow(value, schema);
  const keys = correlation.keys.map((k, i) => ({ left: left.columns[i] as string, right: k.sub }));
  const stream = atPosition(s.pos, () =>
    buildJoin(left.relation.stream, right, { type: inner ? 'INNER' : 'LEFT', keys, ...stateTtls(jc, input, rows.sub), what: 'scalar subquery' }),
  );
  return { relation: { stream, scope: { ...input.scope, schema: stream.schema } }, value };
}

/**
 * The value of a one-row subquery over the joined row: its expression, COUNTs read as 0 without a
 * row when the subquery was decorrelated (`countsAsZero`).
 */
function oneRowValue(single: OneRow, fields: readonly string[], schema: Scope['schema'], countsAsZero: boolean): Expr {
  const scope: Scope = { description: 'scalar subquery', schema, columns: fields.map((field, i) => ({ qualifiers: [], name: `$agg${i}`, field })) };
  const hooks: ExprHooks = {
    replace: (e) => {
      if (e.k !== 'id' || e.parts.length !== 1) return undefined;
      const i = fields.findIndex((_, n) => e.parts[0] === `$agg${n}`);
      if (i < 0 || !countsAsZero || single.counts[i] !== true) return undefined;
      const c = col(fields[i] as string);
      return call('CASE', call('IS NULL', c), lit(0, 'BIGINT'), c);
    },
  };
  return compileExpr(single.value, scope, hooks);
}

/** Whether `value` is NULL when the join found no row (every column of the subquery NULL). */
function isNullWithoutRow(value: Expr, schema: Scope['schema']): boolean {
  try {
    return compilePlanExpr(value, schema, new Map())({}) === null;
  } catch {
    return false;
  }
}
