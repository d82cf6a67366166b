/**
 * Test helper: runs a Nexmark query pipeline on the embedded runtime over generated input and
 * returns its sink's final rows (the changelog applied by the sink's upsert key, or by whole
 * row), in the engine's representation.
 */
import type { Pipeline } from '../../shared/api/pipeline.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import type { NexmarkOptions } from '../../shared/nexmark/config.ts';
import { nexmarkJob, runNexmarkQuery } from '../../shared/nexmark/run.ts';
import { lookupTablesOf } from '../../shared/plan/job-graph.ts';
import { MaterializedView } from '../../shared/runtime/materialized-view.ts';
import { nexmarkTestData } from './test-data.ts';

/** Runs `pipeline` over `nexmark` events and returns the final rows of its (first) sink. */
export async function finalRows(
  pipeline: Pipeline,
  nexmark: NexmarkOptions,
  options: { parallelism?: number; batchSize?: number } = {},
): Promise<Record<string, unknown>[]> {
  const { graph } = nexmarkJob(pipeline, { nexmark, parallelism: options.parallelism ?? 1 });
  const sink = graph.sinks[0];
  if (!sink) throw new Error(`pipeline ${pipeline.name} has no sink`);
  const view = new MaterializedView({ ...(sink.upsertKey ? { key: sink.upsertKey } : {}), columns: sink.schema.fields.map((f) => f.name), strict: true });
  // A side input the query may read (q13's): the test data's `{key: i, value: "i"}` file.
  const inputs = new Map([...lookupTablesOf(graph).keys()].filter((name) => name === 'side_input').map((name) => [name, nexmarkTestData().file('side_input')]));
  await runNexmarkQuery(pipeline, {
    nexmark,
    parallelism: options.parallelism ?? 1,
    batchSize: options.batchSize ?? 1024,
    blackhole: true,
    ...(inputs.size > 0 ? { inputs } : {}),
    observers: new Map([[sink.name, [{ write: (rows: readonly ChangeRow[]) => rows.forEach((r) => view.apply(r)) }]]]),
  });
  return view.rows().map((r) => ({ ...r }));
}
