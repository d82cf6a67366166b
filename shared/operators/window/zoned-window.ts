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

/**
 * The watermark on the zone's wall clock: the latest reading whose instant it has reached, so
 * that a window fires (and rows for it are late) exactly when the watermark reaches the instant of
 * its last millisecond, as Flink's `TimeWindowUtil.isWindowFired` compares. That is the reading
 * of the instant, except in the hour a fall-back repeats: once the clock has been set back, the
 * readings of the repeated hour have all passed at their earlier offset (their windows fired at
 * those instants), so the watermark reads the last millisecond before the repeated hour's end.
 */
export function wallClockWatermark(instant: number, zone: TimeZone): number {
  if (!Number.isFinite(instant)) return instant;
  const local = toLocalMillis(instant, zone);
  const before = local - toInstant(local, zone);
  const after = local - instant;
  if (before <= after) return local;
  // The reading repeats: the clock went back from offset `before` to `after` at an instant T in
  // (instant - (before - after), instant]; the repeated readings end at T + before.
  let lo = instant - (before - after);
  let hi = instant;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (zone.offsetAt(mid) === after) hi = mid;
    else lo = mid;
  }
  return hi + before - 1;
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
    currentWatermark: () => wallClockWatermark(inner.currentWatermark(), zone),
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
    ...(inner.onWatermark ? { onWatermark: (watermark: number, out: Output) => inner.onWatermark!(wallClockWatermark(watermark, zone), outOf(out)) } : {}),
    ...(inner.onTimer ? { onTimer: (timer: Timer, out: Output) => inner.onTimer!({ ...timer, timestamp: localOf(timer.timestamp, zone) }, outOf(out)) } : {}),
    ...(inner.finish ? { finish: (out: Output) => inner.finish!(outOf(out)) } : {}),
    ...(inner.close ? { close: () => inner.close!() } : {}),
  };
}
