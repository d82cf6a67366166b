/**
 * SELECT → plan nodes, built through the TypeScript API's Stream so the SQL and API versions of
 * a query produce the same nodes (and the same job graph). Flink's rewrite rules are applied on
 * the way: ROW_NUMBER/RANK/DENSE_RANK in a subquery filtered on the rank → Rank (window Top-N when
 * partitioned by window_start, window_end), ROW_NUMBER … = 1 by a rowtime column → Deduplicate,
 * `JOIN … FOR SYSTEM_TIME AS OF` → LookupJoin.
 */
import { aggregateSpecOf } from './aggregate-calls.ts';
import { compileCorrelateAlone } from './correlate.ts';
import { expandGroupingSetsQuery } from './grouping-sets.ts';
import { withL2 } from '../api/lookup-table.ts';
import type { AggregateSpec } from '../api/aggregates.ts';
import type { Stream } from '../api/stream.ts';
import { Stream as StreamClass } from '../api/stream.ts';
import type { Row, Schema } from '../core/types.ts';
import type { Expr } from '../plan/expr.ts';
import { lookupJoinOutputSchema, type LookupOutputColumn } from '../lookup/lookup-join-spec.ts';
import type { LookupJoinNode, LookupSourceDescriptor, WindowSpec } from '../plan/logical.ts';
import { windowTableFunctionOutputSchema } from '../operators/window-rank/window-table-function.ts';
import { windowSpecOf, windowedSchema } from './windows.ts';
import type { SqlExpr, SqlFrom, SqlOver, SqlQuery, SqlSelect, SqlSelectItem } from './ast.ts';
import { intervalMs } from './sql-literals.ts';
import type { LookupTableSpec } from './connectors.ts';
import { tableKey } from './catalog.ts';
import { SqlError, atPosition, type SqlPosition } from './errors.ts';
import { compileExpr, exprKey, isAggregateCall, resolveColumn, scopeOf, type Scope, type ScopeColumn } from './expressions.ts';
import { rankFilter, rankItem, rewriteGroupWindow } from './rules.ts';
import { checkQueryHints } from './query-hints.ts';
import { inViewScope } from './catalog.ts';
import { sqlAnd, sqlChildren as children } from './sql-expr-walk.ts';
import { aggregateStateTtl, compileJoin, compileTemporalJoin, type JoinContext } from './joins.ts';
import { isSubqueryCondition } from './subqueries.ts';
import { containsSubquery, joinExpressionSubqueries, semiAntiJoin, subqueryConjuncts } from './expression-subqueries.ts';
import { compileOrderBy, compileSetOp, compileValues, withCtes } from './query-compose.ts';
import { columnOrder, distinct, inColumnOrder, relation, rewrap, stateTtl, topNCacheSize, type QueryContext, type Relation, type SelectedColumn } from './relation.ts';

/** Compiles a query (SELECT, set operation, VALUES, WITH, ORDER BY / LIMIT) into a stream. */
export function compileQuery(query: SqlQuery, ctx: QueryContext): Relation {
  switch (query.k) {
    case 'select':
      return compileSelect(query, ctx);
    case 'with':
      return withCtes(query, ctx, () => compileQuery(query.body, ctx));
    case 'values':
      return compileValues(query, ctx);
    case 'setOp':
      return compileSetOp(query, ctx, compileQuery);
    case 'ordered':
      return compileOrderBy(query, ctx, compileQuery);
  }
}

/** Compiles a SELECT block into a stream. */
export function compileSelect(query: SqlSelect, ctx: QueryContext): Relation {
  const expanded = expandGroupingSetsQuery(query);
  if (expanded) return compileQuery(expanded, ctx);
  const q = rewriteGroupWindow(query);
  checkQueryHints(q);
  const inner = q.from.k === 'subquery' && q.from.query.k === 'select' ? q.from.query : undefined;
  const topN = inner ? rankItem(inner) : undefined;
  let input: Relation;
  let scalarHooks: Parameters<typeof compileExpr>[2];
  if (topN && inner) {
    input = compileTopN(q, inner, topN.index, ctx);
  } else {
    // IN / EXISTS conjuncts are semi and anti joins; other subqueries are joined where they stand.
    const conjuncts = subqueryConjuncts(q.where);
    const subqueries = conjuncts.filter(isSubqueryCondition);
    const valueConditions = conjuncts.filter((c) => !isSubqueryCondition(c) && containsSubquery(c));
    let where = conjuncts.filter((c) => !containsSubquery(c));
    const jc = joinContext(q.hints, ctx);
    if (q.from.k === 'join' && q.from.systemTime === undefined) {
      // The WHERE conjuncts that belong to the join (its keys in a comma join) go into it.
      const joined = compileJoin(q.from, where, jc);
      input = joined.relation;
      where = joined.where;
    } else {
      input = compileFrom(q.from, q.hints, ctx);
    }
    const rest = sqlAnd(where);
    if (rest) input = filter(input, rest);
    for (const s of subqueries) input = semiAntiJoin(input, s, jc);
    // A grouped query joins its select items' subqueries after aggregating (compileAggregate).
    const valueItems = q.groupBy.length > 0 || q.items.some((i) => containsAggregate(i.expr) || containsOver(i.expr)) ? [] : q.items.map((i) => i.expr);
    if (valueConditions.length > 0 || valueItems.some(containsSubquery)) {
      const joined = joinExpressionSubqueries(input, valueConditions, valueItems, jc);
      input = joined.relation;
      scalarHooks = joined.hooks;
    }
  }
  const grouped = q.groupBy.length > 0 || q.items.some((i) => containsAggregate(i.expr));
  const overCalls = q.items.some((i) => containsOver(i.expr));
  if (grouped && overCalls) throw new SqlError(q.pos, 'OVER aggregates in a GROUP BY query are not supported: aggregate in a subquery first');
  const out = grouped ? compileAggregate(q, input, ctx) : overCalls ? compileOver(q, input) : project(input, q.items, q.pos, scalarHooks);
  // SELECT DISTINCT: a group aggregate keyed by every output column, without calls.
  return q.distinct ? distinct(out, q.pos, ctx) : out;
}

/** What the join compiler (joins.ts) needs from this module. */
function joinContext(hints: SqlSelect['hints'], ctx: QueryContext): JoinContext {
  return { ctx, hints, compileFrom: (from) => compileFrom(from, hints, ctx), filter, compileQuery: (query) => compileQuery(query, ctx) };
}

/**
 * Renames a relation's columns by position (`AS t (a, b)`, a view's column list), its PROCTIME()
 * attributes included at their places (they stay attributes under their new names).
 */
export function renameColumns(r: Relation, names: readonly (string | { readonly name: string })[], pos: SqlPosition, what: string): Relation {
  const fields = r.stream.schema.fields;
  const order = columnOrder(r);
  const current = order.map((o) => ('column' in o ? o.column : o.proctime));
  const list = names.map((n) => (typeof n === 'string' ? n : n.name));
  if (list.length !== order.length) {
    throw new SqlError(pos, `${what} names ${list.length} columns (${list.join(', ')}) but the query has ${order.length} (${current.join(', ')})`);
  }
  if (current.every((name, i) => name === list[i])) return r;
  const renamed = new Map(current.map((name, i) => [name, list[i] as string]));
  const stream = atPosition(pos, () => r.stream.calc(fields.map((f) => ({ name: renamed.get(f.name) ?? f.name, expr: { kind: 'ref', name: f.name } as Expr }))));
  const proctime = order.filter((o) => 'proctime' in o).map((o) => renamed.get(o.proctime) as string);
  const out = relation(stream, r.scope.columns[0]?.qualifiers ?? [], r.scope.description, proctime);
  return inColumnOrder(out, list.map((name, i) => ('proctime' in (order[i] as SelectedColumn) ? { proctime: name } : { column: name })));
}

function compileFrom(from: SqlFrom, hints: SqlSelect['hints'], ctx: QueryContext): Relation {
  switch (from.k) {
    case 'table': {
      const key = tableKey(ctx.catalog, from);
      const view = ctx.catalog.views.get(key);
      if (view) {
        if (from.hints?.[0]) throw new SqlError(from.hints[0].pos, `View '${from.name}' cannot be enriched with new options. Hints can only be applied to tables (as in Flink)`);
        let r = inViewScope(ctx.catalog, view, () => compileQuery(view.query, ctx));
        if (view.columns) r = renameColumns(r, view.columns, view.pos, `view '${from.name}'`);
        if (from.columns) r = renameColumns(r, from.columns, from.pos, `alias '${from.alias ?? from.name}'`);
        return rewrap(r, [from.alias ?? from.name], `view '${from.name}'`);
      }
      let r = ctx.source(key, from.pos, from.hints);
      if (from.columns) r = renameColumns(r, from.columns, from.pos, `alias '${from.alias ?? from.name}'`);
      const qualifiers = from.alias ? [from.alias, from.name] : [from.name];
      return { stream: r.stream, scope: { ...r.scope, columns: r.scope.columns.map((c) => ({ ...c, qualifiers })) } };
    }
    case 'subquery': {
      let r = compileQuery(from.query, ctx);
      if (from.columns) r = renameColumns(r, from.columns, from.pos, `alias '${from.alias ?? 'subquery'}'`);
      return rewrap(r, from.alias ? [from.alias] : [], from.alias ? `subquery '${from.alias}'` : 'subquery');
    }
    case 'tvf':
      return compileWindowTvf(from, hints, ctx);
    case 'tableFunction':
    case 'unnest':
      return compileCorrelateAlone(from, ctx);
    case 'join':
      if (from.systemTime === undefined) return compileJoin(from, [], joinContext(hints, ctx)).relation;
      return compileTimeTravelJoin(from, hints, ctx);
  }
}

/**
 * `JOIN t FOR SYSTEM_TIME AS OF l.time`: a lookup join when `time` is a `PROCTIME()` attribute,
 * an event-time temporal join against the versioned `t` when it is a rowtime attribute.
 */
function compileTimeTravelJoin(from: Extract<SqlFrom, { k: 'join' }>, hints: SqlSelect['hints'], ctx: QueryContext): Relation {
  const time = from.systemTime as SqlExpr;
  if (time.k !== 'id') throw new SqlError(time.pos, 'FOR SYSTEM_TIME AS OF takes a time attribute column (a rowtime or PROCTIME() column)');
  const left = compileFrom(from.left, hints, ctx);
  const column = resolveColumn(left.scope, time.parts, time.pos);
  if (column.proctime) return compileLookupJoin(from, left, hints, ctx);
  return compileTemporalJoin(from, left, column, joinContext(hints, ctx));
}

function filter(input: Relation, where: SqlExpr): Relation {
  if (input.window && !mentionsWindowColumn(where)) {
    // Flink pushes the filter below the window TVF; the window stays pending for the rules. A
    // SESSION table function on its own filters its output instead: its sessions are made of all
    // its input rows (set semantics), so a filter on them must not change the sessions.
    const base = filter({ stream: input.window.base, scope: input.window.baseScope }, where);
    const alone = input.window.spec.type === 'SESSION' ? (): Stream<Row> => filterStream(input, where) : undefined;
    return windowRelation(input.window.spec, base.stream, base.scope, input.scope.description, input.scope.columns[0]?.qualifiers ?? [], input.window.proctime === true, alone);
  }
  const stream = filterStream(input, where);
  return { stream, scope: { ...input.scope, schema: stream.schema } };
}

/** The rows of `input` for which `where` is true. */
function filterStream(input: Relation, where: SqlExpr): Stream<Row> {
  const condition = compileExpr(where, input.scope);
  return atPosition(where.pos, () => input.stream.filter(condition)) as Stream<Row>;
}

/** Output name of a select item: alias, column name, or Flink's `EXPR$n`. */
function itemName(item: SqlSelectItem, index: number): string {
  if (item.alias !== undefined) return item.alias;
  if (item.expr.k === 'id') return item.expr.parts[item.expr.parts.length - 1] as string;
  return `EXPR$${index}`;
}

/** Expands `*` and `t.*`, then projects; skips the Calc when it would be the identity. */
function project(input: Relation, items: readonly SqlSelectItem[], pos: SqlPosition, hooks?: Parameters<typeof compileExpr>[2]): Relation {
  const projection: { name: string; expr: Expr }[] = [];
  // `SELECT *` keeps the input's PROCTIME() attributes (virtual: no column to project), as
  // Flink's star expands to them, so a deduplication over the subquery can order by one.
  const proctime: string[] = [];
  // Where each selected column goes (projection indexes, PROCTIME() attributes by name), for a
  // statement's result to materialize the attributes in place.
  const order: ({ index: number } | { proctime: string })[] = [];
  items.forEach((item, index) => {
    // `PROCTIME() AS p_time` (Nexmark q12, q13 declare it in a view) and a selected PROCTIME()
    // attribute stay processing-time attributes, as in Flink: windows, lookup joins and
    // deduplication over the view read the clock when they process the row.
    if (isProctimeItem(item.expr, input.scope)) {
      proctime.push(itemName(item, index));
      order.push({ proctime: itemName(item, index) });
      return;
    }
    if (item.expr.k === 'star') {
      const q = item.expr.qualifier;
      // In the scope's order: a PROCTIME() attribute at its place in the view's select list or
      // the table's declaration, as Flink's star expands it.
      const cols = input.scope.columns.filter((c) => (q === undefined ? !c.qualifiedOnly : c.qualifiers.includes(q)));
      if (q !== undefined && cols.length === 0) throw new SqlError(item.pos, `unknown table or alias '${q}'`);
      for (const c of cols) {
        if (c.proctime) {
          proctime.push(c.name);
          order.push({ proctime: c.name });
          continue;
        }
        order.push({ index: projection.length });
        projection.push({ name: c.name, expr: { kind: 'ref', name: c.field } });
      }
      return;
    }
    order.push({ index: projection.length });
    projection.push({ name: itemName(item, index), expr: compileExpr(item.expr, input.scope, hooks) });
  });
  // Duplicate names are made unique as Calcite does (`name`, `name0`, …).
  const seen = new Set<string>();
  for (const p of projection) {
    let name = p.name;
    for (let n = 0; seen.has(name); n++) name = `${p.name}${n}`;
    seen.add(name);
    p.name = name;
  }
  // The scope's schema, not the stream's: reading `stream` would materialize a pending window TVF.
  const fields = input.scope.schema.fields;
  const identity = projection.length === fields.length && projection.every((p, i) => p.expr.kind === 'ref' && p.expr.name === fields[i]?.name && p.name === p.expr.name);
  const selected: SelectedColumn[] = order.map((o) => ('index' in o ? { column: projection[o.index]!.name } : o));
  const selectOrder = proctime.length === 0 ? {} : { selectOrder: selected };
  if (identity) return input.window ? input : { ...inColumnOrder(relation(input.stream, input.scope.columns[0]?.qualifiers ?? [], input.scope.description, proctime), selected), ...selectOrder };
  const stream = atPosition(pos, () => input.stream.calc(projection));
  return { ...inColumnOrder(relation(stream, [], 'query', proctime), selected), ...selectOrder };
}

/** `PROCTIME()`, or a reference to a PROCTIME() attribute of the scope. */
function isProctimeItem(e: SqlExpr, scope: Scope): boolean {
  if (e.k === 'call') return e.name === 'PROCTIME' && e.args.length === 0 && e.over === undefined;
  if (e.k !== 'id') return false;
  const name = e.parts[e.parts.length - 1] as string;
  const qualifier = e.parts.length > 1 ? e.parts[e.parts.length - 2] : undefined;
  return scope.columns.some((c) => c.proctime && c.name === name && (qualifier === undefined || c.qualifiers.includes(qualifier)));
}

function containsOver(e: SqlExpr): boolean {
  if (e.k === 'call' && e.over !== undefined && OVER_AGGREGATES.has(e.name)) return true;
  return children(e).some(containsOver);
}

const OVER_AGGREGATES = new Set(['COUNT', 'SUM', 'MIN', 'MAX', 'AVG']);

/**
 * `agg(…) OVER (PARTITION BY … ORDER BY time [ROWS | RANGE frame])` in the select list →
 * OverAggregate, then the projection of the select items (Flink's LogicalWindow → OverAggregate).
 * All OVER calls of a query share one window, as Flink requires.
 */
function compileOver(q: SqlSelect, input: Relation): Relation {
  type OverCall = Extract<SqlExpr, { k: 'call' }> & { over: NonNullable<Extract<SqlExpr, { k: 'call' }>['over']> };
  const calls: OverCall[] = [];
  const collect = (e: SqlExpr): void => {
    if (e.k === 'call' && e.over !== undefined && OVER_AGGREGATES.has(e.name)) calls.push(e as OverCall);
    else children(e).forEach(collect);
  };
  q.items.forEach((i) => collect(i.expr));
  const first = calls[0] as OverCall;
  const windowKey = (c: OverCall): string => exprKey({ k: 'call', name: 'W', args: [...c.over.partitionBy, ...c.over.orderBy.map((o) => o.expr)], distinct: false, star: false, pos: c.pos }) + JSON.stringify(c.over.frame ?? null, (k, v: unknown) => (k === 'pos' ? undefined : v)) + c.over.orderBy.map((o) => o.direction).join();
  for (const c of calls) {
    if (windowKey(c) !== windowKey(first)) throw new SqlError(c.pos, 'all OVER aggregates of a query must use the same window (PARTITION BY, ORDER BY and frame)');
  }
  const over = first.over;
  // A PARTITION BY expression (UPPER(k)) is computed into a hidden column `$pN` first, as
  // Calcite projects it below the OverAggregate.
  const partitionExprs: { name: string; expr: Expr }[] = [];
  const partitionBy = over.partitionBy.map((p) => {
    if (p.k === 'id') return resolveColumn(input.scope, p.parts, p.pos).field;
    const name = `$p${partitionExprs.length}`;
    partitionExprs.push({ name, expr: compileExpr(p, input.scope) });
    return name;
  });
  if (partitionExprs.length > 0) {
    const fields = input.stream.schema.fields.map((f) => ({ name: f.name, expr: { kind: 'ref', name: f.name } as Expr }));
    const stream = atPosition(first.pos, () => input.stream.calc([...fields, ...partitionExprs]));
    input = { ...input, stream, scope: { ...input.scope, schema: stream.schema } };
  }
  const order = over.orderBy[0];
  if (!order || over.orderBy.length > 1) throw new SqlError(first.pos, 'an OVER aggregate needs ORDER BY one time attribute (a rowtime or PROCTIME() column)');
  if (order.direction !== 'ASC') throw new SqlError(order.expr.pos, 'OVER windows are ordered by a time attribute ascending');
  if (order.expr.k !== 'id') throw new SqlError(order.expr.pos, 'OVER ORDER BY takes a time attribute column');
  const time = resolveColumn(input.scope, order.expr.parts, order.expr.pos);
  const field = input.scope.schema.fields.find((f) => f.name === time.field);
  const timeDomain = time.proctime ? 'processing' : 'event';
  if (!time.proctime && field?.timeAttribute !== 'rowtime') {
    throw new SqlError(order.expr.pos, `OVER windows can only be ordered by a time attribute ascending; '${time.name}' is not a rowtime or PROCTIME() attribute`);
  }
  const frame = overFrame(over.frame);
  const aggregates: Record<string, AggregateSpec> = {};
  const names = new Map<string, string>();
  calls.forEach((c) => {
    const key = exprKey({ ...c, over: undefined } as SqlExpr);
    if (names.has(key)) return;
    const name = `w0$o${names.size}`;
    if (c.args.length > 1) throw new SqlError(c.pos, `${c.name} takes one argument`);
    // `agg(DISTINCT x) OVER w` aggregates each value of the frame once (Flink's over functions
    // run the same distinct-aware aggregate handler as GROUP BY; its planner tests cover
    // COUNT(DISTINCT a) / SUM(DISTINCT c) over bounded and unbounded frames).
    const arg = c.args[0] ? compileExpr(c.args[0], input.scope) : undefined;
    const filterExpr = c.filter ? compileExpr(c.filter, input.scope) : undefined;
    aggregates[name] = { fn: c.name as AggregateSpec['fn'], ...(arg ? { arg: arg.kind === 'ref' ? arg.name : arg } : {}), distinct: c.distinct, ...(filterExpr ? { filter: filterExpr } : {}) };
    names.set(key, name);
  });
  const stream = atPosition(first.pos, () =>
    input.stream.over({ partitionBy, orderBy: time.field, timeDomain, ...(frame ? { frame } : {}), aggregates }),
  ) as unknown as Stream<Row>;
  // The w0$oN columns are reached through the hooks only (`*` stays the input's columns).
  const rel: Relation = { stream, scope: { ...input.scope, schema: stream.schema } };
  const hooks = {
    replace: (e: SqlExpr): Expr | undefined => {
      if (e.k !== 'call' || e.over === undefined) return undefined;
      const name = names.get(exprKey({ ...e, over: undefined } as SqlExpr));
      return name !== undefined ? { kind: 'ref', name } : undefined;
    },
  };
  return project(rel, q.items, q.pos, hooks);
}

/**
 * The API frame of an OVER clause. Flink's streaming OVER aggregation supports frames ending at
 * CURRENT ROW only; any other end (`n FOLLOWING`, `UNBOUNDED FOLLOWING`) gets Flink's own
 * message (StreamExecOverAggregate: "OVER RANGE FOLLOWING windows are not supported yet.").
 */
function overFrame(frame: SqlOver['frame']): { rows: number | 'unbounded' } | { range: number | 'unbounded' } | undefined {
  if (frame === undefined) return undefined;
  if (frame.end.kind !== 'CURRENT ROW') {
    throw new SqlError(frame.end.pos, `OVER RANGE FOLLOWING windows are not supported yet: a streaming OVER frame ends at CURRENT ROW, as in Flink (this one ends at ${frame.end.kind === 'FOLLOWING' ? 'n FOLLOWING' : frame.end.kind})`);
  }
  const start = frame.start;
  if (start.kind === 'UNBOUNDED PRECEDING') return frame.unit === 'ROWS' ? { rows: 'unbounded' } : { range: 'unbounded' };
  if (start.kind === 'CURRENT ROW') return frame.unit === 'ROWS' ? { rows: 0 } : { range: 0 };
  const offset = start.offset;
  if (start.kind !== 'PRECEDING' || offset === undefined) throw new SqlError(start.pos, 'an OVER frame starts at UNBOUNDED PRECEDING, n PRECEDING or CURRENT ROW');
  if (frame.unit === 'ROWS') {
    if (offset.k !== 'num' || !/^\d+$/.test(offset.text)) throw new SqlError(offset.pos, 'ROWS n PRECEDING takes a non-negative integer');
    return { rows: Number(offset.text) };
  }
  if (offset.k !== 'interval') throw new SqlError(offset.pos, "RANGE … PRECEDING over a time attribute takes an INTERVAL, e.g. INTERVAL '1' MINUTE");
  return { range: intervalMs(offset) };
}

function containsAggregate(e: SqlExpr): boolean {
  if (isAggregateCall(e)) return true;
  return children(e).some(containsAggregate);
}

/** GROUP BY with COUNT/SUM/MIN/MAX/AVG, DISTINCT and FILTER (WHERE …) → GroupAggregate. */
function compileAggregate(q: SqlSelect, input: Relation, ctx: QueryContext): Relation {
  const windowKeys = q.groupBy.filter((g) => g.k === 'id' && WINDOW_COLUMNS.has((g.parts[g.parts.length - 1] as string).toLowerCase()));
  if (input.window && windowKeys.length > 0) return compileWindowAggregate(q, input, input.window);
  // Group keys: columns by name; expressions are projected first under their select alias.
  const keyNames: string[] = [];
  const keyExprs = new Map<string, string>();
  const pre: { name: string; expr: Expr }[] = [];
  q.groupBy.forEach((g, i) => {
    if (g.k === 'id') {
      const c = resolveColumn(input.scope, g.parts, g.pos);
      keyNames.push(c.field);
      keyExprs.set(exprKey(g), c.field);
      pre.push({ name: c.field, expr: { kind: 'ref', name: c.field } });
      return;
    }
    const item = q.items.find((it) => exprKey(it.expr) === exprKey(g));
    const name = item?.alias ?? `$f${i}`;
    keyNames.push(name);
    keyExprs.set(exprKey(g), name);
    pre.push({ name, expr: compileExpr(g, input.scope) });
  });
  // Aggregate calls, shared when identical.
  const aggregates: Record<string, AggregateSpec> = {};
  const aggNames = new Map<string, string>();
  let aggInputScope = input.scope;
  let aggStream = input.stream;
  if (pre.some((p) => p.expr.kind !== 'ref')) {
    // Project expression keys, then every input column the aggregates may read.
    const rest = input.stream.schema.fields.filter((f) => !keyNames.includes(f.name)).map((f) => ({ name: f.name, expr: { kind: 'ref', name: f.name } as Expr }));
    aggStream = atPosition(q.pos, () => input.stream.calc([...pre, ...rest]));
    aggInputScope = { ...input.scope, schema: aggStream.schema, columns: [...input.scope.columns.filter((c) => !keyNames.includes(c.name)), ...pre.map((p) => ({ qualifiers: [], name: p.name, field: p.name }))] };
  }
  const collect = (e: SqlExpr, preferred: string | undefined): void => {
    if (isAggregateCall(e)) {
      const key = exprKey(e);
      if (aggNames.has(key)) return;
      const name = preferred ?? `EXPR$${aggNames.size + keyNames.length}`;
      aggregates[name] = aggregateSpecOf(e, aggInputScope, containsAggregate);
      aggNames.set(key, name);
      return;
    }
    children(e).forEach((c) => collect(c, undefined));
  };
  q.items.forEach((item, i) => {
    if (item.expr.k === 'star') throw new SqlError(item.pos, '* is not allowed in an aggregate query');
    collect(item.expr, isAggregateCall(item.expr) ? itemName(item, i) : undefined);
  });
  if (q.having) collect(q.having, undefined);
  const aggIn = new StreamClass<Row>(aggStream.pipeline, aggStream.node);
  const out = atPosition(q.pos, () => aggIn.groupBy(...keyNames).aggregate(aggregates, aggregateStateTtl(ctx, q.hints, input))) as Stream<Row>;
  // Group keys stay reachable by their qualified names (`SELECT b.k … GROUP BY b.k`).
  const qualifiers = input.scope.columns[0]?.qualifiers ?? [];
  let rel = relation(out, qualifiers, 'aggregate');
  const hooks = {
    replace: (e: SqlExpr): Expr | undefined => {
      const k = exprKey(e);
      const agg = aggNames.get(k);
      if (agg !== undefined) return { kind: 'ref', name: agg };
      const key = keyExprs.get(k);
      return key !== undefined ? { kind: 'ref', name: key } : undefined;
    },
  };
  // Columns not grouped must not be referenced outside aggregates (checked by resolving in the output scope).
  const having = subqueryConjuncts(q.having);
  const plain = sqlAnd(having.filter((c) => !containsSubquery(c)));
  if (plain) {
    const condition = compileExpr(plain, rel.scope, hooks);
    rel = relation(atPosition(plain.pos, () => rel.stream.filter(condition)) as Stream<Row>, qualifiers, 'aggregate');
  }
  // HAVING's IN / EXISTS conjuncts and the subqueries of HAVING and the select items join the aggregated rows (Flink's plan).
  const jc = joinContext(q.hints, ctx);
  for (const c of having.filter(isSubqueryCondition)) rel = semiAntiJoin(rel, c, jc, hooks);
  const valueConditions = having.filter((c) => !isSubqueryCondition(c) && containsSubquery(c));
  if (valueConditions.length === 0 && !q.items.some((i) => containsSubquery(i.expr))) return project(rel, q.items, q.pos, hooks);
  const joined = joinExpressionSubqueries(rel, valueConditions, q.items.map((i) => i.expr), jc, hooks);
  return project(joined.relation, q.items, q.pos, joined.hooks);
}

/**
 * `SELECT … FROM (SELECT …, ROW_NUMBER() OVER (…) AS rn FROM …) WHERE rn <= N` → Rank, or
 * Deduplicate for ROW_NUMBER … = 1 ordered by a rowtime column with the rank not selected
 * (Flink's FlinkLogicalRankRule and StreamPhysicalDeduplicateRule).
 */
function compileTopN(outer: SqlSelect, inner: SqlSelect, rankIndex: number, ctx: QueryContext): Relation {
  const rankSel = inner.items[rankIndex] as SqlSelectItem;
  const over = rankSel.expr.k === 'call' ? rankSel.expr : undefined;
  if (!over?.over) throw new SqlError(rankSel.pos, 'expected a ranking function');
  const rankName = itemName(rankSel, rankIndex);
  // PARTITION BY / ORDER BY name columns of the subquery's FROM (`A.id`, `B.date_time`): a
  // column the select list outputs is ranked by its output name; any other one is selected as a
  // hidden column `$rankN`, dropped again after the rank.
  const items = inner.items.filter((_, i) => i !== rankIndex);
  const hidden: string[] = [];
  const overColumn = new Map<string, string>();
  for (const e of [...over.over.partitionBy, ...over.over.orderBy.map((o) => o.expr)]) {
    if (overColumn.has(exprKey(e))) continue;
    if (e.k !== 'id') {
      // An expression (`ORDER BY price * amount DESC`, `ORDER BY SUM(sales)` in a GROUP BY) is
      // computed into a hidden column below the rank, as Calcite projects it.
      const name = `$rank${hidden.length}`;
      hidden.push(name);
      overColumn.set(exprKey(e), name);
      items.push({ expr: e, alias: name, pos: e.pos });
      continue;
    }
    const item = items.findIndex((it) => it.expr.k !== 'star' && exprKey(it.expr) === exprKey(e));
    const name = e.parts[e.parts.length - 1] as string;
    const starred = items.some((it) => it.expr.k === 'star' && (it.expr.qualifier === undefined || it.expr.qualifier === e.parts[e.parts.length - 2]));
    const named = items.some((it, i) => it.expr.k !== 'star' && itemName(it, i) === name);
    if (item >= 0) {
      overColumn.set(exprKey(e), itemName(items[item] as SqlSelectItem, item));
    } else if (starred && !named && e.parts.length === 2) {
      // `A.id` under `A.*`: the star outputs it as `id`.
      overColumn.set(exprKey(e), name);
    } else if (e.parts.length > 1 || !(named || starred)) {
      const name = `$rank${hidden.length}`;
      hidden.push(name);
      overColumn.set(exprKey(e), name);
      items.push({ expr: e, alias: name, pos: e.pos });
    }
  }
  const base = compileSelect({ ...inner, items }, ctx);
  const where = outer.where ? rankFilter(outer.where, rankName) : undefined;
  if (!where?.range) {
    throw new SqlError(outer.where?.pos ?? outer.pos, `a ${over.name}() subquery needs a filter on '${rankName}' in the outer WHERE (e.g. ${rankName} <= 10): unbounded OVER aggregation is not supported`);
  }
  const column = (e: SqlExpr): string => {
    const named = overColumn.get(exprKey(e));
    if (e.k !== 'id' && base.window) throw new SqlError(e.pos, 'PARTITION BY and ORDER BY of a window Top-N take columns');
    if (named !== undefined) return resolveColumn(base.scope, [named], e.pos).field;
    if (e.k !== 'id') throw new SqlError(e.pos, 'PARTITION BY and ORDER BY of a Top-N take columns');
    return resolveColumn(base.scope, e.parts, e.pos).field;
  };
  const partitionBy = over.over.partitionBy.map(column);
  // ORDER BY a PROCTIME() attribute: Flink's processing-time deduplication (the first or last
  // row per key to arrive), the only rank it allows on processing time.
  const first = over.over.orderBy[0];
  const proctimeOrder = first?.expr.k === 'id' && over.over.orderBy.length === 1 ? base.scope.columns.find((c) => c.proctime && c.name.toLowerCase() === (first.expr as { parts: readonly string[] }).parts.at(-1)?.toLowerCase()) : undefined;
  if (proctimeOrder && first) {
    const rankUsed = outer.items.some((i) => i.expr.k === 'star' || mentions(i.expr, rankName)) || (where.rest !== undefined && mentions(where.rest, rankName));
    const isDedup = over.name === 'ROW_NUMBER' && !rankUsed && partitionBy.length > 0 && where.range.type === 'constant' && where.range.start === 1 && where.range.end === 1;
    if (!isDedup) throw new SqlError(first.expr.pos, `ORDER BY the PROCTIME() attribute '${proctimeOrder.name}' is supported in deduplication only: ROW_NUMBER() OVER (PARTITION BY … ORDER BY ${proctimeOrder.name}) = 1, the rank not selected`);
    const keep = first.direction === 'ASC' ? 'first' : 'last';
    let deduplicated = atPosition(rankSel.pos, () => base.stream.deduplicate({ keys: partitionBy, keep, ...stateTtl(ctx) }));
    if (hidden.length > 0) {
      const kept = deduplicated.schema.fields.filter((f) => !hidden.includes(f.name)).map((f) => ({ name: f.name, expr: { kind: 'ref', name: f.name } as Expr }));
      const all = deduplicated;
      deduplicated = atPosition(rankSel.pos, () => all.calc(kept));
    }
    let rel = relation(deduplicated, [], 'subquery');
    if (where.rest) rel = filter(rel, where.rest);
    return rel;
  }
  const orderBy = over.over.orderBy.map((o) => ({ column: column(o.expr), direction: o.direction, ...(o.nulls ? { nulls: o.nulls } : {}) }));
  if (orderBy.length === 0) throw new SqlError(rankSel.pos, `${over.name}() OVER needs ORDER BY`);
  const rankNumberUsed = outer.items.some((i) => i.expr.k === 'star' || mentions(i.expr, rankName)) || (where.rest !== undefined && mentions(where.rest, rankName));
  const range = where.range;
  const orderField = base.scope.schema.fields.find((f) => f.name === orderBy[0]?.column);
  const dedup =
    over.name === 'ROW_NUMBER' && !rankNumberUsed && orderBy.length === 1 && partitionBy.length > 0 &&
    range.type === 'constant' && range.start === 1 && range.end === 1 && orderField?.timeAttribute === 'rowtime';
  let stream: Stream<Row>;
  const win = base.window;
  const byWindow = partitionBy.includes('window_start') && partitionBy.includes('window_end');
  const windowDedup = win !== undefined && byWindow && over.name === 'ROW_NUMBER' && !rankNumberUsed && orderBy.length === 1 && range.type === 'constant' && range.start === 1 && range.end === 1 && orderBy[0]?.column === win.spec.timeColumn;
  if (win?.proctime === true && windowDedup) {
    // Flink's window deduplication orders by event time only (window-deduplication
    // "Limitation on time attribute of order key"); by the PROCTIME() attribute it is the
    // processing-time deduplication of the table function's rows, keyed by the window too.
    const keep = orderBy[0]?.direction === 'ASC' ? 'first' : 'last';
    stream = atPosition(rankSel.pos, () => base.stream.deduplicate({ keys: partitionBy, keep, ...stateTtl(ctx) }));
  } else if (win && windowDedup) {
    // Window deduplication (Flink's WindowDeduplicate): first/last row per key and window.
    const keep = orderBy[0]?.direction === 'ASC' ? 'first' : 'last';
    const keys = partitionBy.filter((k) => !WINDOW_COLUMNS.has(k));
    stream = atPosition(rankSel.pos, () => win.base.window(win.spec).deduplicate({ partitionBy: keys, keep })) as unknown as Stream<Row>;
  } else if (win && byWindow && range.type === 'constant') {
    // Window Top-N straight over the TVF's input, as the API's window(…).rank(…) builds it. Over
    // a PROCTIME() attribute the windows are cut and fire on the processing-time clock (Flink's
    // window rank over a processing-time windowing strategy).
    const keys = partitionBy.filter((k) => !WINDOW_COLUMNS.has(k));
    stream = atPosition(rankSel.pos, () =>
      win.base.window(win.spec, win.proctime === true ? { timeDomain: 'processing' } : {}).rank({
        partitionBy: keys,
        orderBy: orderBy.map((o) => ({ column: o.column, direction: o.direction, ...(o.nulls ? { nulls: o.nulls } : {}) })),
        range: range.start === 1 ? { atMost: range.end } : { between: [range.start, range.end] },
        rankType: over.name as 'ROW_NUMBER',
        ...(rankNumberUsed ? { rankNumber: rankName } : {}),
      }),
    ) as unknown as Stream<Row>;
    if (win.proctime === true) {
      // window_time is a PROCTIME() attribute there, which Flink materializes after the rank
      // (PROCTIME_MATERIALIZE(window_time)): the time the row comes out, as after the table function alone.
      const now: Expr = { kind: 'call', fn: 'CURRENT_TIMESTAMP', args: [] };
      const ranked = stream;
      stream = atPosition(rankSel.pos, () => ranked.calc(ranked.schema.fields.map((f) => ({ name: f.name, expr: f.name === 'window_time' ? now : ({ kind: 'ref', name: f.name } as Expr) }))));
    }
  } else if (dedup) {
    const keep = orderBy[0]?.direction === 'ASC' ? 'first' : 'last';
    stream = atPosition(rankSel.pos, () => base.stream.deduplicate({ keys: partitionBy, keep, orderBy: orderBy[0]?.column as string, ...stateTtl(ctx) }));
  } else {
    const rangeSpec = range.type === 'variable' ? { atMostColumn: range.endColumn } : { between: [range.start, range.end] as const };
    stream = atPosition(rankSel.pos, () =>
      base.stream.rank({
        partitionBy,
        orderBy: orderBy.map((o) => ({ column: o.column, direction: o.direction, ...(o.nulls ? { nulls: o.nulls } : {}) })),
        range: range.type === 'constant' && range.start === 1 ? { atMost: range.end } : rangeSpec,
        rankType: over.name as 'ROW_NUMBER',
        ...(rankNumberUsed ? { rankNumber: rankName } : {}),
        ...stateTtl(ctx),
        ...topNCacheSize(ctx),
      }),
    ) as Stream<Row>;
  }
  if (hidden.length > 0) {
    const kept = stream.schema.fields.filter((f) => !hidden.includes(f.name)).map((f) => ({ name: f.name, expr: { kind: 'ref', name: f.name } as Expr }));
    const ranked = stream;
    stream = atPosition(rankSel.pos, () => ranked.calc(kept));
  }
  let rel = relation(stream, [], 'subquery');
  if (where.rest) rel = filter(rel, where.rest);
  return rel;
}

function mentions(e: SqlExpr, name: string): boolean {
  if (e.k === 'id') return (e.parts[e.parts.length - 1] as string).toLowerCase() === name.toLowerCase();
  return children(e).some((c) => mentions(c, name));
}

/** `probe JOIN dim FOR SYSTEM_TIME AS OF probe.proctime AS d ON probe.k = d.k [AND …]`. */
function compileLookupJoin(from: Extract<SqlFrom, { k: 'join' }>, probe: Relation, hints: SqlSelect['hints'], ctx: QueryContext): Relation {
  if (from.right.k !== 'table') throw new SqlError(from.right.pos, 'the right side of a lookup join must be a table');
  if (from.joinType !== 'INNER' && from.joinType !== 'LEFT') throw new SqlError(from.pos, `a lookup join is INNER or LEFT (given ${from.joinType})`);
  const joinType = from.joinType;
  const on = from.on;
  if (on === undefined) throw new SqlError(from.pos, 'a lookup join needs an ON condition');
  let left = probe;
  const tableName = from.right.name;
  const table = ctx.catalog.tables.get(tableKey(ctx.catalog, from.right));
  if (!table) throw new SqlError(from.right.pos, `unknown table '${tableName}' (declared: ${[...ctx.catalog.tables.keys()].join(', ')})`);
  const lookup = table.connector.lookup;
  if (!lookup) throw new SqlError(from.right.pos, `table '${tableName}' (connector '${table.connector.name}') cannot be a lookup table: use a jdbc or dynamodb table`);
  const alias = from.right.alias ?? tableName;
  const dim = table.physical;
  // Output: probe columns, then dimension columns (renamed with a suffix when a name clashes).
  const taken = new Set(left.stream.schema.fields.map((f) => f.name));
  const output: LookupOutputColumn[] = left.stream.schema.fields.map((f) => ({ side: 'probe', column: f.name }));
  const dimColumns = dim.fields.map((f) => {
    let as = f.name;
    for (let n = 0; taken.has(as); n++) as = `${f.name}${n}`;
    taken.add(as);
    output.push({ side: 'lookup', column: f.name, ...(as !== f.name ? { as } : {}) });
    return { qualifiers: [alias], name: f.name, field: as };
  });
  const joinScope: Scope = {
    description: `join of ${left.scope.description} and '${tableName}'`,
    schema: { fields: [] },
    columns: [...left.scope.columns, ...dimColumns],
  };
  const keys: { probe: string; lookup: string }[] = [];
  const others: SqlExpr[] = [];
  /** Probe-side key expressions (`MOD(b.auction, 10000) = s.key`), projected as `$fN` first. */
  const probeExprs: { name: string; expr: Expr }[] = [];
  const isDim = (c: ScopeColumn): boolean => dimColumns.includes(c as (typeof dimColumns)[number]);
  const dimRef = (e: SqlExpr): ScopeColumn | undefined => {
    if (e.k !== 'id') return undefined;
    const c = resolveColumn(joinScope, e.parts, e.pos);
    return isDim(c) ? c : undefined;
  };
  const probeOnly = (e: SqlExpr): boolean => {
    if (e.k === 'id') return !isDim(resolveColumn(joinScope, e.parts, e.pos));
    return children(e).every(probeOnly);
  };
  const conjuncts = (e: SqlExpr): SqlExpr[] => (e.k === 'bin' && e.op === 'AND' ? [...conjuncts(e.left), ...conjuncts(e.right)] : [e]);
  for (const c of conjuncts(on)) {
    if (c.k === 'bin' && c.op === '=') {
      const pairs: [SqlExpr, SqlExpr][] = [[c.left, c.right], [c.right, c.left]];
      const match = pairs.find(([d, p]) => dimRef(d) !== undefined && probeOnly(p));
      if (match) {
        const [d, p] = match;
        const lookupCol = dimRef(d) as ScopeColumn;
        let probe: string;
        if (p.k === 'id') probe = resolveColumn(joinScope, p.parts, p.pos).field;
        else {
          probe = `$f${left.stream.schema.fields.length + probeExprs.length}`;
          probeExprs.push({ name: probe, expr: compileExpr(p, left.scope) });
        }
        keys.push({ probe, lookup: lookupCol.name });
        continue;
      }
    }
    others.push(c);
  }
  if (probeExprs.length > 0) {
    const projection = [...left.stream.schema.fields.map((f) => ({ name: f.name, expr: { kind: 'ref', name: f.name } as Expr })), ...probeExprs];
    const stream = atPosition(on.pos, () => left.stream.calc(projection));
    left = { stream, scope: { ...left.scope, schema: stream.schema } };
    output.splice(0, output.length, ...stream.schema.fields.map((f) => ({ side: 'probe' as const, column: f.name })), ...output.filter((o) => o.side === 'lookup'));
  }
  if (keys.length === 0) throw new SqlError(on.pos, `lookup join with '${tableName}' needs an equality between a probe column and a column of '${alias}'`);
  const hint = hints.find((h) => h.name === 'LOOKUP' && (h.options.get('table') === tableName || h.options.get('table') === alias));
  const shuffle = hint?.options.has('shuffle') ? hint.options.get('shuffle')?.toLowerCase() === 'true' : lookup.shuffle;
  const spec = { table: tableName, joinType, keys, dimensionSchema: dim, output };
  const schema = atPosition(from.pos, () => lookupJoinOutputSchema(spec, left.stream.schema));
  const fullScope: Scope = { ...joinScope, schema };
  const condition = others.length > 0 ? compileExpr(others.reduce((a, b) => ({ k: 'bin', op: 'AND', left: a, right: b, pos: a.pos })), fullScope) : undefined;
  const pipeline = ctx.pipeline;
  const node: LookupJoinNode = {
    type: 'LookupJoin',
    id: pipeline.nextId(),
    input: left.stream.node,
    table: tableName,
    joinType,
    keys,
    shuffle,
    ...(condition ? { condition } : {}),
    schema,
    dimensionSchema: dim,
    source: withL2(tableName, lookupSource(lookup.store, from.right.pos, ctx.warnings), lookup.l2, lookup.l2TtlMs),
    output,
    cache: lookup.cache,
    ...(lookup.retry ? { retry: lookup.retry } : {}),
  };
  ctx.lookups.set(node.id, { name: tableName, schema: dim, ...lookup, shuffle });
  return { stream: new StreamClass<Row>(pipeline, node), scope: fullScope };
}

/**
 * The job graph's description of a dimension store. Secrets never enter it: a JDBC password is
 * given as `'${env:NAME}'` or `'${secret:arn}'`; a literal password stays out (with a warning).
 */
function lookupSource(store: LookupTableSpec['store'], pos: SqlPosition, warnings: string[]): LookupSourceDescriptor {
  switch (store.type) {
    case 'jsonl':
      return { type: 'jsonl', ...(store.path !== undefined ? { path: store.path } : {}) };
    case 'dynamodb':
      return { type: 'dynamodb', table: store.table };
    case 'jdbc': {
      if (store.password !== undefined) {
        warnings.push(
          `line ${pos.line}:${pos.column}: lookup table '${store.table}': the literal 'password' is not written into the job graph; ` +
            `use 'password' = '\${env:VARIABLE}' or '\${secret:arn:aws:secretsmanager:…}' to run it`,
        );
      }
      const secret = store.passwordSecret;
      return {
        type: 'jdbc',
        url: store.url,
        table: store.table,
        ...(store.user !== undefined ? { user: store.user } : {}),
        ...(secret?.kind === 'env' ? { passwordFrom: secret.ref } : secret ? { secretArn: secret.ref } : {}),
      };
    }
  }
}

const WINDOW_COLUMNS = new Set(['window_start', 'window_end', 'window_time']);

function mentionsWindowColumn(e: SqlExpr): boolean {
  if (e.k === 'id') return WINDOW_COLUMNS.has((e.parts[e.parts.length - 1] as string).toLowerCase());
  return children(e).some(mentionsWindowColumn);
}

/** A pending window TVF over `base`: the stream (WindowTableFunction) is built only if used. */
/**
 * @param alone how the stream is built when the window is not aggregated (ranked, joined) after
 *   all; by default the table function over `base`.
 */
function windowRelation(spec: WindowSpec, base: Stream<Row>, baseScope: Scope, description: string, qualifiers: readonly string[], proctime = false, alone?: () => Stream<Row>): Relation {
  // Alone, the table function runs in either time domain: over a PROCTIME() attribute each row
  // gets its windows from the time it is processed (Flink's WindowTableFunctionOperator asks its
  // processing-time service), and window_time is no rowtime.
  const schema: Schema = windowTableFunctionOutputSchema({ window: spec, ...(proctime ? { timeDomain: 'processing' as const } : {}) }, base.schema);
  const build = (): Stream<Row> => {
    const tvf = base.window(spec, proctime ? { timeDomain: 'processing' } : {}).withWindowColumns() as unknown as Stream<Row>;
    if (!proctime) return tvf;
    // There window_time is a PROCTIME() attribute, which Flink materializes after the function
    // (PROCTIME_MATERIALIZE(window_time)): the time the row is processed, not window_end - 1.
    const now: Expr = { kind: 'call', fn: 'CURRENT_TIMESTAMP', args: [] };
    return tvf.calc(tvf.schema.fields.map((f) => ({ name: f.name, expr: f.name === 'window_time' ? now : ({ kind: 'ref', name: f.name } as Expr) })));
  };
  let built: Stream<Row> | undefined;
  return {
    get stream(): Stream<Row> {
      built ??= alone ? alone() : build();
      return built;
    },
    scope: scopeOf(schema, description, qualifiers),
    window: { spec, base, baseScope, ...(proctime ? { proctime } : {}) },
  };
}

function compileWindowTvf(from: Extract<SqlFrom, { k: 'tvf' }>, hints: SqlSelect['hints'], ctx: QueryContext): Relation {
  const input = compileFrom(from.input, hints, ctx);
  if (input.window) throw new SqlError(from.pos, 'window functions cannot be nested');
  const spec = windowSpecOf(from, input.scope);
  const qualifiers = from.alias ? [from.alias] : input.scope.columns[0]?.qualifiers ?? [];
  const time = resolveColumn(input.scope, [from.timeColumn.name], from.timeColumn.pos);
  if (time.proctime) {
    // A processing-time window (Nexmark q12): the PROCTIME() attribute is materialized as the
    // time the row is processed, and the window aggregate fires on the clock.
    const projection = [...input.stream.schema.fields.map((f) => ({ name: f.name, expr: { kind: 'ref', name: f.name } as Expr })), { name: time.field, expr: { kind: 'call', fn: 'CURRENT_TIMESTAMP', args: [] } as Expr }];
    const base = atPosition(from.timeColumn.pos, () => input.stream.calc(projection));
    const baseScope = { ...input.scope, schema: base.schema, columns: input.scope.columns.map((c) => (c.field === time.field ? { ...c, proctime: false } : c)) };
    return windowRelation(spec, base, baseScope, `${from.fn} window`, qualifiers, true);
  }
  if (spec.type !== 'SESSION') windowedSchema(from, spec, input.stream.schema);
  return windowRelation(spec, input.stream, input.scope, `${from.fn} window`, qualifiers);
}

/** `GROUP BY window_start, window_end, k…` over a window TVF → WindowAggregate. */
function compileWindowAggregate(q: SqlSelect, input: Relation, window: NonNullable<Relation['window']>): Relation {
  // A key expression (GROUP BY window_start, window_end, UPPER(k)) is computed into a column
  // `$fN` of the windowed input, as Flink's Calc below the WindowAggregate does.
  const keyExprs = new Map<string, { name: string; expr: Expr }>();
  const names = q.groupBy.map((g) => {
    if (g.k === 'id') return resolveColumn(input.scope, g.parts, g.pos).field;
    if (mentionsWindowColumn(g)) throw new SqlError(g.pos, 'a window aggregate groups by window_start, window_end and columns or expressions of its input');
    const known = keyExprs.get(exprKey(g));
    if (known) return known.name;
    const name = `$f${keyExprs.size}`;
    keyExprs.set(exprKey(g), { name, expr: compileExpr(g, window.baseScope) });
    return name;
  });
  const base =
    keyExprs.size === 0
      ? window.base
      : atPosition(q.pos, () => window.base.calc([...window.base.schema.fields.map((f) => ({ name: f.name, expr: { kind: 'ref', name: f.name } as Expr })), ...keyExprs.values()]));
  if (!names.includes('window_start') || !names.includes('window_end')) {
    throw new SqlError(q.pos, 'a window aggregate must GROUP BY both window_start and window_end');
  }
  const keys = names.filter((n) => !WINDOW_COLUMNS.has(n));
  const aggregates: Record<string, AggregateSpec> = {};
  const aggNames = new Map<string, string>();
  const collect = (e: SqlExpr, preferred: string | undefined): void => {
    if (isAggregateCall(e)) {
      const key = exprKey(e);
      if (aggNames.has(key)) return;
      const name = preferred ?? `EXPR$${aggNames.size + keys.length}`;
      aggregates[name] = aggregateSpecOf(e, window.baseScope, containsAggregate, window.spec.type);
      aggNames.set(key, name);
      return;
    }
    children(e).forEach((c) => collect(c, undefined));
  };
  q.items.forEach((item, i) => {
    if (item.expr.k === 'star') throw new SqlError(item.pos, '* is not allowed in an aggregate query');
    collect(item.expr, isAggregateCall(item.expr) ? itemName(item, i) : undefined);
  });
  if (q.having) collect(q.having, undefined);
  // GROUP BY without aggregate calls (Nexmark q8) keeps one row per group and window: the
  // aggregate counts rows in a column the projection below leaves out.
  if (Object.keys(aggregates).length === 0) aggregates.$rows = { fn: 'COUNT', distinct: false };
  const out = atPosition(q.pos, () => base.window(window.spec, window.proctime ? { timeDomain: 'processing' } : {}).aggregate(aggregates, { groupBy: keys })) as unknown as Stream<Row>;
  const qualifiers = input.scope.columns[0]?.qualifiers ?? [];
  let rel = relation(out, qualifiers, 'window aggregate');
  const hooks = {
    replace: (e: SqlExpr): Expr | undefined => {
      const name = aggNames.get(exprKey(e)) ?? keyExprs.get(exprKey(e))?.name;
      return name !== undefined ? { kind: 'ref', name } : undefined;
    },
  };
  if (q.having) {
    const condition = compileExpr(q.having, rel.scope, hooks);
    rel = relation(atPosition(q.having.pos, () => rel.stream.filter(condition)) as Stream<Row>, qualifiers, 'window aggregate');
  }
  return project(rel, q.items, q.pos, hooks);
}
