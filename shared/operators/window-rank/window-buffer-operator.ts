/**
 * The skeleton shared by the window Top-N and the window deduplication (Flink's
 * WindowRankOperator and RowTimeWindowDeduplicateOperator over a `WindowBuffer`): rows that
 * already carry their window (`window_start`, `window_end`) are buffered per (partition key,
 * window) until the watermark passes the window, then the buffer's final result is emitted
 * insert-only and the window's state is cleared.
 *
 * State layout, one map entry per open window of a partition:
 * - state key: `encodeKey(partition values)` (so a key's windows live under one DynamoDB
 *   partition key and are prefetched together);
 * - map sub-key and timer namespace: the window, `start,end`;
 * - value: the operator's buffer (plain data, bounded by the operator).
 *
 * One event-time timer per (key, window) at `window_end - 1` fires the window. When it fires,
 * the buffer is emitted and deleted, so a fired window leaves neither state nor timers behind.
 * Rows of a window that has fired (`window_end - 1 <= watermark` when they arrive) go to the late
 * side output (late-data.ts).
 *
 * In processing time (windows cut from a PROCTIME() attribute) the timer is a processing-time
 * timer at the same `window_end - 1`: the window fires when the processing-time clock passes its
 * end, as in Flink's slicing window operators. The progress rows are late against is then, as
 * there, the last window this instance fired (`window_end - 1`), not the clock: rows of a window
 * aggregate that fired on the clock a moment ago are still on time, and their window, already
 * due, fires at the next processing-time tick. Like Flink's, this progress is not checkpointed.
 */
import { PlanError, RecordError } from '../../core/errors.ts';
import type { ChangeRow } from '../../core/row.ts';
import { requireField } from '../../core/type-parse.ts';
import type { Row, Schema } from '../../core/types.ts';
import { encodeKey } from '../../partition/key-encoding.ts';
import type { MapState } from '../../state/state.ts';
import type { Operator, OperatorContext, Output } from '../operator.ts';
import { timeZoneOf } from '../../core/time-zone.ts';
import { zonedTimerService } from '../window/zoned-window.ts';
import { DEFAULT_LATE_OUTPUT_TAG, emitLate, isWindowFired } from './late-data.ts';

/** What a windowed buffering operator does with its rows; the skeleton does the rest. */
export interface WindowBufferLogic<B> {
  /** Adds an on-time row to a window's buffer (`undefined` for the window's first row); returns the buffer to store. */
  add(buffer: B | undefined, row: Row): B;
  /** Emits the final result of a window whose timer fired. */
  fire(buffer: B, out: Output): void;
  /** Checks a row before any state is touched; throws a RecordError for a row that cannot be processed. */
  check?(row: Row): void;
}

/** Configuration of {@link createWindowBufferOperator}. */
export interface WindowBufferConfig<B> {
  /** Operator name for error messages, e.g. `WindowRank`. */
  readonly name: string;
  /** Partition columns (without the window columns, which the skeleton adds). */
  readonly partitionBy: readonly string[];
  readonly windowStartColumn: string;
  readonly windowEndColumn: string;
  /** Side output of late rows. @default 'late' */
  readonly lateOutputTag?: string;
  /** Name of the operator's one map state. */
  readonly stateName: string;
  /**
   * The time zone whose wall clock the window columns are on (windows over a TIMESTAMP_LTZ,
   * aligned in the session time zone): the watermark is read and timers are set on that clock
   * (../window/zoned-window.ts). Absent means UTC.
   */
  readonly timeZone?: string;
  /** `'processing'`: the windows fire on the processing-time clock. @default 'event' */
  readonly timeDomain?: 'event' | 'processing';
  readonly logic: WindowBufferLogic<B>;
}

/**
 * Validates the partition and window columns against the input schema.
 *
 * @throws PlanError for a missing column or a window column that is not a TIMESTAMP.
 */
export function checkWindowColumns(config: Omit<WindowBufferConfig<unknown>, 'logic' | 'stateName'>, inputSchema: Schema): void {
  if (!Array.isArray(config.partitionBy)) throw new PlanError(`${config.name}: partitionBy must be a list of columns`);
  for (const column of config.partitionBy) requireField(inputSchema, column, `${config.name} PARTITION BY`);
  for (const column of [config.windowStartColumn, config.windowEndColumn]) {
    const field = requireField(inputSchema, column, `${config.name} window columns`);
    if (field.type.root !== 'TIMESTAMP') {
      throw new PlanError(`${config.name}: the window column '${column}' must be a TIMESTAMP, got ${field.type.root}`);
    }
  }
}

/** Creates the operator; see the module header. Validate the columns with {@link checkWindowColumns} first. */
export function createWindowBufferOperator<B>(config: WindowBufferConfig<B>): Operator {
  const { name, partitionBy, windowStartColumn, windowEndColumn, logic } = config;
  const tag = config.lateOutputTag ?? DEFAULT_LATE_OUTPUT_TAG;
  const processing = config.timeDomain === 'processing';
  /** Processing time: `window_end - 1` of the last window fired (Flink's `currentProgress`). */
  let firedUpTo = -Infinity;
  let context: OperatorContext | undefined;
  let buffers: MapState<B> | undefined;

  const timeOf = (row: Row, column: string): number => {
    const value = row[column];
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      throw new RecordError(`${name}: the window column '${column}' must hold a timestamp, got ${String(value)}`, { field: column });
    }
    return value;
  };

  /** Reads what a row needs before state is touched, so a bad row fails the batch up front. */
  const locate = (input: ChangeRow): { key: string; window: string; end: number } => {
    if (input.kind !== '+I') throw new PlanError(`${name}: takes insert-only input, got a ${input.kind} row`);
    const row = input.row;
    const start = timeOf(row, windowStartColumn);
    const end = timeOf(row, windowEndColumn);
    logic.check?.(row);
    return { key: encodeKey(partitionBy.map((c) => row[c] ?? null)), window: `${start},${end}`, end };
  };

  const processRows = (batch: readonly ChangeRow[], places: ReturnType<typeof locate>[], out: Output): void => {
    const state = buffers!;
    const timers = context!.timers;
    const progress = processing ? firedUpTo : timers.currentWatermark();
    for (let i = 0; i < batch.length; i++) {
      const row = batch[i]!.row;
      const { key, window, end } = places[i]!;
      if (isWindowFired(end, progress)) {
        emitLate(row, tag, context!, out);
        continue;
      }
      const buffer = state.get(key, window);
      state.put(key, window, logic.add(buffer, row));
      // Registering once per window is enough: the timer service keeps one timer per (key, window, time).
      if (buffer === undefined) {
        if (processing) timers.registerProcessingTimeTimer(key, window, end - 1);
        else timers.registerEventTimeTimer(key, window, end - 1);
      }
    }
  };

  return {
    open(ctx) {
      context = config.timeZone === undefined ? ctx : { ...ctx, timers: zonedTimerService(ctx.timers, timeZoneOf(config.timeZone)) };
      buffers = ctx.state.mapState<B>(config.stateName);
    },
    processBatch(batch, out) {
      if (batch.length === 0) return;
      const places = batch.map(locate);
      // One prefetch per batch for the DynamoDB backend; the per-row path is then synchronous.
      const loading = context!.state.prefetch(new Set(places.map((p) => p.key)));
      if (loading !== undefined) return loading.then(() => processRows(batch, places, out));
      processRows(batch, places, out);
    },
    onTimer(timer, out) {
      // The runtime has prefetched the timer's key.
      const state = buffers!;
      const buffer = state.get(timer.key, timer.namespace);
      if (buffer === undefined) return;
      logic.fire(buffer, out);
      state.delete(timer.key, timer.namespace);
      // The namespace is the window on the window columns' clock (`start,end`).
      if (processing) firedUpTo = Math.max(firedUpTo, Number(timer.namespace.slice(timer.namespace.indexOf(',') + 1)) - 1);
    },
  };
}
