/**
 * Nexmark source declarations shared by the query examples: the fixture's schemas, with the
 * Nexmark watermark `date_time - INTERVAL '4' SECOND`.
 */
import type { Pipeline } from 'flambda';

/** The bid table (`bid.jsonl` as `flambda nexmark generate` writes it). */
export const BID = {
  auction: 'BIGINT',
  bidder: 'BIGINT',
  price: 'BIGINT',
  channel: 'VARCHAR',
  url: 'VARCHAR',
  date_time: 'TIMESTAMP(3)',
  extra: 'VARCHAR',
} as const;

/** Nexmark's watermark delay. */
export const WATERMARK_DELAY_MS = 4_000;

/** Declares the `bid` source on a pipeline. */
export function bidSource(pipeline: Pipeline) {
  return pipeline.source('bid', {
    schema: BID,
    watermark: { column: 'date_time', outOfOrdernessMs: WATERMARK_DELAY_MS },
  });
}
