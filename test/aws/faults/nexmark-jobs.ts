/**
 * The project's generated Nexmark test data (test/nexmark/test-data.ts) as jobs for
 * {@link runJobOnEmulators}: a query's job graph with the source stage's parallelism set to the
 * source stream's shard count (as a deployment would), the bid lines as source records
 * (partition key = 1-based line number) and the reference's final result.
 */
import type { Pipeline } from '../../../shared/api/pipeline.ts';
import type { JsonValue } from '../../../shared/core/codec.ts';
import type { UserCode } from '../../../shared/operators/registry.ts';
import type { JobGraph } from '../../../shared/plan/job-graph.ts';
import { nexmarkTestData } from '../../nexmark/test-data.ts';
import type { SourceRecord } from './pipeline-driver.ts';

/** Queries whose sink result does not need an end-of-input watermark (Kinesis sources are unbounded). */
export type NexmarkQuery = 'q15' | 'q19';

/** A test job. */
export interface NexmarkJob {
  readonly query: NexmarkQuery;
  readonly graph: JobGraph;
  readonly code: UserCode;
  /** The reference's final result, as `--final` writes it. */
  readonly expected: Record<string, JsonValue>[];
}

/** The test data's bid lines, in order. */
export function bidLines(): string[] {
  return [...nexmarkTestData().bidLines];
}

/** Lines as source records; `firstLineIndex` is the 0-based index of `lines[0]` in the file. */
export function asRecords(lines: readonly string[], firstLineIndex = 0): SourceRecord[] {
  return lines.map((data, i) => ({ partitionKey: String(firstLineIndex + i + 1), data }));
}

/**
 * Plans `query` at `parallelism` (the downstream stages) with its source stage at
 * `sourceShards`, with its reference result.
 */
export async function nexmarkJob(query: NexmarkQuery, parallelism: number, sourceShards: number): Promise<NexmarkJob> {
  const pipeline = ((await import(`../../../examples/nexmark/${query}.ts`)) as { default: Pipeline }).default;
  const planned = pipeline.jobGraph({ parallelism });
  const graph: JobGraph = {
    ...planned,
    sources: planned.sources.map((s) => ({ ...s, parallelism: sourceShards })),
    stages: planned.stages.map((s) => (s.input.type === 'source' ? { ...s, parallelism: sourceShards } : s)),
  };
  const expected = nexmarkTestData().expected(query);
  return { query, graph, code: { functions: pipeline.userFunctions }, expected };
}
