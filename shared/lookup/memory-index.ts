/**
 * An in-memory dimension table: rows indexed by lookup key, used by the JSON-lines source and by
 * the FULL cache. An index is built on first use for each lookup column list (normally one).
 */
import type { Row } from '../core/types.ts';
import { distinctKeys, encodeLookupKey, groupRowsByKey, keyColumnsOf } from './dimension-source.ts';

/** Rows held in memory, answering lookups by any column list. */
export class MemoryIndex {
  private readonly indexes = new Map<string, Map<string, Row[]>>();

  constructor(readonly rows: readonly Row[]) {}

  /** The rows of `key` over `columns`, or undefined for none (no copy: treat as read-only). */
  get(key: Row, columns: readonly string[]): Row[] | undefined {
    return this.index(columns).get(encodeLookupKey(key, columns));
  }

  /** {@link DimensionSource.lookupMany} semantics over the held rows. */
  lookupMany(keys: readonly Row[]): Map<string, Row[]> {
    const columns = keyColumnsOf(keys);
    const result = new Map<string, Row[]>();
    if (columns.length === 0) return result;
    const index = this.index(columns);
    for (const e of distinctKeys(keys, columns).encoded) {
      const rows = index.get(e);
      if (rows !== undefined) result.set(e, rows);
    }
    return result;
  }

  private index(columns: readonly string[]): Map<string, Row[]> {
    // JSON of the column list is an unambiguous signature.
    const signature = JSON.stringify(columns);
    let index = this.indexes.get(signature);
    if (index === undefined) {
      index = groupRowsByKey(this.rows, columns);
      this.indexes.set(signature, index);
    }
    return index;
  }
}
