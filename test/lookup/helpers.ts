/**
 * Test helpers: an in-memory dimension table behind the real function source, which records
 * every call (the keys asked for) so tests can assert exactly what reached the "store".
 */
import type { Row, Schema } from '../../shared/core/types.ts';
import { schemaOf } from '../../shared/core/type-parse.ts';
import type { DimensionSource } from '../../shared/lookup/dimension-source.ts';
import { createFunctionSource } from '../../shared/lookup/function-source.ts';

/** The default dimension schema of the helpers: `id BIGINT NOT NULL, name STRING`. */
export const idNameSchema: Schema = schemaOf({ id: 'BIGINT NOT NULL', name: 'STRING' });

/** A recording source over mutable rows. */
export interface RecordingSource extends DimensionSource {
  /** The key lists of each `lookupMany` call that reached the table. */
  readonly calls: Row[][];
  /** `loadAll` calls. */
  loadAlls: number;
  /** The table's rows; tests may change them between lookups. */
  rows: Row[];
}

/** A recording source over `rows`; lookups match on the key columns' values. */
export function recordingSource(rows: Row[], schema: Schema = idNameSchema, table = 'dim'): RecordingSource {
  const state = { calls: [] as Row[][], loadAlls: 0, rows };
  const source = createFunctionSource({
    table,
    schema,
    lookup: (keys) => {
      state.calls.push(keys.map((k) => ({ ...k })));
      const columns = Object.keys(keys[0] ?? {});
      return state.rows.filter((row) => keys.some((k) => columns.every((c) => row[c] === k[c])));
    },
    loadAll: () => {
      state.loadAlls++;
      return state.rows;
    },
  });
  return Object.assign(state, { table: source.table, lookupMany: source.lookupMany, loadAll: source.loadAll, close: source.close }) as RecordingSource;
}

/** A manual clock. */
export function manualClock(start = 0): { now: () => number; advance: (ms: number) => void; set: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms), set: (ms) => void (t = ms) };
}
