/**
 * The query forms around SELECT blocks: WITH (common table expressions, compiled as views
 * visible to the query), VALUES (a bounded source of constant rows), UNION [ALL] (Flink's
 * Union, then a GroupAggregate for the duplicate-free UNION), INTERSECT / EXCEPT [ALL]
 * (set-operations.ts) and ORDER BY / LIMIT (what Flink's streaming planner allows: a temporal
 * sort, a Top-N, the first rows).
 */
import type { GeneratorFunction } from '../api/pipeline.ts';
import type { Stream } from '../api/stream.ts';
import type { Field, LogicalType, Row, TypeRoot, Value } from '../core/types.ts';
import type { Expr } from '../plan/expr.ts';
import { compileTypedExpr } from '../plan/expr-compile.ts';
import type { SqlCte, SqlExpr, SqlQuery, SqlSelectItem } from './ast.ts';
import type { CatalogView } from './catalog.ts';
import { SqlError, atPosition } from './errors.ts';
import { compileExpr, isAggregateCall, scopeOf } from './expressions.ts';
import { distinct, stateTtl, streamColumnOrder, type QueryContext, type Relation } from './relation.ts';
import { intersectOrExcept, type IntersectOrExcept } from './set-operations.ts';
import { NON_TIME_SORT_MESSAGE } from '../api/time-order.ts';

type Compile = (query: SqlQuery, ctx: QueryContext) => Relation;

/** Compiles `body` with the WITH queries visible as views (shadowing tables of the same name). */
export function withCtes<T = Relation>(query: Extract<SqlQuery, { k: 'with' }>, ctx: QueryContext, body: () => T): T {
  const saved = new Map<string, CatalogView | undefined>();
  const seen = new Set<string>();
  for (const cte of query.ctes) {
    if (seen.has(cte.name)) throw new SqlError(cte.pos, `WITH names '${cte.name}' twice`);
    seen.add(cte.name);
    saved.set(cte.name, ctx.catalog.views.get(cte.name));
    // A WITH item sees the views around it and the items before it, not itself or later ones.
    ctx.catalog.views.set(cte.name, viewOf(cte, new Map(ctx.catalog.views)));
  }
  try {
    return body();
  } finally {
    for (const [name, view] of saved) {
      if (view === undefined) ctx.catalog.views.delete(name);
      else ctx.catalog.views.set(name, view);
    }
  }
}

function viewOf(cte: SqlCte, scope: ReadonlyMap<string, CatalogView>): CatalogView {
  return { query: cte.query, pos: cte.pos, ...(cte.columns ? { columns: cte.columns.map((c) => c.name) } : {}), scope };
}

const valuesCount = new WeakMap<object, number>();

/**
 * `VALUES (…), (…)`: a bounded source of the constant rows (columns `EXPR$0`, `EXPR$1`, … as
 * Flink names them), typed by the widest type of each column over the rows.
 */
export function compileValues(query: Extract<SqlQuery, { k: 'values' }>, ctx: QueryContext): Relation {
  // `SELECT 1 + 1` without FROM reads one row of no columns; a source row needs a column, so
  // that row gets one hidden constant (`$dual`, which no SQL identifier names without quotes).
  if (query.rows.length === 1 && query.rows[0]?.length === 0) return oneEmptyRow(query, ctx);
  const width = query.rows[0]?.length ?? 0;
  if (width === 0) throw new SqlError(query.pos, 'VALUES needs at least one row with at least one value');
  const empty = scopeOf({ fields: [] }, 'VALUES', []);
  const cells = query.rows.map((row) => {
    if (row.length !== width) throw new SqlError(row[0]?.pos ?? query.pos, `VALUES rows must have the same number of values (${width}); this one has ${row.length}`);
    return row.map((e) => {
      if (e.k === 'null') return { value: null as Value, type: undefined };
      const expr: Expr = compileExpr(e, empty);
      const typed = atPosition(e.pos, () => compileTypedExpr(expr, { fields: [] }, new Map()));
      return { value: atPosition(e.pos, () => typed.evaluate({})), type: typed.type };
    });
  });
  const fields: Field[] = [];
  for (let c = 0; c < width; c++) {
    let type: LogicalType | undefined;
    for (const row of cells) {
      const t = row[c]?.type;
      if (t === undefined) continue;
      type = type === undefined ? t : widest(type, t, query.rows[0]?.[c]?.pos ?? query.pos);
    }
    const nullable = cells.some((row) => row[c]?.value === null);
    if (type === undefined) throw new SqlError(query.rows[0]?.[c]?.pos ?? query.pos, `VALUES column ${c + 1} is NULL in every row: CAST(NULL AS type) gives it a type`);
    fields.push({ name: `EXPR$${c}`, type: { ...type, nullable: type.nullable || nullable } });
  }
  const rows: Row[] = cells.map((row) => Object.fromEntries(row.map((cell, c) => [`EXPR$${c}`, convert(cell.value, cell.type?.root, (fields[c] as Field).type.root)])));
  const n = (valuesCount.get(ctx.pipeline) ?? 0) + 1;
  valuesCount.set(ctx.pipeline, n);
  const generator: GeneratorFunction = function* values(context) {
    if (context.shard === 0) yield* rows;
  };
  const stream = atPosition(query.pos, () =>
    ctx.pipeline.source(`values_${n}`, { schema: Object.fromEntries(fields.map((f) => [f.name, f.type])), generator, parallelism: 1 }),
  ) as unknown as Stream<Row>;
  return { stream, scope: scopeOf(stream.schema, 'VALUES', []) };
}

function oneEmptyRow(query: Extract<SqlQuery, { k: 'values' }>, ctx: QueryContext): Relation {
  const n = (valuesCount.get(ctx.pipeline) ?? 0) + 1;
  valuesCount.set(ctx.pipeline, n);
  const generator: GeneratorFunction = function* values(context) {
    if (context.shard === 0) yield { $dual: 0 };
  };
  const stream = atPosition(query.pos, () =>
    ctx.pipeline.source(`values_${n}`, { schema: { $dual: { root: 'INT', nullable: false } }, generator, parallelism: 1 }),
  ) as unknown as Stream<Row>;
  return { stream, scope: scopeOf(stream.schema, 'VALUES', []) };
}

const NUMERIC: readonly TypeRoot[] = ['TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'DECIMAL', 'FLOAT', 'DOUBLE'];

/** The common type of two column types (Flink's least restrictive type, for our roots). */
function widest(a: LogicalType, b: LogicalType, pos: { line: number; column: number }): LogicalType {
  if (a.root === b.root) return a.root === 'STRING' && a.length !== b.length ? { root: 'STRING', nullable: a.nullable || b.nullable } : { ...a, nullable: a.nullable || b.nullable };
  const ia = NUMERIC.indexOf(a.root);
  const ib = NUMERIC.indexOf(b.root);
  if (ia < 0 || ib < 0) throw new SqlError(pos, `the rows give this column the types ${a.root} and ${b.root}, which have no common type`);
  let root = NUMERIC[Math.max(ia, ib)] as TypeRoot;
  // FLOAT with DECIMAL is DOUBLE, as in Flink's LogicalTypeMerging.
  if (root === 'FLOAT' && (a.root === 'DECIMAL' || b.root === 'DECIMAL')) root = 'DOUBLE';
  // DECIMAL with an integer keeps the decimal; a DOUBLE anywhere makes it DOUBLE.
  return root === 'DECIMAL' ? { ...(a.root === 'DECIMAL' ? a : b), nullable: a.nullable || b.nullable } : { root, nullable: a.nullable || b.nullable };
}

function convert(value: Value, from: TypeRoot | undefined, to: TypeRoot): Value {
  if (value === null || from === to || from === undefined) return value;
  // An integer or DOUBLE value in a FLOAT column is rounded to single precision.
  if (to === 'FLOAT' && typeof value === 'number') return Math.fround(value);
  if (to === 'FLOAT' && typeof value === 'bigint') throw new Error('internal: DECIMAL values in a FLOAT VALUES column are not converted');
  if (to === 'DOUBLE' && typeof value === 'bigint') throw new Error('internal: DECIMAL values in a DOUBLE VALUES column are not converted');
  if (to === 'DECIMAL' && typeof value === 'number') throw new Error('internal: integer values in a DECIMAL VALUES column are not converted');
  return value;
}

/**
 * `a UNION ALL b` (and `UNION`, which removes duplicates), `INTERSECT [ALL]`, `EXCEPT [ALL]`
 * (set-operations.ts): the right side's columns take the left side's names, both cast to the
 * common type where they differ.
 */
export function compileSetOp(query: Extract<SqlQuery, { k: 'setOp' }>, ctx: QueryContext, compile: Compile): Relation {
  const left = compile(query.left, ctx);
  const right = compile(query.right, ctx);
  const lf = left.stream.schema.fields;
  const rf = right.stream.schema.fields;
  if (lf.length !== rf.length) {
    throw new SqlError(query.pos, `${query.op}: the left query has ${lf.length} columns (${lf.map((f) => f.name).join(', ')}) and the right one ${rf.length} (${rf.map((f) => f.name).join(', ')})`);
  }
  const types = lf.map((f, i) => widest(f.type, (rf[i] as Field).type, query.pos));
  const align = (r: Relation, fields: readonly Field[]): Stream<Row> => {
    const same = fields.every((f, i) => f.name === (lf[i] as Field).name && f.type.root === (types[i] as LogicalType).root);
    if (same) return r.stream;
    return atPosition(query.pos, () =>
      r.stream.calc(
        fields.map((f, i) => {
          const ref: Expr = { kind: 'ref', name: f.name };
          const type = types[i] as LogicalType;
          return { name: (lf[i] as Field).name, expr: f.type.root === type.root ? ref : ({ kind: 'cast', expr: ref, type } as Expr) };
        }),
      ),
    );
  };
  const l = align(left, lf);
  const r = align(right, rf);
  if (query.op !== 'UNION') {
    const set = atPosition(query.pos, () => intersectOrExcept(l, r, query.op as IntersectOrExcept, query.all, stateTtl(ctx)));
    return { stream: set, scope: scopeOf(set.schema, query.op, []) };
  }
  const stream = atPosition(query.pos, () => l.unionAll(r));
  const all: Relation = { stream, scope: scopeOf(stream.schema, 'UNION', []) };
  return query.all ? all : distinct(all, query.pos, ctx);
}

/**
 * ORDER BY / LIMIT as Flink's streaming planner allows them:
 *
 * - `ORDER BY … LIMIT n [OFFSET m]`: a Top-N over the whole stream (Flink's SortLimit: an
 *   updating result of the first rows); by a PROCTIME() attribute ascending alone it is the first
 *   rows to arrive, as below; by one otherwise (`ORDER BY pt DESC LIMIT n`: the latest rows) a
 *   Top-N over it materialized.
 * - `LIMIT n [OFFSET m]` without ORDER BY: the first rows to arrive (Flink's Limit), on one shard.
 * - `ORDER BY time [ASC] [, …]` without LIMIT: a temporal sort (Flink's TemporalSort) by a rowtime
 *   or PROCTIME() attribute; any other first key, or DESC, gets Flink's error.
 * - OFFSET without LIMIT / FETCH gets Flink's error too; `LIMIT 0` gives no rows, as Flink's
 *   pruned plan does.
 */
export function compileOrderBy(query: Extract<SqlQuery, { k: 'ordered' }>, ctx: QueryContext, compile: Compile): Relation {
  // ORDER BY a column of the FROM that the select list leaves out (`SELECT id FROM t ORDER BY
  // ts LIMIT 3`): selected as a hidden column for the sort, dropped after it.
  const hidden = hiddenOrderColumns(query);
  const inner = query.query;
  const input = compile(hidden.length > 0 && inner.k === 'select' ? { ...inner, items: [...inner.items, ...hidden] } : inner, ctx);
  const hiddenNames = new Map(hidden.map((h) => [((h.expr as { parts: readonly string[] }).parts.at(-1) as string).toLowerCase(), h.alias as string]));
  const count = (e: SqlExpr | undefined, what: string): number | undefined => {
    if (e === undefined) return undefined;
    if (e.k !== 'num' || !/^\d+$/.test(e.text)) throw new SqlError(e.pos, `${what} takes a non-negative integer literal`);
    return Number(e.text);
  };
  const limit = count(query.limit, 'LIMIT');
  const offset = count(query.offset, 'OFFSET');
  if (limit === undefined && offset !== undefined) {
    // StreamExecLimit / StreamExecSortLimit: an OFFSET alone has no end in an unbounded stream.
    throw new SqlError(query.offset?.pos ?? query.pos, 'FETCH is missed, which on streaming table is not supported currently: OFFSET needs LIMIT n (or FETCH FIRST n ROWS ONLY)');
  }
  const fields = input.stream.schema.fields;
  const orderBy = query.orderBy.map((o) => {
    if (o.expr.k !== 'id') throw new SqlError(o.expr.pos, 'ORDER BY takes output columns');
    const name = hiddenNames.get((o.expr.parts.at(-1) as string).toLowerCase()) ?? (o.expr.parts.at(-1) as string);
    const sort = { direction: o.direction, ...(o.nulls ? { nulls: o.nulls } : {}), pos: o.expr.pos, label: o.expr.parts.at(-1) as string };
    // A PROCTIME() attribute lives in the scope, not in the rows.
    const proctime = input.scope.columns.find((c) => c.proctime && c.name.toLowerCase() === name.toLowerCase());
    if (proctime) return { column: proctime.name, ...sort, timeAttribute: 'proctime' as const };
    const field = fields.find((f) => f.name === name) ?? fields.find((f) => f.name.toLowerCase() === name.toLowerCase());
    if (!field) throw new SqlError(o.expr.pos, `unknown column '${name}' in ORDER BY (columns: ${fields.map((f) => f.name).join(', ')})`);
    return { column: field.name, ...sort, timeAttribute: field.timeAttribute };
  });
  type Key = (typeof orderBy)[number];
  const sortField = ({ timeAttribute: _t, pos: _p, label: _l, ...o }: Key) => o;
  const secondary = (keys: readonly Key[]): ReturnType<typeof sortField>[] =>
    keys.map((k) => {
      if (k.timeAttribute === 'proctime') throw new SqlError(k.pos, `ORDER BY the PROCTIME() attribute '${k.label}' is supported as the first sort key only`);
      return sortField(k);
    });
  let stream: Stream<Row>;
  if (limit === undefined) {
    const first = orderBy[0];
    if (!first) return input;
    if (first.timeAttribute === undefined || first.direction !== 'ASC') {
      throw new SqlError(first.pos, `${NON_TIME_SORT_MESSAGE}: a streaming ORDER BY without LIMIT must start with a time attribute ascending`);
    }
    // Flink's TemporalSort: by event time, or by arrival for a PROCTIME() attribute.
    const rest = secondary(orderBy.slice(1));
    stream = atPosition(first.pos, () =>
      first.timeAttribute === 'rowtime'
        ? input.stream.sortByTime({ orderBy: [sortField(first), ...rest] })
        : input.stream.sortByTime({ orderBy: rest, timeDomain: 'processing', timeAttribute: first.label }),
    );
  } else if (limit === 0) {
    // Flink prunes `LIMIT 0` to an empty input: the query runs and gives no rows.
    const none: Expr = { kind: 'literal', value: false, type: { root: 'BOOLEAN', nullable: false } };
    stream = atPosition(query.limit?.pos ?? query.pos, () => input.stream.filter(none)) as Stream<Row>;
  } else {
    const first = orderBy[0];
    const range = offset === undefined || offset === 0 ? { atMost: limit } : { between: [offset + 1, offset + limit] as const };
    if (first === undefined || (first.timeAttribute === 'proctime' && first.direction === 'ASC' && orderBy.length === 1)) {
      // Without ORDER BY (Flink's Limit), or by arrival (Flink's SortLimit over a PROCTIME()
      // attribute ascending, whose AppendOnlyFirstNFunction keeps the same first rows).
      stream = atPosition(query.limit?.pos ?? query.pos, () => input.stream.limit(limit, { offset: offset ?? 0 }));
    } else {
      // Any other sort by a PROCTIME() attribute (DESC: the latest rows to arrive, or among other
      // keys) is Flink's Rank over the attribute materialized: the time each row is processed.
      const proctime = orderBy.some((k) => k.timeAttribute === 'proctime');
      const ranked = proctime ? materializeProctime(input, query.pos) : input.stream;
      const sortFields = proctime ? orderBy.map(sortField) : secondary(orderBy);
      stream = atPosition(query.pos, () => ranked.rank({ partitionBy: [], orderBy: sortFields, range, rankType: 'ROW_NUMBER' })) as Stream<Row>;
    }
  }
  if (hidden.length === 0) return { stream, scope: scopeOf(stream.schema, 'query', []) };
  const hiddenSet = new Set(hiddenNames.values());
  const kept = stream.schema.fields.filter((f) => !hiddenSet.has(f.name)).map((f) => ({ name: f.name, expr: { kind: 'ref', name: f.name } as Expr }));
  // A hidden PROCTIME() attribute is no column of the rows: nothing to drop then.
  if (kept.length === stream.schema.fields.length) return { stream, scope: scopeOf(stream.schema, 'query', []) };
  const all = stream;
  const visible = atPosition(query.pos, () => all.calc(kept));
  return { stream: visible, scope: scopeOf(visible.schema, 'query', []) };
}

/**
 * The relation's rows with its PROCTIME() attributes materialized (Flink's PROCTIME_MATERIALIZE):
 * each a TIMESTAMP_LTZ(3) column of the time the row is processed, at its place in the select list.
 */
function materializeProctime(input: Relation, pos: SqlExpr['pos']): Stream<Row> {
  const order = input.selectOrder ?? streamColumnOrder(input);
  const now: Expr = { kind: 'call', fn: 'CURRENT_TIMESTAMP', args: [] };
  const projection = order.map((o) => ('column' in o ? { name: o.column, expr: { kind: 'ref', name: o.column } as Expr } : { name: o.proctime, expr: now }));
  return atPosition(pos, () => input.stream.calc(projection));
}

/**
 * The ORDER BY columns a plain SELECT (no DISTINCT, GROUP BY or `*`) does not output, as hidden
 * select items `$order0`, `$order1`, …
 */
function hiddenOrderColumns(query: Extract<SqlQuery, { k: 'ordered' }>): SqlSelectItem[] {
  const inner = query.query;
  if (inner.k !== 'select' || inner.distinct || inner.groupBy.length > 0 || inner.items.some((i) => i.expr.k === 'star' || isAggregateCall(i.expr))) return [];
  const outputs = new Set(inner.items.map((i) => (i.alias ?? (i.expr.k === 'id' ? i.expr.parts.at(-1) : undefined))?.toLowerCase()).filter((n) => n !== undefined));
  const hidden: SqlSelectItem[] = [];
  for (const o of query.orderBy) {
    if (o.expr.k !== 'id') continue;
    const name = (o.expr.parts.at(-1) as string).toLowerCase();
    if (outputs.has(name) || hidden.some((h) => (h.expr as { parts: readonly string[] }).parts.at(-1)?.toLowerCase() === name)) continue;
    hidden.push({ expr: o.expr, alias: `$order${hidden.length}`, pos: o.expr.pos });
  }
  return hidden;
}
