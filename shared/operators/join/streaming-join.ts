/**
 * The regular (unbounded) stream–stream join: INNER, LEFT, RIGHT and FULL OUTER over append-only
 * or updating inputs, with an equi-join key and a residual condition — Flink's
 * StreamingJoinOperator (flink-table-runtime `operators/join/stream`). A spec of type SEMI or ANTI
 * gets the semi / anti join of semi-anti-join.ts instead, as Flink's StreamExecJoin picks its
 * StreamingSemiAntiJoinOperator.
 *
 * Both inputs are kept in state by join key (see record-state-views.ts for the three layouts);
 * each input row is matched against the other side's rows of its key and the residual condition.
 * What is emitted, per input row `r` and each matching row `o` of the other side (with its
 * copies):
 *
 * ```
 * r accumulates (+I/+U)
 *   r's side outer:   no match → +I[r+null], keep r with 0 associations
 *                     matches  → for each o: (o's side outer and o had 0) -D[null+o]; o.n += 1
 *                                            +I[r+o]
 *                                keep r with (number of matches) associations
 *   r's side inner:   keep r; for each o: (o's side outer) (o had 0) -D[null+o]; o.n += 1; +I[r+o]
 *                                         (o's side inner) r's kind [r+o]  (+I or +U)
 * r retracts (-U/-D)
 *   remove r;         no match → (r's side outer) -D[r+null]
 *                     matches  → for each o: (r's side outer) -D[r+o], else r's kind [r+o]  (-U or -D)
 *                                            (o's side outer) (o had 1) +I[null+o]; o.n -= 1
 * ```
 *
 * So a padded row is retracted when its first match arrives and emitted again when its last
 * match goes — the outer-join null-padding transitions. An inner join of two inner sides forwards
 * the input's kinds; as soon as a side is outer, Flink sends `+I` / `-D` instead of `+U` / `-U`
 * ("equivalent in this join case", FLINK-17337) and so does this operator.
 *
 * An input with a unique key may repeat a key without retracting it first (a declared primary
 * key is not enforced); the repeated row then replaces the kept one, which is retracted first
 * (`-U` of its joined rows, or `-D` on an outer side) so the output stays a retract changelog.
 * Flink instead emits only the new rows there and relies on an upsert consumer.
 *
 * A row with a NULL in its join key matches nothing (`=` is never TRUE with NULL): on an inner
 * side it is dropped without touching state, on an outer side it is padded (`+I[r+null]`, and
 * `-D[r+null]` when retracted) without state either.
 *
 * State TTL per side (Flink's `table.exec.state.ttl` and the `STATE_TTL` hint: left and right
 * retention may differ) expires rows not written for that long; a match that depended on an
 * expired row is simply no longer found, as in Flink.
 */
import type { ChangeRow, RowKind } from '../../core/row.ts';
import { isAccumulate } from '../../core/row.ts';
import type { Row, Schema } from '../../core/types.ts';
import { compilePredicate, type UdfRegistry } from '../../plan/expr-compile.ts';
import { encodeKey } from '../../partition/key-encoding.ts';
import type { InputSide, Operator, OperatorContext, Output } from '../operator.ts';
import {
  JoinKeyReader,
  RowJoiner,
  joinOutputSchema,
  joinedSchema,
  leftIsOuter,
  rightIsOuter,
  validateJoinSpec,
  type JoinBaseSpec,
  type JoinType,
} from './join-spec.ts';
import { JOIN_STATE, createJoinRecordStateView, retentionOptions, type JoinInputSpec, type JoinRecord, type JoinRecordStateView } from './record-state-views.ts';
import { createSemiAntiJoinOperator, isSemiAntiJoinSpec } from './semi-anti-join.ts';

/** The spec of a regular join (plain data in the job graph). */
export interface StreamingJoinSpec extends JoinBaseSpec {
  /** INNER, LEFT, RIGHT, FULL; SEMI and ANTI run as the semi / anti join (semi-anti-join.ts), as Flink's StreamExecJoin picks its StreamingSemiAntiJoinOperator. */
  readonly joinType: JoinType;
  /** How the left input's rows are kept (Flink's leftInputSpec). */
  readonly leftInput: JoinInputSpec;
  readonly rightInput: JoinInputSpec;
  /** Idle-state retention of the left rows, ms. @default keep forever */
  readonly leftStateTtlMs?: number;
  /** Idle-state retention of the right rows, ms. @default keep forever */
  readonly rightStateTtlMs?: number;
}

/**
 * The output schema of a regular join: the joined row (for SEMI / ANTI the left row), time
 * attributes materialized.
 */
export function streamingJoinOutputSchema(spec: StreamingJoinSpec): Schema {
  validateJoinSpec(spec, 'Join');
  if (isSemiAntiJoinSpec(spec)) return { fields: spec.leftSchema.fields.map(({ timeAttribute: _time, ...f }) => f) };
  return joinOutputSchema(spec, 'none');
}

/** One side of the join as the algorithm sees it. */
interface Side {
  readonly isLeft: boolean;
  readonly outer: boolean;
  readonly keys: JoinKeyReader;
  view: JoinRecordStateView | undefined;
}

/**
 * Creates the operator; see the module documentation for what it emits.
 *
 * @throws PlanError for an invalid spec (join type, keys, key types, input specs, condition).
 */
export function createStreamingJoinOperator(spec: StreamingJoinSpec, udfs: UdfRegistry = new Map()): Operator {
  if (isSemiAntiJoinSpec(spec)) return createSemiAntiJoinOperator(spec, udfs);
  validateJoinSpec(spec, 'Join');
  const joiner = new RowJoiner(spec.leftSchema, spec.rightSchema);
  const condition = spec.condition === undefined ? undefined : compilePredicate(spec.condition, joinedSchema(spec), udfs);
  const left: Side = { isLeft: true, outer: leftIsOuter(spec.joinType), keys: new JoinKeyReader(spec.leftKeys, spec.nullSafeKeys), view: undefined };
  const right: Side = { isLeft: false, outer: rightIsOuter(spec.joinType), keys: new JoinKeyReader(spec.rightKeys, spec.nullSafeKeys), view: undefined };
  let context: OperatorContext | undefined;

  const joinRows = (input: Row, inputIsLeft: boolean, other: Row): Row => (inputIsLeft ? joiner.join(input, other) : joiner.join(other, input));
  const pad = (row: Row, isLeft: boolean): Row => (isLeft ? joiner.padRight(row) : joiner.padLeft(row));
  const emit = (out: Output, kind: RowKind, row: Row, times: number): void => {
    for (let i = 0; i < times; i++) out.emit({ kind, row });
  };

  /** The other side's rows under `key` that match `input` (key equal and condition TRUE). */
  const associated = (key: string, input: Row, inputIsLeft: boolean, other: Side): { record: JoinRecord; joined: Row }[] => {
    const found: { record: JoinRecord; joined: Row }[] = [];
    for (const record of (other.view as JoinRecordStateView).records(key)) {
      const joined = joinRows(input, inputIsLeft, record.row);
      if (condition === undefined || condition(joined)) found.push({ record, joined });
    }
    return found;
  };

  const processRow = (change: ChangeRow, key: string, input: Side, other: Side, out: Output): void => {
    const row = change.row;
    const inputView = input.view as JoinRecordStateView;
    const otherView = other.view as JoinRecordStateView;
    if (isAccumulate(change.kind)) {
      const previous = inputView.replaced(key, row);
      // A unique key repeated without a retraction in between: retract the row it replaces
      // first, so the output stays a well-formed retract changelog.
      if (previous !== undefined) processRow({ kind: '-U', row: previous }, key, input, other, out);
      const matches = associated(key, row, input.isLeft, other);
      if (input.outer) {
        if (matches.length === 0) {
          out.emit({ kind: '+I', row: pad(row, input.isLeft) });
          inputView.addRecord(key, row, 0);
          return;
        }
        let associations = 0;
        for (const { record, joined } of matches) {
          if (other.outer) {
            if (record.associations === 0) emit(out, '-D', pad(record.row, other.isLeft), record.count);
            otherView.updateAssociations(key, record, record.associations + 1);
          }
          emit(out, '+I', joined, record.count);
          associations += record.count;
        }
        inputView.addRecord(key, row, associations);
        return;
      }
      inputView.addRecord(key, row, 0);
      for (const { record, joined } of matches) {
        if (other.outer) {
          if (record.associations === 0) emit(out, '-D', pad(record.row, other.isLeft), record.count);
          otherView.updateAssociations(key, record, record.associations + 1);
          emit(out, '+I', joined, record.count);
        } else {
          emit(out, change.kind, joined, record.count);
        }
      }
      return;
    }
    inputView.retractRecord(key, row);
    const matches = associated(key, row, input.isLeft, other);
    if (matches.length === 0) {
      if (input.outer) out.emit({ kind: '-D', row: pad(row, input.isLeft) });
      return;
    }
    for (const { record, joined } of matches) {
      emit(out, input.outer ? '-D' : change.kind, joined, record.count);
      if (other.outer) {
        if (record.associations === 1) emit(out, '+I', pad(record.row, other.isLeft), record.count);
        otherView.updateAssociations(key, record, Math.max(0, record.associations - 1));
      }
    }
  };

  const processRows = (batch: readonly ChangeRow[], keys: readonly (string | undefined)[], input: Side, other: Side, out: Output): void => {
    for (let i = 0; i < batch.length; i++) {
      const change = batch[i] as ChangeRow;
      const key = keys[i];
      if (key !== undefined) {
        processRow(change, key, input, other, out);
      } else if (input.outer) {
        // A NULL key matches nothing: the row is padded while it lives.
        out.emit({ kind: isAccumulate(change.kind) ? '+I' : '-D', row: pad(change.row, input.isLeft) });
      }
    }
  };

  return {
    open(ctx) {
      context = ctx;
      left.view = createJoinRecordStateView(ctx.state, JOIN_STATE.left, spec.leftInput, spec.leftSchema, retentionOptions(spec.leftStateTtlMs));
      right.view = createJoinRecordStateView(ctx.state, JOIN_STATE.right, spec.rightInput, spec.rightSchema, retentionOptions(spec.rightStateTtlMs));
    },
    processBatch(batch, out, side: InputSide = 'left') {
      if (batch.length === 0) return;
      const input = side === 'right' ? right : left;
      const other = side === 'right' ? left : right;
      const keys: (string | undefined)[] = new Array<string | undefined>(batch.length);
      const distinct = new Set<string>();
      for (let i = 0; i < batch.length; i++) {
        if (!input.keys.read((batch[i] as ChangeRow).row)) continue;
        const key = encodeKey(input.keys.current);
        keys[i] = key;
        distinct.add(key);
      }
      const loading = distinct.size === 0 ? undefined : context!.state.prefetch(distinct);
      if (loading !== undefined) return loading.then(() => processRows(batch, keys, input, other, out));
      processRows(batch, keys, input, other, out);
    },
  };
}
