/**
 * Late data of the window operators. A window fires when the watermark reaches its last
 * millisecond (`window_end - 1`, Flink's `TimeWindow.maxTimestamp()`); a row arriving for a
 * window that has fired cannot change its final, insert-only result any more. Flink drops such
 * rows and bumps `numLateRecordsDropped`; Flambda also routes them to a side output so that they
 * are never lost silently.
 *
 * ```
 *   watermark ───────────────|W
 *   window   [start ……… end-1]            fired: end - 1 <= W  → late
 *   window          [start ……… end-1]     open:  end - 1 >  W  → buffered
 * ```
 */
import type { Row } from '../../core/types.ts';
import type { OperatorContext, Output } from '../operator.ts';

/** The side output late rows go to when a spec names none. */
export const DEFAULT_LATE_OUTPUT_TAG = 'late';

/** The counter of late rows, Flink's metric name. */
export const LATE_RECORDS_METRIC = 'numLateRecordsDropped';

/**
 * Flink's `WindowUtils.isWindowFired`: whether the window ending (exclusively) at `windowEnd` has
 * fired at `watermark`.
 */
export function isWindowFired(windowEnd: number, watermark: number): boolean {
  return windowEnd - 1 <= watermark;
}

/** Sends a late row to the side output `tag` and counts it. */
export function emitLate(row: Row, tag: string, context: OperatorContext, out: Output): void {
  out.emitSide(tag, row);
  context.metrics.increment(LATE_RECORDS_METRIC);
}
