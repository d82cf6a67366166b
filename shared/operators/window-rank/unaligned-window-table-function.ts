/**
 * The SESSION window table function on its own (Flink 1.19's UnalignedWindowTableFunctionOperator):
 * `TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), gap))` into a sink, a filter or a regular
 * aggregate. A row cannot leave with its session's `window_start` / `window_end` until the
 * session is closed — a later row may still extend or merge it — so rows wait per partition key
 * in their session until the watermark passes `window_end - 1`; then every row of the session
 * comes out, in the order the rows arrived (Flink's per-key counter), each with its own kind and
 * the window columns appended.
 *
 * ```
 *   rows of key k:   a@1   b@3          c@10      gap 5
 *   sessions:        [1,6) → [1,8)      [10,15)
 *   watermark 7 ──► emit a, b with [1, 8)        watermark 14 ──► emit c with [10, 15)
 * ```
 *
 * Changelog input is taken as it is (Flink's operator "will not compact changelog records"): a
 * `-D` row is placed in its session like any row and comes out as `-D` with the session's window.
 *
 * Late rows (event time only): a row whose own session `[t, t + gap)` has closed already and
 * merges with no open session. Flink drops and counts it (`numLateRecordsDropped`); here it also
 * goes to the side output `late`, as the other window operators' late rows do. (A merge result
 * covers the sessions it merges, which are all open, so it is never late itself.) A row with a
 * NULL or invalid time is a RecordError (dead-lettered), where Flink drops it and counts it.
 *
 * Processing time: a row's time is the processing time at which it arrives; sessions close on
 * the processing-time clock and are never late.
 *
 * Over an instant (a TIMESTAMP_LTZ time column, as a materialized PROCTIME() is) sessions are cut
 * on the session time zone's wall clock, as Flink's operator shifts times by its
 * `shiftTimeZone`: `window_start` / `window_end` are wall-clock TIMESTAMPs and `window_time` the
 * instant of `window_end - 1` (the timer service runs on the same clock, ../window/zoned-window.ts).
 *
 * State per partition key (`encodeKey` of the PARTITION BY values): one map entry per open
 * session (sub-key and timer namespace `start,end`) holding its rows with their arrival numbers,
 * and the key's counter, dropped with the key's last session. Timers: one per session at
 * `window_end - 1`, moved when sessions merge.
 */
import { PlanError, RecordError } from '../../core/errors.ts';
import { timeZoneOf, toInstant, toLocalMillis, UTC_ZONE_ID } from '../../core/time-zone.ts';
import type { ChangeRow, RowKind } from '../../core/row.ts';
import type { Row, Schema } from '../../core/types.ts';
import { encodeKey } from '../../partition/key-encoding.ts';
import type { MapState, Timer, ValueState } from '../../state/state.ts';
import type { Operator, OperatorContext, Output } from '../operator.ts';
import { addWindow } from '../window/merging-window-set.ts';
import { maxTimestamp, parseWindowNamespace, windowNamespace, type TimeWindow } from '../window/time-window.ts';
import { zonedTimerService } from '../window/zoned-window.ts';
import { DEFAULT_LATE_OUTPUT_TAG, emitLate, isWindowFired } from './late-data.ts';
import { WINDOW_END, WINDOW_START, WINDOW_TIME, windowTableFunctionOutputSchema, type WindowTableFunctionSpec } from './window-table-function.ts';

/** One buffered row: its arrival number within its key, its kind and the row. */
interface BufferedRow {
  readonly n: number;
  readonly kind: RowKind;
  readonly row: Row;
}

/** State names, as Flink's operator names its states. */
const STATE = { sessions: 'session-window-tvf-acc', counter: 'session-window-tvf-counter' } as const;

/**
 * Creates the operator for one shard; see the module documentation. The output schema is
 * {@link windowTableFunctionOutputSchema}'s.
 *
 * @throws PlanError for a window that is not a SESSION, or as
 *   {@link windowTableFunctionOutputSchema}.
 */
export function createUnalignedWindowTableFunctionOperator(spec: WindowTableFunctionSpec & { readonly lateOutputTag?: string }, inputSchema: Schema): Operator {
  const schema = windowTableFunctionOutputSchema(spec, inputSchema);
  const window = spec.window;
  if (window.type !== 'SESSION') throw new PlanError(`internal: ${window.type} is an aligned window; its table function keeps no state`);
  const gap = window.gapMs;
  const eventTime = (spec.timeDomain ?? 'event') === 'event';
  const timeColumn = window.timeColumn;
  const partitionBy = window.partitionBy;
  const tag = spec.lateOutputTag ?? DEFAULT_LATE_OUTPUT_TAG;
  const zone = timeZoneOf(window.timeZone ?? UTC_ZONE_ID);
  const zoned = schema.fields.find((f) => f.name === WINDOW_TIME)?.type.root === 'TIMESTAMP_LTZ' && zone.id !== UTC_ZONE_ID;
  let context: OperatorContext | undefined;
  let sessions: MapState<BufferedRow[]> | undefined;
  let counters: ValueState<number> | undefined;

  const keyOf = (row: Row): string => encodeKey(partitionBy.map((c) => row[c] ?? null));
  const timeOf = (row: Row): number => {
    const value = row[timeColumn];
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      throw new RecordError(`SESSION: the time column '${timeColumn}' must hold a timestamp, got ${String(value)}`, { field: timeColumn });
    }
    return zoned ? toLocalMillis(value, zone) : value;
  };

  const registerTimer = (key: string, w: TimeWindow): void => {
    if (eventTime) context!.timers.registerEventTimeTimer(key, windowNamespace(w), maxTimestamp(w));
    else context!.timers.registerProcessingTimeTimer(key, windowNamespace(w), maxTimestamp(w));
  };
  const deleteTimer = (key: string, w: TimeWindow): void => {
    if (eventTime) context!.timers.deleteEventTimeTimer(key, windowNamespace(w), maxTimestamp(w));
    else context!.timers.deleteProcessingTimeTimer(key, windowNamespace(w), maxTimestamp(w));
  };

  /** The sessions a key has open (its merging window set: the entries of its map). */
  const openSessions = (key: string): TimeWindow[] => {
    const out: TimeWindow[] = [];
    for (const [namespace] of sessions!.entries(key)) {
      const w = parseWindowNamespace(namespace);
      if (w !== undefined) out.push(w);
    }
    return out;
  };

  const processRow = (key: string, change: ChangeRow, timestamp: number, out: Output): void => {
    const state = sessions!;
    const { window: session, merges } = addWindow(openSessions(key), { start: timestamp, end: timestamp + gap });
    if (eventTime && isWindowFired(session.end, context!.timers.currentWatermark())) {
      emitLate(change.row, tag, context!, out);
      return;
    }
    // MergingWindowSet: the merged sessions' rows move into the result session, and their timers go.
    for (const merge of merges) {
      const rows: BufferedRow[] = [...(state.get(key, windowNamespace(merge.result)) ?? [])];
      for (const merged of merge.merged) {
        rows.push(...(state.get(key, windowNamespace(merged)) ?? []));
        state.delete(key, windowNamespace(merged));
        deleteTimer(key, merged);
      }
      state.put(key, windowNamespace(merge.result), rows);
    }
    const n = counters!.get(key) ?? 0;
    counters!.put(key, n + 1);
    const rows = state.get(key, windowNamespace(session)) ?? [];
    rows.push({ n, kind: change.kind, row: change.row });
    state.put(key, windowNamespace(session), rows);
    registerTimer(key, session);
  };

  const processRows = (batch: readonly ChangeRow[], keys: readonly string[], times: readonly number[], out: Output): void => {
    for (let i = 0; i < batch.length; i++) processRow(keys[i]!, batch[i]!, times[i]!, out);
  };

  return {
    open(ctx) {
      context = zoned ? { ...ctx, timers: zonedTimerService(ctx.timers, zone) } : ctx;
      sessions = ctx.state.mapState<BufferedRow[]>(STATE.sessions);
      counters = ctx.state.valueState<number>(STATE.counter);
    },
    processBatch(batch, out) {
      if (batch.length === 0) return;
      // Times first: a bad row fails the batch before any state changes.
      const now = context!.timers.currentProcessingTime();
      const times = batch.map((r) => (eventTime ? timeOf(r.row) : now));
      const keys = batch.map((r) => keyOf(r.row));
      const loading = context!.state.prefetch(new Set(keys));
      if (loading !== undefined) return loading.then(() => processRows(batch, keys, times, out));
      processRows(batch, keys, times, out);
    },
    onTimer(timer: Timer, out: Output) {
      // The runtime has prefetched the timer's key.
      const session = parseWindowNamespace(timer.namespace);
      if (session === undefined || (timer.domain === 'event') !== eventTime) return;
      const rows = sessions!.get(timer.key, timer.namespace);
      if (rows === undefined) return;
      const columns = { [WINDOW_START]: session.start, [WINDOW_END]: session.end, [WINDOW_TIME]: zoned ? toInstant(session.end - 1, zone) : session.end - 1 };
      // Merges concatenate sessions' rows; the arrival numbers restore the order they came in.
      for (const b of [...rows].sort((x, y) => x.n - y.n)) out.emit({ kind: b.kind, row: { ...b.row, ...columns } });
      sessions!.delete(timer.key, timer.namespace);
      if (sessions!.size(timer.key) === 0) counters!.delete(timer.key);
    },
  };
}
