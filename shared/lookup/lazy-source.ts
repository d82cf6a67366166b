/**
 * A dimension source whose connector module is imported on first use. The operator registry
 * names connectors (DynamoDB, MySQL, PostgreSQL) without importing them, so a pipeline that
 * uses none of them never loads the AWS SDK or a database driver (`flambda run` works with
 * neither installed); one that does pays the import once, at its first lookup.
 */
import type { Row } from '../core/types.ts';
import type { DimensionSource } from './dimension-source.ts';

/** A source of table `table` built by `load` (which imports its connector) when first needed. */
export function lazyDimensionSource(table: string, load: () => Promise<DimensionSource>): DimensionSource {
  let loading: Promise<DimensionSource> | undefined;
  const source = (): Promise<DimensionSource> => (loading ??= load());
  return {
    table,
    lookupMany: async (keys: readonly Row[]) => (await source()).lookupMany(keys),
    loadAll: async () => {
      const loaded = await source();
      if (loaded.loadAll === undefined) throw new Error(`internal: lookup table '${table}' cannot be scanned`);
      return loaded.loadAll();
    },
    // Nothing to close when the connector was never loaded (no connection was opened).
    close: async () => {
      if (loading !== undefined) await (await loading).close();
    },
  };
}
