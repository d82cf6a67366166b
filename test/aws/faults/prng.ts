/**
 * A small seeded pseudo-random generator (mulberry32) for fault schedules: the same seed gives
 * the same sequence, so a failing schedule can be replayed from its seed.
 */

/** FNV-1a over a string: a 32-bit seed from text (e.g. `seed/stage/shard`). */
export function hashSeed(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A seeded generator with the helpers fault schedules need. */
export class Prng {
  private state: number;

  /** @param seed any 32-bit integer (or text, hashed) */
  constructor(seed: number | string) {
    this.state = (typeof seed === 'string' ? hashSeed(seed) : seed) >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform integer in [lo, hi] (both inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty array');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** A non-empty random subset of the indices 0..n-1 (n ≥ 1), ascending. */
  subset(n: number): number[] {
    const out: number[] = [];
    for (let i = 0; i < n; i++) if (this.chance(0.5)) out.push(i);
    if (out.length === 0) out.push(this.int(0, n - 1));
    return out;
  }
}
