/**
 * Deduplication: the operator behind a `Deduplicate` node,
 * `ROW_NUMBER() OVER (PARTITION BY keys ORDER BY time_attr [ASC|DESC]) = 1`. It matches the
 * non-mini-batch functions Flink's StreamExecDeduplicate picks (flink-table-runtime,
 * `org.apache.flink.table.runtime.operators.deduplicate`):
 *
 * | keep  | time domain | Flink function                                    | emits per key                    |
 * |-------|-------------|---------------------------------------------------|----------------------------------|
 * | first | processing  | ProcTimeDeduplicateKeepFirstRowFunction           | `+I` of the first row, nothing else |
 * | last  | processing  | ProcTimeDeduplicateKeepLastRowFunction            | `+I`, then `[-U old] +U new` per row |
 * | first | event       | RowTimeDeduplicateFunction (keepLastRow = false)  | `+I`, then `[-U] +U` when a row has a strictly smaller rowtime |
 * | last  | event       | RowTimeDeduplicateFunction (keepLastRow = true)   | `+I`, then `[-U] +U` when a row has a rowtime ≥ the kept one |
 *
 * `[-U]` appears only with `generateUpdateBefore`. Row-time ties go to arrival order, as in
 * DeduplicateFunctionHelper.shouldKeepCurrentRow:
 *
 * ```
 *   arrival        a@100      b@90       c@100
 *   keep last      +I a       (dropped)  -U a, +U c     90 < 100 loses; 100 ≥ 100: later arrival wins
 *   keep first     +I a       -U a, +U b (dropped)      90 < 100 wins; 100 < 90 is false
 * ```
 *
 * Decisions, each matching Flink unless said otherwise:
 * - Every row is decided when it arrives (no mini-batch bundles, no timers): a batch's output is
 *   exactly that of its rows processed one by one. Row-time variants ignore the watermark, so a
 *   row behind it is still compared, as RowTimeDeduplicateFunction does.
 * - Flink's `generateInsert` (`table.exec.deduplicate.insert-update-after-sensitive-enabled`) is
 *   its default, true: a key's first result is `+I`, never a bare `+U`.
 * - Input must be insert-only. Flink's functions assert it (DeduplicateFunctionHelper
 *   .checkInsertOnly, a precondition its changelog-mode inference guarantees); here a `-U`, `+U`
 *   or `-D` input row means the plan is wrong, so it is a {@link PlanError}. Flink's
 *   keep-last-on-changelog mode (`processLastRowOnChangelog`) has no counterpart here because
 *   our planner turns a deduplication of an update stream into a Top-1 Rank instead.
 * - A null (or non-numeric) rowtime is a {@link RecordError} on the order column. Flink never lets
 *   such a row reach the function: its WatermarkAssignerOperator fails the job with "RowTime field
 *   should not be null". Rows and kinds are checked for the whole batch before any state is
 *   touched, so a rejected batch changes nothing. Processing-time variants never read the order
 *   column, so the spec may leave it out (the TypeScript API has no proctime column).
 * - Idle-state retention: the kept value expires `stateTtlMs` after its last write (Flink's
 *   StateConfigUtil.createTtlConfig: OnCreateAndWrite, NeverReturnExpired); a later row of that
 *   key is treated as the first again. Reads do not refresh it, so repeated duplicates dropped by
 *   keep-first do not keep a key alive.
 */
import { PlanError, RecordError } from '../../core/errors.ts';
import { insertRecord, updateAfterRecord, updateBeforeRecord } from '../../core/row.ts';
import type { ChangeRow } from '../../core/row.ts';
import { requireField } from '../../core/type-parse.ts';
import type { Row, Schema, Value } from '../../core/types.ts';
import { encodeKey } from '../../partition/key-encoding.ts';
import type { KeyedStateStore, StateOptions } from '../../state/state.ts';
import { valuesEqual } from '../aggregate/value-order.ts';
import type { Operator, OperatorContext, Output } from '../operator.ts';
import type { DeduplicateSpec } from '../rank/rank-spec.ts';

export type { DeduplicateSpec } from '../rank/rank-spec.ts';

/** Name of the operator's one keyed state, as Flink's DeduplicateFunctionBase names it. */
export const DEDUPLICATE_STATE = 'deduplicate-state';

/** Handles one input row whose state key is `key`; state is read at most once and written at most once. */
type RecordFunction = (key: string, row: Row, out: Output) => void;

/**
 * The output schema: the input schema, unchanged (deduplication only selects rows).
 *
 * @throws PlanError when a key column is missing, the rowtime column is missing (a processing-time
 *   order column may be absent: it is never read), the order column is not a TIMESTAMP, its time
 *   attribute contradicts `timeDomain`, or `keep`/`timeDomain` is unknown.
 */
export function deduplicateOutputSchema(spec: DeduplicateSpec, inputSchema: Schema): Schema {
  validateSpec(spec, inputSchema);
  return inputSchema;
}

/** Checks the spec against the input schema. */
function validateSpec(spec: DeduplicateSpec, inputSchema: Schema): void {
  // The spec travels as JSON, so check the enumerations rather than trusting the types.
  if (spec.keep !== 'first' && spec.keep !== 'last') {
    throw new PlanError(`Deduplicate: keep must be 'first' or 'last', got ${JSON.stringify(spec.keep)}`);
  }
  if (spec.timeDomain !== 'event' && spec.timeDomain !== 'processing') {
    throw new PlanError(`Deduplicate: timeDomain must be 'event' or 'processing', got ${JSON.stringify(spec.timeDomain)}`);
  }
  for (const key of spec.keys) requireField(inputSchema, key, 'PARTITION BY');
  // Processing time orders by arrival and never reads the column, so it may be absent; a column
  // the spec does name must fit. Event time needs its rowtime column.
  if (spec.orderColumn === undefined) {
    if (spec.timeDomain === 'event') throw new PlanError('Deduplicate: event-time deduplication needs an orderColumn (the rowtime column)');
    return;
  }
  const order = requireField(inputSchema, spec.orderColumn, 'ORDER BY');
  // Flink only plans a Deduplicate when the ORDER BY is a time attribute; anything else is a Rank.
  if (order.type.root !== 'TIMESTAMP' && order.type.root !== 'TIMESTAMP_LTZ') {
    throw new PlanError(
      `Deduplicate must be ordered by a time attribute, but '${order.name}' is ${order.type.root}; use a Rank (Top-N) instead`,
    );
  }
  const expected = spec.timeDomain === 'event' ? 'rowtime' : 'proctime';
  if (order.timeAttribute !== undefined && order.timeAttribute !== expected) {
    throw new PlanError(
      `Deduplicate: timeDomain '${spec.timeDomain}' needs a ${expected} column, but '${order.name}' is a ${order.timeAttribute} attribute`,
    );
  }
}

/**
 * Creates the operator; see the module documentation for what each variant emits. State: one
 * value per key (state key = `encodeKey` of the key columns) named {@link DEDUPLICATE_STATE},
 * holding `true` for processing-time keep-first (as Flink's Boolean flag) and the kept row
 * otherwise. Each batch prefetches its distinct keys once; each row then costs one state read
 * and at most one write. A `stateTtlMs` that is absent, not positive or not finite keeps state
 * forever (Flink: a retention of 0 disables TTL).
 *
 * @throws PlanError for an invalid spec (see {@link deduplicateOutputSchema}).
 */
export function createDeduplicateOperator(spec: DeduplicateSpec, inputSchema: Schema): Operator {
  validateSpec(spec, inputSchema);
  const keyColumns = [...spec.keys];
  const keyCount = keyColumns.length;
  // Reused for every row: encodeKey reads the values and keeps nothing.
  const keyValues: Value[] = new Array<Value>(keyCount).fill(null);
  const rowtimeColumn = spec.timeDomain === 'event' ? spec.orderColumn : undefined;
  const ttlMs = spec.stateTtlMs !== undefined && Number.isFinite(spec.stateTtlMs) && spec.stateTtlMs > 0 ? spec.stateTtlMs : undefined;
  const stateOptions: StateOptions | undefined = ttlMs === undefined ? undefined : { ttl: { ttlMs } };
  const fieldNames = inputSchema.fields.map((f) => f.name);
  let context: OperatorContext | undefined;
  let processRecord: RecordFunction | undefined;

  const keyOf = (row: Row): string => {
    for (let i = 0; i < keyCount; i++) keyValues[i] = row[keyColumns[i]!] ?? null;
    return encodeKey(keyValues);
  };

  /** Rejects what Flink would never hand the function, before the batch touches state. */
  const check = (change: ChangeRow): void => {
    if (change.kind !== '+I') {
      throw new PlanError(
        `Deduplicate on [${keyColumns.join(', ')}] doesn't support consuming update and delete changes, ` +
          `but got a ${change.kind} row: its input must be insert-only`,
      );
    }
    if (rowtimeColumn !== undefined) {
      const rowtime = change.row[rowtimeColumn];
      if (typeof rowtime !== 'number') {
        // Flink's WatermarkAssignerOperator words the null case this way.
        const problem =
          rowtime === null || rowtime === undefined
            ? 'is null: RowTime field should not be null, please convert it to a non-null long value'
            : `is not a TIMESTAMP(3) value (got a ${typeof rowtime})`;
        throw new RecordError(`Deduplicate: rowtime column '${rowtimeColumn}' ${problem}`, { field: rowtimeColumn });
      }
    }
  };

  const processRows = (batch: readonly ChangeRow[], keys: readonly string[], out: Output): void => {
    const process = processRecord!;
    for (let i = 0; i < batch.length; i++) process(keys[i]!, batch[i]!.row, out);
  };

  return {
    open(ctx) {
      context = ctx;
      const state = ctx.state;
      if (rowtimeColumn !== undefined) {
        processRecord = rowTimeDeduplicate(state, stateOptions, rowtimeColumn, spec.keep === 'last', spec.generateUpdateBefore);
      } else if (spec.keep === 'first') {
        processRecord = procTimeKeepFirstRow(state, stateOptions);
      } else {
        const equal = (a: Row, b: Row): boolean => rowsEqual(a, b, fieldNames);
        processRecord = procTimeKeepLastRow(state, stateOptions, spec.generateUpdateBefore, ttlMs !== undefined, equal);
      }
    },
    processBatch(batch, out) {
      const n = batch.length;
      if (n === 0) return;
      const keys = new Array<string>(n);
      for (let i = 0; i < n; i++) {
        const change = batch[i]!;
        check(change);
        keys[i] = keyOf(change.row);
      }
      const loading = context!.state.prefetch(new Set(keys));
      if (loading !== undefined) return loading.then(() => processRows(batch, keys, out));
      processRows(batch, keys, out);
    },
  };
}

/**
 * Processing-time keep-first (ProcTimeDeduplicateKeepFirstRowFunction, via
 * DeduplicateFunctionHelper.processFirstRowOnProcTime): a flag per key; the first row is emitted
 * as `+I` and every later one dropped. The output is insert-only.
 */
function procTimeKeepFirstRow(store: KeyedStateStore, options: StateOptions | undefined): RecordFunction {
  const state = store.valueState<true>(DEDUPLICATE_STATE, options);
  return (key, row, out) => {
    if (state.get(key) !== undefined) return;
    state.put(key, true);
    out.emit(insertRecord(row));
  };
}

/**
 * Processing-time keep-last (ProcTimeDeduplicateKeepLastRowFunction, via
 * DeduplicateFunctionHelper.processLastRowOnProcTime with generateInsert): the first row is `+I`,
 * each later one replaces it with `[-U previous] +U current`. A row equal to the kept one emits
 * nothing unless TTL is on — then Flink emits anyway, so that downstream state is refreshed and
 * does not expire while this key is still alive.
 */
function procTimeKeepLastRow(
  store: KeyedStateStore,
  options: StateOptions | undefined,
  generateUpdateBefore: boolean,
  ttlEnabled: boolean,
  equal: (a: Row, b: Row) => boolean,
): RecordFunction {
  const state = store.valueState<Row>(DEDUPLICATE_STATE, options);
  return (key, row, out) => {
    const previous = state.get(key);
    if (previous === undefined) {
      state.put(key, row);
      out.emit(insertRecord(row));
      return;
    }
    // Flink writes the state before this check; without TTL rewriting an equal row changes
    // nothing, so the write is skipped (it would cost a remote write on DynamoDB).
    if (!ttlEnabled && equal(previous, row)) return;
    state.put(key, row);
    if (generateUpdateBefore) out.emit(updateBeforeRecord(previous));
    out.emit(updateAfterRecord(row));
  };
}

/**
 * Row-time keep-first/keep-last (RowTimeDeduplicateFunction, via
 * DeduplicateFunctionHelper.shouldKeepCurrentRow and updateDeduplicateResult): the row replaces
 * the kept one when its rowtime is strictly smaller (keep first) or greater or equal (keep last);
 * a replacement emits `[-U previous] +U current` even when the rows are equal.
 */
function rowTimeDeduplicate(
  store: KeyedStateStore,
  options: StateOptions | undefined,
  rowtimeColumn: string,
  keepLastRow: boolean,
  generateUpdateBefore: boolean,
): RecordFunction {
  const state = store.valueState<Row>(DEDUPLICATE_STATE, options);
  return (key, row, out) => {
    const previous = state.get(key);
    if (previous === undefined) {
      out.emit(insertRecord(row));
    } else {
      // Both are numbers: processBatch checked every row before it was kept.
      const rowtime = row[rowtimeColumn] as number;
      const keptRowtime = previous[rowtimeColumn] as number;
      if (keepLastRow ? rowtime < keptRowtime : rowtime >= keptRowtime) return;
      if (generateUpdateBefore) out.emit(updateBeforeRecord(previous));
      out.emit(updateAfterRecord(row));
    }
    state.put(key, row);
  };
}

/**
 * Whole-row equality over the schema's columns, as Flink's generated RecordEqualiser compares
 * binary rows: `Object.is` per value (NaN equals NaN, -0 differs from 0).
 */
function rowsEqual(a: Row, b: Row, fieldNames: readonly string[]): boolean {
  for (const name of fieldNames) {
    if (!valuesEqual(a[name] ?? null, b[name] ?? null)) return false;
  }
  return true;
}
