/**
 * Changelog row factories and a changelog materializer for tests.
 *
 * `materialize` applies a changelog the way a retracting (or, with key columns, an upserting)
 * sink would, and doubles as a well-formedness check: a `-U`/`-D` that retracts a row that is
 * not live throws {@link MalformedChangelogError} naming the offending position.
 */
import type { ChangeRow } from '../../shared/core/row.ts';
import { deleteRecord, insertRecord, updateAfterRecord, updateBeforeRecord } from '../../shared/core/row.ts';
import type { Row, Value } from '../../shared/core/types.ts';

/** A `+I` row. */
export function insert(row: Row): ChangeRow {
  return insertRecord(row);
}

/** A `-U` row (retracts the previous version of an updated row). */
export function updateBefore(row: Row): ChangeRow {
  return updateBeforeRecord(row);
}

/** A `+U` row (the new version of an updated row). */
export function updateAfter(row: Row): ChangeRow {
  return updateAfterRecord(row);
}

/** A `-D` row. */
export function del(row: Row): ChangeRow {
  return deleteRecord(row);
}

/** Thrown by {@link materialize} when a changelog is not well formed. */
export class MalformedChangelogError extends Error {
  /** Position of the offending row in the changelog. */
  readonly index: number;
  /** The offending row. */
  readonly change: ChangeRow;

  constructor(message: string, index: number, change: ChangeRow) {
    super(message);
    this.name = 'MalformedChangelogError';
    this.index = index;
    this.change = change;
  }
}

/** Type-tagged text of a value, so 1, 1n, '1' and true never collide. */
function encodeValue(value: Value | undefined): string {
  switch (typeof value) {
    case 'number':
      return `n${value}`;
    case 'bigint':
      return `b${value}`;
    case 'string':
      return `s${JSON.stringify(value)}`;
    case 'boolean':
      return value ? 'T' : 'F';
    case 'undefined':
      return 'u';
    default:
      return 'z';
  }
}

/** Canonical identity of a whole row: field order does not matter. */
function rowIdentity(row: Row): string {
  return Object.keys(row)
    .sort()
    .map((name) => `${JSON.stringify(name)}=${encodeValue(row[name])}`)
    .join(',');
}

/** Readable text of a row for error messages; bigints print with an `n` suffix. */
export function formatRow(row: Row): string {
  return JSON.stringify(row, (_name, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value));
}

function describeChange(index: number, change: ChangeRow): string {
  return `changelog[${index}] ${change.kind} ${formatRow(change.row)}`;
}

function keyIdentity(row: Row, key: readonly string[], index: number, change: ChangeRow): string {
  return key
    .map((name) => {
      if (!(name in row)) {
        const message = `${describeChange(index, change)} has no key column '${name}'`;
        throw new MalformedChangelogError(message, index, change);
      }
      return encodeValue(row[name]);
    })
    .join(',');
}

function pickKey(row: Row, key: readonly string[]): Row {
  const picked: Record<string, Value> = {};
  for (const name of key) picked[name] = row[name] ?? null;
  return picked;
}

/**
 * The rows live after applying `changelog` in order, in the order they (last) became live.
 *
 * - Without `key`: a multiset of whole rows (a retracting sink). `+I`/`+U` add one copy;
 *   `-U`/`-D` remove one equal copy and throw if there is none.
 * - With `key` columns: one row per key (an upserting sink). `+I`/`+U` replace the key's row;
 *   `-U`/`-D` remove it and throw if the key is not live or its live row differs from the
 *   retracted one.
 */
export function materialize(changelog: Iterable<ChangeRow>, key?: readonly string[]): Row[] {
  return key === undefined ? materializeMultiset(changelog) : materializeByKey(changelog, key);
}

function materializeMultiset(changelog: Iterable<ChangeRow>): Row[] {
  const live = new Map<string, { row: Row; count: number }>();
  let index = 0;
  for (const change of changelog) {
    const id = rowIdentity(change.row);
    const slot = live.get(id);
    if (change.kind === '+I' || change.kind === '+U') {
      if (slot === undefined) live.set(id, { row: change.row, count: 1 });
      else slot.count++;
    } else if (slot === undefined) {
      const sample = [...live.values()].slice(0, 5).map((s) => formatRow(s.row));
      throw new MalformedChangelogError(
        `${describeChange(index, change)} retracts a row that is not live; ` +
          `${live.size} distinct live rows${sample.length > 0 ? `, e.g. ${sample.join(', ')}` : ''}`,
        index,
        change,
      );
    } else if (--slot.count === 0) {
      live.delete(id);
    }
    index++;
  }
  const rows: Row[] = [];
  for (const { row, count } of live.values()) for (let i = 0; i < count; i++) rows.push(row);
  return rows;
}

function materializeByKey(changelog: Iterable<ChangeRow>, key: readonly string[]): Row[] {
  const live = new Map<string, Row>();
  let index = 0;
  for (const change of changelog) {
    const id = keyIdentity(change.row, key, index, change);
    if (change.kind === '+I' || change.kind === '+U') {
      // Delete first so a replaced row moves to the end: "the order they became live".
      live.delete(id);
      live.set(id, change.row);
    } else {
      const current = live.get(id);
      if (current === undefined) {
        throw new MalformedChangelogError(
          `${describeChange(index, change)} retracts key ${formatRow(pickKey(change.row, key))} which is not live`,
          index,
          change,
        );
      }
      if (rowIdentity(current) !== rowIdentity(change.row)) {
        throw new MalformedChangelogError(
          `${describeChange(index, change)} retracts a row that differs from the live row ${formatRow(current)}`,
          index,
          change,
        );
      }
      live.delete(id);
    }
    index++;
  }
  return [...live.values()];
}
