/**
 * Order-preserving sort keys: encodes an ORDER BY tuple as a string whose plain string order is
 * the SQL order of the tuples, so sorted state (TopN, OVER windows) can keep rows in a
 * SortedMapState and, on AWS, under a DynamoDB sort key.
 *
 * DynamoDB orders string sort keys by their UTF-8 bytes, JavaScript by UTF-16 code units. The two
 * agree on ASCII, so every sort key is printable ASCII (0x20–0x7E) only; then UTF-8 byte order,
 * UTF-16 order and code point order all coincide.
 *
 * Each column is a marker character followed, for non-null values, by a payload:
 * - marker: `!` null with NULLS FIRST, `~` null with NULLS LAST, and for values one letter per
 *   type (`b` boolean, `d` bigint, `n` number, `s` string), between the two null markers.
 * - number: the IEEE-754 bits made unsigned-comparable (flip the sign bit of positives, all bits
 *   of negatives) as 11 base-64 digits.
 * - bigint: sign (`n` < `o` zero < `p`), digit count, then base-32 digits; negatives reflected.
 * - string: each code point mapped to an order-preserving ASCII sequence, then a space as
 *   terminator, which sorts below every other character so a prefix sorts first.
 * - boolean: `0` false, `1` true.
 * - DESC: the payload reflected (each character c → 0x9E - c), which reverses its order. The
 *   marker is not reflected: NULLS FIRST/LAST place nulls whatever the direction, as in SQL.
 *
 * Each column's encoding is prefix-free (no encoding is a proper prefix of another), so comparing
 * concatenations compares column by column, and anything appended after the last column (say a
 * unique suffix) keeps the order.
 */
import { FlambdaError } from '../core/errors.ts';
import type { Value } from '../core/types.ts';

/** An ORDER BY direction. */
export type SortDirection = 'ASC' | 'DESC';

const NULL_FIRST = '!';
const NULL_LAST = '~';
const BOOLEAN_MARKER = 'b';
const BIGINT_MARKER = 'd';
const NUMBER_MARKER = 'n';
const STRING_MARKER = 's';

/** Reflecting c → REFLECT_SUM - c maps printable ASCII 0x20..0x7E onto itself, reversed. */
const REFLECT_SUM = 0x20 + 0x7e;
const REFLECTED: readonly string[] = Array.from({ length: 0x80 }, (_, c) => String.fromCharCode(REFLECT_SUM - c));

/** Base-64 digits are the 64 consecutive characters '0' (0x30) .. 'o' (0x6F). */
const DIGIT_ZERO = 0x30;

/** A string terminator: below every character a string payload can contain. */
const STRING_END = ' ';
/** Code points 0x00..0x21 are written as '!' + one digit (so ' ' stays free for STRING_END). */
const LOW_ESCAPE = '!';
/** Code points 0x22..0x7C are written as themselves. */
const PLAIN_STRING = /^[\x22-\x7c]*$/;
const LITERAL_MAX = 0x7c;
/** Code points 0x7D..0x4007C (all of the BMP and planes 1–3): '}' + 3 digits of c - 0x7D. */
const MID_ESCAPE = '}';
const MID_BASE = 0x7d;
/** Code points 0x4007D..0x10FFFF: '~' + 4 digits of c - 0x4007D. */
const HIGH_ESCAPE = '~';
const HIGH_BASE = MID_BASE + 64 ** 3;

/** Bigint signs; zero has no further payload. */
const BIGINT_NEGATIVE = 'n';
const BIGINT_ZERO = 'o';
const BIGINT_POSITIVE = 'p';
/** A bigint's base-32 digit count is written as two base-32 digits. */
const MAX_BIGINT_DIGITS = 32 * 32 - 1;

const float = new DataView(new ArrayBuffer(8));

/**
 * Encodes one ORDER BY tuple so that comparing encodings as strings (or as UTF-8 bytes, as
 * DynamoDB does) gives the SQL order: column by column, nulls placed by `nullsFirst[i]`
 * whatever the direction, other values by `compareValues`, reversed for `DESC`.
 */
export function encodeSortKey(
  values: readonly Value[],
  directions: readonly SortDirection[],
  nullsFirst: readonly boolean[],
): string {
  if (directions.length !== values.length || nullsFirst.length !== values.length) {
    throw new FlambdaError(
      `sort key has ${values.length} values but ${directions.length} directions and ${nullsFirst.length} null orderings`,
      'internal',
      'fail',
    );
  }
  let out = '';
  for (let i = 0; i < values.length; i++) {
    const value = values[i] as Value;
    const direction = directions[i];
    if (direction !== 'ASC' && direction !== 'DESC') {
      throw new FlambdaError(`sort direction must be ASC or DESC, got ${String(direction)}`, 'internal', 'fail');
    }
    const descending = direction === 'DESC';
    switch (typeof value) {
      case 'number':
        out += NUMBER_MARKER + encodeDouble(value, descending);
        break;
      case 'string': {
        const payload = encodeString(value);
        out += STRING_MARKER + (descending ? reflect(payload) : payload);
        break;
      }
      case 'bigint': {
        const payload = encodeBigInt(value);
        out += BIGINT_MARKER + (descending ? reflect(payload) : payload);
        break;
      }
      case 'boolean':
        out += BOOLEAN_MARKER + (value !== descending ? '1' : '0');
        break;
      default:
        if (value !== null) {
          throw new FlambdaError(`sort key value of type ${typeof value} is not a Flambda value`, 'internal', 'fail');
        }
        out += nullsFirst[i] === true ? NULL_FIRST : NULL_LAST;
    }
  }
  return out;
}

/**
 * SQL order of two values of the same type: numbers numerically with -0 = 0 and NaN above
 * +Infinity (as Java's Double.compare and so Flink place it), bigints numerically, strings by
 * code point (= UTF-8 byte order, as Flink compares strings; an unpaired surrogate counts as its
 * own code point), false < true. Returns a negative number, 0, or a positive number.
 *
 * Callers handle nulls (NULLS FIRST/LAST) themselves; for totality null sorts first here, and
 * values of different types order by type: boolean < bigint < number < string, the order of the
 * sort-key markers.
 */
export function compareValues(a: Value, b: Value): number {
  if (a === b) return 0;
  const rankA = typeRank(a);
  const rankB = typeRank(b);
  if (rankA !== rankB) return rankA - rankB;
  switch (typeof a) {
    case 'number': {
      const y = b as number;
      if (a < y) return -1;
      if (a > y) return 1;
      // Neither is less: equal (already handled), or one or both NaN.
      const aNaN = a !== a;
      const bNaN = y !== y;
      return aNaN === bNaN ? 0 : aNaN ? 1 : -1;
    }
    case 'bigint':
      return a < (b as bigint) ? -1 : 1;
    case 'string':
      return compareCodePoints(a, b as string);
    case 'boolean':
      return a ? 1 : -1;
    default:
      // Two nulls are identical and returned above.
      return 0;
  }
}

/** Orders types as the sort-key markers do, null first. */
function typeRank(value: Value): number {
  switch (typeof value) {
    case 'boolean':
      return 1;
    case 'bigint':
      return 2;
    case 'number':
      return 3;
    case 'string':
      return 4;
    default:
      return 0;
  }
}

/** Compares two strings by code point, a pair of surrogates being one code point. */
function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  // A code-unit prefix is also a code-point prefix or ends in a lone high surrogate that the
  // longer string pairs up (a larger code point): either way the shorter string is less.
  if (i === n) return a.length - b.length;
  // Compare the code points starting at the last code point boundary at or before i: i - 1 if
  // a high surrogate (always a code point start) precedes the first difference.
  const previous = i > 0 ? a.charCodeAt(i - 1) : 0;
  if (previous >= 0xd800 && previous < 0xdc00) {
    const x = a.codePointAt(i - 1) as number;
    const y = b.codePointAt(i - 1) as number;
    if (x !== y) return x - y;
    // Both are that same lone surrogate; the next code points start at i.
  }
  return (a.codePointAt(i) as number) - (b.codePointAt(i) as number);
}

/** 11 base-64 digits of the double's bits made unsigned-comparable, inverted for DESC. */
function encodeDouble(x: number, descending: boolean): string {
  let hi: number;
  let lo: number;
  if (x !== x) {
    // One canonical NaN (quiet, positive): above +Infinity once the sign bit is flipped.
    hi = 0x7ff80000;
    lo = 0;
  } else {
    // x === 0 is also true for -0, which SQL treats as equal to 0.
    float.setFloat64(0, x === 0 ? 0 : x);
    hi = float.getUint32(0);
    lo = float.getUint32(4);
  }
  if (hi >= 0x80000000) {
    hi = ~hi >>> 0;
    lo = ~lo >>> 0;
  } else {
    hi = (hi | 0x80000000) >>> 0;
  }
  if (descending) {
    hi = ~hi >>> 0;
    lo = ~lo >>> 0;
  }
  return String.fromCharCode(
    DIGIT_ZERO + (hi >>> 28),
    DIGIT_ZERO + ((hi >>> 22) & 63),
    DIGIT_ZERO + ((hi >>> 16) & 63),
    DIGIT_ZERO + ((hi >>> 10) & 63),
    DIGIT_ZERO + ((hi >>> 4) & 63),
    DIGIT_ZERO + (((hi & 15) << 2) | (lo >>> 30)),
    DIGIT_ZERO + ((lo >>> 24) & 63),
    DIGIT_ZERO + ((lo >>> 18) & 63),
    DIGIT_ZERO + ((lo >>> 12) & 63),
    DIGIT_ZERO + ((lo >>> 6) & 63),
    DIGIT_ZERO + (lo & 63),
  );
}

/**
 * Sign, digit count (two base-32 digits), base-32 digits. A longer magnitude is larger, and
 * equal-length digit strings compare like the numbers because '0'-'9' < 'a'-'v' in ASCII.
 * Negatives reflect count and digits so that larger magnitudes sort first.
 */
function encodeBigInt(x: bigint): string {
  if (x === 0n) return BIGINT_ZERO;
  const negative = x < 0n;
  const digits = (negative ? -x : x).toString(32);
  if (digits.length > MAX_BIGINT_DIGITS) {
    throw new FlambdaError(`bigint sort key value has more than ${MAX_BIGINT_DIGITS * 5} bits`, 'internal', 'fail');
  }
  const body = digits.length.toString(32).padStart(2, '0') + digits;
  return negative ? BIGINT_NEGATIVE + reflect(body) : BIGINT_POSITIVE + body;
}

/** Maps code points to ASCII preserving order, then terminates; see the tier constants. */
function encodeString(s: string): string {
  if (PLAIN_STRING.test(s)) return s + STRING_END;
  let out = '';
  const n = s.length;
  for (let i = 0; i < n; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0xd800 && c < 0xdc00 && i + 1 < n) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next < 0xe000) {
        c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        i++;
      }
    }
    if (c <= LITERAL_MAX) {
      out += c < 0x22 ? LOW_ESCAPE + String.fromCharCode(DIGIT_ZERO + c) : String.fromCharCode(c);
    } else if (c < HIGH_BASE) {
      const x = c - MID_BASE;
      out += MID_ESCAPE + String.fromCharCode(DIGIT_ZERO + (x >>> 12), DIGIT_ZERO + ((x >>> 6) & 63), DIGIT_ZERO + (x & 63));
    } else {
      const x = c - HIGH_BASE;
      out +=
        HIGH_ESCAPE +
        String.fromCharCode(
          DIGIT_ZERO + (x >>> 18),
          DIGIT_ZERO + ((x >>> 12) & 63),
          DIGIT_ZERO + ((x >>> 6) & 63),
          DIGIT_ZERO + (x & 63),
        );
    }
  }
  return out + STRING_END;
}

/** Reverses the order of a printable-ASCII payload. */
function reflect(payload: string): string {
  let out = '';
  for (let i = 0; i < payload.length; i++) out += REFLECTED[payload.charCodeAt(i)] as string;
  return out;
}
