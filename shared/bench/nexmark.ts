/**
 * `nexmark` benchmark suite: Nexmark queries on the embedded runtime with memory state, over
 * input generated in-process by shared/nexmark (the reference generator's port; no files).
 *
 * - `q0`: passthrough — the bid source straight into a blackhole sink (Nexmark's q0);
 * - `q5`, `q7`, `q11`, `q13`, `q15`, `q18`, `q19`: the pipelines of `examples/nexmark/qN.ts`,
 *   imported when asked for, with their sinks replaced by blackholes. A query whose example does
 *   not exist yet fails with an error naming the missing file.
 * - `q3`, `q4`, `q8`, `q9`, `q20`, and `q5-join` / `q7-join`: the join queries in the benchmark's
 *   own formulation, `examples/sql/nexmark/qN.sql` (q5 and q7 joined with their window maximum,
 *   beside the window Top-N forms above). Window joins hold state until the watermark passes;
 *   regular joins (q3, q4, q9, q20, q5-join, q7-join) keep every row of both inputs, as Flink's do
 *   without `table.exec.state.ttl` — `live_state_entries` shows it.
 *
 * Every case reports, per query:
 * - `events`: Nexmark events in the stream (persons + auctions + bids; the bid-only queries
 *   read the 92 % that are bids, `rows_in`) — Nexmark's own unit of throughput;
 * - `events_per_s`: events / wall-clock seconds of the job (generation included, as a Nexmark
 *   source is part of the job);
 * - `events_per_s_per_core`: events / CPU seconds (user + system) the process spent during the
 *   job. The embedded runtime runs every stage on the one JavaScript thread; V8's GC helper
 *   threads add some CPU on top, so the process's CPU time — not a nominal "1 core" — is the
 *   core count actually used (`cores_used` = CPU s / wall s, usually ≈ 1.0–1.3);
 * - `peak_rss_mb`: the highest resident set size sampled during the job (every 100 ms and at
 *   the end of input) — in a process that may have run other cases before;
 * - `ratio_to_q0`: events_per_s / q0's, q0 measured in the same run (machines here are shared,
 *   so absolute numbers drift; the ratio does much less);
 * - `live_state_entries`: operator state entries (memory backend `stats().entries`, summed over
 *   every operator and shard) after the last input batch, before the end-of-input watermark
 *   fires the rest; `live_heap_mb`: the V8 heap in use at that moment after a full GC, when the
 *   GC can be triggered; `state_entries_after_end`.
 *
 * {@link runNexmarkMemoryCheck} runs one query at growing input sizes and reports those memory
 * figures per size, so one can check the heap grows with the live state (bytes per entry stay
 * flat) and not with the number of events.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { PlanError } from '../core/errors.ts';
import { Pipeline } from '../api/pipeline.ts';
import type { OperatorRunner } from '../runtime/operator-runner.ts';
import type { NexmarkOptions } from '../nexmark/config.ts';
import { CountingObserver, exampleQueryPath, loadExampleQuery, runNexmarkQuery } from '../nexmark/run.ts';
import { BID, NEXMARK_WATERMARK_DELAY_MS } from '../nexmark/schemas.ts';
import { NEXMARK_SIDE_INPUT_FILE, nexmarkSideInputJsonl } from '../nexmark/side-input.ts';
import { median, type BenchResult } from './bench-common.ts';

/** Queries of the suite, in report order. */
export const NEXMARK_QUERIES = ['q0', 'q3', 'q4', 'q5', 'q5-join', 'q7', 'q7-join', 'q8', 'q9', 'q11', 'q13', 'q15', 'q18', 'q19', 'q20'] as const;

/** Suite queries read from examples/sql/nexmark/<file>.sql, by query name. */
const SQL_QUERIES: Readonly<Record<string, string>> = { q3: 'q3', q4: 'q4', 'q5-join': 'q5', 'q7-join': 'q7', q8: 'q8', q9: 'q9', q20: 'q20' };

/** Absolute path of the SQL file of a join query of the suite. */
export function sqlQueryPath(query: string): string {
  return fileURLToPath(new URL(`../../examples/sql/nexmark/${SQL_QUERIES[query] ?? query}.sql`, import.meta.url));
}

/** Where a query's pipeline comes from: the SQL example for join queries, else the TypeScript example. */
function queryPath(query: string): string {
  return SQL_QUERIES[query] !== undefined ? sqlQueryPath(query) : exampleQueryPath(query);
}

/** A query name of the suite. */
export type NexmarkQuery = (typeof NEXMARK_QUERIES)[number];

/**
 * The suite's queries whose pipeline exists now (q0 always; the others when their
 * examples/nexmark/qN.ts file does), and those still missing — for `flambda bench nexmark`,
 * which runs the available ones and names the missing ones.
 */
export function availableNexmarkQueries(): { available: NexmarkQuery[]; missing: NexmarkQuery[] } {
  const available = NEXMARK_QUERIES.filter((q) => q === 'q0' || existsSync(queryPath(q)));
  return { available, missing: NEXMARK_QUERIES.filter((q) => !available.includes(q)) };
}

/** Default events per query (`flambda bench nexmark`). */
export const NEXMARK_DEFAULT_EVENTS = 200_000;

/** Options of {@link runNexmarkBench}. */
export interface NexmarkBenchOptions {
  /** One query or several; q0 is always measured too (first), for `ratio_to_q0`. @default every query */
  readonly query?: NexmarkQuery | readonly NexmarkQuery[];
  /** Nexmark events per run. */
  readonly events: number;
  /** Generator seed. @default 0 */
  readonly seed?: number;
  /** Extra generator options (rate, out-of-order, …). */
  readonly nexmark?: Omit<NexmarkOptions, 'events' | 'seed'>;
  /** Timed runs per query after one warm-up run of q0 (medians are reported). @default 1 */
  readonly repetitions?: number;
  /** Shards per stage. @default 1 */
  readonly parallelism?: number;
  /** Called with each result as soon as it is measured (e.g. to print it). */
  readonly onResult?: (result: BenchResult) => void;
}

/** What one measured run saw. */
export interface NexmarkRun {
  readonly events: number;
  readonly rowsIn: number;
  readonly rowsOut: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly peakRssMb: number;
  readonly liveStateEntries: number;
  /** Heap in use right after a full GC at the end of input; -1 when GC cannot be triggered. */
  readonly liveHeapMb: number;
  readonly stateEntriesAfterEnd: number;
}

let cachedGc: (() => void) | null | undefined;

/** A full-GC function (`--expose-gc` turned on at run time), or null when unavailable. */
function gcFunction(): (() => void) | null {
  if (cachedGc === undefined) {
    try {
      v8.setFlagsFromString('--expose-gc');
      cachedGc = vm.runInNewContext('gc') as () => void;
    } catch {
      cachedGc = null;
    }
  }
  return cachedGc;
}

const mb = (bytes: number): number => Math.round((bytes / (1024 * 1024)) * 10) / 10;

/** Memory-state entries over all runners (runners with an external store count 0). */
export function stateEntries(runners: readonly OperatorRunner[]): number {
  let entries = 0;
  for (const r of runners) {
    try {
      entries += r.memoryState.stats().entries;
    } catch {
      // An operator on an external state store: not ours to count here.
    }
  }
  return entries;
}

/** The q0 pipeline: bids with Nexmark's watermark, straight into a sink. */
export function q0Pipeline(): Pipeline {
  const p = new Pipeline('nexmark-q0');
  p.source('bid', { schema: BID, watermark: { column: 'date_time', outOfOrdernessMs: NEXMARK_WATERMARK_DELAY_MS } }).sinkTo('q0');
  return p;
}

/** Writes Nexmark's side input (10,000 rows `{key: i, value: "i"}`) to a temporary JSONL file. */
function writeSideInput(): { path: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'flambda-nexmark-side-'));
  const path = join(dir, NEXMARK_SIDE_INPUT_FILE);
  writeFileSync(path, nexmarkSideInputJsonl());
  return { path, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The pipeline of a query (q0 built here; the join queries compiled from SQL; the others imported from examples/nexmark). */
export async function queryPipeline(query: string): Promise<Pipeline> {
  if (query === 'q0') return q0Pipeline();
  if (SQL_QUERIES[query] !== undefined) {
    // The SQL front end (and its parser) loads only when a join query is asked for.
    const { compileSqlFile } = await import('../sql/compile-sql.ts');
    return compileSqlFile(sqlQueryPath(query)).pipeline;
  }
  return loadExampleQuery(query);
}

/** Runs one query once over generated input, measuring time, CPU, RSS and state. */
export async function measureNexmarkRun(pipeline: Pipeline, nexmark: NexmarkOptions, parallelism = 1, inputs?: ReadonlyMap<string, string>): Promise<NexmarkRun> {
  const gc = gcFunction();
  gc?.();
  const counter = new CountingObserver();
  const sinks = pipeline.jobGraph({ parallelism }).sinks.map((s) => s.name);
  let peakRss = process.memoryUsage.rss();
  const sample = (): void => {
    const rss = process.memoryUsage.rss();
    if (rss > peakRss) peakRss = rss;
  };
  let live = -1;
  let liveHeap = -1;
  let runners: readonly OperatorRunner[] = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await runNexmarkQuery(pipeline, {
    nexmark,
    parallelism,
    ...(inputs === undefined ? {} : { inputs }),
    blackhole: true,
    observers: new Map(sinks.map((name) => [name, [counter]])),
    onProgress: sample,
    progressIntervalMs: 100,
    onInputEnd: (_source, all) => {
      sample();
      runners = all;
      live = stateEntries(all);
      if (gc) {
        // Only what is reachable survives a full GC: with the job paused here, that is the live
        // state plus the runtime's fixed structures.
        gc();
        liveHeap = mb(process.memoryUsage().heapUsed);
      }
    },
  });
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  sample();
  return {
    events: nexmark.events,
    rowsIn: result.recordsRead,
    rowsOut: counter.rows,
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    peakRssMb: mb(peakRss),
    liveStateEntries: live,
    liveHeapMb: liveHeap,
    stateEntriesAfterEnd: stateEntries(runners),
  };
}

/**
 * `name` as a query of the suite.
 *
 * @throws PlanError naming the valid queries when `name` is not one.
 */
export function nexmarkQuery(name: string): NexmarkQuery {
  if (!(NEXMARK_QUERIES as readonly string[]).includes(name)) throw new PlanError(`unknown Nexmark query '${name}' (queries: ${NEXMARK_QUERIES.join(', ')})`);
  return name as NexmarkQuery;
}

function queryList(query: NexmarkBenchOptions['query']): NexmarkQuery[] {
  const list: readonly string[] = query === undefined ? NEXMARK_QUERIES : typeof query === 'string' ? [query] : query;
  return list.map(nexmarkQuery);
}

/**
 * Runs the Nexmark suite: loads every asked-for query first (so a missing example fails before
 * anything is timed), warms up with q0, then measures q0 and each query; returns one result
 * per asked-for query (q0's own line only when asked for).
 *
 * @throws PlanError for an unknown query or a missing example module.
 */
export async function runNexmarkBench(options: NexmarkBenchOptions): Promise<BenchResult[]> {
  const queries = queryList(options.query);
  if (!Number.isSafeInteger(options.events) || options.events < 1) throw new PlanError(`nexmark bench: events must be a positive integer (given ${options.events})`);
  const repetitions = options.repetitions ?? 1;
  const parallelism = options.parallelism ?? 1;
  const nexmark: NexmarkOptions = { ...options.nexmark, events: options.events, seed: options.seed ?? 0 };
  const pipelines = new Map<NexmarkQuery, Pipeline>();
  pipelines.set('q0', q0Pipeline());
  for (const q of queries) if (q !== 'q0') pipelines.set(q, await queryPipeline(q));

  // Warm-up: a short q0 run so the JIT has seen the generator and the runtime.
  await measureNexmarkRun(pipelines.get('q0') as Pipeline, { ...nexmark, events: Math.min(options.events, 50_000) }, parallelism);
  // q13 joins bids with Nexmark's side input (key i → value "i", 10,000 rows), as the fixture does.
  const side = queries.includes('q13') ? writeSideInput() : undefined;
  const measure = async (q: NexmarkQuery): Promise<NexmarkRun[]> => {
    const runs: NexmarkRun[] = [];
    const inputs = q === 'q13' && side !== undefined ? new Map([['side_input', side.path]]) : undefined;
    for (let i = 0; i < repetitions; i++) runs.push(await measureNexmarkRun(pipelines.get(q) as Pipeline, nexmark, parallelism, inputs));
    return runs;
  };
  const summarize = (q: NexmarkQuery, runs: readonly NexmarkRun[], q0EventsPerS: number): BenchResult => {
    const last = runs[runs.length - 1] as NexmarkRun;
    const eps = median(runs.map((r) => Math.round((r.events * 1000) / r.wallMs)));
    const perCore = median(runs.map((r) => Math.round((r.events * 1000) / Math.max(r.cpuMs, 1))));
    return {
      suite: 'nexmark',
      case: q,
      events: options.events,
      parallelism,
      repetitions,
      events_per_s: eps,
      events_per_s_per_core: perCore,
      cores_used: Math.round(median(runs.map((r) => r.cpuMs / r.wallMs)) * 100) / 100,
      peak_rss_mb: Math.max(...runs.map((r) => r.peakRssMb)),
      ratio_to_q0: Math.round((eps / q0EventsPerS) * 1000) / 1000,
      q0_events_per_s: q0EventsPerS,
      rows_in: last.rowsIn,
      rows_out: last.rowsOut,
      live_state_entries: last.liveStateEntries,
      live_heap_mb: last.liveHeapMb,
      state_entries_after_end: last.stateEntriesAfterEnd,
    };
  };

  const q0Runs = await measure('q0');
  const q0Eps = median(q0Runs.map((r) => Math.round((r.events * 1000) / r.wallMs)));
  const results: BenchResult[] = [];
  for (const q of queries) {
    const result = summarize(q, q === 'q0' ? q0Runs : await measure(q), q0Eps);
    options.onResult?.(result);
    results.push(result);
  }
  side?.cleanup();
  return results;
}

/** One size of {@link runNexmarkMemoryCheck}. */
export interface MemoryCheckPoint {
  readonly events: number;
  readonly live_state_entries: number;
  readonly live_heap_mb: number;
  readonly peak_rss_mb: number;
  /** live heap / live state entries; -1 when either is unknown. */
  readonly heap_bytes_per_entry: number;
  readonly state_entries_after_end: number;
}

/**
 * Runs `query` at `steps` growing input sizes (events / steps, 2 · events / steps, …, events)
 * and reports live state and heap per size. Memory is bounded by live state when
 * `heap_bytes_per_entry` stays flat while events grow (and for windowed queries, when
 * `live_state_entries` itself stays flat).
 */
export async function runNexmarkMemoryCheck(options: { readonly query: NexmarkQuery; readonly events: number; readonly steps?: number; readonly seed?: number }): Promise<MemoryCheckPoint[]> {
  const steps = options.steps ?? 4;
  const pipeline = await queryPipeline(queryList(options.query)[0] as NexmarkQuery);
  const points: MemoryCheckPoint[] = [];
  for (let i = 1; i <= steps; i++) {
    const events = Math.round((options.events * i) / steps);
    const run = await measureNexmarkRun(pipeline, { events, seed: options.seed ?? 0 });
    points.push({
      events,
      live_state_entries: run.liveStateEntries,
      live_heap_mb: run.liveHeapMb,
      peak_rss_mb: run.peakRssMb,
      heap_bytes_per_entry: run.liveHeapMb >= 0 && run.liveStateEntries > 0 ? Math.round((run.liveHeapMb * 1024 * 1024) / run.liveStateEntries) : -1,
      state_entries_after_end: run.stateEntriesAfterEnd,
    });
  }
  return points;
}
