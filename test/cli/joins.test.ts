/**
 * The Nexmark join queries from the command line: `flambda run` at --parallelism 1 and 4 and
 * `flambda local` (stage handlers on emulators the command starts, one two-input stage fed by
 * two source streams) give the plain-TypeScript references' results on generated data — q8 (a
 * window join closed by the end-of-input watermark of both sources) and q20 (a regular join).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { formatTimestamp } from '../../shared/core/timestamp.ts';
import { generateTable } from '../../shared/nexmark/generator.ts';
import type { AuctionRow, BidRow, PersonRow } from '../../shared/nexmark/schemas.ts';
import { JOIN_REFERENCES } from '../nexmark/join-reference.ts';
import { makeTempDir, readJson, runCli, sortRows } from './cli.ts';

const tmp = makeTempDir('cli-joins');
afterAll(() => tmp.cleanup());

const OPTIONS = { events: 3000, seed: 5 };
const tables = {
  person: [...generateTable(OPTIONS, 'person')] as PersonRow[],
  auction: [...generateTable(OPTIONS, 'auction')] as AuctionRow[],
  bid: [...generateTable(OPTIONS, 'bid')] as BidRow[],
};
/** TIMESTAMP columns of the results, written by `--final` as text. */
const TIMES = new Set(['stime', 'bid_date_time', 'auction_date_time', 'expires']);
const expected = (query: string): Record<string, unknown>[] =>
  (JOIN_REFERENCES[query] as (t: typeof tables) => Record<string, unknown>[])(tables).map((r) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, TIMES.has(k) && typeof v === 'number' ? formatTimestamp(v) : v])),
  );

let generated: string | undefined;
async function dataDir(): Promise<string> {
  if (generated === undefined) {
    const dir = tmp.file('data');
    const r = await runCli(['nexmark', 'generate', '--events', String(OPTIONS.events), '--seed', String(OPTIONS.seed), '--out', dir]);
    expect(r.code, r.stderr).toBe(0);
    generated = dir;
  }
  return generated;
}

const INPUTS: Record<string, string[]> = { q8: ['person', 'auction'], q20: ['auction', 'bid'] };

describe.each(['q8', 'q20'])('Nexmark %s (examples/sql/nexmark) from the command line', (query) => {
  const args = async (): Promise<string[]> => {
    const dir = await dataDir();
    return [`examples/sql/nexmark/${query}.sql`, ...(INPUTS[query] as string[]).flatMap((t) => ['--input', `${t}=${dir}/${t}.jsonl`])];
  };

  it.each([1, 4])('flambda run --parallelism %i equals the reference', async (parallelism) => {
    const final = tmp.file(`${query}-run-p${parallelism}.json`);
    const r = await runCli(['run', ...(await args()), '--parallelism', String(parallelism), '--final', final, '--quiet'], { timeoutMs: 90_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(sortRows(readJson(final) as Record<string, unknown>[])).toEqual(sortRows(expected(query)));
  });

  it('flambda local equals the reference', async () => {
    const final = tmp.file(`${query}-local.json`);
    const r = await runCli(['local', ...(await args()), '--parallelism', '2', '--final', final, '--quiet'], { timeoutMs: 180_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(sortRows(readJson(final) as Record<string, unknown>[])).toEqual(sortRows(expected(query)));
  });
});
