/** The `java.util.Random` behind RAND(seed) and RAND_INTEGER(seed, bound), against values Java prints. */
import { describe, expect, it } from 'vitest';
import { JavaRandom } from '../../shared/plan/expr-fn-random.ts';

describe('JavaRandom', () => {
  it("gives java.util.Random's nextDouble sequence for a seed", () => {
    const r = new JavaRandom(42);
    expect([r.nextDouble(), r.nextDouble(), r.nextDouble()]).toEqual([0.7275636800328681, 0.6832234717598454, 0.30871945533265976]);
  });

  it("gives java.util.Random's nextInt(bound) for bounds that are and are not powers of two", () => {
    const r = new JavaRandom(42);
    expect(Array.from({ length: 5 }, () => r.nextInt(10))).toEqual([0, 3, 8, 4, 0]);
    // new Random(-7): nextInt(16), nextInt(1000000007), nextDouble().
    const s = new JavaRandom(-7);
    expect([s.nextInt(16), s.nextInt(1000000007), s.nextDouble()]).toEqual([4, 935951290, 0.6731811902798038]);
  });
});
