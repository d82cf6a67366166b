/**
 * GROUPING SETS / ROLLUP / CUBE as Flink's semantics define them: the union of one aggregation
 * per grouping set, where the grouping columns a set leaves out are NULL. Compiled as a UNION ALL
 * of one aggregation per set (regular or window aggregation alike), so each keeps its own
 * changelog and state, which is what Flink's Expand + GroupAggregate produce row for row.
 * GROUPING, GROUPING_ID and GROUP_ID are constants within one set, so each branch gets its values.
 */
import type { SqlExpr, SqlQuery, SqlSelect, SqlSelectItem } from './ast.ts';
import { SqlError } from './errors.ts';
import { isAggregateCall } from './expressions.ts';

/** The shape of an expression without positions, to tell equal expressions apart from others. */
function shape(e: SqlExpr): string {
  return JSON.stringify(e, (k, v: unknown) => (k === 'pos' ? undefined : v));
}

/**
 * A NULL of `e`'s type that is valid in an aggregation grouped without `e`:
 * `MIN(CASE WHEN FALSE THEN e END)` (an aggregate over no values is NULL, typed like `e`).
 */
function typedNull(e: SqlExpr): SqlExpr {
  const pos = e.pos;
  const never: SqlExpr = { k: 'case', whens: [[{ k: 'bool', value: false, pos }, e]], pos };
  return { k: 'call', name: 'MIN', args: [never], distinct: false, star: false, pos };
}

/** `e` with the expressions of `absent` (outside aggregate calls) replaced by typed NULLs. */
function nullOut(e: SqlExpr, absent: ReadonlySet<string>): SqlExpr {
  if (absent.has(shape(e))) return typedNull(e);
  if (isAggregateCall(e)) return e;
  const out: Record<string, unknown> = {};
  // Subqueries (`query`) and OVER specs keep their own columns; every other child expression
  // is an SqlExpr, alone, in a list, or in CASE's [when, then] pairs.
  for (const [key, value] of Object.entries(e)) out[key] = key === 'query' || key === 'over' || key === 'pos' ? value : mapChild(value, absent);
  return out as unknown as SqlExpr;
}

function mapChild(v: unknown, absent: ReadonlySet<string>): unknown {
  if (Array.isArray(v)) return v.map((x: unknown) => mapChild(x, absent));
  if (typeof v === 'object' && v !== null && typeof (v as { k?: unknown }).k === 'string') return nullOut(v as SqlExpr, absent);
  return v;
}

/** GROUPING / GROUPING_ID / GROUP_ID: the grouping functions, constants within one grouping set. */
const GROUPING_FUNCTIONS = new Set(['GROUPING', 'GROUPING_ID', 'GROUP_ID']);

function isGroupingCall(e: SqlExpr): e is Extract<SqlExpr, { k: 'call' }> {
  return e.k === 'call' && GROUPING_FUNCTIONS.has(e.name) && e.over === undefined;
}

/** Whether `e` calls a grouping function (outside subqueries). */
function hasGroupingCall(e: SqlExpr): boolean {
  if (isGroupingCall(e)) return true;
  return Object.entries(e).some(([key, value]) => key !== 'query' && key !== 'pos' && childExprs(value).some(hasGroupingCall));
}

function childExprs(v: unknown): SqlExpr[] {
  if (Array.isArray(v)) return v.flatMap(childExprs);
  if (typeof v === 'object' && v !== null && typeof (v as { k?: unknown }).k === 'string') return [v as SqlExpr];
  return [];
}

/**
 * `e` with its grouping function calls replaced by their BIGINT values in the grouping set of
 * the GROUP BY expressions `present` (as Calcite defines them): `GROUPING(a, b, …)` and
 * `GROUPING_ID(…)` are bit vectors, the first argument the most significant bit, a bit 1 when
 * that expression is not grouped in this set (its column is NULL there); `GROUP_ID()` is 0, or
 * n for the n-th repetition of an identical set.
 */
function replaceGrouping(e: SqlExpr, all: readonly string[], present: ReadonlySet<string>, groupId: number): SqlExpr {
  if (isGroupingCall(e)) {
    let value = 0;
    if (e.name === 'GROUP_ID') {
      if (e.args.length > 0) throw new SqlError(e.pos, 'GROUP_ID() takes no arguments');
      value = groupId;
    } else {
      if (e.args.length === 0) throw new SqlError(e.pos, `${e.name} takes one or more grouped expressions`);
      for (const a of e.args) {
        const s = shape(a);
        if (!all.includes(s)) throw new SqlError(a.pos, `the arguments of ${e.name} must be GROUP BY expressions`);
        value = value * 2 + (present.has(s) ? 0 : 1);
      }
    }
    const pos = e.pos;
    return { k: 'cast', expr: { k: 'num', text: String(value), pos }, type: 'BIGINT', pos };
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(e)) out[key] = key === 'query' || key === 'over' || key === 'pos' ? value : mapGrouping(value, all, present, groupId);
  return out as unknown as SqlExpr;
}

function mapGrouping(v: unknown, all: readonly string[], present: ReadonlySet<string>, groupId: number): unknown {
  if (Array.isArray(v)) return v.map((x: unknown) => mapGrouping(x, all, present, groupId));
  if (typeof v === 'object' && v !== null && typeof (v as { k?: unknown }).k === 'string') return replaceGrouping(v as SqlExpr, all, present, groupId);
  return v;
}

/** The SELECT's items and HAVING with the grouping functions evaluated for one set. */
function withGroupingValues(q: SqlSelect, all: readonly string[], present: ReadonlySet<string>, groupId: number): SqlSelect {
  const items = q.items.map((item): SqlSelectItem => {
    const name = implicitName(item);
    return { ...item, expr: replaceGrouping(item.expr, all, present, groupId), ...(name !== undefined ? { alias: name } : {}) };
  });
  return { ...q, items, ...(q.having ? { having: replaceGrouping(q.having, all, present, groupId) } : {}) };
}

/** The name a select item gets when it has no alias: a column's own name. */
function implicitName(item: SqlSelectItem): string | undefined {
  return item.alias ?? (item.expr.k === 'id' ? item.expr.parts[item.expr.parts.length - 1] : undefined);
}

/**
 * The SELECT with grouping sets as a UNION ALL of one SELECT per set, or undefined for a plain
 * GROUP BY (one set of every expression).
 */
export function expandGroupingSetsQuery(q: SqlSelect): SqlQuery | undefined {
  const sets = q.groupingSets;
  const grouping = [...q.items.map((i) => i.expr), ...(q.having ? [q.having] : [])].find(hasGroupingCall);
  if (!sets) {
    if (grouping === undefined) return undefined;
    if (q.groupBy.length === 0) throw new SqlError(grouping.pos, 'GROUPING, GROUPING_ID and GROUP_ID need a GROUP BY');
    // One grouping set of every GROUP BY expression: GROUPING is 0 throughout.
    const all = q.groupBy.map(shape);
    return withGroupingValues(q, all, new Set(all), 0);
  }
  const all = q.groupBy.map(shape);
  const seen: string[] = [];
  const branches = sets.map((set): SqlSelect => {
    const present = new Set(set.map(shape));
    const absent = new Set(all.filter((s) => !present.has(s)));
    const key = JSON.stringify([...present].sort());
    const groupId = seen.filter((k) => k === key).length;
    seen.push(key);
    const valued = withGroupingValues(q, all, present, groupId);
    const items = valued.items.map((item): SqlSelectItem => {
      const expr = nullOut(item.expr, absent);
      const name = implicitName(item);
      return { ...item, expr, ...(name !== undefined ? { alias: name } : {}) };
    });
    const { groupingSets: _sets, ...rest } = q;
    return { ...rest, items, groupBy: set, ...(valued.having ? { having: nullOut(valued.having, absent) } : {}) };
  });
  let query: SqlQuery = branches[0] as SqlSelect;
  for (const b of branches.slice(1)) query = { k: 'setOp', op: 'UNION', all: true, left: query, right: b, pos: q.pos };
  return query;
}
