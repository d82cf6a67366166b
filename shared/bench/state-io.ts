/**
 * The `state-io` benchmark suite: DynamoDB requests per 1,000 input events of the DynamoDB
 * keyed state backend, against a naive write-through-per-record baseline
 * (write-through-state-store.ts) measured in the same run, on the same input and emulator.
 *
 * dynalite is started in-process on 127.0.0.1 on a free port; every (case, backend) pair gets
 * its own table. The case's job graph is planned at parallelism 1 and driven in-process by
 * {@link drive}: one {@link StageExecutor} per stage over the store, without Kinesis and without
 * the embedded runtime's exchanges — at parallelism 1 every exchange sends every row to the
 * single downstream shard (into the side it feeds, for a join), so a batch's rows flow through
 * the stages in order. Any job graph at parallelism 1 runs so (test/runtime/golden-pipelines.test.ts
 * runs the Nexmark golden pipelines through it). Input is fed in batches of
 * {@link STATE_IO_BATCH} events; per batch the operators prefetch (inside processBatch), process,
 * and then every store is flushed (DynamoDB backend) or drained (baseline). Bounded input ends
 * with watermark +∞, every operator's `finish` and a last flush.
 *
 * Each batch ends with the stage handler's effectively-once commit (checkpointedCommit below).
 *
 * Figures: `writes_per_1000` = every write request of the DynamoDB backend and the protocol
 * (BatchWriteItem of the state and the redo log, checkpoint UpdateItems), with
 * `checkpoint_writes_per_1000` the checkpoint part; `reads_per_1000` = Query and GetItem requests;
 * `baseline_writes_per_1000` = PutItem + DeleteItem, `baseline_reads_per_1000` = GetItem +
 * Query; `write_items_per_1000` = items the DynamoDB backend put or deleted; `write_reduction` =
 * baseline writes / writes.
 *
 * Billing units — what DynamoDB charges, per item and per KB, whatever the number of requests —
 * come from a meter on each side's client (shared/aws/billing/metered-dynamodb.ts), priced from
 * the sizes of the items actually written and read: `write_units_per_1000` and
 * `read_units_per_1000` for the DynamoDB backend with the protocol (of which
 * `checkpoint_write_units_per_1000` are the checkpoint item's conditional updates, which carry
 * the redo log inline), `baseline_write_units_per_1000` and `baseline_read_units_per_1000`, and
 * `write_unit_reduction` = baseline write units / write units.
 */
import { startDynalite } from '../aws/local/emulators.ts';
import { readFileSync } from 'node:fs';
import { sum, count, max } from '../api/aggregates.ts';
import { tumble } from '../api/windows.ts';
import { Pipeline } from '../api/pipeline.ts';
import { meterDynamoDb, type MeteredDynamoDb } from '../aws/billing/metered-dynamodb.ts';
import { createDynamoDbClient } from '../aws/clients.ts';
import { ATTR } from '../aws/state/constants.ts';
import { createStateTable } from '../aws/state/create-state-table.ts';
import { DynamoDbStateStore } from '../aws/state/dynamodb-state-store.ts';
import { batchWrite, newIoCounters } from '../aws/state/table-io.ts';
import type { DynamoDbSender, IoCounters } from '../aws/state/table-io.ts';
import { CheckpointStore } from '../aws/checkpoint/checkpoint-store.ts';
import { TIMER_OPERATOR_TYPES } from '../aws/handler/stage-handler.ts';
import { TimerJournal } from '../aws/state/timer-journal.ts';
import { countWrites, encodeRedo } from '../aws/checkpoint/redo-codec.ts';
import { PlanError } from '../core/errors.ts';
import { createRowDecoder, decodeJsonLine } from '../core/codec.ts';
import { schemaOf } from '../core/type-parse.ts';
import type { ChangeRow } from '../core/row.ts';
import type { Row } from '../core/types.ts';
import { createOperator, type UserCode } from '../operators/registry.ts';
import { upstreamOf, type JobGraph, type JobStage } from '../plan/job-graph.ts';
import { OperatorRunner } from '../runtime/operator-runner.ts';
import { StageExecutor, type ChainStep } from '../runtime/stage-executor.ts';
import type { KeyedStateStore } from '../state/state.ts';
import { BID_SCHEMA, writeBidFile } from './bench-input.ts';
import type { BenchResult } from './bench-common.ts';
import { WriteThroughStateStore } from './write-through-state-store.ts';

/** Input events per batch (prefetch, process, flush). */
export const STATE_IO_BATCH = 500;

const blackhole = { connector: { type: 'blackhole' as const } };

/** The cases: q19 (Top-10 price per auction, as examples/nexmark/q19.ts), tumble-agg (10 s TUMBLE count and sum per auction) and group-agg. */
export const STATE_IO_CASES: readonly { readonly name: string; readonly build: (p: Pipeline) => void }[] = [
  {
    name: 'q19',
    build: (p) =>
      p
        .source('bid', { schema: BID_SCHEMA })
        .topN(10, { partitionBy: ['auction'], orderBy: ['price DESC'], rankNumber: 'rank_number' })
        .sinkTo('out', { ...blackhole, upsertKey: ['auction', 'rank_number'] }),
  },
  {
    name: 'tumble-agg',
    build: (p) =>
      p
        .source('bid', { schema: BID_SCHEMA, watermark: { column: 'date_time', outOfOrdernessMs: 4_000 } })
        .window(tumble('date_time', '10 s'))
        .aggregate({ bids: count(), volume: sum('price') }, { groupBy: ['auction'] })
        .sinkTo('out', { ...blackhole }),
  },
  {
    name: 'group-agg',
    build: (p) =>
      p
        .source('bid', { schema: BID_SCHEMA })
        .groupBy('auction')
        .aggregate({ bids: count(), volume: sum('price'), top: max('price') })
        .sinkTo('out', { ...blackhole, upsertKey: ['auction'] }),
  },
];

/** A store the driver can end a batch on. */
interface BatchStore {
  readonly store: KeyedStateStore;
  endBatch(): Promise<unknown>;
  /** Journals the operator's timers (DynamoDB backend: timers commit with the state). */
  readonly timers?: TimerJournal;
}

/** Checks every stage runs on one shard, as the driver assumes. */
function checkSingleShard(graph: JobGraph): void {
  for (const stage of graph.stages) {
    if (stage.parallelism !== 1) throw new PlanError(`internal: state-io job '${graph.name}' runs stage ${stage.id} on ${stage.parallelism} shards; the driver runs parallelism 1`);
  }
}

/** What {@link drive} is given besides the graph and the input. */
export interface DriveOptions {
  /** The pipeline's user functions and dimension sources. @default none */
  readonly code?: UserCode;
  /** Receives every changelog batch a sink gets, in order. */
  readonly onSink?: (sink: string, rows: readonly ChangeRow[]) => void;
}

/**
 * Runs `rows` (the events of every source) through the job graph at parallelism 1 in batches
 * of {@link STATE_IO_BATCH}, each operator over its own store from `makeStore`, each stage
 * through its own {@link StageExecutor}; `afterBatch` ends every batch (the commit). At
 * parallelism 1 every exchange sends every row to the one downstream shard, so a stage's output
 * goes straight into the next stage's executor (into the side it feeds, for a join). Returns the
 * number of rows the sinks got.
 *
 * Event time as a source shard has it: max event time − the out-of-orderness, after each batch;
 * a stage's input watermark is the minimum of its upstream stages' output watermarks (both sides
 * of a join), advanced upstream first so windows fire (and free their state) as they go. Bounded
 * input ends, stage by stage upstream first, with watermark +∞ and every operator's `finish`,
 * as the embedded runtime ends it.
 */
export async function drive(
  graph: JobGraph,
  rows: readonly Row[],
  makeStore: (operatorId: string, stageId: string, operatorType: string) => BatchStore,
  afterBatch: () => Promise<void> = () => Promise.resolve(),
  options: DriveOptions = {},
): Promise<number> {
  checkSingleShard(graph);
  const stores: BatchStore[] = [];
  const runners: OperatorRunner[] = [];
  const code = options.code ?? { functions: new Map<string, unknown>() };
  const executors = new Map<string, StageExecutor>();
  for (const stage of graph.stages) {
    const chain: OperatorRunner[] = [];
    for (const op of stage.operators) {
      const store = makeStore(op.id, stage.id, op.type);
      stores.push(store);
      const runner = new OperatorRunner(() => createOperator(op, code), { operatorId: op.id, shard: 0, parallelism: 1, state: store.store });
      store.timers?.attach(runner.timers);
      await runner.open();
      chain.push(runner);
    }
    runners.push(...chain);
    executors.set(
      stage.id,
      new StageExecutor(chain, {
        label: `${stage.id} shard 0`,
        onRecordFailure: (failure) => {
          throw new PlanError(`internal: state-io input row failed in ${failure.operator}: ${failure.reason}`);
        },
      }),
    );
  }
  const executorOf = (stage: JobStage): StageExecutor => executors.get(stage.id) as StageExecutor;
  let emitted = 0;
  /** Sends a stage's output on: into the sink, or into the side of the next stage it feeds. */
  const route = async (stage: JobStage, out: readonly ChangeRow[]): Promise<void> => {
    if (out.length === 0) return;
    const output = stage.output;
    if (output.type === 'sink') {
      emitted += out.length;
      options.onSink?.(output.sink, out);
      return;
    }
    const next = graph.stages.find((s) => s.id === output.toStage);
    if (next === undefined) throw new PlanError(`internal: stage ${stage.id} feeds unknown stage '${output.toStage}'`);
    const side = upstreamOf(next.input).find((u) => u.fromStage === stage.id)?.side ?? 'left';
    await runSteps(next, [{ type: 'rows', rows: out, side }]);
  };
  /**
   * One stage's steps through the executor's batch lifecycle (StageExecutor.runBatch), as every
   * runtime drives it: the port routes each step's output on; its commit does nothing, because
   * the checkpoint of an input slice covers every stage and is made once by `endBatch` below.
   */
  const runSteps = (stage: JobStage, steps: readonly ChainStep[]): Promise<void> =>
    executorOf(stage).runBatch(steps, (step) => step, { begin: () => undefined, output: (rows) => route(stage, rows), commit: () => undefined });
  /** The watermark a stage's input is at: the source's, or the least of its upstream stages' outputs. */
  const inputWatermark = (stage: JobStage, sourceWatermark: number): number => {
    const upstream = upstreamOf(stage.input);
    if (upstream.length === 0) return sourceWatermark;
    return Math.min(...upstream.map((u) => executors.get(u.fromStage)?.outputWatermark ?? -Infinity));
  };
  const advance = async (sourceWatermark: number): Promise<void> => {
    for (const stage of graph.stages) {
      const executor = executorOf(stage);
      const watermark = inputWatermark(stage, sourceWatermark);
      if (watermark > executor.inputWatermark) await runSteps(stage, [{ type: 'watermark', value: watermark }]);
    }
  };
  const sourceStages = graph.stages.filter((s) => s.input.type === 'source');
  const endBatch = async (): Promise<void> => {
    for (const s of stores) await s.endBatch();
    await afterBatch();
  };
  const watermark = graph.sources[0]?.watermark;
  let maxEventTime = -Infinity;
  for (let start = 0; start < rows.length; start += STATE_IO_BATCH) {
    const slice = rows.slice(start, start + STATE_IO_BATCH);
    // Every source stage reads the whole input (a stream consumed twice is read once per branch).
    for (const stage of sourceStages) await runSteps(stage, [{ type: 'rows', rows: slice.map((row): ChangeRow => ({ kind: '+I', row })) }]);
    if (watermark !== undefined) {
      for (const row of slice) maxEventTime = Math.max(maxEventTime, row[watermark.column] as number);
      await advance(maxEventTime - watermark.outOfOrdernessMs);
    }
    await endBatch();
  }
  for (const stage of graph.stages) {
    const executor = executorOf(stage);
    const steps: ChainStep[] = executor.inputWatermark < Infinity ? [{ type: 'watermark', value: Infinity }] : [];
    steps.push({ type: 'finish' });
    await runSteps(stage, steps);
  }
  await endBatch();
  for (const runner of runners) await runner.close();
  return emitted;
}

function per1000(requests: number, events: number): number {
  return Math.round((requests * 1_000_000) / events) / 1000;
}

/** A billing meter over `client` for the state table's items (keys `pk`, `sk`). */
function meter(client: DynamoDbSender): MeteredDynamoDb {
  return meterDynamoDb(client, { keyAttributes: [ATTR.pk, ATTR.sk] });
}

/**
 * The stage handler's commit as the DynamoDB backend's batch end, so the figures include the
 * effectively-once protocol (docs/effectively-once.md): per batch one fence, one announce, one
 * conditional commit carrying the redo log, the redo log's BatchWriteItem calls, one release.
 * One checkpoint per stage, committing the stores of all its operators, as the handler does.
 */
function checkpointedCommit(
  client: DynamoDbSender,
  checkpointClient: DynamoDbSender,
  tableName: string,
  stageId: string,
  stores: DynamoDbStateStore[],
): { endBatch: () => Promise<void>; io: IoCounters; checkpoints: CheckpointStore; stores: DynamoDbStateStore[]; journals: TimerJournal[] } {
  const journals: TimerJournal[] = [];
  const checkpoints = new CheckpointStore({ client: checkpointClient, tableName, stage: stageId, shardId: 'shardId-000000000000' });
  const io = newIoCounters();
  const options = { client, tableName, concurrency: 8, maxAttempts: 8, baseMs: 50, maxMs: 5_000, random: Math.random, sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)) };
  let version = 0;
  const endBatch = async (): Promise<void> => {
    await checkpoints.fence(Date.now() + 60_000);
    const prepared = stores.map((store) => store.prepareFlush());
    const phases = [0, 1, 2].map((i) => prepared.flatMap((p) => p.phases[i] ?? []));
    for (const journal of journals) phases[1]?.push(...journal.drain());
    const sequence = String(version + 1);
    await checkpoints.announce({ first: sequence, last: sequence });
    const redo = countWrites(phases) > 0 ? encodeRedo(phases) : undefined;
    const ref = await checkpoints.commit(++version, { sequence }, redo);
    for (const phase of phases) if (phase.length > 0) await batchWrite(phase, options, io);
    for (const p of prepared) p.landed();
    await checkpoints.release(ref);
  };
  return { endBatch, io, checkpoints, stores, journals };
}

/** What {@link driveOnDynamoDbState} ran: its output count and the figures' sources. */
export interface DynamoDbStateRun {
  readonly rowsOut: number;
  /** The operators' state stores. */
  readonly dynamo: readonly DynamoDbStateStore[];
  /** Each stage's protocol writes and checkpoint requests, in pairs (protocol, checkpoint). */
  readonly protocol: readonly IoCounters[];
  /** Billing of the state, timer and redo items. */
  readonly stateMeter: MeteredDynamoDb;
  /** Billing of the checkpoint items. */
  readonly checkpointMeter: MeteredDynamoDb;
}

/**
 * Drives `graph` over `rows` on the DynamoDB keyed state backend in `tableName`, every batch
 * ending with each stage's effectively-once commit (stateless stages commit too, as the stage
 * handler does), the timers of timer operators journaled with their stage's state.
 */
export async function driveOnDynamoDbState(graph: JobGraph, rows: readonly Row[], client: DynamoDbSender, tableName: string, options: DriveOptions = {}): Promise<DynamoDbStateRun> {
  const dynamo: DynamoDbStateStore[] = [];
  const protocol: IoCounters[] = [];
  const stateMeter = meter(client);
  const checkpointMeter = meter(client);
  const stageCommits = new Map(graph.stages.map((stage) => [stage.id, checkpointedCommit(stateMeter, checkpointMeter, tableName, stage.id, [])]));
  for (const commit of stageCommits.values()) protocol.push(commit.io, commit.checkpoints.io);
  const rowsOut = await drive(
    graph,
    rows,
    (operatorId, stageId, operatorType) => {
      const store = new DynamoDbStateStore({ client: stateMeter, tableName, operatorId, keyGroups: graph.keyGroups });
      dynamo.push(store);
      const commit = stageCommits.get(stageId);
      commit?.stores.push(store);
      const timers = TIMER_OPERATOR_TYPES.has(operatorType) ? new TimerJournal(operatorId, graph.keyGroups) : undefined;
      if (timers !== undefined) commit?.journals.push(timers);
      return { store, endBatch: () => Promise.resolve(), ...(timers === undefined ? {} : { timers }) };
    },
    async () => {
      for (const commit of stageCommits.values()) await commit.endBatch();
    },
    options,
  );
  return { rowsOut, dynamo, protocol, stateMeter, checkpointMeter };
}

/** Runs the suite: one result per case; `progress` gets a line as each backend of each case starts. */
export async function runStateIoSuite(events: number, progress: (line: string) => void = () => undefined): Promise<BenchResult[]> {
  const input = writeBidFile(events, 10_000);
  const emulator = await startDynalite();
  const client: DynamoDbSender & { destroy(): void } = createDynamoDbClient({
    endpoint: emulator.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
  });
  try {
    const decoder = createRowDecoder(schemaOf(BID_SCHEMA));
    const rows = readFileSync(input.path, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line, i) => decodeJsonLine(line, decoder, `bid:${i + 1}`));
    if (rows.length !== events) throw new PlanError(`state-io read ${rows.length} of ${events} events`);
    const results: BenchResult[] = [];
    for (const c of STATE_IO_CASES) {
      const p = new Pipeline(`bench-state-io-${c.name}`);
      c.build(p);
      const graph = p.jobGraph({ parallelism: 1 });
      const stateTable = `state-io-${c.name}-dynamodb`;
      const baselineTable = `state-io-${c.name}-baseline`;
      await createStateTable(client, stateTable);
      await createStateTable(client, baselineTable);

      progress(`state-io: ${c.name} on the DynamoDB backend (${events.toLocaleString('en-US')} events)\n`);
      const started = Date.now();
      const { rowsOut, dynamo, protocol, stateMeter, checkpointMeter } = await driveOnDynamoDbState(graph, rows, client, stateTable);
      const dynamoMs = Date.now() - started;
      // Billing of the baseline's items (the backend's meters are driveOnDynamoDbState's).
      const baselineMeter = meter(client);

      const baseline: WriteThroughStateStore[] = [];
      progress(`state-io: ${c.name} on the write-through baseline\n`);
      const baselineStarted = Date.now();
      const baselineRowsOut = await drive(graph, rows, (operatorId) => {
        const store = new WriteThroughStateStore({ client: baselineMeter, tableName: baselineTable, operatorId, keyGroups: graph.keyGroups });
        baseline.push(store);
        return { store, endBatch: () => store.drain() };
      });
      const baselineMs = Date.now() - baselineStarted;
      // Both backends must have computed the same thing, or the comparison means nothing.
      if (rowsOut !== baselineRowsOut) throw new PlanError(`internal: state-io ${c.name} emitted ${rowsOut} rows on DynamoDB state, ${baselineRowsOut} on the baseline`);

      let writes = 0;
      let reads = 0;
      let writeItems = 0;
      for (const s of dynamo) {
        const stats = s.stats();
        writes += stats.writeRequests;
        reads += stats.readRequests;
        writeItems += stats.writeItems;
      }
      let checkpointWrites = 0;
      for (const io of protocol) {
        writes += io.writeRequests;
        reads += io.readRequests;
        writeItems += io.writeItems;
      }
      for (const c of protocol.filter((_, i) => i % 2 === 1)) checkpointWrites += c.writeRequests;
      const writeUnits = stateMeter.usage.writeUnits + checkpointMeter.usage.writeUnits;
      const readUnits = stateMeter.usage.readUnits + checkpointMeter.usage.readUnits;
      let baselineWrites = 0;
      let baselineReads = 0;
      for (const s of baseline) {
        const stats = s.stats();
        baselineWrites += stats.writeRequests;
        baselineReads += stats.readRequests;
      }
      results.push({
        suite: 'state-io',
        case: c.name,
        events,
        batch: STATE_IO_BATCH,
        writes_per_1000: per1000(writes, events),
        reads_per_1000: per1000(reads, events),
        write_items_per_1000: per1000(writeItems, events),
        checkpoint_writes_per_1000: per1000(checkpointWrites, events),
        baseline_writes_per_1000: per1000(baselineWrites, events),
        baseline_reads_per_1000: per1000(baselineReads, events),
        write_reduction: writes === 0 ? 0 : Math.round((baselineWrites / writes) * 10) / 10,
        write_units_per_1000: per1000(writeUnits, events),
        read_units_per_1000: per1000(readUnits, events),
        checkpoint_write_units_per_1000: per1000(checkpointMeter.usage.writeUnits, events),
        baseline_write_units_per_1000: per1000(baselineMeter.usage.writeUnits, events),
        baseline_read_units_per_1000: per1000(baselineMeter.usage.readUnits, events),
        write_unit_reduction: writeUnits === 0 ? 0 : Math.round((baselineMeter.usage.writeUnits / writeUnits) * 100) / 100,
        elapsed_ms: dynamoMs,
        baseline_elapsed_ms: baselineMs,
      });
    }
    return results;
  } finally {
    client.destroy();
    await emulator.close();
    input.cleanup();
  }
}
