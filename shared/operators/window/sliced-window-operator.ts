/**
 * The sliced window aggregate (Flink's `SlicingWindowOperator` for the window TVF aggregate):
 * a fast path of ./window-operator.ts for TUMBLE, HOP and CUMULATE in event time with the
 * default end-of-window trigger, no allowed lateness and aggregate calls whose accumulators
 * merge exactly (./slice-merge.ts). It emits exactly what the generic operator emits, in the
 * same order.
 *
 * Slices. Time is cut into slices of width `w` (TUMBLE: the size; HOP: the slide, which divides
 * the size; CUMULATE: the step), aligned like the windows, so every window is a run of whole
 * slices. A row is accumulated once, into the accumulators of its key's slice (map state entry
 * `sliceEnd`), instead of once per window; a window's result is the merge of its slices'
 * accumulators when it fires.
 *
 * Timers. When a slice is created, one event-time timer (namespace `''`) is registered at
 * `end - 1` of every window containing it that is not late yet. The first row of a key in a
 * window always creates one of that window's slices (a slice created while the window was late
 * could not make it non-late again), so the timers are registered at the same moments as the
 * generic operator's per-window timers and fire in the same order (ties by registration).
 *
 * Late rows. A window is late when `end - 1 <= watermark`, and then it has already fired; a row
 * is still added to its slice when some window of the slice is not late, which then sees it,
 * while the fired ones never look again. A row all of whose windows are late goes to the late
 * side output, as in the generic operator.
 *
 * Retractions (`-U`/`-D`, rare in window aggregations) follow the generic rule per window:
 * retract from each non-late window whose record count (the merge of its slices) is positive.
 * They cannot go into a slice (its windows may disagree), so each such window keeps a delta
 * accumulator (entry `start,end`) merged in at firing.
 *
 * State. One map state, {@link SLICE_STATE}, per key: slice end → accumulators, `start,end` →
 * retraction delta.
 *
 * Cleanup. When a window fires, its delta and every slice whose last window it is are deleted,
 * so no state outlives the last window of its slice.
 */
import { isAccumulate } from '../../core/row.ts';
import type { ChangeRow } from '../../core/row.ts';
import type { Row, Value } from '../../core/types.ts';
import { decodeKey, encodeKey } from '../../partition/key-encoding.ts';
import type { MapState, Timer } from '../../state/state.ts';
import type { AggsHandler, GroupAccumulators } from '../aggregate/aggs-handler.ts';
import type { Operator, OperatorContext, Output } from '../operator.ts';
import type { WindowAssigner } from './assigners.ts';
import type { AccumulatorMerger } from './slice-merge.ts';
import { aggregateRow } from './window-contents.ts';
import { INVALID_ROWTIME_TAG, WINDOW_METRICS } from './window-operator.ts';
import { windowNamespace, windowStartWithOffset, type TimeWindow } from './time-window.ts';

/**
 * Name of the sliced operator's one keyed state. It differs from the per-window operator's
 * `windows` (one `WindowEntry` per window) so neither layout is ever read as
 * the other.
 */
export const SLICE_STATE = 'window-slices';

/** What the sliced operator needs; see the module documentation for when it applies. */
export interface SlicedWindowConfig {
  readonly assigner: WindowAssigner;
  /** Slice width and offset: every window boundary is a slice boundary. */
  readonly sliceMs: number;
  readonly offsetMs: number;
  /** The start of the window ending at `end` (a window end: every window has a distinct end). */
  readonly windowStart: (end: number) => number;
  /** The end of the last window containing the slice ending at `sliceEnd`. */
  readonly lastWindowEnd: (sliceEnd: number) => number;
  readonly timeColumn: string;
  readonly groupBy: readonly string[];
  readonly lateOutputTag: string;
  readonly handler: AggsHandler;
  readonly merge: AccumulatorMerger;
}

/** Creates the sliced window aggregate operator. */
export function createSlicedWindowOperator(config: SlicedWindowConfig): Operator {
  const { assigner, sliceMs, offsetMs, timeColumn, groupBy, handler, merge, windowStart, lastWindowEnd } = config;
  let context: OperatorContext | undefined;
  /** Slices (`sliceEnd`) and retraction deltas (`start,end`) of every key. */
  let slices: MapState<GroupAccumulators>;

  const keyOf =
    groupBy.length === 1
      ? (row: Row): string => encodeKey([row[groupBy[0]!] ?? null])
      : (row: Row): string => encodeKey(groupBy.map((name) => row[name] ?? null));

  // Slice namespaces by slice end (rows mostly fall in the few open slices); reset when large.
  const names = new Map<number, string>();
  const nameOf = (sliceEnd: number): string => {
    let name = names.get(sliceEnd);
    if (name === undefined) {
      if (names.size >= 1024) names.clear();
      name = String(sliceEnd);
      names.set(sliceEnd, name);
    }
    return name;
  };

  /** The merged accumulators of a window: its slices and its retraction delta. */
  const windowAccumulators = (key: string, window: TimeWindow): GroupAccumulators => {
    const acc = handler.createAccumulators();
    for (let end = window.start + sliceMs; end <= window.end; end += sliceMs) {
      const slice = slices.get(key, nameOf(end));
      if (slice !== undefined) merge(acc, slice);
    }
    const delta = slices.get(key, windowNamespace(window));
    if (delta !== undefined) merge(acc, delta);
    return acc;
  };

  const accumulate = (key: string, timestamp: number, row: Row, wm: number, out: Output): void => {
    const sliceEnd = windowStartWithOffset(timestamp, offsetMs, sliceMs) + sliceMs;
    const name = nameOf(sliceEnd);
    let slice = slices.get(key, name);
    if (slice === undefined) {
      // A new slice: register the windows' timers (deduplicated), or drop a row late for all.
      let accepted = false;
      for (const window of assigner.assign(timestamp)) {
        const time = window.end - 1;
        if (time <= wm) continue;
        accepted = true;
        context!.timers.registerEventTimeTimer(key, '', time);
      }
      if (!accepted) {
        context!.metrics.increment(WINDOW_METRICS.lateRecordsDropped);
        out.emitSide(config.lateOutputTag, row);
        return;
      }
      slice = handler.createAccumulators();
    }
    handler.accumulate(slice, row);
    slices.put(key, name, slice);
  };

  const retract = (key: string, timestamp: number, row: Row, wm: number, out: Output): void => {
    let accepted = false;
    for (const window of assigner.assign(timestamp)) {
      if (window.end - 1 <= wm) continue;
      accepted = true;
      if (windowAccumulators(key, window).records <= 0) continue;
      const name = windowNamespace(window);
      const delta = slices.get(key, name) ?? handler.createAccumulators();
      handler.retract(delta, row);
      slices.put(key, name, delta);
    }
    if (!accepted) {
      context!.metrics.increment(WINDOW_METRICS.lateRecordsDropped);
      out.emitSide(config.lateOutputTag, row);
    }
  };

  const processRows = (batch: readonly ChangeRow[], keys: readonly string[], out: Output): void => {
    const ctx = context!;
    const wm = ctx.timers.currentWatermark();
    for (let i = 0; i < batch.length; i++) {
      const change = batch[i]!;
      const row = change.row;
      const timestamp: Value = row[timeColumn] ?? null;
      if (typeof timestamp !== 'number' || !Number.isFinite(timestamp)) {
        ctx.metrics.increment(WINDOW_METRICS.invalidRowtime);
        out.emitSide(INVALID_ROWTIME_TAG, row);
        continue;
      }
      if (isAccumulate(change.kind)) accumulate(keys[i]!, timestamp, row, wm, out);
      else retract(keys[i]!, timestamp, row, wm, out);
    }
  };

  return {
    open(ctx) {
      context = ctx;
      slices = ctx.state.mapState<GroupAccumulators>(SLICE_STATE);
    },
    processBatch(batch, out) {
      if (batch.length === 0) return;
      const keys = new Array<string>(batch.length);
      for (let i = 0; i < batch.length; i++) keys[i] = keyOf(batch[i]!.row);
      // One prefetch per batch before any state access (the DynamoDB backend loads here).
      const loading = context!.state.prefetch(new Set(keys));
      if (loading !== undefined) return loading.then(() => processRows(batch, keys, out));
      processRows(batch, keys, out);
    },
    onTimer(timer: Timer, out: Output) {
      if (timer.domain !== 'event' || timer.namespace !== '') return;
      const end = timer.timestamp + 1;
      const window: TimeWindow = { start: windowStart(end), end };
      const key = timer.key;
      const acc = handler.createAccumulators();
      for (let sliceEnd = window.start + sliceMs; sliceEnd <= end; sliceEnd += sliceMs) {
        const name = nameOf(sliceEnd);
        const slice = slices.get(key, name);
        if (slice === undefined) continue;
        merge(acc, slice);
        // The slice's last window: nothing reads it any more.
        if (lastWindowEnd(sliceEnd) <= end) slices.delete(key, name);
      }
      const deltaName = windowNamespace(window);
      const delta = slices.get(key, deltaName);
      if (delta !== undefined) {
        merge(acc, delta);
        slices.delete(key, deltaName);
      }
      if (acc.records > 0) out.emit({ kind: '+I', row: aggregateRow(groupBy, handler.names, decodeKey(key), handler.getValues(acc), window) });
    },
  };
}
