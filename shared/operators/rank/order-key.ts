/**
 * The ORDER BY of a Top-N, compiled once per operator: an order-preserving string key per row
 * (the sub-key of sorted state and the key of the in-memory buffer) and a comparator on the raw
 * values, which decides whether a row can enter the top without encoding it — most rows of an
 * append-only Top-N cannot, so that check is the hot path. Flink generates the same pair: a
 * sort-key selector and a `RecordComparator` (AbstractTopNFunction.sortKeyComparator).
 *
 * Both follow SQL order column by column: NULLS FIRST/LAST place nulls whatever the direction,
 * other values compare by {@link compareValues} (-0 equals 0, NaN above +Infinity, strings by
 * code point), reversed for DESC — exactly the order of `encodeSortKey`, so that comparing two
 * rows and comparing their keys always agree.
 */
import { PlanError } from '../../core/errors.ts';
import { requireField } from '../../core/type-parse.ts';
import type { Row, Schema, Value } from '../../core/types.ts';
import { compareValues, encodeSortKey } from '../../partition/sort-key.ts';
import type { SortDirection } from '../../partition/sort-key.ts';
import type { SortField } from '../../plan/logical.ts';

/** The compiled ORDER BY of a Top-N. */
export interface OrderKey {
  /** The order-preserving key of a row: rows compare like their keys compare as strings. */
  encode(row: Row): string;
  /** SQL order of two rows by the ORDER BY columns: negative when `a` ranks first, 0 for ties. */
  compare(a: Row, b: Row): number;
}

/**
 * The order of a Top-N without ORDER BY (`LIMIT n` alone; Flink's Limit ranks with
 * `SortSpec.ANY`): every row ties, so rows keep their arrival order.
 */
export const ARRIVAL_ORDER: OrderKey = { encode: () => '', compare: () => 0 };

/**
 * Compiles `orderBy` against the input schema.
 *
 * @throws PlanError for an empty ORDER BY, a missing column, or an invalid direction or null order.
 */
export function compileOrderKey(orderBy: readonly SortField[], schema: Schema): OrderKey {
  if (!Array.isArray(orderBy) || orderBy.length === 0) {
    throw new PlanError('Rank: ORDER BY needs at least one column (a Top-N without an order has no ranks)');
  }
  const columns: string[] = [];
  const directions: SortDirection[] = [];
  const nullsFirst: boolean[] = [];
  for (const field of orderBy) {
    requireField(schema, field.column, 'Rank ORDER BY');
    if (field.direction !== 'ASC' && field.direction !== 'DESC') {
      throw new PlanError(`Rank: ORDER BY ${field.column} direction must be ASC or DESC, got ${JSON.stringify(field.direction)}`);
    }
    if (typeof field.nullsFirst !== 'boolean') {
      throw new PlanError(`Rank: ORDER BY ${field.column} needs nullsFirst true or false, got ${JSON.stringify(field.nullsFirst)}`);
    }
    columns.push(field.column);
    directions.push(field.direction);
    nullsFirst.push(field.nullsFirst);
  }
  const n = columns.length;
  const descending = directions.map((d) => d === 'DESC');
  // One values array reused by every encode: the key string is the only allocation.
  const values: Value[] = new Array<Value>(n).fill(null);

  const encode = (row: Row): string => {
    for (let i = 0; i < n; i++) values[i] = row[columns[i]!] ?? null;
    return encodeSortKey(values, directions, nullsFirst);
  };

  // The common ORDER BY is one numeric column: compare it inline (Double.compare's order with
  // -0 = 0, as compareValues) instead of through the generic per-column loop.
  const only = columns[0]!;
  const root = n === 1 ? requireField(schema, only).type.root : undefined;
  if (root === 'BIGINT' || root === 'INT' || root === 'SMALLINT' || root === 'TINYINT' || root === 'DOUBLE' || root === 'FLOAT' || root === 'TIMESTAMP' || root === 'TIMESTAMP_LTZ' || root === 'DATE' || root === 'TIME') {
    const desc = descending[0]!;
    const nullFirst = nullsFirst[0]!;
    const compareNumber = (a: Row, b: Row): number => {
      const x = a[only] ?? null;
      const y = b[only] ?? null;
      if (typeof x === 'number' && typeof y === 'number' && x === x && y === y) {
        const c = x < y ? -1 : x > y ? 1 : 0;
        return desc ? -c : c;
      }
      if (x === null || y === null) return x === y ? 0 : (x === null) === nullFirst ? -1 : 1;
      const c = compareValues(x, y);
      return desc ? -c : c;
    };
    return { encode, compare: compareNumber };
  }

  const compare = (a: Row, b: Row): number => {
    for (let i = 0; i < n; i++) {
      const column = columns[i]!;
      const x = a[column] ?? null;
      const y = b[column] ?? null;
      if (x === null || y === null) {
        if (x === y) continue;
        // One null: its place is fixed by NULLS FIRST/LAST alone, as in encodeSortKey's markers.
        return (x === null) === nullsFirst[i] ? -1 : 1;
      }
      const c = compareValues(x, y);
      if (c !== 0) return descending[i] ? -c : c;
    }
    return 0;
  };

  return { encode, compare };
}
