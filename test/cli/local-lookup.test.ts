/**
 * `flambda local` with a lookup join: Nexmark q13 through Kinesis streams and a stage handler on
 * emulators, the side table a JSON-lines file bound with `--input side_input=…` and read by the
 * stage handler's dimension source.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { BID_FILE, NEXMARK, makeTempDir, readJson, runCli, sortRows } from './cli.ts';

const tmp = makeTempDir('cli-local-lookup');
afterAll(() => tmp.cleanup());

describe('flambda local examples/nexmark/q13.ts', () => {
  it('equals expected_q13.json with the side table bound by --input at --parallelism 2', async () => {
    const final = tmp.file('q13-local.json');
    const result = await runCli(
      ['local', 'examples/nexmark/q13.ts', '--input', `bid=${BID_FILE}`, '--input', `side_input=${NEXMARK.file('side_input')}`, '--parallelism', '2', '--final', final],
      { timeoutMs: 90_000 },
    );
    expect(result.stderr).not.toMatch(/flambda: error/);
    expect(result.code).toBe(0);
    const expected = NEXMARK.expected('q13');
    expect(sortRows(readJson(final) as Record<string, unknown>[])).toEqual(sortRows(expected));
    // One stage: Calc → LookupJoin → Calc chained on the source stream's shards (no exchange).
    const n = NEXMARK.bids.length;
    expect(result.stderr).toMatch(new RegExp(`^stage stage-0 \\(Calc → LookupJoin → Calc, 2 shards\\) drained: ${n} records in, ${n} rows to sink 'q13'`, 'm'));
  });
});
