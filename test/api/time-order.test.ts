/**
 * The API's time-ordered streams — `sortByTime`, `limit`, a SESSION's `withWindowColumns` — with
 * their late rows routed to late sinks, on both runtimes: the embedded runtime (which also counts
 * them in the job's late rows) and the AWS runtime on emulators (stage handlers, Kinesis,
 * DynamoDB state and timers). Both give the same sink rows and late rows.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Pipeline, session } from '../../shared/api/index.ts';
import { runLocalJob } from '../../shared/aws/local/local-job.ts';
import { createRowEncoder } from '../../shared/core/codec.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import type { JobGraph } from '../../shared/plan/job-graph.ts';
import { runEmbeddedJob } from '../../shared/runtime/embedded/embedded-runtime.ts';
import { makeTempDir } from '../cli/cli.ts';

const tmp = makeTempDir('api-time-order');
afterAll(() => tmp.cleanup());

const at = (s: number): string => `2026-11-29 12:00:${String(s).padStart(2, '0')}.000`;
const SCHEMA = { k: 'BIGINT NOT NULL', v: 'BIGINT NOT NULL', ts: 'TIMESTAMP(3) NOT NULL' } as const;
// k=1 sessions (gap 5 s): 1, 3 → [1, 8); 30 → [30, 35); then 4 arrives when the watermark is 30:
// its session [4, 9) has closed and it touches no open one → late. The sort has emitted up to
// 30 by then (the watermark 30 released 1, 3, 20 and 30), so 4 is late there too.
const LINES = [
  { k: 1, v: 1, ts: at(1) },
  { k: 1, v: 2, ts: at(3) },
  { k: 2, v: 3, ts: at(20) },
  { k: 1, v: 4, ts: at(30) },
  { k: 1, v: 5, ts: at(4) },
];

function input(): string {
  const path = join(tmp.path, 'ev.jsonl');
  writeFileSync(path, LINES.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return path;
}

/** Both runtimes' rows per sink, each row as `kind` + its JSON (timestamps as text). */
async function runBoth(p: Pipeline, parallelism: number): Promise<{ embedded: Map<string, string[]>; local: Map<string, string[]>; lateRecords: number }> {
  const graph = p.jobGraph({ parallelism });
  const text = (g: JobGraph, sink: string, rows: readonly ChangeRow[]): string[] => {
    const encode = createRowEncoder(g.sinks.find((s) => s.name === sink)!.schema);
    return rows.map((r) => `${r.kind}${JSON.stringify(encode(r.row))}`);
  };
  const embedded = new Map<string, string[]>();
  const result = await runEmbeddedJob(graph, {
    inputs: new Map([['ev', input()]]),
    code: { functions: p.userFunctions },
    batchSize: 1,
    observers: new Map(graph.sinks.map((s) => [s.name, [{ write: (rows: readonly ChangeRow[]) => void embedded.set(s.name, [...(embedded.get(s.name) ?? []), ...text(graph, s.name, rows)]) }]])),
  });
  const local = new Map<string, string[]>();
  const run = await runLocalJob({
    graph,
    code: { functions: p.userFunctions },
    inputs: new Map([['ev', input()]]),
    sink: (sink, rows) => local.set(sink, [...(local.get(sink) ?? []), ...text(graph, sink, rows)]),
    batchSize: 1,
    env: {},
  });
  expect(run.errors).toEqual([]);
  return { embedded, local, lateRecords: result.lateRecords };
}

const source = (p: Pipeline) => p.source('ev', { schema: SCHEMA, watermark: { column: 'ts', outOfOrdernessMs: 0 }, parallelism: 1 });
const late = `+I${JSON.stringify({ k: 1, v: 5, ts: at(4) })}`;

describe('late rows of the time-ordered streams reach their late sinks on both runtimes', () => {
  it('a SESSION table function on its own', async () => {
    const p = new Pipeline('session-alone');
    source(p).window(session('ts', '5 s', { partitionBy: ['k'] })).withWindowColumns({ lateSink: 'late' }).sinkTo('out');
    const { embedded, local, lateRecords } = await runBoth(p, 2);
    const row = (k: number, v: number, ts: number, start: number, end: number) => `+I${JSON.stringify({ k, v, ts: at(ts), window_start: at(start), window_end: at(end), window_time: `2026-11-29 12:00:${String(end - 1).padStart(2, '0')}.999` })}`;
    const expected = [row(1, 1, 1, 1, 8), row(1, 2, 3, 1, 8), row(2, 3, 20, 20, 25), row(1, 4, 30, 30, 35)].sort();
    for (const out of [embedded, local]) {
      expect([...(out.get('out') ?? [])].sort()).toEqual(expected);
      expect(out.get('late')).toEqual([late]);
    }
    expect(lateRecords).toBe(1);
  }, 120_000);

  it('a temporal sort', async () => {
    const p = new Pipeline('sorted');
    source(p).sortByTime({ orderBy: ['ts', 'v DESC'], lateSink: 'late' }).sinkTo('out');
    const { embedded, local, lateRecords } = await runBoth(p, 2);
    const row = (k: number, v: number, ts: number) => `+I${JSON.stringify({ k, v, ts: at(ts) })}`;
    for (const out of [embedded, local]) {
      expect(out.get('out')).toEqual([row(1, 1, 1), row(1, 2, 3), row(2, 3, 20), row(1, 4, 30)]);
      expect(out.get('late')).toEqual([late]);
    }
    expect(lateRecords).toBe(1);
  }, 120_000);

  it('a limit takes the first rows to arrive', async () => {
    const p = new Pipeline('limited');
    source(p).limit(2, { offset: 1 }).sinkTo('out');
    const { embedded, local } = await runBoth(p, 2);
    const row = (k: number, v: number, ts: number) => `+I${JSON.stringify({ k, v, ts: at(ts) })}`;
    for (const out of [embedded, local]) expect(out.get('out')).toEqual([row(1, 2, 3), row(2, 3, 20)]);
  }, 120_000);
});
