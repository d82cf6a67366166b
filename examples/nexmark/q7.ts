/**
 * Nexmark q7 — the highest bid of every 10-second window (a TUMBLE window Top-N with
 * `RANK() = 1` on `price DESC`, so tied bids are all kept).
 *
 * ```sql
 * SELECT auction, price, bidder, date_time, window_start, window_end FROM (
 *   SELECT *, RANK() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rownum
 *   FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(date_time), INTERVAL '10' SECOND))
 * ) WHERE rownum <= 1;
 * ```
 *
 * `npx flambda nexmark generate --events 100000 --seed 1 --out data/nexmark`, then
 * `npx flambda run examples/nexmark/q7.ts --input bid=data/nexmark/bid.jsonl --final out.json`
 */
import { Pipeline, tumble } from 'flambda';
import { bidSource } from './schemas.ts';

const pipeline = new Pipeline('nexmark-q7');

bidSource(pipeline)
  .window(tumble('date_time', '10 s'))
  .topN(1, { orderBy: ['price DESC'], rankType: 'RANK' })
  .select({
    auction: 'auction',
    price: 'price',
    bidder: 'bidder',
    date_time: 'date_time',
    window_start: 'window_start',
    window_end: 'window_end',
  })
  .sinkTo('q7');

export default pipeline;
