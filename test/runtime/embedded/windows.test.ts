/**
 * Windows on the embedded runtime: late rows routed to their late sink (and counted when no sink
 * takes them), allowed lateness re-firing, early firing, processing-time windows, window
 * functions, and the summary line's late-row counts.
 */
import { describe, expect, it } from 'vitest';
import { Pipeline, count, sum, tumble, session } from '../../../shared/api/index.ts';
import { summaryLine } from '../../../shared/cli/bindings.ts';
import type { ChangeRow } from '../../../shared/core/row.ts';
import type { Row } from '../../../shared/core/types.ts';
import { runEmbeddedJob, type JobResult } from '../../../shared/runtime/embedded/embedded-runtime.ts';
import { MaterializedView } from '../../../shared/runtime/materialized-view.ts';

const SCHEMA = { k: 'BIGINT NOT NULL', v: 'BIGINT NOT NULL', ts: 'TIMESTAMP(3) NOT NULL' } as const;
const s = (seconds: number): number => seconds * 1000;

/** Rows in arrival order: on time for windows [0, 10) and [10, 20), then one late row for [0, 10). */
const LATE_INPUT: Row[] = [
  { k: 1, v: 1, ts: s(1) },
  { k: 2, v: 2, ts: s(2) },
  { k: 1, v: 3, ts: s(12) },
  { k: 1, v: 4, ts: s(25) },
  { k: 1, v: 5, ts: s(3) },
];

/** A generator source; one shard by default, so a row's lateness does not depend on the job's parallelism. */
function source(p: Pipeline, rows: readonly Row[], parallelism = 1) {
  return p.source('t', { schema: SCHEMA, watermark: { column: 'ts', outOfOrdernessMs: 0 }, generator: () => rows, parallelism });
}

interface Run {
  readonly result: JobResult;
  readonly changelogs: Map<string, ChangeRow[]>;
  final(sink: string): Row[];
}

async function run(p: Pipeline, options: { parallelism?: number; batchSize?: number; clock?: () => number } = {}): Promise<Run> {
  const graph = p.jobGraph({ parallelism: options.parallelism ?? 1 });
  const changelogs = new Map<string, ChangeRow[]>(graph.sinks.map((sink) => [sink.name, []]));
  const observers = new Map(graph.sinks.map((sink) => [sink.name, [{ write: (rows: readonly ChangeRow[]) => changelogs.get(sink.name)!.push(...rows) }]]));
  const result = await runEmbeddedJob(graph, {
    code: { functions: p.userFunctions, generators: p.generators },
    batchSize: options.batchSize ?? 1,
    observers,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return {
    result,
    changelogs,
    final(name) {
      const sink = graph.sinks.find((x) => x.name === name)!;
      const view = new MaterializedView({ ...(sink.upsertKey ? { key: sink.upsertKey } : {}), columns: sink.schema.fields.map((f) => f.name), strict: true });
      for (const r of changelogs.get(name)!) view.apply(r);
      return view.rows();
    },
  };
}

const byKeyAndStart = (a: Row, b: Row): number => (a.k as number) - (b.k as number) || (a.window_start as number) - (b.window_start as number);

describe('late rows', () => {
  it.each([1, 3])('go to the late sink, unchanged and insert-only, and are counted (parallelism %i)', async (parallelism) => {
    const p = new Pipeline('late');
    source(p, LATE_INPUT)
      .window(tumble('ts', '10 s'))
      .aggregate({ n: count(), total: sum('v') }, { groupBy: ['k'], lateSink: 'late_rows' })
      .select({ k: 'k', n: 'n', total: 'total', window_start: 'window_start' })
      .sinkTo('out');
    const r = await run(p, { parallelism });
    expect(r.changelogs.get('late_rows')).toEqual([{ kind: '+I', row: { k: 1, v: 5, ts: s(3) } }]);
    expect(r.final('out').sort(byKeyAndStart)).toEqual([
      { k: 1, n: 1, total: 1, window_start: 0 },
      { k: 1, n: 1, total: 3, window_start: s(10) },
      { k: 1, n: 1, total: 4, window_start: s(20) },
      { k: 2, n: 1, total: 2, window_start: 0 },
    ]);
    expect(r.result.lateRecords).toBe(1);
    expect(r.result.sideOutputRows).toEqual({ routed: 1, dropped: 0 });
    expect(r.result.sinks.get('late_rows')).toEqual({ rowsWritten: 1 });
    expect(summaryLine(r.result, new Map())).toMatch(/sink 'late_rows': 1 changelog rows, sink 'out': 4 changelog rows; 1 late rows \(1 to late sinks, 0 dropped\)$/);
  });

  it('without a late sink are counted as dropped, never silently', async () => {
    const p = new Pipeline('late');
    source(p, LATE_INPUT).window(tumble('ts', '10 s')).aggregate({ n: count() }, { groupBy: ['k'] }).sinkTo('out');
    const r = await run(p);
    expect(r.result.lateRecords).toBe(1);
    expect(r.result.sideOutputRows).toEqual({ routed: 0, dropped: 1 });
    expect(summaryLine(r.result, new Map())).toContain('; 1 late rows (0 to late sinks, 1 dropped)');
  });

  it('of a window Top-N are found by the rank (the TVF assigns every row) and routed to the late sink', async () => {
    const p = new Pipeline('late');
    source(p, LATE_INPUT).window(tumble('ts', '10 s')).topN(1, { orderBy: ['v DESC'], lateSink: 'late_rows' }).select({ v: 'v', window_start: 'window_start' }).sinkTo('out');
    const r = await run(p, { parallelism: 2 });
    expect(r.changelogs.get('late_rows')).toEqual([{ kind: '+I', row: { k: 1, v: 5, ts: s(3), window_start: 0, window_end: s(10), window_time: s(10) - 1 } }]);
    expect(r.final('out').sort((a, b) => (a.window_start as number) - (b.window_start as number))).toEqual([
      { v: 2, window_start: 0 },
      { v: 3, window_start: s(10) },
      { v: 4, window_start: s(20) },
    ]);
  });
});

describe('firing', () => {
  it('allowed lateness re-fires a window with the late row, as an update', async () => {
    const p = new Pipeline('lateness');
    source(p, LATE_INPUT).window(tumble('ts', '10 s')).aggregate({ total: sum('v') }, { groupBy: ['k'], allowedLateness: '30 s', lateSink: 'late_rows' }).sinkTo('out');
    const r = await run(p);
    expect(r.changelogs.get('late_rows')).toEqual([]);
    expect(r.changelogs.get('out')!.map((c) => c.kind)).toContain('-U');
    const k1w0 = r.final('out').find((row) => row.k === 1 && row.window_start === 0);
    expect(k1w0?.total).toBe(6);
  });

  it('early firing emits running results that an upsert sink turns into the final ones', async () => {
    const p = new Pipeline('early');
    const rows: Row[] = [1, 2, 3, 12, 25].map((t) => ({ k: 1, v: t, ts: s(t) }));
    source(p, [...rows, { k: 2, v: 2, ts: s(26) }])
      .window(tumble('ts', '10 s'))
      .aggregate({ n: count() }, { groupBy: ['k'], trigger: { early: 0 } })
      .sinkTo('out', { upsertKey: ['k', 'window_start', 'window_end'] });
    const r = await run(p);
    expect(r.changelogs.get('out')!.length).toBeGreaterThan(r.final('out').length);
    expect(r.changelogs.get('out')!.map((c) => c.kind)).toContain('+U');
    expect(r.final('out').map((row) => [row.k, row.window_start, row.n]).sort()).toEqual([
      [1, 0, 3],
      [1, s(10), 1],
      [1, s(20), 1],
      [2, s(20), 1],
    ].sort());
  });

  it('session windows merge across shards of the source', async () => {
    const rows: Row[] = [0, 4, 8, 30, 33].map((t, i) => ({ k: 7, v: i, ts: s(t) }));
    const p = new Pipeline('sessions');
    p.source('t', { schema: SCHEMA, watermark: { column: 'ts', outOfOrdernessMs: 0 }, generator: () => rows, parallelism: 3 })
      .window(session('ts', '5 s', { partitionBy: ['k'] }))
      .aggregate({ n: count() })
      .sinkTo('out');
    const r = await run(p, { parallelism: 2, batchSize: 2 });
    expect(r.final('out').map((row) => [row.window_start, row.window_end, row.n]).sort()).toEqual([
      [0, s(13), 3],
      [s(30), s(38), 2],
    ].sort());
  });

  it('processing-time windows fire on the clock and at the end of bounded input', async () => {
    const rows: Row[] = Array.from({ length: 40 }, (_, i) => ({ k: i % 2, v: 1, ts: s(i) }));
    let now = s(1000);
    const p = new Pipeline('proctime');
    source(p, rows).window(tumble('ts', '10 s'), { timeDomain: 'processing' }).aggregate({ n: count() }, { groupBy: ['k'] }).sinkTo('out');
    // Every clock reading moves processing time on by 1 s.
    const r = await run(p, { parallelism: 2, clock: () => (now += 1000) });
    const out = r.final('out');
    expect(out.length).toBeGreaterThan(2);
    expect(out.reduce((a, row) => a + (row.n as number), 0)).toBe(40);
    expect(r.result.lateRecords).toBe(0);
  });

  it('runs a window process function per group and window', async () => {
    const p = new Pipeline('process');
    source(p, LATE_INPUT.slice(0, 4))
      .window(tumble('ts', '10 s'))
      .process({ k: 'BIGINT', values: 'STRING' }, (key, window, rs) => [{ k: key.k as number, values: `${window.start}:${rs.map((x) => x.v).join('+')}` }], { groupBy: ['k'] })
      .sinkTo('out');
    const r = await run(p, { parallelism: 2 });
    expect(r.final('out').map((row) => `${row.k}@${row.values}`).sort()).toEqual(['1@0:1', '1@10000:3', '1@20000:4', '2@0:2']);
  });
});
