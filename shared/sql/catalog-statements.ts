/**
 * The catalog statements as a script runs them, in order, against its catalog (catalog.ts):
 * CREATE TABLE (with LIKE, IF NOT EXISTS, TEMPORARY) / VIEW / DATABASE, DROP, ALTER TABLE /
 * VIEW, USE, and the listings SHOW … and DESCRIBE, whose results the script prints (Flink's SQL
 * client tables, catalog-output.ts). Errors carry Flink's messages where Flink has one.
 */
import type { Field } from '../core/types.ts';
import type { UserFunctionDefinition } from '../api/user-functions.ts';
import { builtinNames } from '../plan/expr-builtins.ts';
import type { SqlCatalogStatement, SqlShowLike, SqlStatement } from './ast.ts';
import {
  DEFAULT_CATALOG,
  addTable,
  checkCatalog,
  compileTable,
  objectKey,
  resolveName,
  summaryName,
  type Catalog,
  type CatalogView,
  type ObjectReference,
} from './catalog.ts';
import { describeColumns, describeTable, showCreateTable, showCreateView, type StatementResult } from './catalog-output.ts';
import { SqlError, type SqlPosition } from './errors.ts';
import { aggregateFunctionNames } from './expressions.ts';
import { alterDefinition } from './table-alter.ts';
import { definitionOf, mergeLike, type TableDefinition } from './table-definition.ts';

/** A user function as CREATE FUNCTION declared it. */
export interface DeclaredFunction {
  readonly name: string;
  readonly temporary: boolean;
  readonly system: boolean;
}

/** What the catalog statements read and change while a script compiles. */
export interface CatalogSession {
  readonly catalog: Catalog;
  /** User functions by upper-case name (what queries call). */
  readonly functions: Map<string, UserFunctionDefinition>;
  /** How each was declared, by upper-case name. */
  readonly declaredFunctions: Map<string, DeclaredFunction>;
  /** `--input` paths by table key. */
  readonly inputs?: ReadonlyMap<string, string>;
  /** The columns of a view's query (compiled apart, never run). */
  readonly viewFields: (key: string, view: CatalogView) => readonly Field[];
}

/** Window TVFs and ranking functions, which Flink lists among its functions too. */
const OTHER_FUNCTIONS = ['TUMBLE', 'HOP', 'CUMULATE', 'SESSION', 'ROW_NUMBER', 'RANK', 'DENSE_RANK', 'PROCTIME', 'CAST', 'TRY_CAST'];

type CreateTable = Extract<SqlStatement, { k: 'createTable' }>;
type CreateView = Extract<SqlStatement, { k: 'createView' }>;

/**
 * The definition of a CREATE TABLE (merged with its LIKE source), or undefined when
 * `IF NOT EXISTS` finds the table there already (Flink then does nothing).
 *
 * @throws SqlError for a name in use, a LIKE source that is not a table, or a merge conflict.
 */
export function tableDefinition(stmt: CreateTable, s: CatalogSession): TableDefinition | undefined {
  const { key, database } = resolveName(s.catalog, stmt);
  if (s.catalog.tables.has(key) || s.catalog.views.has(key)) {
    if (stmt.ifNotExists) return undefined;
    throw new SqlError(stmt.pos, `table '${stmt.name}' is declared twice`);
  }
  if (!stmt.like) return definitionOf(stmt, database);
  const like = stmt.like;
  const source = resolveName(s.catalog, like);
  const summary = summaryName(source.database, source.name);
  if (s.catalog.views.has(source.key)) throw new SqlError(like.pos, `Source table '${summary}' of the LIKE clause can not be a VIEW`);
  const base = s.catalog.tables.get(source.key);
  if (base === undefined) throw new SqlError(like.pos, `Source table '${summary}' of the LIKE clause not found in the catalog`);
  return mergeLike(base.definition, stmt, database);
}

/** Runs CREATE TABLE (without AS): adds the table unless IF NOT EXISTS finds it. */
export function declareTable(stmt: CreateTable, s: CatalogSession): void {
  const def = tableDefinition(stmt, s);
  if (def !== undefined) addTable(s.catalog, def, s.inputs);
}

/** Runs CREATE VIEW. */
export function declareView(stmt: CreateView, s: CatalogSession): void {
  const { key, database } = resolveName(s.catalog, stmt);
  if (s.catalog.tables.has(key) || s.catalog.views.has(key)) {
    if (stmt.ifNotExists) return;
    throw new SqlError(stmt.pos, `view '${stmt.name}' is declared twice`);
  }
  s.catalog.views.set(key, {
    query: stmt.query,
    pos: stmt.pos,
    ...(stmt.columns ? { columns: stmt.columns.map((c) => c.name) } : {}),
    // The names its query reads resolve among those declared before it (see CatalogView.scope).
    scope: new Map(s.catalog.views),
    declared: { name: stmt.name, database, temporary: stmt.temporary ?? false, queryText: stmt.queryText ?? '' },
  });
}

/**
 * Runs a catalog statement; returns what it prints (SHOW, DESCRIBE), or undefined.
 *
 * @throws SqlError at the statement for an unknown object, catalog or database, or a change
 *   Flink refuses.
 */
export function runCatalogStatement(stmt: SqlCatalogStatement, s: CatalogSession): StatementResult | undefined {
  const catalog = s.catalog;
  switch (stmt.k) {
    case 'createDatabase': {
      const db = databaseOf(stmt.target);
      if (catalog.databases.has(db)) {
        if (stmt.ifNotExists) return undefined;
        throw new SqlError(stmt.pos, `Database ${db} already exists in Catalog ${DEFAULT_CATALOG}.`);
      }
      catalog.databases.set(db, stmt.comment !== undefined ? { comment: stmt.comment } : {});
      return undefined;
    }
    case 'use':
      if (stmt.catalog) {
        if (stmt.target.qualifier) throw new SqlError(stmt.target.pos, 'USE CATALOG takes a catalog name');
        // The one catalog is current already: Flink's CatalogManager then keeps the current database.
        checkCatalog(stmt.target.name, stmt.target.pos);
        return undefined;
      }
      catalog.currentDatabase = existingDatabase(catalog, databaseOf(stmt.target), stmt.target.pos);
      return undefined;
    case 'drop':
      drop(stmt, s);
      return undefined;
    case 'alterTable':
      alterTable(stmt, s);
      return undefined;
    case 'alterView':
      alterView(stmt, s);
      return undefined;
    case 'describe':
      return describe(stmt.target, s);
    case 'show':
      return show(stmt, s);
  }
}

/** The database a `[cat.]db` reference names. */
function databaseOf(ref: ObjectReference): string {
  const q = ref.qualifier ?? [];
  if (q.length > 1) throw new SqlError(ref.pos, `'${[...q, ref.name].join('.')}' is not a database name: write [catalog.]database`);
  if (q.length === 1) checkCatalog(q[0] as string, ref.pos);
  return ref.name;
}

function existingDatabase(catalog: Catalog, db: string, pos: SqlPosition): string {
  if (!catalog.databases.has(db)) throw new SqlError(pos, `A database with name [${db}] does not exist in the catalog: [${DEFAULT_CATALOG}].`);
  return db;
}

function drop(stmt: Extract<SqlCatalogStatement, { k: 'drop' }>, s: CatalogSession): void {
  const catalog = s.catalog;
  const at = stmt.pos;
  switch (stmt.what) {
    case 'CATALOG':
      checkCatalog(stmt.target.name, stmt.target.pos);
      throw new SqlError(at, 'Cannot drop a catalog which is currently in use.');
    case 'DATABASE': {
      const db = databaseOf(stmt.target);
      if (!catalog.databases.has(db)) {
        if (stmt.ifExists) return;
        throw new SqlError(at, `Database ${db} does not exist in Catalog ${DEFAULT_CATALOG}.`);
      }
      if (db === catalog.currentDatabase) throw new SqlError(at, 'Cannot drop a database which is currently in use.');
      const keys = [...catalog.tables.values()].filter((t) => t.definition.database === db).map((t) => t.name);
      const views = [...catalog.views].filter(([, v]) => v.declared?.database === db).map(([k]) => k);
      if (keys.length + views.length > 0 && !stmt.cascade) throw new SqlError(at, `Database ${db} in catalog ${DEFAULT_CATALOG} is not empty.`);
      for (const k of keys) catalog.tables.delete(k);
      for (const k of views) catalog.views.delete(k);
      catalog.databases.delete(db);
      return;
    }
    case 'FUNCTION': {
      const upper = stmt.target.name.toUpperCase();
      const declared = s.declaredFunctions.get(upper);
      if (declared === undefined || declared.temporary !== stmt.temporary || declared.system !== (stmt.system ?? false)) {
        if (stmt.ifExists) return;
        const kind = stmt.system ? 'Temporary system function' : stmt.temporary ? 'Temporary catalog function' : 'Catalog function';
        throw new SqlError(at, `${kind} ${stmt.system ? stmt.target.name : summaryName(s.catalog.currentDatabase, stmt.target.name.toLowerCase())} doesn't exist.`);
      }
      s.declaredFunctions.delete(upper);
      s.functions.delete(upper);
      return;
    }
    case 'TABLE':
    case 'VIEW': {
      const { key, database, name } = resolveName(catalog, stmt.target);
      const isTable = stmt.what === 'TABLE';
      const temporary = isTable ? catalog.tables.get(key)?.definition.temporary : catalog.views.get(key)?.declared?.temporary;
      const summary = summaryName(database, name);
      if (temporary === undefined || temporary !== stmt.temporary) {
        // Flink's CatalogManager: a permanent DROP of a temporary object asks for DROP TEMPORARY first.
        if (temporary === true && !stmt.ifExists) {
          const kind = isTable ? 'table' : 'view';
          throw new SqlError(at, `Temporary ${kind} with identifier '${quoted(database, name)}' exists. Drop it first before removing the permanent ${kind}.`);
        }
        if (stmt.ifExists) return;
        if (stmt.temporary) throw new SqlError(at, `Temporary table or view with identifier '${summary}' does not exist.`);
        throw new SqlError(at, `${isTable ? 'Table' : 'View'} with identifier '${summary}' does not exist.`);
      }
      // As in Flink, a view that reads the dropped table fails when it is next used.
      (isTable ? catalog.tables : catalog.views).delete(key);
      return;
    }
  }
}

/** `` `default_catalog`.`db`.`t` `` (Flink's ObjectIdentifier). */
function quoted(database: string, name: string): string {
  return [DEFAULT_CATALOG, database, name].map((p) => `\`${p}\``).join('.');
}

function alterTable(stmt: Extract<SqlCatalogStatement, { k: 'alterTable' }>, s: CatalogSession): void {
  const catalog = s.catalog;
  const { key, database, name } = resolveName(catalog, stmt.target);
  const table = catalog.tables.get(key);
  if (table === undefined) {
    if (stmt.ifExists) return;
    throw new SqlError(stmt.pos, `Table ${quoted(database, name)} doesn't exist or is a temporary table.`);
  }
  const action = stmt.action;
  if (action.k === 'renameTable') {
    const to = resolveName(catalog, action.to);
    if (catalog.tables.has(to.key) || catalog.views.has(to.key)) throw new SqlError(action.to.pos, `Table (or view) ${to.database}.${to.name} already exists in Catalog ${DEFAULT_CATALOG}.`);
    catalog.tables.delete(key);
    catalog.tables.set(to.key, compileTable(to.key, { ...table.definition, name: to.name, database: to.database }, s.inputs));
    return;
  }
  catalog.tables.set(key, compileTable(key, alterDefinition(table.definition, action, stmt.pos), s.inputs));
}

function alterView(stmt: Extract<SqlCatalogStatement, { k: 'alterView' }>, s: CatalogSession): void {
  const catalog = s.catalog;
  const { key, database, name } = resolveName(catalog, stmt.target);
  const view = catalog.views.get(key);
  if (view?.declared === undefined) throw new SqlError(stmt.pos, `View ${quoted(database, name)} doesn't exist or is a temporary view.`);
  if (stmt.action.k === 'rename') {
    const to = resolveName(catalog, stmt.action.to);
    if (catalog.tables.has(to.key) || catalog.views.has(to.key)) throw new SqlError(stmt.action.to.pos, `Table (or view) ${to.database}.${to.name} already exists in Catalog ${DEFAULT_CATALOG}.`);
    catalog.views.delete(key);
    catalog.views.set(to.key, { ...view, declared: { ...view.declared, name: to.name, database: to.database } });
    return;
  }
  const { columns: _columns, ...rest } = view;
  catalog.views.set(key, { ...rest, query: stmt.action.query, declared: { ...view.declared, queryText: stmt.action.queryText } });
}

function describe(target: ObjectReference, s: CatalogSession): StatementResult {
  const { key, database, name } = resolveName(s.catalog, target);
  const table = s.catalog.tables.get(key);
  if (table) return describeTable(table);
  const view = s.catalog.views.get(key);
  if (view?.declared) return describeColumns(s.viewFields(key, view));
  throw new SqlError(target.pos, `Tables or views with the identifier '${summaryName(database, name)}' doesn't exist.`);
}

function show(stmt: Extract<SqlCatalogStatement, { k: 'show' }>, s: CatalogSession): StatementResult {
  const catalog = s.catalog;
  const list = (column: string, names: readonly string[]): StatementResult => ({
    kind: 'table',
    columns: [column],
    rows: filterLike(names, stmt.like)
      .sort()
      .map((n) => [n]),
  });
  const database = (): string => (stmt.from ? existingDatabase(catalog, databaseOf(stmt.from), stmt.from.pos) : catalog.currentDatabase);
  switch (stmt.what) {
    case 'CATALOGS':
      return list('catalog name', [DEFAULT_CATALOG]);
    case 'CURRENT CATALOG':
      return { kind: 'table', columns: ['current catalog name'], rows: [[DEFAULT_CATALOG]] };
    case 'DATABASES':
      if (stmt.from) checkCatalog(stmt.from.name, stmt.from.pos);
      return list('database name', [...catalog.databases.keys()]);
    case 'CURRENT DATABASE':
      return { kind: 'table', columns: ['current database name'], rows: [[catalog.currentDatabase]] };
    case 'TABLES': {
      // Flink's listTables: the tables and the views of the database.
      const db = database();
      return list('table name', [...[...catalog.tables.values()].filter((t) => t.definition.database === db).map((t) => t.definition.name), ...viewNames(catalog, db)]);
    }
    case 'VIEWS':
      return list('view name', viewNames(catalog, database()));
    case 'FUNCTIONS':
    case 'USER FUNCTIONS': {
      database();
      const user = [...s.declaredFunctions.values()].map((f) => f.name.toLowerCase());
      const system = stmt.what === 'FUNCTIONS' ? [...builtinNames(), ...aggregateFunctionNames(), ...OTHER_FUNCTIONS].filter((n) => !n.includes(' ')).map((n) => n.toLowerCase()) : [];
      return list('function name', [...new Set([...system, ...user])]);
    }
    case 'MODULES':
      return { kind: 'table', columns: ['module name'], rows: [['core']] };
    case 'FULL MODULES':
      return { kind: 'table', columns: ['module name', 'used'], rows: [['core', true]] };
    case 'COLUMNS': {
      const result = describe(stmt.target as ObjectReference, s);
      if (result.kind !== 'table' || !stmt.like) return result;
      const like = stmt.like;
      return { ...result, rows: result.rows.filter((r) => filterLike([String(r[0])], like).length === 1) };
    }
    case 'CREATE TABLE':
    case 'CREATE VIEW': {
      const target = stmt.target as ObjectReference;
      const { key, database: db, name } = resolveName(catalog, target);
      const table = catalog.tables.get(key);
      const view = catalog.views.get(key);
      const id = quoted(db, name);
      if (stmt.what === 'CREATE TABLE') {
        if (view?.declared) throw new SqlError(target.pos, `SHOW CREATE TABLE is only supported for tables, but ${id} is a view. Please use SHOW CREATE VIEW instead.`);
        if (!table) throw new SqlError(target.pos, `Could not execute SHOW CREATE TABLE. Table with identifier ${id} does not exist.`);
        return { kind: 'text', text: showCreateTable(table.definition) };
      }
      if (table) throw new SqlError(target.pos, `SHOW CREATE VIEW is only supported for views, but ${id} is a table. Please use SHOW CREATE TABLE instead.`);
      if (!view?.declared) throw new SqlError(target.pos, `Could not execute SHOW CREATE VIEW. View with identifier ${id} does not exist.`);
      return { kind: 'text', text: showCreateView(view.declared, s.viewFields(key, view).map((f) => f.name)) };
    }
  }
}

function viewNames(catalog: Catalog, database: string): string[] {
  return [...catalog.views.values()].flatMap((v) => (v.declared?.database === database ? [v.declared.name] : []));
}

/**
 * The names a `[NOT] LIKE | ILIKE` pattern keeps: MySQL's patterns, as Flink's SHOW reads them
 * (`%` any characters, `_` one, `\` escapes the next one).
 */
export function filterLike(names: readonly string[], like: SqlShowLike | undefined): string[] {
  if (like === undefined) return [...names];
  let source = '';
  for (let i = 0; i < like.pattern.length; i++) {
    const ch = like.pattern[i] as string;
    if (ch === '\\' && i + 1 < like.pattern.length) source += escapeRegExp(like.pattern[++i] as string);
    else if (ch === '%') source += '.*';
    else if (ch === '_') source += '.';
    else source += escapeRegExp(ch);
  }
  const re = new RegExp(`^${source}$`, like.ignoreCase ? 'is' : 's');
  return names.filter((n) => re.test(n) !== like.not);
}

function escapeRegExp(ch: string): string {
  return ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The key of the table a statement created (CTAS, the shell). */
export function createdKey(def: TableDefinition): string {
  return objectKey(def.database, def.name);
}
