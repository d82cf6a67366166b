/**
 * Nexmark q5 — hot items: the auctions with the most bids in every 10-second window sliding
 * by 2 seconds (a HOP window aggregation, then a window Top-N keeping `RANK() = 1`, so tied
 * auctions are all kept).
 *
 * ```sql
 * SELECT auction, num, window_start, window_end FROM (
 *   SELECT *, RANK() OVER (PARTITION BY window_start, window_end ORDER BY num DESC) AS rownum
 *   FROM (
 *     SELECT auction, COUNT(*) AS num, window_start, window_end
 *     FROM TABLE(HOP(TABLE bid, DESCRIPTOR(date_time), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
 *     GROUP BY auction, window_start, window_end
 *   )
 * ) WHERE rownum <= 1;
 * ```
 *
 * (Nexmark's own q5 joins the counts with their per-window maximum; the window Top-N with RANK
 * gives the same rows, ties included.)
 *
 * `npx flambda nexmark generate --events 100000 --seed 1 --out data/nexmark`, then
 * `npx flambda run examples/nexmark/q5.ts --input bid=data/nexmark/bid.jsonl --final out.json`
 */
import { Pipeline, count, hop } from 'flambda';
import { bidSource } from './schemas.ts';

const pipeline = new Pipeline('nexmark-q5');

bidSource(pipeline)
  .window(hop('date_time', '2 s', '10 s'))
  .aggregate({ num: count() }, { groupBy: ['auction'] })
  .rank({ partitionBy: ['window_start', 'window_end'], orderBy: ['num DESC'], rankType: 'RANK', range: { atMost: 1 } })
  .select({ auction: 'auction', num: 'num', window_start: 'window_start', window_end: 'window_end' })
  .sinkTo('q5');

export default pipeline;
