/**
 * Time windows `[start, end)` and the small amount of arithmetic Flink's `TimeWindow` carries:
 * the aligned window start with an offset, the inclusive max timestamp, intersection and cover
 * (for session merging), and the namespace text under which a window's state and timers live.
 */

/** A time window `[start, end)` in epoch milliseconds (Flink's `TimeWindow`). */
export interface TimeWindow {
  readonly start: number;
  readonly end: number;
}

/** The largest timestamp still inside the window, `end - 1` (Flink's `maxTimestamp()`). */
export function maxTimestamp(window: TimeWindow): number {
  return window.end - 1;
}

/**
 * The start of the window of size `size` (aligned to epoch + `offset`) that contains `timestamp`:
 * Flink's `TimeWindow.getWindowStartWithOffset`. The double remainder makes it correct for
 * negative timestamps and offsets, where a single `%` would yield a start after the timestamp.
 */
export function windowStartWithOffset(timestamp: number, offset: number, size: number): number {
  const remainder = (((timestamp - offset) % size) + size) % size;
  return timestamp - remainder;
}

/**
 * Whether two windows intersect or touch, as `TimeWindow.intersects` (`start <= other.end &&
 * end >= other.start`): Flink merges adjacent sessions `[0, 10)` and `[10, 20)` too.
 */
export function intersects(a: TimeWindow, b: TimeWindow): boolean {
  return a.start <= b.end && a.end >= b.start;
}

/** The smallest window containing both (`TimeWindow.cover`). */
export function cover(a: TimeWindow, b: TimeWindow): TimeWindow {
  return { start: Math.min(a.start, b.start), end: Math.max(a.end, b.end) };
}

/** Whether two windows are the same interval. */
export function sameWindow(a: TimeWindow, b: TimeWindow): boolean {
  return a.start === b.start && a.end === b.end;
}

/**
 * The namespace of a window: `start,end`. It names the window's state entry and its timers,
 * so deleting a window's timers never touches another window's of the same key.
 */
export function windowNamespace(window: TimeWindow): string {
  return `${window.start},${window.end}`;
}

/** Inverse of {@link windowNamespace}; `undefined` for text it cannot have produced. */
export function parseWindowNamespace(namespace: string): TimeWindow | undefined {
  const comma = namespace.indexOf(',');
  if (comma < 0) return undefined;
  const start = Number(namespace.slice(0, comma));
  const end = Number(namespace.slice(comma + 1));
  if (!Number.isFinite(start) || !Number.isFinite(end)) return undefined;
  return { start, end };
}

/**
 * When a window's state may be dropped: `maxTimestamp + allowedLateness` in event time (Flink's
 * `cleanupTime`). Processing-time windows are never late, so they are dropped at their max
 * timestamp. Where the sum leaves the safe-integer range (Flink guards `long` overflow by using
 * `Long.MAX_VALUE`) it is `Number.MAX_SAFE_INTEGER`: a finite timestamp every timer store can
 * keep, reached only by the final +∞ watermark.
 */
export function cleanupTime(window: TimeWindow, allowedLatenessMs: number, eventTime: boolean): number {
  const max = maxTimestamp(window);
  if (!eventTime) return max;
  const time = max + allowedLatenessMs;
  return time <= Number.MAX_SAFE_INTEGER ? time : Number.MAX_SAFE_INTEGER;
}
