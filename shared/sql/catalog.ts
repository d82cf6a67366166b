/**
 * The script's catalog: Flink's one built-in catalog, `default_catalog`, with its databases
 * (`default_database`, and those CREATE DATABASE adds), the current database (USE), and the
 * tables and views declared so far. A table's definition (table-definition.ts) compiles here
 * into what queries read: the physical schema, computed columns, `PROCTIME()` attributes, the
 * watermark, the primary key and the connector.
 *
 * Objects are kept by key: the bare name in `default_database`, `db.name` in another database,
 * so a script that never names a database sees its tables by their names (sources and sinks
 * are named by key too).
 */
import { parseType } from '../core/type-parse.ts';
import type { Field, Schema } from '../core/types.ts';
import type { WatermarkSpec } from '../plan/logical.ts';
import { basename } from 'node:path';
import type { SqlColumn, SqlExpr, SqlQuery } from './ast.ts';
import { readConnector, type TableConnector } from './connectors.ts';
import { SqlError, atPosition, type SqlPosition } from './errors.ts';
import { intervalMs } from './sql-literals.ts';
import type { TableDefinition } from './table-definition.ts';

/** The one catalog (Flink's built-in in-memory catalog) and its default database. */
export const DEFAULT_CATALOG = 'default_catalog';
export const DEFAULT_DATABASE = 'default_database';

/** A table declared with CREATE TABLE. */
export interface CatalogTable {
  /** Its key in the catalog (the source and sink name). */
  readonly name: string;
  /** The declaration, as DESCRIBE and SHOW CREATE TABLE print it and LIKE / ALTER TABLE start from. */
  readonly definition: TableDefinition;
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
  /** The file `--input` gives this table (kept when a query's `OPTIONS(…)` hint compiles it again, see {@link withDynamicOptions}). */
  readonly inputOverride?: string;
}

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
  /** Where CREATE VIEW put it (absent for a WITH query, which lives while its query compiles). */
  readonly declared?: { readonly name: string; readonly database: string; readonly temporary: boolean; readonly queryText: string };
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

/** Tables and views of a script, by key (see the module header). */
export interface Catalog {
  readonly tables: Map<string, CatalogTable>;
  readonly views: Map<string, CatalogView>;
  /** The databases of default_catalog, with their comments. */
  readonly databases: Map<string, { readonly comment?: string }>;
  /** The database bare names resolve in (`USE db`). */
  currentDatabase: string;
}

/** An empty catalog: `default_catalog.default_database`, current. */
export function newCatalog(): Catalog {
  return { tables: new Map(), views: new Map(), databases: new Map([[DEFAULT_DATABASE, {}]]), currentDatabase: DEFAULT_DATABASE };
}

/** The key of object `name` in `database`. */
export function objectKey(database: string, name: string): string {
  return database === DEFAULT_DATABASE ? name : `${database}.${name}`;
}

/** An object's identifier as Flink prints it in messages: `default_catalog.default_database.t`. */
export function summaryName(database: string, name: string): string {
  return `${DEFAULT_CATALOG}.${database}.${name}`;
}

/** A name as written: the object name and the catalog / database before it. */
export interface ObjectReference {
  readonly name: string;
  readonly qualifier?: readonly string[];
  readonly pos: SqlPosition;
}

/**
 * Resolves a reference: a bare name in the current database, `db.name` in database `db`,
 * `cat.db.name` in database `db` of catalog `cat`, which must be default_catalog.
 *
 * @throws SqlError with Flink's messages for an unknown catalog or database.
 */
export function resolveName(catalog: Catalog, ref: ObjectReference): { readonly key: string; readonly database: string; readonly name: string } {
  const q = ref.qualifier ?? [];
  if (q.length > 2) throw new SqlError(ref.pos, `'${[...q, ref.name].join('.')}' has too many parts: write [catalog.][database.]name`);
  if (q.length === 2) checkCatalog(q[0] as string, ref.pos);
  const database = q.length === 0 ? catalog.currentDatabase : (q[q.length - 1] as string);
  checkDatabase(catalog, database, ref.pos);
  return { key: objectKey(database, ref.name), database, name: ref.name };
}

/** Fails unless `name` is the catalog (Flink's CatalogManager message). */
export function checkCatalog(name: string, pos: SqlPosition): void {
  if (name !== DEFAULT_CATALOG) throw new SqlError(pos, `A catalog with name [${name}] does not exist.`);
}

/** Fails unless `database` exists (Flink's CatalogManager message). */
export function checkDatabase(catalog: Catalog, database: string, pos: SqlPosition): void {
  if (!catalog.databases.has(database)) throw new SqlError(pos, `A database with name [${database}] does not exist in the catalog: [${DEFAULT_CATALOG}].`);
}

/**
 * The catalog key a FROM table reference reads: a WITH query of that bare name first (it is
 * kept by its bare name while its query compiles), else the resolved table or view.
 */
export function tableKey(catalog: Catalog, ref: ObjectReference): string {
  if (ref.qualifier === undefined) {
    const cte = catalog.views.get(ref.name);
    if (cte !== undefined && cte.declared === undefined) return ref.name;
  }
  return resolveName(catalog, ref).key;
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

/**
 * Adds a table's definition to the catalog under its key.
 *
 * @throws SqlError for a column declared twice, a bad watermark, primary key or option.
 */
export function addTable(catalog: Catalog, stmt: TableDefinition, inputs?: ReadonlyMap<string, string>): void {
  const key = objectKey(stmt.database, stmt.name);
  if (catalog.tables.has(key) || catalog.views.has(key)) throw new SqlError(stmt.pos, `table '${stmt.name}' is declared twice`);
  catalog.tables.set(key, compileTable(key, stmt, inputs));
}

/**
 * The table a query reads or writes with `t /*+ OPTIONS('k'='v', …) *\/` (Flink's dynamic table
 * options): its WITH options overridden by the hint's, compiled again, so an option error points
 * at the hint. A hinted 'path' wins over `--input`.
 */
export function withDynamicOptions(table: CatalogTable, options: ReadonlyMap<string, string>, pos: SqlPosition): CatalogTable {
  const merged = new Map(table.definition.options);
  for (const [key, value] of options) merged.set(key, { value, pos });
  const input = options.has('path') || table.inputOverride === undefined ? undefined : new Map([[table.name, table.inputOverride]]);
  return compileTable(table.name, { ...table.definition, options: merged }, input);
}

/** The catalog table of a definition (`inputs`: `--input` files by table key). */
export function compileTable(key: string, stmt: TableDefinition, inputs?: ReadonlyMap<string, string>): CatalogTable {
  const inputOverride = inputs?.get(key);
  const fields: Field[] = [];
  const computed: { name: string; expr: SqlExpr }[] = [];
  const proctime: string[] = [];
  const names = new Set<string>();
  const connector = readConnector(stmt.name, stmt.options, stmt.pos, inputOverride);
  for (const c of stmt.columns) {
    if (names.has(c.name)) throw new SqlError(c.pos, `column '${c.name}' is declared twice in table '${stmt.name}'`);
    names.add(c.name);
    if (c.computed) {
      if (c.computed.k === 'call' && c.computed.name === 'PROCTIME' && c.computed.args.length === 0) proctime.push(c.name);
      else computed.push({ name: c.name, expr: c.computed });
      continue;
    }
    const type = atPosition(c.pos, () => parseType(c.type ?? ''));
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
    if (column && column.type.root !== 'TIMESTAMP' && column.type.root !== 'TIMESTAMP_LTZ') throw new SqlError(w.pos, `watermark column '${w.column}' must be TIMESTAMP(3) or TIMESTAMP_LTZ(3) (it is ${column.type.root})`);
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
  const primaryKey = stmt.primaryKey?.columns;
  for (const k of primaryKey ?? []) {
    if (!names.has(k)) throw new SqlError(stmt.pos, `primary key column '${k}' is not a column of table '${stmt.name}'`);
  }
  for (const p of stmt.partitionedBy ?? []) {
    if (!fields.some((f) => f.name === p)) throw new SqlError(stmt.pos, `partition column '${p}' is not a physical column of table '${stmt.name}'`);
  }
  const scan = stmt.options.get('scan.parallelism');
  const parallelism = scan === undefined ? undefined : Number(scan.value);
  if (parallelism !== undefined && (!Number.isSafeInteger(parallelism) || parallelism < 1)) {
    throw new SqlError(scan?.pos ?? stmt.pos, `table '${stmt.name}': 'scan.parallelism' must be a positive integer (given '${scan?.value}')`);
  }
  return {
    name: key,
    definition: stmt,
    physical: { fields },
    computed,
    proctime,
    ...(watermark ? { watermark } : {}),
    ...(primaryKey ? { primaryKey } : {}),
    connector,
    ...(parallelism !== undefined ? { parallelism } : {}),
    pos: stmt.pos,
    ...(inputOverride !== undefined ? { inputOverride } : {}),
  };
}
