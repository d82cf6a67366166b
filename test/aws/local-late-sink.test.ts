/**
 * Late data on the AWS runtime (runLocalJob: Kinesis streams, stage handlers, DynamoDB state and
 * timers on emulators): a TUMBLE window aggregation whose late rows go to a late sink. One row
 * arrives after the watermark passed its window's end; it must reach the late sink exactly once
 * and stay out of the window results, and every window must close at the end of the input.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Pipeline, count, sum, tumble } from '../../shared/api/index.ts';
import { runLocalJob } from '../../shared/aws/local/local-job.ts';
import { createRowEncoder } from '../../shared/core/codec.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import { makeTempDir } from '../cli/cli.ts';

const tmp = makeTempDir('aws-late-sink');
afterAll(() => tmp.cleanup());

describe('runLocalJob: late rows of a window aggregation', () => {
  it('go to the late sink once, and the windows close at the end of the input', async () => {
    const p = new Pipeline('late-sink');
    p.source('ev', { schema: { k: 'BIGINT NOT NULL', v: 'BIGINT NOT NULL', ts: 'TIMESTAMP(3) NOT NULL' }, watermark: { column: 'ts', outOfOrdernessMs: 0 }, parallelism: 1 })
      .window(tumble('ts', '10 s'))
      .aggregate({ n: count(), total: sum('v') }, { groupBy: ['k'], lateSink: 'late' })
      .sinkTo('out');
    const graph = p.jobGraph({ parallelism: 2 });
    const input = join(tmp.path, 'ev.jsonl');
    const at = (s: number): string => `2026-11-29 12:00:${String(s).padStart(2, '0')}.000`;
    // k=1: 12:00:01 and 12:00:03 in [0,10); 12:00:25 moves the watermark to 25 s; then 12:00:04 is late.
    const lines = [
      { k: 1, v: 1, ts: at(1) },
      { k: 1, v: 2, ts: at(3) },
      { k: 2, v: 5, ts: at(12) },
      { k: 1, v: 10, ts: at(25) },
      { k: 1, v: 100, ts: at(4) },
    ];
    writeFileSync(input, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');

    const received = new Map<string, ChangeRow[]>();
    const result = await runLocalJob({
      graph,
      code: { functions: p.userFunctions },
      inputs: new Map([['ev', input]]),
      sink: (sink, rows) => received.set(sink, [...(received.get(sink) ?? []), ...rows]),
      batchSize: 2,
      env: {},
    });
    expect(result.errors).toEqual([]);
    const encode = (name: string) => createRowEncoder(graph.sinks.find((s) => s.name === name)!.schema);
    const out = (received.get('out') ?? []).map((r) => {
      const json = encode('out')(r.row);
      return { kind: r.kind, k: json.k, n: json.n, total: json.total, window_start: json.window_start };
    });
    expect(out.sort((a, b) => String(a.window_start).localeCompare(String(b.window_start)) || Number(a.k) - Number(b.k))).toEqual([
      { kind: '+I', k: 1, n: 2, total: 3, window_start: at(0) },
      { kind: '+I', k: 2, n: 1, total: 5, window_start: at(10) },
      { kind: '+I', k: 1, n: 1, total: 10, window_start: at(20) },
    ]);
    const late = (received.get('late') ?? []).map((r) => ({ kind: r.kind, ...encode('late')(r.row) }));
    expect(late).toEqual([{ kind: '+I', k: 1, v: 100, ts: at(4) }]);
  });
});
