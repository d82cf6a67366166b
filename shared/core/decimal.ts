/**
 * DECIMAL(p, s) arithmetic on unscaled bigints (value × 10^s), exact and with Flink's rounding:
 * casts and rescaling round HALF_UP (ties away from zero), like Java's BigDecimal in Flink's
 * `DecimalData.fromBigDecimal`.
 */
import { FlambdaError } from './errors.ts';

/** 10^0 … 10^76: enough for any rescale between DECIMAL(38) scales without recomputing. */
const POW10: readonly bigint[] = Array.from({ length: 77 }, (_, i) => 10n ** BigInt(i));

/** 10^n as a bigint, n ≥ 0. */
export function pow10(n: number): bigint {
  return POW10[n] ?? 10n ** BigInt(n);
}

/** True when the unscaled value has at most `precision` digits, i.e. fits DECIMAL(precision, _). */
export function fitsPrecision(unscaled: bigint, precision: number): boolean {
  const limit = pow10(precision);
  return unscaled < limit && unscaled > -limit;
}

/** Outcome of {@link tryParseDecimal}: the unscaled value, or why there is none. */
export type DecimalParseResult = bigint | 'invalid' | 'overflow';

/** Divides rounding HALF_UP (ties away from zero); `divisor` must not be zero. */
function divideHalfUp(dividend: bigint, divisor: bigint): bigint {
  const quotient = dividend / divisor;
  const remainder = dividend % divisor;
  if (remainder === 0n) return quotient;
  const absRemainder = remainder < 0n ? -remainder : remainder;
  const absDivisor = divisor < 0n ? -divisor : divisor;
  if (absRemainder * 2n < absDivisor) return quotient;
  return (dividend < 0n) !== (divisor < 0n) ? quotient - 1n : quotient + 1n;
}

/** True for the char code of an ASCII digit. */
function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Exponents beyond this are clamped: they already overflow or round to zero at any precision. */
const EXPONENT_CLAMP = 1_000_000_000;

/** The string path of {@link tryParseDecimal}. */
function parseDecimalText(text: string, precision: number, scale: number): DecimalParseResult {
  const n = text.length;
  let i = 0;
  let negative = false;
  const first = text.charCodeAt(0);
  if (first === 45 /* - */ || first === 43 /* + */) {
    negative = first === 45;
    i++;
  }
  const intStart = i;
  while (i < n && isDigit(text.charCodeAt(i))) i++;
  const intEnd = i;
  let fracStart = i;
  let fracEnd = i;
  if (i < n && text.charCodeAt(i) === 46 /* . */) {
    i++;
    fracStart = i;
    while (i < n && isDigit(text.charCodeAt(i))) i++;
    fracEnd = i;
  }
  if (intEnd === intStart && fracEnd === fracStart) return 'invalid';
  let exponent = 0;
  if (i < n && (text.charCodeAt(i) === 101 /* e */ || text.charCodeAt(i) === 69) /* E */) {
    i++;
    let expNegative = false;
    const sign = text.charCodeAt(i);
    if (sign === 45 || sign === 43) {
      expNegative = sign === 45;
      i++;
    }
    const expStart = i;
    while (i < n && isDigit(text.charCodeAt(i))) {
      if (exponent < EXPONENT_CLAMP) exponent = exponent * 10 + (text.charCodeAt(i) - 48);
      i++;
    }
    if (i === expStart) return 'invalid';
    if (expNegative) exponent = -exponent;
  }
  if (i !== n) return 'invalid';

  // value = digits × 10^(exponent − fraction digits); skip leading zeros to count significant digits.
  const digits = fracStart === fracEnd ? text.slice(intStart, intEnd) : text.slice(intStart, intEnd) + text.slice(fracStart, fracEnd);
  let lead = 0;
  while (lead < digits.length && digits.charCodeAt(lead) === 48) lead++;
  const significant = digits.length - lead;
  if (significant === 0) return 0n;
  const shift = exponent - (fracEnd - fracStart) + scale;

  let unscaled: bigint;
  if (shift >= 0) {
    if (significant + shift > precision) return 'overflow';
    unscaled = BigInt(lead === 0 ? digits : digits.slice(lead)) * pow10(shift);
  } else {
    // Keep the first `kept` significant digits and round on the next one.
    const kept = significant + shift;
    if (kept < 0) return 0n;
    unscaled = kept === 0 ? 0n : BigInt(digits.slice(lead, lead + kept));
    if (digits.charCodeAt(lead + kept) >= 53 /* 5 */) unscaled += 1n;
    if (!fitsPrecision(unscaled, precision)) return 'overflow';
  }
  return negative ? -unscaled : unscaled;
}

/**
 * Converts a number or decimal text to the unscaled value of DECIMAL(precision, scale),
 * telling apart text that is not a number (`'invalid'`) from a value with too many digits
 * before the point (`'overflow'`).
 *
 * Text is read exactly: an optional sign, digits with an optional `.`, an optional exponent
 * (`1.5e3`); no whitespace, no `NaN`/`Infinity`. Numbers go through their shortest round-trip
 * string (`0.1` is read as `0.1`, not its binary expansion). Extra fraction digits round HALF_UP.
 */
export function tryParseDecimal(input: string | number, precision: number, scale: number): DecimalParseResult {
  if (typeof input === 'number') {
    if (Number.isSafeInteger(input)) {
      // Integers skip the text round trip: the common case for DECIMAL columns fed from JSON.
      const unscaled = BigInt(input) * pow10(scale);
      return fitsPrecision(unscaled, precision) ? unscaled : 'overflow';
    }
    if (!Number.isFinite(input)) return 'invalid';
    return parseDecimalText(String(input), precision, scale);
  }
  return parseDecimalText(input, precision, scale);
}

/**
 * Converts a number or decimal text to the unscaled value of DECIMAL(precision, scale), rounding
 * HALF_UP to the scale like Flink's CAST; `undefined` when the input is not a number or does not
 * fit the precision (where Flink's cast yields NULL). See {@link tryParseDecimal} for the syntax.
 */
export function parseDecimal(input: string | number, precision: number, scale: number): bigint | undefined {
  const result = tryParseDecimal(input, precision, scale);
  return typeof result === 'bigint' ? result : undefined;
}

/**
 * Prints an unscaled value with exactly `scale` fraction digits, as Flink prints DECIMAL:
 * `formatDecimal(1250n, 2)` is `"12.50"`, `formatDecimal(-5n, 3)` is `"-0.005"`, scale 0 has no point.
 */
export function formatDecimal(unscaled: bigint, scale: number): string {
  if (scale === 0) return unscaled.toString();
  const negative = unscaled < 0n;
  let digits = (negative ? -unscaled : unscaled).toString();
  if (digits.length <= scale) digits = '0'.repeat(scale - digits.length + 1) + digits;
  const point = digits.length - scale;
  return `${negative ? '-' : ''}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * Changes the scale of an unscaled value, rounding HALF_UP when digits are dropped. The
 * precision is not checked; use {@link fitsPrecision} on the result when it matters.
 */
export function rescaleDecimal(unscaled: bigint, fromScale: number, toScale: number): bigint {
  if (toScale >= fromScale) return unscaled * pow10(toScale - fromScale);
  return divideHalfUp(unscaled, pow10(fromScale - toScale));
}

/**
 * `a / b` as an unscaled value with `scale` fraction digits, rounded HALF_UP. When `a` and `b`
 * are unscaled at the same scale (or plain integers) this is their quotient; for AVG over
 * DECIMAL(p, s) with result scale t ≥ s, `divideDecimal(sum, BigInt(count), t - s)`.
 *
 * @throws FlambdaError (internal) when `b` is zero: callers must not divide by an empty count.
 */
export function divideDecimal(a: bigint, b: bigint, scale: number): bigint {
  if (b === 0n) throw new FlambdaError('DECIMAL division by zero', 'internal', 'fail');
  return divideHalfUp(a * pow10(scale), b);
}
