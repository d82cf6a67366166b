/**
 * Drives one operator instance on one shard: owns its state store, timer service, metrics and
 * output collection, and turns runtime events (a batch, a watermark, a processing-time tick,
 * end of input) into operator calls — the role of Flink's StreamTask around one operator.
 *
 * Every driving method returns the rows the operator emitted during that call, in order.
 * Side-output rows are collected separately and drained with {@link OperatorRunner.sideOutputs}.
 *
 * Calls must not overlap (await each before the next); an overlapping call throws, because
 * interleaving two batches over the same keyed state would corrupt it.
 */
import type { ChangeRow } from '../core/row.ts';
import type { Row } from '../core/types.ts';
import { FlambdaError, PlanError } from '../core/errors.ts';
import type { InputSide, Operator, OperatorContext, OperatorMetrics, Output, Timer } from '../operators/operator.ts';
import type { Clock, StateSnapshot } from '../state/memory-backend.ts';
import { MemoryStateStore } from '../state/memory-backend.ts';
import type { TimerSnapshot } from '../state/timer-service.ts';
import { MemoryTimerService } from '../state/timer-service.ts';
import type { KeyedStateStore } from '../state/state.ts';

/** Everything needed to resume an operator instance: keyed state, timers and watermark. */
export interface OperatorSnapshot {
  readonly format: 'flambda.operator.v1';
  readonly operatorId: string;
  readonly shard: number;
  readonly parallelism: number;
  readonly state: StateSnapshot;
  /** Pending timers plus the watermark and processing time reached. */
  readonly timers: TimerSnapshot;
}

/** How to run an operator instance. */
export interface OperatorRunnerOptions {
  /** Stable id of the operator in the job graph. */
  readonly operatorId: string;
  /** Index of the shard this instance serves, 0-based. */
  readonly shard: number;
  /** Number of shards of the operator's stage. */
  readonly parallelism: number;
  /** Processing-time clock (epoch ms) for TTL and processing time; `Date.now` by default. */
  readonly clock?: Clock;
  /** Resume from this snapshot instead of starting empty; it must be of the same operator and shard. */
  readonly snapshot?: OperatorSnapshot;
  /**
   * Use this keyed state store (e.g. the DynamoDB backend, whose caller flushes it) instead of a
   * fresh memory store. Such a runner cannot snapshot: the store persists itself.
   */
  readonly state?: KeyedStateStore;
}

/** Operator metrics as plain counters: a `Map` from metric name to its running total. */
export class MetricCounters extends Map<string, number> implements OperatorMetrics {
  /** Adds `by` (default 1) to the counter `name`. */
  increment(name: string, by = 1): void {
    this.set(name, (this.get(name) ?? 0) + by);
  }
}

/** Names of the counters the runner itself maintains (Flink's task I/O metric names). */
export const RUNNER_METRICS = {
  recordsIn: 'numRecordsIn',
  recordsOut: 'numRecordsOut',
  sideRecordsOut: 'numSideRecordsOut',
  timersFired: 'numTimersFired',
} as const;

/**
 * The collector handed to the operator. One instance per runner; each driving call swaps in a
 * fresh `rows` array, so emitting is a plain push with no per-row allocation or closure.
 */
class CollectingOutput implements Output {
  rows: ChangeRow[] = [];
  side = new Map<string, Row[]>();

  constructor(private readonly metrics: MetricCounters) {}

  emit(row: ChangeRow): void {
    this.rows.push(row);
  }

  /** Side rows are rare (late data, errors), so counting each one here costs nothing noticeable. */
  emitSide(tag: string, row: Row): void {
    this.metrics.increment(RUNNER_METRICS.sideRecordsOut);
    const rows = this.side.get(tag);
    if (rows === undefined) this.side.set(tag, [row]);
    else rows.push(row);
  }
}

type Phase = 'created' | 'open' | 'finished' | 'closed';

function lifecycleError(message: string): FlambdaError {
  return new FlambdaError(message, 'internal', 'fail');
}

/**
 * Sees the rows going into and coming out of one operator runner. Set on
 * {@link OperatorRunner.tap} by an observer; called synchronously, so it must only copy
 * references (rows are immutable once emitted) and return.
 */
export interface RunnerTap {
  input(runner: OperatorRunner, rows: readonly ChangeRow[]): void;
  output(runner: OperatorRunner, rows: readonly ChangeRow[]): void;
}

/** Runs one operator instance on one shard; see the module documentation. */
export class OperatorRunner {
  readonly operatorId: string;
  readonly shard: number;
  readonly parallelism: number;
  /** The keyed state the operator uses. */
  readonly state: KeyedStateStore;
  /** The memory store when the runner owns its state (undefined with an external store). */
  private readonly memory: MemoryStateStore | undefined;
  /** The instance's timers; exposed for inspection and tests. */
  readonly timers: MemoryTimerService;
  /** Counters bumped by the operator and by the runner ({@link RUNNER_METRICS}). */
  readonly metrics = new MetricCounters();
  /** Sees the rows of every driving call (the job page's edge taps); unset unless an edge is tapped. */
  tap: RunnerTap | undefined;

  private readonly clock: Clock;
  private readonly output = new CollectingOutput(this.metrics);
  private operator: Operator | undefined;
  private phase: Phase = 'created';
  private busy = false;

  constructor(
    private readonly operatorFactory: () => Operator,
    options: OperatorRunnerOptions,
  ) {
    this.operatorId = options.operatorId;
    this.shard = options.shard;
    this.parallelism = options.parallelism;
    this.clock = options.clock ?? Date.now;
    const snapshot = options.snapshot;
    if (options.state !== undefined && snapshot !== undefined) {
      throw new PlanError(`Operator ${this.operatorId}: a runner restores from a snapshot or uses an external state store, not both`);
    }
    if (snapshot === undefined) {
      this.memory = options.state === undefined ? new MemoryStateStore(this.clock) : undefined;
      this.state = options.state ?? (this.memory as MemoryStateStore);
      this.timers = new MemoryTimerService(this.clock());
    } else {
      this.checkSnapshot(snapshot);
      this.memory = MemoryStateStore.restore(snapshot.state, this.clock);
      this.state = this.memory;
      this.timers = MemoryTimerService.restore(snapshot.timers);
      // Processing time after a restore is the wall clock again (never earlier than saved), so
      // overdue processing-time timers fire on the next tick, as in Flink.
      this.timers.setProcessingTime(this.clock());
    }
  }

  /** Whether the operator derives each output row from one input row and keeps no state ({@link Operator.rowwise}). */
  get rowwise(): boolean {
    return this.operator?.rowwise === true;
  }

  /** Creates the operator and opens it with this runner's context. */
  async open(): Promise<void> {
    if (this.phase !== 'created') throw lifecycleError(`Operator ${this.operatorId} is already open`);
    this.enter();
    try {
      const operator = this.operatorFactory();
      const context: OperatorContext = {
        operatorId: this.operatorId,
        shard: this.shard,
        parallelism: this.parallelism,
        state: this.state,
        timers: this.timers,
        metrics: this.metrics,
      };
      const pending = operator.open(context);
      if (pending !== undefined) await pending;
      this.operator = operator;
      this.phase = 'open';
    } finally {
      this.busy = false;
    }
  }

  /**
   * Feeds one batch of changelog rows (of input `side` for a two-input operator); returns the
   * rows emitted while processing it.
   */
  async processBatch(rows: readonly ChangeRow[], side: InputSide = 'left'): Promise<ChangeRow[]> {
    const operator = this.begin('processBatch');
    // Side rows of earlier calls not drained yet are kept apart, so a failing batch's can be dropped.
    const earlierSide = this.output.side;
    const hadSide = earlierSide.size > 0;
    if (hadSide) this.output.side = new Map();
    try {
      this.timers.setProcessingTime(this.clock());
      const pending = operator.processBatch(rows, this.output, side);
      if (pending !== undefined) await pending;
      if (hadSide) this.output.side = mergeSide(earlierSide, this.output.side);
      this.metrics.increment(RUNNER_METRICS.recordsIn, rows.length);
      this.tap?.input(this, rows);
      return this.collect();
    } catch (error) {
      // A batch that fails emitted nothing: a data error changed no state (the operator
      // contract), and the executor runs its rows again one by one.
      this.output.rows = [];
      this.output.side = hadSide ? earlierSide : new Map();
      throw error;
    } finally {
      this.busy = false;
    }
  }

  /**
   * Advances the event-time watermark: fires every due event-time timer in timestamp order
   * (including ones registered while firing), then calls `onWatermark`. A watermark that does
   * not advance is ignored, as Flink's StatusWatermarkValve only forwards increasing ones.
   */
  async advanceWatermark(watermark: number): Promise<ChangeRow[]> {
    const operator = this.begin('advanceWatermark');
    try {
      if (Number.isNaN(watermark)) throw lifecycleError('Watermark must be a number, got NaN');
      this.timers.setProcessingTime(this.clock());
      if (watermark > this.timers.currentWatermark()) await this.advanceTo(operator, watermark);
      return this.collect();
    } finally {
      this.busy = false;
    }
  }

  /** Advances processing time to `time` (regressions ignored) and fires due processing-time timers. */
  async setProcessingTime(time: number): Promise<ChangeRow[]> {
    const operator = this.begin('setProcessingTime');
    try {
      this.timers.setProcessingTime(time);
      await this.fireDue(operator, 'processing');
      return this.collect();
    } finally {
      this.busy = false;
    }
  }

  /**
   * Ends bounded input: advances the watermark to +∞ (firing all event-time timers) and then
   * calls `finish`, matching Flink's MAX_WATERMARK-then-finish() order. Pending processing-time
   * timers are not fired, as Flink drops them when a bounded job finishes.
   */
  async finish(): Promise<ChangeRow[]> {
    const operator = this.begin('finish');
    try {
      this.timers.setProcessingTime(this.clock());
      if (this.timers.currentWatermark() < Infinity) await this.advanceTo(operator, Infinity);
      if (operator.finish !== undefined) {
        const pending = operator.finish(this.output);
        if (pending !== undefined) await pending;
      }
      this.phase = 'finished';
      return this.collect();
    } finally {
      this.busy = false;
    }
  }

  /** Closes the operator; the runner accepts no further calls except snapshot and sideOutputs. */
  async close(): Promise<void> {
    if (this.phase === 'closed') return;
    this.enter();
    try {
      const operator = this.operator;
      this.phase = 'closed';
      if (operator?.close !== undefined) {
        const pending = operator.close();
        if (pending !== undefined) await pending;
      }
    } finally {
      this.busy = false;
    }
  }

  /**
   * Returns the side-output rows emitted since the last call, by tag in first-emission order,
   * and forgets them: the caller routes them (late-data sinks, dead letters).
   */
  sideOutputs(): Map<string, Row[]> {
    const drained = this.output.side;
    this.output.side = new Map();
    return drained;
  }

  /** The current event-time watermark (-Infinity before the first one). */
  currentWatermark(): number {
    return this.timers.currentWatermark();
  }

  /**
   * The watermark this operator forwards for input watermark `watermark`: held back by the
   * operator's {@link Operator.outputWatermarkDelayMs}, so rows it emits late are not late
   * downstream. ±∞ pass unchanged (end of input still ends every window downstream).
   */
  outputWatermark(watermark: number): number {
    const delay = this.operator?.outputWatermarkDelayMs ?? 0;
    return delay > 0 && Number.isFinite(watermark) ? watermark - delay : watermark;
  }

  /** The runner's own memory store (stats, TTL purging in tests); fails with an external store. */
  get memoryState(): MemoryStateStore {
    if (this.memory === undefined) throw lifecycleError(`Operator ${this.operatorId} uses an external state store`);
    return this.memory;
  }

  /** A deep, structuredClone-able copy of state, timers and watermark; not allowed mid-call. */
  snapshot(): OperatorSnapshot {
    if (this.busy) throw lifecycleError(`Cannot snapshot operator ${this.operatorId} during a call`);
    return {
      format: 'flambda.operator.v1',
      operatorId: this.operatorId,
      shard: this.shard,
      parallelism: this.parallelism,
      state: this.memoryState.snapshot(),
      timers: this.timers.snapshot(),
    };
  }

  private checkSnapshot(snapshot: OperatorSnapshot): void {
    if (snapshot.format !== 'flambda.operator.v1') {
      throw new PlanError(`Unsupported operator snapshot format '${String(snapshot.format)}'`);
    }
    // Keyed state is partitioned by shard; restoring it elsewhere would serve the wrong keys.
    if (
      snapshot.operatorId !== this.operatorId ||
      snapshot.shard !== this.shard ||
      snapshot.parallelism !== this.parallelism
    ) {
      throw new PlanError(
        `Snapshot of ${snapshot.operatorId} shard ${snapshot.shard}/${snapshot.parallelism} cannot be restored ` +
          `into ${this.operatorId} shard ${this.shard}/${this.parallelism}`,
      );
    }
  }

  private enter(): void {
    if (this.busy) throw lifecycleError(`Operator ${this.operatorId}: a previous call has not completed`);
    this.busy = true;
  }

  /** Checks the runner can take a driving call, marks it busy and starts a fresh output array. */
  private begin(call: string): Operator {
    if (this.phase !== 'open' || this.operator === undefined) {
      throw lifecycleError(`Operator ${this.operatorId}: ${call} called while ${this.phase}`);
    }
    this.enter();
    this.output.rows = [];
    return this.operator;
  }

  /** Hands over the rows of the current call. */
  private collect(): ChangeRow[] {
    const rows = this.output.rows;
    this.output.rows = [];
    if (rows.length > 0) {
      this.metrics.increment(RUNNER_METRICS.recordsOut, rows.length);
      this.tap?.output(this, rows);
    }
    return rows;
  }

  private async advanceTo(operator: Operator, watermark: number): Promise<void> {
    this.timers.setWatermark(watermark);
    await this.fireDue(operator, 'event');
    if (operator.onWatermark !== undefined) {
      const pending = operator.onWatermark(watermark, this.output);
      if (pending !== undefined) await pending;
    }
  }

  /**
   * Fires the due timers of a domain in timestamp order, including those registered while
   * firing. Before a timer of a key that was not prefetched fires, the keys of every due timer
   * are prefetched in one call, so the operator's `onTimer` can read state synchronously on a
   * remote backend too (the memory backend's prefetch returns at once).
   */
  private async fireDue(operator: Operator, domain: 'event' | 'processing'): Promise<void> {
    const peek = domain === 'event' ? () => this.timers.peekDueEventTimer() : () => this.timers.peekDueProcessingTimer();
    const pop = domain === 'event' ? () => this.timers.popDueEventTimer() : () => this.timers.popDueProcessingTimer();
    let prefetched: Set<string> | undefined;
    for (let next = peek(); next !== undefined; next = peek()) {
      if (this.memory === undefined && prefetched?.has(next.key) !== true) {
        const keys = this.timers.dueKeys(domain);
        const loading = this.state.prefetch(keys);
        if (loading !== undefined) await loading;
        if (prefetched === undefined) prefetched = keys;
        else for (const key of keys) prefetched.add(key);
      }
      const timer = pop() as Timer;
      const pending = this.fire(operator, timer);
      if (pending !== undefined) await pending;
    }
  }

  /** Calls `onTimer`; synchronous operators get no extra await per timer. */
  private fire(operator: Operator, timer: Timer): Promise<void> | void {
    if (operator.onTimer === undefined) {
      throw lifecycleError(`Operator ${this.operatorId} registered a timer but has no onTimer`);
    }
    this.metrics.increment(RUNNER_METRICS.timersFired);
    return operator.onTimer(timer, this.output);
  }
}

/** Appends the side rows of `later` to `earlier`, tag by tag; returns `earlier`. */
function mergeSide(earlier: Map<string, Row[]>, later: ReadonlyMap<string, Row[]>): Map<string, Row[]> {
  for (const [tag, rows] of later) {
    const kept = earlier.get(tag);
    if (kept === undefined) earlier.set(tag, rows);
    else for (const row of rows) kept.push(row);
  }
  return earlier;
}
