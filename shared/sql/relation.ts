/**
 * What the query compilers share: a compiled {@link Relation}, the script-wide
 * {@link QueryContext}, the `SET` options a query reads, and SELECT DISTINCT.
 *
 * Split from query.ts so that imports point one way: query.ts (SELECT, FROM, joins) and
 * query-compose.ts (set operations, VALUES, WITH, ORDER BY / LIMIT, which query.ts calls) both
 * need these pieces, and query-compose.ts no longer has to import query.ts back.
 */
import type { Pipeline } from '../api/pipeline.ts';
import type { Stream } from '../api/stream.ts';
import { parseDuration } from '../api/windows.ts';
import { PlanError } from '../core/errors.ts';
import type { Row } from '../core/types.ts';
import type { WindowSpec } from '../plan/logical.ts';
import type { Catalog } from './catalog.ts';
import type { SqlHint } from './ast.ts';
import type { LookupTableSpec } from './connectors.ts';
import { atPosition, type SqlPosition } from './errors.ts';
import { scopeOf, type Scope, type ScopeColumn } from './expressions.ts';

/** A compiled query: its stream and what its columns are called. */
export interface Relation {
  readonly stream: Stream<Row>;
  readonly scope: Scope;
  /**
   * Set when the relation is a window TVF not consumed yet: the rules turn `GROUP BY
   * window_start, window_end` into a window aggregate and a rank partitioned by the window
   * into a window Top-N / deduplication, reading `base` directly; anything else materializes
   * the TVF (WindowTableFunction) through `stream`.
   */
  readonly window?: { readonly spec: WindowSpec; readonly base: Stream<Row>; readonly baseScope: Scope; readonly proctime?: boolean };
  /**
   * The select list's columns in order, where it names PROCTIME() attributes (which stay
   * virtual in `stream`): a statement's result materializes them at these places.
   */
  readonly selectOrder?: readonly SelectedColumn[];
}

/** One column of a select list: a column of the relation's stream, or a PROCTIME() attribute. */
export type SelectedColumn = { readonly column: string } | { readonly proctime: string };

/** State shared by the queries of one script. */
export interface QueryContext {
  readonly pipeline: Pipeline;
  readonly catalog: Catalog;
  /** Tables already read, by name: a table read again is the same stream. */
  readonly usedSources: Map<string, Relation>;
  /** Dimension tables by LookupJoin node id. */
  readonly lookups: Map<number, LookupTableSpec>;
  /** `SET` options seen so far (`table.exec.state.ttl`, `table.exec.topn.cache-size`). */
  readonly settings: ReadonlyMap<string, string>;
  /** Compile warnings (`line L:C: …`). */
  readonly warnings: string[];
  /** Declares a source for a catalog table (with the hints written after its name) and returns its stream. */
  readonly source: (table: string, pos: SqlPosition, hints?: readonly SqlHint[]) => Relation;
}

/** `table.exec.state.ttl` in milliseconds, when set (and not 0, Flink's "never"). */
export function stateTtl(ctx: QueryContext): { stateTtlMs?: number } {
  const v = ctx.settings.get('table.exec.state.ttl');
  if (v === undefined) return {};
  const ms = parseDuration(v.trim().replace(/^(\d+(?:\.\d+)?)\s*([a-z]+)$/i, '$1 $2'), "SET 'table.exec.state.ttl'");
  return ms > 0 ? { stateTtlMs: ms } : {};
}

/** `table.exec.topn.cache-size`, when set. */
export function topNCacheSize(ctx: QueryContext): { cacheSize?: number } {
  const v = ctx.settings.get('table.exec.topn.cache-size');
  if (v === undefined) return {};
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 1) throw new PlanError(`SET 'table.exec.topn.cache-size' must be a positive integer (given '${v}')`);
  return { cacheSize: n };
}

/**
 * A relation over `stream`: its columns carry `qualifiers` (the table name or alias), and those
 * named in `proctime` are PROCTIME() attributes.
 */
export function relation(stream: Stream<Row>, qualifiers: readonly string[], description: string, proctime: readonly string[] = []): Relation {
  return { stream, scope: scopeOf(stream.schema, description, qualifiers, proctime) };
}

/**
 * The relation's columns in the order `*` takes them: the scope's order, which keeps a PROCTIME()
 * attribute at its place in the select list or table declaration (it has no column in the rows).
 */
export function columnOrder(r: Relation): SelectedColumn[] {
  return r.scope.columns.filter((c) => !c.qualifiedOnly).map((c) => (c.proctime ? { proctime: c.name } : { column: c.field }));
}

/**
 * The relation's stream columns and PROCTIME() attributes in the scope's order (stream columns
 * the scope does not name last), for a result that materializes the attributes in place.
 */
export function streamColumnOrder(r: Relation): SelectedColumn[] {
  const fields = new Set(r.stream.schema.fields.map((f) => f.name));
  const out: SelectedColumn[] = [];
  for (const o of columnOrder(r)) {
    if ('proctime' in o) out.push(o);
    else if (fields.delete(o.column)) out.push(o);
  }
  return [...out, ...[...fields].map((column) => ({ column }))];
}

/**
 * `r` with its scope's columns in `order` (stream columns by field, PROCTIME() attributes by
 * name); columns `order` does not name keep their order after those it names.
 */
export function inColumnOrder(r: Relation, order: readonly SelectedColumn[]): Relation {
  const rest = [...r.scope.columns];
  const columns: ScopeColumn[] = [];
  for (const o of order) {
    const i = rest.findIndex((c) => ('proctime' in o ? c.proctime === true && c.name === o.proctime : !c.proctime && !c.qualifiedOnly && c.field === o.column));
    if (i >= 0) columns.push(...rest.splice(i, 1));
  }
  return { ...r, scope: { ...r.scope, columns: [...columns, ...rest] } };
}

/**
 * A relation over `inner`'s stream under new qualifiers (a view, a subquery, an alias): the
 * same columns in the same order, its PROCTIME() attributes where they were.
 */
export function rewrap(inner: Relation, qualifiers: readonly string[], description: string): Relation {
  const proctime = inner.scope.columns.filter((c) => c.proctime).map((c) => c.name);
  return inColumnOrder(relation(inner.stream, qualifiers, description, proctime), columnOrder(inner));
}

/** One row per distinct row of `input` (Flink plans SELECT DISTINCT as a GroupAggregate). */
export function distinct(input: Relation, pos: SqlPosition, ctx: QueryContext): Relation {
  const keys = input.stream.schema.fields.map((f) => f.name);
  const out = atPosition(pos, () => input.stream.groupBy(...(keys as never[])).aggregate({}, stateTtl(ctx))) as unknown as Stream<Row>;
  return relation(out, input.scope.columns[0]?.qualifiers ?? [], input.scope.description);
}
