/**
 * The window join: rows of both inputs in the same window (equal `window_start` and
 * `window_end`, both inputs windowed by the same TUMBLE / HOP / CUMULATE window) with equal keys
 * are joined when the window ends — Flink's WindowJoinOperator, with its INNER, LEFT, RIGHT, FULL,
 * SEMI and ANTI processors.
 *
 * Each side keeps its rows by join key and window end (one state entry per distinct row, with a
 * copy count). A row is buffered until the watermark reaches its window's last millisecond
 * (`window_end - 1`); then the window's rows are joined, padded or filtered by the join type and
 * dropped. A row whose window has already fired is late: it is counted (`numLateRecordsDropped`,
 * and Flink's `leftNumLateRecordsDropped` / `rightNumLateRecordsDropped`) and sent to the `late`
 * side output. Results are final: the output is insert-only. SEMI emits the left rows with a
 * match, ANTI those without (`IN` / `EXISTS`, `NOT IN` / `NOT EXISTS` over window TVFs).
 *
 * Windows aligned in a session time zone (over a TIMESTAMP_LTZ rowtime, `timeZone` set) carry
 * wall-clock `window_end` values while the watermark and timers run on instants: as Flink's
 * operator with its `shiftTimeZone`, a window fires (and rows for it count as late) once the
 * watermark reaches the instant of its wall-clock `window_end - 1` (`toInstant`, Flink's
 * `TimeWindowUtil.toEpochMillsForTimer`), the same instant the window aggregate fires it at. The
 * timer's namespace holds the wall-clock window end, so the state is found without converting back.
 *
 * Within a window rows are emitted in the order of their state entries (by their values), not by
 * arrival as Flink's list state does; the rows are the same.
 */
import { PlanError } from '../../core/errors.ts';
import type { ChangeRow } from '../../core/row.ts';
import { toInstant, timeZoneOf, UTC_ZONE_ID } from '../../core/time-zone.ts';
import { requireField } from '../../core/type-parse.ts';
import type { Row, Schema, Value } from '../../core/types.ts';
import { compilePredicate, type UdfRegistry } from '../../plan/expr-compile.ts';
import { decodeKey, encodeKey, encodeSortKey } from '../../partition/key-encoding.ts';
import type { SortedMapState } from '../../state/state.ts';
import type { InputSide, Operator, OperatorContext, Output } from '../operator.ts';
import { DEFAULT_LATE_OUTPUT_TAG, LATE_RECORDS_METRIC } from '../window-rank/late-data.ts';
import { JoinKeyReader, RowJoiner, joinOutputSchema, joinedSchema, leftIsOuter, rightIsOuter, validateJoinSpec, type JoinBaseSpec } from './join-spec.ts';

/** The spec of a window join (plain data in the job graph). */
export interface WindowJoinSpec extends JoinBaseSpec {
  /** The left input's `window_end` column. */
  readonly leftWindowEndColumn: string;
  /** The right input's `window_end` column. */
  readonly rightWindowEndColumn: string;
  /** The session time zone the windows align in (a TIMESTAMP_LTZ rowtime); absent: UTC. */
  readonly timeZone?: string;
}

/** State names of the operator. */
export const WINDOW_JOIN_STATE = { left: 'window-join-left', right: 'window-join-right' } as const;

/** Flink's per-side late-row counters. */
export const WINDOW_JOIN_METRICS = { leftLate: 'leftNumLateRecordsDropped', rightLate: 'rightNumLateRecordsDropped' } as const;

interface Kept {
  /** The window end, also encoded in the sub-key's prefix. */
  readonly w: number;
  readonly r: Row;
  readonly c?: number;
}

/** The output schema: the joined row, or the left row for SEMI / ANTI. */
export function windowJoinOutputSchema(spec: WindowJoinSpec): Schema {
  validate(spec);
  return joinOutputSchema(spec, 'none');
}

function validate(spec: WindowJoinSpec): void {
  validateJoinSpec(spec, 'WindowJoin');
  for (const [side, schema, column] of [
    ['left', spec.leftSchema, spec.leftWindowEndColumn],
    ['right', spec.rightSchema, spec.rightWindowEndColumn],
  ] as const) {
    const f = requireField(schema, column, `WindowJoin ${side} window_end`);
    if (f.type.root !== 'TIMESTAMP') throw new PlanError(`WindowJoin: ${side} window end column '${column}' must be a TIMESTAMP (it is ${f.type.root})`);
  }
}

const windowPrefix = (windowEnd: number): string => encodeSortKey([windowEnd], ['ASC'], [true]);

/**
 * Creates the operator; see the module documentation.
 *
 * @throws PlanError for an invalid spec or an update (non-insert) input row.
 */
export function createWindowJoinOperator(spec: WindowJoinSpec, udfs: UdfRegistry = new Map()): Operator {
  validate(spec);
  const joiner = new RowJoiner(spec.leftSchema, spec.rightSchema);
  const condition = spec.condition === undefined ? undefined : compilePredicate(spec.condition, joinedSchema(spec), udfs);
  const type = spec.joinType;
  const leftKeys = new JoinKeyReader(spec.leftKeys);
  const rightKeys = new JoinKeyReader(spec.rightKeys);
  const leftFields = spec.leftSchema.fields.map((f) => f.name);
  const rightFields = spec.rightSchema.fields.map((f) => f.name);
  const zone = spec.timeZone === undefined || spec.timeZone === UTC_ZONE_ID ? undefined : timeZoneOf(spec.timeZone);
  /** The instant a window fires at: its last millisecond, on the zone's wall clock. */
  const fireTime = (windowEnd: number): number => (zone === undefined ? windowEnd - 1 : toInstant(windowEnd - 1, zone));
  let context: OperatorContext | undefined;
  let leftState: SortedMapState<Kept> | undefined;
  let rightState: SortedMapState<Kept> | undefined;

  const matchRows = (l: Row, r: Row): Row | undefined => {
    const joined = joiner.join(l, r);
    return condition === undefined || condition(joined) ? joined : undefined;
  };

  /** The rows of one window of a key, each with its copies, and drops them from state. */
  const take = (state: SortedMapState<Kept>, key: string, windowEnd: number): Kept[] => {
    const rows: Kept[] = [];
    const slots: string[] = [];
    for (const [slot, kept] of state.ascending(key, windowPrefix(windowEnd))) {
      if (kept.w !== windowEnd) break;
      rows.push(kept);
      slots.push(slot);
    }
    for (const slot of slots) state.delete(key, slot);
    return rows;
  };

  const emitTimes = (out: Output, row: Row, times: number): void => {
    for (let i = 0; i < times; i++) out.emit({ kind: '+I', row });
  };

  /** Flink's WindowJoinProcessor for each join type, over the window's rows of one key. */
  const join = (lefts: readonly Kept[], rights: readonly Kept[], nullKey: boolean, out: Output): void => {
    const matches = (l: Row, r: Row): Row | undefined => (nullKey ? undefined : matchRows(l, r));
    if (type === 'SEMI' || type === 'ANTI') {
      for (const l of lefts) {
        const found = rights.some((r) => matches(l.r, r.r) !== undefined);
        if (found === (type === 'SEMI')) emitTimes(out, l.r, l.c ?? 1);
      }
      return;
    }
    const rightMatched = new Set<Kept>();
    for (const l of lefts) {
      let found = false;
      for (const r of rights) {
        const joined = matches(l.r, r.r);
        if (joined === undefined) continue;
        found = true;
        rightMatched.add(r);
        emitTimes(out, joined, (l.c ?? 1) * (r.c ?? 1));
      }
      if (!found && leftIsOuter(type)) emitTimes(out, joiner.padRight(l.r), l.c ?? 1);
    }
    if (rightIsOuter(type)) for (const r of rights) if (!rightMatched.has(r)) emitTimes(out, joiner.padLeft(r.r), r.c ?? 1);
  };

  const keep = (state: SortedMapState<Kept>, key: string, windowEnd: number, row: Row, fields: readonly string[]): void => {
    const values: Value[] = fields.map((f) => row[f] ?? null);
    const slot = windowPrefix(windowEnd) + encodeKey(values);
    const known = state.get(key, slot);
    state.put(key, slot, known === undefined ? { w: windowEnd, r: row } : { w: windowEnd, r: known.r, c: (known.c ?? 1) + 1 });
    context!.timers.registerEventTimeTimer(key, String(windowEnd), fireTime(windowEnd));
  };

  const processRows = (batch: readonly ChangeRow[], keys: readonly (string | undefined)[], ends: readonly number[], isLeft: boolean): void => {
    for (let i = 0; i < batch.length; i++) {
      const key = keys[i];
      if (key === undefined) continue;
      keep(isLeft ? leftState! : rightState!, key, ends[i] as number, (batch[i] as ChangeRow).row, isLeft ? leftFields : rightFields);
    }
  };

  return {
    open(ctx) {
      context = ctx;
      leftState = ctx.state.sortedMapState<Kept>(WINDOW_JOIN_STATE.left);
      rightState = ctx.state.sortedMapState<Kept>(WINDOW_JOIN_STATE.right);
    },
    processBatch(batch, out, side: InputSide = 'left') {
      if (batch.length === 0) return;
      const isLeft = side === 'left';
      const reader = isLeft ? leftKeys : rightKeys;
      const endColumn = isLeft ? spec.leftWindowEndColumn : spec.rightWindowEndColumn;
      const watermark = context!.timers.currentWatermark();
      const keys: (string | undefined)[] = new Array<string | undefined>(batch.length);
      const ends: number[] = new Array<number>(batch.length);
      const distinct = new Set<string>();
      for (let i = 0; i < batch.length; i++) {
        const change = batch[i] as ChangeRow;
        if (change.kind !== '+I') {
          throw new PlanError(`WindowJoin doesn't support consuming update and delete changes, but got a ${change.kind} row: its inputs must be insert-only`);
        }
        const end = change.row[endColumn];
        // Flink's TimeWindowUtil.isWindowFired with the shift time zone.
        if (typeof end !== 'number' || fireTime(end) <= watermark) {
          context!.metrics.increment(LATE_RECORDS_METRIC);
          context!.metrics.increment(isLeft ? WINDOW_JOIN_METRICS.leftLate : WINDOW_JOIN_METRICS.rightLate);
          out.emitSide(DEFAULT_LATE_OUTPUT_TAG, change.row);
          continue;
        }
        ends[i] = end;
        // A key with a NULL matches nothing, but the row still counts for its side of an outer
        // or anti join: it is kept under its own key, which the timer recognizes.
        reader.read(change.row);
        const key = encodeKey(reader.current);
        keys[i] = key;
        distinct.add(key);
      }
      const loading = distinct.size === 0 ? undefined : context!.state.prefetch(distinct);
      if (loading !== undefined) return loading.then(() => processRows(batch, keys, ends, isLeft));
      processRows(batch, keys, ends, isLeft);
    },
    onTimer(timer, out) {
      const windowEnd = Number(timer.namespace);
      const nullKey = spec.leftKeys.length > 0 && decodeKey(timer.key).includes(null);
      join(take(leftState!, timer.key, windowEnd), take(rightState!, timer.key, windowEnd), nullKey, out);
    },
  };
}
