/**
 * Window Top-N (Flink's WindowRankOperator): `ROW_NUMBER() / RANK() / DENSE_RANK() OVER
 * (PARTITION BY window_start, window_end, … ORDER BY …)` filtered by a constant rank range, over
 * insert-only rows that carry their window (from a window table function or a window aggregate).
 *
 * Unlike the unbounded Top-N, nothing is emitted until the window ends: each (partition, window)
 * buffers the rows that can still be in range (window-top-n.ts), and when the watermark reaches
 * `window_end - 1` the final Top-N comes out as `+I` rows and the window's state is dropped
 * (window-buffer-operator.ts). Beyond Flink's window Top-N, which ranks by ROW_NUMBER only at
 * fire time, RANK and DENSE_RANK are supported with ties kept.
 *
 * Output order when a window fires: by rank, then by arrival among tied rows. Windows of
 * different partitions firing at the same watermark come out in window-end order, then in the
 * order their first rows arrived (the timer service breaks ties by registration order).
 */
import { PlanError } from '../../core/errors.ts';
import { schemaFromFields } from '../../core/type-parse.ts';
import type { Row, Schema } from '../../core/types.ts';
import type { RankRange, SortField } from '../../plan/logical.ts';
import type { Operator } from '../operator.ts';
import { compileOrderKey } from '../rank/order-key.ts';
import { compileRankRange } from '../rank/rank-range.ts';
import { checkWindowColumns, createWindowBufferOperator } from './window-buffer-operator.ts';
import { WindowTopN, type WindowRankType } from './window-top-n.ts';

export type { WindowRankType } from './window-top-n.ts';

/** Plain-data spec of a window Top-N, as it travels in the job graph. */
export interface WindowRankSpec {
  readonly rankType: WindowRankType;
  /** Partition columns, without the window columns (the window always partitions). */
  readonly partitionBy: readonly string[];
  readonly orderBy: readonly SortField[];
  /** A constant range `[start, end]`; a variable range is rejected. */
  readonly rankRange: RankRange;
  /** Output column holding the rank number (`BIGINT NOT NULL`); absent when not output. */
  readonly rankNumberColumn?: string;
  /** Input column holding the window start. */
  readonly windowStartColumn: string;
  /** Input column holding the (exclusive) window end; the window fires at `end - 1`. */
  readonly windowEndColumn: string;
  /** The time zone of the window columns' wall clock (windows over a TIMESTAMP_LTZ); absent means UTC. */
  readonly timeZone?: string;
  /** Side output of rows arriving after their window fired. @default 'late' */
  readonly lateOutputTag?: string;
  /**
   * `'processing'`: the windows (cut from a PROCTIME() attribute) fire when the processing-time
   * clock passes their end. @default 'event'
   */
  readonly timeDomain?: 'event' | 'processing';
}

/** Name of the operator's map state: (partition key, window) → buffered rows. */
const STATE_NAME = 'windowTopN';

interface CompiledWindowRank {
  readonly outputSchema: Schema;
  readonly topN: WindowTopN;
}

function compile(spec: WindowRankSpec, inputSchema: Schema): CompiledWindowRank {
  const rankType = spec.rankType;
  if (rankType !== 'ROW_NUMBER' && rankType !== 'RANK' && rankType !== 'DENSE_RANK') {
    throw new PlanError(`WindowRank: unknown rank type ${JSON.stringify(rankType)}; expected ROW_NUMBER, RANK or DENSE_RANK`);
  }
  checkWindowColumns({ name: 'WindowRank', ...spec }, inputSchema);
  if (spec.timeDomain !== undefined && spec.timeDomain !== 'event' && spec.timeDomain !== 'processing') {
    throw new PlanError(`WindowRank: timeDomain must be 'event' or 'processing', got ${JSON.stringify(spec.timeDomain)}`);
  }
  if (spec.rankRange?.type === 'variable') {
    // Flink's window Top-N takes a constant range only; a per-row end would make the buffer bound unknown.
    throw new PlanError(`WindowRank: a variable rank range (<= ${spec.rankRange.endColumn}) is not supported; use a constant range`);
  }
  const range = compileRankRange(spec.rankRange, inputSchema);
  if (range.kind !== 'constant') throw new PlanError('WindowRank: the rank range must be constant');
  const order = compileOrderKey(spec.orderBy, inputSchema);
  const fields = [...inputSchema.fields];
  if (spec.rankNumberColumn !== undefined) {
    if (fields.some((f) => f.name === spec.rankNumberColumn)) {
      throw new PlanError(`WindowRank: the rank number column '${spec.rankNumberColumn}' clashes with an input column`);
    }
    fields.push({ name: spec.rankNumberColumn, type: { root: 'BIGINT', nullable: false } });
  }
  return {
    outputSchema: schemaFromFields(fields),
    topN: new WindowTopN(rankType, order.compare, range.start, range.end),
  };
}

/**
 * The output schema: the input columns unchanged, then the rank number column as
 * `BIGINT NOT NULL` when `rankNumberColumn` is set.
 *
 * @throws PlanError for an invalid spec (see {@link createWindowRankOperator}).
 */
export function windowRankOutputSchema(spec: WindowRankSpec, inputSchema: Schema): Schema {
  return compile(spec, inputSchema).outputSchema;
}

/**
 * Creates a window Top-N operator for one shard; see the module header.
 *
 * @throws PlanError for an unknown rank type, a missing column, a window column that is not a
 *   TIMESTAMP, an empty ORDER BY, a variable, unbounded, empty or non-integer rank range, or a
 *   rank number column clashing with an input column. At run time a row that is not `+I` fails
 *   the batch and a row with a null window column is a RecordError.
 */
export function createWindowRankOperator(spec: WindowRankSpec, inputSchema: Schema): Operator {
  const { topN } = compile(spec, inputSchema);
  const rankColumn = spec.rankNumberColumn;
  return createWindowBufferOperator<Row[]>({
    name: 'WindowRank',
    partitionBy: spec.partitionBy,
    ...(spec.timeZone !== undefined ? { timeZone: spec.timeZone } : {}),
    windowStartColumn: spec.windowStartColumn,
    windowEndColumn: spec.windowEndColumn,
    ...(spec.lateOutputTag !== undefined ? { lateOutputTag: spec.lateOutputTag } : {}),
    ...(spec.timeDomain !== undefined ? { timeDomain: spec.timeDomain } : {}),
    stateName: STATE_NAME,
    logic: {
      add: (rows, row) => topN.add(rows, row),
      fire(rows, out) {
        topN.forEachInRange(rows, (row, rank) => {
          out.emit({ kind: '+I', row: rankColumn === undefined ? row : { ...row, [rankColumn]: rank } });
        });
      },
    },
  });
}
