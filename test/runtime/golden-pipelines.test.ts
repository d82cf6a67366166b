/**
 * Golden pipelines: Nexmark q5, q7, q11, q13, q15, q18 and q19 on one generated data set give
 * the same final result through every driver of the stage executor — the embedded runtime, the
 * AWS runtime of `flambda local` (stage handlers on Kinesis and DynamoDB emulators), and the
 * state-io benchmark's driver (DynamoDB keyed state with the effectively-once commit) — and
 * that result is the plain-TypeScript reference's (test/nexmark/reference.ts).
 *
 * All at parallelism 1 (the state-io driver's), so order-dependent ties (q18's keep-last on equal
 * times, q19's ROW_NUMBER among equal prices) see one arrival order everywhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../shared/api/pipeline.ts';
import { awsDimensionSources } from '../../shared/aws/lookup/dimension-sources.ts';
import { runLocalJob } from '../../shared/aws/local/local-job.ts';
import { startDynalite, type LocalEmulator } from '../../shared/aws/local/emulators.ts';
import { createDynamoDbClient } from '../../shared/aws/clients.ts';
import { createStateTable } from '../../shared/aws/state/create-state-table.ts';
import { driveOnDynamoDbState } from '../../shared/bench/state-io.ts';
import { createRowDecoder, decodeJsonLine, type JsonValue } from '../../shared/core/codec.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import { loadExampleQuery } from '../../shared/nexmark/run.ts';
import { lookupTablesOf, type JobGraph } from '../../shared/plan/job-graph.ts';
import { nexmarkTestData } from '../nexmark/test-data.ts';
import { finalRows } from '../sql/run-both.ts';

const QUERIES = ['q5', 'q7', 'q11', 'q13', 'q15', 'q18', 'q19'] as const;
/** 1,500 events over 75 s of event time: windows fire and overlap, sessions merge, Top-N partitions fill. */
const data = nexmarkTestData({ events: 1500, seed: 7, firstEventRate: 20 });

let dynalite: LocalEmulator;
let client: ReturnType<typeof createDynamoDbClient>;
beforeAll(async () => {
  dynalite = await startDynalite();
  client = createDynamoDbClient({ endpoint: dynalite.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'golden', secretAccessKey: 'golden' } });
});
afterAll(async () => {
  client?.destroy();
  await dynalite?.close();
});

/** The JSON-lines lookup tables of the graph (q13's side input), bound to the data set's files. */
function lookupFiles(graph: JobGraph): Map<string, string> {
  return new Map([...lookupTablesOf(graph).values()].filter((t) => t.source.type === 'jsonl').map((t) => [t.table, data.file(t.table)]));
}

async function embedded(pipeline: Pipeline, graph: JobGraph): Promise<string[]> {
  const { runEmbeddedJob } = await import('../../shared/runtime/embedded/embedded-runtime.ts');
  const changes: ChangeRow[] = [];
  await runEmbeddedJob(graph, {
    inputs: new Map([['bid', data.file('bid')], ...lookupFiles(graph)]),
    code: { functions: pipeline.userFunctions },
    batchSize: 500,
    observers: new Map([[graph.sinks[0]!.name, [{ write: (rows: readonly ChangeRow[]) => void changes.push(...rows) }]]]),
  });
  return finalRows(graph, changes);
}

async function local(pipeline: Pipeline, graph: JobGraph): Promise<string[]> {
  const changes: ChangeRow[] = [];
  const result = await runLocalJob({
    graph,
    code: { functions: pipeline.userFunctions, lookupSources: awsDimensionSources({ jsonlPaths: lookupFiles(graph) }) },
    inputs: new Map([['bid', data.file('bid')]]),
    sink: (name, rows) => {
      if (name === graph.sinks[0]!.name) changes.push(...rows);
    },
    batchSize: 500,
    env: {},
  });
  expect(result.errors).toEqual([]);
  expect(result.recordsRead).toBe(data.bidLines.length);
  return finalRows(graph, changes);
}

async function stateIo(pipeline: Pipeline, graph: JobGraph, query: string): Promise<string[]> {
  const decode = createRowDecoder(graph.sources[0]!.schema);
  const rows = data.bidLines.map((line, i) => decodeJsonLine(line, decode, `bid:${i + 1}`));
  const table = `golden-${query}`;
  await createStateTable(client, table);
  const changes: ChangeRow[] = [];
  const run = await driveOnDynamoDbState(graph, rows, client, table, {
    code: { functions: pipeline.userFunctions, lookupSources: awsDimensionSources({ jsonlPaths: lookupFiles(graph) }) },
    onSink: (sink, out) => {
      if (sink === graph.sinks[0]!.name) changes.push(...out);
    },
  });
  expect(run.rowsOut).toBe(changes.length);
  return finalRows(graph, changes);
}

/** The reference's rows as the sink encodes them. */
function expectedOf(graph: JobGraph, query: string): string[] {
  const columns = graph.sinks[0]!.schema.fields.map((f) => f.name);
  return data
    .expected(query)
    .map((row: Record<string, JsonValue>) => JSON.stringify(Object.fromEntries(columns.map((c) => [c, row[c] ?? null]))))
    .sort();
}

describe.each(QUERIES)('golden pipeline %s', (query) => {
  it('gives the reference result through the embedded runtime, flambda local and the state-io driver', async () => {
    const pipeline = await loadExampleQuery(query);
    const graph = pipeline.jobGraph({ parallelism: 1 });
    const expected = expectedOf(graph, query);
    expect(expected.length).toBeGreaterThan(0);
    expect(await embedded(pipeline, graph)).toEqual(expected);
    expect(await stateIo(pipeline, graph, query)).toEqual(expected);
    expect(await local(pipeline, graph)).toEqual(expected);
  }, 180_000);
});
