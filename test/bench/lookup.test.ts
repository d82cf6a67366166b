/**
 * `flambda bench lookup --json` on a short run: one JSON line per case with the figures the
 * seed's claim is about, the join planned hashed or forward as the case says, and hashing
 * beating forward in hit rate and in lookups reaching the dimension source; plus the Zipf
 * sampler the skewed cases draw keys from.
 */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../shared/bench/bench-input.ts';
import { zipfSampler } from '../../shared/bench/lookup.ts';
import { runCli } from '../cli/cli.ts';

describe('flambda bench lookup --json', () => {
  it('prints the four cases; hashing by the join key beats forward in hit rate and source lookups', async () => {
    const events = 40_000;
    const r = await runCli(['bench', 'lookup', '--json', '--events', String(events)], { timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('lookup: hashed-uniform hit rate');
    const lines = r.stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.case)).toEqual(['hashed-uniform', 'forward-uniform', 'hashed-zipf', 'forward-zipf']);
    for (const l of lines) {
      expect(l).toMatchObject({ suite: 'lookup', events, keys: 10_000, shards: 4, cache_rows_per_shard: 2_500 });
      expect(l.distribution).toBe(String(l.case).startsWith('hashed') ? 'hash[key]' : 'forward');
      expect(l.key_distribution).toBe(String(l.case).endsWith('uniform') ? 'uniform' : 'zipf(1)');
      for (const field of ['hit_rate', 'lookups_per_1000', 'source_calls_per_1000', 'events_per_s', 'cache_hits', 'cache_misses']) expect(typeof l[field], field).toBe('number');
      expect(l.events_per_s as number).toBeGreaterThan(0);
      const hits = l.cache_hits as number;
      const misses = l.cache_misses as number;
      expect(l.hit_rate).toBe(Math.round((hits / (hits + misses)) * 10_000) / 10_000);
      // Every miss, and only a miss, is a key the dimension source receives (no retries here).
      expect(l.lookups_per_1000).toBe(Math.round(((misses * 1000) / events) * 1000) / 1000);
    }
    const byCase = new Map(lines.map((l) => [l.case as string, l]));
    for (const keys of ['uniform', 'zipf']) {
      const hashed = byCase.get(`hashed-${keys}`) as Record<string, number>;
      const forward = byCase.get(`forward-${keys}`) as Record<string, number>;
      expect(hashed.hit_rate, keys).toBeGreaterThan(forward.hit_rate as number);
      expect(hashed.lookups_per_1000, keys).toBeLessThan(forward.lookups_per_1000 as number);
    }
    // A forward shard's 2,500-row cache holds a quarter of the uniformly drawn keys at best.
    expect((byCase.get('forward-uniform') as Record<string, number>).hit_rate).toBeLessThan(0.25);
  }, 120_000);
});

describe('zipfSampler', () => {
  it('draws key k with probability ∝ 1 / (k + 1)', () => {
    const next = zipfSampler(10_000, 1, seededRandom(5));
    const counts = new Map<number, number>();
    const n = 200_000;
    for (let i = 0; i < n; i++) {
      const k = next();
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    expect(Math.min(...counts.keys())).toBe(0);
    expect(Math.max(...counts.keys())).toBeLessThan(10_000);
    expect([...counts.keys()].every(Number.isInteger)).toBe(true);
    let harmonic = 0;
    for (let k = 1; k <= 10_000; k++) harmonic += 1 / k;
    // P(0) = 1 / H(10,000) ≈ 0.1020, P(1) half of it, P(9) a tenth; within 5 % at 200,000 draws.
    for (const k of [0, 1, 9]) expect((counts.get(k) ?? 0) / n / (1 / (k + 1) / harmonic)).toBeCloseTo(1, 1);
  });
});
