/**
 * The window table functions `TUMBLE`, `HOP` and `CUMULATE` (Flink's AlignedWindowTableFunctionOperator):
 * each insert-only input row comes out once per window it belongs to, with three columns
 * appended — `window_start`, `window_end` (TIMESTAMP(3)) and `window_time` (`window_end - 1`,
 * the output's rowtime attribute, as in Flink).
 *
 * Like Flink's, the function assigns every row all its windows whatever the watermark: a row
 * whose windows have fired still comes out. Lateness belongs to the operators after it (the
 * window aggregate, Top-N and deduplication drop and count their late rows themselves), and a
 * TVF feeding a sink, a filter or a regular aggregate loses nothing.
 *
 * `SESSION` has the same output schema but needs state: unaligned-window-table-function.ts.
 */
import { PlanError, RecordError } from '../../core/errors.ts';
import type { ChangeRow } from '../../core/row.ts';
import { requireField, schemaFromFields } from '../../core/type-parse.ts';
import { timeZoneOf, toInstant, toLocalMillis, UTC_ZONE_ID } from '../../core/time-zone.ts';
import type { Field, LogicalType, Row, Schema, Value } from '../../core/types.ts';
import type { WindowSpec } from '../../plan/logical.ts';
import type { Operator, OperatorContext, Output } from '../operator.ts';
import { createWindowAssigner } from '../window/assigners.ts';

/** Plain-data spec of a window table function, as it travels in the job graph. */
export interface WindowTableFunctionSpec {
  /** TUMBLE, HOP or CUMULATE (this operator); SESSION (the unaligned one). */
  readonly window: WindowSpec;
  /**
   * `'processing'`: each row's windows by the time it is processed, on the processing-time clock
   * (the time column only names the window, as a PROCTIME() attribute does). @default 'event'
   */
  readonly timeDomain?: 'event' | 'processing';
}

/** Name of the appended window start column. */
export const WINDOW_START = 'window_start';
/** Name of the appended window end column (exclusive). */
export const WINDOW_END = 'window_end';
/** Name of the appended window time column (`window_end - 1`, the rowtime attribute). */
export const WINDOW_TIME = 'window_time';

const TIMESTAMP_3: LogicalType = { root: 'TIMESTAMP', nullable: false, precision: 3 };
const TIMESTAMP_LTZ_3: LogicalType = { root: 'TIMESTAMP_LTZ', nullable: false, precision: 3 };

/**
 * The output schema: the input columns, the time column demoted to a plain TIMESTAMP (Flink
 * moves the rowtime attribute to `window_time`), then `window_start`, `window_end` and
 * `window_time`, all `TIMESTAMP(3) NOT NULL` — over a TIMESTAMP_LTZ time column `window_time` is a
 * `TIMESTAMP_LTZ(3) NOT NULL` instant, as in Flink. A processing-time window's `window_time` is
 * no rowtime: no watermark follows it.
 *
 * @throws PlanError for an invalid window (see {@link createWindowAssigner}), a time column
 *   that is missing, not a TIMESTAMP or a processing-time attribute, or an input that already
 *   has one of the window columns.
 */
export function windowTableFunctionOutputSchema(spec: WindowTableFunctionSpec, inputSchema: Schema): Schema {
  createWindowAssigner(spec.window, { tableFunction: true });
  const timeDomain = spec.timeDomain ?? 'event';
  if (timeDomain !== 'event' && timeDomain !== 'processing') {
    throw new PlanError(`${spec.window.type}: timeDomain must be 'event' or 'processing', got ${JSON.stringify(timeDomain)}`);
  }
  const timeColumn = spec.window.timeColumn;
  const time = requireField(inputSchema, timeColumn, `${spec.window.type} time column`);
  if (time.type.root !== 'TIMESTAMP' && time.type.root !== 'TIMESTAMP_LTZ') {
    throw new PlanError(`${spec.window.type}: the time column '${timeColumn}' must be a TIMESTAMP or TIMESTAMP_LTZ, got ${time.type.root}`);
  }
  if (time.timeAttribute === 'proctime') {
    throw new PlanError(`${spec.window.type}: '${timeColumn}' is a processing-time attribute; window table functions here use event time`);
  }
  if (spec.window.type === 'SESSION') for (const k of spec.window.partitionBy) requireField(inputSchema, k, 'SESSION PARTITION BY');
  for (const name of [WINDOW_START, WINDOW_END, WINDOW_TIME]) {
    if (inputSchema.fields.some((f) => f.name === name)) {
      throw new PlanError(`${spec.window.type}: the input already has a column '${name}'; rename it before windowing`);
    }
  }
  const fields: Field[] = inputSchema.fields.map((f) => (f.name === timeColumn ? { name: f.name, type: f.type } : f));
  fields.push({ name: WINDOW_START, type: TIMESTAMP_3 });
  fields.push({ name: WINDOW_END, type: TIMESTAMP_3 });
  // Over an instant (TIMESTAMP_LTZ, as a materialized PROCTIME() is) window_time is one too, as in
  // Flink; a processing-time window's is no rowtime.
  const windowTime = time.type.root === 'TIMESTAMP_LTZ' ? TIMESTAMP_LTZ_3 : TIMESTAMP_3;
  fields.push(timeDomain === 'event' ? { name: WINDOW_TIME, type: windowTime, timeAttribute: 'rowtime' } : { name: WINDOW_TIME, type: windowTime });
  return schemaFromFields(fields);
}

/**
 * Creates the operator (stateless; in processing time it reads the processing-time clock).
 *
 * @throws PlanError for an invalid spec (see {@link windowTableFunctionOutputSchema}). At run
 *   time, a row that is not `+I` fails the batch (the planner only puts a TVF over insert-only
 *   input) and a row with a null or invalid time value is a RecordError (dead-lettered), as
 *   Flink refuses a null rowtime.
 */
export function createWindowTableFunctionOperator(spec: WindowTableFunctionSpec, inputSchema: Schema): Operator {
  const schema = windowTableFunctionOutputSchema(spec, inputSchema);
  if (spec.window.type === 'SESSION') throw new PlanError('internal: a SESSION window table function runs as UnalignedWindowTableFunction');
  const assigner = createWindowAssigner(spec.window, { tableFunction: true });
  const timeColumn = spec.window.timeColumn;
  // Over an instant the windows are cut on the session time zone's wall clock (./zoned-window.ts).
  const zone = timeZoneOf(spec.window.timeZone ?? UTC_ZONE_ID);
  const zoned = schema.fields.find((f) => f.name === WINDOW_TIME)?.type.root === 'TIMESTAMP_LTZ' && zone.id !== UTC_ZONE_ID;
  const windowTime = (end: number): number => (zoned ? toInstant(end - 1, zone) : end - 1);
  // Processing time (Flink's operator asks its processing-time service): every row of a batch
  // is processed at the clock's current time, cut on the session zone's wall clock like an instant.
  const processing = spec.timeDomain === 'processing';
  let context: OperatorContext | undefined;

  const timestampOf = (row: Row): number => {
    const value: Value | undefined = row[timeColumn];
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      throw new RecordError(`${spec.window.type}: the time column '${timeColumn}' must hold a timestamp, got ${String(value)}`, {
        field: timeColumn,
      });
    }
    return zoned ? toLocalMillis(value, zone) : value;
  };

  const checkedTimestamp = (input: ChangeRow, now: number): number => {
    if (input.kind !== '+I') {
      throw new PlanError(`${spec.window.type}: a window table function takes insert-only input, got a ${input.kind} row`);
    }
    return processing ? now : timestampOf(input.row);
  };

  const processRow = (row: Row, timestamp: number, out: Output): void => {
    for (const window of assigner.assign(timestamp)) {
      out.emit({
        kind: '+I',
        row: { ...row, [WINDOW_START]: window.start, [WINDOW_END]: window.end, [WINDOW_TIME]: windowTime(window.end) },
      });
    }
  };

  return {
    open(ctx) {
      context = ctx;
    },
    processBatch(batch, out) {
      const now = processing ? (zoned ? toLocalMillis(context!.timers.currentProcessingTime(), zone) : context!.timers.currentProcessingTime()) : 0;
      // Validate the whole batch first, so that a bad row fails it before anything is emitted.
      const timestamps = batch.map((r) => checkedTimestamp(r, now));
      for (let i = 0; i < batch.length; i++) processRow(batch[i]!.row, timestamps[i]!, out);
    },
  };
}
