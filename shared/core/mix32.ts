/**
 * MurmurHash3's 32-bit finalizer (fmix32): every input bit affects every output bit, so nearby
 * seeds and indexes spread over the whole 32-bit range. Generators use it to derive independent
 * random streams from (seed, index) without keeping state between rows.
 */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
