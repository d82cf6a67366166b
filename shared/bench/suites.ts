/**
 * Benchmark suites of `flambda bench`. Each case runs a real job on the embedded runtime over
 * the same generated input and reports events per second; operator suites also report the
 * ratio to the passthrough case measured in the same run, since these machines are shared and
 * absolute numbers drift between runs.
 *
 * - `passthrough`: decode → hash exchange → encode, through two stages (4 shards each).
 * - `group-agg`: decode → exchange → GroupAggregate (COUNT, SUM, MAX per auction) → encode.
 * - `topn`: Top-N variants (append, retract, update).
 * - `windows`: TUMBLE, HOP and SESSION window aggregates over 100,000 keys, with timers fired per
 *   second and the live window state before the end of input (windows.ts).
 * - `state-io`: DynamoDB requests and billing units per 1,000 events of the DynamoDB state
 *   backend against a write-through baseline, on dynalite (state-io.ts; loaded only when asked
 *   for, since it pulls in the AWS SDK).
 * - `aws-cost`: billing units per 1,000 events and monthly dollars beside Managed Flink, through
 *   the stage handlers on the emulators (aws-cost.ts; loaded only when asked for).
 * - `lookup`: lookup join cache hit rate and dimension lookups, hashed by the join key vs
 *   forward (lookup.ts); `lookup-l2`: lookups after a cold start with the DynamoDB L2 (lookup-l2.ts).
 * - `nexmark`: q0 and the examples/nexmark queries (nexmark.ts).
 */
import { PlanError } from '../core/errors.ts';
import { count, max, sum } from '../api/aggregates.ts';
import { Pipeline } from '../api/pipeline.ts';
import { BID_SCHEMA, writeBidFile } from './bench-input.ts';
import { median, passthroughGraph, timeJob, type BenchOptions, type BenchResult } from './bench-common.ts';

/** A measured case: a pipeline over the bid input, sinking to `out`. */
interface BenchCase {
  readonly name: string;
  readonly build: (bid: ReturnType<typeof bidStream>) => void;
}

function bidStream(p: Pipeline) {
  return p.source('bid', { schema: BID_SCHEMA });
}

const blackhole = { connector: { type: 'blackhole' as const } };

/** Cases per suite; `passthrough` has none besides the baseline itself. */
export const SUITES: Readonly<Record<string, readonly BenchCase[]>> = {
  passthrough: [],
  'group-agg': [
    {
      name: 'count-sum-max-10k-keys',
      build: (bid) =>
        bid.groupBy('auction').aggregate({ bids: count(), volume: sum('price'), top: max('price') }).sinkTo('out', { ...blackhole, upsertKey: ['auction'] }),
    },
  ],
  // 10,000 auctions are the partitions. Append: insert-only bids ranked by price. Retract: a
  // SUM per (auction, bidder) ranked per auction (SUM is not monotonic). Update: a COUNT per
  // (auction, bidder), which only grows, ranked DESC.
  topn: [
    ...[10, 100].map((n) => ({
      name: `append-n${n}`,
      build: (bid: ReturnType<typeof bidStream>) =>
        bid.topN(n, { partitionBy: ['auction'], orderBy: ['price DESC'] }).sinkTo('out', blackhole),
    })),
    ...[10, 100].map((n) => ({
      name: `retract-n${n}`,
      build: (bid: ReturnType<typeof bidStream>) =>
        bid
          .groupBy('auction', 'bidder')
          .aggregate({ total: sum('price') })
          .topN(n, { partitionBy: ['auction'], orderBy: ['total DESC'] })
          .sinkTo('out', blackhole),
    })),
    {
      name: 'update-n10',
      build: (bid) =>
        bid
          .groupBy('auction', 'bidder')
          .aggregate({ bids: count() })
          .topN(10, { partitionBy: ['auction'], orderBy: ['bids DESC'] })
          .sinkTo('out', blackhole),
    },
  ],
};

/** The suite that counts DynamoDB requests instead of timing the embedded runtime. */
export const STATE_IO_SUITE = 'state-io';
/** The cost suite's name (aws-cost.ts). */
export const AWS_COST_SUITE = 'aws-cost';

/** The window suite (windows.ts): TUMBLE, HOP and SESSION over 100,000 keys, with timers and live state. */
export const WINDOWS_SUITE = 'windows';

/** The lookup cache suite (lookup-l2.ts): dimension lookups after a cold start, with and without the DynamoDB L2. */
export const LOOKUP_L2_SUITE = 'lookup-l2';

/** The lookup join suite (lookup.ts): cache hit rate and source lookups, hashed by the join key vs forward. */
export const LOOKUP_SUITE = 'lookup';

/** The Nexmark suite (nexmark.ts): q0 and the examples/nexmark queries over generated input. */
export const NEXMARK_SUITE = 'nexmark';

/** Every suite name, in the order help and errors list them. */
export const SUITE_NAMES: readonly string[] = [...Object.keys(SUITES), WINDOWS_SUITE, STATE_IO_SUITE, AWS_COST_SUITE, NEXMARK_SUITE, LOOKUP_SUITE, LOOKUP_L2_SUITE];

/** Default input events per suite (state-io runs on dynalite, which is slow: about 55 s here). */
export function defaultEvents(suite: string): number {
  if (suite === LOOKUP_SUITE) return 1_000_000;
  if (suite === NEXMARK_SUITE) return 200_000;
  if (suite === LOOKUP_L2_SUITE) return 100_000;
  return suite === STATE_IO_SUITE || suite === AWS_COST_SUITE ? 20_000 : 300_000;
}

/** Builds a case's pipeline. */
export function casePipeline(c: BenchCase): Pipeline {
  const p = new Pipeline(`bench-${c.name}`);
  c.build(bidStream(p));
  return p;
}

/**
 * Runs a suite and returns its result lines. Every case is measured `repetitions` times,
 * interleaved with passthrough runs on the same input after a warm-up, and the medians are
 * reported, so a burst of load on a shared machine moves one sample, not the result.
 */
export async function runSuite(suite: string, options: BenchOptions): Promise<BenchResult[]> {
  if (options.query !== undefined && suite !== NEXMARK_SUITE) throw new PlanError(`--query applies to the ${NEXMARK_SUITE} suite only (given suite '${suite}')`);
  if (suite === STATE_IO_SUITE) {
    const { runStateIoSuite } = await import('./state-io.ts');
    return runStateIoSuite(options.events, (line) => process.stderr.write(line));
  }
  if (suite === AWS_COST_SUITE) {
    const { runAwsCostSuite } = await import('./aws-cost.ts');
    return runAwsCostSuite(options.events, (line) => process.stderr.write(line));
  }
  if (suite === WINDOWS_SUITE) {
    const { runWindowsSuite } = await import('./windows.ts');
    return runWindowsSuite(options);
  }
  if (suite === LOOKUP_SUITE) {
    const { runLookupSuite } = await import('./lookup.ts');
    return runLookupSuite({ events: options.events, progress: (line) => process.stderr.write(line) });
  }
  if (suite === LOOKUP_L2_SUITE) {
    const { runLookupL2Suite } = await import('./lookup-l2.ts');
    return runLookupL2Suite(options.events);
  }
  if (suite === NEXMARK_SUITE) {
    const { availableNexmarkQueries, nexmarkQuery, runNexmarkBench } = await import('./nexmark.ts');
    const repetitions = options.repetitions ?? 1;
    if (options.query !== undefined) return runNexmarkBench({ query: nexmarkQuery(options.query), events: options.events, repetitions });
    const { available, missing } = availableNexmarkQueries();
    if (missing.length > 0) process.stderr.write(`nexmark: not measured (no example yet): ${missing.join(', ')}\n`);
    return runNexmarkBench({ query: available, events: options.events, repetitions });
  }
  const cases = SUITES[suite];
  if (!cases) throw new PlanError(`unknown benchmark suite '${suite}' (suites: ${SUITE_NAMES.join(', ')})`);
  const repetitions = options.repetitions ?? 3;
  const input = writeBidFile(options.events, 10_000);
  try {
    const passthrough = passthroughGraph(options.parallelism);
    const jobs = cases.map((c) => {
      const p = casePipeline(c);
      return { name: c.name, graph: p.jobGraph({ parallelism: options.parallelism }), functions: p.userFunctions as Map<string, unknown> };
    });
    // Warm-up: let the JIT see every job before anything is timed.
    await timeJob(passthrough, input.path, options.events);
    for (const j of jobs) await timeJob(j.graph, input.path, options.events, j.functions);
    const pt: number[] = [];
    const samples = jobs.map(() => [] as number[]);
    for (let i = 0; i < repetitions; i++) {
      pt.push(await timeJob(passthrough, input.path, options.events));
      for (const [k, j] of jobs.entries()) (samples[k] as number[]).push(await timeJob(j.graph, input.path, options.events, j.functions));
    }
    const base = { suite, events: options.events, parallelism: options.parallelism, repetitions };
    const baseline = median(pt);
    if (jobs.length === 0) return [{ ...base, case: 'two-stage-hash', events_per_s: baseline }];
    return jobs.map((j, k) => {
      const eps = median(samples[k] as number[]);
      return {
        ...base,
        case: j.name,
        events_per_s: eps,
        passthrough_events_per_s: baseline,
        ratio_to_passthrough: Math.round((eps / baseline) * 1000) / 1000,
      };
    });
  } finally {
    input.cleanup();
  }
}
