/**
 * A dimension table from a JSON-lines file (one JSON object per line, e.g. Nexmark q13's
 * side_input), read once into memory and decoded with the dimension schema by the engine's JSON
 * codec (shared/core/codec.ts). A line that does not decode stops the pipeline with a
 * {@link DimensionDataError} naming the table and `file:line`: a broken dimension file is a
 * deployment problem, not a bad probe record.
 */
import { readFile } from 'node:fs/promises';
import { createRowDecoder, decodeJsonLine } from '../core/codec.ts';
import { PlanError } from '../core/errors.ts';
import type { Row, Schema } from '../core/types.ts';
import type { DimensionSource } from './dimension-source.ts';
import { DimensionDataError, errorText } from './errors.ts';
import { MemoryIndex } from './memory-index.ts';

/** Configuration of {@link createJsonlSource}; plain data. */
export interface JsonlSourceConfig {
  /** The dimension table's name. */
  readonly table: string;
  /** Path of the JSON-lines file. */
  readonly path: string;
  /** Columns and types of the rows. */
  readonly schema: Schema;
}

/** Reads and decodes the whole file; blank lines are skipped. */
export async function readJsonlRows(config: JsonlSourceConfig): Promise<Row[]> {
  let text: string;
  try {
    text = await readFile(config.path, 'utf8');
  } catch (err) {
    throw new DimensionDataError(`lookup table '${config.table}': cannot read ${config.path}: ${errorText(err)}`, { table: config.table, cause: err });
  }
  const decoder = createRowDecoder(config.schema);
  const rows: Row[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    try {
      rows.push(decodeJsonLine(line, decoder, `${config.path}:${i + 1}`));
    } catch (err) {
      throw new DimensionDataError(`lookup table '${config.table}': ${errorText(err)}`, { table: config.table, cause: err });
    }
  }
  return rows;
}

/**
 * Creates a JSON-lines dimension source. The file is read on the first lookup (or `loadAll`),
 * once; lookups are then served from an in-memory index.
 */
export function createJsonlSource(config: JsonlSourceConfig): DimensionSource {
  if (config.path === '') throw new PlanError(`lookup table '${config.table}': JSON-lines path is empty`);
  let loaded: Promise<MemoryIndex> | undefined;
  const index = (): Promise<MemoryIndex> => {
    loaded ??= readJsonlRows(config).then((rows) => new MemoryIndex(rows));
    // A failed read is not remembered, so a later call can try again.
    loaded.catch(() => (loaded = undefined));
    return loaded;
  };
  return {
    table: config.table,
    lookupMany: async (keys) => (await index()).lookupMany(keys),
    loadAll: async () => [...(await index()).rows],
    close: async () => {
      loaded = undefined;
    },
  };
}
