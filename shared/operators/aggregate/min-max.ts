/**
 * MIN and MAX with retraction (Flink's `MinWithRetractAggFunction` / `MaxWithRetractAggFunction`).
 *
 * Flink keeps a `MapView<value, count>` plus the current extreme, and rescans the map when the
 * extreme's count drops to 0 so that the next smallest (largest) value takes over. Here the same
 * value → count multiset is a plain array of `[value, count]` pairs sorted by value, so the extreme
 * is at either end and retracting it reveals the next one without a scan.
 */
import type { Value } from '../../core/types.ts';
import type { AggFunction } from './agg-function.ts';
import { compareValues } from './value-order.ts';

/**
 * Accumulator of MIN/MAX: distinct non-null values in ascending order with their counts.
 * Counts are never 0 (such entries are removed); they are negative only for a value retracted
 * more often than accumulated, which Flink also records ("we do not take negative number account").
 */
export interface MinMaxAccumulator {
  entries: [Value, number][];
}

/** MIN(x): the smallest non-null value still accumulated; NULL when there is none. */
export const minFunction: AggFunction<MinMaxAccumulator> = {
  createAccumulator: () => ({ entries: [] }),
  accumulate: (acc, value) => adjust(acc, value, 1),
  retract: (acc, value) => adjust(acc, value, -1),
  getValue(acc) {
    for (const [value, count] of acc.entries) {
      if (count > 0) return value;
    }
    return null;
  },
};

/** MAX(x): the largest non-null value still accumulated; NULL when there is none. */
export const maxFunction: AggFunction<MinMaxAccumulator> = {
  createAccumulator: () => ({ entries: [] }),
  accumulate: (acc, value) => adjust(acc, value, 1),
  retract: (acc, value) => adjust(acc, value, -1),
  getValue(acc) {
    for (let i = acc.entries.length - 1; i >= 0; i--) {
      const [value, count] = acc.entries[i]!;
      if (count > 0) return value;
    }
    return null;
  },
};

/** Adds `delta` to the count of `value`, inserting or removing its entry; NULLs are ignored. */
function adjust(acc: MinMaxAccumulator, value: Value, delta: number): void {
  if (value === null) return;
  const entries = acc.entries;
  const i = lowerBound(entries, value);
  const entry = entries[i];
  if (entry !== undefined && compareValues(entry[0], value) === 0) {
    const count = entry[1] + delta;
    if (count === 0) entries.splice(i, 1);
    else entry[1] = count;
  } else {
    entries.splice(i, 0, [value, delta]);
  }
}

/** Index of the first entry whose value is not less than `value`. */
function lowerBound(entries: readonly [Value, number][], value: Value): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareValues(entries[mid]![0], value) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
