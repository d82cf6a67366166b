/**
 * Unbounded group aggregation with retraction: Flink's `GroupAggFunction`
 * (flink-table-runtime, `org.apache.flink.table.runtime.operators.aggregate`), the operator behind
 * a `GroupAggregate` node (a non-windowed `GROUP BY`).
 */
import { RecordError } from '../../core/errors.ts';
import { isAccumulate } from '../../core/row.ts';
import type { ChangeRow, RowKind } from '../../core/row.ts';
import { requireField, schemaFromFields } from '../../core/type-parse.ts';
import type { Field, Row, Schema, Value } from '../../core/types.ts';
import { encodeKey } from '../../partition/key-encoding.ts';
import type { ValueState } from '../../state/state.ts';
import type { Operator, OperatorContext, Output } from '../operator.ts';
import type { AggCallSpec } from './agg-call.ts';
import { AggsHandler, type GroupAccumulators } from './aggs-handler.ts';
import { valueListsEqual } from './value-order.ts';

export type { AggCallSpec } from './agg-call.ts';

/** The plain-data spec of a group aggregation, as it travels in the JSON job graph. */
export interface GroupAggregateSpec {
  /** Group key columns; empty for a global aggregate. */
  readonly groupBy: readonly string[];
  readonly aggCalls: readonly AggCallSpec[];
  /** Emit `-U` before each `+U` (retract mode); false for upsert consumers. */
  readonly generateUpdateBefore: boolean;
  /** Idle-state retention of a group's accumulators; absent or ≤ 0 keeps state forever. */
  readonly stateTtlMs?: number;
}

/** Name of the operator's one keyed state, as Flink's `accState`. */
const ACC_STATE = 'accState';

/**
 * The output schema: the group columns with their input types, then one column per aggregate
 * call typed by `aggResultType`. A rowtime group column comes out as a plain TIMESTAMP: Flink
 * materializes time attributes that pass through a non-windowed aggregation.
 *
 * @throws PlanError for a missing column, an unsupported aggregate, or a duplicate output name.
 */
export function groupAggregateOutputSchema(spec: GroupAggregateSpec, inputSchema: Schema): Schema {
  return outputSchema(spec, inputSchema, new AggsHandler(spec.aggCalls, inputSchema));
}

function outputSchema(spec: GroupAggregateSpec, inputSchema: Schema, handler: AggsHandler): Schema {
  const fields: Field[] = spec.groupBy.map((name) => ({ name, type: requireField(inputSchema, name, 'GROUP BY').type }));
  handler.names.forEach((name, i) => fields.push({ name, type: handler.resultTypes[i]! }));
  return schemaFromFields(fields);
}

/**
 * Creates the operator. Per group (state key = `encodeKey` of the group values) it keeps one
 * value holding the accumulators and the record counter, and emits as `GroupAggFunction` does:
 *
 * - `+I`/`+U` input accumulates, `-U`/`-D` input retracts;
 * - a retraction for a group without state is dropped (its accumulate was never seen, or the
 *   state expired);
 * - the first result of a group is `+I`;
 * - a later result equal to the previous one is not emitted, unless a state TTL is configured
 *   (downstream state would otherwise expire while this group is still alive);
 * - otherwise `-U` of the previous result (only with `generateUpdateBefore`) and `+U` of the new;
 * - when the record counter reaches 0, `-D` of the previous result and the state is cleared.
 *
 * @throws PlanError for an invalid spec (see {@link groupAggregateOutputSchema}).
 */
export function createGroupAggregateOperator(spec: GroupAggregateSpec, inputSchema: Schema, functions?: ReadonlyMap<string, unknown>): Operator {
  const handler = new AggsHandler(spec.aggCalls, inputSchema, functions);
  const schema = outputSchema(spec, inputSchema, handler);
  const names = schema.fields.map((f) => f.name);
  const groupBy = spec.groupBy;
  const ttlMs = spec.stateTtlMs !== undefined && spec.stateTtlMs > 0 ? spec.stateTtlMs : undefined;
  let context: OperatorContext | undefined;
  let accState: ValueState<GroupAccumulators> | undefined;

  const keyOf = (row: Row): string => encodeKey(groupBy.map((name) => row[name] ?? null));

  const result = (kind: RowKind, row: Row, aggValues: readonly Value[]): ChangeRow => {
    const out: Record<string, Value> = {};
    let i = 0;
    for (const name of groupBy) out[names[i++]!] = row[name] ?? null;
    for (const value of aggValues) out[names[i++]!] = value;
    return { kind, row: out };
  };

  const processElement = (state: ValueState<GroupAccumulators>, key: string, input: ChangeRow, out: Output): void => {
    const accumulate = isAccumulate(input.kind);
    let acc = state.get(key);
    const firstRow = acc === undefined;
    if (acc === undefined) {
      // GroupAggFunction: "Don't create a new accumulator for a retraction message. This might
      // happen if the retraction message is the first message for the key or after a state
      // clean up."
      if (!accumulate) return;
      acc = handler.createAccumulators();
    }
    const prevValues = firstRow ? undefined : handler.getValues(acc);
    if (accumulate) handler.accumulate(acc, input.row);
    else handler.retract(acc, input.row);

    if (acc.records === 0) {
      // The last row of the group was retracted: delete its result and all its state.
      if (prevValues !== undefined) out.emit(result('-D', input.row, prevValues));
      state.delete(key);
      return;
    }
    state.put(key, acc);
    const newValues = handler.getValues(acc);
    if (prevValues === undefined) {
      out.emit(result('+I', input.row, newValues));
      return;
    }
    // Without state retention an unchanged result is swallowed. With it, Flink emits anyway "to
    // prevent too early state eviction of downstream operators".
    if (ttlMs === undefined && valueListsEqual(prevValues, newValues)) return;
    if (spec.generateUpdateBefore) out.emit(result('-U', input.row, prevValues));
    out.emit(result('+U', input.row, newValues));
  };

  const processRows = (batch: readonly ChangeRow[], keys: readonly string[], out: Output): void => {
    const state = accState!;
    if (!handler.mayReject) {
      for (let i = 0; i < batch.length; i++) processElement(state, keys[i]!, batch[i]!, out);
      return;
    }
    // A call that can reject a row (JSON_OBJECTAGG's duplicate key, SINGLE_VALUE's second row) may do so after earlier rows
    // of the batch changed their groups: the batch must then leave no change behind (operator.ts),
    // so the groups it touches are copied first and put back when a row is rejected.
    const before = new Map<string, GroupAccumulators | undefined>();
    try {
      for (let i = 0; i < batch.length; i++) {
        const key = keys[i]!;
        if (!before.has(key)) {
          const acc = state.get(key);
          before.set(key, acc === undefined ? undefined : structuredClone(acc));
        }
        processElement(state, key, batch[i]!, out);
      }
    } catch (error) {
      if (!(error instanceof RecordError)) throw error;
      for (const [key, acc] of before) {
        if (acc === undefined) state.delete(key);
        else state.put(key, acc);
      }
      throw error;
    }
  };

  return {
    open(ctx) {
      context = ctx;
      // Flink's GroupAggFunction builds its TTL config with OnCreateAndWrite updates.
      accState = ctx.state.valueState<GroupAccumulators>(ACC_STATE, ttlMs === undefined ? undefined : { ttl: { ttlMs } });
    },
    processBatch(batch, out) {
      if (batch.length === 0) return;
      const keys = batch.map((r) => keyOf(r.row));
      const loading = context!.state.prefetch(new Set(keys));
      if (loading !== undefined) return loading.then(() => processRows(batch, keys, out));
      processRows(batch, keys, out);
    },
  };
}
