/**
 * Correctness at scale, continued: the example queries over 24,000 events generated out of
 * order (by up to 2 s, within the 4 s watermark delay), and the order-independent ones with 4
 * shards per stage, against the plain-TypeScript references.
 */
import { describe, expect, it } from 'vitest';
import { loadExampleQuery } from '../../shared/nexmark/run.ts';
import { canonicalRows } from './reference.ts';
import { IN_ORDER, OUT_OF_ORDER, PRESENT, referenceResult } from './queries-common.ts';
import { finalRows } from './run-query.ts';

describe.each(PRESENT)('Nexmark %s on out-of-order generated data', (query) => {
  it('matches the reference on 24,000 events out of order by up to 2 s', async () => {
    const actual = await finalRows(await loadExampleQuery(query), OUT_OF_ORDER);
    expect(canonicalRows(actual)).toEqual(canonicalRows(referenceResult(query, OUT_OF_ORDER)));
  });
});

describe('order-independent queries at parallelism 4', () => {
  it.each(PRESENT.filter((q) => q === 'q15' || q === 'q5' || q === 'q11'))('%s matches the reference with 4 shards per stage', async (query) => {
    const actual = await finalRows(await loadExampleQuery(query), IN_ORDER, { parallelism: 4, batchSize: 500 });
    expect(canonicalRows(actual)).toEqual(canonicalRows(referenceResult(query, IN_ORDER)));
  });
});
