/**
 * PERCENTILE(x, percentage [, frequency]) with retraction, as Flink's `PercentileAggFunction`:
 * the exact percentile of the values (as DOUBLE), interpolated linearly between the two nearest
 * values when none lies at the position `percentage × (n − 1)` of the n values in order; each
 * value counts `frequency` times (rows with a NULL value or frequency, or a frequency below 1,
 * are ignored). With an array of percentages the result is an ARRAY<DOUBLE> of each; NULL when
 * no value is left (or the array is empty).
 */
import { RecordError } from '../../core/errors.ts';
import type { LogicalType, Row, Value } from '../../core/types.ts';
import type { AggFunction } from './agg-function.ts';

/** The values as doubles with their counts, sorted by value (counts may drop to 0 or below after retractions). */
export interface PercentileAccumulator {
  counts: [number, number][];
}

/** A numeric value as a double (DECIMAL unscaled bigints divided by 10^scale). */
function toDouble(v: Value, t: LogicalType): number {
  return typeof v === 'bigint' ? Number(v) / 10 ** (t.scale ?? 0) : (v as number);
}

/** Flink's Double key order: numeric, with -0.0 below 0.0 and NaN last (Double.compareTo). */
function compareDoubles(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === b) return Object.is(a, -0) === Object.is(b, -0) ? 0 : Object.is(a, -0) ? -1 : 1;
  return Number.isNaN(a) ? (Number.isNaN(b) ? 0 : 1) : -1;
}

function update(acc: PercentileAccumulator, value: number, delta: number): void {
  const counts = acc.counts;
  let lo = 0;
  let hi = counts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareDoubles(counts[mid]![0], value) < 0) lo = mid + 1;
    else hi = mid;
  }
  const at = counts[lo];
  if (at !== undefined && compareDoubles(at[0], value) === 0) {
    at[1] += delta;
    if (at[1] === 0) counts.splice(lo, 1);
  } else {
    counts.splice(lo, 0, [value, delta]);
  }
}

/** The percentiles of the accumulated values, or null when there are none. */
function percentiles(counts: readonly [number, number][], percentages: readonly number[]): number[] | null {
  const total = counts.reduce((n, [, c]) => n + c, 0);
  if (total <= 0) return null;
  return percentages.map((p) => {
    const position = p * (total - 1) + 1;
    const lower = Math.floor(position);
    const higher = Math.ceil(position);
    let j = 0;
    let seen = counts[0]![1];
    while (seen < lower) seen += counts[++j]![1];
    // Between two equal values or exactly on one: that value; else interpolate with the next.
    if (seen >= higher) return counts[j]![0];
    return (higher - position) * counts[j]![0] + (position - lower) * counts[j + 1]![0];
  });
}

/**
 * PERCENTILE over values of `argType` — or, with a frequency, over ROW(value, frequency) — at
 * `percentages` (one number for a DOUBLE result, an array for an ARRAY<DOUBLE> one).
 */
export function percentileFunction(argType: LogicalType, percentages: number | readonly number[]): AggFunction<PercentileAccumulator> {
  const withFrequency = argType.root === 'ROW';
  const valueType = withFrequency ? argType.fields![0]!.type : argType;
  const list = typeof percentages === 'number' ? [percentages] : percentages;
  for (const p of list) {
    if (!(p >= 0 && p <= 1)) throw new RecordError(`Percentage of PERCENTILE should be between [0.0, 1.0], but was '${p}'.`);
  }
  const change = (acc: PercentileAccumulator, arg: Value, sign: number): void => {
    if (arg === null) return;
    const [value, frequency] = withFrequency ? [(arg as Row)['EXPR$0'] ?? null, (arg as Row)['EXPR$1'] ?? null] : [arg, 1];
    if (value === null || frequency === null || (frequency as number) <= 0) return;
    update(acc, toDouble(value, valueType), sign * (frequency as number));
  };
  return {
    createAccumulator: () => ({ counts: [] }),
    accumulate: (acc, arg) => change(acc, arg, 1),
    retract: (acc, arg) => change(acc, arg, -1),
    getValue(acc) {
      if (list.length === 0) return null;
      const result = percentiles(acc.counts, list);
      if (result === null) return null;
      return typeof percentages === 'number' ? result[0]! : result;
    },
  };
}
