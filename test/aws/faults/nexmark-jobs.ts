/**
 * The project's generated Nexmark test data (test/nexmark/test-data.ts) as jobs for
 * {@link runJobOnEmulators}: a query's job graph with the source stage's parallelism set to the
 * source stream's shard count (as a deployment would), the bid lines as source records
 * (partition key = 1-based line number) and the reference's final result.
 */
import { readFileSync } from 'node:fs';
import { Pipeline } from '../../../shared/api/pipeline.ts';
import { AUCTION, BID } from '../../../shared/nexmark/schemas.ts';
import { col, gt } from '../../../shared/plan/expr-build.ts';
import type { JsonValue } from '../../../shared/core/codec.ts';
import type { UserCode } from '../../../shared/operators/registry.ts';
import type { JobGraph } from '../../../shared/plan/job-graph.ts';
import { REFERENCES } from '../../nexmark/reference.ts';
import { asJson, nexmarkTestData } from '../../nexmark/test-data.ts';
import type { SourceRecord } from './pipeline-driver.ts';

/** Queries whose sink result does not need an end-of-input watermark (Kinesis sources are unbounded). */
export type NexmarkQuery = 'q15' | 'q19' | 'join';

/** A test job. */
export interface NexmarkJob {
  readonly query: NexmarkQuery;
  readonly graph: JobGraph;
  readonly code: UserCode;
  /** The reference's final result, as `--final` writes it. */
  readonly expected: Record<string, JsonValue>[];
  /**
   * The reference's final result over the input without some records (0-based line indexes of
   * the bid and auction lines): what a run whose event source mapping skipped them must give.
   */
  expectedWithout(skipped: { readonly bid: ReadonlySet<number>; readonly auction: ReadonlySet<number> }): Record<string, JsonValue>[];
}

/** The test data's bid lines, in order. */
export function bidLines(): string[] {
  return [...nexmarkTestData().bidLines];
}

/** The test data's auction lines, in order. */
export function auctionLines(): string[] {
  return readFileSync(nexmarkTestData().file('auction'), 'utf8').split('\n').filter((l) => l.length > 0);
}

/** Bids above this price join their auction in the join pipeline. */
const HIGH_BID = 1_000_000;

/**
 * The join pipeline of the suite: auctions FULL OUTER JOINed with their bids above
 * {@link HIGH_BID} — a two-input stage whose output retracts an auction's padded row when its
 * first high bid arrives and pads every lower bid — and its expected final result from the plain
 * rows.
 */
function auctionBidJoin(): { pipeline: Pipeline; expected: (bidRows: readonly Record<string, JsonValue>[], auctionRows: readonly Record<string, JsonValue>[]) => Record<string, JsonValue>[] } {
  const p = new Pipeline('fi-join');
  const auctions = p.source('auction', { schema: AUCTION }).select({ id: 'id', seller: 'seller' });
  const bids = p.source('bid', { schema: BID }).select({ auction: 'auction', bidder: 'bidder', price: 'price' });
  auctions.join(bids, { on: { id: 'auction' }, type: 'full', where: gt(col('price'), HIGH_BID) }).sinkTo('joined');
  const joins = (a: Record<string, JsonValue>, b: Record<string, JsonValue>): boolean => b.auction === a.id && (b.price as number) > HIGH_BID;
  const row = (a: Record<string, JsonValue> | undefined, b: Record<string, JsonValue> | undefined): Record<string, JsonValue> => ({
    id: a?.id ?? null,
    seller: a?.seller ?? null,
    auction: b?.auction ?? null,
    bidder: b?.bidder ?? null,
    price: b?.price ?? null,
  });
  const expected = (bidRows: readonly Record<string, JsonValue>[], auctionRows: readonly Record<string, JsonValue>[]): Record<string, JsonValue>[] => {
    const out: Record<string, JsonValue>[] = [];
    for (const a of auctionRows) {
      const matches = bidRows.filter((b) => joins(a, b));
      for (const b of matches) out.push(row(a, b));
      if (matches.length === 0) out.push(row(a, undefined));
    }
    for (const b of bidRows) if (!auctionRows.some((a) => joins(a, b))) out.push(row(undefined, b));
    return out;
  };
  return { pipeline: p, expected };
}

/** Lines as source records; `firstLineIndex` is the 0-based index of `lines[0]` in the file. */
export function asRecords(lines: readonly string[], firstLineIndex = 0): SourceRecord[] {
  return lines.map((data, i) => ({ partitionKey: String(firstLineIndex + i + 1), data }));
}

/**
 * Plans `query` at `parallelism` (the downstream stages) with its source stage at
 * `sourceShards`, with its reference result.
 */
export async function nexmarkJob(query: NexmarkQuery, parallelism: number, sourceShards: number): Promise<NexmarkJob> {
  const join = query === 'join' ? auctionBidJoin() : undefined;
  const pipeline = join?.pipeline ?? ((await import(`../../../examples/nexmark/${query}.ts`)) as { default: Pipeline }).default;
  const planned = pipeline.jobGraph({ parallelism });
  const graph: JobGraph = {
    ...planned,
    sources: planned.sources.map((s) => ({ ...s, parallelism: sourceShards })),
    stages: planned.stages.map((s) => (s.input.type === 'source' ? { ...s, parallelism: sourceShards } : s)),
  };
  const data = nexmarkTestData();
  const parse = (lines: readonly string[]): Record<string, JsonValue>[] => lines.map((l) => JSON.parse(l) as Record<string, JsonValue>);
  const bidRows = parse(bidLines());
  const auctionRows = parse(auctionLines());
  const expectedWithout: NexmarkJob['expectedWithout'] = (skipped) => {
    if (join !== undefined) return join.expected(bidRows.filter((_, i) => !skipped.bid.has(i)), auctionRows.filter((_, i) => !skipped.auction.has(i)));
    const run = REFERENCES[query];
    if (run === undefined) throw new Error(`no reference for ${query}`);
    // data.bids[i] is the row of bid line i.
    return run(data.bids.filter((_, i) => !skipped.bid.has(i))).map(asJson);
  };
  const expected = join !== undefined ? join.expected(bidRows, auctionRows) : data.expected(query);
  return { query, graph, code: { functions: pipeline.userFunctions }, expected, expectedWithout };
}
