/**
 * The job page in a real browser (headless Chromium through playwright-core): a Nexmark q5 job
 * runs with `flambda run … --ui` over a live, partitioned input (two named pipes fed with
 * generated bids), and the page must show
 * - the job graph: one node per source, operator and sink, and the edges between them, as the
 *   job graph has them (exchanges labelled with their distribution);
 * - a watermark that advances while bids arrive;
 * - a tap on an edge that shows the rows crossing it;
 * - a stuck watermark explained: when one partition falls silent without ending, the stage
 *   downstream is held by that channel, which is not marked idle (no idle timeout declared).
 * Screenshots go to out/test-ui/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../shared/api/pipeline.ts';
import type { JobGraph } from '../../shared/plan/job-graph.ts';
import { formatDistribution } from '../../shared/plan/planner.ts';
import { REPO_ROOT } from '../cli/cli.ts';
import { SCREENSHOT_DIR, launchChromium } from './browser.ts';
import { LivePartitions } from './live-input.ts';

const dir = mkdtempSync(join(tmpdir(), 'flambda-ui-'));
let input: LivePartitions;
let job: ChildProcess;
let stderr = '';
let browser: Browser;
let page: Page;
let graph: JobGraph;

/** Starts `flambda run` with the page on a free port; resolves with the page's address. */
function startJob(): Promise<string> {
  job = spawn(process.execPath, [join(REPO_ROOT, 'bin/flambda.mjs'), 'run', 'examples/nexmark/q5.ts', '--input', `bid=${input.dir}`, '-p', '2', '-q', '--ui'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    job.stderr?.setEncoding('utf8').on('data', (s: string) => {
      stderr += s;
      const m = /job page at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stderr);
      if (m) resolve(m[1] as string);
    });
    job.on('exit', (code) => reject(new Error(`flambda run exited (${code}) before serving the page: ${stderr}`)));
  });
}

/** Polls `read` until `ok` holds (or the time is up); returns the last value. */
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!ok(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    value = await read();
  }
  return value;
}

beforeAll(async () => {
  graph = ((await import('../../examples/nexmark/q5.ts')) as { default: Pipeline }).default.jobGraph({ parallelism: 2 });
  input = new LivePartitions(dir, 2, 7);
  const url = startJob();
  // The pipes open once the job's reader opens them.
  await input.start(100, 100);
  const address = await url;
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(address);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await input?.close();
  if (job && job.exitCode === null) {
    const exited = new Promise((resolve) => job.once('exit', resolve));
    job.kill('SIGINT');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('the job page of a running Nexmark q5 job', () => {
  it("draws the job graph's sources, operators, sinks and edges", async () => {
    await page.waitForSelector('[data-node-id]');
    const nodes = await page.$$eval('[data-node-id]', (els) => els.map((e) => e.getAttribute('data-node-id')));
    const expectedNodes = [
      ...graph.sources.map((s) => `source:${s.name}`),
      ...graph.stages.flatMap((s) => s.operators.map((o) => `op:${o.id}`)),
      ...graph.sinks.map((s) => `sink:${s.name}`),
    ];
    expect(nodes.sort()).toEqual(expectedNodes.sort());

    // The edges the job graph implies: source → first operator, along each chain, across each
    // exchange (labelled with its distribution), and into the sink.
    const expectedEdges: [string, string | null][] = [];
    for (const [i, stage] of graph.stages.entries()) {
      const ops = stage.operators.map((o) => `op:${o.id}`);
      if (stage.input.type === 'source') expectedEdges.push([`source:${stage.input.source}->${ops[0]}`, null]);
      else if (stage.input.type === 'exchange') {
        const upstream = graph.stages[i - 1]?.operators.at(-1)?.id;
        expectedEdges.push([`op:${upstream}->${ops[0]}`, formatDistribution(stage.input.distribution)]);
      }
      for (let k = 1; k < ops.length; k++) expectedEdges.push([`${ops[k - 1]}->${ops[k]}`, null]);
      if (stage.output.type === 'sink') expectedEdges.push([`${ops.at(-1)}->sink:${stage.output.sink}`, null]);
    }
    const edges = await page.$$eval('[data-edge-id]', (els) => els.map((e) => [e.getAttribute('data-edge-id'), e.querySelector('text')?.textContent ?? null]));
    expect(edges.sort()).toEqual(expectedEdges.sort());
    expect(expectedEdges.map((e) => e[1]).filter((l) => l !== null)).toEqual(['hash[auction]', 'single']);
    // Stage boxes, and the operators' explain lines on hover.
    expect(await page.$$eval('[data-stage-id]', (els) => els.map((e) => e.getAttribute('data-stage-id')))).toEqual(graph.stages.map((s) => s.id));
    const title = await page.$eval('[data-node-id="op:WindowAggregate_3"] > title', (e) => e.textContent);
    expect(title).toBe(graph.stages[1]?.operators[0]?.description);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'graph.png') });
  });

  it('shows a watermark that advances while bids arrive', async () => {
    const stageWatermark = (): Promise<number> => page.$eval('[data-stage-id="stage-1"] .stage-label', (e) => Number(e.getAttribute('data-watermark') ?? 'NaN'));
    const first = await until(stageWatermark, (w) => Number.isFinite(w));
    expect(Number.isFinite(first)).toBe(true);
    const later = await until(stageWatermark, (w) => w > first);
    expect(later).toBeGreaterThan(first);
    // The sidebar's watermark panel shows the same stage, per shard and channel.
    await page.click('#tabs button[data-tab="watermarks"]');
    await page.waitForSelector('[data-watermarks-shard="stage-1/0"] tr[data-channel="1"]');
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'watermarks.png') });
  });

  it('taps an edge and shows its latest changelog rows', async () => {
    await page.click('[data-edge-id="op:Calc_2->op:WindowAggregate_3"] text');
    await page.waitForSelector('[data-tap-edge="op:Calc_2->op:WindowAggregate_3"]');
    const rows = await until(
      () => page.$$eval('[data-tap-row]', (els) => els.map((e) => [...e.querySelectorAll('td')].map((td) => td.textContent))),
      (r) => r.length > 0,
    );
    expect(rows.length).toBeGreaterThan(0);
    const header = await page.$$eval('#panel-tap thead th', (els) => els.map((e) => e.textContent));
    expect(header).toEqual(['op', 'shard', 'auction', 'date_time']);
    for (const row of rows) {
      expect(row[0]).toBe('+I');
      expect(row[3]).toMatch(/^2015-07-\d\d \d\d:\d\d:\d\d\.\d{3}$/);
    }
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'tap.png') });
  });

  it('explains a watermark held by a silent partition that is not marked idle', async () => {
    input.only([0]);
    await page.click('#tabs button[data-tab="watermarks"]');
    const why = await until(
      () => page.$eval('[data-why-stage="stage-1"]', (e) => ({ text: e.textContent ?? '', stuck: e.classList.contains('stuck') })),
      (w) => w.stuck,
      15_000,
    );
    expect(why.stuck).toBe(true);
    expect(why.text).toMatch(/held at 2015-07-\S+ \S+ by channel 1 \(stage-0 shard 1\)/);
    expect(why.text).toContain('silent but not marked idle, because no idle timeout is declared');
    // The stage after it names the same root cause upstream.
    const next = await page.$eval('[data-why-stage="stage-2"]', (e) => ({ text: e.textContent ?? '', stuck: e.classList.contains('stuck') }));
    expect(next.stuck).toBe(true);
    expect(next.text).toContain('channel 1 (stage-0 shard 1)');
    // Partition 0 went on: its shard's watermark is ahead of the held one.
    const channels = await page.$$eval('[data-watermarks-shard="stage-1/0"] tr[data-channel]', (els) =>
      els.map((e) => ({ channel: e.getAttribute('data-channel'), holder: e.classList.contains('holder'), idle: e.classList.contains('idle') })),
    );
    expect(channels).toEqual([
      { channel: '0', holder: false, idle: false },
      { channel: '1', holder: true, idle: false },
    ]);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'stuck-watermark.png') });
  });
});
