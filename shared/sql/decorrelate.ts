/**
 * Decorrelating a subquery that refers to the outer query, as Flink's SubQueryDecorrelator (and
 * Calcite's RelDecorrelator behind it) does: its conditions on outer columns are pulled out of it,
 * and the inner columns they read are carried up as extra columns, so the subquery compiles on its
 * own and the pulled-out conditions join it to the outer query.
 *
 * ```
 * x IN (SELECT MAX(e) FROM r WHERE r.f = o.c AND r.d < 3 GROUP BY r.d)
 *   → rows:        SELECT MAX(e), r.f FROM r WHERE r.d < 3 GROUP BY r.d, r.f
 *     correlation: $cor0 = o.c            ($cor0: the carried column r.f)
 * ```
 *
 * - A correlated conjunct of a SELECT's WHERE is pulled out; the columns of the SELECT's FROM it
 *   reads are carried as select items (and GROUP BY keys when the SELECT aggregates: a subquery
 *   evaluated for one outer row sees one value of an equality-correlated column, so grouping by it
 *   splits nothing). As in Flink, an aggregating subquery may correlate only by equalities of its
 *   columns (`r.f = o.c`); any correlation is fine for a plain or DISTINCT one.
 * - A correlated derived table (`FROM (SELECT … WHERE t.k = o.k) t2`) or WITH query is
 *   decorrelated first and its conditions pulled further up, except inside the side of an outer
 *   join that the join pads with NULLs (Flink rejects that too).
 * - What Flink cannot decorrelate is rejected by name: a correlation in a set operation, VALUES,
 *   ORDER BY … LIMIT, a join's ON, the SELECT list, HAVING or a table function's arguments, and
 *   a subquery nested in the subquery that refers to the outermost query.
 */
import type { Row } from '../core/types.ts';
import { joinedFieldNames } from '../operators/join/join-spec.ts';
import { col } from '../plan/expr-build.ts';
import type { Expr } from '../plan/expr.ts';
import type { Stream } from '../api/stream.ts';
import type { SqlExpr, SqlFrom, SqlQuery, SqlSelect, SqlSelectItem } from './ast.ts';
import { SqlError, atPosition, type SqlPosition } from './errors.ts';
import { compileExpr, exprKey, isAggregateCall, resolveColumn, type ExprHooks, type Scope, type ScopeColumn } from './expressions.ts';
import type { JoinContext } from './joins.ts';
import { withCtes } from './query-compose.ts';
import type { Relation } from './relation.ts';
import { sqlAnd, sqlChildren, sqlColumnRefs, sqlConjuncts, sqlMapChildren } from './sql-expr-walk.ts';

const UNKNOWN_NAME = /unknown (column|table or alias)/;

/** Whether an error is a SqlError for a name that is not in scope (an outer query's column). */
export function isUnknownName(error: unknown): error is SqlError {
  return error instanceof SqlError && UNKNOWN_NAME.test(error.message);
}

/** The error `error` names, with `why` after it, at the same position. */
export function withReason(error: SqlError, why: string): SqlError {
  return new SqlError({ line: error.line, column: error.column }, `${error.message.replace(/^line \d+:\d+: /, '')}; ${why}`, { cause: error });
}

/** Where Flink (and so Flambda) lets a subquery refer to the outer query. */
export const WHERE_ONLY =
  'a correlated subquery can refer to the outer query in its WHERE clause only, not in its SELECT list, HAVING, GROUP BY, a join\'s ON, a table function\'s arguments or a subquery nested in it (Flink cannot decorrelate those either)';

/** A subquery's rows without its correlations, and the correlations that join them to the outer query. */
export interface SubqueryRows {
  /**
   * The rows; the scope names the columns the correlations may read: the subquery's FROM columns
   * (a plain SELECT), or its carried columns `$cor0`, `$cor1`, … (a decorrelated one).
   */
  readonly sub: Relation;
  /** The selected expressions over `sub`'s rows. */
  readonly items: readonly Expr[];
  /** Conditions on outer columns, in SQL, over the outer scope and `sub`'s scope. */
  readonly correlated: readonly SqlExpr[];
}

/** The state of one decorrelation: the next placeholder number and the WITH queries in scope. */
interface State {
  readonly jc: JoinContext;
  next: number;
  readonly ctes: Map<string, { readonly query: SqlQuery; readonly columns?: readonly { readonly name: string; readonly pos: SqlPosition }[] }>;
}

/** A query without its correlations: its output ends with one column per carried placeholder. */
interface Pulled {
  readonly query: SqlQuery;
  /** The placeholders (`$cor0`, …) of the carried columns, in output order. */
  readonly carried: readonly string[];
  /** The correlation conjuncts; a carried column is an id named by its placeholder. */
  readonly correlated: readonly SqlExpr[];
}

/**
 * Decorrelates a subquery that refers to the outer query (see the module documentation).
 *
 * @throws SqlError naming what Flink cannot decorrelate, or an unknown column.
 */
export function decorrelate(q: SqlQuery, jc: JoinContext): SubqueryRows {
  const pulled = pull(q, { jc, next: 0, ctes: new Map() }, false);
  let sub: Relation;
  try {
    sub = jc.compileQuery(pulled.query);
  } catch (error) {
    throw isUnknownName(error) ? withReason(error, WHERE_ONLY) : error;
  }
  // The carried columns are the last ones: they were appended to the select items, and neither
  // star expansion nor renaming of duplicates changes the order.
  const fields = sub.stream.schema.fields;
  const first = fields.length - pulled.carried.length;
  const columns: ScopeColumn[] = pulled.carried.map((name, i) => ({ qualifiers: [], name, field: (fields[first + i] as { name: string }).name }));
  return {
    sub: { stream: sub.stream, scope: { description: sub.scope.description, schema: sub.stream.schema, columns } },
    items: fields.slice(0, first).map((f) => col(f.name)),
    correlated: pulled.correlated,
  };
}

function pull(q: SqlQuery, st: State, nested: boolean): Pulled {
  switch (q.k) {
    case 'select':
      return pullSelect(q, st, nested);
    case 'with': {
      // The WITH queries are views while the body is pulled (as when it compiles); one the body
      // reads that refers to the outer query becomes a derived table there (pullFrom).
      const pulled = withCtes(q, st.jc.ctx, () => {
        const saved = new Map(st.ctes);
        for (const cte of q.ctes) st.ctes.set(cte.name, cte);
        try {
          return pull(q.body, st, nested);
        } finally {
          st.ctes.clear();
          for (const [name, cte] of saved) st.ctes.set(name, cte);
        }
      });
      return { ...pulled, query: { ...q, body: pulled.query } };
    }
    default:
      throw new SqlError(
        q.pos,
        `a correlated subquery cannot be ${q.k === 'setOp' ? `a ${q.op}` : q.k === 'values' ? 'VALUES' : 'ORDER BY … LIMIT'} query (Flink cannot decorrelate it either): refer to the outer query in a WHERE clause of a SELECT that reads the ${q.k === 'setOp' ? 'set operation as a derived table' : 'rows'}`,
      );
  }
}

function pullSelect(q: SqlSelect, st: State, nested: boolean): Pulled {
  const from = pullFrom(q.from, st);
  let scope: Scope;
  try {
    scope = st.jc.compileFrom(from.from).scope;
  } catch (error) {
    throw isUnknownName(error) ? withReason(error, WHERE_ONLY) : error;
  }
  const kept: SqlExpr[] = [];
  const correlated: SqlExpr[] = [];
  for (const c of sqlConjuncts(q.where)) {
    if (containsSubquery(c) || sqlColumnRefs(c).every((id) => resolveInner(scope, id) !== undefined)) kept.push(c);
    else correlated.push(c);
  }
  if (correlated.length === 0 && from.correlated.length === 0) return { query: q, carried: [], correlated: [] };
  if (q.groupingSets !== undefined) throw new SqlError(q.pos, 'a correlated subquery cannot use GROUPING SETS, ROLLUP or CUBE (Flink cannot decorrelate it either)');
  // The inner columns the correlations read, each carried once under a placeholder.
  const carried: { placeholder: string; ref: Extract<SqlExpr, { k: 'id' }>; field: string }[] = [];
  const carry = (ref: Extract<SqlExpr, { k: 'id' }>, field: string, rest: readonly string[]): SqlExpr => {
    let entry = carried.find((c) => c.field === field);
    if (entry === undefined) {
      entry = { placeholder: `$cor${st.next++}`, ref: { ...ref, parts: ref.parts.slice(0, ref.parts.length - rest.length) }, field };
      carried.push(entry);
    }
    return { k: 'id', parts: [entry.placeholder, ...rest], pos: ref.pos };
  };
  const conditions = [
    ...correlated.map((c) =>
      mapIds(c, (id) => {
        const inner = resolveInner(scope, id);
        return inner === undefined ? id : carry(id, inner.column.field, inner.rest);
      }),
    ),
    // A derived table's conditions name its carried columns by their placeholders; other names are outer.
    ...from.correlated.map((c) =>
      mapIds(c, (id) => {
        if (!from.placeholders.has(id.parts[0] as string)) return id;
        const column = resolveColumn(scope, id.parts.slice(0, 1), id.pos);
        return carry({ ...id, parts: id.parts.slice(0, 1) }, column.field, id.parts.slice(1));
      }),
    ),
  ];
  const grouped = q.groupBy.length > 0 || q.items.some((i) => containsAggregate(i.expr));
  if (grouped) {
    // Grouping by a carried column splits nothing only when the correlation fixes its value.
    const placeholders = new Set(carried.map((c) => c.placeholder));
    const odd = conditions.find((c) => !isCarriedEquality(c, placeholders));
    if (odd !== undefined) {
      throw new SqlError(odd.pos, 'a correlated subquery that aggregates can correlate by equalities of its columns with the outer query only (t.k = o.k), as in Flink: this condition is not one');
    }
  }
  // `*` names the columns of the FROM the query wrote, not those its derived tables now carry.
  const own = from.placeholders.size === 0 ? q.items : q.items.flatMap((item) => (item.expr.k === 'star' ? expandStar(item.expr, scope, from.placeholders) : [item]));
  const items = [...own, ...carried.map((c) => ({ expr: c.ref as SqlExpr, ...(nested ? { alias: c.placeholder } : {}), pos: c.ref.pos }))];
  const groupBy = grouped ? [...q.groupBy, ...carried.map((c) => c.ref as SqlExpr).filter((r) => !q.groupBy.some((g) => exprKey(g) === exprKey(r)))] : q.groupBy;
  const where = sqlAnd(kept);
  const { where: _dropped, ...rest } = q;
  const query: SqlSelect = { ...rest, from: from.from, items, groupBy, ...(where !== undefined ? { where } : {}) };
  return { query, carried: carried.map((c) => c.placeholder), correlated: conditions };
}

/** A FROM item with its correlated derived tables and WITH queries decorrelated. */
interface PulledFrom {
  readonly from: SqlFrom;
  readonly correlated: readonly SqlExpr[];
  /** The placeholders the derived tables carry. */
  readonly placeholders: ReadonlySet<string>;
}

const NONE: Omit<PulledFrom, 'from'> = { correlated: [], placeholders: new Set() };

function pullFrom(from: SqlFrom, st: State): PulledFrom {
  switch (from.k) {
    case 'table': {
      const cte = st.ctes.get(from.name);
      if (cte === undefined) return { from, ...NONE };
      const derived: Extract<SqlFrom, { k: 'subquery' }> = {
        k: 'subquery',
        query: cte.query,
        alias: from.alias ?? from.name,
        ...(from.columns ?? cte.columns ? { columns: from.columns ?? cte.columns } : {}),
        pos: from.pos,
      };
      const pulled = pullDerived(derived, st);
      return pulled.correlated.length === 0 ? { from, ...NONE } : pulled;
    }
    case 'subquery':
      return pullDerived(from, st);
    case 'join': {
      if (from.systemTime !== undefined) return { from, ...NONE };
      const left = pullFrom(from.left, st);
      const right = pullFrom(from.right, st);
      const padded = (from.joinType === 'RIGHT' || from.joinType === 'FULL') && left.correlated.length > 0 ? from.left : (from.joinType === 'LEFT' || from.joinType === 'FULL') && right.correlated.length > 0 ? from.right : undefined;
      if (padded !== undefined) {
        throw new SqlError(padded.pos, `a subquery correlated inside the side of a ${from.joinType} JOIN that the join pads with NULLs is not supported (Flink cannot decorrelate it either)`);
      }
      return {
        from: { ...from, left: left.from, right: right.from },
        correlated: [...left.correlated, ...right.correlated],
        placeholders: new Set([...left.placeholders, ...right.placeholders]),
      };
    }
    default:
      return { from, ...NONE };
  }
}

function pullDerived(derived: Extract<SqlFrom, { k: 'subquery' }>, st: State): PulledFrom {
  try {
    st.jc.compileQuery(derived.query);
    return { from: derived, ...NONE };
  } catch (error) {
    if (!isUnknownName(error)) throw error;
  }
  const pulled = pull(derived.query, st, true);
  if (pulled.carried.length === 0) return { from: derived, ...NONE };
  // An alias column list (`AS t (a, b)`) names the columns by position: the carried ones keep their placeholders.
  const columns = derived.columns ? [...derived.columns, ...pulled.carried.map((name) => ({ name, pos: derived.pos }))] : undefined;
  return { from: { ...derived, query: pulled.query, ...(columns ? { columns } : {}) }, correlated: pulled.correlated, placeholders: new Set(pulled.carried) };
}

/** The select items `*` (or `t.*`) stands for, without the placeholder columns of correlated derived tables. */
function expandStar(star: Extract<SqlExpr, { k: 'star' }>, scope: Scope, placeholders: ReadonlySet<string>): SqlSelectItem[] {
  const columns = scope.columns.filter((c) => !c.proctime && !placeholders.has(c.name) && (star.qualifier === undefined ? !c.qualifiedOnly : c.qualifiers.includes(star.qualifier)));
  return columns.map((c) => ({ expr: { k: 'id', parts: c.qualifiers[0] !== undefined ? [c.qualifiers[0], c.name] : [c.name], pos: star.pos }, pos: star.pos }));
}

/** The inner column an id names (and the field accesses after it), or undefined for an outer one. */
function resolveInner(scope: Scope, id: Extract<SqlExpr, { k: 'id' }>): { column: ScopeColumn; rest: readonly string[] } | undefined {
  for (let n = Math.min(2, id.parts.length); n >= 1; n--) {
    try {
      return { column: resolveColumn(scope, id.parts.slice(0, n), id.pos), rest: id.parts.slice(n) };
    } catch (error) {
      if (!isUnknownName(error)) throw error;
    }
  }
  return undefined;
}

/** `$corN = outer` (either way round): a carried column equal to an expression of outer columns only. */
function isCarriedEquality(c: SqlExpr, placeholders: ReadonlySet<string>): boolean {
  if (c.k !== 'bin' || c.op !== '=') return false;
  const carriedColumn = (e: SqlExpr): boolean => e.k === 'id' && e.parts.length === 1 && placeholders.has(e.parts[0] as string);
  const outerOnly = (e: SqlExpr): boolean => sqlColumnRefs(e).every((id) => !placeholders.has(id.parts[0] as string));
  return (carriedColumn(c.left) && outerOnly(c.right)) || (carriedColumn(c.right) && outerOnly(c.left));
}

/** Whether an expression holds a subquery (`(SELECT …)`, `IN (SELECT …)`, `EXISTS`), not looking into subqueries. */
export function containsSubquery(e: SqlExpr): boolean {
  if (e.k === 'scalarQuery' || e.k === 'inQuery' || e.k === 'exists') return true;
  return sqlChildren(e).some(containsSubquery);
}

function containsAggregate(e: SqlExpr): boolean {
  return isAggregateCall(e) || sqlChildren(e).some(containsAggregate);
}

/** `e` with every column reference replaced by `f` of it (a WHERE conjunct without subqueries). */
function mapIds(e: SqlExpr, f: (id: Extract<SqlExpr, { k: 'id' }>) => SqlExpr): SqlExpr {
  return e.k === 'id' ? f(e) : sqlMapChildren(e, (child) => mapIds(child, f));
}

/** A correlation scope: the outer query's columns and a subquery's, with where each subquery column lives. */
export type CorrelationScope = Scope & { readonly subColumns: ReadonlyMap<ScopeColumn, string> };

/**
 * The columns a correlated condition sees: the subquery's first (an unqualified name, or one
 * qualified by a name the subquery uses, means the subquery's column, as SQL scoping says), then
 * the outer query's, under the names the joined row gives them.
 */
export function correlationScope(outer: Relation, sub: Relation): CorrelationScope {
  const names = joinedFieldNames(outer.stream.schema, sub.stream.schema).right;
  const joinedName = new Map(sub.stream.schema.fields.map((f, i) => [f.name, names[i] as string]));
  const subColumns = new Map<ScopeColumn, string>();
  const inner = sub.scope.columns.map((c) => {
    const column: ScopeColumn = { ...c, field: joinedName.get(c.field) ?? c.field };
    subColumns.set(column, c.field);
    return column;
  });
  const innerNames = new Set(sub.scope.columns.map((c) => c.name.toLowerCase()));
  const innerQualifiers = new Set(sub.scope.columns.flatMap((c) => c.qualifiers.map((q) => q.toLowerCase())));
  const outerColumns = outer.scope.columns.map((c): ScopeColumn => {
    if (!innerNames.has(c.name.toLowerCase())) return c;
    return { ...c, qualifiedOnly: true, qualifiers: c.qualifiers.filter((q) => !innerQualifiers.has(q.toLowerCase())) };
  });
  const schema = { fields: [...outer.stream.schema.fields, ...sub.stream.schema.fields.map((f) => ({ ...f, name: joinedName.get(f.name) ?? f.name }))] };
  return { description: `${sub.scope.description} correlated with ${outer.scope.description}`, schema, columns: [...outerColumns, ...inner], subColumns };
}

/** A correlation that is an equi-join key: an expression of the outer row equal to a subquery column. */
export interface CorrelationKey {
  /** Over the outer relation's rows. */
  readonly outer: Expr;
  /** The subquery's column. */
  readonly sub: string;
}

/**
 * Splits correlations into equi-join keys (`sub.col = outer expression`, either way round; the
 * outer side compiled with `hooks`) and the rest, which a join can only test row by row.
 */
export function correlationKeys(outer: Relation, sub: Relation, correlated: readonly SqlExpr[], hooks: ExprHooks = {}): { keys: CorrelationKey[]; residual: SqlExpr[] } {
  const scope = correlationScope(outer, sub);
  const keys: CorrelationKey[] = [];
  const residual: SqlExpr[] = [];
  const subColumn = (e: SqlExpr): string | undefined => {
    if (e.k !== 'id') return undefined;
    const c = resolveColumn(scope, e.parts, e.pos);
    return c.proctime ? undefined : scope.subColumns.get(c);
  };
  const outerOnly = (e: SqlExpr): boolean => sqlColumnRefs(e).every((id) => !scope.subColumns.has(resolveColumn(scope, id.parts, id.pos))) && !containsSubquery(e);
  for (const c of correlated) {
    const pair = c.k === 'bin' && c.op === '=' ? ([[c.left, c.right], [c.right, c.left]] as const).find(([s, o]) => subColumn(s) !== undefined && outerOnly(o)) : undefined;
    if (pair === undefined) {
      residual.push(c);
      continue;
    }
    const outerExpr = compileExpr(pair[1], scope, hooks);
    // Compiled in the correlation scope, an outer column reads the same field as in the outer relation.
    keys.push({ outer: outerExpr, sub: subColumn(pair[0]) as string });
  }
  return { keys, residual };
}

/** A relation with expressions as columns: plain column references are used as they are, others projected as `$fN`. */
export function withExpressions(r: Relation, exprs: readonly Expr[], pos: SqlPosition): { relation: Relation; columns: string[]; added: string[] } {
  const fields = r.stream.schema.fields;
  const added: { name: string; expr: Expr }[] = [];
  const columns = exprs.map((x) => {
    if (x.kind === 'ref') return x.name;
    const name = `$f${fields.length + added.length}`;
    added.push({ name, expr: x });
    return name;
  });
  if (added.length === 0) return { relation: r, columns, added: [] };
  const stream = atPosition(pos, () => r.stream.calc([...fields.map((f) => ({ name: f.name, expr: col(f.name) as Expr })), ...added]));
  return { relation: { stream, scope: { ...r.scope, schema: stream.schema } }, columns, added: added.map((a) => a.name) };
}

/** `r` projected to the fields in `keep` (in their order), unless it has no others. */
export function prune(r: Relation, keep: ReadonlySet<string>): Relation {
  const fields = r.stream.schema.fields;
  if (fields.every((f) => keep.has(f.name))) return r;
  const stream: Stream<Row> = r.stream.calc(fields.filter((f) => keep.has(f.name)).map((f) => ({ name: f.name, expr: col(f.name) as Expr })));
  return { stream, scope: { ...r.scope, schema: stream.schema, columns: r.scope.columns.filter((c) => keep.has(c.field)) } };
}
