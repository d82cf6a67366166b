/**
 * examples/daily-bids.ts, the README's API example, run through the CLI over a small bid file
 * whose results are computed by hand.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, applyChangelog, makeTempDir, readJson, readJsonLines, runCli, sortRows, type CliResult } from '../cli/cli.ts';

const tmp = makeTempDir('daily-bids');
afterAll(() => tmp.cleanup());

const bids = [
  // 2015-07-15
  { auction: 1, bidder: 10, price: 500, date_time: '2015-07-15 10:00:00.000' },
  { auction: 1, bidder: 11, price: 20_000, date_time: '2015-07-15 10:00:01.000' },
  { auction: 2, bidder: 10, price: 9_999, date_time: '2015-07-15 23:59:59.999' },
  // Filtered out by price > 0: zero, negative, NULL.
  { auction: 2, bidder: 12, price: 0, date_time: '2015-07-15 23:59:59.999' },
  { auction: 2, bidder: 13, price: -5, date_time: '2015-07-15 11:00:00.000' },
  { auction: 2, bidder: 14, price: null, date_time: '2015-07-15 11:00:00.000' },
  // 2015-07-16; 10 000 is not a cheap bid (price < 10 000).
  { auction: 3, bidder: 11, price: 10_000, date_time: '2015-07-16 00:00:00.000' },
  { auction: 3, bidder: 11, price: 1_500_000, date_time: '2015-07-16 00:00:05.000' },
  // Far behind the watermark: a non-windowed aggregate still counts it (as Flink does).
  { auction: 4, bidder: 15, price: 100, date_time: '2015-07-15 12:00:00.000' },
  // 2015-07-17, as epoch milliseconds and without fractional seconds; a NULL bidder is not a distinct bidder.
  { auction: 5, bidder: 10, price: 7, date_time: Date.UTC(2015, 6, 17) },
  { auction: 5, bidder: null, price: 3, date_time: '2015-07-17 00:00:01' },
];

const expected = [
  { day: '2015-07-15', volume: 500 + 20_000 + 9_999 + 100, cheap_bids: 3, bidders: 3 },
  { day: '2015-07-16', volume: 10_000 + 1_500_000, cheap_bids: 0, bidders: 1 },
  { day: '2015-07-17', volume: 7 + 3, cheap_bids: 2, bidders: 1 },
];

describe('examples/daily-bids.ts', () => {
  const input = tmp.write('bids.jsonl', `${bids.map((b) => JSON.stringify(b)).join('\n')}\n`);
  const runs: CliResult[] = [];

  beforeAll(async () => {
    runs.push(
      ...(await Promise.all(
        [1, 4].map((p) =>
          runCli([
            'run',
            'examples/daily-bids.ts',
            '--input',
            `bid=${input}`,
            '-p',
            String(p),
            '--final',
            tmp.file(`daily-p${p}.json`),
            '--changelog',
            tmp.file(`daily-p${p}.jsonl`),
          ]),
        ),
      )),
    );
  });

  it('is the code shown in the README', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const block = /## The TypeScript API[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    const source = readFileSync(join(REPO_ROOT, 'examples/daily-bids.ts'), 'utf8');
    expect(block).toBeDefined();
    // The file adds one leading comment line.
    expect(source.split('\n').slice(1).join('\n')).toBe(block);
  });

  for (const [i, p] of [1, 4].entries()) {
    it(`computes the daily volume, cheap bids and distinct bidders at parallelism ${p}`, () => {
      const r = runs[i] as CliResult;
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/^flambda: read 11 records in .*; sink 'daily': 8 changelog rows\n$/);
      const final = readJson(tmp.file(`daily-p${p}.json`)) as Record<string, unknown>[];
      expect(sortRows(final)).toEqual(sortRows(expected));
      const changes = readJsonLines(tmp.file(`daily-p${p}.jsonl`));
      expect(sortRows(applyChangelog(changes, ['day']))).toEqual(sortRows(expected));
    });
  }

  it('emits an upsert changelog in input order at parallelism 1', () => {
    expect(readJsonLines(tmp.file('daily-p1.jsonl'))).toEqual([
      { op: '+I', day: '2015-07-15', volume: 500, cheap_bids: 1, bidders: 1 },
      { op: '+U', day: '2015-07-15', volume: 20_500, cheap_bids: 1, bidders: 2 },
      { op: '+U', day: '2015-07-15', volume: 30_499, cheap_bids: 2, bidders: 2 },
      { op: '+I', day: '2015-07-16', volume: 10_000, cheap_bids: 0, bidders: 1 },
      { op: '+U', day: '2015-07-16', volume: 1_510_000, cheap_bids: 0, bidders: 1 },
      { op: '+U', day: '2015-07-15', volume: 30_599, cheap_bids: 3, bidders: 3 },
      { op: '+I', day: '2015-07-17', volume: 7, cheap_bids: 1, bidders: 1 },
      { op: '+U', day: '2015-07-17', volume: 10, cheap_bids: 2, bidders: 1 },
    ]);
  });
});
