/**
 * Window assigners for the window TVFs: TUMBLE, HOP, CUMULATE and SESSION, with Flink's
 * alignment (`TimeWindow.getWindowStartWithOffset`) and Flink's validation of sizes, slides,
 * steps, gaps and offsets. The one assigner family of the engine: the window aggregation
 * operators (this folder) and the window table function of window Top-N and deduplication
 * (window-rank/window-table-function.ts) both assign through it.
 *
 * Windows come out as Flink's assigners list them: TUMBLE one window; HOP the window with the
 * latest start first (SlidingWindowAssigner walks starts downwards); CUMULATE the shortest
 * window first (CumulativeWindowAssigner walks ends upwards).
 */
import { PlanError } from '../../core/errors.ts';
import type { WindowSpec } from '../../plan/logical.ts';
import { windowStartWithOffset, type TimeWindow } from './time-window.ts';

/** Assigns an element's timestamp to its windows (Flink's `WindowAssigner`). */
export interface WindowAssigner {
  /** Session windows merge; the others never do. */
  readonly merging: boolean;
  /** The windows an element with this timestamp belongs to (before any merging). */
  assign(timestamp: number): TimeWindow[];
  /** Human-readable form for EXPLAIN and errors, e.g. `TUMBLE(ts, 10000 ms)`. */
  readonly display: string;
}

/** How the windows are used, which decides what Flink validates. */
export interface AssignerUse {
  /**
   * Assigned by the window table function alone, with no aggregation over slices after it
   * (Flink's WindowTableFunctionOperator with its plain assigners): a HOP size need not be a
   * multiple of its slide, and an offset only shifts the grid (by offset mod size, as
   * `getWindowStartWithOffset` computes). SESSION windows merge, so their table function buffers
   * rows until the session closes (window-rank/unaligned-window-table-function.ts).
   * @default false (window aggregation: slicing rules)
   */
  readonly tableFunction?: boolean;
}

function requirePositiveInteger(value: number, what: string, display: string): void {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new PlanError(`${display}: ${what} must be a positive integer number of milliseconds, got ${value}`);
  }
}

function requireOffset(offset: number, limit: number, limitName: string, display: string): void {
  if (!Number.isSafeInteger(offset)) throw new PlanError(`${display}: offset must be an integer number of milliseconds, got ${offset}`);
  // Flink's TumblingEventTimeWindows / SlidingEventTimeWindows: abs(offset) < size (slide).
  if (Math.abs(offset) >= limit) {
    throw new PlanError(`${display}: offset ${offset} ms must satisfy |offset| < ${limitName} (${limit} ms)`);
  }
}

/**
 * Validates a window spec and builds its assigner.
 *
 * @throws PlanError naming the bad value: a size, slide, step or gap that is not a positive
 *   integer; a HOP size that is not an integral multiple of its slide or a CUMULATE max size that
 *   is not an integral multiple of its step (the slicing requirement of Flink's window TVF
 *   aggregation); an offset whose magnitude is not below the size (TUMBLE), slide (HOP) or step
 *   (CUMULATE).
 */
export function createWindowAssigner(window: WindowSpec, use: AssignerUse = {}): WindowAssigner {
  const sliced = use.tableFunction !== true;
  const checkOffset = (offset: number, limit: number, limitName: string, display: string): void => {
    if (sliced) requireOffset(offset, limit, limitName, display);
    else if (!Number.isSafeInteger(offset)) throw new PlanError(`${display}: offset must be an integer number of milliseconds, got ${offset}`);
  };
  switch (window.type) {
    case 'TUMBLE': {
      const display = `TUMBLE(${window.timeColumn}, ${window.sizeMs} ms)`;
      requirePositiveInteger(window.sizeMs, 'size', display);
      const size = window.sizeMs;
      const offset = window.offsetMs ?? 0;
      checkOffset(offset, size, 'size', display);
      return {
        merging: false,
        display,
        assign(ts) {
          const start = windowStartWithOffset(ts, offset, size);
          return [{ start, end: start + size }];
        },
      };
    }
    case 'HOP': {
      const display = `HOP(${window.timeColumn}, slide ${window.slideMs} ms, size ${window.sizeMs} ms)`;
      requirePositiveInteger(window.sizeMs, 'size', display);
      requirePositiveInteger(window.slideMs, 'slide', display);
      const { sizeMs: size, slideMs: slide } = window;
      if (sliced && size % slide !== 0) {
        throw new PlanError(`${display}: size ${size} ms must be an integral multiple of slide ${slide} ms`);
      }
      const offset = window.offsetMs ?? 0;
      checkOffset(offset, slide, 'slide', display);
      return {
        merging: false,
        display,
        // SlidingEventTimeWindows.assignWindows: from the last start back while start > ts - size.
        assign(ts) {
          const windows: TimeWindow[] = [];
          for (let start = windowStartWithOffset(ts, offset, slide); start > ts - size; start -= slide) {
            windows.push({ start, end: start + size });
          }
          return windows;
        },
      };
    }
    case 'CUMULATE': {
      const display = `CUMULATE(${window.timeColumn}, step ${window.stepMs} ms, max size ${window.maxSizeMs} ms)`;
      requirePositiveInteger(window.maxSizeMs, 'max size', display);
      requirePositiveInteger(window.stepMs, 'step', display);
      const { maxSizeMs: maxSize, stepMs: step } = window;
      if (maxSize % step !== 0) {
        throw new PlanError(`${display}: max size ${maxSize} ms must be an integral multiple of step ${step} ms`);
      }
      const offset = window.offsetMs ?? 0;
      checkOffset(offset, step, 'step', display);
      return {
        merging: false,
        display,
        // Flink's CumulativeWindowAssigner: one window per step end from the element's step to
        // the end of its max-size window, all sharing the max-size window's start.
        assign(ts) {
          const start = windowStartWithOffset(ts, offset, maxSize);
          const lastEnd = start + maxSize;
          const windows: TimeWindow[] = [];
          for (let end = windowStartWithOffset(ts, offset, step) + step; end <= lastEnd; end += step) {
            windows.push({ start, end });
          }
          return windows;
        },
      };
    }
    case 'SESSION': {
      const display = `SESSION(${window.timeColumn}, gap ${window.gapMs} ms)`;
      requirePositiveInteger(window.gapMs, 'gap', display);
      const gap = window.gapMs;
      return {
        merging: true,
        display,
        assign: (ts) => [{ start: ts, end: ts + gap }],
      };
    }
    default: {
      const unknown: { type?: unknown } = window;
      throw new PlanError(`Unknown window type '${String(unknown.type)}'`);
    }
  }
}
