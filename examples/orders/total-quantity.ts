/**
 * The Top-N article's own example, first half: a bounded, generated stream of orders
 * (merchandiseId, quantity, log_ts) summed per merchandise:
 *
 * ```sql
 * SELECT merchandiseId, SUM(quantity) AS totalQuantity FROM orders GROUP BY merchandiseId
 * ```
 *
 * Run it with `npm start`, or `npx flambda run examples/orders/total-quantity.ts --table`.
 */
import { Pipeline, sum } from 'flambda';
import { ordersSource } from './orders.ts';

const pipeline = new Pipeline('total-quantity');

ordersSource(pipeline, { orders: 200_000, merchandise: 12, seed: 7 })
  .groupBy('merchandiseId')
  .aggregate({ totalQuantity: sum('quantity') })
  .print();

export default pipeline;
