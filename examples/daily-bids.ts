/** The README's API example; test/examples/daily-bids.test.ts runs it. */
import { Pipeline, col, countDistinct, countWhere, dateFormat, gt, lt, sum } from 'flambda';

const p = new Pipeline('daily-bids');

p.source('bid', {
  // SQL types; rows are typed from them ({ price: number | null; … }).
  schema: { auction: 'BIGINT', bidder: 'BIGINT', price: 'BIGINT', date_time: 'TIMESTAMP(3)' },
  // Event time with bounded out-of-orderness: watermark = max(date_time) − 4 s per source shard.
  watermark: { column: 'date_time', outOfOrdernessMs: 4_000 },
})
  .filter(gt(col('price'), 0))
  .select({ day: dateFormat(col('date_time'), 'yyyy-MM-dd'), price: 'price', bidder: 'bidder' })
  .groupBy('day')
  .aggregate({
    volume: sum('price'),
    cheap_bids: countWhere(lt(col('price'), 10_000)),
    bidders: countDistinct('bidder'),
  })
  .sinkTo('daily', { upsertKey: ['day'] });

export default p;
