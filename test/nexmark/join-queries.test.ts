/**
 * Correctness at scale of the Nexmark join queries in the benchmark's own formulation
 * (examples/sql/nexmark/qN.sql): each matches its plain-TypeScript reference (join-reference.ts)
 * on generated data in order and out of order (by up to 2 s, within the 4 s watermark delay),
 * at parallelism 1 and 4.
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { compileSqlFile } from '../../shared/sql/compile-sql.ts';
import type { NexmarkOptions } from '../../shared/nexmark/config.ts';
import { generateTable } from '../../shared/nexmark/generator.ts';
import type { AuctionRow, BidRow, PersonRow } from '../../shared/nexmark/schemas.ts';
import { canonicalRows } from './reference.ts';
import { JOIN_REFERENCES, q9Ties, type NexmarkTables } from './join-reference.ts';
import { finalRows } from './run-query.ts';

const IN_ORDER: NexmarkOptions = { events: 24_000, seed: 7 };
const OUT_OF_ORDER: NexmarkOptions = { events: 24_000, seed: 11, outOfOrderMs: 2_000 };

const tablesCache = new Map<NexmarkOptions, NexmarkTables>();
function tables(options: NexmarkOptions): NexmarkTables {
  let t = tablesCache.get(options);
  if (!t) {
    t = {
      person: [...generateTable(options, 'person')] as PersonRow[],
      auction: [...generateTable(options, 'auction')] as AuctionRow[],
      bid: [...generateTable(options, 'bid')] as BidRow[],
    };
    tablesCache.set(options, t);
  }
  return t;
}

const sqlPath = (query: string): string => fileURLToPath(new URL(`../../examples/sql/nexmark/${query}.sql`, import.meta.url));
const QUERIES = ['q3', 'q4', 'q5', 'q6', 'q7', 'q8', 'q9', 'q20'] as const;

async function run(query: string, nexmark: NexmarkOptions, parallelism: number): Promise<string[]> {
  const program = compileSqlFile(sqlPath(query));
  return canonicalRows(await finalRows(program.pipeline, nexmark, { parallelism, batchSize: 500 }));
}

describe('the generated data', () => {
  it('has no ambiguous q9 winner (a result that would depend on arrival order) and joins enough rows', () => {
    for (const options of [IN_ORDER, OUT_OF_ORDER]) {
      expect(q9Ties(tables(options))).toBe(0);
      for (const q of QUERIES) expect((JOIN_REFERENCES[q] as (t: NexmarkTables) => unknown[])(tables(options)).length).toBeGreaterThan(0);
    }
  });
});

describe.each(QUERIES)('Nexmark %s (examples/sql/nexmark)', (query) => {
  const reference = JOIN_REFERENCES[query] as (t: NexmarkTables) => Record<string, unknown>[];

  it('matches the reference on 24,000 in-order events at parallelism 1 and 4', async () => {
    const expected = canonicalRows(reference(tables(IN_ORDER)));
    expect(await run(query, IN_ORDER, 1)).toEqual(expected);
    expect(await run(query, IN_ORDER, 4)).toEqual(expected);
  });

  it('matches the reference on 24,000 events out of order by up to 2 s', async () => {
    expect(await run(query, OUT_OF_ORDER, 2)).toEqual(canonicalRows(reference(tables(OUT_OF_ORDER))));
  });
});
