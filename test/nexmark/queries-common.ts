/**
 * Shared setup of the query correctness tests: generated inputs, and which queries have an
 * example module yet.
 */
import { existsSync } from 'node:fs';
import type { NexmarkOptions } from '../../shared/nexmark/config.ts';
import { generateTable } from '../../shared/nexmark/generator.ts';
import { exampleQueryPath } from '../../shared/nexmark/run.ts';
import type { BidRow } from '../../shared/nexmark/schemas.ts';
import { REFERENCES } from './reference.ts';

/** 24,000 in-order events (22,080 bids). */
export const IN_ORDER: NexmarkOptions = { events: 24_000, seed: 7 };
/** Out of order by up to 2 s — within the 4 s watermark delay, so no bid is late. */
export const OUT_OF_ORDER: NexmarkOptions = { events: 24_000, seed: 11, outOfOrderMs: 2_000 };

const bidsCache = new Map<NexmarkOptions, BidRow[]>();

/** The generated bids of `options` (cached per options object). */
export function bids(options: NexmarkOptions): BidRow[] {
  let rows = bidsCache.get(options);
  if (!rows) bidsCache.set(options, (rows = [...generateTable(options, 'bid')]));
  return rows;
}

/** The reference result of `query` over the bids of `options`. */
export function referenceResult(query: string, options: NexmarkOptions): Record<string, unknown>[] {
  const reference = REFERENCES[query];
  if (!reference) throw new Error(`no reference for ${query}`);
  return reference(bids(options));
}

/** Every query with an example module planned. */
export const QUERIES = ['q5', 'q7', 'q11', 'q13', 'q15', 'q18', 'q19'] as const;
/** The queries whose example exists now. */
export const PRESENT: readonly string[] = QUERIES.filter((q) => existsSync(exampleQueryPath(q)));
/** The queries whose example does not exist yet. */
export const MISSING: readonly string[] = QUERIES.filter((q) => !PRESENT.includes(q));
