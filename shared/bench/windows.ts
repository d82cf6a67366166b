/**
 * `flambda bench windows`: window aggregates on the embedded runtime with memory state, over
 * bids spread across 100,000 auctions (one bid per millisecond of event time, watermark 1 s
 * behind):
 *
 * - `tumble`:  COUNT, SUM per auction per 10 s TUMBLE window;
 * - `hop`:     COUNT per auction per 10 s HOP window sliding by 2 s (5 windows per bid);
 * - `session`: COUNT per auction per session with a 10 s gap (merging windows).
 *
 * Each case reports `events_per_s` and `ratio_to_passthrough` (passthrough measured in the same
 * run, interleaved), `timers_fired_per_s`, and `live_state_entries`: the window state entries
 * right after the last input batch, before the end-of-input watermark fires everything. That
 * number must stay bounded by the windows that can still be open — the (auction, window) pairs
 * with a bid in the last `size + watermark delay + batch lag` milliseconds — not grow with the
 * number of keys or of windows seen; the suite checks it against `live_windows_bound` and fails
 * otherwise. After the end of input the state must be empty (`state_entries_after_end`).
 */
import { PlanError } from '../core/errors.ts';
import { count, sum } from '../api/aggregates.ts';
import { Pipeline } from '../api/pipeline.ts';
import { hop, session, tumble } from '../api/windows.ts';
import type { WindowSpec } from '../plan/logical.ts';
import type { JobGraph } from '../plan/job-graph.ts';
import type { OperatorRunner } from '../runtime/operator-runner.ts';
import { RUNNER_METRICS } from '../runtime/operator-runner.ts';
import { runEmbeddedJob } from '../runtime/embedded/embedded-runtime.ts';
import { BID_SCHEMA, writeBidFile } from './bench-input.ts';
import { median, passthroughGraph, timeJob, type BenchOptions, type BenchResult } from './bench-common.ts';

/** Auctions the bids are spread over. */
export const WINDOW_BENCH_KEYS = 100_000;
/** Watermark delay of the benchmark source. */
const WATERMARK_DELAY_MS = 1000;
const BATCH_SIZE = 1024;

interface WindowCase {
  readonly name: string;
  readonly window: WindowSpec;
  /** Event-time span whose bids can still be in an open window. */
  readonly openSpanMs: number;
  /** Windows one bid is in. */
  readonly windowsPerRow: number;
  readonly withSum: boolean;
}

const CASES: readonly WindowCase[] = [
  { name: 'tumble', window: tumble('date_time', '10 s'), openSpanMs: 10_000, windowsPerRow: 1, withSum: true },
  { name: 'hop', window: hop('date_time', '2 s', '10 s'), openSpanMs: 10_000, windowsPerRow: 5, withSum: false },
  { name: 'session', window: session('date_time', '10 s', { partitionBy: ['auction'] }), openSpanMs: 10_000, windowsPerRow: 1, withSum: false },
];

/** The case's pipeline: bids with a watermark → window aggregate per auction → blackhole. */
function casePipeline(c: WindowCase): Pipeline {
  const p = new Pipeline(`bench-window-${c.name}`);
  p.source('bid', { schema: BID_SCHEMA, watermark: { column: 'date_time', outOfOrdernessMs: WATERMARK_DELAY_MS } })
    .window(c.window)
    .aggregate(c.withSum ? { bids: count(), volume: sum('price') } : { bids: count() }, { groupBy: ['auction'] })
    .sinkTo('out', { connector: { type: 'blackhole' } });
  return p;
}

/**
 * The most (auction, window) entries that can be open after the last batch: one bid per
 * millisecond, so the bids of the last `openSpan + delay + 2 batches` ms (the watermark of a
 * source shard lags by up to a batch, and the exchange's minimum by another), each in
 * `windowsPerRow` windows.
 */
function liveWindowsBound(c: WindowCase, parallelism: number): number {
  return Math.min(WINDOW_BENCH_KEYS * c.windowsPerRow, (c.openSpanMs + WATERMARK_DELAY_MS + 2 * BATCH_SIZE * parallelism) * c.windowsPerRow);
}

interface WindowRun {
  readonly eventsPerS: number;
  readonly timersFiredPerS: number;
  readonly liveStateEntries: number;
  readonly stateEntriesAfterEnd: number;
  readonly outputRows: number;
}

const stateEntries = (runners: readonly OperatorRunner[]): number =>
  runners.filter((r) => r.operatorId.startsWith('Window')).reduce((n, r) => n + r.memoryState.stats().entries, 0);

async function runCase(graph: JobGraph, path: string, events: number): Promise<WindowRun> {
  let live = -1;
  let runners: readonly OperatorRunner[] = [];
  const result = await runEmbeddedJob(graph, {
    inputs: new Map([['bid', path]]),
    batchSize: BATCH_SIZE,
    onInputEnd: (_source, all) => {
      runners = all;
      live = stateEntries(all);
    },
  });
  if (result.recordsRead !== events) throw new PlanError(`benchmark read ${result.recordsRead} of ${events} events`);
  const seconds = result.elapsedMs / 1000;
  let timers = 0;
  for (const metrics of result.operatorMetrics.values()) timers += metrics.get(RUNNER_METRICS.timersFired) ?? 0;
  return {
    eventsPerS: Math.round(events / seconds),
    timersFiredPerS: Math.round(timers / seconds),
    liveStateEntries: live,
    stateEntriesAfterEnd: stateEntries(runners),
    outputRows: result.sinks.get('out')?.rowsWritten ?? 0,
  };
}

/**
 * Runs the window suite: a warm-up of every job, then `repetitions` interleaved timed runs of
 * passthrough and each case; medians are reported.
 *
 * @throws PlanError when a case's live window state exceeds its bound or state is left behind
 *   after the end of input.
 */
export async function runWindowsSuite(options: BenchOptions): Promise<BenchResult[]> {
  const repetitions = options.repetitions ?? 3;
  const input = writeBidFile(options.events, WINDOW_BENCH_KEYS);
  try {
    const passthrough = passthroughGraph(options.parallelism);
    const jobs = CASES.map((c) => ({ c, graph: casePipeline(c).jobGraph({ parallelism: options.parallelism }) }));
    await timeJob(passthrough, input.path, options.events);
    for (const j of jobs) await runCase(j.graph, input.path, options.events);
    const pt: number[] = [];
    const runs = jobs.map(() => [] as WindowRun[]);
    for (let i = 0; i < repetitions; i++) {
      pt.push(await timeJob(passthrough, input.path, options.events));
      for (const [k, j] of jobs.entries()) (runs[k] as WindowRun[]).push(await runCase(j.graph, input.path, options.events));
    }
    const baseline = median(pt);
    return jobs.map(({ c }, k) => {
      const samples = runs[k] as WindowRun[];
      const last = samples[samples.length - 1] as WindowRun;
      const bound = liveWindowsBound(c, options.parallelism);
      if (last.liveStateEntries > bound) {
        throw new PlanError(`windows/${c.name}: ${last.liveStateEntries} live window state entries exceed the ${bound} windows that can be open`);
      }
      if (last.stateEntriesAfterEnd !== 0) {
        throw new PlanError(`windows/${c.name}: ${last.stateEntriesAfterEnd} window state entries left after the end of input`);
      }
      const eps = median(samples.map((s) => s.eventsPerS));
      return {
        suite: 'windows',
        case: c.name,
        events: options.events,
        parallelism: options.parallelism,
        repetitions,
        keys: WINDOW_BENCH_KEYS,
        events_per_s: eps,
        passthrough_events_per_s: baseline,
        ratio_to_passthrough: Math.round((eps / baseline) * 1000) / 1000,
        timers_fired_per_s: median(samples.map((s) => s.timersFiredPerS)),
        live_state_entries: last.liveStateEntries,
        live_windows_bound: bound,
        state_entries_after_end: last.stateEntriesAfterEnd,
        output_rows: last.outputRows,
      };
    });
  } finally {
    input.cleanup();
  }
}
