/**
 * `flambda local` with a lookup join: Nexmark q13 through Kinesis streams and a stage handler on
 * emulators, the side table a JSON-lines file bound with `--input side_input=…` and read by the
 * stage handler's dimension source.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BID_FIXTURE, FIXTURE_DIR, makeTempDir, readJson, runCli, sortRows } from './cli.ts';

const tmp = makeTempDir('cli-local-lookup');
afterAll(() => tmp.cleanup());

describe('flambda local examples/nexmark/q13.ts', () => {
  it('equals expected_q13.json with the side table bound by --input at --parallelism 2', async () => {
    const final = tmp.file('q13-local.json');
    const result = await runCli(
      ['local', 'examples/nexmark/q13.ts', '--input', `bid=${BID_FIXTURE}`, '--input', 'side_input=../shared/nexmark-fixture/side_input.jsonl', '--parallelism', '2', '--final', final],
      { timeoutMs: 90_000 },
    );
    expect(result.stderr).not.toMatch(/flambda: error/);
    expect(result.code).toBe(0);
    const expected = readJson(join(FIXTURE_DIR, 'expected_q13.json')) as Record<string, unknown>[];
    expect(sortRows(readJson(final) as Record<string, unknown>[])).toEqual(sortRows(expected));
    // One stage: Calc → LookupJoin → Calc chained on the source stream's shards (no exchange).
    expect(result.stderr).toMatch(/^stage stage-0 \(Calc → LookupJoin → Calc, 2 shards\) drained: 50 records in, 50 rows to sink 'q13'/m);
  });
});
