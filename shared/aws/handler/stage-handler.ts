/**
 * The Lambda handler of one stage: turns one shard's `KinesisStreamEvent` into operator calls,
 * sends the stage's output (a Kinesis exchange, or a sink callback) and commits operator state
 * to DynamoDB — effectively once, by the protocol of docs/effectively-once.md.
 *
 * ```
 *  fence ── take the shard: epoch + 1, lease = invocation deadline (waits while another holds it);
 *           under commit intervals a container that still holds its lease skips it (resume)
 *  redo  ── a committed redo log that may not be applied yet is applied first (idempotent puts)
 *  task  ── the warm container's working set (reader, operator chain, state caches, writer) is
 *           reused only when it reflects the committed version; else rebuilt from the checkpoint,
 *           and (commit intervals) the uncommitted input since it re-read from the stream
 *  replay ─ an announced (`pending`) range is processed first, alone, exactly as before, so its
 *           output ids are identical and receivers drop what they already have
 *  batch ── steps through the chain (StageExecutor.runBatch) ─► the port's commit: add to the
 *           open commit interval; when it is due: announce pending (when there is output)
 *           ─► emit output ─► changelog segment ─► one conditional checkpoint write
 *  release ─ lease = 0 (every invocation without commit intervals; with them only on failure)
 * ```
 *
 * One {@link StageHandler} is built per cold start; it keeps one "shard task" per input shard
 * id, so a warm container keeps its state cache and reader position across batches of that
 * shard, and a checkpoint version tells whether they are still current (another container may
 * have processed the shard meanwhile).
 *
 * Exactness relies on deterministic processing: given the committed state and the same input
 * records, a replayed range yields the same rows. Event-time operators are; output that depends
 * on processing time may differ on a replay (such rows stay at-least-once). Side outputs and
 * dead letters are handed over before the commit and may repeat after a crash (at-least-once);
 * a sink gets each batch with a stable `id` and identical rows on a replay, so an idempotent
 * sink applies it once.
 *
 * Failures. When a step fails (bad data that is not dead-lettered, a throttled state read), the
 * task is rebuilt from the checkpoint, the records before the failing one are run again and
 * committed, and the handler returns `batchItemFailures` with the failing record, so Lambda
 * retries from there. When nothing can be committed (failure at the first record, while sending
 * output or committing, or while replaying an announced range, which must stay whole) the whole
 * batch is reported failed (its first record).
 *
 * Timers. Operators that register timers (window operators, {@link TIMER_OPERATOR_TYPES}) get a
 * timer journal: their timer changes commit with the state in the redo log, as items per key
 * group ordered by time (state/timer-journal.ts), and a cold task loads the timers of its
 * shard's hash range (ListShards on the input stream), so timers survive cold starts and
 * follow keys through shard splits and merges.
 */
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { WriteRequest } from '@aws-sdk/client-dynamodb';
import type { Context, KinesisStreamBatchResponse, KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';
import { FlambdaError, PlanError, TransientError } from '../../core/errors.ts';
import type { ChangeRow } from '../../core/row.ts';
import type { JobGraph, JobStage } from '../../plan/job-graph.ts';
import { createOperator } from '../../operators/registry.ts';
import type { UserCode } from '../../operators/registry.ts';
import { CheckpointStore } from '../checkpoint/checkpoint-store.ts';
import type { Checkpoint, RedoRef } from '../checkpoint/checkpoint-store.ts';
import { decodeRedo } from '../checkpoint/redo-codec.ts';
import { settleSkippedRange } from '../checkpoint/skipped-range.ts';
import { createKinesisClient } from '../kinesis/client.ts';
import { KinesisStageWriter } from '../kinesis/kinesis-writer.ts';
import { shardLineages } from '../kinesis/shard-range.ts';
import type { ShardLineage } from '../kinesis/shard-range.ts';
import { ShardState } from '../state/shard-state.ts';
import { TimerJournal } from '../state/timer-journal.ts';
import { DynamoDbStateStore } from '../state/dynamodb-state-store.ts';
import type { DynamoDbStateStats, DynamoDbStateStoreOptions } from '../state/dynamodb-state-store.ts';
import { sleep as realSleep } from '../state/concurrency.ts';
import { batchWrite, newIoCounters } from '../state/table-io.ts';
import type { BatchWriteOptions, DynamoDbSender, IoCounters } from '../state/table-io.ts';
import { createStageInputReader } from '../stage-input/create-reader.ts';
import { compareSequenceNumbers, shardIdOf, streamNameOf } from '../stage-input/kinesis-records.ts';
import { hasRecordsAfter, readUncommitted } from '../stage-input/shard-reread.ts';
import type { DeadLetter, InputStep, StageInputSnapshot } from '../stage-input/types.ts';
import { OperatorRunner } from '../../runtime/operator-runner.ts';
import { StageExecutor, type BatchPort, type ChainStep, type RecordFailure } from '../../runtime/stage-executor.ts';
import { BatchCommit } from './batch-commit.ts';
import { newStageHandlerStats, zeroReported } from './handler-stats.ts';
import type { StageHandlerStats } from './handler-stats.ts';
import { dataErrorLetter, extendInterval, firstSequenceOf, indexOf, kinesisOrigins, mergeSide, outputSchemaOf, push, seqOf, shardIndexOf } from './shard-task.ts';
import type { CommittedData, KinesisOrigin, OpenInterval, ShardTask, StepResult } from './shard-task.ts';

export type { StageHandlerStats } from './handler-stats.ts';

/** Operator types that may register timers: their timers are persisted (others skip the cold-start load). */
export const TIMER_OPERATOR_TYPES: ReadonlySet<string> = new Set([
  'WindowAggregate',
  'WindowProcess',
  'WindowRank',
  'WindowDeduplicate',
  'UnalignedWindowTableFunction',
  'OverAggregate',
  'TemporalSort',
  // The time-bounded joins: an interval join's state clean-up and outer padding, a temporal
  // join's emission per watermark, a window join's firing at the window's end.
  'IntervalJoin',
  'TemporalJoin',
  'WindowJoin',
]);

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
  /**
   * The batch's identity: a batch re-sent after a crash (before its commit) carries the same id
   * and the same rows, so an idempotent sink applies each id once.
   */
  readonly id: string;
}

/** Receives a stage's sink output, once per batch (a batch may be re-sent with the same id). */
export type SinkCallback = (rows: readonly ChangeRow[], info: SinkBatchInfo) => Promise<void> | void;

/** Receives the dead letters of a batch (at-least-once). */
export type DeadLetterCallback = (letters: readonly DeadLetter[]) => Promise<void> | void;

/**
 * Receives the side-output rows (e.g. late data) of a batch that the job graph routes to a sink
 * (`stage.sideOutputs`), as `+I` rows; `info.sink` names that sink and `info.id` is stable across
 * a replay, as for {@link SinkCallback}.
 */
export type SideOutputCallback = (rows: readonly ChangeRow[], info: SinkBatchInfo) => Promise<void> | void;

/** Default lease slice: after a hard crash the next invocation waits at most this plus the grace period. */
export const DEFAULT_LEASE_SLICE_MS = 30_000;

/** Lease and fencing settings of the effectively-once protocol. */
export interface CheckpointOptions {
  /**
   * Length of one lease slice: an invocation holds its shard for this long and renews it while it
   * runs, never past the Lambda context's remaining time. @default 30000
   */
  readonly leaseMs?: number;
  /** Lease clock, epoch ms. @default Date.now */
  readonly now?: () => number;
  /** Waits while another invocation holds the shard. @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Poll interval while the shard is leased. @default 200 */
  readonly pollMs?: number;
  /** Wait past an unreleased lease's deadline before taking over. @default 1000 */
  readonly graceMs?: number;
  /** Stop writing this long before the own deadline. @default 500 */
  readonly safetyMs?: number;
}

/**
 * When a shard's batches commit (docs/effectively-once.md, "Commit intervals"). A commit ends a
 * *commit interval*: the interval's output is held in the container until then and sent as one
 * batch with the interval's input range as its id, and the state changes of all its batches go
 * into one changelog segment — so the protocol's writes are paid once per interval, not once
 * per event source batch. Between commits the container keeps its lease (no fence, no
 * release). After a container switch the next owner re-reads the uncommitted records from the
 * stream by sequence number (shared/aws/stage-input/shard-reread.ts).
 */
export interface CommitPolicy {
  /** Most event source batches (invocations) of a shard per commit; 1 commits every batch. @default 1 */
  readonly everyBatches?: number;
  /** Commit once the interval's first batch is this old (lease clock, ms). @default 10000 */
  readonly intervalMs?: number;
  /**
   * The event source mapping's BatchSize: an event with fewer records means the shard had no
   * backlog, so the interval commits at once. @default - unknown: the handler asks the stream
   * whether a record follows the event (one GetShardIterator and one GetRecords)
   */
  readonly eventBatchSize?: number;
  /** Most output rows an interval holds before it commits. @default 50000 */
  readonly maxBufferedRows?: number;
}

/**
 * The commit policy `flambda local`, the benchmarks and the Lambda functions use: up to 8
 * batches or 10 s per commit (docs/benchmarks.md, `flambda bench aws-cost`: at batch size 500
 * the protocol's write units fall from 8 to 0.5 per 1,000 events per stage; longer intervals
 * gain little more and delay output).
 */
export const DEFAULT_COMMIT_POLICY: Required<Omit<CommitPolicy, 'eventBatchSize'>> = { everyBatches: 8, intervalMs: 10_000, maxBufferedRows: 50_000 };

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
  /** The state table (also holds the checkpoints). */
  readonly tableName: string;
  /** Kinesis client for the exchange output; required when the stage writes an exchange. */
  readonly kinesis?: KinesisClient;
  /** Stream name per downstream stage id; required when the stage writes an exchange. */
  readonly outputStreams?: ReadonlyMap<string, string>;
  /** Sink output; required when the stage writes a sink. */
  readonly sink?: SinkCallback;
  /** Dead letters. @default - dropped (only counted in {@link StageHandler.stats}) */
  readonly onDeadLetters?: DeadLetterCallback;
  /** Side outputs routed to sinks by the job graph. @default - dropped (counted in `sideRowsDropped`) */
  readonly sideSink?: SideOutputCallback;
  /** Logs a failure that was turned into `batchItemFailures`. @default console.error */
  readonly onError?: (error: unknown, shardId: string) => void;
  /** Processing-time clock. @default Date.now */
  readonly clock?: () => number;
  /** Extra state-store options (cache bounds, concurrency, retries). */
  readonly stateStore?: Omit<DynamoDbStateStoreOptions, 'client' | 'tableName' | 'operatorId' | 'keyGroups' | 'clock'>;
  /** Lease and fencing settings. */
  readonly checkpoint?: CheckpointOptions;
  /** Changelog bytes since the last materialization before a commit materializes pages (state/shard-state.ts). @default 512 KiB */
  readonly materializeAfterBytes?: number;
  /** Most decoded page bytes a shard's state keeps in memory (state/shard-state.ts). @default 64 MiB */
  readonly pageCacheBytes?: number;
  /** When batches commit. @default every batch ({@link CommitPolicy}) */
  readonly commit?: CommitPolicy;
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

/** The batch must be retried from `sequenceNumber` (the first record of the event unless a prefix was committed). */
class RetryFrom extends Error {
  constructor(
    readonly sequenceNumber: string,
    readonly original: unknown,
  ) {
    super('retry', { cause: original });
  }
}

/** A stage's Lambda handler; see the module documentation. */
export class StageHandler {
  /** The stage this handler runs. */
  readonly stage: JobStage;
  private readonly options: StageHandlerOptions;
  private readonly clock: () => number;
  private readonly leaseNow: () => number;
  private readonly tasks = new Map<string, ShardTask>();
  private readonly checkpoints = new Map<string, CheckpointStore>();
  private readonly redoIo: IoCounters = newIoCounters();
  /** Raw state-change bytes committed per operator. */
  private readonly stateBytes = new Map<string, number>();
  /** Input shards' hash ranges and parents, by stream, looked up once per container (again for a shard not listed yet). */
  private readonly lineages = new Map<string, Map<string, ShardLineage>>();
  private inputKinesis: Pick<KinesisClient, 'send'> | undefined;
  /** The batch commit: emit and make durable (batch-commit.ts). */
  private readonly batchCommit: BatchCommit;
  /** {@link simulateColdStart} was called: the next invocation drops everything first. */
  private coldStartPending = false;
  private readonly counters: StageHandlerStats = newStageHandlerStats();

  /** `operatorId \0 tag` → the sink the job graph routes that side output to. */
  private readonly sideSinks: ReadonlyMap<string, string>;

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
    const leaseMs = options.checkpoint?.leaseMs;
    if (leaseMs !== undefined && !(Number.isFinite(leaseMs) && leaseMs > 0)) throw new PlanError(`checkpoint.leaseMs must be a positive number of ms (given ${leaseMs})`);
    this.stage = stage;
    this.options = options;
    this.sideSinks = new Map((stage.sideOutputs ?? []).map((s) => [`${s.operatorId}\u0000${s.tag}`, s.sink]));
    this.clock = options.clock ?? Date.now;
    this.leaseNow = options.checkpoint?.now ?? Date.now;
    this.batchCommit = new BatchCommit({ stage, options, sideSinks: this.sideSinks, counters: this.counters, stateBytes: this.stateBytes, clock: this.clock });
  }

  /** Counters since creation. */
  stats(): StageHandlerStats {
    return { ...this.counters };
  }

  /**
   * The shards this handler holds now, for observers (the job page): each shard's runners, its
   * input reader's state (watermarks per channel), the chain's watermark, and its state caches.
   */
  shardTasks(): { shardId: string; runners: readonly OperatorRunner[]; input: StageInputSnapshot; watermark: number; state: readonly DynamoDbStateStats[] }[] {
    return [...this.tasks.values()].map((t) => ({ shardId: t.shardId, runners: t.runners, input: t.reader.snapshot(), watermark: t.watermark, state: t.stores.map((store) => store.stats()) }));
  }

  /** Raw (uncompressed) bytes of state changes each operator committed, over this handler's shards. */
  stateBytesByOperator(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [op, bytes] of this.stateBytes) out.set(op, bytes);
    return out;
  }

  /** DynamoDB requests of the protocol itself (checkpoints, redo logs and their application), summed over shards. */
  protocolIo(): IoCounters {
    const total = { ...this.redoIo };
    for (const store of this.checkpoints.values()) {
      for (const [k, v] of Object.entries(store.io) as [keyof IoCounters, number][]) total[k] += v;
    }
    return total;
  }

  /**
   * Makes the next invocation start as a new container would: its shards' tasks (caches, held
   * commit intervals) are dropped and the leases this container holds released first, so the
   * next owner rebuilds from the checkpoint and re-reads the uncommitted input. For benchmarks
   * (the catch-up after a cold start, `flambda bench aws-cost`) and tests; a real container
   * switch also waits for the old container's lease.
   */
  simulateColdStart(): void {
    this.coldStartPending = true;
  }

  /** The Lambda entry point, bound: `export const handler = stageHandler.handler`. */
  readonly handler = (event: KinesisStreamEvent, context?: Context): Promise<KinesisStreamBatchResponse> => this.handle(event, context);

  /**
   * Handles one batch of one shard (Lambda's Kinesis event source mapping never mixes shards).
   * Resolves with an empty `batchItemFailures` when the whole batch was committed, or with the
   * first record to retry; rejects only for a malformed event (records of several shards).
   */
  async handle(event: KinesisStreamEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<KinesisStreamBatchResponse> {
    const records = event.Records;
    this.counters.invocations++;
    if (this.coldStartPending) {
      this.coldStartPending = false;
      for (const [id, store] of this.checkpoints) {
        this.discardTask(id);
        await store.release(undefined);
      }
      this.checkpoints.clear();
    }
    if (records.length === 0) return { batchItemFailures: [] };
    this.counters.records += records.length;
    const shardId = shardIdOf(records[0] as KinesisStreamRecord);
    for (const record of records) {
      if (shardIdOf(record) !== shardId) {
        throw new FlambdaError(`one event holds records of shards ${shardId} and ${shardIdOf(record)}`, 'internal', 'fail');
      }
    }
    const first = (records[0] as KinesisStreamRecord).kinesis.sequenceNumber;
    const streamName = streamNameOf(records[0] as KinesisStreamRecord);
    const checkpoints = this.checkpointStore(shardId);
    // The lease is taken in slices, renewed while the invocation runs, never past its end.
    const remaining = context?.getRemainingTimeInMillis();
    const invocationEnd = remaining === undefined ? Infinity : this.leaseNow() + remaining;
    const sliceMs = this.options.checkpoint?.leaseMs ?? DEFAULT_LEASE_SLICE_MS;
    let applied: RedoRef | undefined;
    let retryFrom: string | undefined;
    let hold = false;
    try {
      // ── take the shard: a container that still holds its lease continues without a write ──
      let task = this.tasks.get(shardId);
      let checkpoint: Checkpoint | undefined;
      if (!(this.defers && task !== undefined && checkpoints.resume(invocationEnd))) {
        const previousEpoch = checkpoints.currentEpoch;
        const now = this.leaseNow();
        checkpoint = await checkpoints.fence(Math.min(now + sliceMs, invocationEnd), invocationEnd);
        applied = await this.finishLastCommit(shardId, checkpoints, checkpoint);
        // With commit intervals another container may have processed records it did not commit
        // (the checkpoint's version does not show them): a task stays only if nobody fenced since.
        if (this.defers && task !== undefined && (previousEpoch === undefined || checkpoint.epoch !== previousEpoch + 1)) {
          this.counters.staleTasks++;
          this.discardTask(shardId);
        }
        task = await this.currentTask(shardId, streamName, checkpoint);
      }
      task = task as ShardTask;
      // Records up to the position already processed (committed, or held in the open interval)
      // are a redelivery, possibly with other batch boundaries: drop them here, so that the
      // batch — and the ids of its output — starts at the first new record. The reader would
      // skip them too, but the ids would then claim a range whose start another batch covered.
      const position = task.interval?.last ?? task.committed?.reader.lastSequenceNumber ?? null;
      let rest: readonly KinesisStreamRecord[] = position === null ? records : records.filter((r) => compareSequenceNumbers(r.kinesis.sequenceNumber, position) > 0);
      this.counters.redelivered += records.length - rest.length;
      // A skipped range is recognised from the event's own records, before any catch-up.
      const pending = checkpoint?.pending;
      const skipped = pending && (await settleSkippedRange({ checkpoints, pending, records: rest, stage: this.stage.id, onDeadLetters: this.options.onDeadLetters }));
      if (skipped) {
        this.counters.skippedRanges++;
        rest = skipped.rest;
        // The committed position must pass the settled range, or a later owner would re-read it.
        task.mustCommit = true;
      }
      if (task.fresh && this.defers && position !== null && rest.length > 0) rest = await this.catchUp(task, skipped ? skipped.range.last : position, rest);
      task.fresh = false;
      if (pending !== undefined && !skipped) {
        const { first: from, last: to } = pending;
        const start = indexOf(rest, from);
        const end = indexOf(rest, to);
        if (start !== 0 || end < start) {
          throw new TransientError(`shard ${shardId} must replay its announced range ${from}..${to} first, but the event holds ${first}..${(records[records.length - 1] as KinesisStreamRecord).kinesis.sequenceNumber}`);
        }
        this.counters.replays++;
        applied = (await this.processBatch(task, checkpoints, rest.slice(0, end + 1), true, first)) ?? applied;
        rest = rest.slice(end + 1);
      }
      task = this.tasks.get(shardId) as ShardTask;
      if (rest.length > 0) applied = (await this.processBatch(task, checkpoints, rest, false, first, records.length)) ?? applied;
      else if (task.interval !== undefined && this.intervalDue(task.interval)) applied = (await this.commitInterval(task, checkpoints, false)) ?? applied;
      hold = this.defers;
    } catch (error) {
      const retry = error instanceof RetryFrom ? error : undefined;
      (this.options.onError ?? defaultOnError)(retry?.original ?? error, shardId);
      retryFrom = retry?.sequenceNumber ?? first;
      this.discardTask(shardId);
    } finally {
      // Under commit intervals the container keeps the shard for its next invocation (no
      // release, no fence); a failure, or a redo log to forget, releases it.
      if (!hold || applied !== undefined) {
        try {
          await checkpoints.release(applied);
        } catch (error) {
          // The lease then simply runs out; the next invocation waits for it.
          (this.options.onError ?? defaultOnError)(error, shardId);
        }
      }
    }
    if (retryFrom === undefined) return { batchItemFailures: [] };
    this.counters.failedBatches++;
    return { batchItemFailures: [{ itemIdentifier: retryFrom }] };
  }

  /** Whether batches are held in commit intervals (more than one batch per commit). */
  private get defers(): boolean {
    return (this.options.commit?.everyBatches ?? 1) > 1;
  }

  /**
   * A task just rebuilt from the checkpoint: prepends the records after the committed position
   * that an earlier container processed without committing (the mapping has moved past them)
   * up to the event's first new record, re-read from the stream.
   */
  private async catchUp(task: ShardTask, position: string, rest: readonly KinesisStreamRecord[]): Promise<readonly KinesisStreamRecord[]> {
    const started = this.leaseNow();
    const head = rest[0] as KinesisStreamRecord;
    const client = (this.inputKinesis ??= this.options.kinesis ?? createKinesisClient());
    const reread = await readUncommitted(client, task.streamName, task.shardId, position, head.kinesis.sequenceNumber, head);
    if (reread.length === 0) return rest;
    this.counters.catchUpRecords += reread.length;
    this.counters.maxCatchUpRecords = Math.max(this.counters.maxCatchUpRecords, reread.length);
    task.catchUpStartedAt = started;
    return [...reread, ...rest];
  }

  /** Whether an open interval must commit whatever the next event brings: batches, age or held rows. */
  private intervalDue(interval: OpenInterval): boolean {
    const policy = this.options.commit;
    return (
      interval.batches >= (policy?.everyBatches ?? 1) ||
      this.leaseNow() - interval.startedAt >= (policy?.intervalMs ?? DEFAULT_COMMIT_POLICY.intervalMs) ||
      interval.result.rows.length >= (policy?.maxBufferedRows ?? DEFAULT_COMMIT_POLICY.maxBufferedRows)
    );
  }

  /**
   * Whether the interval commits now, after an event of `eventRecords` records: always without
   * intervals, at the shard's first commit (so a later owner has a position to re-read from),
   * when due, when the event was not full, and when the stream holds nothing after it (else the
   * interval's output would wait for an event that may not come).
   */
  private async commitsNow(task: ShardTask, interval: OpenInterval, eventRecords: number): Promise<boolean> {
    if (!this.defers || task.committed === undefined || task.mustCommit || this.intervalDue(interval)) return true;
    const full = this.options.commit?.eventBatchSize;
    if (full !== undefined && eventRecords < full) return true;
    const client = (this.inputKinesis ??= this.options.kinesis ?? createKinesisClient());
    return !(await hasRecordsAfter(client, task.streamName, task.shardId, interval.last));
  }

  private checkpointStore(shardId: string): CheckpointStore {
    let store = this.checkpoints.get(shardId);
    if (store === undefined) {
      const o = this.options.checkpoint;
      store = new CheckpointStore({
        client: this.options.dynamoDb,
        tableName: this.options.tableName,
        stage: this.stage.id,
        shardId,
        now: o?.now,
        sleep: o?.sleep,
        pollMs: o?.pollMs,
        graceMs: o?.graceMs,
        safetyMs: o?.safetyMs,
      });
      this.checkpoints.set(shardId, store);
    }
    return store;
  }

  /** Applies the last commit's redo log unless this container already did; returns it (to forget on release). */
  private async finishLastCommit(shardId: string, checkpoints: CheckpointStore, checkpoint: Checkpoint): Promise<RedoRef | undefined> {
    const redo = checkpoint.redo;
    if (redo === undefined) return undefined;
    if (this.tasks.get(shardId)?.appliedVersion === redo.version) return redo;
    this.counters.redoRecoveries++;
    const phases = decodeRedo(await checkpoints.readRedo(redo));
    await checkpoints.keepLease();
    await this.applyWrites(phases);
    return redo;
  }

  /** The shard's task if it reflects the committed version, else a fresh one restored from the checkpoint. */
  private async currentTask(shardId: string, streamName: string, checkpoint: Checkpoint): Promise<ShardTask> {
    const task = this.tasks.get(shardId);
    if (task !== undefined && task.version === checkpoint.version) return task;
    if (task !== undefined) {
      this.counters.staleTasks++;
      this.discardTask(shardId);
    }
    const fresh = await this.createTask(shardId, streamName, checkpoint.data as CommittedData | undefined, checkpoint.version);
    this.tasks.set(shardId, fresh);
    return fresh;
  }

  /** Drops a task whose caches may hold uncommitted or stale changes. */
  private discardTask(shardId: string): void {
    const task = this.tasks.get(shardId);
    if (task === undefined) return;
    for (const store of task.stores) store.invalidate();
    for (const journal of task.journals) journal.clear();
    // Operators may hold resources outside the state store (a lookup join's connection pool).
    for (const runner of task.runners) void runner.close().catch(() => undefined);
    this.tasks.delete(shardId);
  }

  /**
   * Runs one batch and adds it to the shard's open commit interval, which it commits when due
   * ({@link commitsNow}; a replay always commits). A failing step makes the records before it
   * run again on a task rebuilt from the checkpoint and commit (unless `replay`: an announced
   * range stays whole; or unless the interval holds earlier batches: the event is then retried
   * whole, on a task rebuilt from the checkpoint that re-reads them); then throws
   * {@link RetryFrom}, never from before the event's first record `eventFirst`. Returns the redo
   * log it committed and applied.
   */
  private async processBatch(task: ShardTask, checkpoints: CheckpointStore, records: readonly KinesisStreamRecord[], replay: boolean, eventFirst: string, eventRecords = records.length): Promise<RedoRef | undefined> {
    let ref: RedoRef | undefined;
    try {
      await this.run(task, records, async (result) => void (ref = await this.closeBatch(task, checkpoints, records, result, replay, eventFirst, eventRecords)));
    } catch (error) {
      if (!(error instanceof StepFailure)) throw error;
      const failedAt = Math.max(0, indexOf(records, error.sequenceNumber));
      if (replay || failedAt === 0 || task.interval !== undefined) throw new RetryFrom(eventFirst, error.original);
      this.discardTask(task.shardId);
      const fresh = await this.createTask(task.shardId, task.streamName, task.committed, task.version);
      fresh.fresh = false;
      this.tasks.set(task.shardId, fresh);
      const prefix = records.slice(0, failedAt);
      try {
        await this.run(fresh, prefix, async (result) => void (await this.batchCommit.commit(fresh, checkpoints, result, seqOf(prefix[0]), seqOf(prefix[prefix.length - 1]), false)));
      } catch (again) {
        throw new RetryFrom(eventFirst, again instanceof StepFailure ? again.original : again);
      }
      const at = seqOf(records[failedAt]);
      throw new RetryFrom(compareSequenceNumbers(at, eventFirst) < 0 ? eventFirst : at, error.original);
    }
    return ref;
  }

  /**
   * The Lambda driver's commit (the executor's {@link BatchPort}): adds the batch to the shard's
   * open commit interval and commits the interval when due ({@link commitsNow}; a replay always
   * commits). Returns the redo log it committed and applied.
   */
  private async closeBatch(task: ShardTask, checkpoints: CheckpointStore, records: readonly KinesisStreamRecord[], result: StepResult, replay: boolean, eventFirst: string, eventRecords: number): Promise<RedoRef | undefined> {
    if (task.catchUpStartedAt !== undefined) {
      this.counters.maxCatchUpMs = Math.max(this.counters.maxCatchUpMs, this.leaseNow() - task.catchUpStartedAt);
      task.catchUpStartedAt = undefined;
    }
    const interval = extendInterval(task, records, result, this.leaseNow(), eventFirst);
    if (!replay && !(await this.commitsNow(task, interval, eventRecords))) {
      this.counters.deferredBatches++;
      return undefined;
    }
    return this.commitInterval(task, checkpoints, replay);
  }

  /** Commits the shard's open interval (its held output, its state changes) and closes it. */
  private async commitInterval(task: ShardTask, checkpoints: CheckpointStore, replay: boolean): Promise<RedoRef | undefined> {
    const interval = task.interval as OpenInterval;
    const ref = await this.batchCommit.commit(task, checkpoints, interval.result, interval.first, interval.last, replay, interval.delivered);
    task.interval = undefined;
    task.mustCommit = false;
    return ref;
  }

  /**
   * Reads the records and runs their steps through the chain (the stage executor's
   * {@link StageExecutor.runBatch}), collecting the batch's output, dead letters and side
   * outputs, and hands them to `commit` — the durable part. Throws StepFailure when a step fails.
   */
  private async run(task: ShardTask, records: readonly KinesisStreamRecord[], commit: (result: StepResult) => Promise<void>): Promise<void> {
    const result: StepResult = { rows: [], letters: [], side: [] };
    const executor = task.executor;
    let committing = false;
    const port: BatchPort<InputStep> = {
      begin: () => undefined,
      output: (rows, step) => {
        push(result.rows, rows);
        // The chain's output watermark (held back by operators that emit late rows) is what
        // this stage sends downstream.
        if (step.type === 'watermark') task.watermark = executor.outputWatermark;
        if (step.type === 'dead-letter') result.letters.push(step.letter);
        // Records set aside go to the dead letters in their place in shard order.
        for (const failure of task.failures) result.letters.push(dataErrorLetter(this.stage.id, failure, step));
        task.failures.length = 0;
        mergeSide(result.side, executor.sideOutputs());
      },
      commit: () => {
        committing = true;
        return commit(result);
      },
    };
    let current: InputStep | undefined;
    const stepOf = (step: InputStep): ChainStep<KinesisOrigin> | undefined => chainStepOf((current = step));
    try {
      await executor.runBatch(task.reader.read(records).steps, stepOf, port);
    } catch (error) {
      // A failing step (not the commit: its errors propagate as they are).
      if (current === undefined || committing) throw error;
      task.failures.length = 0;
      throw new StepFailure(firstSequenceOf(current), error);
    }
  }

  /** The range and parents of an input shard (ListShards, cached; listed again for a shard not seen yet). */
  private async lineage(streamName: string, shardId: string): Promise<ShardLineage> {
    const client = (this.inputKinesis ??= this.options.kinesis ?? createKinesisClient());
    let shards = this.lineages.get(streamName);
    if (shards?.get(shardId) === undefined) {
      shards = await shardLineages(client, streamName);
      this.lineages.set(streamName, shards);
    }
    const lineage = shards.get(shardId);
    if (lineage === undefined) throw new FlambdaError(`stream '${streamName}' has no shard '${shardId}' with a hash-key range`, 'external', 'fail');
    return lineage;
  }

  /** Batch write settings from the state-store options. */
  private writeOptions(): Omit<BatchWriteOptions, 'client' | 'tableName'> {
    const store = this.options.stateStore;
    return {
      concurrency: store?.writeConcurrency ?? 8,
      maxAttempts: store?.maxWriteAttempts ?? 8,
      baseMs: store?.backoffBaseMs ?? 50,
      maxMs: store?.backoffMaxMs ?? 5_000,
      random: store?.random ?? Math.random,
      sleep: store?.sleep ?? realSleep,
    };
  }

  /** Writes redo phases in order (each phase's items are distinct): a redo log left by a version that applied state as items. */
  private async applyWrites(phases: readonly (readonly WriteRequest[])[]): Promise<void> {
    const options: BatchWriteOptions = { ...this.writeOptions(), client: this.options.dynamoDb, tableName: this.options.tableName };
    for (const phase of phases) if (phase.length > 0) await batchWrite(phase, options, this.redoIo);
  }

  /** Builds the working set of one input shard from committed data (undefined: the shard's start). */
  private async createTask(shardId: string, streamName: string, committed: CommittedData | undefined, version: number): Promise<ShardTask> {
    const { graph, stageId } = this.options;
    const stage = this.stage;
    const reader = createStageInputReader(graph, stage, { shardId });
    if (committed !== undefined) reader.restore(committed.reader);
    const shard = shardIndexOf(shardId);
    const stores: DynamoDbStateStore[] = [];
    const runners: OperatorRunner[] = [];
    const journals: TimerJournal[] = [];
    const watermark = committed?.watermark ?? -Infinity;
    const state =
      stage.operators.length === 0
        ? undefined
        : ShardState.open(
            {
              client: this.options.dynamoDb,
              tableName: this.options.tableName,
              stage: stage.id,
              shardId,
              keyGroups: graph.keyGroups,
              range: async () => (await this.lineage(streamName, shardId)).range,
              onLoaded: (loaded) => {
                this.counters.coldStartSegments += loaded.segments;
                this.counters.maxColdStartSegments = Math.max(this.counters.maxColdStartSegments, loaded.segments);
              },
              io: this.redoIo,
              write: this.writeOptions(),
              now: this.leaseNow,
              ...(this.options.materializeAfterBytes === undefined ? {} : { materializeAfterBytes: this.options.materializeAfterBytes }),
              ...(this.options.pageCacheBytes === undefined ? {} : { pageCacheBytes: this.options.pageCacheBytes }),
            },
            { ref: committed?.state, version },
            async (id) => (await this.lineage(streamName, id)).parents,
          );
    for (const op of stage.operators) {
      const store = new DynamoDbStateStore({
        ...this.options.stateStore,
        client: this.options.dynamoDb,
        tableName: this.options.tableName,
        operatorId: op.id,
        keyGroups: graph.keyGroups,
        clock: this.clock,
        ...(state === undefined ? {} : { partitions: (pk: string) => state.partition(pk) }),
      });
      const runner = new OperatorRunner(() => createOperator(op, this.options.code), {
        operatorId: op.id,
        shard,
        parallelism: stage.parallelism,
        state: store,
        clock: this.clock,
      });
      await runner.open();
      if (TIMER_OPERATOR_TYPES.has(op.type)) {
        runner.timers.setWatermark(watermark);
        for (const timer of await (state as ShardState).timers(op.id)) {
          if (timer.domain === 'event') runner.timers.registerEventTimeTimer(timer.key, timer.namespace, timer.timestamp);
          else runner.timers.registerProcessingTimeTimer(timer.key, timer.namespace, timer.timestamp);
        }
        const journal = new TimerJournal(op.id, graph.keyGroups);
        journal.attach(runner.timers);
        journals.push(journal);
      }
      stores.push(store);
      runners.push(runner);
    }
    const failures: RecordFailure<KinesisOrigin>[] = [];
    const executor = new StageExecutor<KinesisOrigin>(runners, {
      ...(graph.errorPolicy !== undefined ? { errorPolicy: graph.errorPolicy } : {}),
      // No retry here: a transient failure fails the step, and the protocol retries the batch
      // from the checkpoint (the state store has retried its own requests already).
      retry: { maxAttempts: 1 },
      label: `${stage.id} ${shardId}`,
      onRecordFailure: (failure) => failures.push(failure),
    });
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
    return { shardId, streamName, reader, runners, executor, failures, stores, state, journals, writer, watermark, emittedWatermark: -Infinity, version, committed, appliedVersion: -1, reported: zeroReported(), catchUpStartedAt: undefined, fresh: true, interval: undefined, mustCommit: false };
  }
}

/** What an input step is for the chain: a decoding dead letter is the driver's own. */
function chainStepOf(step: InputStep): ChainStep<KinesisOrigin> | undefined {
  switch (step.type) {
    case 'rows':
      return { type: 'rows', rows: step.rows, side: step.side ?? 'left', origin: kinesisOrigins(step.rows, step.records) };
    case 'watermark':
      return { type: 'watermark', value: step.value };
    case 'processing-time':
      return { type: 'processing-time', value: step.value };
    case 'dead-letter':
      return undefined;
  }
}

function defaultOnError(error: unknown, shardId: string): void {
  console.error(`stage handler failed on ${shardId}:`, error);
}
