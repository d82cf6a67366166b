/**
 * Public API of Flambda for pipeline modules: `import { Pipeline, sum, col } from 'flambda'`.
 */
export { Pipeline, isPipeline } from './pipeline.ts';
export type { GeneratorContext, GeneratorFunction, SourceOptions } from './pipeline.ts';
export { Stream, GroupedStream } from './stream.ts';
export type { SinkOptions, AggregateOptions, ProjectionSpec, JoinKind, OuterJoinKind, JoinOn, Joined, JoinOptions, IntervalJoinOptions, TemporalJoinOptions } from './stream.ts';
export { WindowedStream } from './windowed-stream.ts';
export type { SortByTimeOptions } from './time-order.ts';
export { scalarFunction, isScalarFunction, tableFunction, isTableFunction, aggregateFunction, isAggregateFunction } from './user-functions.ts';
export type { ScalarFunction, TableFunction, TableFunctionCall, AggregateFunction, FunctionArgument, UserFunctionDefinition, InputDeclaration, JsValueOf, JsArguments } from './user-functions.ts';
export { LookupTable } from './lookup-table.ts';
export type { LookupTableOptions, LookupSourceSpec, LookupJoinOptions, LookupOn, LookupColumns, LookupJoined } from './lookup-table.ts';
export type { LookupCacheSpec, LookupRetrySpec, LookupOutputColumn } from '../lookup/lookup-join.ts';
export type { LookupFunction } from '../lookup/function-source.ts';
export type {
  WindowColumns,
  WindowOptions,
  TriggerOptions,
  LateSinkOption,
  WindowTimingOptions,
  WindowRankOptions,
  WindowDeduplicateOptions,
  WindowJoinOptions,
} from './windowed-stream.ts';
export { tumble, hop, cumulate, session, parseDuration } from './windows.ts';
export type { Duration, AlignedWindowOptions, SessionOptions } from './windows.ts';
export { count, countWhere, countDistinct, sum, min, max, avg, listagg, firstValue, lastValue, singleValue, variance } from './aggregates.ts';
export type { AggregateSpec } from './aggregates.ts';
export type { RowOf, SchemaSpec, ColumnTypeSpec } from './schema-spec.ts';
export {
  col,
  lit,
  call,
  cast,
  tryCast,
  eq,
  neq,
  lt,
  le,
  gt,
  ge,
  and,
  or,
  not,
  add,
  sub,
  mul,
  div,
  mod,
  isNull,
  isNotNull,
  caseWhen,
  dateFormat,
  interval,
} from '../plan/expr-build.ts';
export type { Expr } from '../plan/expr.ts';
export type { Row, Value, Schema, LogicalType } from '../core/types.ts';
export type { ChangeRow, RowKind } from '../core/row.ts';
export { parseTimestamp, formatTimestamp } from '../core/timestamp.ts';
