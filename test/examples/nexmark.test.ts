/**
 * The Nexmark examples against the fixture's expected final results, in-process (the CLI tests
 * cover the same path through `flambda run`), at several parallelisms and batch sizes: the
 * result must not depend on how rows are spread over shards or cut into batches.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Pipeline } from '../../shared/api/pipeline.ts';
import { createRowEncoder, type JsonValue } from '../../shared/core/codec.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import { lookupTablesOf } from '../../shared/plan/job-graph.ts';
import { runEmbeddedJob } from '../../shared/runtime/embedded/embedded-runtime.ts';
import { MaterializedView } from '../../shared/runtime/materialized-view.ts';
import { FIXTURE_DIR } from '../cli/cli.ts';

/** Runs a pipeline over the fixture and returns its sink's final rows, JSON-encoded. */
export async function runOnFixture(pipeline: Pipeline, parallelism: number, batchSize: number): Promise<Record<string, JsonValue>[]> {
  const graph = pipeline.jobGraph({ parallelism });
  const sink = graph.sinks[0]!;
  const view = new MaterializedView({ ...(sink.upsertKey ? { key: sink.upsertKey } : {}), columns: sink.schema.fields.map((f) => f.name), strict: true });
  // Sources and JSON-lines lookup tables (q13's side_input) are bound by name, as --input does.
  const names = [...graph.sources.map((s) => s.name), ...[...lookupTablesOf(graph).values()].filter((t) => t.source.type === 'jsonl').map((t) => t.table)];
  const inputs = new Map(names.map((name) => [name, resolve(FIXTURE_DIR, `${name}.jsonl`)]));
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

const expected = (query: string): Record<string, JsonValue>[] =>
  JSON.parse(readFileSync(resolve(FIXTURE_DIR, `expected_${query}.json`), 'utf8')) as Record<string, JsonValue>[];

describe.each(['q15', 'q18', 'q19', 'q5', 'q7', 'q11', 'q13'])('Nexmark %s on the fixture', (query) => {
  it.each([
    [1, 1024],
    [4, 1024],
    [3, 1],
    [2, 7],
    [8, 3],
  ])('matches the expected result at parallelism %i, batch size %i', async (parallelism, batchSize) => {
    const module = (await import(`../../examples/nexmark/${query}.ts`)) as { default: Pipeline };
    const rows = await runOnFixture(module.default, parallelism, batchSize);
    expect(canonical(rows)).toEqual(canonical(expected(query)));
  });
});
