/**
 * `java.util.Random`, bit for bit: the 48-bit linear congruential generator
 * `seed = (seed * 0x5DEECE66D + 0xB) mod 2^48` and Java's derivations of `nextInt()`,
 * `nextInt(bound)`, `nextLong()` and `nextDouble()` from it.
 *
 * The Nexmark reference generator (Apache Beam's, which nexmark-flink derives from) draws every
 * field from a `java.util.Random`, so reproducing its exact sequences is what lets our events
 * match the reference's for the same seed, not just its distributions.
 *
 * The 48-bit state is kept as three 16-bit limbs in plain numbers: every partial product stays
 * far under 2^53, so it is exact, and the step needs neither BigInt nor a floating modulo.
 */

const MASK_24 = 0xffffff;
/** 0x5DEECE66D split into 24-bit halves (for the seed scramble) and 16-bit limbs (for the step). */
const MUL_HI = 0x5de;
const MUL_LO = 0xece66d;
const M0 = 0xe66d;
const M1 = 0xdeec;
const M2 = 0x5;
const ADDEND = 0xb;
const DOUBLE_UNIT = 2 ** -53;
const TWO_48 = 1n << 48n;

/** A `java.util.Random` with the same output as the JDK's for the same seed. */
export class JavaRandom {
  /** The state as 16-bit limbs: seed = s2 * 2^32 + s1 * 2^16 + s0. */
  private s0 = 0;
  private s1 = 0;
  private s2 = 0;

  /** Creates a generator; like `new java.util.Random(seed)` (seed taken modulo 2^64, as a Java long). */
  constructor(seed: number | bigint = 0) {
    this.setSeed(seed);
  }

  /** Like `Random.setSeed(long)`: only the low 48 bits of the seed matter. */
  setSeed(seed: number | bigint): void {
    const s = BigInt.asUintN(48, BigInt(seed));
    this.setSeed48(Number(s >> 24n), Number(s & BigInt(MASK_24)));
  }

  /**
   * Sets the seed from its two 24-bit halves (`seed mod 2^48 = hi * 2^24 + lo`), without BigInt:
   * the generator re-seeds once per event, so this is on the hot path.
   */
  setSeed48(hi: number, lo: number): void {
    // Java scrambles the seed with the multiplier: (seed ^ 0x5DEECE66D) & (2^48 - 1).
    const h = (hi ^ MUL_HI) & MASK_24;
    const l = (lo ^ MUL_LO) & MASK_24;
    this.s0 = l & 0xffff;
    this.s1 = (l >>> 16) | ((h & 0xff) << 8);
    this.s2 = h >>> 8;
  }

  /** Advances the LCG and returns its top `bits` bits (1..32) as a signed 32-bit int, like `Random.next`. */
  next(bits: number): number {
    const s0 = this.s0;
    const s1 = this.s1;
    const s2 = this.s2;
    // Schoolbook multiplication by 0x5DEECE66D, keeping the low 48 bits. `x & 0xffff` is exact
    // for any integer below 2^53 (ToInt32 reduces modulo 2^32).
    const c0 = s0 * M0 + ADDEND;
    const r0 = c0 & 0xffff;
    const c1 = s1 * M0 + s0 * M1 + (c0 - r0) / 0x10000;
    const r1 = c1 & 0xffff;
    const c2 = s2 * M0 + s1 * M1 + s0 * M2 + Math.floor(c1 / 0x10000);
    const r2 = c2 & 0xffff;
    this.s0 = r0;
    this.s1 = r1;
    this.s2 = r2;
    // (int) (seed >>> (48 - bits)): the top 32 bits are s2:s1.
    const top32 = (r2 << 16) | r1;
    return bits === 32 ? top32 : top32 >>> (32 - bits);
  }

  /** `Random.nextInt()`: a uniform signed 32-bit int. */
  nextInt(): number {
    return this.next(32);
  }

  /** `Random.nextInt(bound)`: uniform in `[0, bound)`, with Java's rejection loop. */
  nextIntBounded(bound: number): number {
    // Callers pass ints; Java throws on a non-positive bound, and so do we.
    if (!(bound > 0 && bound <= 0x7fffffff)) throw new RangeError(`bound must be a positive int (given ${bound})`);
    let r = this.next(31);
    const m = bound - 1;
    if ((bound & m) === 0) {
      // A power of two 2^k: Java takes the high bits, (bound * r) >> 31 = r >>> (31 - k).
      return r >>> Math.clz32(bound);
    }
    // Java: for (u = r; u - (r = u % bound) + m < 0; u = next(31)); in int arithmetic.
    for (let u = r; ((u - (r = u % bound) + m) | 0) < 0; u = this.next(31));
    return r;
  }

  /** `Random.nextLong()` as a BigInt (rarely needed: only for bounds ≥ 2^31 - 1). */
  nextLong(): bigint {
    const high = BigInt(this.next(32));
    const low = BigInt(this.next(32));
    return BigInt.asIntN(64, (high << 32n) + low);
  }

  /** `Random.nextDouble()`: 53 random bits in `[0, 1)`. */
  nextDouble(): number {
    return (this.next(26) * 0x8000000 + this.next(27)) * DOUBLE_UNIT;
  }
}

/** `seed mod 2^48` as 24-bit halves, for {@link JavaRandom.setSeed48}. */
export function seedHalves(seed: bigint): { hi: number; lo: number } {
  const s = ((seed % TWO_48) + TWO_48) % TWO_48;
  return { hi: Number(s >> 24n), lo: Number(s & BigInt(MASK_24)) };
}
