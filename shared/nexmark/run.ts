/**
 * Runs a Nexmark query pipeline (an `examples/nexmark/qN.ts` module, or any pipeline whose
 * sources are named `person` / `auction` / `bid`) on the embedded runtime with memory state,
 * over generated input: no files are written.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PlanError } from '../core/errors.ts';
import { isPipeline, type Pipeline } from '../api/pipeline.ts';
import type { ChangeRow } from '../core/row.ts';
import type { JobGraph } from '../plan/job-graph.ts';
import type { OperatorRunner } from '../runtime/operator-runner.ts';
import { runEmbeddedJob, type JobResult } from '../runtime/embedded/embedded-runtime.ts';
import type { SinkObserver } from '../runtime/embedded/sinks.ts';
import type { NexmarkOptions } from './config.ts';
import { bindNexmarkGenerators } from './source.ts';

/** The queries with an example module under examples/nexmark/. */
export const NEXMARK_EXAMPLE_QUERIES = ['q5', 'q7', 'q11', 'q13', 'q15', 'q18', 'q19'] as const;

/** Absolute path of `examples/nexmark/<query>.ts`. */
export function exampleQueryPath(query: string): string {
  return fileURLToPath(new URL(`../../examples/nexmark/${query}.ts`, import.meta.url));
}

/**
 * Imports `examples/nexmark/<query>.ts` and returns its pipeline. Each call returns the
 * module's pipeline object (modules are cached, so repeated calls share it; planning is cached
 * on the pipeline too, which is what we want).
 *
 * @throws PlanError naming the missing example when the file does not exist (yet).
 */
export async function loadExampleQuery(query: string): Promise<Pipeline> {
  if (!/^q\d+$/.test(query)) throw new PlanError(`unknown Nexmark query '${query}' (expected q0, q5, q7, …)`);
  const path = exampleQueryPath(query);
  if (!existsSync(path)) {
    throw new PlanError(`Nexmark ${query}: the example pipeline examples/nexmark/${query}.ts does not exist (yet); add it to run ${query}`);
  }
  const module = (await import(path)) as { default?: unknown };
  const exported = typeof module.default === 'function' ? (module.default as () => unknown)() : module.default;
  if (!isPipeline(exported)) throw new PlanError(`Nexmark ${query}: examples/nexmark/${query}.ts must default-export a Pipeline`);
  return exported;
}

/** Options of {@link runNexmarkQuery}. */
export interface RunNexmarkOptions {
  /** Generator options (events, seed, rate, out-of-order …). */
  readonly nexmark: NexmarkOptions;
  /** Shards per stage. @default 1 */
  readonly parallelism?: number;
  /** Rows per source batch. @default 1024 */
  readonly batchSize?: number;
  /** Observers per sink name (e.g. a materialized view). */
  readonly observers?: ReadonlyMap<string, readonly SinkObserver[]>;
  /** Replace every sink's connector with a blackhole (benchmarks: nothing kept in memory). @default false */
  readonly blackhole?: boolean;
  /** Files for sources that are not Nexmark tables (e.g. a side input). */
  readonly inputs?: ReadonlyMap<string, string>;
  /** Called after the input's last batch, before the end-of-input watermark (live state). */
  readonly onInputEnd?: (source: string, runners: readonly OperatorRunner[]) => void;
  /** Called about every `progressIntervalMs` while the job runs. */
  readonly onProgress?: () => void;
  /** @default 1000 */
  readonly progressIntervalMs?: number;
}

/** The job graph of `pipeline` with its Nexmark sources bound to the generator. */
export function nexmarkJob(pipeline: Pipeline, options: RunNexmarkOptions): { graph: JobGraph; generators: ReturnType<typeof bindNexmarkGenerators>['generators'] } {
  const planned = pipeline.jobGraph({ parallelism: options.parallelism ?? 1 });
  const bound = bindNexmarkGenerators(planned, options.nexmark);
  const graph: JobGraph = options.blackhole
    ? { ...bound.graph, sinks: bound.graph.sinks.map((s) => ({ ...s, connector: { type: 'blackhole' as const } })) }
    : bound.graph;
  return { graph, generators: bound.generators };
}

/** Runs `pipeline` over generated Nexmark input on the embedded runtime. */
export async function runNexmarkQuery(pipeline: Pipeline, options: RunNexmarkOptions): Promise<JobResult> {
  const { graph, generators } = nexmarkJob(pipeline, options);
  return runEmbeddedJob(graph, {
    code: { functions: pipeline.userFunctions, generators },
    batchSize: options.batchSize ?? 1024,
    ...(options.inputs ? { inputs: options.inputs } : {}),
    ...(options.observers ? { observers: options.observers } : {}),
    ...(options.onInputEnd ? { onInputEnd: options.onInputEnd } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress, progressIntervalMs: options.progressIntervalMs ?? 1000 } : {}),
  });
}

/** A sink observer that counts rows (cheap enough not to disturb a benchmark). */
export class CountingObserver implements SinkObserver {
  rows = 0;
  write(rows: readonly ChangeRow[]): void {
    this.rows += rows.length;
  }
}
