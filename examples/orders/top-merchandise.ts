/**
 * The Top-N article's example, end to end: orders summed per merchandise, then a live Top-10
 * leaderboard by total quantity.
 *
 * ```sql
 * SELECT * FROM (
 *   SELECT *, ROW_NUMBER() OVER (ORDER BY totalQuantity DESC) AS ranking
 *   FROM (SELECT merchandiseId, SUM(quantity) AS totalQuantity FROM orders GROUP BY merchandiseId)
 * ) WHERE ranking <= 10;
 * ```
 *
 * SUM over arbitrary quantities is not monotonic, so the planner picks Flink's RetractStrategy
 * (the article's plan). The article partitions by merchandiseId, which ranks every product
 * alone; a leaderboard ranks them against each other, so this Top-N is global and runs on one
 * shard. Run it with `npm start`.
 */
import { Pipeline, sum } from 'flambda';
import { ordersSource } from './orders.ts';

const pipeline = new Pipeline('top-merchandise');

ordersSource(pipeline, { orders: 200_000, merchandise: 40, seed: 7 })
  .groupBy('merchandiseId')
  .aggregate({ totalQuantity: sum('quantity') })
  .topN(10, { orderBy: ['totalQuantity DESC'], rankNumber: 'ranking' })
  .print('leaderboard', { upsertKey: ['ranking'] });

export default pipeline;
