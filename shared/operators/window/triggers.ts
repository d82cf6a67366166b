/**
 * Triggers: when a window emits. One composite trigger covers what Flink offers for window
 * aggregations:
 *
 * - the default end-of-window trigger in the window's time domain (`EventTimeTrigger` /
 *   `ProcessingTimeTrigger`): fire when the watermark (clock) reaches `maxTimestamp`, and — in
 *   event time — fire again for every element that arrives later but within the allowed
 *   lateness (the seed's `onElement` returning FIRE when the watermark is past the window);
 * - early firing (`table.exec.emit.early-fire.delay`, Flink's
 *   `ProcessingTimeTriggers.AfterFirstElementPeriodic`): before the end, fire at most once per
 *   processing-time interval, the interval starting at the first element after a firing;
 *   interval 0 fires on every element;
 * - late firing (`table.exec.emit.late-fire.delay`): after the end, the same periodic
 *   processing-time firing instead of firing on every late element;
 * - `CountTrigger`: fire every N elements. As with `.trigger(CountTrigger.of(n))` it replaces
 *   the time trigger, so it cannot be combined with early or late firing;
 * - purging (`PurgingTrigger`): every FIRE becomes FIRE_AND_PURGE.
 *
 * Trigger state (element count, pending early/late timer) is kept in the window's state entry,
 * and every timer is registered under the window's namespace, so the operator deduplicates and
 * deletes them per window.
 */
import { PlanError } from '../../core/errors.ts';
import type { TimerService } from '../../state/state.ts';
import { maxTimestamp, type TimeWindow } from './time-window.ts';

/** Trigger options of a window operator; absent fields keep Flink's defaults. */
export interface WindowTriggerSpec {
  /**
   * Early firing: before the window ends, fire at most once per this processing-time interval
   * (Flink's `table.exec.emit.early-fire.delay`); 0 fires on every element.
   */
  readonly earlyFireIntervalMs?: number;
  /**
   * Late firing: after the window ends (within the allowed lateness), fire at most once per this
   * processing-time interval instead of on every late element (`table.exec.emit.late-fire.delay`);
   * absent or 0 fires on every late element.
   */
  readonly lateFireIntervalMs?: number;
  /** `CountTrigger`: fire every N elements of a window (replaces the end-of-window trigger). */
  readonly count?: number;
  /** Purging trigger: clear the window contents after each firing (FIRE_AND_PURGE). */
  readonly purge?: boolean;
}

/** The trigger state of one window, stored inside the window's state entry (plain data). */
export interface TriggerState {
  /** CountTrigger: elements since the last count firing. */
  count?: number;
  /** Pending early-firing processing-time timer. */
  early?: number;
  /** Pending late-firing processing-time timer. */
  late?: number;
}

/** What a trigger method needs: the timers and the key and namespace of the window. */
export interface TriggerContext {
  readonly timers: TimerService;
  readonly key: string;
  readonly namespace: string;
  readonly window: TimeWindow;
}

/** The composite trigger of a window operator; see the module documentation. */
export interface WindowTrigger {
  /** Whether each firing purges the window contents. */
  readonly purge: boolean;
  /** An element was added to the window; returns whether to fire now. */
  onElement(ctx: TriggerContext, state: TriggerState): boolean;
  /** An event-time timer of the window fired; returns whether to fire. */
  onEventTime(ctx: TriggerContext, state: TriggerState, time: number): boolean;
  /** A processing-time timer of the window fired; returns whether to fire. */
  onProcessingTime(ctx: TriggerContext, state: TriggerState, time: number): boolean;
  /**
   * Windows were merged into `ctx.window`, whose trigger state is already the merge of theirs
   * (counts summed, earliest pending timers kept): registers the merged window's timers
   * (`Trigger.onMerge`).
   */
  onMerge(ctx: TriggerContext, state: TriggerState): void;
  /** Deletes every timer the trigger registered for the window (`Trigger.clear`). */
  clear(ctx: TriggerContext, state: TriggerState): void;
}

function optionalInterval(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new PlanError(`Window trigger: ${name} must be a non-negative integer number of milliseconds, got ${value}`);
  }
  return value;
}

/**
 * Merges the trigger state of windows merged into one: counts add up (`CountTrigger.onMerge`),
 * the earliest pending periodic timer wins (the `Min` reducing state of
 * `AfterFirstElementPeriodic`).
 */
export function mergeTriggerStates(states: readonly TriggerState[]): TriggerState {
  const merged: TriggerState = {};
  for (const s of states) {
    if (s.count !== undefined) merged.count = (merged.count ?? 0) + s.count;
    if (s.early !== undefined) merged.early = Math.min(merged.early ?? Infinity, s.early);
    if (s.late !== undefined) merged.late = Math.min(merged.late ?? Infinity, s.late);
  }
  return merged;
}

/**
 * Validates trigger options and builds the trigger for a window operator.
 *
 * @throws PlanError naming the bad value: a count that is not a positive integer, a negative or
 *   fractional interval, a count combined with early/late firing, or late firing in processing
 *   time (processing-time windows are never late).
 */
export function createWindowTrigger(spec: WindowTriggerSpec | undefined, eventTime: boolean): WindowTrigger {
  const early = optionalInterval(spec?.earlyFireIntervalMs, 'earlyFireIntervalMs');
  const late = optionalInterval(spec?.lateFireIntervalMs, 'lateFireIntervalMs');
  const count = spec?.count;
  const purge = spec?.purge === true;
  if (count !== undefined) {
    if (!Number.isSafeInteger(count) || count <= 0) throw new PlanError(`Window trigger: count must be a positive integer, got ${count}`);
    if (early !== undefined || late !== undefined) {
      throw new PlanError(`Window trigger: count ${count} replaces the end-of-window trigger and cannot be combined with early or late firing`);
    }
    return countTrigger(count, purge);
  }
  if (!eventTime && late !== undefined) {
    throw new PlanError(`Window trigger: lateFireIntervalMs ${late} needs event time; processing-time windows are never late`);
  }
  return timeTrigger(eventTime, early, late === 0 ? undefined : late, purge);
}

function countTrigger(count: number, purge: boolean): WindowTrigger {
  return {
    purge,
    onElement(_ctx, state) {
      const n = (state.count ?? 0) + 1;
      if (n >= count) {
        delete state.count;
        return true;
      }
      state.count = n;
      return false;
    },
    onEventTime: () => false,
    onProcessingTime: () => false,
    // CountTrigger.onMerge: the summed count (already in the state) fires on the next element.
    onMerge() {},
    clear() {},
  };
}

/** Registers the periodic timer unless one is pending (AfterFirstElementPeriodic.onElement). */
function armPeriodic(ctx: TriggerContext, state: TriggerState, field: 'early' | 'late', interval: number): void {
  if (state[field] !== undefined) return;
  const at = ctx.timers.currentProcessingTime() + interval;
  state[field] = at;
  ctx.timers.registerProcessingTimeTimer(ctx.key, ctx.namespace, at);
}

function timeTrigger(eventTime: boolean, early: number | undefined, late: number | undefined, purge: boolean): WindowTrigger {
  const registerEnd = (ctx: TriggerContext): void => {
    const max = maxTimestamp(ctx.window);
    if (eventTime) ctx.timers.registerEventTimeTimer(ctx.key, ctx.namespace, max);
    else ctx.timers.registerProcessingTimeTimer(ctx.key, ctx.namespace, max);
  };
  const isLate = (ctx: TriggerContext): boolean => eventTime && maxTimestamp(ctx.window) <= ctx.timers.currentWatermark();
  const dropEarly = (ctx: TriggerContext, state: TriggerState): void => {
    if (state.early === undefined) return;
    ctx.timers.deleteProcessingTimeTimer(ctx.key, ctx.namespace, state.early);
    delete state.early;
  };
  return {
    purge,
    onElement(ctx, state) {
      if (isLate(ctx)) {
        // The seed's EventTimeTrigger.onElement: the watermark is already past the window.
        if (late === undefined) return true;
        armPeriodic(ctx, state, 'late', late);
        return false;
      }
      registerEnd(ctx);
      if (early === undefined) return false;
      if (early === 0) return true;
      armPeriodic(ctx, state, 'early', early);
      return false;
    },
    onEventTime(ctx, state, time) {
      if (!eventTime || time !== maxTimestamp(ctx.window)) return false;
      // The on-time firing includes everything; a pending early firing would only repeat it.
      dropEarly(ctx, state);
      return true;
    },
    onProcessingTime(ctx, state, time) {
      let fire = false;
      if (!eventTime && time === maxTimestamp(ctx.window)) {
        dropEarly(ctx, state);
        fire = true;
      }
      if (state.early === time) {
        delete state.early;
        fire = true;
      }
      if (state.late === time) {
        delete state.late;
        fire = true;
      }
      return fire;
    },
    onMerge(ctx, state) {
      // EventTimeTrigger.onMerge: only while the watermark is before the merged window's end;
      // past it, the element being added fires the window through onElement.
      if (!isLate(ctx)) registerEnd(ctx);
      if (state.early !== undefined) ctx.timers.registerProcessingTimeTimer(ctx.key, ctx.namespace, state.early);
      if (state.late !== undefined) ctx.timers.registerProcessingTimeTimer(ctx.key, ctx.namespace, state.late);
    },
    clear(ctx, state) {
      const max = maxTimestamp(ctx.window);
      if (eventTime) ctx.timers.deleteEventTimeTimer(ctx.key, ctx.namespace, max);
      else ctx.timers.deleteProcessingTimeTimer(ctx.key, ctx.namespace, max);
      if (state.early !== undefined) ctx.timers.deleteProcessingTimeTimer(ctx.key, ctx.namespace, state.early);
      if (state.late !== undefined) ctx.timers.deleteProcessingTimeTimer(ctx.key, ctx.namespace, state.late);
    },
  };
}
