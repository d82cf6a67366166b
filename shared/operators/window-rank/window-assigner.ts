/**
 * Window assignment of the window table functions TUMBLE, HOP and CUMULATE, following Flink's
 * assigners in flink-table-runtime (TumblingWindowAssigner, SlidingWindowAssigner,
 * CumulativeWindowAssigner) and `TimeWindow.getWindowStartWithOffset`, so rows land in exactly
 * the windows Flink would put them in, negative timestamps and offsets included.
 *
 * SESSION is not assignable row by row: its windows merge, so Flink only allows the SESSION TVF
 * under a window aggregation (the windows are known once the session closes).
 */
import { PlanError } from '../../core/errors.ts';
import type { WindowSpec } from '../../plan/logical.ts';

/** A window `[start, end)` in epoch milliseconds. */
export interface TimeWindow {
  readonly start: number;
  readonly end: number;
}

/** Assigns a timestamp to the windows it belongs to. */
export interface WindowAssigner {
  /** The windows containing `timestamp`, in Flink's order (see {@link compileWindowAssigner}). */
  assign(timestamp: number): TimeWindow[];
}

/**
 * Flink's `TimeWindow.getWindowStartWithOffset`: the start of the window of `size` (aligned to
 * `offset`) that contains `timestamp`. The `remainder < 0` branch is what makes negative
 * timestamps (before 1970, or before the offset) round down rather than towards zero.
 */
export function windowStartWithOffset(timestamp: number, offset: number, size: number): number {
  const remainder = (timestamp - offset) % size;
  return remainder < 0 ? timestamp - (remainder + size) : timestamp - remainder;
}

/**
 * Validates a window spec and compiles its assigner. Windows come out as Flink's assigners list
 * them: TUMBLE one window; HOP the window with the latest start first (SlidingWindowAssigner
 * walks starts downwards); CUMULATE the shortest window first (CumulativeWindowAssigner walks
 * ends upwards).
 *
 * @throws PlanError for SESSION (it needs a window aggregation), a non-positive or non-integer
 *   size, slide or step, a non-integer offset, a CUMULATE max size that is not a multiple of
 *   its step, or an unknown window type.
 */
export function compileWindowAssigner(window: WindowSpec): WindowAssigner {
  switch (window.type) {
    case 'TUMBLE': {
      const size = positive(window.sizeMs, 'TUMBLE size');
      const offset = offsetOf(window.offsetMs);
      return {
        assign(timestamp) {
          const start = windowStartWithOffset(timestamp, offset, size);
          return [{ start, end: start + size }];
        },
      };
    }
    case 'HOP': {
      const size = positive(window.sizeMs, 'HOP size');
      const slide = positive(window.slideMs, 'HOP slide');
      const offset = offsetOf(window.offsetMs);
      return {
        assign(timestamp) {
          const windows: TimeWindow[] = [];
          const lastStart = windowStartWithOffset(timestamp, offset, slide);
          for (let start = lastStart; start > timestamp - size; start -= slide) windows.push({ start, end: start + size });
          return windows;
        },
      };
    }
    case 'CUMULATE': {
      const maxSize = positive(window.maxSizeMs, 'CUMULATE max size');
      const step = positive(window.stepMs, 'CUMULATE step');
      if (maxSize % step !== 0) {
        // CumulativeWindowAssigner: "max size must be an integral multiple of step".
        throw new PlanError(`CUMULATE max size (${maxSize} ms) must be an integral multiple of its step (${step} ms)`);
      }
      const offset = offsetOf(window.offsetMs);
      return {
        assign(timestamp) {
          const start = windowStartWithOffset(timestamp, offset, maxSize);
          const lastEnd = start + maxSize;
          const windows: TimeWindow[] = [];
          for (let end = windowStartWithOffset(timestamp, offset, step) + step; end <= lastEnd; end += step) {
            windows.push({ start, end });
          }
          return windows;
        },
      };
    }
    case 'SESSION':
      throw new PlanError(
        'The SESSION window table function needs an aggregation (GROUP BY window_start, window_end, …): ' +
          'session windows merge, so rows cannot be assigned to them one by one',
      );
    default:
      throw new PlanError(`Unknown window type ${JSON.stringify((window as { type?: unknown }).type)}`);
  }
}

function positive(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new PlanError(`${what} must be a positive whole number of milliseconds (given ${String(value)})`);
  }
  return value;
}

function offsetOf(value: number | undefined): number {
  if (value === undefined) return 0;
  if (!Number.isSafeInteger(value)) {
    throw new PlanError(`Window offset must be a whole number of milliseconds (given ${String(value)})`);
  }
  return value;
}
