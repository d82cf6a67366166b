/**
 * The batch commit of the stage handler (docs/effectively-once.md, steps 6–9): announce the
 * range when there is output, emit it (the exchange bundles or the sink batch, dead letters,
 * side outputs), write the state's changelog segment (or pages), commit the checkpoint with one
 * conditional write. The stage handler decides when (commit intervals); this does it.
 */
import type { WriteRequest } from '@aws-sdk/client-dynamodb';
import type { ChangeRow } from '../../core/row.ts';
import type { JobStage } from '../../plan/job-graph.ts';
import type { CheckpointStore, RedoRef } from '../checkpoint/checkpoint-store.ts';
import type { KinesisStageWriter } from '../kinesis/kinesis-writer.ts';
import type { StagedState, TimerChange } from '../state/shard-state.ts';
import type { PreparedFlush } from '../state/dynamodb-state-store.ts';
import { compareSequenceNumbers } from '../stage-input/kinesis-records.ts';
import { reportTask } from './handler-stats.ts';
import type { StageHandlerStats } from './handler-stats.ts';
import { push } from './shard-task.ts';
import type { CommittedData, ShardTask, StepResult } from './shard-task.ts';
import type { SinkBatchInfo, SinkCallback, StageHandlerOptions } from './stage-handler.ts';

/** What a {@link BatchCommit} works with: the stage, its output callbacks, and the handler's counters. */
export interface BatchCommitDeps {
  readonly stage: JobStage;
  readonly options: Pick<StageHandlerOptions, 'sink' | 'sideSink' | 'onDeadLetters' | 'onError'>;
  /** `operatorId \0 tag` → the sink the job graph routes that side output to. */
  readonly sideSinks: ReadonlyMap<string, string>;
  readonly counters: StageHandlerStats;
  /** Raw state-change bytes committed per operator (added to). */
  readonly stateBytes: Map<string, number>;
  readonly clock: () => number;
}

/** See the module documentation. One per stage handler. */
export class BatchCommit {
  private readonly stage: JobStage;
  private readonly options: BatchCommitDeps['options'];
  private readonly sideSinks: ReadonlyMap<string, string>;
  private readonly counters: StageHandlerStats;
  private readonly stateBytes: Map<string, number>;
  private readonly clock: () => number;

  constructor(deps: BatchCommitDeps) {
    this.stage = deps.stage;
    this.options = deps.options;
    this.sideSinks = deps.sideSinks;
    this.counters = deps.counters;
    this.stateBytes = deps.stateBytes;
    this.clock = deps.clock;
  }

  /**
   * Announce `first..last` (when there is output and this is not a replay of an announced
   * range), emit, commit the checkpoint naming the state's changelog segment. Returns the
   * applied redo log.
   */
  async commit(task: ShardTask, checkpoints: CheckpointStore, result: StepResult, first: string, last: string, replay: boolean, delivered?: string): Promise<RedoRef | undefined> {
    const output = this.stage.output;
    const sendsExchange = task.writer !== undefined && (result.rows.length > 0 || task.watermark > task.emittedWatermark);
    const sendsSink = task.writer === undefined && output.type === 'sink' && result.rows.length > 0;
    const emits = sendsExchange || sendsSink || result.letters.length > 0 || result.side.length > 0;
    // Under intervals the announcing event may start after the interval: Lambda re-delivers from there.
    const redelivers = delivered !== undefined && compareSequenceNumbers(delivered, first) > 0;
    if (emits && !replay) await checkpoints.announce({ first, last, ...(redelivers ? { delivered } : {}) });

    if (sendsExchange) {
      await checkpoints.keepLease();
      await (task.writer as KinesisStageWriter).write({ first, last, rows: result.rows, watermark: task.watermark });
      task.emittedWatermark = task.watermark;
    } else if (sendsSink && output.type === 'sink') {
      await checkpoints.keepLease();
      const info: SinkBatchInfo = { sink: output.sink, stage: this.stage.id, shardId: task.shardId, first, last, id: `${this.stage.id}/${task.shardId}/${first}-${last}` };
      await (this.options.sink as SinkCallback)(result.rows, info);
    }
    this.counters.outputRows += result.rows.length;
    if (result.letters.length > 0) {
      await this.options.onDeadLetters?.(result.letters);
      this.counters.deadLetters += result.letters.length;
    }
    for (const side of result.side) {
      const sink = this.sideSinks.get(`${side.operatorId}\u0000${side.tag}`);
      if (sink === undefined || this.options.sideSink === undefined) {
        this.counters.sideRowsDropped += side.rows.length;
        continue;
      }
      await checkpoints.keepLease();
      const id = `${this.stage.id}/${task.shardId}/${first}-${last}/${side.operatorId}/${side.tag}`;
      await this.options.sideSink(
        side.rows.map((row): ChangeRow => ({ kind: '+I', row })),
        { sink, stage: this.stage.id, shardId: task.shardId, first, last, id },
      );
      this.counters.sideRowsRouted += side.rows.length;
    }

    // The stores' item writes by phase: chunks before the heads that name them, replaced chunks last.
    const prepared: PreparedFlush[] = [];
    const phases = { chunkPuts: [] as WriteRequest[], heads: [] as WriteRequest[], cleanup: [] as WriteRequest[] };
    try {
      for (const store of task.stores) prepared.push(store.prepareFlush());
      for (const { phases: [chunkPuts, heads, cleanup] } of prepared) {
        push(phases.chunkPuts, chunkPuts);
        push(phases.heads, heads);
        push(phases.cleanup, cleanup);
      }
    } catch (error) {
      for (const p of prepared) p.failed();
      throw error;
    }
    const version = task.version + 1;
    let ref: RedoRef | undefined;
    try {
      const staged = await this.stageState(task, version, checkpoints, [...phases.chunkPuts, ...phases.heads, ...phases.cleanup], prepared);
      const data: CommittedData = { reader: task.reader.snapshot(), watermark: task.watermark, ...(staged === undefined ? {} : { state: staged.ref }) };
      ref = await checkpoints.commit(version, data, undefined);
      task.version = version;
      task.committed = data;
      this.counters.commits++;
      if (staged !== undefined) await this.afterStateCommit(staged, checkpoints, task.shardId);
    } catch (error) {
      for (const p of prepared) p.failed();
      throw error;
    }
    for (const p of prepared) p.landed();
    task.appliedVersion = version;
    reportTask(this.counters, task, this.clock());
    return ref;
  }

  /**
   * The state-commit hook: makes the batch's state changes (the stores' item writes and the
   * timer changes) durable in the shard's changelog (state/shard-state.ts) before the checkpoint
   * commit that names them. Undefined for a stage without operators.
   */
  private async stageState(task: ShardTask, version: number, checkpoints: CheckpointStore, writes: readonly WriteRequest[], prepared: readonly PreparedFlush[]): Promise<StagedState | undefined> {
    if (task.state === undefined) return undefined;
    const keys = new Map<string, string>();
    for (const p of prepared) for (const [pk, key] of p.partitionKeys) keys.set(pk, key);
    const timers: TimerChange[] = [];
    for (const journal of task.journals) for (const c of journal.drainChanges()) timers.push({ operatorId: journal.operatorId, ...c });
    const always = task.journals.length > 0 || task.stores.some((s) => s.hasStates);
    const staged = await task.state.stage(version, checkpoints.currentEpoch ?? 0, { writes, keys, timers }, always, () => checkpoints.keepLease());
    this.counters.stateCommitBytes += staged.bytes;
    for (const [op, bytes] of staged.rawBytesByOperator) this.stateBytes.set(op, (this.stateBytes.get(op) ?? 0) + bytes);
    if (staged.materialized) this.counters.materializations++;
    return staged;
  }

  /** After the checkpoint commit: the state forgets its changelog if it materialized; replaced pages are deleted (a failure there only leaves garbage). */
  private async afterStateCommit(staged: StagedState, checkpoints: CheckpointStore, shardId: string): Promise<void> {
    try {
      await staged.committed(() => checkpoints.keepLease());
    } catch (error) {
      (this.options.onError ?? defaultOnError)(error, shardId);
    }
  }
}

function defaultOnError(error: unknown, shardId: string): void {
  console.error(`stage handler failed on ${shardId}:`, error);
}
