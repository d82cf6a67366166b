/**
 * `flambda local … --ui`: the job page of a job run the AWS way (Kinesis streams, stage
 * handlers, DynamoDB state on in-process emulators) — counters per stage shard named by Kinesis
 * shard ids, exchange channels named by the producing shard, the sink's tap, and the page kept
 * after the job until Ctrl-C.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeNexmarkFiles } from '../../shared/nexmark/write-files.ts';
import { REPO_ROOT, makeTempDir } from '../cli/cli.ts';

const tmp = makeTempDir('ui-local');
afterAll(() => tmp.cleanup());

describe('flambda local --ui', () => {
  it('serves the page of the local job while it runs and after it ends, until Ctrl-C', async () => {
    const dir = tmp.file('gen');
    mkdirSync(dir);
    await writeNexmarkFiles(dir, { events: 1500, seed: 5 });
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/flambda.mjs'), 'local', 'examples/nexmark/q5.ts', '--input', `bid=${join(dir, 'bid.jsonl')}`, '-p', '2', '-q', '--ui'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 60_000;
      while (!/the job has ended/.test(stderr) && Date.now() < deadline && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 200));
      const url = /job page at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stderr)?.[1];
      expect(url, stderr).toBeDefined();
      expect(stderr).toMatch(/the job has ended/);
      const job = (await (await fetch(new URL('api/job', url))).json()) as { runtime: string; status: string };
      expect(job).toMatchObject({ runtime: 'local', status: 'finished' });
      const m = (await (await fetch(new URL('api/metrics', url))).json()) as {
        totals: { recordsRead: number };
        sinks: Record<string, { rows: number }>;
        operators: Record<string, { total: { recordsIn: number }; shards: { label: string; stateScope: string }[] }>;
        stages: Record<string, { watermark: unknown; billing: { units: Record<string, number>; usd: number; usdPer1000Events: number } | null; shards: { label: string; input: { channels?: { channel: string; from: string }[] } }[] }>;
        billing: { units: Record<string, number>; usd: number; usdPer1000Events: number } | null;
      };
      const read = Number(/read (\d+) records/.exec(stderr)?.[1]);
      expect(m.totals.recordsRead).toBe(read);
      expect(m.operators.Calc_2?.total.recordsIn).toBe(read);
      expect(m.operators.WindowAggregate_3?.shards.map((s) => [s.label, s.stateScope])).toEqual([
        ['shardId-000000000000', 'cached'],
        ['shardId-000000000001', 'cached'],
      ]);
      const sinkRows = Number(/sink 'q5': (\d+) changelog rows/.exec(stderr)?.[1]);
      expect(m.sinks.q5?.rows).toBe(sinkRows);
      expect(m.stages['stage-2']?.watermark).toBe('Infinity');
      expect(m.stages['stage-1']?.shards[0]?.input.channels?.map((c) => [c.channel, c.from])).toEqual([
        ['shardId-000000000000', 'stage-0 shardId-000000000000'],
        ['shardId-000000000001', 'stage-0 shardId-000000000001'],
      ]);
      // Billed units from the metered handler clients: every stage was invoked, the window stage
      // wrote its state, the first stage put exchange records; the total is the stages' sum.
      const stageBilling = ['stage-0', 'stage-1', 'stage-2'].map((id) => m.stages[id]?.billing);
      for (const b of stageBilling) expect(b?.units.lambdaRequests).toBeGreaterThan(0);
      expect(stageBilling[1]?.units.dynamodbWriteUnits).toBeGreaterThan(0);
      expect(stageBilling[0]?.units.kinesisPutPayloadUnits).toBeGreaterThan(0);
      expect(m.billing?.usd).toBeGreaterThan(0);
      expect(m.billing?.usd).toBeCloseTo(stageBilling.reduce((a, b) => a + (b?.usd ?? 0), 0), 12);
      expect(m.billing?.usdPer1000Events).toBeCloseTo(((m.billing?.usd ?? 0) * 1000) / read, 12);
      const tap = (await (await fetch(new URL(`api/taps/${encodeURIComponent('op:Calc_5->sink:q5')}`, url))).json()) as { total: number; rows: { op: string }[] };
      expect(tap.total).toBe(sinkRows);
      expect(tap.rows.every((r) => r.op === '+I')).toBe(true);
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 90_000);
});
