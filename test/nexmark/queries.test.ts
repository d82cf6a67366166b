/**
 * Correctness at scale: each Nexmark example query, run on the embedded runtime over 24,000
 * generated in-order events, must give exactly the final result of an independent
 * plain-TypeScript reference (test/nexmark/reference.ts) over the same generated bids.
 *
 * Queries whose example module does not exist yet (q13 at the time of writing) are not
 * silently skipped: a test asserts that loading them fails with an error naming the missing
 * file, and the comparison runs instead as soon as the file exists.
 */
import { describe, expect, it } from 'vitest';
import { loadExampleQuery } from '../../shared/nexmark/run.ts';
import { canonicalRows } from './reference.ts';
import { IN_ORDER, MISSING, PRESENT, referenceResult } from './queries-common.ts';
import { finalRows } from './run-query.ts';

// Order-dependent tie rules (q18's keep-last on equal date_time, q19's ROW_NUMBER among equal
// prices) follow arrival order, which the reference reads from the generated sequence; at
// parallelism 1 the runtime sees exactly that order.
describe.each(PRESENT)('Nexmark %s on generated data', (query) => {
  it('matches the reference on 24,000 in-order events', async () => {
    const actual = await finalRows(await loadExampleQuery(query), IN_ORDER);
    const expected = referenceResult(query, IN_ORDER);
    expect(expected.length).toBeGreaterThan(0);
    expect(canonicalRows(actual)).toEqual(canonicalRows(expected));
  });
});

describe('queries without an example yet', () => {
  it.each(MISSING.length > 0 ? MISSING : ['(none)'])('%s: loading it fails naming the missing example', async (query) => {
    if (query === '(none)') {
      expect(MISSING).toEqual([]);
      return;
    }
    await expect(loadExampleQuery(query)).rejects.toThrow(`examples/nexmark/${query}.ts does not exist`);
  });
});
