/**
 * A dimension source backed by a user function `(keys) => rows`, for pipelines that look up a
 * service the engine has no connector for. The function may return the rows of all keys in any
 * order; the source validates each row against the dimension schema (exact types, as the other
 * sources) and groups them by key, dropping rows of keys that were not asked for.
 */
import type { Row, Schema } from '../core/types.ts';
import type { DimensionSource } from './dimension-source.ts';
import { distinctKeys, groupRowsByKey, keyColumnsOf } from './dimension-source.ts';
import { dimensionRowConverter } from './dimension-values.ts';

/** The user's lookup: distinct, non-NULL key rows (lookup column → value) → matching rows. */
export type LookupFunction = (keys: readonly Row[]) => Iterable<Row> | Promise<Iterable<Row>>;

/** Configuration of {@link createFunctionSource}. */
export interface FunctionSourceConfig {
  /** The dimension table's name. */
  readonly table: string;
  /** Columns and types of the rows the function returns. */
  readonly schema: Schema;
  /** Called once per `lookupMany` with the keys to fetch. */
  readonly lookup: LookupFunction;
  /** Returns every row, to allow a FULL cache. */
  readonly loadAll?: () => Iterable<Row> | Promise<Iterable<Row>>;
  /** Called on close. */
  readonly close?: () => void | Promise<void>;
}

/** Creates a dimension source over a user function (see the module header). */
export function createFunctionSource(config: FunctionSourceConfig): DimensionSource {
  const convert = dimensionRowConverter(config.table, config.schema);
  const loadAll = config.loadAll;
  return {
    table: config.table,
    async lookupMany(keys) {
      const columns = keyColumnsOf(keys);
      if (columns.length === 0) return new Map();
      const { keys: distinct, encoded } = distinctKeys(keys, columns);
      if (distinct.length === 0) return new Map();
      const rows = [...(await config.lookup(distinct))].map(convert);
      return groupRowsByKey(rows, columns, encoded);
    },
    ...(loadAll === undefined ? {} : { loadAll: async () => [...(await loadAll())].map(convert) }),
    async close() {
      await config.close?.();
    },
  };
}
