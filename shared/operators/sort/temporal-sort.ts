/**
 * The temporal sort, `ORDER BY time [, secondary keys]` without LIMIT in a streaming query
 * (Flink's StreamExecTemporalSort): the rows come out again, in time order. It runs on one shard
 * (the planner puts an `Exchange(single)` before it), so all its state is under one key.
 *
 * Event time (Flink's RowTimeSortOperator): a row waits, with the other rows of its timestamp
 * (in arrival order), until the watermark reaches that timestamp; then the rows of the timestamp
 * are sorted by the secondary keys — stably, so full ties keep their arrival order, as Java's
 * List.sort does — and emitted. A row is late when rows of its timestamp or a later one have been
 * emitted already (`rowtime <= lastTriggeringTs`): emitting it would break the order. Flink drops
 * such a row silently; here it goes to the late side output and is counted
 * (`numLateRecordsDropped`), as the window operators' late rows are.
 *
 * ```
 *   emitted ──────────|T (last timestamp emitted)
 *   row at t <= T     → late (side output 'late')
 *   row at t >  T     → buffered under t; emitted when the watermark reaches t
 * ```
 *
 * A row arriving after the watermark passed its timestamp but not the last emitted one is not
 * late: its timer is already due and fires at the next watermark, still in order (Flink's rule).
 *
 * Processing time (Flink's ProcTimeSortOperator): rows are buffered and, on a processing-time
 * timer one millisecond later, sorted by the secondary keys and emitted; without secondary keys
 * the rows pass straight through, as Flink forwards them.
 *
 * State (plain data, for both backends), all under the key `''`: event time keeps a map from
 * timestamp (an order-preserving sub-key) to its rows and a value with the last emitted
 * timestamp; processing time keeps the buffered rows.
 */
import { PlanError, RecordError } from '../../core/errors.ts';
import type { ChangeRow } from '../../core/row.ts';
import { requireField } from '../../core/type-parse.ts';
import type { Row, Schema } from '../../core/types.ts';
import { encodeSortKey } from '../../partition/key-encoding.ts';
import type { SortField } from '../../plan/logical.ts';
import type { MapState, ValueState } from '../../state/state.ts';
import type { Operator, OperatorContext, Output } from '../operator.ts';
import { compileOrderKey } from '../rank/order-key.ts';
import { DEFAULT_LATE_OUTPUT_TAG, emitLate } from '../window-rank/late-data.ts';

/** Plain-data spec of a temporal sort, as it travels in the job graph. */
export interface TemporalSortSpec {
  readonly timeDomain: 'event' | 'processing';
  /** Event time: the rowtime column (TIMESTAMP) sorted by. Processing time: the attribute's name, for messages. */
  readonly timeColumn: string;
  /** The sort keys after the time attribute (any direction and null order). */
  readonly orderBy: readonly SortField[];
  /** Side output of late rows. @default 'late' */
  readonly lateOutputTag?: string;
}

/** The one state key: the operator runs on one shard, over the whole stream. */
const KEY = '';

/** State names, as Flink's operators name theirs. */
const STATE = { rows: 'dataState', lastTriggeringTs: 'lastTriggeringTsState', buffer: 'sortState' } as const;

/**
 * Checks the spec against the input schema.
 *
 * @throws PlanError for an unknown column, an event-time column that is not a TIMESTAMP or
 *   TIMESTAMP_LTZ, or an invalid secondary key.
 */
export function checkTemporalSort(spec: TemporalSortSpec, inputSchema: Schema): void {
  if (spec.timeDomain !== 'event' && spec.timeDomain !== 'processing') {
    throw new PlanError(`TemporalSort: timeDomain must be 'event' or 'processing', got ${JSON.stringify(spec.timeDomain)}`);
  }
  if (spec.timeDomain === 'event') {
    const time = requireField(inputSchema, spec.timeColumn, 'TemporalSort ORDER BY');
    // A TIMESTAMP_LTZ rowtime sorts as its instants, on the watermark's own clock: no zone involved.
    if (time.type.root !== 'TIMESTAMP' && time.type.root !== 'TIMESTAMP_LTZ') {
      throw new PlanError(`TemporalSort: the time column '${spec.timeColumn}' must be a TIMESTAMP or TIMESTAMP_LTZ, got ${time.type.root}`);
    }
  }
  if (spec.orderBy.length > 0) compileOrderKey(spec.orderBy, inputSchema);
}

/** Sub-keys that sort as the timestamps do, exact for every safe integer. */
function timeKey(ts: number): string {
  return encodeSortKey([ts], ['ASC'], [true]);
}

/**
 * Creates the operator for one shard; see the module documentation.
 *
 * @throws PlanError for an invalid spec (see {@link checkTemporalSort}). At run time a row that
 *   is not `+I` fails the batch (the planner puts a temporal sort over insert-only input only),
 *   and in event time a row with a NULL or invalid time is a RecordError (dead-lettered): it
 *   has no place in the order.
 */
export function createTemporalSortOperator(spec: TemporalSortSpec, inputSchema: Schema): Operator {
  checkTemporalSort(spec, inputSchema);
  const secondary = spec.orderBy.length > 0 ? compileOrderKey(spec.orderBy, inputSchema).compare : undefined;
  const checkInsert = (batch: readonly ChangeRow[]): void => {
    for (const r of batch) {
      if (r.kind !== '+I') throw new PlanError(`TemporalSort: takes insert-only input, got a ${r.kind} row`);
    }
  };
  /** Rows in sort order: a stable sort by the secondary keys (ties keep arrival order). */
  const sorted = (rows: readonly Row[]): readonly Row[] => (secondary === undefined || rows.length < 2 ? rows : [...rows].sort(secondary));
  return spec.timeDomain === 'event' ? rowTimeSort(spec, checkInsert, sorted) : procTimeSort(checkInsert, sorted, secondary === undefined);
}

function rowTimeSort(spec: TemporalSortSpec, checkInsert: (batch: readonly ChangeRow[]) => void, sorted: (rows: readonly Row[]) => readonly Row[]): Operator {
  const column = spec.timeColumn;
  const tag = spec.lateOutputTag ?? DEFAULT_LATE_OUTPUT_TAG;
  let context: OperatorContext | undefined;
  let data: MapState<Row[]> | undefined;
  let lastTriggering: ValueState<number> | undefined;

  const timeOf = (row: Row): number => {
    const value = row[column];
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      throw new RecordError(`TemporalSort: the rowtime column '${column}' must hold a timestamp, got ${String(value)}`, { field: column });
    }
    return value;
  };

  const processRows = (batch: readonly ChangeRow[], times: readonly number[], out: Output): void => {
    const last = lastTriggering!.get(KEY);
    for (let i = 0; i < batch.length; i++) {
      const row = batch[i]!.row;
      const ts = times[i]!;
      if (last !== undefined && ts <= last) {
        emitLate(row, tag, context!, out);
        continue;
      }
      const sub = timeKey(ts);
      const rows = data!.get(KEY, sub);
      if (rows === undefined) {
        data!.put(KEY, sub, [row]);
        context!.timers.registerEventTimeTimer(KEY, '', ts);
      } else {
        rows.push(row);
        data!.put(KEY, sub, rows);
      }
    }
  };

  return {
    open(ctx) {
      context = ctx;
      data = ctx.state.mapState<Row[]>(STATE.rows);
      lastTriggering = ctx.state.valueState<number>(STATE.lastTriggeringTs);
    },
    processBatch(batch, out) {
      if (batch.length === 0) return;
      checkInsert(batch);
      // Every row is checked before any state changes, so a bad one fails the batch cleanly.
      const times = batch.map((r) => timeOf(r.row));
      const loading = context!.state.prefetch([KEY]);
      if (loading !== undefined) return loading.then(() => processRows(batch, times, out));
      processRows(batch, times, out);
    },
    onTimer(timer, out) {
      // The runtime has prefetched the timer's key.
      if (timer.domain !== 'event') return;
      const sub = timeKey(timer.timestamp);
      const rows = data!.get(KEY, sub);
      if (rows === undefined) return;
      for (const row of sorted(rows)) out.emit({ kind: '+I', row });
      data!.delete(KEY, sub);
      lastTriggering!.put(KEY, timer.timestamp);
    },
  };
}

/** @param forward no secondary keys: arrival order is the order, so rows pass straight through. */
function procTimeSort(checkInsert: (batch: readonly ChangeRow[]) => void, sorted: (rows: readonly Row[]) => readonly Row[], forward: boolean): Operator {
  let context: OperatorContext | undefined;
  let buffer: ValueState<Row[]> | undefined;

  const processRows = (batch: readonly ChangeRow[]): void => {
    const rows = buffer!.get(KEY) ?? [];
    for (const r of batch) rows.push(r.row);
    buffer!.put(KEY, rows);
    // Flink's "register a timer for the next millisecond to sort and emit buffered data".
    context!.timers.registerProcessingTimeTimer(KEY, '', context!.timers.currentProcessingTime() + 1);
  };

  return {
    open(ctx) {
      context = ctx;
      buffer = ctx.state.valueState<Row[]>(STATE.buffer);
    },
    processBatch(batch, out) {
      if (batch.length === 0) return;
      checkInsert(batch);
      if (forward) {
        for (const r of batch) out.emit(r);
        return;
      }
      const loading = context!.state.prefetch([KEY]);
      if (loading !== undefined) return loading.then(() => processRows(batch));
      processRows(batch);
    },
    onTimer(timer, out) {
      if (timer.domain !== 'processing') return;
      const rows = buffer!.get(KEY);
      if (rows === undefined) return;
      for (const row of sorted(rows)) out.emit({ kind: '+I', row });
      buffer!.delete(KEY);
    },
  };
}
