/**
 * The `aws-cost` benchmark suite: what a pipeline costs on AWS, measured through the real stage
 * handlers on the in-process emulators (shared/aws/local/local-job.ts: kinesalite, dynalite, one
 * {@link StageHandler} per stage fed by a local event source mapping, batches of
 * {@link AWS_COST_BATCH}), priced with shared/aws/billing/prices.ts.
 *
 * Cases: q19, tumble-agg and group-agg on the state-io input (20,000 bid events over 10,000
 * auctions by default), and Nexmark q5 and q13 (examples/nexmark) on generated Nexmark data.
 * Every case runs at parallelism 1: one source shard, one shard per exchange, so the figures
 * are per shard.
 *
 * What is metered: the handlers' DynamoDB client (write and read units as DynamoDB bills them,
 * shared/aws/billing/metered-dynamodb.ts — state, timers, changelog, checkpoints), their Kinesis
 * client (PUT payload units of the exchange records, metered-kinesis.ts), and each invocation's
 * duration (Lambda GB-seconds at {@link AWS_COST_MEMORY_MB}). The source stream is priced as
 * the workload's, 1 KB events, not the bench's shorter JSON lines. Sinks are blackholes: a sink's
 * own cost depends on where it writes.
 *
 * The handlers commit as deployed (`DEFAULT_COMMIT_POLICY`: up to 8 batches or 10 s per commit,
 * docs/effectively-once.md), and each stage's container is switched once, after its
 * {@link AWS_COST_COLD_START_AFTER}th invocation (mid commit interval): `max_catch_up_records`
 * and `max_catch_up_s` are the longest catch-up after that cold start (uncommitted records
 * re-read from the stream, and the time until they were processed again).
 *
 * Figures per case: `write_units_per_1000`, `read_units_per_1000`,
 * `kinesis_put_units_per_1000` (source stream at 1 KB per event + exchanges),
 * `lambda_invocations_per_1000`, `lambda_gb_s_per_1000`, `usd_per_million_events` (no
 * shard-hours), and `usd_month_10eps_bursty`, `usd_month_1k_eps`, `usd_month_100k_eps` beside
 * `msf_usd_month_*` (cost-model.ts, with `msf_events_per_kpu` the stated assumption);
 * `handler_events_per_s` = events / seconds spent in the busiest stage's handler (the
 * per-shard throughput; stages run one at a time so that a stage's measured durations do not
 * include another's work on the shared thread), beside `handler_events_per_s_commit_every_batch`
 * and `throughput_ratio_to_commit_every_batch` (the same job run again in the same process with
 * a commit per batch, the protocol before commit intervals); `rows_out`; `state_commit_kb_per_1000`
 * (compressed changelog and page bytes committed) and `materializations`
 * (shared/aws/state/shard-state.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pipeline } from '../api/pipeline.ts';
import { meterDynamoDb } from '../aws/billing/metered-dynamodb.ts';
import type { MeteredDynamoDb } from '../aws/billing/metered-dynamodb.ts';
import { meterKinesis } from '../aws/billing/metered-kinesis.ts';
import type { MeteredKinesis } from '../aws/billing/metered-kinesis.ts';
import { DEFAULT_MSF_EVENTS_PER_KPU, cents, flambdaMonthly, msfMonthly, usdPerMillionEvents } from '../aws/billing/cost-model.ts';
import type { UsagePer1000 } from '../aws/billing/cost-model.ts';
import { addInvocation, newLambdaUsage, putPayloadUnits } from '../aws/billing/stream-units.ts';
import type { LambdaUsage } from '../aws/billing/stream-units.ts';
import { awsDimensionSources } from '../aws/lookup/dimension-sources.ts';
import { DEFAULT_COMMIT_POLICY } from '../aws/handler/stage-handler.ts';
import type { CommitPolicy, StageHandler } from '../aws/handler/stage-handler.ts';
import { runLocalJob } from '../aws/local/local-job.ts';
import { ATTR } from '../aws/state/constants.ts';
import { PlanError } from '../core/errors.ts';
import { loadExampleQuery } from '../nexmark/run.ts';
import { writeNexmarkFiles } from '../nexmark/write-files.ts';
import type { JobGraph } from '../plan/job-graph.ts';
import type { UserCode } from '../operators/registry.ts';
import { writeBidFile } from './bench-input.ts';
import { STATE_IO_CASES } from './state-io.ts';
import type { BenchResult } from './bench-common.ts';

/** Records per handler invocation (the event source mapping's BatchSize). */
export const AWS_COST_BATCH = 500;

/** Invocations of each stage before the bench switches its container (one cold start per stage, mid commit interval). */
export const AWS_COST_COLD_START_AFTER = 3;

/** Lambda memory priced, MB (the stack's default, infra/lib/stream-pipeline.ts). */
export const AWS_COST_MEMORY_MB = 1024;

/** Bytes per event the monthly figures assume. */
export const AWS_COST_EVENT_BYTES = 1024;

/** Default events of the state-io cases, and Nexmark events of q5 and q13. */
export const AWS_COST_DEFAULT_EVENTS = 20_000;

/** A job to measure: its graph, user code and input files. */
export interface CostJob {
  readonly name: string;
  readonly graph: JobGraph;
  readonly code: UserCode;
  readonly inputs: ReadonlyMap<string, string>;
}

/** What one measured run used, per 1,000 input events, and the run's own figures. */
export interface MeasuredJob {
  readonly events: number;
  /** The whole job's usage. */
  readonly usage: UsagePer1000;
  /** Each stage's. */
  readonly stages: readonly StageUsage[];
  readonly rowsOut: number;
  /** Compressed state bytes committed per 1,000 events (changelog segments, pages when materializing). */
  readonly stateCommitBytes: number;
  /** Commits that materialized pages. */
  readonly materializations: number;
  /** Most changelog segments one cold start read (none in a run without container switches). */
  readonly maxColdStartSegments: number;
  /** The longest catch-up after the run's cold starts: uncommitted records re-read, and ms until they were processed again. */
  readonly maxCatchUpRecords: number;
  readonly maxCatchUpMs: number;
  /** Input events per second of handler time in the busiest stage. */
  readonly handlerEventsPerS: number;
  readonly writeRequestsPer1000: number;
  readonly itemsWrittenPer1000: number;
}

function per1000(value: number, events: number): number {
  return (value * 1000) / events;
}

function round(value: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** One stage's usage per 1,000 input events of the job. */
export interface StageUsage {
  readonly stage: string;
  readonly usage: UsagePer1000;
  /** Compressed state bytes the stage committed per 1,000 events, by operator (changelog and pages, shared out by raw bytes). */
  readonly stateBytesByOperator: ReadonlyMap<string, number>;
}

/** Runs `job` through the stage handlers on fresh emulators with metered clients (one meter per stage). */
export async function measureJob(job: CostJob, batchSize = AWS_COST_BATCH, commit: CommitPolicy = DEFAULT_COMMIT_POLICY): Promise<MeasuredJob> {
  const dynamo = new Map<string, MeteredDynamoDb>();
  const kinesis = new Map<string, MeteredKinesis>();
  const lambda = new Map<string, LambdaUsage>(job.graph.stages.map((s) => [s.id, newLambdaUsage()]));
  let rowsOut = 0;
  let handlers: ReadonlyMap<string, StageHandler> = new Map();
  const result = await runLocalJob({
    graph: job.graph,
    code: job.code,
    inputs: job.inputs,
    batchSize,
    sink: (_name, rows) => void (rowsOut += rows.length),
    handlerSetup: {
      options: { commit },
      // A meter sees every write to the items it prices: a stage's items (checkpoint, changelog, pages) are its own.
      dynamoDb: (client, stage) => {
        const meter = meterDynamoDb(client, { keyAttributes: [ATTR.pk, ATTR.sk] });
        dynamo.set(stage, meter);
        return meter;
      },
      kinesis: (client, stage) => {
        const meter = meterKinesis(client);
        kinesis.set(stage, meter);
        return meter.client;
      },
      onInvocation: (stage, _records, ms) => {
        const usage = lambda.get(stage) as LambdaUsage;
        addInvocation(usage, ms, AWS_COST_MEMORY_MB);
        // One container switch per stage, mid-interval: the next invocation rebuilds from the
        // checkpoint and re-reads what the interval held (the catch-up after a cold start).
        if (usage.invocations === AWS_COST_COLD_START_AFTER) handlers.get(stage)?.simulateColdStart();
      },
      sequentialStages: true,
      // An exchange stage gets, per invocation, what the stage upstream wrote for one batch of
      // input — as it would live, where it is invoked as the bundles arrive — not the whole
      // backlog at once.
      batchSizeFor: (stage) => {
        if (stage.input.type === 'source') return batchSize;
        const from = stage.input.type === 'twoInput' ? [stage.input.left.fromStage, stage.input.right.fromStage] : [stage.input.fromStage];
        let upstreamRecords = 0;
        let upstreamInvocations = 0;
        for (const id of from) {
          for (const [stream, of] of kinesis.get(id)?.byStream ?? []) if (stream.endsWith(`-exchange-${stage.id.replace(/[^A-Za-z0-9_.-]/g, '_')}`)) upstreamRecords += of.records;
          upstreamInvocations += lambda.get(id)?.invocations ?? 0;
        }
        return Math.max(1, Math.min(10_000, Math.round(upstreamRecords / Math.max(1, upstreamInvocations))));
      },
    },
    onHandlers: (h) => void (handlers = h),
  });
  const events = result.recordsRead;
  if (events === 0) throw new PlanError(`aws-cost ${job.name}: no input events`);
  const stages: StageUsage[] = job.graph.stages.map((stage) => {
    const d = dynamo.get(stage.id)?.usage;
    const k = kinesis.get(stage.id);
    const l = lambda.get(stage.id) as LambdaUsage;
    let records = 0;
    let bytes = 0;
    for (const of of k?.byStream.values() ?? []) {
      records += of.records;
      bytes += of.bytes;
    }
    const handler = handlers.get(stage.id);
    const committed = handler?.stats().stateCommitBytes ?? 0;
    const raw = handler?.stateBytesByOperator() ?? new Map<string, number>();
    const rawTotal = [...raw.values()].reduce((a, b) => a + b, 0);
    const byOperator = new Map([...raw].map(([op, b]) => [op, rawTotal === 0 ? 0 : per1000((committed * b) / rawTotal, events)]));
    return {
      stage: stage.id,
      stateBytesByOperator: byOperator,
      usage: {
        writeUnits: per1000(d?.writeUnits ?? 0, events),
        readUnits: per1000(d?.readUnits ?? 0, events),
        lambdaInvocations: per1000(l.invocations, events),
        lambdaGbSeconds: per1000(l.gbSeconds, events),
        exchangePutUnits: per1000(k?.usage.putPayloadUnits ?? 0, events),
        sqsRequests: 0,
        exchanges: stage.output.type === 'exchange' ? [{ records: per1000(records, events), bytes: per1000(bytes, events) }] : [],
      },
    };
  });
  const sum = (f: (u: UsagePer1000) => number): number => stages.reduce((a, s) => a + f(s.usage), 0);
  let stateCommitBytes = 0;
  let materializations = 0;
  let maxColdStartSegments = 0;
  let maxCatchUpRecords = 0;
  let maxCatchUpMs = 0;
  for (const handler of handlers.values()) {
    const stats = handler.stats();
    maxCatchUpRecords = Math.max(maxCatchUpRecords, stats.maxCatchUpRecords);
    maxCatchUpMs = Math.max(maxCatchUpMs, stats.maxCatchUpMs);
    stateCommitBytes += stats.stateCommitBytes;
    materializations += stats.materializations;
    maxColdStartSegments = Math.max(maxColdStartSegments, stats.maxColdStartSegments);
  }
  let busiestMs = 0;
  for (const l of lambda.values()) busiestMs = Math.max(busiestMs, l.durationMs);
  let writeRequests = 0;
  let itemsWritten = 0;
  for (const m of dynamo.values()) {
    writeRequests += m.usage.writeRequests;
    itemsWritten += m.usage.itemsWritten;
  }
  return {
    events,
    usage: {
      writeUnits: sum((u) => u.writeUnits),
      readUnits: sum((u) => u.readUnits),
      lambdaInvocations: sum((u) => u.lambdaInvocations),
      lambdaGbSeconds: sum((u) => u.lambdaGbSeconds),
      exchangePutUnits: sum((u) => u.exchangePutUnits),
      sqsRequests: 0,
      exchanges: stages.flatMap((s) => s.usage.exchanges),
    },
    stages,
    rowsOut,
    stateCommitBytes: per1000(stateCommitBytes, events),
    materializations,
    maxColdStartSegments,
    maxCatchUpRecords,
    maxCatchUpMs,
    handlerEventsPerS: busiestMs === 0 ? 0 : (events * 1000) / busiestMs,
    writeRequestsPer1000: per1000(writeRequests, events),
    itemsWrittenPer1000: per1000(itemsWritten, events),
  };
}

/** The cost figures of a measured job at the three rates of the report. */
export function costFigures(measured: MeasuredJob, eventBytes = AWS_COST_EVENT_BYTES): Record<string, number> {
  const u = measured.usage;
  const month = (rate: number): number => cents(flambdaMonthly(u, { rate, eventBytes }).total);
  const msf = (rate: number): number => cents(msfMonthly({ rate, eventBytes }).total);
  return {
    write_units_per_1000: round(u.writeUnits, 1),
    read_units_per_1000: round(u.readUnits, 1),
    kinesis_put_units_per_1000: round(1000 * putPayloadUnits(eventBytes) + u.exchangePutUnits, 1),
    lambda_invocations_per_1000: round(u.lambdaInvocations),
    lambda_gb_s_per_1000: round(u.lambdaGbSeconds, 4),
    usd_per_million_events: round(usdPerMillionEvents(u, eventBytes), 4),
    usd_month_10eps_bursty: month(10),
    usd_month_1k_eps: month(1_000),
    usd_month_100k_eps: month(100_000),
    msf_usd_month_10eps_bursty: msf(10),
    msf_usd_month_1k_eps: msf(1_000),
    msf_usd_month_100k_eps: msf(100_000),
    msf_events_per_kpu: DEFAULT_MSF_EVENTS_PER_KPU,
  };
}

/** The jobs of the suite; `cleanup` removes their input files. */
async function suiteJobs(events: number): Promise<{ jobs: CostJob[]; cleanup: () => void }> {
  const bid = writeBidFile(events, 10_000);
  const dir = mkdtempSync(join(tmpdir(), 'flambda-aws-cost-'));
  const cleanup = (): void => {
    bid.cleanup();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const jobs: CostJob[] = STATE_IO_CASES.map((c) => {
      const p = new Pipeline(`aws-cost-${c.name}`);
      c.build(p);
      return { name: c.name, graph: p.jobGraph({ parallelism: 1 }), code: { functions: p.userFunctions }, inputs: new Map([['bid', bid.path]]) };
    });
    const written = await writeNexmarkFiles(dir, { events, seed: 1 });
    for (const query of ['q5', 'q13']) {
      const p = await loadExampleQuery(query);
      const graph = p.jobGraph({ parallelism: 1 });
      const inputs = new Map(graph.sources.map((s) => [s.name, written.files[s.name as 'bid']]));
      const lookupFiles = new Map([['side_input', written.files.side_input]]);
      jobs.push({ name: query, graph, code: { functions: p.userFunctions, lookupSources: awsDimensionSources({ jsonlPaths: lookupFiles }) }, inputs });
    }
    return { jobs, cleanup };
  } catch (error) {
    cleanup();
    throw error;
  }
}

/** Runs the suite: one result line per case; `progress` gets a line as each case starts. */
export async function runAwsCostSuite(events: number, progress: (line: string) => void = () => undefined): Promise<BenchResult[]> {
  const { jobs, cleanup } = await suiteJobs(events);
  try {
    const results: BenchResult[] = [];
    for (const job of jobs) {
      progress(`aws-cost: ${job.name} through the stage handlers (${job.graph.stages.length} stages)\n`);
      const started = Date.now();
      const measured = await measureJob(job);
      // Throughput per shard against committing every batch (the layout before commit intervals),
      // measured in the same run: a ratio, as these machines are shared and noisy.
      const perBatch = await measureJob(job, AWS_COST_BATCH, { everyBatches: 1 });
      results.push({
        suite: 'aws-cost',
        case: job.name,
        events: measured.events,
        batch: AWS_COST_BATCH,
        stages: job.graph.stages.length,
        ...costFigures(measured),
        write_requests_per_1000: round(measured.writeRequestsPer1000, 1),
        items_written_per_1000: round(measured.itemsWrittenPer1000, 1),
        handler_events_per_s: Math.round(measured.handlerEventsPerS),
        handler_events_per_s_commit_every_batch: Math.round(perBatch.handlerEventsPerS),
        throughput_ratio_to_commit_every_batch: round(measured.handlerEventsPerS / perBatch.handlerEventsPerS, 2),
        state_commit_kb_per_1000: round(measured.stateCommitBytes / 1024, 2),
        materializations: measured.materializations,
        max_catch_up_records: measured.maxCatchUpRecords,
        max_catch_up_s: round(measured.maxCatchUpMs / 1000),
        rows_out: measured.rowsOut,
        elapsed_ms: Date.now() - started,
      });
    }
    return results;
  } finally {
    cleanup();
  }
}
