/** Runs a pipeline over the Nexmark fixture in the embedded runtime (as test/examples/nexmark.test.ts does). */
import { resolve } from 'node:path';
import type { Pipeline } from '../../shared/api/pipeline.ts';
import { createRowEncoder, type JsonValue } from '../../shared/core/codec.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import { runEmbeddedJob } from '../../shared/runtime/embedded/embedded-runtime.ts';
import { lookupTablesOf } from '../../shared/plan/job-graph.ts';
import { MaterializedView } from '../../shared/runtime/materialized-view.ts';
import { FIXTURE_DIR } from '../cli/cli.ts';

/** The first sink's final rows, JSON-encoded. */
export async function runOnFixture(pipeline: Pipeline, parallelism: number, batchSize: number): Promise<Record<string, JsonValue>[]> {
  const graph = pipeline.jobGraph({ parallelism });
  const sink = graph.sinks[0]!;
  const view = new MaterializedView({ ...(sink.upsertKey ? { key: sink.upsertKey } : {}), columns: sink.schema.fields.map((f) => f.name), strict: true });
  // Sources and JSON-lines lookup tables are bound by name, as `--input name=path` does.
  const names = [...graph.sources.map((s) => s.name), ...lookupTablesOf(graph).keys()];
  const inputs = new Map(names.map((n) => [n, resolve(FIXTURE_DIR, `${n}.jsonl`)]));
  await runEmbeddedJob(graph, {
    inputs,
    code: { functions: pipeline.userFunctions, generators: pipeline.generators },
    batchSize,
    observers: new Map([[sink.name, [{ write: (rows: readonly ChangeRow[]) => rows.forEach((r) => view.apply(r)) }]]]),
  });
  const encode = createRowEncoder(sink.schema);
  return view.rows().map(encode);
}

/** Rows as sorted canonical strings, so row order does not matter. */
export function canonical(rows: readonly Record<string, JsonValue>[]): string[] {
  return rows.map((r) => JSON.stringify(Object.keys(r).sort().map((k) => [k, r[k]]))).sort();
}
