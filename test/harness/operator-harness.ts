/**
 * A test harness for one operator instance, modelled on Flink's
 * KeyedOneInputStreamOperatorTestHarness, over the real {@link OperatorRunner}.
 *
 * The harness owns a manual processing-time clock (starting at 0) that drives both
 * processing-time timers and state TTL, so tests are deterministic. Output accumulates across
 * calls until {@link OperatorHarness.clearOutput} / {@link OperatorHarness.extractOutput}; every
 * driving method also returns the rows emitted by that call alone.
 *
 * @example
 * ```ts
 * const h = await OperatorHarness.open(() => new CountOperator());
 * await h.processElement(insert({ word: 'a' }));
 * await h.processElement(insert({ word: 'a' }));
 * expect(h.extractOutput()).toEqual([
 *   insert({ word: 'a', n: 1 }),
 *   updateBefore({ word: 'a', n: 1 }),
 *   updateAfter({ word: 'a', n: 2 }),
 * ]);
 * const saved = h.snapshot();
 * const h2 = await OperatorHarness.restore(() => new CountOperator(), saved);
 * await h2.processElement(insert({ word: 'a' }));   // continues from n = 2
 * ```
 */
import type { ChangeRow } from '../../shared/core/row.ts';
import type { Row } from '../../shared/core/types.ts';
import type { InputSide, Operator } from '../../shared/operators/operator.ts';
import type { OperatorSnapshot, MetricCounters } from '../../shared/runtime/operator-runner.ts';
import { OperatorRunner } from '../../shared/runtime/operator-runner.ts';
import type { MemoryStateStore } from '../../shared/state/memory-backend.ts';
import type { MemoryTimerService } from '../../shared/state/timer-service.ts';

/** Options of {@link OperatorHarness.open} and {@link OperatorHarness.restore}. */
export interface HarnessOptions {
  /** Operator id seen by the operator. Default `'operator-under-test'`, or the snapshot's. */
  readonly operatorId?: string;
  /** Shard index seen by the operator. Default 0, or the snapshot's. */
  readonly shard?: number;
  /** Parallelism seen by the operator. Default 1, or the snapshot's. */
  readonly parallelism?: number;
  /** Initial processing time (epoch ms). Default 0, or the processing time saved in the snapshot. */
  readonly processingTime?: number;
}

/** Drives one operator instance in a test; see the module documentation. */
export class OperatorHarness {
  /** The runner underneath, for anything the harness does not wrap. */
  readonly runner: OperatorRunner;
  private now: number;
  private out: ChangeRow[] = [];
  private readonly side = new Map<string, Row[]>();

  private constructor(factory: () => Operator, options: HarnessOptions, snapshot: OperatorSnapshot | undefined) {
    const saved = snapshot?.timers.processingTime;
    this.now = options.processingTime ?? (saved !== undefined && Number.isFinite(saved) ? saved : 0);
    this.runner = new OperatorRunner(factory, {
      operatorId: options.operatorId ?? snapshot?.operatorId ?? 'operator-under-test',
      shard: options.shard ?? snapshot?.shard ?? 0,
      parallelism: options.parallelism ?? snapshot?.parallelism ?? 1,
      clock: () => this.now,
      snapshot,
    });
  }

  /** Creates a fresh operator from `factory` and opens it. */
  static async open(factory: () => Operator, options: HarnessOptions = {}): Promise<OperatorHarness> {
    const harness = new OperatorHarness(factory, options, undefined);
    await harness.runner.open();
    return harness;
  }

  /**
   * Creates a fresh operator from `factory`, restores `snapshot` (from {@link snapshot}) into it
   * and opens it, so a test can continue where a previous harness left off. The snapshot can be
   * restored any number of times.
   */
  static async restore(
    factory: () => Operator,
    snapshot: OperatorSnapshot,
    options: HarnessOptions = {},
  ): Promise<OperatorHarness> {
    const harness = new OperatorHarness(factory, options, snapshot);
    await harness.runner.open();
    return harness;
  }

  /** Processes one row as a batch of one; returns the rows it emitted. */
  async processElement(row: ChangeRow): Promise<ChangeRow[]> {
    return this.record(await this.runner.processBatch([row]));
  }

  /** Processes each row as its own batch of one, in order; returns all rows emitted. */
  async processElements(...rows: ChangeRow[]): Promise<ChangeRow[]> {
    const emitted: ChangeRow[] = [];
    for (const row of rows) emitted.push(...(await this.processElement(row)));
    return emitted;
  }

  /** Processes `rows` as one batch (as a runtime would) of input `side`; returns the rows emitted. */
  async processBatch(rows: readonly ChangeRow[], side: InputSide = 'left'): Promise<ChangeRow[]> {
    return this.record(await this.runner.processBatch(rows, side));
  }

  /**
   * Two-input operators (Flink's TwoInputStreamOperatorTestHarness `processElement1`): each row
   * of the left input as its own batch, in order; returns all rows emitted.
   */
  async processLeft(...rows: ChangeRow[]): Promise<ChangeRow[]> {
    const emitted: ChangeRow[] = [];
    for (const row of rows) emitted.push(...this.record(await this.runner.processBatch([row], 'left')));
    return emitted;
  }

  /** Each row of the right input as its own batch (`processElement2`); returns all rows emitted. */
  async processRight(...rows: ChangeRow[]): Promise<ChangeRow[]> {
    const emitted: ChangeRow[] = [];
    for (const row of rows) emitted.push(...this.record(await this.runner.processBatch([row], 'right')));
    return emitted;
  }

  /** Advances the watermark, firing due event-time timers and `onWatermark`; returns emitted rows. */
  async processWatermark(watermark: number): Promise<ChangeRow[]> {
    return this.record(await this.runner.advanceWatermark(watermark));
  }

  /**
   * Moves the manual clock to `time` (never backwards) — which also ages TTL state — and fires
   * due processing-time timers; returns emitted rows.
   */
  async setProcessingTime(time: number): Promise<ChangeRow[]> {
    if (time > this.now) this.now = time;
    return this.record(await this.runner.setProcessingTime(this.now));
  }

  /** Ends the input: watermark +∞ (fires all event-time timers), then `finish`; returns emitted rows. */
  async endInput(): Promise<ChangeRow[]> {
    return this.record(await this.runner.finish());
  }

  /** Closes the operator. */
  async close(): Promise<void> {
    await this.runner.close();
    this.drainSide();
  }

  /** All rows emitted since creation or the last {@link clearOutput} / {@link extractOutput}. */
  output(): ChangeRow[] {
    return [...this.out];
  }

  /** Returns {@link output} and clears it. */
  extractOutput(): ChangeRow[] {
    const rows = this.out;
    this.out = [];
    return rows;
  }

  /** Forgets the main output collected so far. */
  clearOutput(): void {
    this.out = [];
  }

  /** Rows emitted to side output `tag` since creation or the last {@link extractSideOutput} of it. */
  sideOutput(tag: string): Row[] {
    return [...(this.side.get(tag) ?? [])];
  }

  /** Returns {@link sideOutput} of `tag` and clears it. */
  extractSideOutput(tag: string): Row[] {
    const rows = this.side.get(tag) ?? [];
    this.side.delete(tag);
    return rows;
  }

  /** A snapshot of state, timers, watermark and processing time, for {@link OperatorHarness.restore}. */
  snapshot(): OperatorSnapshot {
    return this.runner.snapshot();
  }

  /** The current watermark (-Infinity before the first one). */
  currentWatermark(): number {
    return this.runner.currentWatermark();
  }

  /** The manual clock's current processing time. */
  currentProcessingTime(): number {
    return this.now;
  }

  /** The operator's keyed state store (e.g. for `stats()` or `purgeExpired()`). */
  get state(): MemoryStateStore {
    return this.runner.memoryState;
  }

  /** The operator's timer service (e.g. to count pending timers). */
  get timers(): MemoryTimerService {
    return this.runner.timers;
  }

  /** The operator's metric counters. */
  get metrics(): MetricCounters {
    return this.runner.metrics;
  }

  private record(rows: ChangeRow[]): ChangeRow[] {
    for (const row of rows) this.out.push(row);
    this.drainSide();
    return rows;
  }

  private drainSide(): void {
    for (const [tag, rows] of this.runner.sideOutputs()) {
      const collected = this.side.get(tag);
      if (collected === undefined) this.side.set(tag, rows);
      else collected.push(...rows);
    }
  }
}
