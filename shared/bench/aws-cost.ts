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
 * Figures per case: `write_units_per_1000`, `read_units_per_1000`,
 * `kinesis_put_units_per_1000` (source stream at 1 KB per event + exchanges),
 * `lambda_invocations_per_1000`, `lambda_gb_s_per_1000`, `usd_per_million_events` (no
 * shard-hours), and `usd_month_10eps_bursty`, `usd_month_1k_eps`, `usd_month_100k_eps` beside
 * `msf_usd_month_*` (cost-model.ts, with `msf_events_per_kpu` the stated assumption);
 * `handler_events_per_s` = events / seconds spent in the busiest stage's handler (the
 * per-shard throughput); `rows_out`; `changelog_commits`, `materializations` and
 * `cold_start_catch_up_*` from the state commit (state-commit.ts).
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
import { runLocalJob } from '../aws/local/local-job.ts';
import { ATTR } from '../aws/state/constants.ts';
import { PlanError } from '../core/errors.ts';
import { loadExampleQuery } from '../nexmark/run.ts';
import { writeNexmarkFiles } from '../nexmark/write-files.ts';
import type { JobGraph } from '../plan/job-graph.ts';
import type { UserCode } from '../operators/registry.ts';
import { writeBidFile } from './bench-input.ts';
import { STATE_IO_CASES } from './state-io.ts';
import type { BenchResult } from './suites.ts';

/** Records per handler invocation (the event source mapping's BatchSize). */
export const AWS_COST_BATCH = 500;

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
  readonly usage: UsagePer1000;
  readonly rowsOut: number;
  /** Input events per second of handler time in the busiest stage. */
  readonly handlerEventsPerS: number;
  /** Lambda usage per stage id. */
  readonly lambda: ReadonlyMap<string, LambdaUsage>;
  readonly dynamoDb: MeteredDynamoDb['usage'];
  readonly kinesis: MeteredKinesis['usage'];
  /** Records and bytes written to each exchange stream per 1,000 input events. */
  readonly exchanges: readonly { readonly stage: string; readonly records: number; readonly bytes: number }[];
}

function per1000(value: number, events: number): number {
  return (value * 1000) / events;
}

function round(value: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Runs `job` through the stage handlers on fresh emulators with metered clients. */
export async function measureJob(job: CostJob, batchSize = AWS_COST_BATCH): Promise<MeasuredJob> {
  let dynamo: MeteredDynamoDb | undefined;
  let kinesis: MeteredKinesis | undefined;
  const lambda = new Map<string, LambdaUsage>(job.graph.stages.map((s) => [s.id, newLambdaUsage()]));
  let rowsOut = 0;
  const result = await runLocalJob({
    graph: job.graph,
    code: job.code,
    inputs: job.inputs,
    batchSize,
    sink: (_name, rows) => void (rowsOut += rows.length),
    handlerSetup: {
      // One meter for all stages: it must see every write to an item to price the next one.
      dynamoDb: (client) => (dynamo ??= meterDynamoDb(client, { keyAttributes: [ATTR.pk, ATTR.sk] })),
      kinesis: (client) => (kinesis ??= meterKinesis(client)).client,
      onInvocation: (stage, _records, ms) => addInvocation(lambda.get(stage) as LambdaUsage, ms, AWS_COST_MEMORY_MB),
    },
  });
  const events = result.recordsRead;
  if (events === 0) throw new PlanError(`aws-cost ${job.name}: no input events`);
  const d = dynamo?.usage ?? { readUnits: 0, writeUnits: 0, readRequests: 0, writeRequests: 0, itemsRead: 0, itemsWritten: 0 };
  const k = kinesis?.usage ?? { putRequests: 0, recordsPut: 0, putPayloadUnits: 0, onDemandBytesIn: 0, getRequests: 0, bytesOut: 0 };
  // Exchange streams are named after the stage they feed (local-job.ts).
  const exchanges = job.graph.stages
    .filter((s) => s.input.type !== 'source')
    .map((s) => {
      const name = [...(kinesis?.byStream.keys() ?? [])].find((stream) => stream.endsWith(`-exchange-${s.id.replace(/[^A-Za-z0-9_.-]/g, '_')}`));
      const of = name === undefined ? undefined : kinesis?.byStream.get(name);
      return { stage: s.id, records: per1000(of?.records ?? 0, events), bytes: per1000(of?.bytes ?? 0, events) };
    });
  let invocations = 0;
  let gbSeconds = 0;
  let busiestMs = 0;
  for (const l of lambda.values()) {
    invocations += l.invocations;
    gbSeconds += l.gbSeconds;
    busiestMs = Math.max(busiestMs, l.durationMs);
  }
  return {
    events,
    usage: {
      writeUnits: per1000(d.writeUnits, events),
      readUnits: per1000(d.readUnits, events),
      lambdaInvocations: per1000(invocations, events),
      lambdaGbSeconds: per1000(gbSeconds, events),
      exchangePutUnits: per1000(k.putPayloadUnits, events),
      sqsRequests: 0,
      exchanges,
    },
    rowsOut,
    handlerEventsPerS: busiestMs === 0 ? 0 : (events * 1000) / busiestMs,
    lambda,
    dynamoDb: d,
    kinesis: k,
    exchanges,
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
      results.push({
        suite: 'aws-cost',
        case: job.name,
        events: measured.events,
        batch: AWS_COST_BATCH,
        stages: job.graph.stages.length,
        ...costFigures(measured),
        write_requests_per_1000: round(per1000(measured.dynamoDb.writeRequests, measured.events), 1),
        items_written_per_1000: round(per1000(measured.dynamoDb.itemsWritten, measured.events), 1),
        handler_events_per_s: Math.round(measured.handlerEventsPerS),
        rows_out: measured.rowsOut,
        elapsed_ms: Date.now() - started,
      });
    }
    return results;
  } finally {
    cleanup();
  }
}
