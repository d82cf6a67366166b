/**
 * The operator contract: one required method, `processBatch`; the other hooks are optional.
 *
 * Operators are batch-at-a-time so that a remote state backend can prefetch the keys of a whole
 * batch once (one await per batch, not per record) and the per-record path stays synchronous.
 */
import type { ChangeRow } from '../core/row.ts';
import type { Row } from '../core/types.ts';
import type { KeyedStateStore, Timer, TimerService } from '../state/state.ts';

/** Where an operator sends its results. */
export interface Output {
  /** Emits a changelog row to the next operator or sink. */
  emit(row: ChangeRow): void;
  /** Emits a row to a named side output (e.g. late data); counted and routed like a sink. */
  emitSide(tag: string, row: Row): void;
}

/** Counters an operator may bump; runtimes publish them (EMF on AWS, summary locally). */
export interface OperatorMetrics {
  increment(name: string, by?: number): void;
}

/** What an operator gets when it opens. */
export interface OperatorContext {
  /** Stable id of the operator in the job graph, e.g. `GroupAggregate_2`. */
  readonly operatorId: string;
  /** Index of the shard (partition) this instance serves, 0-based. */
  readonly shard: number;
  /** Number of shards of this operator's stage. */
  readonly parallelism: number;
  readonly state: KeyedStateStore;
  readonly timers: TimerService;
  readonly metrics: OperatorMetrics;
}

/**
 * Which input of a two-input operator (a join) a batch comes from, as Flink's
 * TwoInputStreamOperator has `processElement1` / `processElement2`. Single-input operators
 * only ever get `'left'` (their one input) and ignore it.
 */
export type InputSide = 'left' | 'right';

/** A streaming operator instance; one per shard. */
export interface Operator {
  /** Declares state and prepares. Called once before the first batch. */
  open(context: OperatorContext): Promise<void> | void;
  /**
   * Processes a batch of changelog rows in order. A two-input operator is told which input the
   * batch came from; a batch never mixes inputs.
   *
   * A row that cannot be processed because of its data throws a RecordError, and a failing
   * store a TransientError, *before the batch changes any state* (check rows first, as the
   * window and deduplicate operators do): the runtime then drops what the call emitted and runs
   * the rows again one by one (data error: the bad one is dead-lettered) or the call again
   * (transient), so every row is applied once (shared/runtime/stage-executor.ts). Its watermark (`onWatermark`, event-time
   * timers) is the minimum over both inputs, as Flink combines a two-input operator's watermarks.
   */
  processBatch(batch: readonly ChangeRow[], out: Output, side?: InputSide): Promise<void> | void;
  /**
   * Called when the operator's input watermark advances, after due event-time timers have
   * fired. Operators that emit watermark-dependent results without timers use this.
   */
  onWatermark?(watermark: number, out: Output): Promise<void> | void;
  /** Called for each due timer, in timestamp order. */
  onTimer?(timer: Timer, out: Output): Promise<void> | void;
  /** Called at the end of bounded input, after the final +∞ watermark. */
  finish?(out: Output): Promise<void> | void;
  /** Releases resources. */
  close?(): Promise<void> | void;
  /**
   * How far this operator's output may lag behind its input watermark, in ms: rows it emits may
   * carry event times up to this much older than the watermark it received (an interval join
   * emits old rows when their match arrives). The runtime forwards `watermark − delay`
   * downstream, as Flink's KeyedCoProcessOperatorWithWatermarkDelay does. @default 0
   */
  readonly outputWatermarkDelayMs?: number;
  /**
   * True for an operator that keeps no state and derives its output synchronously from each
   * input row alone (Calc, Map, Correlate, Union): running a row through it again has no effect but
   * its output, so the stage executor can trace a row that fails further down the chain back to
   * the stage's input record it came from (shared/runtime/stage-executor.ts). @default false
   */
  readonly rowwise?: boolean;
}

/** Builds an operator instance from its plain-data spec (see shared/plan/job-graph.ts). */
export type OperatorFactory<Spec> = (spec: Spec) => Operator;

/** Re-export so operator modules can import the timer types from one place. */
export type { Timer, TimerService, KeyedStateStore };
