/**
 * The job monitor and its HTTP/JSON endpoint (docs/ui.md) on real embedded jobs: counters equal
 * the job's own, taps hold an edge's latest rows exactly, late rows reach the side-output edge,
 * dead letters keep their reason and position, watermarks end at +∞ explained, and the server
 * answers only requests for its own loopback address.
 */
import { request } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { Pipeline, count, sum, tumble } from '../../shared/api/index.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import type { Row } from '../../shared/core/types.ts';
import { createRowEncoder } from '../../shared/core/codec.ts';
import { runEmbeddedJob, type JobResult } from '../../shared/runtime/embedded/embedded-runtime.ts';
import type { JobProbe } from '../../shared/runtime/job-probe.ts';
import { JobMonitor } from '../../shared/ui/job-monitor.ts';
import { jobView } from '../../shared/ui/job-view.ts';
import { startUiServer, type UiServer } from '../../shared/ui/ui-server.ts';
import { makeTempDir } from '../cli/cli.ts';

const tmp = makeTempDir('ui-monitor');
const servers: UiServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  tmp.cleanup();
});

const s = (seconds: number): number => seconds * 1000;
const SCHEMA = { k: 'BIGINT NOT NULL', v: 'BIGINT NOT NULL', ts: 'TIMESTAMP(3) NOT NULL' } as const;

/** Per key: 200 rows over 20 s of event time, two keys, then one row too late for its window. */
function rows(): Row[] {
  const out: Row[] = [];
  for (let i = 0; i < 200; i++) out.push({ k: i % 2, v: i, ts: s(i / 10) });
  out.push({ k: 0, v: 999, ts: s(1) });
  return out;
}

function windowed(): Pipeline {
  const p = new Pipeline('windowed');
  p.source('t', { schema: SCHEMA, watermark: { column: 'ts', outOfOrdernessMs: 0 }, generator: rows, parallelism: 2 })
    .window(tumble('ts', '5 s'))
    .aggregate({ n: count(), total: sum('v') }, { groupBy: ['k'], lateSink: 'late_rows' })
    .select({ k: 'k', n: 'n', total: 'total', window_start: 'window_start' })
    .sinkTo('out');
  return p;
}

async function monitored(p: Pipeline, options: { inputs?: Map<string, string>; tapRows?: number } = {}): Promise<{ monitor: JobMonitor; result: JobResult; changelogs: Map<string, ChangeRow[]> }> {
  const graph = p.jobGraph({ parallelism: 2 });
  const monitor = new JobMonitor(graph, 'embedded', { sampleEveryMs: 20, ...(options.tapRows !== undefined ? { tapRows: options.tapRows } : {}) });
  const changelogs = new Map<string, ChangeRow[]>(graph.sinks.map((sink) => [sink.name, []]));
  const observers = new Map(graph.sinks.map((sink) => [sink.name, [monitor.sinkObserver(sink.name), { write: (r: readonly ChangeRow[]) => void changelogs.get(sink.name)?.push(...r) }]]));
  const result = await runEmbeddedJob(graph, {
    code: { functions: p.userFunctions, generators: p.generators },
    batchSize: 16,
    observers,
    ...(options.inputs ? { inputs: options.inputs } : {}),
    onStart: (probe) => monitor.attach(probe),
    onDeadLetter: (l) => monitor.deadLetter({ source: l.source, position: l.position, reason: l.reason, raw: l.raw }),
  });
  monitor.finished({ recordsRead: result.recordsRead });
  return { monitor, result, changelogs };
}

describe('JobMonitor', () => {
  it("counts what the job's operators and sinks count", async () => {
    const { monitor, result } = await monitored(windowed());
    const m = monitor.metricsJson() as { operators: Record<string, { total: { recordsIn: number; recordsOut: number; lateRows: number }; shards: unknown[] }>; sinks: Record<string, { rows: number }>; totals: { recordsRead: number; lateRows: number } };
    for (const [id, metrics] of result.operatorMetrics) {
      expect(m.operators[id]?.total.recordsIn, id).toBe(metrics.get('numRecordsIn') ?? 0);
      expect(m.operators[id]?.total.recordsOut, id).toBe(metrics.get('numRecordsOut') ?? 0);
      expect(m.operators[id]?.shards).toHaveLength(2);
    }
    for (const [name, sink] of result.sinks) expect(m.sinks[name]?.rows).toBe(sink.rowsWritten);
    expect(m.totals.recordsRead).toBe(result.recordsRead);
    expect(m.totals.lateRows).toBe(1);
    expect(result.lateRecords).toBe(1);
  });

  it("taps hold an edge's latest rows, and the late row is on the side-output edge", async () => {
    const p = windowed();
    const { monitor, changelogs } = await monitored(p, { tapRows: 5 });
    const graph = p.jobGraph({ parallelism: 2 });
    const view = jobView(graph);
    const side = view.edges.find((e) => e.kind === 'side');
    expect(side).toMatchObject({ to: 'sink:late_rows', label: 'late' });
    const late = monitor.tapJson(side?.id as string, 50) as { total: number; rows: { op: string; row: unknown }[] };
    expect(late.total).toBe(1);
    expect(late.rows.map((r) => [r.op, r.row])).toEqual([['+I', { k: 0, v: 999, ts: '1970-01-01 00:00:01.000' }]]);
    const into = view.edges.find((e) => e.kind === 'sink' && e.to === 'sink:out');
    const tap = monitor.tapJson(into?.id as string, 50) as { total: number; rows: { op: string; row: unknown }[] };
    const all = changelogs.get('out') as ChangeRow[];
    const encode = createRowEncoder(graph.sinks.find((x) => x.name === 'out')?.schema as never);
    expect(tap.total).toBe(all.length);
    // At least the tap's size is kept, newest last, exactly as the sink got them.
    expect(tap.rows.length).toBeGreaterThanOrEqual(5);
    expect(tap.rows.map((r) => [r.op, r.row])).toEqual(all.slice(-tap.rows.length).map((r) => [r.kind, encode(r.row)]));
    expect(monitor.tapJson('no-such-edge', 5)).toBeUndefined();
  });

  it('ends with every watermark at +∞, explained', async () => {
    const { monitor } = await monitored(windowed());
    const m = monitor.metricsJson() as { status: string; stages: Record<string, { watermark: number; why: string; shards: { input: { kind: string; channels?: { channel: string; watermark: number }[] } }[] }> };
    expect(m.status).toBe('finished');
    const stage1 = m.stages['stage-1'];
    expect(stage1?.watermark).toBe(Infinity);
    expect(stage1?.why).toContain('+∞, its input has ended');
    expect(stage1?.shards[0]?.input.channels?.map((c) => [c.channel, c.watermark])).toEqual([
      ['0', Infinity],
      ['1', Infinity],
    ]);
  });
  it('shows billed units and $ per 1,000 events when the runtime reports them', async () => {
    const p = windowed();
    const graph = p.jobGraph({ parallelism: 2 });
    const monitor = new JobMonitor(graph, 'local');
    let real: JobProbe | undefined;
    await runEmbeddedJob(graph, { code: { functions: p.userFunctions, generators: p.generators }, onStart: (probe) => (real = probe) });
    const probe = real as JobProbe;
    // The embedded runtime reports none; a runtime that counts units adds billing() to its probe.
    expect(probe.billing).toBeUndefined();
    monitor.attach({ ...probe, billing: () => new Map([['stage-1', { units: { dynamodbWriteUnits: 150, dynamodbReadUnits: 40 }, usd: 0.0201 }]]) });
    const m = monitor.metricsJson() as { totals: { recordsRead: number }; billing: { usd: number; usdPer1000Events: number; units: Record<string, number> }; stages: Record<string, { billing: unknown }> };
    expect(m.totals.recordsRead).toBe(201);
    expect(m.billing).toEqual({ usd: 0.0201, usdPer1000Events: 0.1, units: { dynamodbWriteUnits: 150, dynamodbReadUnits: 40 } });
    expect(m.stages['stage-0']?.billing).toBeNull();
    expect(m.stages['stage-1']?.billing).toEqual({ units: { dynamodbWriteUnits: 150, dynamodbReadUnits: 40 }, usd: 0.0201, usdPer1000Events: 0.1 });
    monitor.close();
  });
});

describe('the job page server', () => {
  it('serves the page and the JSON endpoints on 127.0.0.1, dead letters with reason and position', async () => {
    const input = tmp.write('t.jsonl', '{"k":1,"v":1,"ts":"1970-01-01 00:00:01.000"}\n{"k":"x","v":2,"ts":"1970-01-01 00:00:02.000"}\n{"k":2,"v":3,"ts":"1970-01-01 00:00:03.000"}\n');
    const p = new Pipeline('files');
    p.source('t', { schema: SCHEMA, watermark: { column: 'ts', outOfOrdernessMs: 0 } }).window(tumble('ts', '5 s')).aggregate({ n: count() }, { groupBy: ['k'] }).sinkTo('out');
    const { monitor } = await monitored(p, { inputs: new Map([['t', input]]) });
    const server = await startUiServer({ monitor });
    servers.push(server);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);

    const page = await fetch(server.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<html/i);
    const js = await fetch(new URL('app.js', server.url));
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    expect((await js.text()).length).toBeGreaterThan(10_000);

    const job = (await (await fetch(new URL('api/job', server.url))).json()) as { name: string; status: string; view: { nodes: { id: string }[]; edges: { id: string; columns: string[] }[] } };
    expect(job.name).toBe('files');
    expect(job.status).toBe('finished');
    expect(job.view.nodes.map((n) => n.id).sort()).toEqual(['op:Calc_2', 'op:WindowAggregate_3', 'sink:out', 'source:t'].sort());

    const letters = (await (await fetch(new URL('api/dead-letters', server.url))).json()) as { total: number; letters: { seq: number; position: string; reason: string; raw: string }[] };
    expect(letters.total).toBe(1);
    expect(letters.letters[0]).toMatchObject({ seq: 1, position: `${input}:2`, raw: '{"k":"x","v":2,"ts":"1970-01-01 00:00:02.000"}' });
    expect(letters.letters[0]?.reason).toMatch(/k/);
    const after = (await (await fetch(new URL('api/dead-letters?after=1', server.url))).json()) as { letters: unknown[] };
    expect(after.letters).toEqual([]);

    const metrics = await (await fetch(new URL('api/metrics', server.url))).text();
    // ±∞ travel as strings, which Number() reads back.
    expect(metrics).toContain('"watermark":"Infinity"');
    const history = (await (await fetch(new URL('api/history', server.url))).json()) as { points: unknown[]; stages: string[] };
    expect(history.points.length).toBeGreaterThan(0);
    expect(history.stages).toEqual(['stage-0', 'stage-1']);

    const edge = job.view.edges[0]?.id as string;
    const tap = await fetch(new URL(`api/taps/${encodeURIComponent(edge)}?limit=1`, server.url));
    expect(tap.status).toBe(200);
    expect(((await tap.json()) as { rows: unknown[] }).rows).toHaveLength(1);
    expect((await fetch(new URL('api/taps/nope', server.url))).status).toBe(404);
    expect((await fetch(new URL('api/nothing', server.url))).status).toBe(404);

    // The event stream starts with the status and the metrics.
    const events = await fetch(new URL('api/events', server.url));
    expect(events.headers.get('content-type')).toBe('text/event-stream');
    const reader = (events.body as ReadableStream<Uint8Array>).getReader();
    let streamed = '';
    while (!streamed.includes('event: metrics\n')) streamed += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(streamed).toMatch(/^event: status\ndata: \{"status":"finished","error":null\}\n\nevent: metrics\ndata: \{"at":\d+,"status":"finished"/);

    // Another host name (DNS rebinding) is refused.
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: server.port, path: '/api/job', headers: { host: `evil.example:${server.port}` } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });

  it('says which port is taken', async () => {
    const monitor = new JobMonitor(windowed().jobGraph(), 'embedded');
    const first = await startUiServer({ monitor });
    servers.push(first);
    await expect(startUiServer({ monitor, port: first.port })).rejects.toThrow(`--port ${first.port}: 127.0.0.1:${first.port} is in use`);
  });
});
