/**
 * CREATE TABLE / CREATE VIEW → catalog entries: the physical schema, computed columns,
 * `PROCTIME()` attributes, the watermark, the primary key and the connector.
 */
import { parseType } from '../core/type-parse.ts';
import type { Field, Schema } from '../core/types.ts';
import type { WatermarkSpec } from '../plan/logical.ts';
import { basename } from 'node:path';
import type { SqlColumn, SqlExpr, SqlQuery, SqlStatement } from './ast.ts';
import { readConnector, type TableConnector, type TableOptions } from './connectors.ts';
import { SqlError, atPosition, type SqlPosition } from './errors.ts';
import { intervalMs, normalizeTypeText } from './sql-literals.ts';

/** A table declared with CREATE TABLE. */
export interface CatalogTable {
  readonly name: string;
  /** Columns read from the connector. */
  readonly physical: Schema;
  /** Computed columns (`name AS expr`), in declaration order, evaluated after the source. */
  readonly computed: readonly { readonly name: string; readonly expr: SqlExpr }[];
  /** `name AS PROCTIME()` columns. */
  readonly proctime: readonly string[];
  readonly watermark?: WatermarkSpec;
  readonly primaryKey?: readonly string[];
  readonly connector: TableConnector;
  /** `scan.parallelism`: source shards. */
  readonly parallelism?: number;
  readonly pos: SqlPosition;
  /** The CREATE TABLE statement, read again with a query's `OPTIONS(…)` hint (see {@link withDynamicOptions}). */
  readonly statement: CreateTable;
  /** The file `--input` gives this table. */
  readonly inputOverride?: string;
}

type CreateTable = Extract<SqlStatement, { k: 'createTable' }>;

/** A view (CREATE VIEW, or a WITH query while its query compiles). */
export interface CatalogView {
  readonly query: SqlQuery;
  /** The view's column list, renaming the query's columns by position. */
  readonly columns?: readonly string[];
  readonly pos: SqlPosition;
  /**
   * The views its query sees: those declared before it (and a WITH item's earlier siblings),
   * not itself and not a WITH item of the query that reads it — names resolve where the view
   * is written, as in Flink, whatever is in scope where it is used.
   */
  readonly scope: ReadonlyMap<string, CatalogView>;
}

/** Compiles a view's query with the views of its own scope visible (and restores them after). */
export function inViewScope<T>(catalog: Catalog, view: CatalogView, compile: () => T): T {
  const outer = new Map(catalog.views);
  catalog.views.clear();
  for (const [name, v] of view.scope) catalog.views.set(name, v);
  try {
    return compile();
  } finally {
    catalog.views.clear();
    for (const [name, v] of outer) catalog.views.set(name, v);
  }
}

/** Tables and views of a script. */
export interface Catalog {
  readonly tables: Map<string, CatalogTable>;
  readonly views: Map<string, CatalogView>;
}

/** Metadata keys of the filesystem connector (Flink's FileSystemTableSource) read here. */
const FILE_METADATA = ['file.path', 'file.name'];

/**
 * The value of a METADATA column. The filesystem connector's file metadata is known when the
 * script compiles (one file per table); other connectors' metadata is not read yet, which is an
 * error rather than a column of NULLs.
 */
function metadataValue(table: string, connector: TableConnector, column: SqlColumn): SqlExpr {
  const key = column.metadataKey ?? column.name;
  const pos = column.pos;
  if (connector.name === 'filesystem') {
    if (!FILE_METADATA.includes(key)) {
      throw new SqlError(pos, `table '${table}': invalid metadata key '${key}' in column '${column.name}'; the filesystem connector supports ${FILE_METADATA.join(', ')}`);
    }
    const path = connector.source?.type === 'jsonl' ? connector.source.path : undefined;
    if (path === undefined) throw new SqlError(pos, `table '${table}': metadata '${key}' needs the table's file: give 'path' or --input ${table}=<file>`);
    return { k: 'str', value: key === 'file.name' ? basename(path) : path, pos };
  }
  throw new SqlError(pos, `table '${table}': connector '${connector.name}' provides no readable metadata here (column '${column.name}', key '${key}'); declare it as a physical column instead`);
}

/** Adds a CREATE TABLE statement to the catalog. */
export function addTable(catalog: Catalog, stmt: CreateTable, inputs?: ReadonlyMap<string, string>): void {
  // IF NOT EXISTS on a declared name is a no-op, as in Flink.
  if (stmt.ifNotExists && (catalog.tables.has(stmt.name) || catalog.views.has(stmt.name))) return;
  if (catalog.tables.has(stmt.name) || catalog.views.has(stmt.name)) throw new SqlError(stmt.pos, `table '${stmt.name}' is declared twice`);
  if (stmt.like) throw new SqlError(stmt.like.pos, 'CREATE TABLE … LIKE is not supported yet');
  if (stmt.partitionedBy) throw new SqlError(stmt.partitionedBy[0]?.pos ?? stmt.pos, 'PARTITIONED BY is not supported yet');
  catalog.tables.set(stmt.name, readTable(stmt, inputs?.get(stmt.name)));
}

/**
 * The table a query reads or writes with `t /*+ OPTIONS('k'='v', …) *\/` (Flink's dynamic table
 * options): its WITH options overridden by the hint's, read again, so an option error points
 * at the hint. A hinted 'path' wins over `--input`.
 */
export function withDynamicOptions(table: CatalogTable, options: ReadonlyMap<string, string>, pos: SqlPosition): CatalogTable {
  const merged = new Map(table.statement.options);
  for (const [key, value] of options) merged.set(key, { value, pos });
  return readTable({ ...table.statement, options: merged }, options.has('path') ? undefined : table.inputOverride);
}

function readTable(stmt: CreateTable, inputOverride: string | undefined): CatalogTable {
  const options: TableOptions = stmt.options;
  const fields: Field[] = [];
  const computed: { name: string; expr: SqlExpr }[] = [];
  const proctime: string[] = [];
  const names = new Set<string>();
  const connector = readConnector(stmt.name, options, stmt.pos, inputOverride);
  for (const c of stmt.columns) {
    if (names.has(c.name)) throw new SqlError(c.pos, `column '${c.name}' is declared twice in table '${stmt.name}'`);
    names.add(c.name);
    if (c.computed) {
      if (c.computed.k === 'call' && c.computed.name === 'PROCTIME' && c.computed.args.length === 0) proctime.push(c.name);
      else computed.push({ name: c.name, expr: c.computed });
      continue;
    }
    const type = atPosition(c.pos, () => parseType(normalizeTypeText(c.type ?? '')));
    if (c.metadata) {
      // The connector's metadata, computed after the source like a computed column.
      computed.push({ name: c.name, expr: { k: 'cast', expr: metadataValue(stmt.name, connector, c), type: c.type ?? 'STRING', pos: c.pos } });
      continue;
    }
    fields.push({ name: c.name, type });
  }
  let watermark: WatermarkSpec | undefined;
  if (stmt.watermark) {
    const w = stmt.watermark;
    const column = fields.find((f) => f.name === w.column);
    // A computed rowtime's type is known once its expression compiles (declareSource checks it).
    const isComputed = computed.some((c) => c.name === w.column);
    if (!column && !isComputed) {
      const why = proctime.includes(w.column) ? 'a PROCTIME() column' : 'not a column';
      throw new SqlError(w.pos, `watermark column '${w.column}' of table '${stmt.name}' is ${why}`);
    }
    if (column && column.type.root !== 'TIMESTAMP') throw new SqlError(w.pos, `watermark column '${w.column}' must be TIMESTAMP(3) (it is ${column.type.root})`);
    let delay = 0;
    const e = w.expr;
    if (e.k === 'bin' && e.op === '-' && e.left.k === 'id' && e.left.parts.at(-1) === w.column) delay = intervalMs(e.right);
    else if (!(e.k === 'id' && e.parts.at(-1) === w.column)) {
      throw new SqlError(e.pos, `watermark must be '${w.column}' or '${w.column} - INTERVAL …' (bounded out-of-orderness)`);
    }
    watermark = { column: w.column, outOfOrdernessMs: delay };
    const idle = stmt.options.get('scan.watermark.idle-timeout');
    if (idle) {
      const m = /^(\d+)\s*(ms|s|min)?$/.exec(idle.value.trim());
      if (!m) throw new SqlError(idle.pos, `cannot read 'scan.watermark.idle-timeout' = '${idle.value}'`);
      watermark = { ...watermark, idleTimeoutMs: Number(m[1]) * (m[2] === 'min' ? 60_000 : m[2] === 's' ? 1000 : 1) };
    }
  }
  for (const k of stmt.primaryKey ?? []) {
    if (!names.has(k)) throw new SqlError(stmt.pos, `primary key column '${k}' is not a column of table '${stmt.name}'`);
  }
  const scan = stmt.options.get('scan.parallelism');
  const parallelism = scan === undefined ? undefined : Number(scan.value);
  if (parallelism !== undefined && (!Number.isSafeInteger(parallelism) || parallelism < 1)) {
    throw new SqlError(scan?.pos ?? stmt.pos, `table '${stmt.name}': 'scan.parallelism' must be a positive integer (given '${scan?.value}')`);
  }
  return {
    name: stmt.name,
    physical: { fields },
    computed,
    proctime,
    ...(watermark ? { watermark } : {}),
    ...(stmt.primaryKey ? { primaryKey: stmt.primaryKey } : {}),
    connector,
    ...(parallelism !== undefined ? { parallelism } : {}),
    pos: stmt.pos,
    statement: stmt,
    ...(inputOverride !== undefined ? { inputOverride } : {}),
  };
}
