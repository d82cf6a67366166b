/**
 * The runtime-neutral stage executor: owns one shard's operator chain and drives it with input
 * steps — rows, watermarks, processing-time ticks, end of input — applying the job's error
 * policy to every operator call. Every runtime drives its chains through it (the embedded
 * runtime, the Lambda stage handler, `flambda local` through that handler, and the benchmarks
 * through those), so rows, watermarks and errors go through one loop everywhere.
 *
 * ```
 *  rows ──► op 0 ──► op 1 ──► … ──► output rows      (a data error: the record is set aside)
 *  watermark / tick / finish: each op in turn; what it fires flows through the ops after it
 * ```
 *
 * Errors, by class (shared/core/errors.ts):
 * - a {@link RecordError} (bad CAST, division by zero, DECIMAL overflow, a null rowtime) is a
 *   data error of one record. Under `dead-letter` the executor runs the failed batch again one
 *   row at a time: the good rows pass in order, each bad one becomes a {@link RecordFailure}
 *   (reason, the operator, the row, and where the stage's input record came from); under `fail`
 *   the error stops the stage with the record's position and value in the message.
 *   This relies on the operator contract (operator.ts): a batch that raises a data error has
 *   changed no state, so running its rows again applies each good one once.
 * - a {@link TransientError} (throttling, a timeout, a dropped connection) is retried with
 *   backoff by the one retry module (core/retry.ts), the same operator call again; once the
 *   attempts are spent it propagates (a Lambda driver then retries the batch from its checkpoint).
 * - anything else is fatal: it propagates unchanged and stops the stage.
 */
import type { ChangeRow } from '../core/row.ts';
import type { Row } from '../core/types.ts';
import { DEFAULT_ERROR_POLICY, ERROR_POLICY_OPTION, RecordError, TransientError, type ErrorPolicy } from '../core/errors.ts';
import { retryPolicy, type RetryOptions, type RetryPolicy } from '../core/retry.ts';
import type { InputSide } from '../operators/operator.ts';
import { RUNNER_METRICS, type OperatorRunner } from './operator-runner.ts';

/** Where a stage's input record came from, for dead letters and error messages. */
export interface RecordOrigin {
  /** `file:line` (a JSON-lines input) or `stream/shard/sequence number` (Kinesis). */
  readonly position: string;
  /** The record as it was read. */
  readonly raw: string;
}

/** Finds the origin of a row of the batch handed to {@link StageExecutor.process}, when known. */
export type OriginOf<O extends RecordOrigin = RecordOrigin> = (row: ChangeRow) => O | undefined;

/** A record one operator could not process: it is set aside and the stage goes on. */
export interface RecordFailure<O extends RecordOrigin = RecordOrigin> {
  /** The error's message: what is wrong with the record. */
  readonly reason: string;
  /** The operator that raised it (its job-graph id). */
  readonly operator: string;
  /** The row the operator was given. */
  readonly row: ChangeRow;
  /**
   * Where the stage's input record came from: for one of the stage's input rows, or a row the
   * stateless row-by-row operators before the failing one (Calc, Map, Correlate, Union) derived from
   * it. Undefined for a row a stateful operator produced (see `producer`) and for rows whose
   * step has no origins (an exchange's rows in the embedded runtime).
   */
  readonly origin: O | undefined;
  /**
   * For a row without an origin that a stateful operator of the chain emitted: that operator and
   * what made it emit, e.g. `emitted by WindowAggregate_2 on watermark 1000`.
   */
  readonly producer?: string;
  readonly error: RecordError;
}

/** How the executor runs a chain. */
export interface StageExecutorOptions<O extends RecordOrigin = RecordOrigin> {
  /** What to do with a record that fails with a data error. @default 'dead-letter' */
  readonly errorPolicy?: ErrorPolicy;
  /** Receives every record set aside under `dead-letter`, in input order. */
  readonly onRecordFailure: (failure: RecordFailure<O>) => void;
  /**
   * Retries of an operator call that failed with a TransientError. @default 5 attempts,
   * 100 ms base, 5 s cap (maxAttempts 1: no retry here, the caller retries)
   */
  readonly retry?: RetryOptions;
  /** Names the stage shard in error messages, e.g. `stage 1 shard 0`. */
  readonly label?: string;
}

/** One step of a batch, as the chain runs it. */
export type ChainStep<O extends RecordOrigin = RecordOrigin> =
  | { readonly type: 'rows'; readonly rows: readonly ChangeRow[]; readonly side?: InputSide; readonly origin?: OriginOf<O> }
  | { readonly type: 'watermark'; readonly value: number }
  | { readonly type: 'processing-time'; readonly value: number }
  | { readonly type: 'finish' };

/**
 * The durable part of a batch, behind which the runtimes differ ({@link StageExecutor.runBatch}):
 * the embedded driver's `commit` does nothing (a bounded run is redone from its input); the
 * Lambda driver's is the checkpoint protocol of docs/effectively-once.md (announce, emit,
 * changelog segment, conditional checkpoint write — or hold the batch in its commit interval).
 */
export interface BatchPort<T> {
  /** Before the batch's first step. */
  begin(): Promise<void> | void;
  /** What the chain produced for one input item, in input order (no rows for an item the driver handles itself). */
  output(rows: readonly ChangeRow[], item: T): Promise<void> | void;
  /** After the batch's last step: makes the batch durable, as the runtime does. */
  commit(): Promise<void> | void;
}

/** Retries of transient failures when the driver gives none. */
const DEFAULT_RETRY = { maxAttempts: 5, baseDelayMs: 100 } as const;

/** Runs one shard's operator chain; see the module documentation. */
export class StageExecutor<O extends RecordOrigin = RecordOrigin> {
  /** The last input watermark the chain advanced to. */
  inputWatermark = -Infinity;
  /** The watermark the chain forwards: the input's, held back by operators that emit late rows. */
  outputWatermark = -Infinity;
  /** Records set aside under `dead-letter`. */
  recordFailures = 0;

  private readonly policy: ErrorPolicy;
  private readonly retry: RetryPolicy;

  constructor(
    readonly runners: readonly OperatorRunner[],
    private readonly options: StageExecutorOptions<O>,
  ) {
    this.policy = options.errorPolicy ?? DEFAULT_ERROR_POLICY;
    this.retry = retryPolicy(options.retry ?? {}, DEFAULT_RETRY);
  }

  /**
   * Pushes rows through the chain from operator `from` on (rows of input `side` for the first
   * operator of a two-input stage). `origin` tells where the given rows came from. Runners
   * return a fresh array per call and callers hand over arrays they no longer touch, so nothing
   * is copied.
   */
  async process(rows: readonly ChangeRow[], from = 0, side: InputSide = 'left', origin?: OriginOf<O>, trigger = 'on input'): Promise<readonly ChangeRow[]> {
    let current: readonly ChangeRow[] = rows;
    // The last stateful operator the rows went through (from − 1: the one that fired them).
    let producer = from - 1;
    for (let i = from; i < this.runners.length && current.length > 0; i++) {
      const runner = this.runners[i] as OperatorRunner;
      const at = i === from ? side : 'left';
      const batch = current;
      try {
        current = await this.attempt(() => runner.processBatch(batch, at));
      } catch (error) {
        if (!(error instanceof RecordError)) throw error;
        if (i === from) current = await this.isolate(runner, batch, at, error, origin, this.describe(producer, from, trigger));
        else if (producer < from && origin !== undefined) current = await this.trace(rows, from, i, side, origin);
        else current = await this.isolate(runner, batch, at, error, undefined, this.describe(producer, from, trigger));
      }
      if (!runner.rowwise) producer = i;
    }
    return current;
  }

  /**
   * Advances the chain's watermark; rows fired by timers flow through the rest of the chain.
   * Each operator passes on its input watermark held back by its output delay (an interval
   * join's), so rows it emits late are not late for the operators after it.
   */
  async advance(watermark: number): Promise<ChangeRow[]> {
    const out: ChangeRow[] = [];
    let wm = watermark;
    for (let i = 0; i < this.runners.length; i++) {
      const runner = this.runners[i] as OperatorRunner;
      const at = wm;
      const fired = await this.attempt(() => runner.advanceWatermark(at));
      if (fired.length > 0) push(out, await this.process(fired, i + 1, 'left', undefined, `on watermark ${at}`));
      wm = runner.outputWatermark(wm);
    }
    this.inputWatermark = watermark;
    this.outputWatermark = wm;
    return out;
  }

  /**
   * Advances processing time to `now` on the operators with processing-time timers due (window
   * early/late firing, processing-time windows); what they fire flows through the rest.
   */
  async tick(now: number): Promise<ChangeRow[]> {
    const out: ChangeRow[] = [];
    for (let i = 0; i < this.runners.length; i++) {
      const runner = this.runners[i] as OperatorRunner;
      const next = runner.timers.nextProcessingTimerTimestamp();
      if (next === undefined || next > now) continue;
      const fired = await this.attempt(() => runner.setProcessingTime(now));
      if (fired.length > 0) push(out, await this.process(fired, i + 1, 'left', undefined, `on processing time ${now}`));
    }
    return out;
  }

  /** Ends input: every operator's finish, in chain order. */
  async finish(): Promise<ChangeRow[]> {
    const out: ChangeRow[] = [];
    for (let i = 0; i < this.runners.length; i++) {
      const runner = this.runners[i] as OperatorRunner;
      const rows = await this.attempt(() => runner.finish());
      if (rows.length > 0) push(out, await this.process(rows, i + 1, 'left', undefined, 'at end of input'));
    }
    return out;
  }

  /**
   * Runs one batch: `port.begin()`, then each input item through the chain in order — `step`
   * says what the item is for the chain (undefined: the driver handles it, e.g. a dead letter
   * from decoding) and is called right before the item runs — handing what it produced to
   * `port.output`, then `port.commit()`. A failing step's error propagates as it is (the commit
   * is then not called); the last item given to `step` is the one that failed.
   */
  async runBatch<T>(items: Iterable<T>, step: (item: T) => ChainStep<O> | undefined, port: BatchPort<T>): Promise<void> {
    await port.begin();
    for (const item of items) {
      const chain = step(item);
      await port.output(chain === undefined ? [] : await this.run(chain), item);
    }
    await port.commit();
  }

  /** One chain step. */
  private run(step: ChainStep<O>): Promise<readonly ChangeRow[]> {
    switch (step.type) {
      case 'rows':
        return this.process(step.rows, 0, step.side ?? 'left', step.origin);
      case 'watermark':
        return this.advance(step.value);
      case 'processing-time':
        return this.tick(step.value);
      case 'finish':
        return this.finish();
    }
  }

  /** The side-output rows every operator emitted since the last call, by operator and tag. */
  sideOutputs(): { operatorId: string; tag: string; rows: Row[] }[] {
    const out: { operatorId: string; tag: string; rows: Row[] }[] = [];
    for (const runner of this.runners) {
      for (const [tag, rows] of runner.sideOutputs()) out.push({ operatorId: runner.operatorId, tag, rows });
    }
    return out;
  }

  /**
   * One operator's batch that raised a data error, under the error policy. The batch changed
   * nothing (the operator contract): each row again, alone, in order, so the good rows are
   * applied once and the bad one is known. `origin` finds a row's input record; `origin` (when
   * `row` is given) overrides it for every row — the one record all of `rows` derive from.
   */
  private async isolate(
    runner: OperatorRunner,
    rows: readonly ChangeRow[],
    side: InputSide,
    error: RecordError,
    origin: OriginOf<O> | undefined,
    producer: string | undefined,
    record?: O,
  ): Promise<ChangeRow[]> {
    const out: ChangeRow[] = [];
    for (const row of rows) {
      let failure = error;
      if (rows.length > 1) {
        try {
          push(out, await this.attempt(() => runner.processBatch([row], side)));
          continue;
        } catch (again) {
          if (!(again instanceof RecordError)) throw again;
          failure = again;
        }
      }
      const at = record ?? origin?.(row);
      const by = at === undefined ? producer : undefined;
      if (this.policy === 'fail') throw this.stopped(runner, failure, at, by);
      this.recordFailures++;
      this.options.onRecordFailure({ reason: failure.message, operator: runner.operatorId, row, origin: at, ...(by !== undefined ? { producer: by } : {}), error: failure });
    }
    return out;
  }

  /**
   * Operator `failed` raised a data error on rows that the stateless row-by-row operators
   * `from`…`failed − 1` derived from the stage's input `rows`. Runs each input row alone through
   * them again (that changes no state and gives the same rows) and then through the failing
   * operator, so a bad row is set aside with the input record it came from; returns the failing
   * operator's output for the whole batch, in order. Only on the failure path: the batch path
   * keeps no per-row lineage.
   */
  private async trace(rows: readonly ChangeRow[], from: number, failed: number, side: InputSide, origin: OriginOf<O>): Promise<ChangeRow[]> {
    const runner = this.runners[failed] as OperatorRunner;
    const out: ChangeRow[] = [];
    for (const row of rows) {
      let derived: readonly ChangeRow[] = [row];
      for (let j = from; j < failed && derived.length > 0; j++) derived = await this.again(this.runners[j] as OperatorRunner, derived, j === from ? side : 'left');
      if (derived.length === 0) continue;
      const batch = derived;
      try {
        push(out, await this.attempt(() => runner.processBatch(batch, 'left')));
      } catch (error) {
        if (!(error instanceof RecordError)) throw error;
        push(out, await this.isolate(runner, batch, 'left', error, undefined, undefined, origin(row)));
      }
    }
    return out;
  }

  /** A stateless operator's call run a second time: its counters are not counted twice. */
  private async again(runner: OperatorRunner, rows: readonly ChangeRow[], side: InputSide): Promise<ChangeRow[]> {
    const out = await this.attempt(() => runner.processBatch(rows, side));
    runner.metrics.increment(RUNNER_METRICS.recordsIn, -rows.length);
    if (out.length > 0) runner.metrics.increment(RUNNER_METRICS.recordsOut, -out.length);
    return out;
  }

  /** Names the stateful operator that emitted rows without an origin, and what made it emit them. */
  private describe(producer: number, from: number, trigger: string): string | undefined {
    const runner = this.runners[producer];
    if (runner === undefined) return undefined;
    return `emitted by ${runner.operatorId} ${producer === from - 1 ? trigger : 'on input'}`;
  }

  /** The error that stops the stage under `fail`: the record's problem, where it came from, and what to do. */
  private stopped(runner: OperatorRunner, error: RecordError, origin: RecordOrigin | undefined, producer: string | undefined): RecordError {
    const position = origin?.position ?? error.position;
    const where = [position, this.options.label, producer, `operator ${runner.operatorId}`].filter((p) => p !== undefined).join(', ');
    return new RecordError(`${error.message} (${where}); ${ERROR_POLICY_OPTION} is 'fail': fix the record, or set it to 'dead-letter' to set such records aside`, {
      ...(error.field !== undefined ? { field: error.field } : {}),
      ...(position !== undefined ? { position } : {}),
      cause: error,
    });
  }

  /** Runs one operator call, again after a transient failure (with backoff) while attempts remain. */
  private async attempt<T>(call: () => Promise<T>): Promise<T> {
    for (let failures = 0; ; ) {
      try {
        return await call();
      } catch (error) {
        failures++;
        if (!(error instanceof TransientError) || failures >= this.retry.maxAttempts) throw error;
        await this.retry.sleep(this.retry.delay(failures));
      }
    }
  }
}

function push<T>(into: T[], rows: readonly T[]): void {
  for (const row of rows) into.push(row);
}
