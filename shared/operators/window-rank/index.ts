/**
 * Window table functions, window Top-N and window deduplication with Flink SQL window-TVF
 * semantics: results fire when the watermark reaches `window_end - 1` and are insert-only.
 * Windows are assigned by the one assigner family of shared/operators/window/ (assigners.ts,
 * time-window.ts).
 */
export {
  createWindowTableFunctionOperator,
  windowTableFunctionOutputSchema,
  WINDOW_START,
  WINDOW_END,
  WINDOW_TIME,
} from './window-table-function.ts';
export type { WindowTableFunctionSpec } from './window-table-function.ts';
export { createUnalignedWindowTableFunctionOperator } from './unaligned-window-table-function.ts';
export { createWindowRankOperator, windowRankOutputSchema } from './window-rank.ts';
export type { WindowRankSpec, WindowRankType } from './window-rank.ts';
export { createWindowDeduplicateOperator, windowDeduplicateOutputSchema } from './window-deduplicate.ts';
export type { WindowDeduplicateSpec } from './window-deduplicate.ts';
export { DEFAULT_LATE_OUTPUT_TAG, LATE_RECORDS_METRIC, isWindowFired } from './late-data.ts';
