/**
 * The Nexmark examples against the references' final results on the project's generated data,
 * in-process (the CLI tests cover the same path through `flambda run`), at several parallelisms
 * and batch sizes: the result must not depend on how rows are spread over shards or cut into
 * batches.
 */
import { describe, expect, it } from 'vitest';
import type { Pipeline } from '../../shared/api/pipeline.ts';
import { canonicalRows } from '../nexmark/reference.ts';
import { nexmarkTestData, runOnDir } from '../nexmark/test-data.ts';

const data = nexmarkTestData();

describe.each(['q15', 'q18', 'q19', 'q5', 'q7', 'q11', 'q13'])('Nexmark %s on generated data', (query) => {
  it('the reference result is not trivially small', () => {
    expect(data.expected(query).length).toBeGreaterThan(0);
  });

  it.each([
    [1, 1024],
    [4, 1024],
    [3, 1],
    [2, 7],
    [8, 3],
  ])('matches the reference at parallelism %i, batch size %i', async (parallelism, batchSize) => {
    const module = (await import(`../../examples/nexmark/${query}.ts`)) as { default: Pipeline };
    const rows = await runOnDir(module.default, data.dir, parallelism, batchSize);
    expect(canonicalRows(rows)).toEqual(canonicalRows(data.expected(query)));
  });
});
