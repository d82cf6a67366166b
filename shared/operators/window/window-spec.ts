/**
 * The parts of a window operator spec shared by the aggregate and the full-window-function
 * operators (window, time domain, grouping, trigger, lateness, emission), and their validation.
 */
import { PlanError } from '../../core/errors.ts';
import { requireField } from '../../core/type-parse.ts';
import type { Field, Schema } from '../../core/types.ts';
import type { WindowSpec } from '../../plan/logical.ts';
import { createWindowAssigner, type WindowAssigner } from './assigners.ts';
import { createWindowTrigger, type WindowTrigger, type WindowTriggerSpec } from './triggers.ts';
import { timeZoneOf, UTC_ZONE_ID, type TimeZone } from '../../core/time-zone.ts';
import type { Operator } from '../operator.ts';
import { zonedWindowOperator } from './zoned-window.ts';

/** Default side-output tag of late rows. */
export const DEFAULT_LATE_OUTPUT_TAG = 'late';

/** Window, timing and emission options common to every window operator spec. */
export interface WindowTimingSpec {
  /** The window TVF: TUMBLE, HOP, CUMULATE or SESSION, with `offsetMs` where present. */
  readonly window: WindowSpec;
  /**
   * `'event'` (default): each row's time is `window.timeColumn` (TIMESTAMP(3) or
   * TIMESTAMP_LTZ(3), epoch ms) and
   * windows fire on the watermark. `'processing'`: each row's time is the timer service's
   * processing time when it arrives, and windows fire on the processing-time clock.
   */
  readonly timeDomain?: 'event' | 'processing';
  /** Group key columns; state and timers are per group. SESSION: must include `window.partitionBy`. */
  readonly groupBy: readonly string[];
  /** When windows fire; default: once at the end of the window (plus late re-firings). */
  readonly trigger?: WindowTriggerSpec;
  /** Event time only: keep windows this long past their end and re-fire on late rows. @default 0 */
  readonly allowedLatenessMs?: number;
  /** Side output for rows too late for every window. @default 'late' */
  readonly lateOutputTag?: string;
  /** Emit `-U` before `+U` when a window re-fires with a changed result. */
  readonly generateUpdateBefore: boolean;
}

/** A validated {@link WindowTimingSpec}. */
export interface ResolvedTiming {
  readonly assigner: WindowAssigner;
  readonly trigger: WindowTrigger;
  readonly eventTime: boolean;
  readonly allowedLatenessMs: number;
  readonly lateOutputTag: string;
  /** The group columns with their input types (time attributes dropped, as Flink materializes them). */
  readonly groupFields: readonly Field[];
  /**
   * Rows are windowed by an instant (a TIMESTAMP_LTZ time column, as a SQL PROCTIME() attribute
   * is too), so `window_time` is a TIMESTAMP_LTZ and the windows align in {@link zone}.
   */
  readonly instantTime: boolean;
  /** The time zone windows over an instant align in (`window.timeZone`, UTC by default). */
  readonly zone: TimeZone;
}

/**
 * Validates the shared options against the input schema.
 *
 * @throws PlanError naming the bad value: an invalid window or trigger (see
 *   {@link createWindowAssigner}, {@link createWindowTrigger}), an unknown time domain, a missing
 *   or non-TIMESTAMP time column, missing group columns, SESSION partition columns missing from
 *   the group key, a negative or fractional lateness, lateness in processing time, or an empty
 *   late output tag.
 */
export function resolveTiming(spec: WindowTimingSpec, inputSchema: Schema): ResolvedTiming {
  const domain = spec.timeDomain ?? 'event';
  if (domain !== 'event' && domain !== 'processing') {
    throw new PlanError(`Window time domain must be 'event' or 'processing', got '${String(domain)}'`);
  }
  const eventTime = domain === 'event';
  const assigner = createWindowAssigner(spec.window);
  const timeField = requireField(inputSchema, spec.window.timeColumn, `the time column of ${assigner.display}`);
  if (timeField.type.root !== 'TIMESTAMP' && timeField.type.root !== 'TIMESTAMP_LTZ') {
    throw new PlanError(`Time column '${timeField.name}' of ${assigner.display} must be TIMESTAMP(3) or TIMESTAMP_LTZ(3), not ${timeField.type.root}`);
  }
  const zone = timeZoneOf(spec.window.timeZone ?? UTC_ZONE_ID);
  const groupFields = spec.groupBy.map((name) => {
    const field = requireField(inputSchema, name, 'the window GROUP BY');
    return { name, type: field.type };
  });
  if (spec.window.type === 'SESSION') {
    for (const name of spec.window.partitionBy) {
      requireField(inputSchema, name, `PARTITION BY of ${assigner.display}`);
      if (!spec.groupBy.includes(name)) {
        throw new PlanError(`Session partition column '${name}' of ${assigner.display} must be one of the GROUP BY columns (${spec.groupBy.join(', ') || 'none'})`);
      }
    }
  }
  const allowedLatenessMs = spec.allowedLatenessMs ?? 0;
  if (!Number.isSafeInteger(allowedLatenessMs) || allowedLatenessMs < 0) {
    throw new PlanError(`allowedLatenessMs must be a non-negative integer number of milliseconds, got ${allowedLatenessMs}`);
  }
  if (!eventTime && allowedLatenessMs > 0) {
    throw new PlanError(`allowedLatenessMs ${allowedLatenessMs} needs event time; processing-time windows are never late`);
  }
  const lateOutputTag = spec.lateOutputTag ?? DEFAULT_LATE_OUTPUT_TAG;
  if (typeof lateOutputTag !== 'string' || lateOutputTag === '') {
    throw new PlanError(`lateOutputTag must be a non-empty string, got '${String(lateOutputTag)}'`);
  }
  const trigger = createWindowTrigger(spec.trigger, eventTime);
  return { assigner, trigger, eventTime, allowedLatenessMs, lateOutputTag, groupFields, instantTime: timeField.type.root === 'TIMESTAMP_LTZ', zone };
}

/**
 * The operator on the window's time zone clock when its windows are aligned in one other than
 * UTC (./zoned-window.ts), else the operator itself: in UTC, wall clock and instant agree.
 */
export function onWindowClock(operator: Operator, timing: ResolvedTiming, spec: WindowTimingSpec): Operator {
  if (timing.zone.id === UTC_ZONE_ID || !timing.instantTime) return operator;
  return zonedWindowOperator(operator, timing.zone, { ...(timing.eventTime ? { timeColumn: spec.window.timeColumn } : {}), windowTimeColumn: 'window_time' });
}
