/**
 * Window assigners of the TypeScript API, named and ordered like Flink SQL's window table
 * functions:
 *
 * | API | Flink SQL |
 * |---|---|
 * | `tumble('date_time', '10 s')` | `TUMBLE(TABLE bid, DESCRIPTOR(date_time), INTERVAL '10' SECOND)` |
 * | `hop('date_time', '2 s', '10 s')` | `HOP(TABLE bid, DESCRIPTOR(date_time), INTERVAL '2' SECOND, INTERVAL '10' SECOND)` (slide, then size) |
 * | `cumulate('date_time', '1 min', '1 h')` | `CUMULATE(TABLE bid, DESCRIPTOR(date_time), INTERVAL '1' MINUTE, INTERVAL '1' HOUR)` (step, then max size) |
 * | `session('date_time', '10 s', { partitionBy: ['bidder'] })` | `SESSION(TABLE bid PARTITION BY bidder, DESCRIPTOR(date_time), INTERVAL '10' SECOND)` |
 *
 * Durations are milliseconds or strings such as `'500 ms'`, `'10 s'`, `'2 min'`, `'1 h'`, `'1 d'`.
 */
import { PlanError } from '../core/errors.ts';
import type { WindowSpec } from '../plan/logical.ts';

/** A duration: milliseconds, or a string like `'10 s'`, `'2 min'`, `'1 h'`, `'250 ms'`. */
export type Duration = number | string;

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  millisecond: 1,
  milliseconds: 1,
  s: 1000,
  sec: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
};

/**
 * Parses a duration into whole milliseconds.
 *
 * @param what names the argument in the error, e.g. `"tumble size"`.
 * @throws PlanError naming the argument and the value for anything that is not a non-negative
 *   whole number of milliseconds.
 */
export function parseDuration(value: Duration, what: string): number {
  let ms: number;
  if (typeof value === 'number') {
    ms = value;
  } else {
    const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]+)?\s*$/.exec(String(value));
    const unit = m?.[2]?.toLowerCase() ?? 'ms';
    const factor = UNIT_MS[unit];
    if (!m || factor === undefined) {
      throw new PlanError(`${what}: cannot read ${JSON.stringify(value)} as a duration (write e.g. '10 s', '2 min', '1 h', '250 ms' or a number of milliseconds)`);
    }
    ms = Number(m[1]) * factor;
  }
  if (!Number.isSafeInteger(ms) || ms < 0) {
    throw new PlanError(`${what} must be a non-negative whole number of milliseconds (given ${JSON.stringify(value)})`);
  }
  return ms;
}

/** Options every aligned window accepts. */
export interface AlignedWindowOptions {
  /** Shifts window boundaries (Flink's `offset` argument). @default 0 */
  readonly offset?: Duration;
}

function offsetOf(options: AlignedWindowOptions, what: string): { offsetMs?: number } {
  if (options.offset === undefined) return {};
  if (typeof options.offset === 'number' && options.offset < 0) return { offsetMs: options.offset };
  return { offsetMs: parseDuration(options.offset, `${what} offset`) };
}

/** Tumbling windows of `size` on the event-time column `timeColumn`. */
export function tumble(timeColumn: string, size: Duration, options: AlignedWindowOptions = {}): WindowSpec {
  return { type: 'TUMBLE', timeColumn, sizeMs: parseDuration(size, 'tumble size'), ...offsetOf(options, 'tumble') };
}

/** Hopping (sliding) windows: a window of `size` starts every `slide` (Flink's argument order). */
export function hop(timeColumn: string, slide: Duration, size: Duration, options: AlignedWindowOptions = {}): WindowSpec {
  return {
    type: 'HOP',
    timeColumn,
    sizeMs: parseDuration(size, 'hop size'),
    slideMs: parseDuration(slide, 'hop slide'),
    ...offsetOf(options, 'hop'),
  };
}

/** Cumulating windows: windows growing by `step` from the start of each `maxSize` period. */
export function cumulate(timeColumn: string, step: Duration, maxSize: Duration, options: AlignedWindowOptions = {}): WindowSpec {
  return {
    type: 'CUMULATE',
    timeColumn,
    maxSizeMs: parseDuration(maxSize, 'cumulate max size'),
    stepMs: parseDuration(step, 'cumulate step'),
    ...offsetOf(options, 'cumulate'),
  };
}

/** Options of {@link session}. */
export interface SessionOptions {
  /** Sessions are per value of these columns (SQL `PARTITION BY`). @default [] (one global session) */
  readonly partitionBy?: readonly string[];
}

/** Session windows that close after `gap` without rows; overlapping sessions merge. */
export function session(timeColumn: string, gap: Duration, options: SessionOptions = {}): WindowSpec {
  return { type: 'SESSION', timeColumn, gapMs: parseDuration(gap, 'session gap'), partitionBy: [...(options.partitionBy ?? [])] };
}
