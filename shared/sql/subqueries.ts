/**
 * Subquery conditions of a WHERE clause → semi and anti joins, decorrelated as Flink's
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
 * - Any other subquery (GROUP BY, DISTINCT, set operations, VALUES, joins, …) is uncorrelated:
 *   it is compiled on its own and joined on its columns.
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
import { compileExpr, isAggregateCall, resolveColumn, type Scope, type ScopeColumn } from './expressions.ts';
import { stateTtls, type JoinContext } from './joins.ts';
import { sqlAnd, sqlChildren, sqlConjuncts } from './sql-expr-walk.ts';
import type { Relation } from './relation.ts';

/** `x [NOT] IN (SELECT …)`, `[NOT] EXISTS (SELECT …)`: a WHERE conjunct that is a semi / anti join. */
export function isSubqueryCondition(e: SqlExpr): boolean {
  const inner = e.k === 'not' ? e.arg : e;
  return inner.k === 'inQuery' || inner.k === 'exists';
}

/** A subquery taken apart: its rows (own conditions applied), its IN columns and its correlations. */
interface Decomposed {
  readonly sub: Relation;
  /** The selected expressions over `sub` (IN only). */
  readonly items: readonly Expr[];
  /** Conditions on outer columns, in SQL. */
  readonly correlated: readonly SqlExpr[];
}

const UNKNOWN_NAME = /unknown (column|table or alias)/;

/**
 * Applies the semi / anti join of a subquery conjunct of the WHERE clause of a query reading
 * `input` (see the module documentation).
 *
 * @throws SqlError for an IN whose sides have different numbers of columns, a subquery this
 *   rewrite does not decorrelate that refers to the outer query, or incomparable keys.
 */
export function subqueryJoin(input: Relation, condition: SqlExpr, jc: JoinContext): Relation {
  const negated = condition.k === 'not';
  const e = condition.k === 'not' ? condition.arg : condition;
  if (e.k !== 'inQuery' && e.k !== 'exists') throw new SqlError(condition.pos, 'internal: not a subquery condition');
  const anti = negated !== (e.k === 'inQuery' && e.not);
  const what = `${anti ? 'NOT ' : ''}${e.k === 'exists' ? 'EXISTS' : 'IN'} subquery`;
  const parts = decompose(e.query, e.k === 'inQuery', jc);
  const outerExprs = e.k === 'inQuery' ? (e.expr.k === 'constructor' && e.expr.type === 'ROW' ? e.expr.args : [e.expr]) : [];
  if (outerExprs.length !== parts.items.length) {
    throw new SqlError(e.pos, `IN compares ${outerExprs.length} column${outerExprs.length === 1 ? '' : 's'} with a subquery of ${parts.items.length} column${parts.items.length === 1 ? '' : 's'}`);
  }
  if (e.k === 'exists' && parts.correlated.length === 0) return joinOneRowOrNone(input, parts.sub, anti, what, e.query, jc);

  // The IN expressions of the outer query: columns, or `$fN` columns projected first.
  const left = withExpressions(input, outerExprs.map((x) => compileExpr(x, input.scope)));
  // Correlations: key pairs and residual conjuncts, over the outer columns and the subquery's.
  const keys: JoinKeyPair[] = [];
  const residual: SqlExpr[] = [];
  const scope0 = correlationScope(left.relation, parts.sub);
  for (const c of parts.correlated) {
    const pair = keyPairOf(c, scope0);
    if (pair) keys.push(pair);
    else residual.push(c);
  }
  // The subquery side: the IN items as columns, pruned to what the join reads.
  const inner = withExpressions(parts.sub, parts.items);
  const residualRefs = residual.flatMap((c) => referencedSubFields(c, correlationScope(left.relation, inner.relation)));
  const right = prune(inner.relation, new Set([...keys.map((k) => k.right), ...inner.columns, ...residualRefs]));
  const names = joinedFieldNames(left.relation.stream.schema, right.stream.schema).right;
  const joinedName = new Map(right.stream.schema.fields.map((f, i) => [f.name, names[i] as string]));
  const scope = correlationScope(left.relation, right);
  const conditions: Expr[] = residual.map((c) => compileExpr(c, scope));
  // The IN pairs: `=` keys; NOT IN's null-aware condition for a pair that may hold NULL.
  left.columns.forEach((l, i) => {
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

/** Whether a SELECT is decorrelated here: one FROM item, WHERE, plain select items. */
function isPlainSelect(q: SqlQuery): q is SqlSelect {
  return q.k === 'select' && q.groupBy.length === 0 && q.having === undefined && !q.distinct && q.from.k !== 'join' && !q.items.some((i) => aggregates(i.expr));
}

/** Whether an expression holds an aggregate call (the subquery is then an aggregation). */
function aggregates(e: SqlExpr): boolean {
  return isAggregateCall(e) || sqlChildren(e).some(aggregates);
}

function decompose(q: SqlQuery, isIn: boolean, jc: JoinContext): Decomposed {
  if (!isPlainSelect(q)) {
    const sub = compileUncorrelated(q, jc);
    return { sub, items: isIn ? sub.stream.schema.fields.map((f) => col(f.name)) : [], correlated: [] };
  }
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

/** A subquery compiled on its own; an outer column in it is named as what it is. */
function compileUncorrelated(q: SqlQuery, jc: JoinContext): Relation {
  try {
    return jc.compileQuery(q);
  } catch (error) {
    if (error instanceof SqlError && UNKNOWN_NAME.test(error.message)) {
      const message = error.message.replace(/^line \d+:\d+: /, '');
      throw new SqlError(
        { line: error.line, column: error.column },
        `${message}; a subquery that refers to the outer query must be SELECT … FROM one table, view, subquery or window TVF [WHERE …] (correlated subqueries with GROUP BY, DISTINCT, joins or set operations are not supported yet)`,
      );
    }
    throw error;
  }
}

/** Whether every column `c` names is a column of `scope` (an own condition of the subquery). */
function resolves(c: SqlExpr, scope: Scope): boolean {
  try {
    compileExpr(c, scope);
    return true;
  } catch (error) {
    if (error instanceof SqlError && UNKNOWN_NAME.test(error.message)) return false;
    throw error;
  }
}

/**
 * The columns a correlated condition sees: the subquery's first (an unqualified name, or one
 * qualified by a name the subquery uses, means the subquery's column, as SQL scoping says), then
 * the outer query's under the names the joined row gives them.
 */
function correlationScope(outer: Relation, sub: Relation): Scope & { readonly subColumns: ReadonlyMap<ScopeColumn, string> } {
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

/** `outer.a = sub.b` (either way round) as a key pair (outer field, subquery field). */
function keyPairOf(c: SqlExpr, scope: ReturnType<typeof correlationScope>): JoinKeyPair | undefined {
  if (c.k !== 'bin' || c.op !== '=' || c.left.k !== 'id' || c.right.k !== 'id') return undefined;
  const a = resolveColumn(scope, c.left.parts, c.left.pos);
  const b = resolveColumn(scope, c.right.parts, c.right.pos);
  if (a.proctime || b.proctime) return undefined;
  const sa = scope.subColumns.get(a);
  const sb = scope.subColumns.get(b);
  if (sa === undefined && sb !== undefined) return { left: a.field, right: sb };
  if (sb === undefined && sa !== undefined) return { left: b.field, right: sa };
  return undefined;
}

/** The subquery fields a correlated condition reads (by their name in the subquery). */
function referencedSubFields(c: SqlExpr, scope: ReturnType<typeof correlationScope>): string[] {
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

/** A relation with expressions as columns: plain column references are used as they are, others projected as `$fN`. */
function withExpressions(r: Relation, exprs: readonly Expr[]): { relation: Relation; columns: string[]; added: string[] } {
  const fields = r.stream.schema.fields;
  const added: { name: string; expr: Expr }[] = [];
  const columns = exprs.map((x) => {
    if (x.kind === 'ref') return x.name;
    const name = `$f${fields.length + added.length}`;
    added.push({ name, expr: x });
    return name;
  });
  if (added.length === 0) return { relation: r, columns, added: [] };
  const stream = r.stream.calc([...fields.map((f) => ({ name: f.name, expr: col(f.name) as Expr })), ...added]);
  return { relation: { stream, scope: { ...r.scope, schema: stream.schema } }, columns, added: added.map((a) => a.name) };
}

/** The semi / anti join's output without the `$fN` columns added to the outer side. */
function dropExpressions(joined: Stream<Row>, input: Relation, added: readonly string[], pos: SqlExpr['pos']): Stream<Row> {
  if (added.length === 0) return joined;
  return atPosition(pos, () => joined.calc(input.stream.schema.fields.map((f) => ({ name: f.name, expr: col(f.name) as Expr }))));
}

/** `r` projected to the fields in `keep` (in their order), unless it has no others. */
function prune(r: Relation, keep: ReadonlySet<string>): Relation {
  const fields = r.stream.schema.fields;
  if (fields.every((f) => keep.has(f.name))) return r;
  const stream = r.stream.calc(fields.filter((f) => keep.has(f.name)).map((f) => ({ name: f.name, expr: col(f.name) as Expr })));
  return { stream, scope: { ...r.scope, schema: stream.schema, columns: r.scope.columns.filter((c) => keep.has(c.field)) } };
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
