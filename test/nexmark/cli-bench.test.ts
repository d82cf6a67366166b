/**
 * `flambda nexmark generate` (through the same commander setup and error handling as main.ts)
 * and the `nexmark` benchmark suite on a small input.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { FlambdaError } from '../../shared/core/errors.ts';
import { nexmarkCommand } from '../../shared/cli/nexmark-command.ts';
import { runNexmarkBench, runNexmarkMemoryCheck } from '../../shared/bench/nexmark.ts';
import { generate } from '../../shared/nexmark/generator.ts';
import { nexmarkJsonLine } from '../../shared/nexmark/write-files.ts';
import { MISSING } from './queries-common.ts';
import { makeTempDir, runCli } from '../cli/cli.ts';

/** Runs `flambda <argv>` with only the nexmark command registered, as main.ts handles errors. */
async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (s: string) => ((stdout += s), true) }, stderr: { write: (s: string) => ((stderr += s), true) } } as never;
  let exitCode = 0;
  const program = new Command('flambda').exitOverride().configureOutput({ writeOut: (s) => (stdout += s), writeErr: (s) => (stderr += s) });
  nexmarkCommand(program, io, (code) => (exitCode = code));
  try {
    await program.parseAsync(argv, { from: 'user' });
    return { code: exitCode, stdout, stderr };
  } catch (error) {
    if (error instanceof CommanderError) return { code: error.exitCode === 0 ? 0 : 2, stdout, stderr };
    if (error instanceof FlambdaError) return { code: 1, stdout, stderr: `${stderr}flambda: error: ${error.message}\n` };
    throw error;
  }
}

const dir = makeTempDir('nexmark');
afterAll(() => dir.cleanup());

describe('flambda nexmark generate', () => {
  it('writes the three tables in the fixture format, identical to the generator stream, and the side input', async () => {
    const out = join(dir.path, 'tables');
    const r = await cli(['nexmark', 'generate', '--events', '5000', '--seed', '9', '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Wrote 5000 Nexmark events');
    expect(r.stdout).toContain(`q13's side input (10000 rows) → ${join(out, 'side_input.jsonl')}`);
    const expected = { person: [] as string[], auction: [] as string[], bid: [] as string[] };
    for (const e of generate({ events: 5000, seed: 9 })) expected[e.table].push(nexmarkJsonLine(e.row as unknown as Record<string, unknown>));
    for (const table of ['person', 'auction', 'bid'] as const) {
      expect(readFileSync(join(out, `${table}.jsonl`), 'utf8')).toBe(`${expected[table].join('\n')}\n`);
    }
    const bid = JSON.parse(readFileSync(join(out, 'bid.jsonl'), 'utf8').split('\n')[0] as string) as Record<string, unknown>;
    expect(bid.date_time).toBe('2015-07-15 00:00:00.000');
    // Nexmark's side input: key i → value "i", i = 0..9999, one JSON object per line.
    const side = readFileSync(join(out, 'side_input.jsonl'), 'utf8').split('\n');
    expect(side).toHaveLength(10_001);
    expect(side[10_000]).toBe('');
    side.slice(0, 10_000).forEach((line, i) => expect(JSON.parse(line)).toEqual({ key: i, value: String(i) }));
  });

  it('creates --out and its parents', async () => {
    const out = join(dir.path, 'new', 'a', 'b');
    expect(existsSync(join(dir.path, 'new'))).toBe(false);
    const r = await cli(['nexmark', 'generate', '--events', '2000', '--seed', '1', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    for (const f of ['person', 'auction', 'bid', 'side_input']) expect(readFileSync(join(out, `${f}.jsonl`), 'utf8')).not.toBe('');
  });

  it('refuses to overwrite existing files, naming them, and writes nothing; --force overwrites', async () => {
    const out = join(dir.path, 'again');
    expect((await cli(['nexmark', 'generate', '--events', '2000', '--seed', '1', '--out', out])).code).toBe(0);
    const before = readFileSync(join(out, 'bid.jsonl'), 'utf8');
    const refused = await cli(['nexmark', 'generate', '--events', '3000', '--seed', '2', '--out', out]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`flambda: error: --out ${out}: ${['person', 'auction', 'bid', 'side_input'].map((f) => join(out, `${f}.jsonl`)).join(', ')} already exist (pass --force to overwrite)`);
    expect(readFileSync(join(out, 'bid.jsonl'), 'utf8')).toBe(before);

    // One existing file is enough to refuse, and it is the one named.
    const partial = join(dir.path, 'partial');
    const existing = join(partial, 'auction.jsonl');
    expect((await cli(['nexmark', 'generate', '--events', '10', '--out', partial])).code).toBe(0);
    for (const f of ['person', 'bid', 'side_input']) rmSync(join(partial, `${f}.jsonl`));
    const one = await cli(['nexmark', 'generate', '--events', '10', '--out', partial]);
    expect(one.stderr).toContain(`--out ${partial}: ${existing} already exists (pass --force to overwrite)`);
    expect(existsSync(join(partial, 'bid.jsonl'))).toBe(false);

    const forced = await cli(['nexmark', 'generate', '--events', '3000', '--seed', '2', '--out', out, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    const after = readFileSync(join(out, 'bid.jsonl'), 'utf8');
    expect(after).not.toBe(before);
    expect(after.split('\n')[0]).toBe(nexmarkJsonLine([...generate({ events: 3000, seed: 2 })].find((e) => e.table === 'bid')?.row as unknown as Record<string, unknown>));
  });

  it('honours --rate and --out-of-order-ms', async () => {
    const out = join(dir.path, 'rate');
    const r = await cli(['nexmark', 'generate', '--events', '2000', '--out', out, '--rate', '100', '--out-of-order-ms', '300']);
    expect(r.code).toBe(0);
    const times = readFileSync(join(out, 'bid.jsonl'), 'utf8').trim().split('\n').map((l) => Date.parse(`${(JSON.parse(l) as { date_time: string }).date_time.replace(' ', 'T')}Z`));
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThan(19_000);
    let max = -Infinity;
    for (const t of times) {
      expect(max - t).toBeLessThanOrEqual(300);
      max = Math.max(max, t);
    }
  });

  it.each([
    [['--events', '1.5'], '--events must be an integer'],
    [['--events', 'ten'], '--events must be an integer'],
    [['--events', '0'], '--events must be an integer'],
    [['--events', '10', '--seed', 'x'], '--seed must be an integer'],
    [['--events', '10', '--out-of-order-ms', '-1'], '--out-of-order-ms must be an integer'],
  ])('rejects %j with a clear error', async (args, message) => {
    const r = await cli(['nexmark', 'generate', ...args, '--out', join(dir.path, 'bad-args')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
  });

  it('rejects an --out that is a file, or under one, and a missing option', async () => {
    const file = join(dir.path, 'a-file');
    writeFileSync(file, 'x');
    const notDir = await cli(['nexmark', 'generate', '--events', '10', '--out', file]);
    expect(notDir.code).toBe(1);
    expect(notDir.stderr).toContain(`flambda: error: --out ${file}: not a directory`);
    const under = await cli(['nexmark', 'generate', '--events', '10', '--out', join(file, 'sub')]);
    expect(under.code).toBe(1);
    expect(under.stderr).toContain(`flambda: error: --out ${join(file, 'sub')}: cannot create the directory`);
    const noOut = await cli(['nexmark', 'generate', '--events', '10']);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toContain('--out');
  });

  it("makes everything q13's README command needs: every bid joins its side-input row", async () => {
    const out = join(dir.path, 'q13');
    expect((await cli(['nexmark', 'generate', '--events', '3000', '--seed', '5', '--out', out])).code).toBe(0);
    const final = join(out, 'out.json');
    const r = await runCli(['run', 'examples/nexmark/q13.ts', '--input', `bid=${join(out, 'bid.jsonl')}`, '--input', `side_input=${join(out, 'side_input.jsonl')}`, '--final', final, '--quiet'], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const bids = readFileSync(join(out, 'bid.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { auction: number; bidder: number; price: number });
    const rows = JSON.parse(readFileSync(final, 'utf8')) as { auction: number; bidder: number; price: number; value: string }[];
    const key = (b: { auction: number; bidder: number; price: number }): string => `${b.auction}/${b.bidder}/${b.price}`;
    expect(rows.map((row) => `${key(row)}=${row.value}`).sort()).toEqual(bids.map((b) => `${key(b)}=${b.auction % 10_000}`).sort());
  }, 60_000);
});

describe('nexmark benchmark suite', () => {
  it('reports one result per query with the throughput, per-core, RSS, state and ratio figures', async () => {
    const results = await runNexmarkBench({ query: ['q0', 'q19'], events: 10_000 });
    expect(results.map((r) => [r.suite, r.case, r.events])).toEqual([
      ['nexmark', 'q0', 10_000],
      ['nexmark', 'q19', 10_000],
    ]);
    for (const r of results) {
      for (const k of ['events_per_s', 'events_per_s_per_core', 'peak_rss_mb', 'ratio_to_q0']) expect(r[k]).toBeGreaterThan(0);
      expect(r.rows_in).toBe(9200);
    }
    expect(results[0]?.ratio_to_q0).toBe(1);
    expect(results[1]?.live_state_entries).toBeGreaterThan(0);
  });

  it('fails naming the example of a query that does not exist yet', async () => {
    if (MISSING.length === 0) {
      await expect(runNexmarkBench({ query: 'q13' as never, events: 1000 })).resolves.toHaveLength(1);
      return;
    }
    const q = MISSING[0] as 'q13';
    await expect(runNexmarkBench({ query: q, events: 1000 })).rejects.toThrow(`examples/nexmark/${q}.ts does not exist`);
  });

  it('memory check: live window state stays flat as the input grows (q7), and is released at the end', async () => {
    const points = await runNexmarkMemoryCheck({ query: 'q7', events: 40_000, steps: 2 });
    expect(points.map((p) => p.events)).toEqual([20_000, 40_000]);
    for (const p of points) {
      expect(p.state_entries_after_end).toBe(0);
      expect(p.peak_rss_mb).toBeGreaterThan(0);
    }
    // A 10 s tumble at 10,000 events/s: the open windows hold a bounded number of entries.
    expect(points[1]?.live_state_entries).toBeLessThanOrEqual((points[0]?.live_state_entries ?? 0) * 2 + 10);
  });
});
