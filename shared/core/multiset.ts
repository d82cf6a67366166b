/**
 * MULTISET<T> values (what Flink's COLLECT returns): each distinct element with the number of
 * times it occurs, as Flink holds a multiset in a map from element to count. Here the value is
 * plain data — an array of `[element, count]` pairs, each element once — so that it travels
 * through rows, exchanges and state like an ARRAY, kept in one canonical order (scalars by
 * value, nested elements by their JSON text) so that equal multisets are equal arrays and print
 * alike (`{a=2, b=1}`, as Flink prints a multiset).
 */
import type { Value } from './types.ts';

/** One distinct element of a multiset and how many times it occurs (≥ 1). */
export type MultisetEntry = readonly [Value, number];

/** A MULTISET value. */
export type Multiset = readonly MultisetEntry[];

/** A nested value's JSON text (bigints as their digits), to order nested elements. */
function jsonText(v: Value): string {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}` : x));
}

/**
 * The canonical order of multiset elements: NULL first, then numbers (and DECIMAL bigints of
 * one scale), strings and booleans by value, nested values by their JSON text.
 */
export function compareMultisetElements(a: Value, b: Value): number {
  if (a === b) return 0;
  if (a === null || b === null) return a === null ? -1 : 1;
  if ((typeof a === 'number' || typeof a === 'bigint') && (typeof b === 'number' || typeof b === 'bigint')) return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : 1;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a ? 1 : -1;
  const x = jsonText(a);
  const y = jsonText(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The entries in canonical order with equal elements merged (their counts added) and empty ones dropped. */
export function canonicalMultiset(entries: readonly MultisetEntry[]): Multiset {
  const sorted = [...entries].sort((x, y) => compareMultisetElements(x[0], y[0]));
  const out: [Value, number][] = [];
  for (const [element, count] of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && compareMultisetElements(last[0], element) === 0) last[1] += count;
    else out.push([element, count]);
  }
  return out.filter(([, count]) => count > 0);
}
