/**
 * Window aggregation: the window TVF aggregate (`GROUP BY window_start, window_end, …` over
 * TUMBLE / HOP / CUMULATE / SESSION) with the DataStream window operator's triggers and allowed
 * lateness. The aggregate calls run through the shared {@link AggsHandler}; the timing rules
 * live in ./window-operator.ts.
 */
import { parseType, schemaFromFields } from '../../core/type-parse.ts';
import type { Field, Schema } from '../../core/types.ts';
import type { AggCall } from '../../plan/logical.ts';
import { AggsHandler } from '../aggregate/aggs-handler.ts';
import type { Operator } from '../operator.ts';
import { createSlicedWindowOperator, type SlicedWindowConfig } from './sliced-window-operator.ts';
import { windowStartWithOffset } from './time-window.ts';
import { accumulatorMerger } from './slice-merge.ts';
import { aggregateContents, mergeableAggregateContents } from './window-contents.ts';
import { createWindowOperator } from './window-operator.ts';
import { onWindowClock, resolveTiming, type WindowTimingSpec } from './window-spec.ts';

export type { WindowTriggerSpec } from './triggers.ts';
export type { WindowTimingSpec } from './window-spec.ts';
export { createWindowProcessOperator, type WindowProcessSpec } from './window-process.ts';
export type { WindowProcessFunction } from './window-contents.ts';

/** The plain-data spec of a window aggregation. */
export interface WindowAggregateSpec extends WindowTimingSpec {
  /** COUNT, COUNT DISTINCT, SUM, MIN, MAX, AVG, with FILTER columns, as in GroupAggregate. */
  readonly aggCalls: readonly AggCall[];
}

/** Implementation choices of {@link createWindowAggregateOperator} (same results either way). */
export interface WindowAggregateOptions {
  /**
   * Use the sliced operator (./sliced-window-operator.ts) where it applies: TUMBLE/HOP/CUMULATE,
   * event time, the default trigger, no lateness, exactly mergeable calls. @default true
   */
  readonly slicing?: boolean;
  /** The pipeline's function registry, where user aggregate functions are found by reference. */
  readonly functions?: ReadonlyMap<string, unknown>;
}

/** Slice width and offset of an aligned window (every window boundary is a slice boundary). */
function slicing(
  window: WindowAggregateSpec['window'],
): Pick<SlicedWindowConfig, 'sliceMs' | 'offsetMs' | 'windowStart' | 'lastWindowEnd'> | undefined {
  switch (window.type) {
    case 'TUMBLE': {
      const offsetMs = window.offsetMs ?? 0;
      const size = window.sizeMs;
      return { sliceMs: size, offsetMs, windowStart: (end) => end - size, lastWindowEnd: (sliceEnd) => sliceEnd };
    }
    case 'HOP': {
      // The assigner has checked that the size is a multiple of the slide: gcd = slide.
      const { sizeMs: size, slideMs: slide } = window;
      const offsetMs = window.offsetMs ?? 0;
      return { sliceMs: slide, offsetMs, windowStart: (end) => end - size, lastWindowEnd: (sliceEnd) => sliceEnd - slide + size };
    }
    case 'CUMULATE': {
      // Every window of a slice shares the max-size window's start; the last is the max-size one.
      const maxSize = window.maxSizeMs;
      const offsetMs = window.offsetMs ?? 0;
      return {
        sliceMs: window.stepMs,
        offsetMs,
        windowStart: (end) => windowStartWithOffset(end - 1, offsetMs, maxSize),
        lastWindowEnd: (sliceEnd) => windowStartWithOffset(sliceEnd - 1, offsetMs, maxSize) + maxSize,
      };
    }
    default:
      return undefined;
  }
}

/** The sliced operator when the spec allows it (see its module documentation), else undefined. */
function slicedOperator(spec: WindowAggregateSpec, inputSchema: Schema, handler: AggsHandler, timing: ReturnType<typeof resolveTiming>, functions: ReadonlyMap<string, unknown> | undefined): Operator | undefined {
  const trigger = spec.trigger;
  const defaultTrigger =
    trigger === undefined ||
    (trigger.earlyFireIntervalMs === undefined && (trigger.lateFireIntervalMs ?? 0) === 0 && trigger.count === undefined && trigger.purge !== true);
  if (timing.assigner.merging || !timing.eventTime || !defaultTrigger || timing.allowedLatenessMs !== 0) return undefined;
  const slices = slicing(spec.window);
  const merge = accumulatorMerger(spec.aggCalls, inputSchema, functions);
  if (slices === undefined || merge === undefined) return undefined;
  return createSlicedWindowOperator({
    assigner: timing.assigner,
    ...slices,
    timeColumn: spec.window.timeColumn,
    groupBy: spec.groupBy,
    lateOutputTag: timing.lateOutputTag,
    handler,
    merge,
  });
}

/** Output column names of the window columns, in order. */
export const WINDOW_COLUMNS = ['window_start', 'window_end', 'window_time'] as const;

const TIMESTAMP_NOT_NULL = parseType('TIMESTAMP(3) NOT NULL');
const TIMESTAMP_LTZ_NOT_NULL = parseType('TIMESTAMP_LTZ(3) NOT NULL');

/**
 * The window columns: `window_start`, `window_end` (TIMESTAMP(3)) and `window_time`
 * (= `window_end - 1`), a rowtime attribute in event time (so downstream windows and joins can
 * use it, as in Flink) and a proctime attribute in processing time. Windows over an instant (a
 * TIMESTAMP_LTZ time column, or processing time) have a TIMESTAMP_LTZ(3) `window_time`, as in
 * Flink 1.13+.
 */
export function windowColumns(eventTime: boolean, instantTime = false): Field[] {
  return [
    { name: 'window_start', type: TIMESTAMP_NOT_NULL },
    { name: 'window_end', type: TIMESTAMP_NOT_NULL },
    { name: 'window_time', type: instantTime ? TIMESTAMP_LTZ_NOT_NULL : TIMESTAMP_NOT_NULL, timeAttribute: eventTime ? 'rowtime' : 'proctime' },
  ];
}

function build(spec: WindowAggregateSpec, inputSchema: Schema, functions?: ReadonlyMap<string, unknown>): { schema: Schema; handler: AggsHandler; timing: ReturnType<typeof resolveTiming> } {
  const timing = resolveTiming(spec, inputSchema);
  const handler = new AggsHandler(spec.aggCalls, inputSchema, functions);
  const fields: Field[] = [...timing.groupFields];
  handler.names.forEach((name, i) => fields.push({ name, type: handler.resultTypes[i]! }));
  fields.push(...windowColumns(timing.eventTime, timing.instantTime));
  return { schema: schemaFromFields(fields), handler, timing };
}

/**
 * The output schema: the group columns (input types), one column per aggregate call (typed as
 * in GroupAggregate), then `window_start`, `window_end`, `window_time`.
 *
 * @throws PlanError naming the bad value for an invalid spec: see {@link createWindowAggregateOperator}.
 */
export function windowAggregateOutputSchema(spec: WindowAggregateSpec, inputSchema: Schema): Schema {
  return build(spec, inputSchema).schema;
}

/**
 * Creates the window aggregate operator; see ./window-operator.ts for firing, emission, late
 * data and session-merge rules. Without early/late/count triggers and without lateness it
 * emits insert-only `+I` rows, one per group and window, when `window_end - 1 <= watermark`
 * (the window TVF semantics).
 *
 * @throws PlanError naming the bad value: size/slide/step/gap not a positive integer, a HOP size
 *   not a multiple of its slide, a CUMULATE max size not a multiple of its step, an offset out of
 *   range, missing columns, a non-TIMESTAMP time column, SESSION partition columns outside the
 *   group key, an invalid trigger or lateness, an unsupported aggregate call, or duplicate output
 *   column names.
 */
export function createWindowAggregateOperator(spec: WindowAggregateSpec, inputSchema: Schema, options: WindowAggregateOptions = {}): Operator {
  const { schema, handler, timing } = build(spec, inputSchema, options.functions);
  return onWindowClock(windowAggregateOperator(spec, inputSchema, options, schema, handler, timing), timing, spec);
}

function windowAggregateOperator(
  spec: WindowAggregateSpec,
  inputSchema: Schema,
  options: WindowAggregateOptions,
  schema: Schema,
  handler: AggsHandler,
  timing: ReturnType<typeof resolveTiming>,
): Operator {
  // The sliced operator names a window by its timer's time; on a zone's clock a window ending in
  // a daylight-saving gap would not read back, so zoned windows take the generic operator.
  if (options.slicing !== false && (timing.zone.id === 'UTC' || !timing.instantTime)) {
    const sliced = slicedOperator(spec, inputSchema, handler, timing, options.functions);
    if (sliced !== undefined) return sliced;
  }
  const outputNames = schema.fields.map((f) => f.name);
  const common = {
    assigner: timing.assigner,
    trigger: timing.trigger,
    eventTime: timing.eventTime,
    timeColumn: spec.window.timeColumn,
    groupBy: spec.groupBy,
    allowedLatenessMs: timing.allowedLatenessMs,
    lateOutputTag: timing.lateOutputTag,
    generateUpdateBefore: spec.generateUpdateBefore,
    outputNames,
  };
  if (!timing.assigner.merging) return createWindowOperator({ ...common, contents: aggregateContents(handler, spec.groupBy) });
  // Session windows keep the rows too, projected to the columns the calls read (see window-contents.ts).
  const columns = [...new Set(spec.aggCalls.flatMap((c) => [c.arg, ...(c.extraArgs ?? []), c.filterField].filter((n): n is string => n !== undefined)))];
  return createWindowOperator({ ...common, contents: mergeableAggregateContents(handler, spec.groupBy, columns) });
}
