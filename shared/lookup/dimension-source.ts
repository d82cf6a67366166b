/**
 * The contract between the lookup join and a dimension store, plus the helpers every source
 * shares: key encoding and grouping of fetched rows by key.
 *
 * A lookup key is a {@link Row} holding exactly the lookup columns, e.g. `{ id: 7 }` or
 * `{ region: 'eu', sku: 12 }`; all keys of one call have the same columns in the same order. The
 * result map is keyed by `encodeKey` (shared/partition/key-encoding.ts) of the key values in that
 * column order — the same encoding shuffles and state use — and holds the matching dimension rows
 * (several for a non-unique key, in the store's order). A key without rows is simply absent from
 * the map. Keys compare as Flambda values, exactly: a store whose collation matches `'A'` for
 * `'a'` returns that row, but it is not a match for `'a'` here.
 */
import type { Row, Value } from '../core/types.ts';
import { encodeKey } from '../partition/key-encoding.ts';

/** A dimension store the lookup join reads from. */
export interface DimensionSource {
  /** The dimension table's name, used in error messages and metrics. */
  readonly table: string;
  /**
   * Fetches the rows of all `keys` (distinct key tuples by lookup column, see the module
   * header) in as few requests as the store allows. Keys with a NULL value match nothing.
   *
   * @returns `encodeKey(key values)` → matching rows; keys without rows are absent.
   * @throws a classified error (see shared/lookup/errors.ts) or any driver error, which the
   *   caller classifies.
   */
  lookupMany(keys: readonly Row[]): Promise<Map<string, Row[]>>;
  /** All rows of the table, for a FULL cache. Absent when the store cannot be scanned. */
  loadAll?(): Promise<Row[]>;
  /** Releases connections; the source is unusable afterwards. */
  close(): Promise<void>;
}

/** The lookup columns of a call, taken from its first key (all keys share them). */
export function keyColumnsOf(keys: readonly Row[]): string[] {
  const first = keys[0];
  return first === undefined ? [] : Object.keys(first);
}

/** The canonical encoding of `row`'s values in `columns`. */
export function encodeLookupKey(row: Row, columns: readonly string[]): string {
  const values: Value[] = new Array<Value>(columns.length);
  for (let i = 0; i < columns.length; i++) values[i] = row[columns[i]!] ?? null;
  return encodeKey(values);
}

/** True when a key has a NULL value: SQL equality with NULL is never true, so it matches nothing. */
export function hasNullValue(key: Row, columns: readonly string[]): boolean {
  for (const column of columns) if (key[column] === null || key[column] === undefined) return true;
  return false;
}

/**
 * Groups fetched rows by their encoded key over `columns`, keeping the store's order within a
 * key. With `wanted`, rows of other keys (which a store may return, e.g. by collation) are
 * dropped so the result holds exact matches only.
 */
export function groupRowsByKey(rows: Iterable<Row>, columns: readonly string[], wanted?: ReadonlySet<string>): Map<string, Row[]> {
  const result = new Map<string, Row[]>();
  for (const row of rows) {
    if (hasNullValue(row, columns)) continue;
    const key = encodeLookupKey(row, columns);
    if (wanted !== undefined && !wanted.has(key)) continue;
    const list = result.get(key);
    if (list === undefined) result.set(key, [row]);
    else list.push(row);
  }
  return result;
}

/** The distinct non-NULL keys of a call, with their encodings, in first-seen order. */
export function distinctKeys(keys: readonly Row[], columns: readonly string[]): { keys: Row[]; encoded: Set<string> } {
  const encoded = new Set<string>();
  const out: Row[] = [];
  for (const key of keys) {
    if (hasNullValue(key, columns)) continue;
    const e = encodeLookupKey(key, columns);
    if (encoded.has(e)) continue;
    encoded.add(e);
    out.push(key);
  }
  return { keys: out, encoded };
}
