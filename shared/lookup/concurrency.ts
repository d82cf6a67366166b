/** Bounded-concurrency mapping, used to fan out chunked lookups without flooding a store. */

/**
 * Maps `items` with `fn`, at most `limit` calls in flight, and returns the results in input order.
 * The first rejection rejects the whole call (calls already started still run to completion).
 */
export async function mapConcurrent<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!, index);
    }
  };
  const workers = Math.max(1, Math.min(limit, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
}
