/**
 * Windows aligned in a session time zone, as Flink aligns windows over a TIMESTAMP_LTZ time
 * attribute (its `concepts/timezone` page): a row's instant is read as the zone's wall-clock
 * time, windows are cut on that clock (so a day window in Asia/Shanghai runs from local midnight
 * to local midnight, and one on a daylight-saving day in America/Los_Angeles holds 23 or 25
 * hours), `window_start` / `window_end` are wall-clock TIMESTAMPs and `window_time` is the
 * instant of `window_end - 1` (TIMESTAMP_LTZ).
 *
 * The window operators themselves stay zone-free: this wrapper hands the inner operator rows
 * whose time column holds the wall-clock reading, and a timer service on the same clock — the
 * watermark and processing time read in the zone, timers registered at the instant of their
 * wall-clock time (Flink's `TimeWindowUtil.toEpochMillsForTimer`; a time a daylight-saving gap
 * skips fires at the gap's end) and reported back on the wall clock. Timers persist as instants,
 * so a restarted stage (the AWS runtime) converts them the same way.
 */
import type { ChangeRow } from '../../core/row.ts';
import { toInstant, toLocalMillis, type TimeZone } from '../../core/time-zone.ts';
import type { Row } from '../../core/types.ts';
import type { Timer, TimerService } from '../../state/state.ts';
import type { Operator, Output } from '../operator.ts';

/** The wall-clock reading of an instant; sentinels (±Infinity) stay as they are. */
function localOf(instant: number, zone: TimeZone): number {
  return Number.isFinite(instant) ? toLocalMillis(instant, zone) : instant;
}

/** The instant of a wall-clock reading; sentinels stay as they are. */
function instantOf(local: number, zone: TimeZone): number {
  return Number.isFinite(local) ? toInstant(local, zone) : local;
}

/** A timer service on the zone's wall clock over one on instants. */
export function zonedTimerService(inner: TimerService, zone: TimeZone): TimerService {
  return {
    registerEventTimeTimer: (key, namespace, time) => inner.registerEventTimeTimer(key, namespace, instantOf(time, zone)),
    deleteEventTimeTimer: (key, namespace, time) => inner.deleteEventTimeTimer(key, namespace, instantOf(time, zone)),
    registerProcessingTimeTimer: (key, namespace, time) => inner.registerProcessingTimeTimer(key, namespace, instantOf(time, zone)),
    deleteProcessingTimeTimer: (key, namespace, time) => inner.deleteProcessingTimeTimer(key, namespace, instantOf(time, zone)),
    currentWatermark: () => localOf(inner.currentWatermark(), zone),
    currentProcessingTime: () => localOf(inner.currentProcessingTime(), zone),
  };
}

/** The names of the window columns the wrapper converts. */
export interface ZonedWindowColumns {
  /** The input's time column (event time), read as wall-clock time; undefined in processing time. */
  readonly timeColumn?: string;
  /** The output column holding `window_end - 1`, turned back into an instant. */
  readonly windowTimeColumn: string;
}

/**
 * Runs a window operator (aggregate, process function or table function) on the zone's wall
 * clock; see the module documentation.
 */
export function zonedWindowOperator(inner: Operator, zone: TimeZone, columns: ZonedWindowColumns): Operator {
  const { timeColumn, windowTimeColumn } = columns;
  // Late rows go to the side output as they came in, not with the wall-clock time.
  const originals = new WeakMap<Row, Row>();
  const toLocalRow = (change: ChangeRow): ChangeRow => {
    if (timeColumn === undefined) return change;
    const time = change.row[timeColumn];
    if (typeof time !== 'number') return change;
    const row = { ...change.row, [timeColumn]: toLocalMillis(time, zone) };
    originals.set(row, change.row);
    return { kind: change.kind, row };
  };
  const outOf = (out: Output): Output => ({
    emit(change) {
      const time = change.row[windowTimeColumn];
      out.emit(typeof time === 'number' ? { kind: change.kind, row: { ...change.row, [windowTimeColumn]: instantOf(time, zone) } } : change);
    },
    emitSide(tag, row) {
      out.emitSide(tag, originals.get(row) ?? row);
    },
  });
  return {
    open: (context) => inner.open({ ...context, timers: zonedTimerService(context.timers, zone) }),
    processBatch: (batch, out, side) => inner.processBatch(batch.map(toLocalRow), outOf(out), side),
    ...(inner.onWatermark ? { onWatermark: (watermark: number, out: Output) => inner.onWatermark!(localOf(watermark, zone), outOf(out)) } : {}),
    ...(inner.onTimer ? { onTimer: (timer: Timer, out: Output) => inner.onTimer!({ ...timer, timestamp: localOf(timer.timestamp, zone) }, outOf(out)) } : {}),
    ...(inner.finish ? { finish: (out: Output) => inner.finish!(outOf(out)) } : {}),
    ...(inner.close ? { close: () => inner.close!() } : {}),
  };
}
