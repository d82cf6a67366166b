/**
 * What a window keeps and how it turns that into result rows: incremental aggregation through
 * the existing {@link AggsHandler} (Flink's AggregateFunction / window TVF aggregate), or all
 * rows for a full window function (Flink's ProcessWindowFunction over a ListState).
 *
 * Merging (session windows). Flink merges windows by `mergeNamespaces`, which needs every
 * aggregate function to implement `merge(acc, acc)`. `AggsHandler` and the built-in aggregate
 * functions only offer `accumulate`/`retract`/`getValue`, and they are not ours to change, so a
 * merging aggregate window keeps its accumulators AND its input rows, projected to the columns
 * the calls read (arguments and FILTER columns). A merge folds the rows of the smaller window
 * into the accumulators of the larger one — exactly the result of accumulating every row into
 * one accumulator, which is what a merged accumulator must equal. Non-merging windows (TUMBLE,
 * HOP, CUMULATE) keep accumulators only.
 */
import type { Row, Value } from '../../core/types.ts';
import type { AggsHandler, GroupAccumulators } from '../aggregate/aggs-handler.ts';
import { valuesEqual } from '../aggregate/value-order.ts';
import { maxTimestamp, type TimeWindow } from './time-window.ts';

/** The contents of one window and how to maintain and evaluate them. `C` is plain data. */
export interface WindowContents<C> {
  /** Contents of an empty window. */
  create(): C;
  /** Adds an input row (`+I`/`+U`), in place. */
  add(contents: C, row: Row): void;
  /** Removes an input row (`-U`/`-D`), in place; false when the window never held it. */
  retract(contents: C, row: Row): boolean;
  /** Merges two windows' contents (session merging); may reuse either argument. */
  merge(a: C, b: C): C;
  /** The result rows of the window for the group key values (empty for an empty window). */
  results(key: readonly Value[], window: TimeWindow, contents: C): Row[];
}

/** True when two rows agree on every named column (NaN equals NaN, as Flink's binary equality). */
export function rowsEqual(a: Row, b: Row, names: readonly string[]): boolean {
  for (const name of names) if (!valuesEqual(a[name] ?? null, b[name] ?? null)) return false;
  return true;
}

/**
 * Builds a window aggregate's output row: the group columns, the aggregate values, then
 * `window_start`, `window_end` and `window_time` (= `window_end - 1`, Flink's window rowtime).
 */
export function aggregateRow(groupBy: readonly string[], aggNames: readonly string[], key: readonly Value[], values: readonly Value[], window: TimeWindow): Row {
  const row: Record<string, Value> = {};
  groupBy.forEach((name, i) => (row[name] = key[i] ?? null));
  aggNames.forEach((name, i) => (row[name] = values[i] ?? null));
  row['window_start'] = window.start;
  row['window_end'] = window.end;
  row['window_time'] = maxTimestamp(window);
  return row;
}

/** Incremental aggregation for non-merging windows: accumulators only. */
export function aggregateContents(handler: AggsHandler, groupBy: readonly string[]): WindowContents<GroupAccumulators> {
  return {
    create: () => handler.createAccumulators(),
    add: (acc, row) => handler.accumulate(acc, row),
    retract(acc, row) {
      // Like GroupAggFunction: never let a stray retraction drive the record counter negative.
      if (acc.records <= 0) return false;
      handler.retract(acc, row);
      return true;
    },
    merge() {
      throw new Error('non-merging window contents cannot merge');
    },
    results(key, window, acc) {
      if (acc.records <= 0) return [];
      return [aggregateRow(groupBy, handler.names, key, handler.getValues(acc), window)];
    },
  };
}

/** Contents of a merging aggregate window: accumulators plus the projected rows they came from. */
export interface MergeableAccumulators {
  acc: GroupAccumulators;
  rows: Row[];
}

/**
 * Incremental aggregation for session windows, mergeable by replaying rows (see the module
 * documentation). `columns` are the input columns the calls read.
 */
export function mergeableAggregateContents(
  handler: AggsHandler,
  groupBy: readonly string[],
  columns: readonly string[],
): WindowContents<MergeableAccumulators> {
  const project = (row: Row): Row => {
    const out: Record<string, Value> = {};
    for (const name of columns) out[name] = row[name] ?? null;
    return out;
  };
  return {
    create: () => ({ acc: handler.createAccumulators(), rows: [] }),
    add(contents, row) {
      const projected = project(row);
      handler.accumulate(contents.acc, projected);
      contents.rows.push(projected);
    },
    retract(contents, row) {
      const projected = project(row);
      const index = contents.rows.findIndex((r) => rowsEqual(r, projected, columns));
      if (index < 0) return false;
      contents.rows.splice(index, 1);
      handler.retract(contents.acc, projected);
      return true;
    },
    merge(a, b) {
      // Replay the smaller side into the larger: O(min) accumulate calls per merge.
      const [into, from] = a.rows.length >= b.rows.length ? [a, b] : [b, a];
      for (const row of from.rows) {
        handler.accumulate(into.acc, row);
        into.rows.push(row);
      }
      return into;
    },
    results(key, window, contents) {
      if (contents.acc.records <= 0) return [];
      return [aggregateRow(groupBy, handler.names, key, handler.getValues(contents.acc), window)];
    },
  };
}

/**
 * A full window function (Flink's ProcessWindowFunction): called on firing with the group key
 * (the group columns as a row), the window and every row of the window, in arrival order.
 */
export type WindowProcessFunction = (key: Row, window: { readonly start: number; readonly end: number }, rows: readonly Row[]) => Row[];

/** All rows of the window, handed to `fn` on firing; `inputNames` identify a retracted row. */
export function processContents(fn: WindowProcessFunction, groupBy: readonly string[], inputNames: readonly string[]): WindowContents<Row[]> {
  return {
    create: () => [],
    add: (rows, row) => void rows.push(row),
    retract(rows, row) {
      const index = rows.findIndex((r) => rowsEqual(r, row, inputNames));
      if (index < 0) return false;
      rows.splice(index, 1);
      return true;
    },
    // Windows are merged in start order, so appending keeps the rows roughly in time order.
    merge(a, b) {
      for (const row of b) a.push(row);
      return a;
    },
    results(key, window, rows) {
      if (rows.length === 0) return [];
      const keyRow: Record<string, Value> = {};
      groupBy.forEach((name, i) => (keyRow[name] = key[i] ?? null));
      return fn(keyRow, { start: window.start, end: window.end }, rows);
    },
  };
}
