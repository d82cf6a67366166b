/**
 * GROUPING SETS / ROLLUP / CUBE as Flink's semantics define them: the union of one aggregation
 * per grouping set, where the grouping columns a set leaves out are NULL. Compiled as a UNION ALL
 * of one aggregation per set (regular or window aggregation alike), so each keeps its own
 * changelog and state, which is what Flink's Expand + GroupAggregate produce row for row.
 */
import type { SqlExpr, SqlQuery, SqlSelect, SqlSelectItem } from './ast.ts';
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
  if (!sets) return undefined;
  const all = q.groupBy.map(shape);
  const branches = sets.map((set): SqlSelect => {
    const present = new Set(set.map(shape));
    const absent = new Set(all.filter((s) => !present.has(s)));
    const items = q.items.map((item): SqlSelectItem => {
      const expr = nullOut(item.expr, absent);
      const name = implicitName(item);
      return { ...item, expr, ...(name !== undefined ? { alias: name } : {}) };
    });
    const { groupingSets: _sets, ...rest } = q;
    return { ...rest, items, groupBy: set, ...(q.having ? { having: nullOut(q.having, absent) } : {}) };
  });
  let query: SqlQuery = branches[0] as SqlSelect;
  for (const b of branches.slice(1)) query = { k: 'setOp', op: 'UNION', all: true, left: query, right: b, pos: q.pos };
  return query;
}
