/**
 * Nexmark q18 — the last bid of every bidder on every auction (deduplication, keep last by
 * event time; on equal `date_time` the later arrival wins, as in Flink).
 *
 * ```sql
 * SELECT auction, bidder, price, channel, url, date_time, extra FROM (
 *   SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY date_time DESC) AS rank_number
 *   FROM bid
 * ) WHERE rank_number <= 1;
 * ```
 *
 * `npx flambda nexmark generate --events 100000 --seed 1 --out data/nexmark`, then
 * `npx flambda run examples/nexmark/q18.ts --input bid=data/nexmark/bid.jsonl --final out.json`
 */
import { Pipeline } from 'flambda';
import { bidSource } from './schemas.ts';

const pipeline = new Pipeline('nexmark-q18');

bidSource(pipeline)
  .deduplicate({ keys: ['bidder', 'auction'], keep: 'last', orderBy: 'date_time' })
  .sinkTo('q18', { upsertKey: ['bidder', 'auction'] });

export default pipeline;
