/**
 * Lookup (dimension) tables in the TypeScript API: `pipeline.lookupTable(name, …)` declares one,
 * `stream.lookupJoin(table, …)` joins a stream with it (Flink's
 * `JOIN dim FOR SYSTEM_TIME AS OF s.proctime ON …`).
 *
 * ```ts
 * const users = p.lookupTable('users', {
 *   schema: { id: 'INT NOT NULL', name: 'STRING' },
 *   source: { jdbc: { url: 'jdbc:mysql://db:3306/shop', table: 'users', user: 'app', passwordFrom: 'DB_PASSWORD' } },
 *   cache: { type: 'PARTIAL', maxRows: 10_000 },
 *   hash: true, // 'lookup.enable_hash' = 'true': shuffle the probe stream by the join key
 * });
 * orders.lookupJoin(users, { on: { user_id: 'id' }, columns: { user_name: 'name' } });
 * ```
 *
 * Hashing: by default the join runs in the stage of its input (forward, as Flink does), so every
 * shard's cache holds whatever keys its rows happen to carry. With `hash: true` on the table (the
 * seed's `lookup.enable_hash`) or `shuffle: true` on the join (Flink 2.0's
 * `LOOKUP('shuffle'='true')` hint), the planner inserts `Exchange(hash[probe keys])` before it,
 * so each key is looked up on one shard only and the caches partition the table between them.
 * The join's `shuffle` wins over the table's `hash` when given.
 */
import { PlanError } from '../core/errors.ts';
import { requireField, schemaOf } from '../core/type-parse.ts';
import type { Row, Schema } from '../core/types.ts';
import type { LookupCacheSpec } from '../lookup/cache-spec.ts';
import { validateCacheSpec } from '../lookup/cache-spec.ts';
import type { LookupFunction } from '../lookup/function-source.ts';
import { parseJdbcUrl } from '../lookup/jdbc-config.ts';
import type { LookupKeyPair, LookupOutputColumn } from '../lookup/lookup-join-spec.ts';
import type { LookupRetrySpec } from '../lookup/resilient-source.ts';
import type { Expr } from '../plan/expr.ts';
import type { LookupSourceDescriptor } from '../plan/logical.ts';
import type { RowOf, SchemaSpec } from './schema-spec.ts';

/** Where a lookup table's rows come from (exactly one key). */
export type LookupSourceSpec =
  /**
   * A MySQL / MariaDB (`jdbc:mysql://host:3306/db`) or PostgreSQL (`jdbc:postgresql://…`) table.
   * The password is never part of the pipeline: name the environment variable holding it
   * (`passwordFrom`), or a Secrets Manager secret (`secretArn`, where the runtime resolves it).
   */
  | {
      readonly jdbc: {
        readonly url: string;
        /** The database table. @default the lookup table's name */
        readonly table?: string;
        readonly user?: string;
        readonly passwordFrom?: string;
        readonly secretArn?: string;
      };
    }
  /** A DynamoDB table, by primary key (`get`) or by partition key of the table or a GSI (`query`). */
  | { readonly dynamodb: { readonly table?: string; readonly mode?: 'get' | 'query'; readonly indexName?: string } }
  /** A JSON-lines file; without a path, bind it at run time: `--input <name>=<file.jsonl>`. */
  | { readonly jsonl: string | { readonly path?: string } }
  /** A function of the pipeline module: the distinct keys of a batch → their rows (any order). */
  | { readonly fn: LookupFunction; readonly loadAll?: () => Iterable<Row> | Promise<Iterable<Row>> };

/** Options of {@link Pipeline.lookupTable}. */
export interface LookupTableOptions<S extends SchemaSpec> {
  /** Columns of the dimension rows (for JDBC and DynamoDB: the columns read). */
  readonly schema: S;
  readonly source: LookupSourceSpec;
  /** Cache of each join reading the table. @default no cache */
  readonly cache?: LookupCacheSpec;
  /** Retries on miss and on transient store errors. */
  readonly retry?: LookupRetrySpec;
  /** Hash-shuffle the probe stream by the join key before each join (`'lookup.enable_hash' = 'true'`). @default false */
  readonly hash?: boolean;
  /** The DynamoDB second cache level on AWS (`'lookup.cache.l2'`). @default 'dynamodb' on AWS (none embedded) */
  readonly l2?: 'dynamodb' | 'none';
  /** Expire-after-write of L2 entries, ms (`'lookup.cache.l2.ttl'`). @default the cache's expire-after-write, else 1 hour */
  readonly l2TtlMs?: number;
  /** Store requests in flight per batch. @default 4 */
  readonly maxConcurrency?: number;
  /** Keys per store request. @default all keys of a batch */
  readonly batchSize?: number;
}

/** A declared lookup table; pass it to {@link Stream.lookupJoin}. */
export class LookupTable<T = Row> {
  /** @internal */
  constructor(
    /** The pipeline that declared it. */
    readonly owner: object,
    readonly name: string,
    readonly schema: Schema,
    readonly source: LookupSourceDescriptor,
    readonly options: Omit<LookupTableOptions<SchemaSpec>, 'schema' | 'source'>,
  ) {}

  /** Phantom member carrying the row type. @internal */
  declare readonly rowType?: T;
}

/** The join condition: `{ probeColumn: 'lookupColumn' }` or a list of pairs. */
export type LookupOn<T, D> =
  | { readonly [P in keyof T & string]?: keyof D & string }
  | readonly (readonly [keyof T & string, keyof D & string] | { readonly probe: keyof T & string; readonly lookup: keyof D & string })[];

/** The `columns` option: dimension column names, or output name → dimension column. */
export type LookupColumns<D> = readonly (keyof D & string)[] | { readonly [name: string]: keyof D & string };

/** The dimension columns a `columns` option picks (all of them without one). */
export type PickedColumns<D, C> = C extends readonly (infer K)[]
  ? { [P in K & keyof D]: D[P] }
  : C extends { readonly [name: string]: keyof D }
    ? { -readonly [N in keyof C]: D[C[N]] }
    : D;

/** The row type of a lookup join: probe columns, then the picked dimension columns (nullable for LEFT). */
export type LookupJoined<T, D, C, J> = T & (J extends 'left' ? { [K in keyof PickedColumns<D, C>]: PickedColumns<D, C>[K] | null } : PickedColumns<D, C>);

/** Options of {@link Stream.lookupJoin}. */
export interface LookupJoinOptions<T, D> {
  readonly on: LookupOn<T, D>;
  /** @default 'inner' */
  readonly type?: 'inner' | 'left';
  /**
   * Dimension columns to append to the probe columns: names, or `{ outputName: 'dimColumn' }`.
   * @default every dimension column
   */
  readonly columns?: LookupColumns<D>;
  /** Full control of the output columns (probe and lookup sides, renames); excludes `columns`. */
  readonly output?: readonly LookupOutputColumn[];
  /** Extra condition over the output row (the non-equi part of the ON clause). */
  readonly condition?: Expr;
  /** Overrides the table's cache for this join. */
  readonly cache?: LookupCacheSpec;
  /** Overrides the table's retry for this join. */
  readonly retry?: LookupRetrySpec;
  /** Hash-shuffle by the probe keys first (Flink's `LOOKUP('shuffle'='true')`); overrides the table's `hash`. */
  readonly shuffle?: boolean;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** Validates options and builds a {@link LookupTable}. @internal */
export function createLookupTable<S extends SchemaSpec>(owner: object, name: string, options: LookupTableOptions<S>): LookupTable<RowOf<S>> {
  if (!NAME.test(name)) throw new PlanError(`lookup table name must start with a letter or '_' and use letters, digits, '_', '.' or '-' (given '${name}')`);
  if (options.schema === undefined || Object.keys(options.schema).length === 0) throw new PlanError(`lookup table '${name}' needs a schema with at least one column`);
  const schema = schemaOf(options.schema);
  const source = withL2(name, sourceDescriptor(name, options.source), options.l2, options.l2TtlMs);
  if (options.cache !== undefined) validateCacheSpec(options.cache, name);
  if (options.cache?.type === 'FULL' && 'fn' in options.source && options.source.loadAll === undefined) {
    throw new PlanError(`lookup table '${name}': a FULL cache loads the whole table, so a function source needs loadAll`);
  }
  const rest = {
    ...(options.cache !== undefined ? { cache: options.cache } : {}),
    ...(options.retry !== undefined ? { retry: options.retry } : {}),
    ...(options.hash !== undefined ? { hash: options.hash } : {}),
    ...(options.maxConcurrency !== undefined ? { maxConcurrency: options.maxConcurrency } : {}),
    ...(options.batchSize !== undefined ? { batchSize: options.batchSize } : {}),
  };
  return new LookupTable<RowOf<S>>(owner, name, schema, source, rest);
}

/** Adds the L2 option to a descriptor, checked. */
export function withL2(name: string, source: LookupSourceDescriptor, l2: 'dynamodb' | 'none' | undefined, ttlMs: number | undefined): LookupSourceDescriptor {
  if (l2 !== undefined && l2 !== 'dynamodb' && l2 !== 'none') throw new PlanError(`lookup table '${name}': l2 must be 'dynamodb' or 'none' (given '${String(l2)}')`);
  if (ttlMs !== undefined && !(Number.isFinite(ttlMs) && ttlMs > 0)) throw new PlanError(`lookup table '${name}': l2TtlMs must be a positive number of ms (given ${ttlMs})`);
  if (l2 === undefined && ttlMs === undefined) return source;
  return { ...source, l2: { type: l2 ?? 'dynamodb', ...(ttlMs !== undefined ? { ttlMs } : {}) } };
}

/** The plain-data descriptor of a source spec (function refs are filled in by the pipeline). */
function sourceDescriptor(name: string, spec: LookupSourceSpec | undefined): LookupSourceDescriptor {
  if (spec === undefined || spec === null || typeof spec !== 'object') {
    throw new PlanError(`lookup table '${name}' has no source: give source: { jdbc } | { dynamodb } | { jsonl } | { fn }`);
  }
  const kinds = ['jdbc', 'dynamodb', 'jsonl', 'fn'].filter((k) => k in spec);
  if (kinds.length !== 1) {
    throw new PlanError(`lookup table '${name}': source must have exactly one of jdbc, dynamodb, jsonl, fn (given ${kinds.length === 0 ? 'none' : kinds.join(', ')})`);
  }
  if ('jdbc' in spec) {
    const j = spec.jdbc;
    parseJdbcUrl(j.url);
    return {
      type: 'jdbc',
      url: j.url,
      table: j.table ?? name,
      ...(j.user !== undefined ? { user: j.user } : {}),
      ...(j.passwordFrom !== undefined ? { passwordFrom: j.passwordFrom } : {}),
      ...(j.secretArn !== undefined ? { secretArn: j.secretArn } : {}),
    };
  }
  if ('dynamodb' in spec) {
    const d = spec.dynamodb;
    return { type: 'dynamodb', table: d.table ?? name, ...(d.mode !== undefined ? { mode: d.mode } : {}), ...(d.indexName !== undefined ? { indexName: d.indexName } : {}) };
  }
  if ('jsonl' in spec) {
    const path = typeof spec.jsonl === 'string' ? spec.jsonl : spec.jsonl.path;
    return path === undefined ? { type: 'jsonl' } : { type: 'jsonl', path };
  }
  if (typeof spec.fn !== 'function') throw new PlanError(`lookup table '${name}': source fn must be a function (keys) => rows`);
  // The pipeline registers the functions and replaces the refs (it owns the registry).
  return { type: 'function', ref: '', display: spec.fn.name || name };
}

/** The key pairs of an `on` option, checked against both schemas. */
export function lookupKeys(on: LookupOn<unknown, unknown> | undefined, probe: Schema, table: LookupTable<unknown>): LookupKeyPair[] {
  if (on === undefined) throw new PlanError(`lookup join with '${table.name}' needs 'on' (e.g. on: { product_id: 'id' })`);
  const pairs: LookupKeyPair[] = Array.isArray(on)
    ? (on as readonly unknown[]).map((p) => (Array.isArray(p) ? { probe: String(p[0]), lookup: String(p[1]) } : (p as LookupKeyPair)))
    : Object.entries(on as Record<string, string | undefined>)
        .filter((e): e is [string, string] => e[1] !== undefined)
        .map(([probeColumn, lookup]) => ({ probe: probeColumn, lookup }));
  if (pairs.length === 0) throw new PlanError(`lookup join with '${table.name}' needs at least one key in 'on'`);
  for (const p of pairs) {
    requireField(probe, p.probe, `the probe stream of the lookup join with '${table.name}'`);
    requireField(table.schema, p.lookup, `lookup table '${table.name}'`);
  }
  return pairs;
}

/** The output columns for `columns` (all probe columns, then the chosen dimension columns). */
export function lookupOutput(
  columns: LookupJoinOptions<unknown, unknown>['columns'],
  output: readonly LookupOutputColumn[] | undefined,
  probe: Schema,
  table: LookupTable<unknown>,
): readonly LookupOutputColumn[] | undefined {
  if (output !== undefined) {
    if (columns !== undefined) throw new PlanError(`lookup join with '${table.name}': give either 'columns' or 'output', not both`);
    return output;
  }
  if (columns === undefined) return undefined;
  const picked: [string, string][] = Array.isArray(columns)
    ? (columns as readonly string[]).map((c) => [c, c])
    : Object.entries(columns as Record<string, string>);
  const probeColumns = probe.fields.map((f): LookupOutputColumn => ({ side: 'probe', column: f.name }));
  return [...probeColumns, ...picked.map(([as, column]): LookupOutputColumn => ({ side: 'lookup', column, ...(as !== column ? { as } : {}) }))];
}
