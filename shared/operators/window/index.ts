/**
 * Window operators: window aggregation and full window functions over TUMBLE, HOP, CUMULATE and
 * SESSION windows, in event or processing time, with triggers and allowed lateness.
 */
export {
  createWindowAggregateOperator,
  createWindowProcessOperator,
  windowAggregateOutputSchema,
  windowColumns,
  WINDOW_COLUMNS,
  type WindowAggregateSpec,
  type WindowAggregateOptions,
  type WindowProcessSpec,
  type WindowProcessFunction,
  type WindowTriggerSpec,
  type WindowTimingSpec,
} from './window-aggregate.ts';
export { createWindowAssigner, type WindowAssigner } from './assigners.ts';
export { INVALID_ROWTIME_TAG, WINDOW_METRICS } from './window-operator.ts';
export { DEFAULT_LATE_OUTPUT_TAG } from './window-spec.ts';
export type { TimeWindow } from './time-window.ts';
