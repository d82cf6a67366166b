/**
 * The embedded runtime: runs a job graph in-process with N shards per stage, routing rows
 * between stages with exactly the partitioning Kinesis uses (MD5 of the canonical key encoding
 * into evenly split hash ranges), so a key lands on "the same shard" here and on AWS.
 *
 * Execution proceeds in rounds. Each round reads a batch from a source, pushes it through the
 * source stage's operator chains, advances the source shards' watermarks, then drains every
 * downstream stage in topological order: first the rows that arrived, then the watermark.
 * Because each channel's rows are delivered before the watermark that followed them, the order
 * guarantees of a real shuffle hold:
 *
 * ```
 *  source shard 0 ──rows, wm──►┐               ┌──► stage-1 shard 0: rows…, then wm = min(ch0, ch1)
 *                              ├─ hash exchange┤
 *  source shard 1 ──rows, wm──►┘               └──► stage-1 shard 1: rows…, then wm = min(ch0, ch1)
 * ```
 *
 * Bounded inputs end with a +∞ watermark on every source shard, after which every operator's
 * `finish` runs, upstream stages first.
 */
import { existsSync } from 'node:fs';
import { FlambdaError, PlanError, RecordError, type ErrorPolicy } from '../../core/errors.ts';
import { END_OF_PROCESSING_TIME } from '../../core/timestamp.ts';
import type { RetryOptions } from '../../core/retry.ts';
import { StageExecutor, type BatchPort, type ChainStep, type OriginOf, type RecordFailure } from '../stage-executor.ts';
import { createChangeDecoder, type ChangeDecoder } from '../../core/formats.ts';
import { encodeRowToJson } from '../../core/codec.ts';
import type { ChangeRow, RowKind } from '../../core/row.ts';
import type { Row, Value } from '../../core/types.ts';
import type { UdfRegistry } from '../../plan/expr-compile.ts';
import type { GeneratorFunction } from '../../api/pipeline.ts';
import type { OperatorRunner } from '../operator-runner.ts';
import { createOperatorRunner, type OperatorInstantiator } from './create-runner.ts';
import { encodeKey } from '../../partition/key-encoding.ts';
import { KinesisPartitioner } from '../../partition/partitioner.ts';
import type { JobGraph, JobSource, JobStage } from '../../plan/job-graph.ts';
import { upstreamOf } from '../../plan/job-graph.ts';
import { createDimensionSource, createOperator, type DimensionSourceFactory, type UserCode } from '../../operators/registry.ts';
import { BoundedOutOfOrderness, InputWatermarks, eventTimeReader } from '../watermarks.ts';
import { LATE_RECORDS_METRIC } from '../../operators/window-rank/late-data.ts';
import { createSink, type SinkInstance, type SinkObserver, type SinkSetup } from './sinks.ts';
import { abortable, batchRows, inputPartitions, mergePartitions, readJsonLines } from './sources.ts';
import { generatedRows, generatorLabel, generatorPosition, requireBoundedGenerator } from '../generator-rows.ts';
import { embeddedProbe } from './embedded-probe.ts';
import type { JobProbe } from '../job-probe.ts';

/**
 * A record that could not be decoded, failed validation, or failed with a data error in an
 * operator (under the `dead-letter` error policy); it never stops the job.
 */
export interface DeadLetter {
  /** The source the record was read from (the stage id for a row an upstream stage produced). */
  readonly source: string;
  /** `file:line` of the input record (`<stage id> shard <n>` for a row of an upstream stage). */
  readonly position: string;
  readonly reason: string;
  /** The input line, or the row as JSON when it was not read from a file. */
  readonly raw: string;
  /** The operator that raised the error; absent for a record the source could not decode. */
  readonly operator?: string;
}

/** Progress of a running job. */
export interface JobProgress {
  readonly recordsRead: number;
  readonly deadLettered: number;
  readonly elapsedMs: number;
}

/** Everything a job needs besides its graph. */
export interface EmbeddedJobOptions {
  /**
   * JSONL file per source name (overrides a path in the connector), and per JSON-lines lookup
   * table name (`--input side_input=…` binds a dimension table like a source).
   */
  readonly inputs?: ReadonlyMap<string, string>;
  /** User functions and generator sources of the pipeline module. */
  readonly code?: UserCode & { readonly generators?: ReadonlyMap<string, GeneratorFunction> };
  /** Rows read per source batch. @default 1024 */
  readonly batchSize?: number;
  /** How print sinks behave. */
  readonly sinkSetup?: SinkSetup;
  /** Extra observers per sink name (e.g. `--final`, `--changelog`). */
  readonly observers?: ReadonlyMap<string, readonly SinkObserver[]>;
  /** Called with each dead letter. */
  readonly onDeadLetter?: (letter: DeadLetter) => void;
  /** Called about every `progressIntervalMs` while the job runs, and once at the end. */
  readonly onProgress?: (progress: JobProgress) => void;
  /** @default 1000 */
  readonly progressIntervalMs?: number;
  /** Processing-time clock. @default Date.now */
  readonly clock?: () => number;
  /** Builds operator instances. @default the operator registry (shared/operators/registry.ts) */
  readonly instantiate?: OperatorInstantiator;
  /**
   * Called after a source's last batch has gone through the job and before its end-of-input
   * (+∞) watermark, with every operator runner: what is live in state just before the end
   * (benchmarks check window state stays bounded by the live windows).
   */
  readonly onInputEnd?: (source: string, runners: readonly OperatorRunner[]) => void;
  /**
   * Called once, when the job's tasks are built and before the first record, with a probe of
   * them (the `--ui` job page reads counters, state sizes and watermarks through it).
   */
  readonly onStart?: (probe: JobProbe) => void;
  /** Stops the job: it rejects with the signal's reason at the next batch (or pending read). */
  readonly signal?: AbortSignal;
  /** What to do with a record that fails with a data error. @default the graph's, else 'dead-letter' */
  readonly errorPolicy?: ErrorPolicy;
  /** Retries of an operator call that failed with a TransientError. @default core/retry.ts's defaults of the executor */
  readonly retry?: RetryOptions;
}

/** What a finished job reports. */
export interface JobResult {
  readonly recordsRead: number;
  /** Records decoded per source name. */
  readonly recordsBySource: ReadonlyMap<string, number>;
  readonly deadLettered: number;
  readonly elapsedMs: number;
  readonly sinks: ReadonlyMap<string, { readonly rowsWritten: number }>;
  /** Counters summed over the shards of every operator, by operator id. */
  readonly operatorMetrics: ReadonlyMap<string, ReadonlyMap<string, number>>;
  /** Rows too late for every window (`numLateRecordsDropped` summed over all operators). */
  readonly lateRecords: number;
  /** Side-output rows (late or invalid-rowtime rows) written to sinks, and those no sink took. */
  readonly sideOutputRows: { readonly routed: number; readonly dropped: number };
  /** Lookup cache counters summed over every LookupJoin operator; absent when the job has none. */
  readonly lookupCache?: LookupCacheSummary;
}

/** Lookup cache counters of a job (operators' `lookupCacheHits` / `lookupCacheMisses`). */
export interface LookupCacheSummary {
  readonly hits: number;
  readonly misses: number;
  /** hits / (hits + misses); 0 when nothing was looked up. */
  readonly hitRate: number;
}

/**
 * One shard of one stage: its operator chain (run by the stage executor) and input watermarks.
 * A two-input stage (a join first) has rows pending on each side; its watermark channels are
 * the left producer's shards followed by the right producer's, so the join's watermark is the
 * minimum over both sides.
 */
class StageTask {
  pending: ChangeRow[] = [];
  /** Rows of the right input of a two-input stage. */
  pendingRight: ChangeRow[] = [];
  pendingWatermark: number | undefined;

  constructor(
    readonly shard: number,
    readonly executor: StageExecutor,
    readonly inputs: InputWatermarks,
  ) {}

  get runners(): readonly OperatorRunner[] {
    return this.executor.runners;
  }

  /** The last input watermark the chain advanced to. */
  get inputWatermark(): number {
    return this.executor.inputWatermark;
  }

  /** The watermark the chain forwards: the input's, held back by operators that emit late rows. */
  get outputWatermark(): number {
    return this.executor.outputWatermark;
  }
}

interface StageRuntime {
  readonly spec: JobStage;
  readonly tasks: StageTask[];
  /** Side-output rows routed to sinks and dropped (no sink for their tag). */
  readonly side: { routed: number; dropped: number };
  /** Sends a shard's output on, and its operators' side outputs to their sinks. */
  route(fromShard: number, rows: readonly ChangeRow[]): void;
  /** Sends a shard's output watermark downstream. */
  emitWatermark(fromShard: number, watermark: number, now: number): void;
}

/** Runs a job graph to completion on bounded inputs. */
export async function runEmbeddedJob(graph: JobGraph, options: EmbeddedJobOptions = {}): Promise<JobResult> {
  const clock = options.clock ?? Date.now;
  const started = clock();
  const batchSize = options.batchSize ?? 1024;
  const given: NonNullable<EmbeddedJobOptions['code']> = options.code ?? { functions: new Map() };
  // JSON-lines lookup tables are bound by name like sources; other sources as their descriptors say.
  const code = given.lookupSources !== undefined ? given : { ...given, lookupSources: embeddedLookupSources(options.inputs) };
  const sinks = new Map<string, SinkInstance>();
  for (const spec of graph.sinks) {
    const sink = createSink(spec, options.sinkSetup);
    for (const o of options.observers?.get(spec.name) ?? []) sink.observers.push(o);
    sinks.set(spec.name, sink);
  }
  for (const name of options.observers?.keys() ?? []) {
    if (!sinks.has(name)) throw new PlanError(`unknown sink '${name}' (sinks: ${[...sinks.keys()].join(', ')})`);
  }

  let deadLettered = 0;
  const deadLetter = (letter: DeadLetter): void => {
    deadLettered += 1;
    options.onDeadLetter?.(letter);
  };
  const chain: ChainSetup = {
    errorPolicy: options.errorPolicy ?? graph.errorPolicy ?? 'dead-letter',
    ...(options.retry !== undefined ? { retry: options.retry } : {}),
    clock,
    failed: (stage, shard, failure) => deadLetter(processingDeadLetter(stage, shard, failure)),
  };
  const stages = new Map<string, StageRuntime>();
  // Build downstream stages first so routers can reference their tasks.
  for (const spec of [...graph.stages].reverse()) {
    const instantiate = options.instantiate ?? ((op) => createOperator(op, code));
    stages.set(spec.id, await buildStage(spec, graph, stages, sinks, instantiate, chain));
  }
  const order = graph.stages.map((s) => stages.get(s.id) as StageRuntime);
  try {
    options.onStart?.(embeddedProbe(graph, order));

    let recordsRead = 0;
    const recordsBySource = new Map<string, number>();
    let lastProgress = started;
    const progressEvery = options.progressIntervalMs ?? 1000;
    const reportProgress = (force: boolean): void => {
      const now = clock();
      if (options.onProgress && (force || now - lastProgress >= progressEvery)) {
        lastProgress = now;
        options.onProgress({ recordsRead, deadLettered, elapsedMs: now - started });
      }
    };

    const drain = async (fromIndex: number): Promise<void> => {
      for (let s = fromIndex; s < order.length; s++) {
        const stage = order[s] as StageRuntime;
        if (stage.spec.input.type === 'source') continue;
        const now = clock();
        for (const task of stage.tasks) {
          const steps: ChainStep[] = [];
          if (task.pending.length > 0) {
            steps.push({ type: 'rows', rows: task.pending });
            task.pending = [];
          }
          if (task.pendingRight.length > 0) {
            steps.push({ type: 'rows', rows: task.pendingRight, side: 'right' });
            task.pendingRight = [];
          }
          steps.push({ type: 'processing-time', value: now });
          await runSteps(stage, task, steps);
        }
        for (const task of stage.tasks) {
          const wm = task.pendingWatermark;
          if (wm !== undefined) {
            task.pendingWatermark = undefined;
            await runSteps(stage, task, [{ type: 'watermark', value: wm }]);
            stage.emitWatermark(task.shard, task.outputWatermark, now);
          }
        }
      }
    };

    /** One stage reading a source: its shards' watermark generators and round-robin position. */
    interface SourceStage {
      readonly stage: StageRuntime;
      readonly generators: BoundedOutOfOrderness[] | undefined;
      nextShard: number;
      readonly shardBatches: ChangeRow[][];
    }
    /** A source being read, by every stage that reads it (a source read twice feeds two). */
    interface SourceReading {
      readonly source: JobSource;
      readonly steps: AsyncIterator<SourceStep>;
      readonly stages: SourceStage[];
      /** The event time of a source row (the watermark column, or its computed expression). */
      readonly eventTimeOf: ((row: Row) => number | null) | undefined;
      /** The largest event time read so far (-∞ without a watermark or before the first row). */
      eventTime: number;
      done: boolean;
    }
    const readings: SourceReading[] = graph.sources.map((source) => {
      const readers = order.filter((s) => s.spec.input.type === 'source' && s.spec.input.source === source.name);
      const first = readers[0];
      if (first === undefined) throw new PlanError(`internal: no stage reads source '${source.name}'`);
      const watermark = source.watermark;
      return {
        source,
        steps: abortable(readSource(source, options, code, batchSize, first.tasks.length, deadLetter), options.signal)[Symbol.asyncIterator](),
        stages: readers.map((stage) => ({
          stage,
          generators: watermark ? stage.tasks.map(() => new BoundedOutOfOrderness(watermark.outOfOrdernessMs)) : undefined,
          nextShard: 0,
          shardBatches: stage.tasks.map(() => []),
        })),
        eventTimeOf: watermark ? eventTimeReader(watermark, source.schema, code.functions as UdfRegistry) : undefined,
        eventTime: -Infinity,
        done: false,
      };
    });

    /** Deals rows round-robin over each reading stage's shards, or all to `toShard` (a partition's shard). */
    const pushRows = async (reading: SourceReading, rows: readonly Row[], toShard?: number, origin?: OriginOf, kinds?: readonly RowKind[]): Promise<void> => {
      const eventTimeOf = reading.eventTimeOf;
      // Each row's event time once: for a computed rowtime it is an expression.
      const times = eventTimeOf === undefined ? undefined : rows.map(eventTimeOf);
      if (times !== undefined) {
        for (const t of times) if (t !== null && t > reading.eventTime) reading.eventTime = t;
      }
      recordsRead += rows.length;
      recordsBySource.set(reading.source.name, (recordsBySource.get(reading.source.name) ?? 0) + rows.length);
      for (const reader of reading.stages) {
        const { stage, generators, shardBatches } = reader;
        const parallelism = stage.tasks.length;
        for (let i = 0; i < rows.length; i++) {
          const row = rows[i] as Row;
          let shard = reader.nextShard;
          if (toShard === undefined) reader.nextShard = shard + 1 === parallelism ? 0 : shard + 1;
          else shard = toShard;
          (shardBatches[shard] as ChangeRow[]).push({ kind: kinds === undefined ? '+I' : (kinds[i] as RowKind), row });
          if (generators && times) (generators[shard] as BoundedOutOfOrderness).observe(times[i] as number | null);
        }
        const now = clock();
        for (const task of stage.tasks) {
          const batch = shardBatches[task.shard] as ChangeRow[];
          shardBatches[task.shard] = [];
          const steps: ChainStep[] = [{ type: 'processing-time', value: now }];
          if (batch.length > 0) steps.unshift({ type: 'rows', rows: batch, origin });
          await runSteps(stage, task, steps);
        }
        if (generators) {
          for (const task of stage.tasks) {
            const wm = (generators[task.shard] as BoundedOutOfOrderness).current();
            if (wm > task.inputWatermark) {
              await runSteps(stage, task, [{ type: 'watermark', value: wm }]);
              stage.emitWatermark(task.shard, task.outputWatermark, now);
            }
          }
        }
      }
      await drain(0);
      reportProgress(false);
    };

    /** Ends shard `shard` of every stage reading the source: +∞ on it. */
    const endShard = async (reading: SourceReading, shard: number): Promise<void> => {
      for (const { stage } of reading.stages) {
        const task = stage.tasks[shard] as StageTask;
        await runSteps(stage, task, [{ type: 'watermark', value: Infinity }]);
        stage.emitWatermark(task.shard, task.outputWatermark, clock());
      }
      await drain(0);
    };

    // Sources are read together, next from the one whose event time is furthest behind (as
    // Flink's watermark alignment keeps sources together), so a join of two sources holds only
    // what the slower side has not caught up with. Sources without a watermark read first.
    for (;;) {
      let next: SourceReading | undefined;
      for (const r of readings) if (!r.done && (next === undefined || r.eventTime < next.eventTime)) next = r;
      if (next === undefined) break;
      const step = await next.steps.next();
      if (step.done !== true) {
        // Every partition of a shard has ended: the shard is finished and its +∞ watermark
        // stops holding back the stages downstream (Flink: a finished source reader).
        if ('rows' in step.value) await pushRows(next, step.value.rows, step.value.shard, step.value.origin, step.value.kinds);
        else await endShard(next, step.value.endShard);
        continue;
      }
      next.done = true;
      options.onInputEnd?.(next.source.name, order.flatMap((st) => st.tasks.flatMap((t) => t.runners)));
      // End of bounded input: +∞ on every shard of every stage reading the source.
      const now = clock();
      for (const { stage } of next.stages) {
        for (const task of stage.tasks) {
          await runSteps(stage, task, [{ type: 'watermark', value: Infinity }]);
          stage.emitWatermark(task.shard, task.outputWatermark, now);
        }
      }
      await drain(0);
    }

    // Bounded input: processing time ends too, so processing-time windows and pending early or
    // late firings emit their last results instead of being lost with the job (stages upstream
    // first, each one's output drained before the next).
    for (let s = 0; s < order.length; s++) {
      const stage = order[s] as StageRuntime;
      for (const task of stage.tasks) await runSteps(stage, task, [{ type: 'processing-time', value: END_OF_PROCESSING_TIME }]);
      await drain(s + 1);
    }
    // Finish operators upstream first; each stage's leftovers are drained before its own finish.
    for (let s = 0; s < order.length; s++) {
      const stage = order[s] as StageRuntime;
      for (const task of stage.tasks) await runSteps(stage, task, [{ type: 'finish' }]);
      await drain(s + 1);
    }
    for (const sink of sinks.values()) await sink.close();
    reportProgress(true);

    const operatorMetrics = new Map<string, Map<string, number>>();
    let lateRecords = 0;
    const sideOutputRows = { routed: 0, dropped: 0 };
    for (const stage of order) {
      sideOutputRows.routed += stage.side.routed;
      sideOutputRows.dropped += stage.side.dropped;
    }
    for (const stage of order) {
      for (const task of stage.tasks) {
        for (const runner of task.runners) {
          const agg = operatorMetrics.get(runner.operatorId) ?? new Map<string, number>();
          for (const [k, v] of runner.metrics) agg.set(k, (agg.get(k) ?? 0) + v);
          lateRecords += runner.metrics.get(LATE_RECORDS_METRIC) ?? 0;
          operatorMetrics.set(runner.operatorId, agg);
        }
      }
    }
    const lookupOperators = graph.stages.flatMap((st) => st.operators.filter((o) => o.type === 'LookupJoin').map((o) => o.id));
    let lookupCache: LookupCacheSummary | undefined;
    if (lookupOperators.length > 0) {
      let hits = 0;
      let misses = 0;
      for (const id of lookupOperators) {
        hits += operatorMetrics.get(id)?.get('lookupCacheHits') ?? 0;
        misses += operatorMetrics.get(id)?.get('lookupCacheMisses') ?? 0;
      }
      lookupCache = { hits, misses, hitRate: hits + misses === 0 ? 0 : hits / (hits + misses) };
    }
    return {
      ...(lookupCache !== undefined ? { lookupCache } : {}),
      recordsRead,
      recordsBySource,
      deadLettered,
      elapsedMs: clock() - started,
      sinks: new Map([...sinks].map(([name, s]) => [name, { rowsWritten: s.rowsWritten }])),
      operatorMetrics,
      lateRecords,
      sideOutputRows,
    };
  } finally {
    // Operators may hold connections (a lookup join's pool); a job must not keep the process alive.
    await closeRunners(order);
  }
}

/** Closes every operator of every stage; a failing close does not keep the others open. */
async function closeRunners(order: readonly StageRuntime[]): Promise<void> {
  await Promise.allSettled(order.flatMap((stage) => stage.tasks.flatMap((task) => task.runners.map((runner) => runner.close()))));
}

/** How every stage's executors run: the error policy, retries, and where set-aside records go. */
interface ChainSetup {
  readonly errorPolicy: ErrorPolicy;
  readonly retry?: RetryOptions;
  readonly clock: () => number;
  readonly failed: (stage: JobStage, shard: number, failure: RecordFailure) => void;
}

/** The dead letter of a record an operator set aside. */
function processingDeadLetter(stage: JobStage, shard: number, failure: RecordFailure): DeadLetter {
  const input = stage.input;
  return {
    source: input.type === 'source' ? input.source : stage.id,
    // An input record's file:line (also for rows stateless operators derived from it); else the
    // stage shard, and the stateful operator that emitted the row and on what (a window firing on
    // a watermark).
    position: failure.origin?.position ?? (failure.producer === undefined ? `${stage.id} shard ${shard}` : `${stage.id} shard ${shard}, ${failure.producer}`),
    reason: failure.reason,
    raw: failure.origin?.raw ?? rowJson(failure.row.row),
    operator: failure.operator,
  };
}

/** A row as JSON (DECIMAL values are bigints, written as their digits). */
function rowJson(row: Row): string {
  return JSON.stringify(row, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
}

async function buildStage(
  spec: JobStage,
  graph: JobGraph,
  built: ReadonlyMap<string, StageRuntime>,
  sinks: ReadonlyMap<string, SinkInstance>,
  instantiate: OperatorInstantiator,
  chain: ChainSetup,
): Promise<StageRuntime> {
  const clock = chain.clock;
  // Watermark channels: one per upstream shard, the left producer's first.
  const upstreamParallelism =
    spec.input.type === 'source'
      ? 1
      : upstreamOf(spec.input).reduce((n, u) => n + (graph.stages.find((s) => s.id === u.fromStage)?.parallelism ?? 1), 0);
  const idleTimeout = spec.input.type === 'source' ? undefined : sourceIdleTimeout(graph);
  const tasks: StageTask[] = [];
  for (let shard = 0; shard < spec.parallelism; shard++) {
    const runners: OperatorRunner[] = [];
    for (const op of spec.operators) {
      const runner = createOperatorRunner(op, instantiate, shard, spec.parallelism, clock);
      await runner.open();
      runners.push(runner);
    }
    const executor = new StageExecutor(runners, {
      errorPolicy: chain.errorPolicy,
      ...(chain.retry !== undefined ? { retry: chain.retry } : {}),
      label: `${spec.id} shard ${shard}`,
      onRecordFailure: (failure) => chain.failed(spec, shard, failure),
    });
    tasks.push(new StageTask(shard, executor, new InputWatermarks(upstreamParallelism, idleTimeout)));
  }

  const side = { routed: 0, dropped: 0 };
  const routeSide = sideOutputRouter(spec, tasks, sinks, side);
  const output = spec.output;
  if (output.type === 'sink') {
    const sink = sinks.get(output.sink);
    if (!sink) throw new PlanError(`internal: stage ${spec.id} writes to unknown sink '${output.sink}'`);
    return {
      spec,
      tasks,
      side,
      route: (shard, rows) => {
        if (rows.length > 0) sink.write(rows);
        routeSide(shard);
      },
      emitWatermark: () => {},
    };
  }
  const next = built.get(output.toStage);
  if (!next) throw new PlanError(`internal: stage ${spec.id} feeds unknown stage '${output.toStage}'`);
  const targets = next.tasks;
  const distribution = output.distribution;
  // Which input of the next stage this stage feeds, and where its watermark channels start.
  const feeds = upstreamOf(next.spec.input);
  const feedsSide = feeds.find((f) => f.fromStage === spec.id)?.side ?? 'left';
  const channelOffset = feedsSide === 'right' ? (graph.stages.find((s) => s.id === (feeds[0] as { fromStage: string }).fromStage)?.parallelism ?? 1) : 0;
  const pendingOf = feedsSide === 'right' ? (t: StageTask): ChangeRow[] => t.pendingRight : (t: StageTask): ChangeRow[] => t.pending;
  let route: (shard: number, rows: readonly ChangeRow[]) => void;
  if (distribution.type === 'single' || targets.length === 1) {
    const target = targets[0] as StageTask;
    route = (_shard, rows) => {
      const pending = pendingOf(target);
      for (const r of rows) pending.push(r);
    };
  } else if (distribution.type === 'broadcast') {
    route = (_shard, rows) => {
      for (const t of targets) {
        const pending = pendingOf(t);
        for (const r of rows) pending.push(r);
      }
    };
  } else {
    const partitioner = new KinesisPartitioner(targets.length);
    const keys = distribution.keys;
    const single = keys.length === 1 ? (keys[0] as string) : undefined;
    const values: Value[] = new Array<Value>(keys.length);
    route = (_shard, rows) => {
      for (const r of rows) {
        let key: string;
        if (single !== undefined) {
          values[0] = r.row[single] ?? null;
          key = encodeKey(values);
        } else {
          for (let i = 0; i < keys.length; i++) values[i] = r.row[keys[i] as string] ?? null;
          key = encodeKey(values);
        }
        pendingOf(targets[partitioner.shardOf(key)] as StageTask).push(r);
      }
    };
  }
  return {
    spec,
    tasks,
    side,
    route: (shard, rows) => {
      route(shard, rows);
      routeSide(shard);
    },
    emitWatermark: (fromShard, watermark, now) => {
      for (const t of targets) {
        const advanced = t.inputs.update(channelOffset + fromShard, watermark, now);
        if (advanced !== undefined) t.pendingWatermark = advanced;
      }
    },
  };
}

/**
 * Drains the side outputs of a shard's operators into the sinks the stage routes them to (as
 * `+I` rows); rows of a tag no sink takes are counted as dropped (their operator counted them
 * already, e.g. as `numLateRecordsDropped`).
 */
function sideOutputRouter(
  spec: JobStage,
  tasks: readonly StageTask[],
  sinks: ReadonlyMap<string, SinkInstance>,
  counts: { routed: number; dropped: number },
): (shard: number) => void {
  const routes = new Map<string, SinkInstance>();
  for (const s of spec.sideOutputs ?? []) {
    const sink = sinks.get(s.sink);
    if (!sink) throw new PlanError(`internal: stage ${spec.id} routes ${s.operatorId}'s '${s.tag}' rows to unknown sink '${s.sink}'`);
    routes.set(`${s.operatorId}\u0000${s.tag}`, sink);
  }
  return (shard) => {
    const task = tasks[shard];
    if (!task) return;
    for (const runner of task.runners) {
      for (const [tag, rows] of runner.sideOutputs()) {
        const sink = routes.get(`${runner.operatorId}\u0000${tag}`);
        if (sink) {
          sink.write(rows.map((row) => ({ kind: '+I' as const, row })));
          counts.routed += rows.length;
        } else {
          counts.dropped += rows.length;
        }
      }
    }
  };
}

/** The smallest idle timeout declared by any source, applied to exchanges downstream. */
function sourceIdleTimeout(graph: JobGraph): number | undefined {
  const timeouts = graph.sources.map((s) => s.watermark?.idleTimeoutMs).filter((t): t is number => t !== undefined);
  return timeouts.length > 0 ? Math.min(...timeouts) : undefined;
}

/** A step of a source: rows (for one shard, when the input is partitioned), or the end of a shard's partitions. */
/** Rows read from a source; `kinds` (parallel to `rows`) for a changelog format, else every row is `+I`. */
type SourceStep = { readonly rows: Row[]; readonly kinds?: RowKind[]; readonly shard?: number; readonly origin?: OriginOf } | { readonly endShard: number };

/**
 * Yields decoded row batches of one source; bad records become dead letters. A directory
 * input is partitioned: partition (file) i feeds source shard i mod `parallelism`, and each
 * shard ends when its partitions have (at once for a shard with none).
 */
async function* readSource(
  source: JobSource,
  options: EmbeddedJobOptions,
  code: NonNullable<EmbeddedJobOptions['code']>,
  batchSize: number,
  parallelism: number,
  deadLetter: (letter: DeadLetter) => void,
): AsyncGenerator<SourceStep> {
  const connector = source.connector;
  // A generator source produces its rows, unless an input file is bound to it (as `flambda local` reads it).
  if (connector.type === 'generator' && options.inputs?.has(source.name) !== true) {
    const generator = code.generators?.get(connector.ref);
    if (!generator) throw new PlanError(`source '${source.name}': generator ${connector.display} is not in the pipeline module`);
    requireBoundedGenerator(source, 'the embedded runtime (flambda run, flambda sql)');
    // One generator instance produces the whole stream; rows are spread over source shards. A
    // row's position is its number (`values_1#3`), as on the AWS runtime.
    const label = generatorLabel(source);
    let first = 0;
    for (const rows of batchRows(generatedRows(generator), batchSize)) {
      const base = first;
      const origin: OriginOf = (change) => {
        const i = rows.indexOf(change.row);
        return i < 0 ? undefined : { position: generatorPosition(label, base + i), raw: encodeRowToJson(change.row, source.schema) };
      };
      first += rows.length;
      yield { rows, origin };
    }
    return;
  }
  if (connector.type === 'kinesis') {
    const path = options.inputs?.get(source.name);
    if (!path) {
      throw new PlanError(`source '${source.name}' reads Kinesis, which needs the AWS runtime; bind a file with --input ${source.name}=<file.jsonl>`);
    }
  }
  const path = options.inputs?.get(source.name) ?? (connector.type === 'jsonl' ? connector.path : undefined);
  if (!path) {
    throw new PlanError(`source '${source.name}' has no input: pass --input ${source.name}=<file.jsonl>`);
  }
  const decoder = createChangeDecoder(source.schema, connector.type === 'generator' ? undefined : connector.format);
  if (!existsSync(path)) throw new PlanError(`source '${source.name}': input file not found: ${path}`);
  const files = inputPartitions(path);
  const decoded = (file: string) => decodeLines(source.name, file, decoder, batchSize, deadLetter, options.signal);
  if (files.length === 1 && files[0] === path) {
    for await (const batch of decoded(path)) yield { rows: batch.rows, origin: batch.origin, ...(batch.kinds ? { kinds: batch.kinds } : {}) };
    return;
  }
  const open = new Array<number>(parallelism).fill(0);
  files.forEach((_, i) => (open[i % parallelism] as number)++);
  for (let shard = 0; shard < parallelism; shard++) if (open[shard] === 0) yield { endShard: shard };
  for await (const step of mergePartitions(files.map(decoded))) {
    const shard = step.partition % parallelism;
    if ('value' in step) yield { rows: step.value.rows, shard, origin: step.value.origin, ...(step.value.kinds ? { kinds: step.value.kinds } : {}) };
    else if (--(open[shard] as number) === 0) yield { endShard: shard };
  }
}

/** Decoded rows of one read, and where each came from (for the error policy's dead letters). */
interface DecodedBatch {
  readonly rows: Row[];
  /** The rows' kinds, when any is not `+I` (a changelog format). */
  readonly kinds?: RowKind[];
  readonly origin: OriginOf;
}

/** Decodes one JSON-lines file (or pipe) into row batches; bad lines become dead letters. */
async function* decodeLines(
  source: string,
  path: string,
  decoder: ChangeDecoder,
  batchSize: number,
  deadLetter: (letter: DeadLetter) => void,
  signal: AbortSignal | undefined,
): AsyncGenerator<DecodedBatch> {
  for await (const batch of readJsonLines(path, batchSize, signal)) {
    const rows: Row[] = [];
    const kinds: RowKind[] = [];
    const lines: string[] = [];
    const positions: string[] = [];
    for (let i = 0; i < batch.lines.length; i++) {
      const line = batch.lines[i] as string;
      const position = `${path}:${batch.lineNumbers[i]}`;
      try {
        // A line the format skips (a csv comment) gives no change; a Debezium update gives two.
        for (const change of decoder(line, position)) {
          rows.push(change.row);
          kinds.push(change.kind);
          lines.push(line);
          positions.push(position);
        }
      } catch (error) {
        if (!(error instanceof RecordError)) throw error;
        deadLetter({ source, position, reason: error.message, raw: line });
      }
    }
    // Looked up by the row's identity, and only for a record that fails: nothing per row otherwise.
    const origin: OriginOf = (change) => {
      const i = rows.indexOf(change.row);
      return i < 0 ? undefined : { position: positions[i] as string, raw: lines[i] as string };
    };
    if (rows.length > 0) yield { rows, origin, ...(kinds.some((k) => k !== '+I') ? { kinds } : {}) };
  }
}

/** The embedded runtime's dimension sources: the registry's, with JSON-lines tables bound by name. */
export function embeddedLookupSources(inputs: ReadonlyMap<string, string> | undefined): DimensionSourceFactory {
  return (descriptor, context) => createDimensionSource(descriptor, context, inputs === undefined ? {} : { jsonlPaths: inputs });
}

/** Re-exported so callers can tell engine errors from bugs. */
export { FlambdaError };

/**
 * The embedded driver's side of a batch: its output is routed on at once, and its commit does
 * nothing — a bounded embedded run has no checkpoint (it is run again from its input).
 */
function embeddedPort(stage: StageRuntime, task: StageTask): BatchPort<ChainStep> {
  return {
    begin: () => undefined,
    output: (rows) => stage.route(task.shard, rows),
    commit: () => undefined,
  };
}

/**
 * Runs `steps` as one batch of `task` through the executor's batch lifecycle with the embedded
 * port: every embedded loop (source reads, drains, watermarks, end of input) goes through here.
 */
function runSteps(stage: StageRuntime, task: StageTask, steps: readonly ChainStep[]): Promise<void> {
  return task.executor.runBatch(steps, identityStep, embeddedPort(stage, task));
}

function identityStep(step: ChainStep): ChainStep {
  return step;
}
