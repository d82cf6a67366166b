/**
 * The example queries — TypeScript API and Flink SQL versions — on the external Nexmark fixture
 * through the embedded runtime, against the fixture's expected final results, at several
 * parallelisms and batch sizes.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Pipeline } from '../shared/api/pipeline.ts';
import { compileSql } from '../shared/sql/compile-sql.ts';
import { canonicalRows } from '../test/nexmark/reference.ts';
import { runOnDir } from '../test/nexmark/test-data.ts';
import { nexmarkExample } from '../test/sql/helpers.ts';
import { FIXTURE_DIR, REPO_ROOT, expectedResult } from './fixture.ts';

const QUERIES = ['q5', 'q7', 'q11', 'q13', 'q15', 'q18', 'q19'];

describe.each(QUERIES)('Nexmark %s on the fixture', (query) => {
  it.each([
    [1, 1024],
    [4, 1024],
    [3, 1],
  ])('examples/nexmark (API) at parallelism %i, batch size %i', async (parallelism, batchSize) => {
    const module = (await import(`../examples/nexmark/${query}.ts`)) as { default: Pipeline };
    const rows = await runOnDir(module.default, FIXTURE_DIR, parallelism, batchSize);
    expect(canonicalRows(rows)).toEqual(canonicalRows(expectedResult(query)));
  });

  it.each([
    [1, 1024],
    [3, 7],
  ])('examples/sql at parallelism %i, batch size %i', async (parallelism, batchSize) => {
    const program = compileSql(readFileSync(resolve(REPO_ROOT, `examples/sql/${nexmarkExample(query)}`), 'utf8'));
    const rows = await runOnDir(program.pipeline, FIXTURE_DIR, parallelism, batchSize);
    expect(canonicalRows(rows)).toEqual(canonicalRows(expectedResult(query)));
  });
});
