/**
 * Stream–stream joins (Flink's `operators/join`): the regular join with its state views and its
 * SEMI / ANTI form, the interval join, the event-time temporal join and the window join. Each is
 * a two-input operator: batches arrive tagged with their side, and the watermark is the minimum
 * over both inputs.
 */
export {
  JOIN_TYPES,
  JOIN_TYPE_NAMES,
  RowJoiner,
  joinOutputSchema,
  joinedFieldNames,
  joinedSchema,
  keyTypeProblem,
  leftIsOuter,
  rightIsOuter,
  type JoinBaseSpec,
  type JoinTimeAttributes,
  type JoinType,
  type OuterJoinType,
} from './join-spec.ts';
export { createJoinRecordStateView, formatJoinInputSpec, JOIN_STATE, type JoinInputSpec, type JoinRecordStateView } from './record-state-views.ts';
export { createStreamingJoinOperator, streamingJoinOutputSchema, type StreamingJoinSpec } from './streaming-join.ts';
export { createSemiAntiJoinOperator, isSemiAntiJoinSpec, type SemiAntiJoinSpec } from './semi-anti-join.ts';
export { createIntervalJoinOperator, intervalJoinOutputDelay, intervalJoinOutputSchema, INTERVAL_JOIN_STATE, type IntervalJoinSpec } from './interval-join.ts';
export { createTemporalJoinOperator, temporalJoinOutputSchema, TEMPORAL_JOIN_STATE, type TemporalJoinSpec } from './temporal-join.ts';
export { createWindowJoinOperator, windowJoinOutputSchema, WINDOW_JOIN_METRICS, WINDOW_JOIN_STATE, type WindowJoinSpec } from './window-join.ts';
