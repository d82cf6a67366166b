/**
 * The Lambda handler of one stage: turns one shard's `KinesisStreamEvent` into operator calls,
 * sends the stage's output (a Kinesis exchange, or a sink callback) and writes operator state to
 * DynamoDB.
 *
 * ```
 *  KinesisStreamEvent (one shard) ─► StageInputReader (per shard) ─► steps
 *     rows            ─► operator chain (one OperatorRunner per operator, DynamoDbStateStore each)
 *     watermark       ─► advance every operator in chain order; fired rows flow down the rest
 *     processing-time ─► fire processing-time timers the same way
 *     dead-letter     ─► collected, handed to `onDeadLetters`
 *  end of batch: output rows ─► KinesisStageWriter (one bundle range = the batch's records) or sink
 *                dead letters ─► onDeadLetters
 *                every state store ─► flush()
 * ```
 *
 * One {@link StageHandler} is built per cold start; it keeps one "shard task" (reader, runners,
 * stores, writer) per input shard id, so a warm container keeps its state cache and reader
 * position across batches of that shard. Lambda never runs two batches of one shard at once.
 *
 * DELIVERY GUARANTEE: AT-LEAST-ONCE ONLY. The effectively-once checkpoint/commit protocol
 * (a per-shard checkpoint item committed with the state writes, fencing of zombie invocations
 * by a lease/epoch, persisted reader snapshots and timers) is NOT implemented yet. What that
 * means today:
 * - Output is sent before state is flushed. A failure between the two (or a timeout) makes the
 *   retry send the output again. An exchange receiver drops the re-sent bundles as duplicates
 *   only when the retried batch has exactly the same records (same bundle ids); when Lambda
 *   retries with other batch boundaries, the receiver sees bundles overlapping what it applied
 *   and dead-letters them (`overlapping-range`), so their rows miss the downstream state. A sink
 *   sees the rows twice.
 * - A failure in the middle of the state flush leaves some keys written and others not; the
 *   retried records are then applied twice to the written keys (double counting).
 * - The reader's position, channel watermarks and high-water marks and the operators' timers
 *   live only in this container's memory. A cold start (new container, a shard moving to
 *   another container, a crash) starts them empty: exchange duplicates that arrive after a cold
 *   start are not recognised, event-time timers are lost and watermarks restart from −∞.
 * - Two invocations for one shard (a timed-out one still running while Lambda retries) are not
 *   fenced: both write state and output.
 *
 * Failures. When processing fails at some step, the work of the batch is discarded (state
 * caches invalidated, the shard task rebuilt with the reader rewound to the batch start) and, if
 * some records precede the failing one, those records are run again on the fresh task and
 * committed (output, dead letters, flush), and the handler returns `batchItemFailures` with the
 * failing step's first record, so Lambda retries from there. When nothing can be committed
 * (failure at the first record, or while sending output or flushing) the whole batch is
 * reported failed (its first record).
 */
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { KinesisStreamBatchResponse, KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';
import { FlambdaError, PlanError } from '../../core/errors.ts';
import type { ChangeRow } from '../../core/row.ts';
import type { Row, Schema } from '../../core/types.ts';
import type { JobGraph, JobStage } from '../../plan/job-graph.ts';
import { createOperator } from '../../operators/registry.ts';
import type { UserCode } from '../../operators/registry.ts';
import { KinesisStageWriter } from '../kinesis/kinesis-writer.ts';
import { DynamoDbStateStore } from '../state/dynamodb-state-store.ts';
import type { DynamoDbStateStoreOptions } from '../state/dynamodb-state-store.ts';
import type { DynamoDbSender } from '../state/table-io.ts';
import { createStageInputReader } from '../stage-input/create-reader.ts';
import { shardIdOf } from '../stage-input/kinesis-records.ts';
import type { DeadLetter, InputStep, StageInputReader, StageInputSnapshot } from '../stage-input/types.ts';
import { OperatorRunner } from '../../runtime/operator-runner.ts';

/** What a sink callback receives with one batch of rows. */
export interface SinkBatchInfo {
  /** The sink's name in the job graph. */
  readonly sink: string;
  /** The stage writing it. */
  readonly stage: string;
  /** The input shard id whose batch produced the rows. */
  readonly shardId: string;
  /** First and last input sequence numbers the rows derive from. */
  readonly first: string;
  readonly last: string;
}

/** Receives a stage's sink output, once per committed batch (at-least-once: may repeat). */
export type SinkCallback = (rows: readonly ChangeRow[], info: SinkBatchInfo) => Promise<void> | void;

/** Receives the dead letters of a committed batch (SQS wiring comes later). */
export type DeadLetterCallback = (letters: readonly DeadLetter[]) => Promise<void> | void;

/** Receives side-output rows (e.g. late data) of a committed batch, by tag. */
export type SideOutputCallback = (tag: string, rows: readonly Row[], info: { readonly stage: string; readonly operatorId: string; readonly shardId: string }) => Promise<void> | void;

/** Options of {@link StageHandler}. */
export interface StageHandlerOptions {
  /** The job graph. */
  readonly graph: JobGraph;
  /** The id of the stage this function runs. */
  readonly stageId: string;
  /** The pipeline module's user functions. */
  readonly code: UserCode;
  /** DynamoDB client for the state table. */
  readonly dynamoDb: DynamoDbSender;
  /** The state table. */
  readonly tableName: string;
  /** Kinesis client for the exchange output; required when the stage writes an exchange. */
  readonly kinesis?: KinesisClient;
  /** Stream name per downstream stage id; required when the stage writes an exchange. */
  readonly outputStreams?: ReadonlyMap<string, string>;
  /** Sink output; required when the stage writes a sink. */
  readonly sink?: SinkCallback;
  /** Dead letters. @default - dropped (only counted in {@link StageHandler.stats}) */
  readonly onDeadLetters?: DeadLetterCallback;
  /** Side outputs. @default - dropped */
  readonly onSideOutput?: SideOutputCallback;
  /** Logs a failure that was turned into `batchItemFailures`. @default console.error */
  readonly onError?: (error: unknown, shardId: string) => void;
  /** Processing-time clock. @default Date.now */
  readonly clock?: () => number;
  /** Extra state-store options (cache bounds, concurrency, retries). */
  readonly stateStore?: Omit<DynamoDbStateStoreOptions, 'client' | 'tableName' | 'operatorId' | 'keyGroups' | 'clock'>;
}

/** Counters of a {@link StageHandler}, summed over its shards. */
export interface StageHandlerStats {
  /** Invocations handled. */
  invocations: number;
  /** Records received. */
  records: number;
  /** Rows sent to the output (exchange or sink). */
  outputRows: number;
  /** Dead letters handed over. */
  deadLetters: number;
  /** Invocations that returned `batchItemFailures`. */
  failedBatches: number;
}

/** The per-shard working set of a warm container. */
interface ShardTask {
  readonly shardId: string;
  readonly reader: StageInputReader;
  readonly runners: readonly OperatorRunner[];
  readonly stores: readonly DynamoDbStateStore[];
  readonly writer: KinesisStageWriter | undefined;
  /** The chain's output watermark: the last watermark advanced through every operator. */
  watermark: number;
}

/** What running a batch's steps produced, before it is committed. */
interface StepResult {
  readonly rows: ChangeRow[];
  readonly letters: DeadLetter[];
  readonly side: { operatorId: string; tag: string; rows: Row[] }[];
}

/** Marks where processing failed, so the handler can commit the records before it. */
class StepFailure extends Error {
  constructor(
    /** The first record of the failing step. */
    readonly sequenceNumber: string,
    readonly original: unknown,
  ) {
    super('step failed', { cause: original });
  }
}

/** A stage's Lambda handler; see the module documentation. */
export class StageHandler {
  /** The stage this handler runs. */
  readonly stage: JobStage;
  private readonly options: StageHandlerOptions;
  private readonly clock: () => number;
  private readonly tasks = new Map<string, ShardTask>();
  private readonly counters: StageHandlerStats = { invocations: 0, records: 0, outputRows: 0, deadLetters: 0, failedBatches: 0 };

  /** @throws PlanError when the stage is unknown or its output is not wired (stream name, client, sink). */
  constructor(options: StageHandlerOptions) {
    const stage = options.graph.stages.find((s) => s.id === options.stageId);
    if (stage === undefined) throw new PlanError(`stage '${options.stageId}' is not in job graph '${options.graph.name}'`);
    const output = stage.output;
    if (output.type === 'exchange') {
      if (options.kinesis === undefined) throw new PlanError(`stage ${stage.id} writes an exchange: give a Kinesis client`);
      if (options.outputStreams?.get(output.toStage) === undefined) {
        throw new PlanError(`stage ${stage.id} writes the exchange to ${output.toStage}: give its stream name in outputStreams`);
      }
    } else if (options.sink === undefined) {
      throw new PlanError(`stage ${stage.id} writes sink '${output.sink}': give a sink callback`);
    }
    this.stage = stage;
    this.options = options;
    this.clock = options.clock ?? Date.now;
  }

  /** Counters since creation. */
  stats(): StageHandlerStats {
    return { ...this.counters };
  }

  /** The Lambda entry point, bound: `export const handler = stageHandler.handler`. */
  readonly handler = (event: KinesisStreamEvent): Promise<KinesisStreamBatchResponse> => this.handle(event);

  /**
   * Handles one batch of one shard (Lambda's Kinesis event source mapping never mixes shards).
   * Resolves with an empty `batchItemFailures` when the whole batch was committed, or with the
   * first record to retry; rejects only for a malformed event (records of several shards).
   */
  async handle(event: KinesisStreamEvent): Promise<KinesisStreamBatchResponse> {
    const records = event.Records;
    this.counters.invocations++;
    if (records.length === 0) return { batchItemFailures: [] };
    this.counters.records += records.length;
    const shardId = shardIdOf(records[0] as KinesisStreamRecord);
    for (const record of records) {
      if (shardIdOf(record) !== shardId) {
        throw new FlambdaError(`one event holds records of shards ${shardId} and ${shardIdOf(record)}`, 'internal', 'fail');
      }
    }
    let task = this.tasks.get(shardId);
    if (task === undefined) {
      task = await this.createTask(shardId, undefined);
      this.tasks.set(shardId, task);
    }
    const before = task.reader.snapshot();
    const watermarkBefore = task.watermark;
    // Where to retry from; failures while sending output or flushing leave output half sent
    // and state half written, so only a retry of the whole batch (index 0) helps there.
    let failedAt = 0;
    try {
      await this.commit(task, await this.run(task, records), records);
      return { batchItemFailures: [] };
    } catch (error) {
      const failure = error instanceof StepFailure ? error : undefined;
      (this.options.onError ?? defaultOnError)(failure?.original ?? error, shardId);
      if (failure !== undefined) failedAt = Math.max(0, indexOf(records, failure.sequenceNumber));
    }
    this.counters.failedBatches++;
    return { batchItemFailures: [{ itemIdentifier: await this.recover(shardId, task, { reader: before, watermark: watermarkBefore }, records, failedAt) }] };
  }

  /**
   * Replaces the shard's task by a fresh one rewound to `before`, commits `records[0..failedAt)`
   * on it when there are any, and returns the sequence number Lambda must retry from.
   */
  private async recover(
    shardId: string,
    failed: ShardTask,
    before: { readonly reader: StageInputSnapshot; readonly watermark: number },
    records: readonly KinesisStreamRecord[],
    failedAt: number,
  ): Promise<string> {
    this.tasks.delete(shardId);
    // The failed task's caches hold uncommitted changes; nothing of it may be reused.
    for (const store of failed.stores) store.invalidate();
    const first = (records[0] as KinesisStreamRecord).kinesis.sequenceNumber;
    try {
      const fresh = await this.createTask(shardId, before.reader);
      fresh.watermark = before.watermark;
      this.tasks.set(shardId, fresh);
      if (failedAt === 0) return first;
      const prefix = records.slice(0, failedAt);
      try {
        await this.commit(fresh, await this.run(fresh, prefix), prefix);
      } catch (error) {
        (this.options.onError ?? defaultOnError)(error, shardId);
        const again = await this.createTask(shardId, before.reader);
        again.watermark = before.watermark;
        this.tasks.set(shardId, again);
        return first;
      }
      return (records[failedAt] as KinesisStreamRecord).kinesis.sequenceNumber;
    } catch (error) {
      // Even the rebuild failed (e.g. the table is unreachable): the next batch starts cold.
      (this.options.onError ?? defaultOnError)(error, shardId);
      this.tasks.delete(shardId);
      return first;
    }
  }

  /** Reads the records and runs their steps through the chain; throws StepFailure. */
  private async run(task: ShardTask, records: readonly KinesisStreamRecord[]): Promise<StepResult> {
    const batch = task.reader.read(records);
    const result: StepResult = { rows: [], letters: [], side: [] };
    for (const step of batch.steps) {
      try {
        switch (step.type) {
          case 'rows':
            push(result.rows, await this.through(task, step.rows, 0));
            break;
          case 'watermark':
            push(result.rows, await this.advance(task, (runner) => runner.advanceWatermark(step.value)));
            task.watermark = step.value;
            break;
          case 'processing-time':
            push(result.rows, await this.advance(task, (runner) => runner.setProcessingTime(step.value)));
            break;
          case 'dead-letter':
            result.letters.push(step.letter);
            break;
        }
      } catch (error) {
        throw new StepFailure(firstSequenceOf(step), error);
      }
      for (const runner of task.runners) {
        for (const [tag, rows] of runner.sideOutputs()) result.side.push({ operatorId: runner.operatorId, tag, rows });
      }
    }
    return result;
  }

  /** Pushes rows through the chain from operator `from` on. */
  private async through(task: ShardTask, rows: readonly ChangeRow[], from: number): Promise<readonly ChangeRow[]> {
    let current = rows;
    for (let i = from; i < task.runners.length && current.length > 0; i++) {
      current = await (task.runners[i] as OperatorRunner).processBatch(current);
    }
    return current;
  }

  /** Calls `drive` on every operator in chain order; what one emits flows through the rest. */
  private async advance(task: ShardTask, drive: (runner: OperatorRunner) => Promise<ChangeRow[]>): Promise<ChangeRow[]> {
    const out: ChangeRow[] = [];
    for (let i = 0; i < task.runners.length; i++) {
      const fired = await drive(task.runners[i] as OperatorRunner);
      if (fired.length > 0) push(out, await this.through(task, fired, i + 1));
    }
    return out;
  }

  /**
   * Sends the output (before the flush: at-least-once, never a flushed state whose output was
   * lost), hands over dead letters and side outputs, then flushes every store.
   */
  private async commit(task: ShardTask, result: StepResult, records: readonly KinesisStreamRecord[]): Promise<void> {
    const first = (records[0] as KinesisStreamRecord).kinesis.sequenceNumber;
    const last = (records[records.length - 1] as KinesisStreamRecord).kinesis.sequenceNumber;
    const output = this.stage.output;
    if (task.writer !== undefined) {
      // Written even without rows when the watermark moved, so downstream watermarks advance.
      if (result.rows.length > 0 || task.watermark > -Infinity) {
        await task.writer.write({ first, last, rows: result.rows, watermark: task.watermark });
      }
    } else if (output.type === 'sink' && result.rows.length > 0) {
      await (this.options.sink as SinkCallback)(result.rows, { sink: output.sink, stage: this.stage.id, shardId: task.shardId, first, last });
    }
    this.counters.outputRows += result.rows.length;
    if (result.letters.length > 0) {
      await this.options.onDeadLetters?.(result.letters);
      this.counters.deadLetters += result.letters.length;
    }
    for (const side of result.side) {
      await this.options.onSideOutput?.(side.tag, side.rows, { stage: this.stage.id, operatorId: side.operatorId, shardId: task.shardId });
    }
    await Promise.all(task.stores.map((store) => store.flush()));
  }

  /** Builds the working set of one input shard; `snapshot` rewinds its reader. */
  private async createTask(shardId: string, snapshot: StageInputSnapshot | undefined): Promise<ShardTask> {
    const { graph, stageId } = this.options;
    const stage = this.stage;
    const reader = createStageInputReader(graph, stage, { shardId });
    if (snapshot !== undefined) reader.restore(snapshot);
    const shard = shardIndexOf(shardId);
    const stores: DynamoDbStateStore[] = [];
    const runners: OperatorRunner[] = [];
    for (const op of stage.operators) {
      const store = new DynamoDbStateStore({
        ...this.options.stateStore,
        client: this.options.dynamoDb,
        tableName: this.options.tableName,
        operatorId: op.id,
        keyGroups: graph.keyGroups,
        clock: this.clock,
      });
      const runner = new OperatorRunner(() => createOperator(op, this.options.code), {
        operatorId: op.id,
        shard,
        parallelism: stage.parallelism,
        state: store,
        clock: this.clock,
      });
      await runner.open();
      stores.push(store);
      runners.push(runner);
    }
    const output = stage.output;
    const writer =
      output.type === 'exchange'
        ? new KinesisStageWriter({
            client: this.options.kinesis as KinesisClient,
            streamName: this.options.outputStreams?.get(output.toStage) as string,
            schema: outputSchemaOf(graph, stage),
            distribution: output.distribution,
            producerStage: stageId,
            producerShard: shardId,
          })
        : undefined;
    return { shardId, reader, runners, stores, writer, watermark: -Infinity };
  }
}

/**
 * The schema of the rows a stage emits: for an exchange, the downstream stage's input schema (the
 * receiver checks the bundles' schema fingerprint against it); otherwise the last operator's
 * output, or the stage input when it has no operators.
 */
function outputSchemaOf(graph: JobGraph, stage: JobStage): Schema {
  const output = stage.output;
  if (output.type === 'exchange') {
    const next = graph.stages.find((s) => s.id === output.toStage);
    if (next === undefined) throw new PlanError(`stage ${stage.id} feeds unknown stage '${output.toStage}'`);
    return next.inputSchema;
  }
  return stage.operators[stage.operators.length - 1]?.outputSchema ?? stage.inputSchema;
}

/**
 * The operator context's shard number: the shard id's numeric suffix. It only labels the
 * instance (metrics, errors); routing is by the exchange's hash ranges, not by this number.
 */
function shardIndexOf(shardId: string): number {
  const match = /(\d+)$/.exec(shardId);
  return match === null ? 0 : Number.parseInt(match[1] as string, 10);
}

function firstSequenceOf(step: InputStep): string {
  return step.type === 'rows' ? step.first : step.sequenceNumber;
}

function indexOf(records: readonly KinesisStreamRecord[], sequenceNumber: string): number {
  return records.findIndex((r) => r.kinesis.sequenceNumber === sequenceNumber);
}

function push(into: ChangeRow[], rows: readonly ChangeRow[]): void {
  for (const row of rows) into.push(row);
}

function defaultOnError(error: unknown, shardId: string): void {
  console.error(`stage handler failed on ${shardId}:`, error);
}
