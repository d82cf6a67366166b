/**
 * The window table functions `TUMBLE`, `HOP` and `CUMULATE` (Flink's WindowTableFunctionOperator):
 * each insert-only input row comes out once per window it belongs to, with three columns
 * appended — `window_start`, `window_end` (TIMESTAMP(3)) and `window_time` (`window_end - 1`,
 * the output's rowtime attribute, as in Flink).
 *
 * Lateness (beyond Flink, whose TVF never drops and leaves that to the window operator after
 * it): a window that has already fired at the operator's watermark is not emitted, since every
 * window operator downstream would drop it anyway, and a row none of whose windows are still
 * open goes, unchanged, to the late side output and is counted in `numLateRecordsDropped` —
 * once, however many windows it had. Because the watermark downstream never runs ahead of this
 * operator's, the window Top-N and deduplication after a TVF never see these rows again, so a
 * late row is reported exactly once. (Those operators still check lateness themselves, for
 * inputs that do not come from a TVF, such as a window aggregate.) The fired windows of a row
 * that still has open windows (HOP, CUMULATE) are left out and counted in
 * `numLateWindowsDropped`: the row itself is not lost, it is in its open windows.
 */
import { PlanError, RecordError } from '../../core/errors.ts';
import type { ChangeRow } from '../../core/row.ts';
import { requireField, schemaFromFields } from '../../core/type-parse.ts';
import type { Field, LogicalType, Row, Schema, Value } from '../../core/types.ts';
import type { WindowSpec } from '../../plan/logical.ts';
import type { Operator, OperatorContext, Output } from '../operator.ts';
import { DEFAULT_LATE_OUTPUT_TAG, emitLate, isWindowFired } from './late-data.ts';
import { compileWindowAssigner } from './window-assigner.ts';

/** Plain-data spec of a window table function, as it travels in the job graph. */
export interface WindowTableFunctionSpec {
  /** TUMBLE, HOP or CUMULATE over an event-time column; SESSION is rejected (it needs an aggregation). */
  readonly window: WindowSpec;
  /** Side output of rows whose windows have all fired. @default 'late' */
  readonly lateOutputTag?: string;
}

/** Name of the appended window start column. */
export const WINDOW_START = 'window_start';
/** Name of the appended window end column (exclusive). */
export const WINDOW_END = 'window_end';
/** Name of the appended window time column (`window_end - 1`, the rowtime attribute). */
export const WINDOW_TIME = 'window_time';

/** Counter of windows of partly late rows that were left out (see the module header). */
export const LATE_WINDOWS_METRIC = 'numLateWindowsDropped';

const TIMESTAMP_3: LogicalType = { root: 'TIMESTAMP', nullable: false, precision: 3 };

/**
 * The output schema: the input columns, the time column demoted to a plain TIMESTAMP (Flink
 * moves the rowtime attribute to `window_time`), then `window_start`, `window_end` and
 * `window_time`, all `TIMESTAMP(3) NOT NULL`.
 *
 * @throws PlanError for an invalid window (see {@link compileWindowAssigner}), a time column
 *   that is missing, not a TIMESTAMP or a processing-time attribute, or an input that already
 *   has one of the window columns.
 */
export function windowTableFunctionOutputSchema(spec: WindowTableFunctionSpec, inputSchema: Schema): Schema {
  compileWindowAssigner(spec.window);
  const timeColumn = spec.window.timeColumn;
  const time = requireField(inputSchema, timeColumn, `${spec.window.type} time column`);
  if (time.type.root !== 'TIMESTAMP') {
    throw new PlanError(`${spec.window.type}: the time column '${timeColumn}' must be a TIMESTAMP, got ${time.type.root}`);
  }
  if (time.timeAttribute === 'proctime') {
    throw new PlanError(`${spec.window.type}: '${timeColumn}' is a processing-time attribute; window table functions here use event time`);
  }
  for (const name of [WINDOW_START, WINDOW_END, WINDOW_TIME]) {
    if (inputSchema.fields.some((f) => f.name === name)) {
      throw new PlanError(`${spec.window.type}: the input already has a column '${name}'; rename it before windowing`);
    }
  }
  const fields: Field[] = inputSchema.fields.map((f) => (f.name === timeColumn ? { name: f.name, type: f.type } : f));
  fields.push({ name: WINDOW_START, type: TIMESTAMP_3 });
  fields.push({ name: WINDOW_END, type: TIMESTAMP_3 });
  fields.push({ name: WINDOW_TIME, type: TIMESTAMP_3, timeAttribute: 'rowtime' });
  return schemaFromFields(fields);
}

/**
 * Creates the operator (stateless: it only reads the watermark).
 *
 * @throws PlanError for an invalid spec (see {@link windowTableFunctionOutputSchema}). At run
 *   time, a row that is not `+I` fails the batch (the planner only puts a TVF over insert-only
 *   input) and a row with a null or invalid time value is a RecordError (dead-lettered), as
 *   Flink refuses a null rowtime.
 */
export function createWindowTableFunctionOperator(spec: WindowTableFunctionSpec, inputSchema: Schema): Operator {
  windowTableFunctionOutputSchema(spec, inputSchema);
  const assigner = compileWindowAssigner(spec.window);
  const timeColumn = spec.window.timeColumn;
  const tag = spec.lateOutputTag ?? DEFAULT_LATE_OUTPUT_TAG;
  let context: OperatorContext | undefined;

  const timestampOf = (row: Row): number => {
    const value: Value | undefined = row[timeColumn];
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      throw new RecordError(`${spec.window.type}: the time column '${timeColumn}' must hold a timestamp, got ${String(value)}`, {
        field: timeColumn,
      });
    }
    return value;
  };

  const checkedTimestamp = (input: ChangeRow): number => {
    if (input.kind !== '+I') {
      throw new PlanError(`${spec.window.type}: a window table function takes insert-only input, got a ${input.kind} row`);
    }
    return timestampOf(input.row);
  };

  const processRow = (row: Row, timestamp: number, watermark: number, out: Output): void => {
    const windows = assigner.assign(timestamp);
    let emitted = 0;
    for (const window of windows) {
      if (isWindowFired(window.end, watermark)) continue;
      out.emit({
        kind: '+I',
        row: { ...row, [WINDOW_START]: window.start, [WINDOW_END]: window.end, [WINDOW_TIME]: window.end - 1 },
      });
      emitted++;
    }
    if (emitted === 0) emitLate(row, tag, context!, out);
    else if (emitted < windows.length) context!.metrics.increment(LATE_WINDOWS_METRIC, windows.length - emitted);
  };

  return {
    open(ctx) {
      context = ctx;
    },
    processBatch(batch, out) {
      // Validate the whole batch first, so that a bad row fails it before anything is emitted.
      const timestamps = batch.map(checkedTimestamp);
      const watermark = context!.timers.currentWatermark();
      for (let i = 0; i < batch.length; i++) processRow(batch[i]!.row, timestamps[i]!, watermark, out);
    },
  };
}
