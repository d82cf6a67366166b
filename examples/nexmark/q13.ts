/**
 * Nexmark q13 — bounded side input join: every bid joined to a side table of 10,000 rows
 * `{ key, value }` on `auction % 10000 = key`, through a lookup join with a FULL cache (the side
 * table is loaded once per shard, then every lookup is a cache hit).
 *
 * ```sql
 * CREATE TABLE side_input (key BIGINT, `value` VARCHAR) WITH ('connector' = 'filesystem', 'path' = 'side_input.jsonl', 'format' = 'json');
 * SELECT B.auction, B.bidder, B.price, B.date_time, S.`value`
 * FROM (SELECT *, PROCTIME() AS p_time FROM bid) B
 * JOIN side_input FOR SYSTEM_TIME AS OF B.p_time AS S
 * ON mod(B.auction, 10000) = S.key;
 * ```
 *
 * `npx flambda nexmark generate --events 100000 --seed 1 --out data/nexmark`, then
 * `npx flambda run examples/nexmark/q13.ts --input bid=data/nexmark/bid.jsonl --input side_input=data/nexmark/side_input.jsonl --final out.json`
 */
import { Pipeline, col, mod } from 'flambda';
import { bidSource } from './schemas.ts';

const pipeline = new Pipeline('nexmark-q13');

// The side table's file is bound at run time (`--input side_input=…`), like a source's.
const sideInput = pipeline.lookupTable('side_input', {
  schema: { key: 'BIGINT NOT NULL', value: 'STRING' },
  source: { jsonl: {} },
  cache: { type: 'FULL' },
});

bidSource(pipeline)
  .select({ auction: 'auction', bidder: 'bidder', price: 'price', date_time: 'date_time', side_key: mod(col('auction'), 10000) })
  .lookupJoin(sideInput, { on: { side_key: 'key' }, columns: ['value'] })
  .select({ auction: 'auction', bidder: 'bidder', price: 'price', date_time: 'date_time', value: 'value' })
  .sinkTo('q13');

export default pipeline;
