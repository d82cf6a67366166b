/**
 * A small driver that runs a job graph the AWS way on the in-process emulators — one Kinesis
 * stream per source and per exchange, one DynamoDB state table, one {@link StageHandler} per
 * stage fed by a {@link LocalEventSourceMapping} — with an injectable *invoker*: what the
 * mapping calls for every batch. The default invoker is one warm handler per stage; the fault
 * injector (fault-injector.ts) replaces it with containers that crash, throttle, duplicate and
 * overlap.
 *
 * ```
 *  phase i: before(job)? ─► put records ─► drain stage 0, stage 1, … (upstream first)
 *  sink callback ─► IdempotentSink: applies each batch id once (a repeat must be identical)
 *                   ─► MaterializedView (upsert by the sink's key)
 * ```
 *
 * Names of streams and the table derive from `name`, which must be unique per run on a shared
 * emulator; everything is deleted again at the end (best effort).
 */
import { Buffer } from 'node:buffer';
import {
  DeleteStreamCommand,
  MergeShardsCommand,
  PutRecordsCommand,
  SplitShardCommand,
} from '@aws-sdk/client-kinesis';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context, KinesisStreamBatchResponse, KinesisStreamEvent } from 'aws-lambda';
import { LocalEventSourceMapping } from '../../../shared/aws/esm/local-event-source-mapping.ts';
import type { EventSourceMappingStats, KinesisEventHandler } from '../../../shared/aws/esm/types.ts';
import { StageHandler } from '../../../shared/aws/handler/stage-handler.ts';
import type { CheckpointOptions, SinkBatchInfo, SinkCallback, StageHandlerOptions } from '../../../shared/aws/handler/stage-handler.ts';
import type { DeadLetter } from '../../../shared/aws/stage-input/types.ts';
import { createStateTable } from '../../../shared/aws/state/create-state-table.ts';
import type { DynamoDbSender } from '../../../shared/aws/state/table-io.ts';
import { createRowEncoder } from '../../../shared/core/codec.ts';
import type { JsonValue, RowEncoder } from '../../../shared/core/codec.ts';
import type { ChangeRow } from '../../../shared/core/row.ts';
import type { UserCode } from '../../../shared/operators/registry.ts';
import type { JobGraph, JobStage } from '../../../shared/plan/job-graph.ts';
import { MaterializedView } from '../../../shared/runtime/materialized-view.ts';
import { createStream, listAllShards, waitForActive } from '../kinesis-emulator.ts';

/** Clients of the emulators (or of a real account). */
export interface EmulatorClients {
  readonly kinesis: KinesisClient;
  readonly dynamoDb: DynamoDBClient;
}

/** What an invoker may replace when it builds a handler (a container's view of the world). */
export interface HandlerOverrides {
  /** The DynamoDB client (e.g. a wrapper that throttles or crashes). */
  readonly dynamoDb?: DynamoDbSender;
  /** The Kinesis client of the exchange output. */
  readonly kinesis?: KinesisClient;
  /** Wraps the run's sink callback (e.g. to crash around it). */
  readonly wrapSink?: (sink: SinkCallback) => SinkCallback;
  /** The lease/fencing clock and settings. */
  readonly checkpoint?: CheckpointOptions;
}

/** One stage of a running job, as an invoker sees it. */
export interface StageRuntime {
  readonly graph: JobGraph;
  /** The run's real clients (wrappers send through them). */
  readonly clients: EmulatorClients;
  readonly stage: JobStage;
  /** Builds a new handler for the stage: a cold start (empty caches and readers). */
  createHandler(overrides?: HandlerOverrides): StageHandler;
}

/** Builds the function the stage's mapping invokes for every batch. */
export type InvokerFactory = (runtime: StageRuntime) => KinesisEventHandler;

/** Calls `handler.handle(event, context)`. */
export function invokeHandler(handler: StageHandler, event: KinesisStreamEvent, context: Context): Promise<KinesisStreamBatchResponse> {
  return handler.handle(event, context);
}

/** The default invoker: one warm handler per stage, as one long-lived container would be. */
export const warmInvoker: InvokerFactory = (runtime) => {
  const handler = runtime.createHandler();
  return (event, context) => invokeHandler(handler, event, context);
};

/** One Kinesis record to put into a source stream. */
export interface SourceRecord {
  readonly partitionKey: string;
  readonly data: string;
}

/** The streams of a running job, for actions between phases (e.g. resharding). */
export interface RunningJob {
  readonly clients: EmulatorClients;
  /** Source name → stream name. */
  readonly sourceStreams: ReadonlyMap<string, string>;
  /** Stage id → the stream the stage reads (its source stream or its exchange stream). */
  readonly inputStreams: ReadonlyMap<string, string>;
  readonly tableName: string;
}

/** One phase: an optional action, then records put into source streams, then a full drain. */
export interface JobPhase {
  readonly before?: (job: RunningJob) => Promise<void>;
  /** Source name → records, put in order. */
  readonly put: ReadonlyMap<string, readonly SourceRecord[]>;
}

/** Options of {@link runJobOnEmulators}. */
export interface JobRunOptions {
  readonly clients: EmulatorClients;
  readonly graph: JobGraph;
  readonly code: UserCode;
  /** Unique per run on a shared emulator: names the streams and the table. */
  readonly name: string;
  readonly phases: readonly JobPhase[];
  /** Records per invocation (BatchSize), per stage or for all. @default 7 */
  readonly batchSize?: number | ((stage: JobStage) => number);
  /** @default {@link warmInvoker} */
  readonly invoker?: InvokerFactory;
  /** How long one stage may take to drain, ms. @default 60000 */
  readonly drainTimeoutMs?: number;
  /**
   * How long an idle shard poller sleeps, ms. Draining wakes the pollers, so a long interval
   * costs no time in phases; it saves the CPU of idle GetRecords calls. @default 200
   */
  readonly pollIntervalMs?: number;
  /** How often a mapping lists shards (resharding tests want it short), ms. @default 1000 */
  readonly shardDiscoveryIntervalMs?: number;
  /** Extra handler options for every stage (e.g. `stateStore`). */
  readonly handlerOptions?: Partial<Pick<StageHandlerOptions, 'stateStore' | 'clock' | 'commit'>>;
  /** Keep the streams and the table (to inspect them). @default false */
  readonly keep?: boolean;
  /** Called after each step (`created`, `started`, `put i`, `drained <stage> i`, `stopped`, `deleted`) with ms since the start. */
  readonly onStep?: (step: string, elapsedMs: number) => void;
}

/** What {@link runJobOnEmulators} observed. */
export interface JobRunResult {
  /** The sinks, by name. */
  readonly sinks: ReadonlyMap<string, IdempotentSink>;
  /** Errors the handlers reported through `onError` (failures turned into retries). */
  readonly errors: readonly unknown[];
  readonly deadLetters: readonly DeadLetter[];
  /** Each stage's mapping statistics, by stage id. */
  readonly mappings: ReadonlyMap<string, EventSourceMappingStats>;
  readonly elapsedMs: number;
  /** State materializations (page writes) over every handler the run created. */
  readonly materializations: number;
  /** Batches held in commit intervals, and uncommitted records re-read after a container switch, over every handler. */
  readonly deferredBatches: number;
  readonly catchUpRecords: number;
}

/**
 * A sink that applies each batch id once, as an idempotent sink does, and checks that a repeated
 * id carries exactly the rows of its first delivery (replays must be deterministic): a difference
 * is recorded in {@link violations}, never hidden. It also counts applied batches whose input
 * range (`first..last` of one stage shard) overlaps an applied batch's ({@link rangeOverlaps},
 * with the first few in {@link overlapDetails}): not wrong in itself (a batch id may name a range
 * whose first records the reader skipped as already committed), but a hint when a result differs.
 * Applied batches go into a {@link MaterializedView} (upsert by the sink's key, or by whole row
 * without one).
 */
export class IdempotentSink {
  readonly view: MaterializedView;
  /** Deliveries of an id already applied whose rows differ from the first delivery. */
  readonly violations: string[] = [];
  /** Batches applied. */
  applied = 0;
  /** Deliveries dropped as repeats of an applied id. */
  repeats = 0;
  /** Applied batches whose input range overlaps that of an earlier applied batch of the same stage shard. */
  rangeOverlaps = 0;
  /** The first few such overlaps. */
  readonly overlapDetails: string[] = [];
  private readonly seen = new Map<string, string>();
  /** Applied input ranges per `stage/shard`. */
  private readonly ranges = new Map<string, { readonly id: string; readonly first: bigint; readonly last: bigint }[]>();
  private readonly encode: RowEncoder;

  constructor(readonly spec: JobGraph['sinks'][number]) {
    this.encode = createRowEncoder(spec.schema);
    const columns = spec.schema.fields.map((f) => f.name);
    this.view = new MaterializedView({ ...(spec.upsertKey ? { key: spec.upsertKey } : {}), columns, strict: false });
  }

  /** The sink callback. */
  readonly write = (rows: readonly ChangeRow[], info: SinkBatchInfo): void => {
    const id = info.id;
    const text = JSON.stringify(rows.map((r) => [r.kind, this.encode(r.row)]));
    const before = this.seen.get(id);
    if (before !== undefined) {
      this.repeats++;
      if (before !== text) {
        this.violations.push(`sink ${this.spec.name}: batch ${id} (${info.shardId} ${info.first}..${info.last}) was re-sent with other rows:\n first: ${before}\n again: ${text}`);
      }
      return;
    }
    this.seen.set(id, text);
    this.applied++;
    const key = `${info.stage}/${info.shardId}`;
    const range = { id, first: BigInt(info.first), last: BigInt(info.last) };
    const applied = this.ranges.get(key) ?? [];
    const overlap = applied.find((r) => r.first <= range.last && range.first <= r.last);
    if (overlap !== undefined) {
      this.rangeOverlaps++;
      if (this.overlapDetails.length < 3) this.overlapDetails.push(`batch ${id} overlaps the input range of applied batch ${overlap.id}`);
    }
    applied.push(range);
    this.ranges.set(key, applied);
    for (const row of rows) this.view.apply(row);
  };

  /** The materialized rows, JSON-encoded. */
  rows(): Record<string, JsonValue>[] {
    return this.view.rows().map(this.encode);
  }
}

/** Rows as sorted canonical strings, so row order does not matter (as test/examples/nexmark.test.ts compares). */
export function canonical(rows: readonly Record<string, JsonValue>[]): string[] {
  return rows.map((r) => JSON.stringify(Object.keys(r).sort().map((k) => [k, r[k]]))).sort();
}

/** Puts records into a stream, ≤ 500 per PutRecords call, re-sending throttled entries. */
export async function putRecords(kinesis: KinesisClient, streamName: string, records: readonly SourceRecord[]): Promise<void> {
  for (let i = 0; i < records.length; i += 500) {
    let pending = records.slice(i, i + 500);
    for (let attempt = 0; pending.length > 0; attempt++) {
      const out = await kinesis.send(
        new PutRecordsCommand({
          StreamName: streamName,
          Records: pending.map((r) => ({ PartitionKey: r.partitionKey, Data: Buffer.from(r.data, 'utf8') })),
        }),
      );
      if ((out.FailedRecordCount ?? 0) === 0) break;
      if (attempt > 10) throw new Error(`PutRecords to ${streamName} keeps failing`);
      const results = out.Records ?? [];
      pending = pending.filter((_, j) => results[j]?.ErrorCode !== undefined);
    }
  }
}

/** Splits a shard at the middle of its hash-key range and waits until the stream is ACTIVE. */
export async function splitShard(kinesis: KinesisClient, streamName: string, shardId: string): Promise<void> {
  const shard = (await listAllShards(kinesis, streamName)).find((s) => s.ShardId === shardId);
  if (shard?.HashKeyRange?.StartingHashKey === undefined || shard.HashKeyRange.EndingHashKey === undefined) {
    throw new Error(`no shard ${shardId} in ${streamName}`);
  }
  const start = BigInt(shard.HashKeyRange.StartingHashKey);
  const end = BigInt(shard.HashKeyRange.EndingHashKey);
  const middle = start + (end - start + 1n) / 2n;
  await kinesis.send(new SplitShardCommand({ StreamName: streamName, ShardToSplit: shardId, NewStartingHashKey: middle.toString() }));
  await waitForActive(kinesis, streamName);
}

/** Merges two adjacent open shards and waits until the stream is ACTIVE. */
export async function mergeShards(kinesis: KinesisClient, streamName: string, shardId: string, adjacentShardId: string): Promise<void> {
  await kinesis.send(new MergeShardsCommand({ StreamName: streamName, ShardToMerge: shardId, AdjacentShardToMerge: adjacentShardId }));
  await waitForActive(kinesis, streamName);
}

/** The open shards of a stream, ordered by starting hash key. */
export async function openShards(kinesis: KinesisClient, streamName: string): Promise<string[]> {
  const shards = (await listAllShards(kinesis, streamName)).filter((s) => s.SequenceNumberRange?.EndingSequenceNumber === undefined);
  shards.sort((a, b) => (BigInt(a.HashKeyRange?.StartingHashKey ?? '0') < BigInt(b.HashKeyRange?.StartingHashKey ?? '0') ? -1 : 1));
  return shards.map((s) => s.ShardId as string);
}

function sanitize(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]/g, '_');
}

/**
 * Runs the job: creates the streams (shards = the reading stage's parallelism) and the table,
 * starts one mapping per stage with the invoker, runs the phases (each drained stage by stage,
 * upstream first), stops the mappings and deletes the streams and the table.
 *
 * @throws when a stage does not drain in time (its mapping's state is in the message)
 */
export async function runJobOnEmulators(options: JobRunOptions): Promise<JobRunResult> {
  const started = Date.now();
  const { clients, graph } = options;
  const { kinesis, dynamoDb } = clients;
  const prefix = sanitize(options.name);
  const tableName = `${prefix}-state`;
  const sourceStreams = new Map<string, string>();
  const inputStreams = new Map<string, string>();
  const creations: Promise<void>[] = [createStateTable(dynamoDb, tableName)];
  for (const [i, stage] of graph.stages.entries()) {
    if (stage.input.type === 'source') {
      const source = stage.input.source;
      let stream = sourceStreams.get(source);
      if (stream === undefined) {
        stream = `${prefix}-src-${sanitize(source)}`;
        sourceStreams.set(source, stream);
        creations.push(createStream(kinesis, stream, stage.parallelism));
      }
      inputStreams.set(stage.id, stream);
    } else {
      const stream = `${prefix}-x${i}`;
      inputStreams.set(stage.id, stream);
      creations.push(createStream(kinesis, stream, stage.parallelism));
    }
  }
  await Promise.all(creations);
  const step = (name: string): void => options.onStep?.(name, Date.now() - started);
  step('created');

  const sinks = new Map(graph.sinks.map((s) => [s.name, new IdempotentSink(s)]));
  const errors: unknown[] = [];
  const created: StageHandler[] = [];
  const deadLetters: DeadLetter[] = [];
  const invoker = options.invoker ?? warmInvoker;
  const mappings: LocalEventSourceMapping[] = [];
  const job: RunningJob = { clients, sourceStreams, inputStreams, tableName };
  try {
    for (const stage of graph.stages) {
      const output = stage.output;
      const runtime: StageRuntime = {
        graph,
        clients,
        stage,
        createHandler: (overrides = {}) => {
          let sink: SinkCallback | undefined;
          if (output.type === 'sink') {
            const target = sinks.get(output.sink);
            if (target === undefined) throw new Error(`stage ${stage.id} writes unknown sink ${output.sink}`);
            sink = overrides.wrapSink ? overrides.wrapSink(target.write) : target.write;
          }
          const handlerOptions: StageHandlerOptions = {
            ...options.handlerOptions,
            graph,
            stageId: stage.id,
            code: options.code,
            dynamoDb: overrides.dynamoDb ?? dynamoDb,
            tableName,
            // Every stage lists its input shards (its state's range and parents).
            kinesis: overrides.kinesis ?? kinesis,
            ...(output.type === 'exchange' ? { outputStreams: new Map([[output.toStage, inputStreams.get(output.toStage) as string]]) } : { sink }),
            onDeadLetters: (letters) => void deadLetters.push(...letters),
            onError: (error) => void errors.push(error),
            ...(overrides.checkpoint ? { checkpoint: overrides.checkpoint } : {}),
          };
          const handler = new StageHandler(handlerOptions);
          created.push(handler);
          return handler;
        },
      };
      const batchSize = typeof options.batchSize === 'function' ? options.batchSize(stage) : (options.batchSize ?? 7);
      mappings.push(
        new LocalEventSourceMapping({
          client: kinesis,
          streamName: inputStreams.get(stage.id) as string,
          startingPosition: 'TRIM_HORIZON',
          batchSize,
          pollIntervalMs: options.pollIntervalMs ?? 200,
          shardDiscoveryIntervalMs: options.shardDiscoveryIntervalMs ?? 1_000,
          retryDelayMs: 1,
          functionName: sanitize(`${prefix}-${stage.id}`).slice(0, 64),
          handler: invoker(runtime),
        }),
      );
    }
    await Promise.all(mappings.map((m) => m.start()));
    step('started');
    for (const [p, phase] of options.phases.entries()) {
      await phase.before?.(job);
      for (const [source, records] of phase.put) {
        const stream = sourceStreams.get(source);
        if (stream === undefined) throw new Error(`no stream for source ${source}`);
        await putRecords(kinesis, stream, records);
      }
      step(`put ${p}`);
      // Upstream first: once a stage has drained, everything it wrote is in the next stream.
      for (const [i, mapping] of mappings.entries()) {
        await mapping.drain({ timeoutMs: options.drainTimeoutMs ?? 60_000 });
        step(`drained ${graph.stages[i]?.id} ${p}`);
      }
    }
  } finally {
    await Promise.allSettled(mappings.map((m) => m.stop()));
    step('stopped');
    if (!options.keep) {
      await Promise.allSettled([
        ...[...new Set(inputStreams.values())].map((s) => kinesis.send(new DeleteStreamCommand({ StreamName: s }))),
        dynamoDb.send(new DeleteTableCommand({ TableName: tableName })),
      ]);
      step('deleted');
    }
  }
  return {
    sinks,
    errors,
    deadLetters,
    mappings: new Map(graph.stages.map((s, i) => [s.id, (mappings[i] as LocalEventSourceMapping).stats()])),
    elapsedMs: Date.now() - started,
    materializations: created.reduce((sum, h) => sum + h.stats().materializations, 0),
    deferredBatches: created.reduce((sum, h) => sum + h.stats().deferredBatches, 0),
    catchUpRecords: created.reduce((sum, h) => sum + h.stats().catchUpRecords, 0),
  };
}
