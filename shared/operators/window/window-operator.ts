/**
 * The window operator core, Flink's `WindowOperator` (flink-streaming-java) with the emission of
 * the table runtime's window aggregation: assign windows, merge sessions, add the element,
 * ask the trigger, emit, and register the cleanup timer; on timers, ask the trigger and clean
 * up. It is generic over what a window keeps ({@link WindowContents}), so the aggregate and the
 * full-window-function operators share every timing rule.
 *
 * Emission. The first firing of a window emits `+I` of its result rows. A re-firing (a late
 * element within the allowed lateness, early/late/count firings) compares the new rows with the
 * rows last emitted for the window, position by position: equal rows emit nothing; a changed row
 * emits `-U` (only with `generateUpdateBefore`) and `+U`; a row that disappeared emits `-D`, a
 * new one `+I`. With a purging trigger every firing emits `+I` of what arrived since the last
 * one (firings are deltas, nothing is retracted).
 *
 * Session merge after firing. When windows that already emitted results merge (e.g. a late
 * element within lateness bridges two fired sessions), their rows carry the old
 * `window_start`/`window_end` and no longer describe any window, so each merged window's last
 * emitted rows are retracted with `-D` as part of the merge; the merged window has emitted
 * nothing yet, so its next firing (immediately, if the watermark is already past its end) emits
 * `+I`. Both retract and upsert consumers (keyed by group + window) end up with only the merged
 * session.
 *
 * Late data. An element all of whose windows are past their cleanup time (`maxTimestamp +
 * allowedLateness`, event time only) goes unchanged to the side output `lateOutputTag` and is
 * counted as `numLateRecordsDropped`. An element with a NULL or non-numeric rowtime cannot be
 * placed in any window; it goes to the side output `invalid-rowtime`, counted as
 * `numInvalidRowtimeRecords`.
 */
import { isAccumulate } from '../../core/row.ts';
import type { ChangeRow } from '../../core/row.ts';
import type { Row, Value } from '../../core/types.ts';
import { decodeKey, encodeKey } from '../../partition/key-encoding.ts';
import type { Timer } from '../../state/state.ts';
import type { Operator, OperatorContext, Output } from '../operator.ts';
import type { WindowAssigner } from './assigners.ts';
import { addWindow } from './merging-window-set.ts';
import { mergeTriggerStates, type TriggerContext, type WindowTrigger } from './triggers.ts';
import { rowsEqual, type WindowContents } from './window-contents.ts';
import { WINDOW_STATE, WindowStore, type WindowEntry } from './window-state.ts';
import { cleanupTime, parseWindowNamespace, windowNamespace, type TimeWindow } from './time-window.ts';

/** Side output of rows whose rowtime is NULL or not a number. */
export const INVALID_ROWTIME_TAG = 'invalid-rowtime';

/** Metric names bumped by the window operators. */
export const WINDOW_METRICS = {
  lateRecordsDropped: 'numLateRecordsDropped',
  invalidRowtime: 'numInvalidRowtimeRecords',
} as const;

/** Everything the core needs, validated by the public factories. */
export interface WindowOperatorConfig<C> {
  readonly assigner: WindowAssigner;
  readonly trigger: WindowTrigger;
  readonly eventTime: boolean;
  readonly timeColumn: string;
  readonly groupBy: readonly string[];
  readonly allowedLatenessMs: number;
  readonly lateOutputTag: string;
  readonly generateUpdateBefore: boolean;
  readonly contents: WindowContents<C>;
  /** Output columns, for comparing re-fired rows with the rows emitted before. */
  readonly outputNames: readonly string[];
}

/** Creates a window operator instance from a validated config; see the module documentation. */
export function createWindowOperator<C>(config: WindowOperatorConfig<C>): Operator {
  const { assigner, trigger, eventTime, contents, groupBy, allowedLatenessMs, outputNames } = config;
  let context: OperatorContext | undefined;
  let store: WindowStore<C> | undefined;

  const keyOf = (row: Row): string => encodeKey(groupBy.map((name) => row[name] ?? null));
  const cleanupOf = (window: TimeWindow): number => cleanupTime(window, allowedLatenessMs, eventTime);
  /** `WindowOperator.isWindowLate`: only event-time windows are ever late. */
  const isWindowLate = (window: TimeWindow): boolean => eventTime && cleanupOf(window) <= context!.timers.currentWatermark();
  const triggerContext = (key: string, window: TimeWindow): TriggerContext => ({
    timers: context!.timers,
    key,
    namespace: windowNamespace(window),
    window,
  });

  const registerCleanupTimer = (key: string, window: TimeWindow): void => {
    const timers = context!.timers;
    if (eventTime) timers.registerEventTimeTimer(key, windowNamespace(window), cleanupOf(window));
    else timers.registerProcessingTimeTimer(key, windowNamespace(window), cleanupOf(window));
  };
  const deleteCleanupTimer = (key: string, window: TimeWindow): void => {
    const timers = context!.timers;
    if (eventTime) timers.deleteEventTimeTimer(key, windowNamespace(window), cleanupOf(window));
    else timers.deleteProcessingTimeTimer(key, windowNamespace(window), cleanupOf(window));
  };

  const emitDiff = (previous: readonly Row[], next: readonly Row[], out: Output): void => {
    const n = Math.max(previous.length, next.length);
    for (let i = 0; i < n; i++) {
      const before = previous[i];
      const after = next[i];
      if (before === undefined) out.emit({ kind: '+I', row: after! });
      else if (after === undefined) out.emit({ kind: '-D', row: before });
      else if (!rowsEqual(before, after, outputNames)) {
        if (config.generateUpdateBefore) out.emit({ kind: '-U', row: before });
        out.emit({ kind: '+U', row: after });
      }
    }
  };

  /** Evaluates the window and emits (`emitWindowContents`), purging when the trigger says so. */
  const fire = (key: string, window: TimeWindow, entry: WindowEntry<C>, out: Output): void => {
    const rows = entry.contents === undefined ? [] : contents.results(decodeKey(key), window, entry.contents);
    if (trigger.purge) {
      for (const row of rows) out.emit({ kind: '+I', row });
      delete entry.contents;
      return;
    }
    emitDiff(entry.emitted ?? [], rows, out);
    if (rows.length > 0) entry.emitted = rows;
    else delete entry.emitted;
  };

  /** Adds or retracts the element in one (non-late) window, then runs the trigger. */
  const processInWindow = (key: string, window: TimeWindow, row: Row, accumulate: boolean, entry: WindowEntry<C>, out: Output): void => {
    if (accumulate) {
      entry.contents ??= contents.create();
      contents.add(entry.contents, row);
    } else if (entry.contents === undefined || !contents.retract(entry.contents, row)) {
      // GroupAggFunction's rule: a retraction of something never accumulated here is dropped.
      return;
    }
    if (trigger.onElement(triggerContext(key, window), entry)) fire(key, window, entry, out);
    store!.put(key, window, entry);
    registerCleanupTimer(key, window);
  };

  const processAligned = (key: string, timestamp: number, row: Row, accumulate: boolean, out: Output): boolean => {
    let accepted = false;
    for (const window of assigner.assign(timestamp)) {
      if (isWindowLate(window)) continue;
      accepted = true;
      const entry = store!.get(key, window);
      if (!accumulate && entry === undefined) continue;
      processInWindow(key, window, row, accumulate, entry ?? {}, out);
    }
    return accepted;
  };

  /** Merges `merged` into `result`: trigger state, timers, contents, and retraction of results. */
  const mergeInto = (key: string, result: TimeWindow, merged: readonly TimeWindow[], out: Output): void => {
    const s = store!;
    const entries: WindowEntry<C>[] = [];
    for (const window of merged) {
      const entry = s.get(key, window);
      if (entry === undefined) continue;
      entries.push(entry);
      // Trigger.clear and deleteCleanupTimer for every merged window, as WindowOperator does.
      trigger.clear(triggerContext(key, window), entry);
      deleteCleanupTimer(key, window);
      for (const row of entry.emitted ?? []) out.emit({ kind: '-D', row });
      s.delete(key, window);
    }
    const target: WindowEntry<C> = mergeTriggerStates(entries);
    for (const entry of entries) {
      if (entry.contents === undefined) continue;
      target.contents = target.contents === undefined ? entry.contents : contents.merge(target.contents, entry.contents);
    }
    trigger.onMerge(triggerContext(key, result), target);
    s.put(key, result, target);
    registerCleanupTimer(key, result);
  };

  const processMerging = (key: string, timestamp: number, row: Row, accumulate: boolean, out: Output): boolean => {
    const s = store!;
    if (!accumulate) {
      // A retraction belongs to the session that holds its timestamp; it never opens or extends one.
      const window = s.windows(key).find((w) => w.start <= timestamp && timestamp < w.end);
      if (window === undefined) return !(eventTime && timestamp + allowedLatenessMs <= context!.timers.currentWatermark());
      if (isWindowLate(window)) return false;
      processInWindow(key, window, row, false, s.get(key, window)!, out);
      return true;
    }
    const [assigned] = assigner.assign(timestamp);
    const existing = s.windows(key);
    const { window, merges } = addWindow(existing, assigned!);
    // MergingWindowSet.retireWindow: a late result window is dropped before anything merges. A
    // merge result is never earlier than its parts, so a late result has only late parts, which
    // cleanup timers have already removed.
    if (isWindowLate(window)) return false;
    for (const merge of merges) mergeInto(key, merge.result, merge.merged, out);
    processInWindow(key, window, row, true, s.get(key, window) ?? {}, out);
    return true;
  };

  const processElement = (key: string, change: ChangeRow, out: Output): void => {
    const ctx = context!;
    const row = change.row;
    let timestamp: Value;
    if (eventTime) timestamp = row[config.timeColumn] ?? null;
    else timestamp = ctx.timers.currentProcessingTime();
    if (typeof timestamp !== 'number' || !Number.isFinite(timestamp)) {
      ctx.metrics.increment(WINDOW_METRICS.invalidRowtime);
      out.emitSide(INVALID_ROWTIME_TAG, row);
      return;
    }
    const accumulate = isAccumulate(change.kind);
    const accepted = assigner.merging
      ? processMerging(key, timestamp, row, accumulate, out)
      : processAligned(key, timestamp, row, accumulate, out);
    if (!accepted) {
      // Every window of the element is past cleanup: Flink's sideOutput(lateDataOutputTag).
      ctx.metrics.increment(WINDOW_METRICS.lateRecordsDropped);
      out.emitSide(config.lateOutputTag, row);
    }
  };

  const processRows = (batch: readonly ChangeRow[], keys: readonly string[], out: Output): void => {
    for (let i = 0; i < batch.length; i++) processElement(keys[i]!, batch[i]!, out);
  };

  return {
    open(ctx) {
      context = ctx;
      store = new WindowStore<C>(ctx.state.mapState<WindowEntry<C>>(WINDOW_STATE));
    },
    processBatch(batch, out) {
      if (batch.length === 0) return;
      const keys = batch.map((r) => keyOf(r.row));
      // One prefetch per batch before any state access (the DynamoDB backend loads here).
      const loading = context!.state.prefetch(new Set(keys));
      if (loading !== undefined) return loading.then(() => processRows(batch, keys, out));
      processRows(batch, keys, out);
    },
    onTimer(timer: Timer, out: Output) {
      const window = parseWindowNamespace(timer.namespace);
      if (window === undefined) return;
      const s = store!;
      const entry = s.get(timer.key, window);
      // A timer of a window merged away or already cleaned up (WindowOperator returns too).
      if (entry === undefined) return;
      const ctx = triggerContext(timer.key, window);
      let firing =
        timer.domain === 'event' ? trigger.onEventTime(ctx, entry, timer.timestamp) : trigger.onProcessingTime(ctx, entry, timer.timestamp);
      const isCleanup = (timer.domain === 'event') === eventTime && timer.timestamp === cleanupOf(window);
      // A late firing still waiting for its interval would be lost with the state: flush it.
      if (isCleanup && entry.late !== undefined) firing = true;
      if (firing) fire(timer.key, window, entry, out);
      if (isCleanup) {
        trigger.clear(ctx, entry);
        s.delete(timer.key, window);
      } else {
        s.put(timer.key, window, entry);
      }
    },
  };
}
