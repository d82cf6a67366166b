/**
 * The regular (unbounded) SEMI and ANTI join — Flink's StreamingSemiAntiJoinOperator
 * (flink-table-runtime `operators/join/stream`): `IN` / `EXISTS` subqueries, `INTERSECT` and
 * `EXCEPT` (their `NOT` forms ANTI). The output is the left row only: SEMI emits a left row while
 * at least one right row matches it (join key equal, residual condition TRUE), ANTI while none
 * does. Any input changelog; the output is a retract changelog.
 *
 * Both sides are kept by join key in the regular join's state views (record-state-views.ts);
 * every left row carries its number of associations (matching right rows, counting copies), so
 * a change on the right emits exactly the transitions between 0 and 1:
 *
 * ```
 * left row l (kind k)      matches now > 0:  SEMI emits k[l]       (ANTI nothing)
 *                          matches now = 0:  ANTI emits k[l]       (SEMI nothing)
 *                          then keep l with its matches (accumulate) or remove it (retract)
 * right row r accumulates  keep r; for each matching l: l.n = 0 → SEMI r's kind[l] (+I/+U), ANTI -D[l]
 *                                                       l.n += 1
 * right row r retracts     remove r; for each matching l: l.n = 1 → SEMI r's kind[l] (-U/-D), ANTI +I[l]
 *                                                         l.n -= 1
 * ```
 *
 * So a left row passes through with its own kind (a retraction only when the row was emitted),
 * and a right change emits left rows with the right row's kind for SEMI, as Flink does. A left
 * row kept with copies (NoUniqueKey) is emitted once per copy. As in Flink, a row that repeats a
 * unique key without a retraction is not retracted first here (the output is the input's
 * changelog, filtered), and right changes are counted per message: an update that replaces the
 * kept right row still counts one association until its retraction arrives. The association
 * count never goes below 0 (Flink's can, after state expired: a later match would then go
 * unnoticed).
 *
 * A left row with a NULL in an `=` key matches nothing: ANTI passes it through, SEMI drops it,
 * neither keeps it; such a right row is dropped. `IS NOT DISTINCT FROM` keys (`nullSafeKeys`:
 * INTERSECT, EXCEPT) match NULL with NULL. NOT IN's NULL semantics are the planner's: a null-aware
 * condition `OR(IS NULL(a), IS NULL(b), =(a, b))` in place of the key (FlinkSubQueryRemoveRule).
 *
 * State TTL per side (`table.exec.state.ttl`, the `STATE_TTL` hint) as in the regular join: an
 * expired row is no longer found, and a left row's association count is refreshed whenever it
 * changes.
 */
import type { ChangeRow, RowKind } from '../../core/row.ts';
import { isAccumulate } from '../../core/row.ts';
import type { Row } from '../../core/types.ts';
import { compilePredicate, type UdfRegistry } from '../../plan/expr-compile.ts';
import { encodeKey } from '../../partition/key-encoding.ts';
import type { InputSide, Operator, OperatorContext, Output } from '../operator.ts';
import { JoinKeyReader, RowJoiner, joinedSchema, validateJoinSpec } from './join-spec.ts';
import { JOIN_STATE, createJoinRecordStateView, retentionOptions, type JoinRecordStateView } from './record-state-views.ts';
import type { StreamingJoinSpec } from './streaming-join.ts';

/** A regular join spec of type SEMI or ANTI. */
export type SemiAntiJoinSpec = StreamingJoinSpec & { readonly joinType: 'SEMI' | 'ANTI' };

/** Whether a regular join spec is a SEMI or ANTI join. */
export function isSemiAntiJoinSpec(spec: StreamingJoinSpec): spec is SemiAntiJoinSpec {
  return spec.joinType === 'SEMI' || spec.joinType === 'ANTI';
}

/**
 * Creates the operator; see the module documentation for what it emits.
 *
 * @throws PlanError for an invalid spec (keys, key types, input specs, condition).
 */
export function createSemiAntiJoinOperator(spec: SemiAntiJoinSpec, udfs: UdfRegistry = new Map()): Operator {
  validateJoinSpec(spec, 'Join');
  const anti = spec.joinType === 'ANTI';
  const joiner = new RowJoiner(spec.leftSchema, spec.rightSchema);
  const condition = spec.condition === undefined ? undefined : compilePredicate(spec.condition, joinedSchema({ ...spec, joinType: 'INNER' }), udfs);
  const matches = (left: Row, right: Row): boolean => condition === undefined || condition(joiner.join(left, right));
  const leftKeys = new JoinKeyReader(spec.leftKeys, spec.nullSafeKeys);
  const rightKeys = new JoinKeyReader(spec.rightKeys, spec.nullSafeKeys);
  let context: OperatorContext | undefined;
  let leftView: JoinRecordStateView | undefined;
  let rightView: JoinRecordStateView | undefined;

  const emit = (out: Output, kind: RowKind, row: Row, times: number): void => {
    for (let i = 0; i < times; i++) out.emit({ kind, row });
  };

  const processLeft = (change: ChangeRow, key: string, out: Output): void => {
    let associations = 0;
    for (const record of (rightView as JoinRecordStateView).records(key)) if (matches(change.row, record.row)) associations += record.count;
    if (associations > 0 !== anti) out.emit(change);
    if (isAccumulate(change.kind)) (leftView as JoinRecordStateView).addRecord(key, change.row, associations);
    else (leftView as JoinRecordStateView).retractRecord(key, change.row);
  };

  const processRight = (change: ChangeRow, key: string, out: Output): void => {
    const accumulate = isAccumulate(change.kind);
    const left = leftView as JoinRecordStateView;
    if (accumulate) (rightView as JoinRecordStateView).addRecord(key, change.row, 0);
    else (rightView as JoinRecordStateView).retractRecord(key, change.row);
    for (const record of left.records(key)) {
      if (!matches(record.row, change.row)) continue;
      if (accumulate) {
        if (record.associations === 0) emit(out, anti ? '-D' : change.kind, record.row, record.count);
        left.updateAssociations(key, record, record.associations + 1);
      } else {
        if (record.associations === 1) emit(out, anti ? '+I' : change.kind, record.row, record.count);
        left.updateAssociations(key, record, Math.max(0, record.associations - 1));
      }
    }
  };

  const processRows = (batch: readonly ChangeRow[], keys: readonly (string | undefined)[], isLeft: boolean, out: Output): void => {
    for (let i = 0; i < batch.length; i++) {
      const change = batch[i] as ChangeRow;
      const key = keys[i];
      if (key === undefined) {
        // A NULL `=` key matches nothing: an ANTI join passes the left row through.
        if (isLeft && anti) out.emit(change);
      } else if (isLeft) {
        processLeft(change, key, out);
      } else {
        processRight(change, key, out);
      }
    }
  };

  return {
    open(ctx) {
      context = ctx;
      leftView = createJoinRecordStateView(ctx.state, JOIN_STATE.left, spec.leftInput, spec.leftSchema, retentionOptions(spec.leftStateTtlMs));
      rightView = createJoinRecordStateView(ctx.state, JOIN_STATE.right, spec.rightInput, spec.rightSchema, retentionOptions(spec.rightStateTtlMs));
    },
    processBatch(batch, out, side: InputSide = 'left') {
      if (batch.length === 0) return;
      const isLeft = side !== 'right';
      const reader = isLeft ? leftKeys : rightKeys;
      const keys: (string | undefined)[] = new Array<string | undefined>(batch.length);
      const distinct = new Set<string>();
      for (let i = 0; i < batch.length; i++) {
        if (!reader.read((batch[i] as ChangeRow).row)) continue;
        const key = encodeKey(reader.current);
        keys[i] = key;
        distinct.add(key);
      }
      const loading = distinct.size === 0 ? undefined : context!.state.prefetch(distinct);
      if (loading !== undefined) return loading.then(() => processRows(batch, keys, isLeft, out));
      processRows(batch, keys, isLeft, out);
    },
  };
}
