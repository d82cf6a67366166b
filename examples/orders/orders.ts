/**
 * A deterministic generator of orders for the examples: skewed merchandise popularity (a few
 * best sellers), quantities 1..10, event times one millisecond apart with up to 3 s of jitter.
 */
import type { GeneratorFunction, Pipeline } from 'flambda';

/** Options of {@link generateOrders}. */
export interface OrderGeneratorOptions {
  readonly orders: number;
  readonly merchandise: number;
  readonly seed: number;
}

/** Returns a generator source function producing `orders` rows. */
export function generateOrders(options: OrderGeneratorOptions): GeneratorFunction {
  return function* orders() {
    let state = options.seed >>> 0;
    const random = (): number => {
      // xorshift32: tiny, seeded, deterministic.
      state ^= state << 13;
      state >>>= 0;
      state ^= state >>> 17;
      state ^= state << 5;
      state >>>= 0;
      return state / 4294967296;
    };
    const start = Date.UTC(2026, 10, 11);
    for (let i = 0; i < options.orders; i++) {
      // Squaring a uniform number skews popularity towards low ids.
      const merchandiseId = 1 + Math.floor(random() ** 2 * options.merchandise);
      yield {
        merchandiseId,
        quantity: 1 + Math.floor(random() * 10),
        log_ts: start + i - Math.floor(random() * 3000),
      };
    }
  };
}

/** Declares the generated `orders` source of the examples (event time `log_ts`, 5 s bound). */
export function ordersSource(pipeline: Pipeline, options: OrderGeneratorOptions) {
  return pipeline.source('orders', {
    schema: { merchandiseId: 'BIGINT NOT NULL', quantity: 'INT NOT NULL', log_ts: 'TIMESTAMP(3) NOT NULL' },
    watermark: { column: 'log_ts', outOfOrdernessMs: 5_000 },
    generator: generateOrders(options),
  });
}
