/**
 * Generated Nexmark sources for pipelines (no files): `nexmarkSource(pipeline, 'bid', { events,
 * seed })` declares the table's source with the Nexmark watermark (`date_time - 4 s`) and the
 * generator behind it, and {@link bindNexmarkGenerators} points an already built pipeline's
 * `person` / `auction` / `bid` JSONL sources (the examples') at the generator instead.
 */
import type { GeneratorFunction, Pipeline } from '../api/pipeline.ts';
import type { Row } from '../core/types.ts';
import type { JobGraph } from '../plan/job-graph.ts';
import type { NexmarkOptions } from './config.ts';
import { generateTable } from './generator.ts';
import { NEXMARK_SCHEMAS, NEXMARK_TABLES, NEXMARK_WATERMARK_DELAY_MS, type NexmarkTable } from './schemas.ts';

/**
 * A generator source function producing the rows of `table` from the first `options.events`
 * Nexmark events. Each call starts the stream afresh, so a pipeline can be run repeatedly.
 */
export function nexmarkGenerator(table: NexmarkTable, options: NexmarkOptions): GeneratorFunction {
  // The row interfaces are plain readonly records of engine values.
  const fn = (context: { shard: number; parallelism: number }): Iterable<Row> =>
    generateTable(options, table, context.shard, context.parallelism) as Iterable<unknown> as Iterable<Row>;
  Object.defineProperty(fn, 'name', { value: `nexmark_${table}` });
  return fn;
}

/** Declares a generated Nexmark table as a source named after the table, with Nexmark's 4 s watermark. */
export function nexmarkSource<T extends NexmarkTable>(pipeline: Pipeline, table: T, options: NexmarkOptions) {
  return pipeline.source(table, {
    schema: NEXMARK_SCHEMAS[table] as (typeof NEXMARK_SCHEMAS)[T],
    watermark: { column: 'date_time', outOfOrdernessMs: NEXMARK_WATERMARK_DELAY_MS },
    generator: nexmarkGenerator(table, options),
  });
}

/**
 * Rewrites a job graph so its sources named `person`, `auction` or `bid` read from the
 * generator; returns the graph and the generator map to pass as `code.generators` to
 * `runEmbeddedJob`. Other sources are left as they are.
 */
export function bindNexmarkGenerators(graph: JobGraph, options: NexmarkOptions): { graph: JobGraph; generators: Map<string, GeneratorFunction> } {
  const generators = new Map<string, GeneratorFunction>();
  const sources = graph.sources.map((source) => {
    if (!(NEXMARK_TABLES as readonly string[]).includes(source.name)) return source;
    const table = source.name as NexmarkTable;
    const ref = `nexmark_${table}`;
    generators.set(ref, nexmarkGenerator(table, options));
    return { ...source, connector: { type: 'generator' as const, ref, display: `nexmark ${table}` } };
  });
  return { graph: { ...graph, sources }, generators };
}
