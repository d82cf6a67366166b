/**
 * The interval (time-bounded) join: rows of both inputs with equal keys whose times are close,
 * `right.t + lowerBound <= left.t <= right.t + upperBound`, in event or processing time, INNER
 * or OUTER — Flink's TimeIntervalJoin with RowTimeIntervalJoin / ProcTimeIntervalJoin.
 *
 * Each side keeps its rows by join key and time (a sorted map, one entry per millisecond holding
 * the rows in arrival order with a "joined" flag). A row is joined with the other side's rows in
 * its time range at once; it is kept only while rows of the other side that could match can
 * still arrive (the operator time — the watermark, or processing time — has not passed its
 * range), and dropped by a cleanup timer once the operator time passes it. An outer side's row
 * that never joined is emitted null-padded when it is dropped (or at once when it is not kept).
 * Results are final: the output is insert-only.
 *
 * ```
 *  left row at tl joins right rows in [tl - upper, tl - lower]
 *  right row at tr joins left rows  in [tr + lower, tr + upper]
 *  a left row is dropped once  opTime > tl - lower   (no right row can still match it)
 *  a right row is dropped once opTime > tr + upper
 * ```
 *
 * As in Flink, the operator time is the combined (minimum) watermark of both inputs, or 0 before
 * it turns positive; a row behind the watermark is still joined with what is kept. Joined rows
 * may be older than the watermark by up to max(upper, -lower), so the operator holds its output
 * watermark back by that much ({@link Operator.outputWatermarkDelayMs}), as Flink's
 * KeyedCoProcessOperatorWithWatermarkDelay does with RowTimeIntervalJoin.getMaxOutputDelay().
 * Cleanup timers fire at `t + relative size + (lower + upper span) / 2 + 1`, Flink's
 * minCleanUpInterval, so cleanup runs in bulk rather than per row.
 */
import { PlanError } from '../../core/errors.ts';
import type { ChangeRow } from '../../core/row.ts';
import { requireField } from '../../core/type-parse.ts';
import type { Row, Schema } from '../../core/types.ts';
import { compilePredicate, type UdfRegistry } from '../../plan/expr-compile.ts';
import { encodeKey, encodeSortKey } from '../../partition/key-encoding.ts';
import type { SortedMapState, ValueState } from '../../state/state.ts';
import type { InputSide, Operator, OperatorContext, Output, Timer } from '../operator.ts';
import { INVALID_ROWTIME_TAG, WINDOW_METRICS } from '../window/window-operator.ts';
import {
  JoinKeyReader,
  RowJoiner,
  joinOutputSchema,
  joinedSchema,
  leftIsOuter,
  rightIsOuter,
  validateJoinSpec,
  type JoinBaseSpec,
  type OuterJoinType,
} from './join-spec.ts';

/** The spec of an interval join (plain data in the job graph). */
export interface IntervalJoinSpec extends JoinBaseSpec {
  readonly joinType: OuterJoinType;
  readonly timeDomain: 'event' | 'processing';
  /** Event time: the left input's rowtime column. */
  readonly leftTimeColumn?: string;
  /** Event time: the right input's rowtime column. */
  readonly rightTimeColumn?: string;
  /** `left.t >= right.t + leftLowerBoundMs` (Flink's leftLowerBound). */
  readonly leftLowerBoundMs: number;
  /** `left.t <= right.t + leftUpperBoundMs` (Flink's leftUpperBound). */
  readonly leftUpperBoundMs: number;
  /** Cleanup timers are delayed by this much so they fire in bulk. @default half the bounds' span, as Flink's planner sets it */
  readonly minCleanUpIntervalMs?: number;
}

/** State names of the operator. */
export const INTERVAL_JOIN_STATE = {
  left: 'interval-join-left',
  right: 'interval-join-right',
  leftTimer: 'interval-join-left-timer',
  rightTimer: 'interval-join-right-timer',
} as const;

/** Timer namespaces: which side's rows a cleanup timer drops. */
const CLEAN_LEFT = 'left';
const CLEAN_RIGHT = 'right';

/** The rows of one side at one time, with whether each has joined (for outer padding). */
interface TimeSlot {
  readonly t: number;
  readonly rows: readonly { readonly r: Row; readonly j?: true }[];
}

/**
 * The output schema: the joined row; in event time both inputs' rowtime columns stay rowtime
 * attributes (a window can follow the join).
 *
 * @throws PlanError for an invalid spec.
 */
export function intervalJoinOutputSchema(spec: IntervalJoinSpec): Schema {
  validate(spec);
  return joinOutputSchema(spec, spec.timeDomain === 'event' ? 'both' : 'none');
}

function validate(spec: IntervalJoinSpec): void {
  validateJoinSpec(spec, 'IntervalJoin');
  if (spec.joinType === ('SEMI' as OuterJoinType) || spec.joinType === ('ANTI' as OuterJoinType)) {
    throw new PlanError('IntervalJoin: SEMI and ANTI are not supported; use INNER, LEFT, RIGHT or FULL');
  }
  if (spec.timeDomain !== 'event' && spec.timeDomain !== 'processing') {
    throw new PlanError(`IntervalJoin: timeDomain must be 'event' or 'processing' (given ${JSON.stringify(spec.timeDomain)})`);
  }
  if (!Number.isSafeInteger(spec.leftLowerBoundMs) || !Number.isSafeInteger(spec.leftUpperBoundMs) || spec.leftLowerBoundMs > spec.leftUpperBoundMs) {
    throw new PlanError(
      `IntervalJoin: the bounds must be whole milliseconds with lower <= upper (given ${spec.leftLowerBoundMs}, ${spec.leftUpperBoundMs})`,
    );
  }
  if (spec.timeDomain === 'event') {
    for (const [side, schema, column] of [
      ['left', spec.leftSchema, spec.leftTimeColumn],
      ['right', spec.rightSchema, spec.rightTimeColumn],
    ] as const) {
      if (column === undefined) throw new PlanError(`IntervalJoin: an event-time interval join needs the ${side} rowtime column`);
      const f = requireField(schema, column, `IntervalJoin ${side} time`);
      if (f.type.root !== 'TIMESTAMP' && f.type.root !== 'TIMESTAMP_LTZ') throw new PlanError(`IntervalJoin: ${side} time column '${column}' must be a TIMESTAMP or TIMESTAMP_LTZ (it is ${f.type.root})`);
    }
  }
}

/** The largest amount by which joined rows can be older than the watermark. */
export function intervalJoinOutputDelay(spec: Pick<IntervalJoinSpec, 'leftLowerBoundMs' | 'leftUpperBoundMs'>): number {
  return Math.max(-spec.leftLowerBoundMs, spec.leftUpperBoundMs, 0);
}

const timeKey = (t: number): string => encodeSortKey([t], ['ASC'], [true]);

/** One side as the algorithm sees it. */
interface Side {
  readonly isLeft: boolean;
  readonly outer: boolean;
  readonly keys: JoinKeyReader;
  readonly timeColumn: string | undefined;
  /** This side's kept rows: join key → time → rows. */
  cache: SortedMapState<TimeSlot> | undefined;
  /** The pending cleanup timer of this side's cache, per key. */
  timer: ValueState<number> | undefined;
}

/**
 * Creates the operator; see the module documentation.
 *
 * @throws PlanError for an invalid spec or an update (non-insert) input row.
 */
export function createIntervalJoinOperator(spec: IntervalJoinSpec, udfs: UdfRegistry = new Map()): Operator {
  validate(spec);
  const eventTime = spec.timeDomain === 'event';
  const joiner = new RowJoiner(spec.leftSchema, spec.rightSchema);
  const condition = spec.condition === undefined ? undefined : compilePredicate(spec.condition, joinedSchema(spec), udfs);
  // Flink's names: a left row joins right rows in [tl - rightRelativeSize, tl + leftRelativeSize].
  const leftRelativeSize = -spec.leftLowerBoundMs;
  const rightRelativeSize = spec.leftUpperBoundMs;
  const minCleanUpInterval = Math.max(0, spec.minCleanUpIntervalMs ?? Math.floor((leftRelativeSize + rightRelativeSize) / 2));
  const left: Side = { isLeft: true, outer: leftIsOuter(spec.joinType), keys: new JoinKeyReader(spec.leftKeys), timeColumn: spec.leftTimeColumn, cache: undefined, timer: undefined };
  const right: Side = { isLeft: false, outer: rightIsOuter(spec.joinType), keys: new JoinKeyReader(spec.rightKeys), timeColumn: spec.rightTimeColumn, cache: undefined, timer: undefined };
  let context: OperatorContext | undefined;

  /** Flink's operator time: the watermark (or processing time), never below 0. */
  const operatorTime = (): number => {
    const t = eventTime ? context!.timers.currentWatermark() : context!.timers.currentProcessingTime();
    return t > 0 ? t : 0;
  };
  /** Rows of a side at or before this time can match nothing more. */
  const expirationTime = (opTime: number, relativeSize: number): number => (opTime === Infinity ? Infinity : opTime - relativeSize - 1);
  const sizeOf = (side: Side): number => (side.isLeft ? leftRelativeSize : rightRelativeSize);
  const pad = (row: Row, isLeft: boolean): Row => (isLeft ? joiner.padRight(row) : joiner.padLeft(row));

  const registerCleanup = (key: string, side: Side, rowTime: number): void => {
    const at = rowTime + sizeOf(side) + minCleanUpInterval + 1;
    const namespace = side.isLeft ? CLEAN_LEFT : CLEAN_RIGHT;
    if (eventTime) context!.timers.registerEventTimeTimer(key, namespace, at);
    else context!.timers.registerProcessingTimeTimer(key, namespace, at);
    side.timer!.put(key, at);
  };

  /** Drops a side's rows of `key` at or before `expiration`, padding outer rows that never joined. */
  const expire = (key: string, side: Side, expiration: number, out: Output): void => {
    const cache = side.cache!;
    const gone: string[] = [];
    for (const [slotKey, slot] of cache.ascending(key)) {
      if (slot.t > expiration) break;
      if (side.outer) for (const { r, j } of slot.rows) if (j !== true) out.emit({ kind: '+I', row: pad(r, side.isLeft) });
      gone.push(slotKey);
    }
    for (const slotKey of gone) cache.delete(key, slotKey);
  };

  const processRow = (key: string, row: Row, rowTime: number, input: Side, other: Side, out: Output): void => {
    const opTime = operatorTime();
    // The other side's rows that can match: [rowTime - other's reach before, rowTime + reach after].
    const lower = input.isLeft ? rowTime - rightRelativeSize : rowTime - leftRelativeSize;
    const upper = input.isLeft ? rowTime + leftRelativeSize : rowTime + rightRelativeSize;
    const otherCache = other.cache!;
    let joined = false;
    expire(key, other, expirationTime(opTime, sizeOf(other)), out);
    const updates: [string, TimeSlot][] = [];
    for (const [slotKey, slot] of otherCache.ascending(key, timeKey(lower))) {
      if (slot.t > upper) break;
      let changed = false;
      const rows = slot.rows.map((entry) => {
        const result = input.isLeft ? joiner.join(row, entry.r) : joiner.join(entry.r, row);
        if (condition !== undefined && !condition(result)) return entry;
        out.emit({ kind: '+I', row: result });
        joined = true;
        if (other.outer && entry.j !== true) {
          changed = true;
          return { r: entry.r, j: true as const };
        }
        return entry;
      });
      if (changed) updates.push([slotKey, { t: slot.t, rows }]);
    }
    for (const [slotKey, slot] of updates) otherCache.put(key, slotKey, slot);
    // Keep the row while the other side can still send a match (its time has not passed upper).
    if (opTime < upper) {
      const cache = input.cache!;
      const slotKey = timeKey(rowTime);
      const slot = cache.get(key, slotKey);
      const entry = joined ? { r: row, j: true as const } : { r: row };
      cache.put(key, slotKey, { t: rowTime, rows: slot === undefined ? [entry] : [...slot.rows, entry] });
      if (input.timer!.get(key) === undefined) registerCleanup(key, input, rowTime);
    } else if (!joined && input.outer) {
      out.emit({ kind: '+I', row: pad(row, input.isLeft) });
    }
  };

  const processRows = (batch: readonly ChangeRow[], keys: readonly (string | undefined)[], times: readonly number[], input: Side, other: Side, out: Output): void => {
    for (let i = 0; i < batch.length; i++) {
      const row = (batch[i] as ChangeRow).row;
      const key = keys[i];
      if (key === undefined) {
        if (input.outer) out.emit({ kind: '+I', row: pad(row, input.isLeft) });
        continue;
      }
      processRow(key, row, times[i] as number, input, other, out);
    }
  };

  const onCleanup = (timer: Timer, out: Output): void => {
    const side = timer.namespace === CLEAN_LEFT ? left : right;
    if (side.timer!.get(timer.key) !== timer.timestamp) return;
    side.timer!.delete(timer.key);
    expire(timer.key, side, expirationTime(operatorTime(), sizeOf(side)), out);
    // Rows remain: clean up again after the earliest of them.
    const first = side.cache!.first(timer.key);
    if (first !== undefined) registerCleanup(timer.key, side, first[1].t);
  };

  return {
    outputWatermarkDelayMs: eventTime ? intervalJoinOutputDelay(spec) : 0,
    open(ctx) {
      context = ctx;
      left.cache = ctx.state.sortedMapState<TimeSlot>(INTERVAL_JOIN_STATE.left);
      right.cache = ctx.state.sortedMapState<TimeSlot>(INTERVAL_JOIN_STATE.right);
      left.timer = ctx.state.valueState<number>(INTERVAL_JOIN_STATE.leftTimer);
      right.timer = ctx.state.valueState<number>(INTERVAL_JOIN_STATE.rightTimer);
    },
    processBatch(batch, out, side: InputSide = 'left') {
      if (batch.length === 0) return;
      const input = side === 'right' ? right : left;
      const other = side === 'right' ? left : right;
      const keys: (string | undefined)[] = new Array<string | undefined>(batch.length);
      const times: number[] = new Array<number>(batch.length);
      const distinct = new Set<string>();
      const now = context!.timers.currentProcessingTime();
      const accepted: ChangeRow[] = [];
      for (const change of batch) {
        if (change.kind !== '+I') {
          throw new PlanError(`IntervalJoin doesn't support consuming update and delete changes, but got a ${change.kind} row: its inputs must be insert-only`);
        }
        let t: number;
        if (eventTime) {
          const v = change.row[input.timeColumn as string];
          if (typeof v !== 'number' || !Number.isFinite(v)) {
            context!.metrics.increment(WINDOW_METRICS.invalidRowtime);
            out.emitSide(INVALID_ROWTIME_TAG, change.row);
            continue;
          }
          t = v;
        } else {
          t = now;
        }
        const i = accepted.length;
        accepted.push(change);
        times[i] = t;
        if (!input.keys.read(change.row)) continue;
        const key = encodeKey(input.keys.current);
        keys[i] = key;
        distinct.add(key);
      }
      const loading = distinct.size === 0 ? undefined : context!.state.prefetch(distinct);
      if (loading !== undefined) return loading.then(() => processRows(accepted, keys, times, input, other, out));
      processRows(accepted, keys, times, input, other, out);
    },
    onTimer(timer, out) {
      onCleanup(timer, out);
    },
  };
}
