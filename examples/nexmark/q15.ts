/**
 * Nexmark q15 — bidding statistics report per day:
 *
 * ```sql
 * SELECT DATE_FORMAT(date_time, 'yyyy-MM-dd') AS `day`,
 *        count(*) AS total_bids,
 *        count(*) FILTER (WHERE price < 10000) AS rank1_bids,
 *        count(*) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bids,
 *        count(*) FILTER (WHERE price >= 1000000) AS rank3_bids,
 *        count(DISTINCT bidder) AS total_bidders, … (the same three bands),
 *        count(DISTINCT auction) AS total_auctions, … (the same three bands)
 * FROM bid GROUP BY DATE_FORMAT(date_time, 'yyyy-MM-dd');
 * ```
 *
 * `npx flambda nexmark generate --events 100000 --seed 1 --out data/nexmark`, then
 * `npx flambda run examples/nexmark/q15.ts --input bid=data/nexmark/bid.jsonl --final out.json`
 */
import { Pipeline, and, col, count, countDistinct, countWhere, dateFormat, ge, lt } from 'flambda';
import { bidSource } from './schemas.ts';

const pipeline = new Pipeline('nexmark-q15');

const price = col('price');
const rank1 = lt(price, 10_000);
const rank2 = and(ge(price, 10_000), lt(price, 1_000_000));
const rank3 = ge(price, 1_000_000);

bidSource(pipeline)
  .select({ day: dateFormat(col('date_time'), 'yyyy-MM-dd'), price: 'price', bidder: 'bidder', auction: 'auction' })
  .groupBy('day')
  .aggregate({
    total_bids: count(),
    rank1_bids: countWhere(rank1),
    rank2_bids: countWhere(rank2),
    rank3_bids: countWhere(rank3),
    total_bidders: countDistinct('bidder'),
    rank1_bidders: countDistinct('bidder', { filter: rank1 }),
    rank2_bidders: countDistinct('bidder', { filter: rank2 }),
    rank3_bidders: countDistinct('bidder', { filter: rank3 }),
    total_auctions: countDistinct('auction'),
    rank1_auctions: countDistinct('auction', { filter: rank1 }),
    rank2_auctions: countDistinct('auction', { filter: rank2 }),
    rank3_auctions: countDistinct('auction', { filter: rank3 }),
  })
  .sinkTo('q15', { upsertKey: ['day'] });

export default pipeline;
