/**
 * Ordering and equality of non-null runtime values, as Flink's aggregate functions see them.
 *
 * MIN/MAX need a total order per type (Flink uses `Comparable.compareTo` of the internal data
 * classes); the group aggregate needs the equality Flink's generated `RecordEqualiser` applies to
 * consecutive results (a binary comparison of the result rows).
 */
import type { Value } from '../../core/types.ts';

/**
 * Compares two non-null values of the same SQL type: negative, zero or positive.
 *
 * - numbers (INT, BIGINT, DOUBLE, TIMESTAMP) follow Java's `Double.compare`, which Flink's
 *   boxed `Double.compareTo` uses: `-0.0 < 0.0` and NaN is greater than everything, equal to itself;
 * - bigints (DECIMAL unscaled values of one scale) compare numerically;
 * - strings compare by Unicode code point, the order of Flink's `BinaryStringData.compareTo`
 *   (unsigned UTF-8 bytes), which differs from JavaScript's UTF-16 `<` for supplementary characters;
 * - booleans order `false < true`, as `Boolean.compareTo`.
 */
export function compareValues(a: Value, b: Value): number {
  if (typeof a === 'number' && typeof b === 'number') return compareDoubles(a, b);
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  // Only reachable through a schema violation upstream; ordering by type keeps the order total.
  return typeRank(a) - typeRank(b);
}

/**
 * Equality of aggregate results, matching Flink's binary `RecordEqualiser`: NaN equals NaN and
 * `-0.0` differs from `0.0` (their bit patterns), i.e. JavaScript's `Object.is`; ARRAY, MULTISET,
 * ROW and MAP results (COLLECT, ARRAY_AGG, PERCENTILE of several) are equal when their elements
 * are, as their binary forms are.
 */
export function valuesEqual(a: Value, b: Value): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const x = a as Readonly<Record<string, Value>>;
  const y = b as Readonly<Record<string, Value>>;
  const keys = Object.keys(x);
  const others = Object.keys(y);
  return keys.length === others.length && keys.every((k, i) => others[i] === k && valuesEqual(x[k] as Value, y[k] as Value));
}

/** True when two result rows are equal field by field under {@link valuesEqual}. */
export function valueListsEqual(a: readonly Value[], b: readonly Value[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (!valuesEqual(a[i]!, b[i]!)) return false;
  }
  return true;
}

function compareDoubles(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === b) {
    // 0 === -0 in JavaScript; Double.compare orders -0.0 first.
    if (a !== 0) return 0;
    const negA = Object.is(a, -0);
    const negB = Object.is(b, -0);
    return negA === negB ? 0 : negA ? -1 : 1;
  }
  const nanA = Number.isNaN(a);
  const nanB = Number.isNaN(b);
  return nanA === nanB ? 0 : nanA ? 1 : -1;
}

function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/**
 * Maps a UTF-16 code unit so that unit order equals code point order: surrogates (which encode
 * code points above U+FFFF) move above U+E000..U+FFFF. Only the first differing unit matters, and
 * at that unit both strings are at the same position within their code points.
 */
function codePointRank(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}

function typeRank(v: Value): number {
  switch (typeof v) {
    case 'boolean':
      return 1;
    case 'number':
      return 2;
    case 'bigint':
      return 3;
    case 'string':
      return 4;
    default:
      return 0;
  }
}
