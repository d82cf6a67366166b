/**
 * Window deduplication (Flink's RowTimeWindowDeduplicateOperator): `ROW_NUMBER() OVER
 * (PARTITION BY window_start, window_end, … ORDER BY rowtime ASC|DESC) = 1` keeps, per partition
 * and window, the first or the last row by the rowtime column, and emits it as `+I` when the
 * window ends. The state per window is the one kept row.
 *
 * Ties on the rowtime follow Flink's RowTimeDeduplicateFunction: keep-first keeps the earlier
 * arrival (a row replaces the kept one only with a strictly smaller rowtime), keep-last the later
 * arrival (a row replaces it with an equal or larger rowtime).
 */
import { PlanError, RecordError } from '../../core/errors.ts';
import { requireField } from '../../core/type-parse.ts';
import type { Row, Schema } from '../../core/types.ts';
import type { Operator } from '../operator.ts';
import { checkWindowColumns, createWindowBufferOperator } from './window-buffer-operator.ts';

/** Plain-data spec of a window deduplication, as it travels in the job graph. */
export interface WindowDeduplicateSpec {
  /** Partition columns, without the window columns (the window always partitions). */
  readonly partitionBy: readonly string[];
  /** First row per window (ORDER BY rowtime ASC) or last row (ORDER BY rowtime DESC). */
  readonly keep: 'first' | 'last';
  /** The rowtime (TIMESTAMP) column ordering the rows. */
  readonly orderColumn: string;
  /** Input column holding the window start. */
  readonly windowStartColumn: string;
  /** Input column holding the (exclusive) window end; the window fires at `end - 1`. */
  readonly windowEndColumn: string;
  /** The time zone of the window columns' wall clock (windows over a TIMESTAMP_LTZ); absent means UTC. */
  readonly timeZone?: string;
  /** Side output of rows arriving after their window fired. @default 'late' */
  readonly lateOutputTag?: string;
}

/** Name of the operator's map state: (partition key, window) → kept row. */
const STATE_NAME = 'windowDeduplicate';

/**
 * The output schema: the input schema unchanged (Flink's window deduplication outputs no row
 * number).
 *
 * @throws PlanError for an invalid spec (see {@link createWindowDeduplicateOperator}).
 */
export function windowDeduplicateOutputSchema(spec: WindowDeduplicateSpec, inputSchema: Schema): Schema {
  validate(spec, inputSchema);
  return inputSchema;
}

function validate(spec: WindowDeduplicateSpec, inputSchema: Schema): void {
  if (spec.keep !== 'first' && spec.keep !== 'last') {
    throw new PlanError(`WindowDeduplicate: keep must be 'first' or 'last', got ${JSON.stringify(spec.keep)}`);
  }
  checkWindowColumns({ name: 'WindowDeduplicate', ...spec }, inputSchema);
  const order = requireField(inputSchema, spec.orderColumn, 'WindowDeduplicate ORDER BY');
  if (order.type.root !== 'TIMESTAMP' && order.type.root !== 'TIMESTAMP_LTZ') {
    throw new PlanError(`WindowDeduplicate: the order column '${spec.orderColumn}' must be a TIMESTAMP or TIMESTAMP_LTZ (rowtime), got ${order.type.root}`);
  }
}

/**
 * Creates a window deduplication operator for one shard; see the module header.
 *
 * @throws PlanError for an invalid `keep`, a missing column, or a window or order column that
 *   is not a TIMESTAMP. At run time a row that is not `+I` fails the batch and a row with a null
 *   window or order value is a RecordError (Flink refuses a null rowtime).
 */
export function createWindowDeduplicateOperator(spec: WindowDeduplicateSpec, inputSchema: Schema): Operator {
  validate(spec, inputSchema);
  const column = spec.orderColumn;
  const keepLast = spec.keep === 'last';
  const timeOf = (row: Row): number => row[column] as number;
  return createWindowBufferOperator<Row>({
    name: 'WindowDeduplicate',
    partitionBy: spec.partitionBy,
    ...(spec.timeZone !== undefined ? { timeZone: spec.timeZone } : {}),
    windowStartColumn: spec.windowStartColumn,
    windowEndColumn: spec.windowEndColumn,
    ...(spec.lateOutputTag !== undefined ? { lateOutputTag: spec.lateOutputTag } : {}),
    stateName: STATE_NAME,
    logic: {
      check(row) {
        const value = row[column];
        if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
          throw new RecordError(`WindowDeduplicate: the rowtime column '${column}' must hold a timestamp, got ${String(value)}`, {
            field: column,
          });
        }
      },
      add(kept, row) {
        if (kept === undefined) return row;
        const replace = keepLast ? timeOf(row) >= timeOf(kept) : timeOf(row) < timeOf(kept);
        return replace ? row : kept;
      },
      fire(kept, out) {
        out.emit({ kind: '+I', row: kept });
      },
    },
  });
}
