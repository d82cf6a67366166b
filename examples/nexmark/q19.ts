/**
 * Nexmark q19 — auction Top-10 price: the ten highest bids of every auction, with their rank.
 *
 * ```sql
 * SELECT * FROM (
 *   SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rank_number FROM bid
 * ) WHERE rank_number <= 10;
 * ```
 *
 * `npx flambda nexmark generate --events 100000 --seed 1 --out data/nexmark`, then
 * `npx flambda run examples/nexmark/q19.ts --input bid=data/nexmark/bid.jsonl --final out.json`
 */
import { Pipeline } from 'flambda';
import { bidSource } from './schemas.ts';

const pipeline = new Pipeline('nexmark-q19');

bidSource(pipeline)
  .topN(10, { partitionBy: ['auction'], orderBy: ['price DESC'], rankNumber: 'rank_number' })
  .sinkTo('q19', { upsertKey: ['auction', 'rank_number'] });

export default pipeline;
