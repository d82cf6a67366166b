/**
 * Nexmark q11 — user sessions: bids per bidder in sessions that close after 10 seconds without
 * a bid (a SESSION window aggregation; sessions merge when a bid bridges them).
 *
 * ```sql
 * SELECT bidder, COUNT(*) AS bid_count, window_start AS starttime, window_end AS endtime
 * FROM TABLE(SESSION(TABLE bid PARTITION BY bidder, DESCRIPTOR(date_time), INTERVAL '10' SECOND))
 * GROUP BY bidder, window_start, window_end;
 * ```
 *
 * `npx flambda nexmark generate --events 100000 --seed 1 --out data/nexmark`, then
 * `npx flambda run examples/nexmark/q11.ts --input bid=data/nexmark/bid.jsonl --final out.json`
 */
import { Pipeline, count, session } from 'flambda';
import { bidSource } from './schemas.ts';

const pipeline = new Pipeline('nexmark-q11');

bidSource(pipeline)
  .window(session('date_time', '10 s', { partitionBy: ['bidder'] }))
  .aggregate({ bid_count: count() }, { groupBy: ['bidder'] })
  .select({ bidder: 'bidder', bid_count: 'bid_count', starttime: 'window_start', endtime: 'window_end' })
  .sinkTo('q11');

export default pipeline;
