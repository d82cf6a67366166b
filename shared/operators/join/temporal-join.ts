/**
 * The event-time temporal join, `probe JOIN versioned FOR SYSTEM_TIME AS OF probe.t ON …`: each
 * probe (left) row joins the version of the versioned (right) table's row with its key that was
 * valid at the probe row's time — Flink's TemporalRowTimeJoinOperator.
 *
 * Per join key (the versioned table's primary key) the operator keeps the right rows by their
 * time (each a version valid until the next one; a `-D` version means "no row from here on") and
 * the left rows until the watermark passes them. When it does, each left row is joined with the
 * latest version at or before its time, emitted with the left row's kind, and dropped; versions
 * older than the latest one at or before the watermark are dropped too (nothing can ask for them
 * any more). One timer per key, at the smallest pending time, drives this, as in Flink.
 *
 * ```
 *  versions  1(+I)   4(+U)   7(+U)   9(-D)   12(+I)
 *  left@6 joins 4(+U); left@10 finds the 9(-D) version: no match (padded on a LEFT join)
 * ```
 *
 * `-U` rows of the versioned side are update-before images: the `+U` that follows defines the
 * new version, so they are skipped (Flink's planner asks the versioned side for only-after
 * updates). A row failing the residual condition is unmatched. State TTL (Flink's idle-state
 * retention for temporal joins) expires kept rows and versions not written for that long.
 * Left rows of one timestamp are emitted in arrival order; rows are emitted in time order.
 */
import { PlanError } from '../../core/errors.ts';
import type { ChangeRow, RowKind } from '../../core/row.ts';
import { requireField } from '../../core/type-parse.ts';
import type { Row, Schema } from '../../core/types.ts';
import { compilePredicate, type UdfRegistry } from '../../plan/expr-compile.ts';
import { encodeKey, encodeSortKey } from '../../partition/key-encoding.ts';
import type { SortedMapState, StateOptions, ValueState } from '../../state/state.ts';
import type { InputSide, Operator, OperatorContext, Output } from '../operator.ts';
import { INVALID_ROWTIME_TAG, WINDOW_METRICS } from '../window/window-operator.ts';
import { JoinKeyReader, RowJoiner, joinOutputSchema, joinedSchema, validateJoinSpec, type JoinBaseSpec } from './join-spec.ts';

/** The spec of an event-time temporal join (plain data in the job graph). */
export interface TemporalJoinSpec extends JoinBaseSpec {
  readonly joinType: 'INNER' | 'LEFT';
  /** The probe side's rowtime column (`FOR SYSTEM_TIME AS OF left.t`). */
  readonly leftTimeColumn: string;
  /** The versioned table's rowtime column. */
  readonly rightTimeColumn: string;
  /** Idle-state retention of kept rows and versions, ms. @default keep until the watermark drops them */
  readonly stateTtlMs?: number;
}

/** State names of the operator. */
export const TEMPORAL_JOIN_STATE = { left: 'left', right: 'right', nextIndex: 'next-index', timer: 'timer' } as const;

interface LeftEntry {
  readonly t: number;
  readonly k: RowKind;
  readonly r: Row;
}

interface Version {
  readonly t: number;
  /** The version's row, absent for a deletion. */
  readonly r?: Row;
}

/** The output schema: the joined row; the probe side's rowtime stays a rowtime attribute. */
export function temporalJoinOutputSchema(spec: TemporalJoinSpec): Schema {
  validate(spec);
  return joinOutputSchema(spec, 'left');
}

function validate(spec: TemporalJoinSpec): void {
  validateJoinSpec(spec, 'TemporalJoin');
  if (spec.joinType !== 'INNER' && spec.joinType !== 'LEFT') {
    throw new PlanError(`TemporalJoin: only INNER and LEFT joins are supported (given ${spec.joinType}), as in Flink`);
  }
  if (spec.leftKeys.length === 0) throw new PlanError('TemporalJoin: needs an equality on the versioned table\'s primary key');
  for (const [side, schema, column] of [
    ['left', spec.leftSchema, spec.leftTimeColumn],
    ['right', spec.rightSchema, spec.rightTimeColumn],
  ] as const) {
    const f = requireField(schema, column, `TemporalJoin ${side} time`);
    if (f.type.root !== 'TIMESTAMP' && f.type.root !== 'TIMESTAMP_LTZ') throw new PlanError(`TemporalJoin: ${side} time column '${column}' must be a TIMESTAMP or TIMESTAMP_LTZ (it is ${f.type.root})`);
  }
}

const sortKey = (...values: number[]): string => encodeSortKey(values, values.map(() => 'ASC' as const), values.map(() => true));

/**
 * Creates the operator; see the module documentation.
 *
 * @throws PlanError for an invalid spec.
 */
export function createTemporalJoinOperator(spec: TemporalJoinSpec, udfs: UdfRegistry = new Map()): Operator {
  validate(spec);
  const joiner = new RowJoiner(spec.leftSchema, spec.rightSchema);
  const condition = spec.condition === undefined ? undefined : compilePredicate(spec.condition, joinedSchema(spec), udfs);
  const outer = spec.joinType === 'LEFT';
  const leftKeys = new JoinKeyReader(spec.leftKeys);
  const rightKeys = new JoinKeyReader(spec.rightKeys);
  const options: StateOptions | undefined =
    spec.stateTtlMs !== undefined && Number.isFinite(spec.stateTtlMs) && spec.stateTtlMs > 0 ? { ttl: { ttlMs: spec.stateTtlMs } } : undefined;
  let context: OperatorContext | undefined;
  let leftState: SortedMapState<LeftEntry> | undefined;
  let rightState: SortedMapState<Version> | undefined;
  let nextIndex: ValueState<number> | undefined;
  let registered: ValueState<number> | undefined;

  const registerSmallestTimer = (key: string, time: number): void => {
    const current = registered!.get(key);
    if (current !== undefined && current <= time) return;
    if (current !== undefined) context!.timers.deleteEventTimeTimer(key, '', current);
    context!.timers.registerEventTimeTimer(key, '', time);
    registered!.put(key, time);
  };

  const timeOf = (row: Row, column: string, out: Output): number | undefined => {
    const t = row[column];
    if (typeof t === 'number' && Number.isFinite(t)) return t;
    context!.metrics.increment(WINDOW_METRICS.invalidRowtime);
    out.emitSide(INVALID_ROWTIME_TAG, row);
    return undefined;
  };

  const processLeft = (change: ChangeRow, out: Output): string | undefined => {
    const t = timeOf(change.row, spec.leftTimeColumn, out);
    if (t === undefined) return undefined;
    if (!leftKeys.read(change.row)) {
      // A NULL key matches no version.
      if (outer) out.emit({ kind: change.kind, row: joiner.padRight(change.row) });
      return undefined;
    }
    return encodeKey(leftKeys.current);
  };

  const addLeft = (key: string, change: ChangeRow): void => {
    const t = change.row[spec.leftTimeColumn] as number;
    const index = nextIndex!.get(key) ?? 0;
    nextIndex!.put(key, index + 1);
    leftState!.put(key, sortKey(t, index), { t, k: change.kind, r: change.row });
    registerSmallestTimer(key, t);
  };

  const addRight = (key: string, change: ChangeRow): void => {
    const t = change.row[spec.rightTimeColumn] as number;
    rightState!.put(key, sortKey(t), change.kind === '-D' ? { t } : { t, r: change.row });
    registerSmallestTimer(key, t);
  };

  /** Emits the left rows of `key` the watermark has passed, and drops versions nothing needs. */
  const emitAndCleanUp = (key: string, watermark: number, out: Output): void => {
    const done: string[] = [];
    let pending: number | undefined;
    for (const [slot, entry] of leftState!.ascending(key)) {
      if (entry.t > watermark) {
        pending = entry.t;
        break;
      }
      done.push(slot);
      const version = rightState!.descending(key, sortKey(entry.t)).next();
      const versionRow = version.done === true ? undefined : version.value[1].r;
      let result: Row | undefined;
      if (versionRow !== undefined) {
        const joined = joiner.join(entry.r, versionRow);
        if (condition === undefined || condition(joined)) result = joined;
      }
      if (result !== undefined) out.emit({ kind: entry.k, row: result });
      else if (outer) out.emit({ kind: entry.k, row: joiner.padRight(entry.r) });
    }
    for (const slot of done) leftState!.delete(key, slot);
    // Keep the latest version at or before the watermark and everything after it.
    const versions: string[] = [];
    for (const [slot, v] of rightState!.ascending(key)) {
      if (v.t > watermark) break;
      versions.push(slot);
    }
    for (let i = 0; i < versions.length - 1; i++) rightState!.delete(key, versions[i] as string);
    if (pending !== undefined) registerSmallestTimer(key, pending);
    else if (leftState!.size(key) === 0) nextIndex!.delete(key);
  };

  const processRows = (batch: readonly ChangeRow[], keys: readonly (string | undefined)[], isLeft: boolean): void => {
    for (let i = 0; i < batch.length; i++) {
      const key = keys[i];
      if (key === undefined) continue;
      if (isLeft) addLeft(key, batch[i] as ChangeRow);
      else addRight(key, batch[i] as ChangeRow);
    }
  };

  return {
    open(ctx) {
      context = ctx;
      leftState = ctx.state.sortedMapState<LeftEntry>(TEMPORAL_JOIN_STATE.left, options);
      rightState = ctx.state.sortedMapState<Version>(TEMPORAL_JOIN_STATE.right, options);
      nextIndex = ctx.state.valueState<number>(TEMPORAL_JOIN_STATE.nextIndex, options);
      registered = ctx.state.valueState<number>(TEMPORAL_JOIN_STATE.timer);
    },
    processBatch(batch, out, side: InputSide = 'left') {
      if (batch.length === 0) return;
      const isLeft = side === 'left';
      const keys: (string | undefined)[] = new Array<string | undefined>(batch.length);
      const distinct = new Set<string>();
      for (let i = 0; i < batch.length; i++) {
        const change = batch[i] as ChangeRow;
        let key: string | undefined;
        if (isLeft) key = processLeft(change, out);
        else if (change.kind !== '-U' && timeOf(change.row, spec.rightTimeColumn, out) !== undefined && rightKeys.read(change.row)) {
          key = encodeKey(rightKeys.current);
        }
        keys[i] = key;
        if (key !== undefined) distinct.add(key);
      }
      const loading = distinct.size === 0 ? undefined : context!.state.prefetch(distinct);
      if (loading !== undefined) return loading.then(() => processRows(batch, keys, isLeft));
      processRows(batch, keys, isLeft);
    },
    onTimer(timer, out) {
      registered!.delete(timer.key);
      emitAndCleanUp(timer.key, context!.timers.currentWatermark(), out);
    },
  };
}
