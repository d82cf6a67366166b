/**
 * A table as declared: the definition CREATE TABLE gives it, before the catalog compiles it
 * (catalog.ts). It is what `CREATE TABLE … LIKE` copies (merged as Flink's MergeTableLikeUtil
 * merges: {@link mergeLike}), what ALTER TABLE changes (table-alter.ts) and what DESCRIBE and
 * SHOW CREATE TABLE print (catalog-output.ts).
 */
import type { SqlColumn, SqlExpr, SqlStatement, SqlTableLike } from './ast.ts';
import { SqlError, type SqlPosition } from './errors.ts';
import type { TableOptions } from './connectors.ts';

/** A declared table. */
export interface TableDefinition {
  /** The object name (without catalog and database). */
  readonly name: string;
  /** The database of default_catalog it is in. */
  readonly database: string;
  readonly temporary: boolean;
  /** Physical, computed and metadata columns in declaration order. */
  readonly columns: readonly SqlColumn[];
  readonly watermark?: { readonly column: string; readonly expr: SqlExpr; readonly pos: SqlPosition };
  readonly primaryKey?: { readonly columns: readonly string[]; readonly name?: string };
  readonly partitionedBy?: readonly string[];
  readonly options: TableOptions;
  readonly comment?: string;
  readonly pos: SqlPosition;
}

type CreateTable = Extract<SqlStatement, { k: 'createTable' }>;

/** The definition a CREATE TABLE statement without LIKE gives. */
export function definitionOf(stmt: CreateTable, database: string): TableDefinition {
  return {
    name: stmt.name,
    database,
    temporary: stmt.temporary ?? false,
    columns: stmt.columns,
    ...(stmt.watermark ? { watermark: stmt.watermark } : {}),
    ...(stmt.primaryKey ? { primaryKey: { columns: stmt.primaryKey, ...(stmt.primaryKeyName !== undefined ? { name: stmt.primaryKeyName } : {}) } } : {}),
    ...(stmt.partitionedBy ? { partitionedBy: stmt.partitionedBy.map((p) => p.name) } : {}),
    options: stmt.options,
    ...(stmt.comment !== undefined ? { comment: stmt.comment } : {}),
    pos: stmt.pos,
  };
}

/** A feature of the LIKE clause and how it is merged. */
type Feature = Exclude<SqlTableLike['options'][number]['what'], 'ALL'>;
type Strategy = SqlTableLike['options'][number]['strategy'];

/** Flink's defaults (MergeTableLikeUtil): options are overwritten, everything else included. */
const DEFAULT_STRATEGIES: Readonly<Record<Feature, Strategy>> = {
  CONSTRAINTS: 'INCLUDING',
  GENERATED: 'INCLUDING',
  METADATA: 'INCLUDING',
  OPTIONS: 'OVERWRITING',
  PARTITIONS: 'INCLUDING',
  WATERMARKS: 'INCLUDING',
};

/** The strategy of every feature: the defaults, then `ALL`, then each feature named. */
export function mergingStrategies(like: SqlTableLike): Record<Feature, Strategy> {
  const result = { ...DEFAULT_STRATEGIES };
  const all = like.options.find((o) => o.what === 'ALL');
  if (all) for (const f of Object.keys(result) as Feature[]) result[f] = all.strategy;
  for (const o of like.options) if (o.what !== 'ALL') result[o.what] = o.strategy;
  return result;
}

/**
 * `CREATE TABLE t (…) WITH (…) LIKE base (…)`: the base table's definition merged with the
 * statement's, as Flink's MergeTableLikeUtil does — base columns first (computed and metadata
 * ones unless EXCLUDING GENERATED / METADATA), then the statement's; a computed (metadata)
 * column of the statement may replace one of the base only under OVERWRITING GENERATED
 * (METADATA); the base watermarks unless EXCLUDING, one for the same column only under
 * OVERWRITING WATERMARKS; the base primary key under INCLUDING CONSTRAINTS, and then the
 * statement may declare none; the base partitions unless EXCLUDING, the statement's only
 * instead; the base options unless EXCLUDING, a key in both only under OVERWRITING OPTIONS
 * (the default). Errors carry Flink's messages.
 */
export function mergeLike(base: TableDefinition, stmt: CreateTable, database: string): TableDefinition {
  const like = stmt.like as SqlTableLike;
  const strategy = mergingStrategies(like);
  const fail = (pos: SqlPosition, message: string): never => {
    throw new SqlError(pos, message);
  };
  const kindOf = (c: SqlColumn): 'computed' | 'metadata' | 'physical' => (c.computed ? 'computed' : c.metadata ? 'metadata' : 'physical');
  const columns = new Map<string, SqlColumn>();
  for (const c of base.columns) {
    const kind = kindOf(c);
    if (kind === 'physical' || (kind === 'computed' && strategy.GENERATED !== 'EXCLUDING') || (kind === 'metadata' && strategy.METADATA !== 'EXCLUDING')) columns.set(c.name, c);
  }
  // Physical columns are checked first, as Flink collects their types before the others.
  for (const c of stmt.columns) {
    if (kindOf(c) === 'physical' && columns.has(c.name)) fail(c.pos, `A column named '${c.name}' already exists in the base table.`);
  }
  for (const c of stmt.columns) {
    const kind = kindOf(c);
    const existing = columns.get(c.name);
    if (existing && kind !== 'physical') {
      const what = kind === 'computed' ? 'Computed' : 'Metadata';
      if (kindOf(existing) !== kind) fail(c.pos, `A column named '${c.name}' already exists in the base table. ${what} columns can only overwrite other ${what.toLowerCase()} columns.`);
      const feature = kind === 'computed' ? 'GENERATED' : 'METADATA';
      if (strategy[feature] !== 'OVERWRITING') {
        fail(c.pos, `A ${kind === 'computed' ? 'generated' : 'metadata'} column named '${c.name}' already exists in the base table. You might want to specify EXCLUDING ${feature} or OVERWRITING ${feature}.`);
      }
    }
    // A replaced column keeps its place (Flink's LinkedHashMap), a new one goes last.
    columns.set(c.name, c);
  }
  let watermark = strategy.WATERMARKS !== 'EXCLUDING' ? base.watermark : undefined;
  if (stmt.watermark) {
    if (watermark && watermark.column === stmt.watermark.column && strategy.WATERMARKS !== 'OVERWRITING') {
      fail(stmt.watermark.pos, `There already exists a watermark spec for column '${stmt.watermark.column}' in the base table. You might want to specify EXCLUDING WATERMARKS or OVERWRITING WATERMARKS.`);
    }
    watermark = stmt.watermark;
  }
  let primaryKey = strategy.CONSTRAINTS === 'INCLUDING' ? base.primaryKey : undefined;
  if (stmt.primaryKey) {
    if (primaryKey) fail(stmt.pos, 'The base table already has a primary key. You might want to specify EXCLUDING CONSTRAINTS.');
    primaryKey = { columns: stmt.primaryKey, ...(stmt.primaryKeyName !== undefined ? { name: stmt.primaryKeyName } : {}) };
  }
  const basePartitions = strategy.PARTITIONS !== 'EXCLUDING' ? base.partitionedBy : undefined;
  if (stmt.partitionedBy && basePartitions && basePartitions.length > 0) {
    fail(stmt.partitionedBy[0]?.pos ?? stmt.pos, 'The base table already has partitions defined. You might want to specify EXCLUDING PARTITIONS.');
  }
  const partitionedBy = stmt.partitionedBy ? stmt.partitionedBy.map((p) => p.name) : basePartitions;
  const options = new Map(strategy.OPTIONS !== 'EXCLUDING' ? base.options : []);
  for (const [key, value] of stmt.options) {
    const known = options.get(key);
    if (known !== undefined && strategy.OPTIONS !== 'OVERWRITING') {
      // Flink's message, double space included.
      fail(value.pos, `There already exists an option ['${key}' -> '${known.value}']  in the base table. You might want to specify EXCLUDING OPTIONS or OVERWRITING OPTIONS.`);
    }
    options.set(key, value);
  }
  return {
    name: stmt.name,
    database,
    temporary: stmt.temporary ?? false,
    columns: [...columns.values()],
    ...(watermark ? { watermark } : {}),
    ...(primaryKey ? { primaryKey } : {}),
    ...(partitionedBy && partitionedBy.length > 0 ? { partitionedBy } : {}),
    options,
    ...(stmt.comment !== undefined ? { comment: stmt.comment } : {}),
    pos: stmt.pos,
  };
}
