/**
 * OVER aggregation (Flink's OverAggregate): every input row comes out once, with the values of
 * the aggregate calls over its frame — the rows of its partition up to it in time order —
 * appended. Frames end at CURRENT ROW, as in Flink; they start `UNBOUNDED PRECEDING` or a bounded
 * number of rows (`ROWS n PRECEDING`) or of time (`RANGE INTERVAL … PRECEDING`).
 *
 * Event time (Flink's RowTime*Function): a row waits in state until the watermark passes its
 * time; then the rows of that timestamp are processed in arrival order. With ROWS each row's
 * frame ends at itself; with RANGE every row of the timestamp shares one result (its peers are
 * in its frame). A row whose time is not after the watermark when it arrives is late: dropped
 * and counted in `numLateRecordsDropped`, as Flink drops it. Processing time (Flink's
 * ProcTime*Function): each row is processed when it arrives, in arrival order.
 *
 * State per partition (key = `encodeKey` of the partition values): the accumulators of an
 * unbounded frame, or the rows of a bounded frame; and, in event time, the rows waiting for the
 * watermark by timestamp. Accumulators and rows are plain data (DynamoDB-ready).
 */
import { PlanError, RecordError } from '../../core/errors.ts';
import type { ChangeRow } from '../../core/row.ts';
import { requireField, schemaFromFields } from '../../core/type-parse.ts';
import type { Field, Row, Schema, Value } from '../../core/types.ts';
import { encodeKey, encodeSortKey } from '../../partition/key-encoding.ts';
import type { SortedMapState, ValueState } from '../../state/state.ts';
import type { AggCallSpec } from '../aggregate/agg-call.ts';
import { AggsHandler, type GroupAccumulators } from '../aggregate/aggs-handler.ts';
import type { Operator, OperatorContext, Output } from '../operator.ts';

/** An OVER frame ending at CURRENT ROW. */
export interface OverFrame {
  readonly unit: 'ROWS' | 'RANGE';
  /** Rows (ROWS) or milliseconds (RANGE) before the current row; absent: UNBOUNDED PRECEDING. */
  readonly preceding?: number;
}

/** Plain-data spec of an OVER aggregation, as it travels in the job graph. */
export interface OverAggregateSpec {
  readonly partitionBy: readonly string[];
  /** The time attribute ordering the rows (a rowtime column, or the name of a PROCTIME() attribute). */
  readonly orderBy: string;
  readonly timeDomain: 'event' | 'processing';
  readonly frame: OverFrame;
  /** The aggregate calls; their outputs are appended to the input columns. */
  readonly aggCalls: readonly AggCallSpec[];
}

/** Flink's counter of dropped late rows. */
const LATE_METRIC = 'numLateRecordsDropped';

/** Prints the frame as Flink's EXPLAIN does: `ROWS BETWEEN 2 PRECEDING AND CURRENT ROW`. */
export function formatOverFrame(frame: OverFrame): string {
  const start = frame.preceding === undefined ? 'UNBOUNDED PRECEDING' : `${frame.preceding}${frame.unit === 'RANGE' ? ' ms' : ''} PRECEDING`;
  return `${frame.unit} BETWEEN ${start} AND CURRENT ROW`;
}

/**
 * The output schema: the input columns, then one column per aggregate call.
 *
 * @throws PlanError for an unknown partition or order column, a frame bound that is not a
 *   non-negative integer, or an aggregate call the aggregate functions reject.
 */
export function overAggregateOutputSchema(spec: OverAggregateSpec, inputSchema: Schema): Schema {
  for (const k of spec.partitionBy) requireField(inputSchema, k, 'OVER PARTITION BY');
  if (spec.timeDomain === 'event') {
    const t = requireField(inputSchema, spec.orderBy, 'OVER ORDER BY');
    if (t.type.root !== 'TIMESTAMP' && t.type.root !== 'TIMESTAMP_LTZ') throw new PlanError(`OVER ORDER BY '${spec.orderBy}' must be a time attribute, got ${t.type.root}`);
  }
  const p = spec.frame.preceding;
  if (p !== undefined && (!Number.isSafeInteger(p) || p < 0)) throw new PlanError(`OVER frame: the preceding bound must be a non-negative integer (given ${p})`);
  const handler = new AggsHandler(spec.aggCalls, inputSchema);
  const fields: Field[] = inputSchema.fields.map((f) => ({ ...f }));
  handler.names.forEach((name, i) => {
    if (fields.some((f) => f.name === name)) throw new PlanError(`OVER aggregate '${name}' has the name of an input column`);
    fields.push({ name, type: handler.resultTypes[i]! });
  });
  return schemaFromFields(fields);
}

/**
 * Sub-keys that sort as the timestamps do (the sorted map orders strings): the order-preserving
 * sort key of the number, exact for every safe integer. (Offsetting by 2^53 instead would round
 * odd timestamps onto their even neighbour and merge the rows of two timestamps.)
 */
function timeKey(ts: number): string {
  return encodeSortKey([ts], ['ASC'], [true]);
}

/**
 * Creates the operator.
 *
 * @throws PlanError for an invalid spec (see {@link overAggregateOutputSchema}); a non-insert
 *   row fails the batch (the planner only puts it over insert-only input); a null time is a
 *   RecordError (dead-lettered), as Flink refuses a null rowtime.
 */
export function createOverAggregateOperator(spec: OverAggregateSpec, inputSchema: Schema): Operator {
  overAggregateOutputSchema(spec, inputSchema);
  const handler = new AggsHandler(spec.aggCalls, inputSchema);
  const names = handler.names;
  const { frame } = spec;
  const bounded = frame.preceding !== undefined;
  let context: OperatorContext | undefined;
  let accs: ValueState<GroupAccumulators> | undefined;
  let frameRows: ValueState<Row[]> | undefined;
  let rangeRows: SortedMapState<Row[]> | undefined;
  let pending: SortedMapState<Row[]> | undefined;

  const keyOf = (row: Row): string => encodeKey(spec.partitionBy.map((c) => row[c] ?? null));

  const withValues = (row: Row, values: readonly Value[]): ChangeRow => {
    const out: Record<string, Value> = { ...row };
    names.forEach((n, i) => (out[n] = values[i] ?? null));
    return { kind: '+I', row: out };
  };

  const valuesOver = (rows: Iterable<Row>): Value[] => {
    const acc = handler.createAccumulators();
    for (const r of rows) handler.accumulate(acc, r);
    return handler.getValues(acc);
  };

  /** Processes the rows of one timestamp of one partition, in arrival order. */
  const processGroup = (key: string, ts: number, rows: readonly Row[], out: Output): void => {
    if (!bounded) {
      const acc = accs!.get(key) ?? handler.createAccumulators();
      if (frame.unit === 'ROWS') {
        for (const r of rows) {
          handler.accumulate(acc, r);
          out.emit(withValues(r, handler.getValues(acc)));
        }
      } else {
        for (const r of rows) handler.accumulate(acc, r);
        const values = handler.getValues(acc);
        for (const r of rows) out.emit(withValues(r, values));
      }
      accs!.put(key, acc);
      return;
    }
    const n = frame.preceding!;
    if (frame.unit === 'ROWS') {
      // The frame is the current row and the n rows before it.
      const kept = frameRows!.get(key) ?? [];
      for (const r of rows) {
        kept.push(r);
        if (kept.length > n + 1) kept.shift();
        out.emit(withValues(r, valuesOver(kept)));
      }
      frameRows!.put(key, kept);
      return;
    }
    // RANGE n ms: the rows with time in [ts - n, ts], the current timestamp's peers included.
    const state = rangeRows!;
    const sub = timeKey(ts);
    state.put(key, sub, [...(state.get(key, sub) ?? []), ...rows]);
    const low = timeKey(ts - n);
    const stale: string[] = [];
    for (const [k] of state.ascending(key)) {
      if (k >= low) break;
      stale.push(k);
    }
    for (const k of stale) state.delete(key, k);
    const values = valuesOver((function* () {
      for (const [, group] of state.ascending(key)) yield* group;
    })());
    for (const r of rows) out.emit(withValues(r, values));
  };

  const timeOf = (row: Row): number => {
    const v = row[spec.orderBy];
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
      throw new RecordError(`OVER: the time column '${spec.orderBy}' must hold a timestamp, got ${String(v)}`, { field: spec.orderBy });
    }
    return v;
  };

  return {
    open(ctx) {
      context = ctx;
      accs = ctx.state.valueState<GroupAccumulators>('over-accumulators');
      frameRows = ctx.state.valueState<Row[]>('over-rows');
      rangeRows = ctx.state.sortedMapState<Row[]>('over-range');
      pending = ctx.state.sortedMapState<Row[]>('over-pending');
    },
    async processBatch(batch, out) {
      for (const r of batch) {
        if (r.kind !== '+I') throw new PlanError(`OVER aggregation takes insert-only input, got a ${r.kind} row`);
      }
      const times = spec.timeDomain === 'event' ? batch.map((r) => timeOf(r.row)) : [];
      const keys = batch.map((r) => keyOf(r.row));
      const loading = context!.state.prefetch(new Set(keys));
      if (loading) await loading;
      const timers = context!.timers;
      if (spec.timeDomain === 'processing') {
        const now = timers.currentProcessingTime();
        batch.forEach((r, i) => processGroup(keys[i]!, now, [r.row], out));
        return;
      }
      const watermark = timers.currentWatermark();
      batch.forEach((r, i) => {
        const ts = times[i]!;
        const key = keys[i]!;
        if (ts <= watermark) {
          context!.metrics.increment(LATE_METRIC);
          return;
        }
        const sub = timeKey(ts);
        const waiting = pending!.get(key, sub);
        pending!.put(key, sub, [...(waiting ?? []), r.row]);
        if (waiting === undefined) timers.registerEventTimeTimer(key, '', ts);
      });
    },
    onTimer(timer, out) {
      if (timer.domain !== 'event') return;
      const sub = timeKey(timer.timestamp);
      const rows = pending!.get(timer.key, sub);
      if (rows === undefined) return;
      pending!.delete(timer.key, sub);
      processGroup(timer.key, timer.timestamp, rows, out);
    },
  };
}
