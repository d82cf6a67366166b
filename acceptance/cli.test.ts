/**
 * `flambda run` and `flambda local` on the external Nexmark fixture's files, as a user would
 * call them, against the fixture's expected final results.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, readJson, runCli, sortRows } from '../test/cli/cli.ts';
import { expectedResult, fixtureFile } from './fixture.ts';

const tmp = makeTempDir('acceptance-cli');
afterAll(() => tmp.cleanup());

const BID = `bid=${fixtureFile('bid.jsonl')}`;
const SIDE_INPUT = `side_input=${fixtureFile('side_input.jsonl')}`;

const finalOf = (file: string): Record<string, unknown>[] => sortRows(readJson(file) as Record<string, unknown>[]);

describe.each(['q5', 'q7', 'q11', 'q15', 'q18', 'q19'])('flambda run examples/nexmark/%s.ts', (query) => {
  it.each([1, 4])('--final equals the fixture at --parallelism %i', async (p) => {
    const out = tmp.file(`${query}-run-p${p}.json`);
    const r = await runCli(['run', `examples/nexmark/${query}.ts`, '--input', BID, '--final', out, '--parallelism', String(p)]);
    expect(r.code, r.stderr).toBe(0);
    expect(finalOf(out)).toEqual(sortRows(expectedResult(query)));
  });
});

describe('flambda run examples/nexmark/q13.ts and examples/sql/nexmark/q13.sql (lookup join)', () => {
  it.each(['examples/nexmark/q13.ts', 'examples/sql/nexmark/q13.sql'])('%s with --input side_input=… equals the fixture', async (pipeline) => {
    const out = tmp.file(`q13-${pipeline.endsWith('.sql') ? 'sql' : 'api'}.json`);
    const r = await runCli(['run', pipeline, '--input', BID, '--input', SIDE_INPUT, '--final', out, '--parallelism', '2']);
    expect(r.code, r.stderr).toBe(0);
    expect(finalOf(out)).toEqual(sortRows(expectedResult('q13')));
  });
});

describe('flambda local (kinesalite, dynalite, the Lambda stage handlers)', () => {
  it.each([
    ['examples/nexmark/q15.ts', 'q15', 4],
    ['examples/nexmark/q5.ts', 'q5', 2],
    ['examples/sql/q7.sql', 'q7', 1],
    ['examples/nexmark/q11.ts', 'q11', 3],
  ] as const)('%s equals the fixture', async (pipeline, query, p) => {
    const out = tmp.file(`${query}-local.json`);
    const r = await runCli(['local', pipeline, '--input', BID, '--parallelism', String(p), '--final', out, '--quiet'], { timeoutMs: 110_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(finalOf(out)).toEqual(sortRows(expectedResult(query)));
  });

  it('examples/nexmark/q13.ts with the side input equals the fixture', async () => {
    const out = tmp.file('q13-local.json');
    const r = await runCli(['local', 'examples/nexmark/q13.ts', '--input', BID, '--input', SIDE_INPUT, '--parallelism', '2', '--final', out, '--quiet'], { timeoutMs: 110_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(finalOf(out)).toEqual(sortRows(expectedResult('q13')));
  });
});
