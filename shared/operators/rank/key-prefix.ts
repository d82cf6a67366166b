/**
 * A numeric prefix of a sort key, so that a sorted array of keys can be binary-searched by
 * comparing numbers held in one contiguous array, reading key strings only to break ties.
 * Sort keys (shared/partition/sort-key.ts) are printable ASCII, which this relies on.
 */

/** Characters of a key packed into {@link keyPrefix}. */
const PREFIX_CHARS = 7;

/**
 * The first seven characters of a sort key as a number that orders like the strings: each
 * character of printable ASCII (all sort-key.ts emits) maps to 1..95 and a missing one to 0, so
 * a proper prefix sorts first, in base 96 — 96^7 < 2^53, so the number is exact. Equal numbers
 * mean equal first seven characters, and the strings decide.
 */
export function keyPrefix(key: string): number {
  let prefix = 0;
  for (let i = 0; i < PREFIX_CHARS; i++) {
    const c = i < key.length ? key.charCodeAt(i) - 0x1f : 0;
    prefix = prefix * 96 + c;
  }
  return prefix;
}
