/**
 * The aggregate functions that collect values, with retraction, as Flink's
 * `CollectAggFunction`, `ArrayAggFunction`, `JsonArrayAggFunction` and `JsonObjectAggFunction`:
 *
 * - COLLECT(x): the MULTISET of the non-NULL values (core/multiset.ts); an empty group of only
 *   NULLs gives the empty multiset.
 * - ARRAY_AGG(x [RESPECT NULLS | IGNORE NULLS]): the values in arrival order (NULLs kept unless
 *   IGNORE NULLS); NULL when there are none.
 * - JSON_ARRAYAGG(x [ABSENT | NULL ON NULL]): a JSON array of the values, each already JSON text
 *   (the SQL front end serializes them, as Flink's planner does), ABSENT ON NULL by default.
 * - JSON_OBJECTAGG(KEY k VALUE v [NULL | ABSENT ON NULL]): a JSON object; the argument is a ROW of
 *   the key and the value's JSON text. A NULL key or a key already present is an error (Flink:
 *   "Duplicate keys are not allowed in JSON_OBJECTAGG"); the keys are written sorted (Flink's
 *   follow its state's map order), so equal groups print alike.
 *
 * A retraction removes the earliest equal value (the row an update's `-U` names); accumulators
 * are plain data (agg-function.ts).
 */
import { RecordError } from '../../core/errors.ts';
import { canonicalMultiset, compareMultisetElements } from '../../core/multiset.ts';
import type { Row, Value } from '../../core/types.ts';
import type { AggFunction } from './agg-function.ts';
import { valuesEqual } from './value-order.ts';

/** COLLECT's accumulator: the multiset so far, as `[element, count]` pairs in canonical order (counts may be 0 or below after a retraction of an unseen value). */
export interface MultisetAccumulator {
  entries: [Value, number][];
}

/** Adds `delta` occurrences of `value`, keeping the entries in canonical order. */
function addOccurrences(acc: MultisetAccumulator, value: Value, delta: number): void {
  const entries = acc.entries;
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareMultisetElements(entries[mid]![0], value) < 0) lo = mid + 1;
    else hi = mid;
  }
  const at = entries[lo];
  if (at !== undefined && compareMultisetElements(at[0], value) === 0) {
    at[1] += delta;
    if (at[1] === 0) entries.splice(lo, 1);
  } else {
    entries.splice(lo, 0, [value, delta]);
  }
}

/** COLLECT(x). */
export const collectFunction: AggFunction<MultisetAccumulator> = {
  createAccumulator: () => ({ entries: [] }),
  accumulate(acc, value) {
    if (value !== null) addOccurrences(acc, value, 1);
  },
  retract(acc, value) {
    if (value !== null) addOccurrences(acc, value, -1);
  },
  getValue: (acc) => canonicalMultiset(acc.entries) as Value,
};

/** The values of ARRAY_AGG / JSON_ARRAYAGG in arrival order. */
export interface ListAccumulator {
  values: Value[];
}

/** Removes the earliest value equal to `value`. */
function removeFirst(values: Value[], value: Value): void {
  const i = values.findIndex((v) => valuesEqual(v, value));
  if (i >= 0) values.splice(i, 1);
}

/** ARRAY_AGG(x), keeping NULLs unless `ignoreNulls`. */
export function arrayAggFunction(ignoreNulls: boolean): AggFunction<ListAccumulator> {
  return {
    createAccumulator: () => ({ values: [] }),
    accumulate(acc, value) {
      if (value !== null || !ignoreNulls) acc.values.push(value);
    },
    retract(acc, value) {
      if (value !== null || !ignoreNulls) removeFirst(acc.values, value);
    },
    getValue: (acc) => (acc.values.length === 0 ? null : [...acc.values]),
  };
}

/** JSON_ARRAYAGG(json text), NULLs written as `null` unless `absentOnNull`. */
export function jsonArrayAggFunction(absentOnNull: boolean): AggFunction<ListAccumulator> {
  const list = arrayAggFunction(absentOnNull);
  return { ...list, getValue: (acc) => `[${acc.values.map((v) => (v === null ? 'null' : (v as string))).join(',')}]` };
}

/** JSON_OBJECTAGG's accumulator: key → the value's JSON text (null for a NULL kept by NULL ON NULL). */
export interface JsonObjectAccumulator {
  entries: Record<string, string | null>;
}

/** The key and value of JSON_OBJECTAGG's ROW argument. */
function keyValue(arg: Value): [Value, Value] {
  const row = arg as Row;
  return [row['EXPR$0'] ?? null, row['EXPR$1'] ?? null];
}

/** Rejects a NULL key and a key already present (Flink's JsonObjectAggFunction.assertKeyNotPresent). */
function checkKey(acc: JsonObjectAccumulator, arg: Value): void {
  if (arg === null) return;
  const [key] = keyValue(arg);
  if (key === null) throw new RecordError('a JSON_OBJECTAGG key is NULL');
  if (Object.hasOwn(acc.entries, `#${key as string}`)) throw new RecordError(`Key '${key as string}' is already present. Duplicate keys are not allowed in JSON_OBJECTAGG. Please ensure that keys are unique.`);
}

/** JSON_OBJECTAGG(KEY k VALUE v), NULL values skipped when `absentOnNull`. */
export function jsonObjectAggFunction(absentOnNull: boolean): AggFunction<JsonObjectAccumulator> {
  return {
    createAccumulator: () => ({ entries: {} }),
    check: checkKey,
    accumulate(acc, arg) {
      if (arg === null) return;
      checkKey(acc, arg);
      const [key, value] = keyValue(arg);
      if (value === null && absentOnNull) return;
      acc.entries[`#${key as string}`] = value as string | null;
    },
    retract(acc, arg) {
      if (arg === null) return;
      const [key, value] = keyValue(arg);
      const k = `#${key as string}`;
      if (Object.hasOwn(acc.entries, k) && acc.entries[k] === value) delete acc.entries[k];
    },
    getValue(acc) {
      const keys = Object.keys(acc.entries).sort((a, b) => compareMultisetElements(a, b));
      return `{${keys.map((k) => `${JSON.stringify(k.slice(1))}:${acc.entries[k] ?? 'null'}`).join(',')}}`;
    },
  };
}
