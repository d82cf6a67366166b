/**
 * PRINTF's formatting: Java's `java.util.Formatter` with `Locale.US`, which Flink's PRINTF calls
 * with the arguments in Flink's internal representation. Supported: `%[index$][flags][width]
 * [.precision]conversion` with the conversions `b B s S c C d o x X e E f g G % n`, the flags
 * `- # + space 0 , (` and `<` (the previous argument), with Java's results:
 *
 * - `%s` of a value is the Java `toString` of Flink's internal value: numbers as Java prints them
 *   (a DOUBLE `2.0`), a DECIMAL in plain notation, a TIMESTAMP as `LocalDateTime.toString`
 *   (`2024-01-01T10:00`, seconds only when not zero), a TIMESTAMP_LTZ the same of its UTC
 *   reading (its TimestampData), a DATE and a TIME as the Integer Flink keeps (days since the
 *   epoch, milliseconds of the day), NULL as `null`; ROW, ARRAY, MAP and MULTISET as CAST to
 *   STRING prints them (Flink would print an object reference);
 * - `%d %o %x` need an INT or BIGINT, or a DATE or TIME (an Integer inside Flink; negative values
 *   in two's complement for `o` and `x`, 32 bits for those Integers, 64 for BIGINT), `%e %f %g` a DOUBLE (rounded half up on the shortest decimal form of
 *   the double, as Java does), `%c` an INT code point;
 * - a specification Java rejects (`%d` of a STRING, a missing argument, an unknown conversion,
 *   `%h`, `%a` and the date conversions `%t`, which Flambda does not implement) is an error
 *   naming Java's exception, as PRINTF fails in Flink.
 */
import { formatDecimal } from '../core/decimal.ts';
import { formatTimestamp } from '../core/timestamp.ts';
import type { LogicalType, Value } from '../core/types.ts';
import { formatDouble, formatFloat, nestedText } from './expr-cast.ts';
import { isNested } from './expr-type-rules.ts';

/** One argument: its value and SQL type. */
export interface FormatArg {
  readonly value: Value;
  readonly type: LogicalType;
}

/** A format specification Java's Formatter would reject; the message names the exception. */
export class JavaFormatError extends Error {}

/** One `%…` specification of a format string. */
interface Spec {
  readonly text: string;
  /** 1-based explicit index, 0 for the next ordinary argument, -1 for `<` (the previous one). */
  readonly index: number;
  readonly flags: string;
  readonly width?: number;
  readonly precision?: number;
  readonly conversion: string;
}

const SPEC = /%(\d+\$)?([-#+ 0,(<]*)(\d+)?(\.\d+)?([tT]?[a-zA-Z%])/y;

/** Splits a format string into literal text and specifications. */
function parseFormat(format: string): (string | Spec)[] {
  const parts: (string | Spec)[] = [];
  let literal = '';
  let i = 0;
  while (i < format.length) {
    const c = format[i]!;
    if (c !== '%') {
      literal += c;
      i++;
      continue;
    }
    SPEC.lastIndex = i;
    const m = SPEC.exec(format);
    if (m === null) {
      const next = format[i + 1];
      throw new JavaFormatError(next === undefined ? "UnknownFormatConversionException: Conversion = '%'" : `UnknownFormatConversionException: Conversion = '${next}'`);
    }
    if (literal !== '') parts.push(literal);
    literal = '';
    const flags = m[2] ?? '';
    const conversion = m[5]!;
    parts.push({
      text: m[0],
      index: flags.includes('<') ? -1 : m[1] === undefined ? 0 : Number(m[1].slice(0, -1)),
      flags: flags.replace('<', ''),
      ...(m[3] !== undefined ? { width: Number(m[3]) } : {}),
      ...(m[4] !== undefined ? { precision: Number(m[4].slice(1)) } : {}),
      conversion,
    });
    i += m[0].length;
  }
  if (literal !== '') parts.push(literal);
  return parts;
}

/** Types whose internal Flink value is a java.lang.Integer. */
const JAVA_INTEGER = new Set(['INT', 'DATE', 'TIME']);
/** Types Java's `%c` takes: Integer, and Byte and Short (TINYINT, SMALLINT). */
const JAVA_CHARACTER = new Set([...JAVA_INTEGER, 'TINYINT', 'SMALLINT']);
const INTEGRAL = new Set([...JAVA_CHARACTER, 'BIGINT']);

/** Checks one specification against its argument's type (what Java checks per value, known here per column). */
function checkSpec(spec: Spec, arg: FormatArg | undefined): void {
  const c = spec.conversion;
  const lower = c.toLowerCase();
  const fail = (what: string): never => {
    throw new JavaFormatError(what);
  };
  if (c.length === 2) fail(`the date/time conversion '${spec.text}' is not supported by Flambda's PRINTF`);
  if (lower === 'h' || lower === 'a') fail(`the conversion '${spec.text}' is not supported by Flambda's PRINTF`);
  if (!'bscdoxefg%n'.includes(lower)) fail(`UnknownFormatConversionException: Conversion = '${c}'`);
  if (c === '%' || c === 'n') {
    if (c === 'n' && (spec.width !== undefined || spec.flags !== '')) fail(`IllegalFormatWidthException or FormatFlagsConversionMismatchException in '${spec.text}'`);
    return;
  }
  if (spec.flags.includes('-') && spec.width === undefined) fail(`MissingFormatWidthException: ${spec.text}`);
  if (spec.flags.includes('0') && spec.width === undefined) fail(`MissingFormatWidthException: ${spec.text}`);
  if (arg === undefined) fail(`MissingFormatArgumentException: Format specifier '${spec.text}'`);
  const t = arg!.type.root;
  const conversionError = (): never => fail(`IllegalFormatConversionException: ${c} != ${javaClass(arg!.type)} in '${spec.text}'`);
  switch (lower) {
    case 'b':
    case 's':
      if (spec.flags.replace('-', '') !== '') fail(`FormatFlagsConversionMismatchException: Conversion = ${c}, Flags = ${spec.flags.replace('-', '')}`);
      return;
    case 'c':
      if (spec.precision !== undefined) fail(`IllegalFormatPrecisionException: ${spec.precision}`);
      if (!JAVA_CHARACTER.has(t)) conversionError();
      return;
    case 'd':
    case 'o':
    case 'x':
      if (spec.precision !== undefined) fail(`IllegalFormatPrecisionException: ${spec.precision}`);
      if (!INTEGRAL.has(t)) conversionError();
      return;
    default:
      if (t !== 'DOUBLE' && t !== 'FLOAT') conversionError();
  }
}

/** The Java class of Flink's internal value of a type, for messages. */
function javaClass(t: LogicalType): string {
  switch (t.root) {
    case 'INT':
    case 'DATE':
    case 'TIME':
      return 'java.lang.Integer';
    case 'BIGINT':
      return 'java.lang.Long';
    case 'SMALLINT':
      return 'java.lang.Short';
    case 'TINYINT':
      return 'java.lang.Byte';
    case 'DOUBLE':
      return 'java.lang.Double';
    case 'FLOAT':
      return 'java.lang.Float';
    case 'BOOLEAN':
      return 'java.lang.Boolean';
    case 'STRING':
      return 'org.apache.flink.table.data.binary.BinaryStringData';
    case 'DECIMAL':
      return 'org.apache.flink.table.data.DecimalData';
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return 'org.apache.flink.table.data.TimestampData';
    default:
      return 'org.apache.flink.table.data.ArrayData';
  }
}

/** A TIMESTAMP as Java's `LocalDateTime.toString()`: `2024-01-01T10:00`, `…T10:00:05`, `…T10:00:05.120`. */
function localDateTimeText(ms: number): string {
  const [date = '', time = ''] = formatTimestamp(ms).split(' ');
  const [hms = '', fraction = '000'] = time.split('.');
  const [h, m, s] = hms.split(':');
  if (fraction !== '000') return `${date}T${h}:${m}:${s}.${fraction}`;
  return s === '00' ? `${date}T${h}:${m}` : `${date}T${h}:${m}:${s}`;
}

/** `Object.toString()` of Flink's internal value. */
function javaToString(arg: FormatArg): string {
  const { value, type } = arg;
  if (value === null) return 'null';
  switch (type.root) {
    case 'DOUBLE':
      return formatDouble(value as number);
    case 'FLOAT':
      return formatFloat(value as number);
    case 'DECIMAL':
      return formatDecimal(value as bigint, type.scale ?? 0);
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return localDateTimeText(value as number);
    case 'BOOLEAN':
      return value ? 'true' : 'false';
    default:
      return isNested(type) ? nestedText(value, type) : String(value);
  }
}

/** Pads to the width: spaces on the left, or on the right with `-`. */
function justify(text: string, spec: Spec): string {
  const width = spec.width ?? 0;
  const length = [...text].length;
  if (length >= width) return text;
  const pad = ' '.repeat(width - length);
  return spec.flags.includes('-') ? text + pad : pad + text;
}

/** Inserts Locale.US grouping separators into a run of digits. */
function group(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * A number's sign and magnitude text laid out with the flags: `+`, space, `(`, `,` and `0` (zeros
 * after the sign up to the width), as Java's Formatter does for `d`, `e`, `f` and `g`.
 */
function signed(negative: boolean, magnitude: string, spec: Spec, grouping: boolean): string {
  const f = spec.flags;
  let body = magnitude;
  if (grouping && f.includes(',')) {
    const [int = '', rest] = body.split(/(?=[.eE])/, 2);
    body = group(int) + (rest === undefined ? '' : body.slice(int.length));
  }
  const prefix = negative ? (f.includes('(') ? '(' : '-') : f.includes('+') ? '+' : f.includes(' ') ? ' ' : '';
  const suffix = negative && f.includes('(') ? ')' : '';
  if (f.includes('0') && spec.width !== undefined) {
    const zeros = spec.width - prefix.length - body.length - suffix.length;
    if (zeros > 0) body = '0'.repeat(zeros) + body;
  }
  return justify(prefix + body + suffix, spec);
}

/** The shortest decimal digits of a positive finite double and its exponent: value = 0.d1d2… × 10^exp. */
function decimalDigits(x: number): { digits: string; exp: number } {
  const [mantissa = '0', e = '0'] = x.toExponential().split('e');
  return { digits: mantissa.replace('.', ''), exp: Number(e) + 1 };
}

/**
 * Rounds digits (value 0.digits × 10^exp) half up to `keep` digits. A carry (0.999 → 1.00) gives
 * one digit more and the exponent one higher.
 */
function roundDigits(digits: string, exp: number, keep: number): { digits: string; exp: number } {
  if (keep < 0) return { digits: '', exp };
  if (digits.length <= keep) return { digits: digits.padEnd(keep, '0'), exp };
  let n = BigInt(digits.slice(0, keep) || '0');
  if (digits[keep]! >= '5') n += 1n;
  if (n === 0n) return { digits: '0'.repeat(keep), exp };
  const text = n.toString().padStart(keep, '0');
  return text.length > keep ? { digits: text, exp: exp + 1 } : { digits: text, exp };
}

/** `%f`: fixed notation with `precision` fraction digits. */
function fixed(x: number, precision: number): string {
  if (x === 0) return precision === 0 ? '0' : `0.${'0'.repeat(precision)}`;
  const { digits, exp } = decimalDigits(x);
  const r = roundDigits(digits, exp, exp + precision);
  const all = r.digits.padStart(Math.max(r.exp, 0) + precision, '0');
  // The digits stand for 0.digits × 10^exp: all of them are before the point but `precision`.
  const cut = all.length - precision;
  const int = all.slice(0, cut).replace(/^0+(?=\d)/, '') || '0';
  return precision === 0 ? int : `${int}.${all.slice(cut)}`;
}

/** `%e`: one digit, `precision` fraction digits and a two-digit (at least) signed exponent. */
function scientific(x: number, precision: number): string {
  if (x === 0) return `${precision === 0 ? '0' : `0.${'0'.repeat(precision)}`}e+00`;
  const { digits, exp } = decimalDigits(x);
  const r = roundDigits(digits, exp, precision + 1);
  const e = r.exp - 1;
  const mantissa = precision === 0 ? r.digits[0]! : `${r.digits[0]}.${r.digits.slice(1, precision + 1)}`;
  return `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
}

/** `%g`: `precision` significant digits, fixed between 10^-4 and 10^precision, scientific otherwise. */
function general(x: number, precision: number): string {
  const p = precision === 0 ? 1 : precision;
  if (x === 0) return fixed(0, p - 1);
  const { digits, exp } = decimalDigits(x);
  const r = roundDigits(digits, exp, p);
  const magnitude = r.exp - 1;
  if (magnitude >= -4 && magnitude < p) return fixed(x, p - 1 - magnitude);
  return scientific(x, p - 1);
}

/** Formats one non-null numeric argument for `d o x e f g`. */
function formatNumber(spec: Spec, arg: FormatArg): string {
  const c = spec.conversion.toLowerCase();
  const v = arg.value as number;
  if (c === 'd') return signed(v < 0, String(Math.abs(v)), spec, true);
  if (c === 'o' || c === 'x') {
    const bits = JAVA_INTEGER.has(arg.type.root) ? 32 : 64;
    const text = BigInt.asUintN(bits, BigInt(v)).toString(c === 'o' ? 8 : 16);
    const prefixed = spec.flags.includes('#') ? (c === 'o' ? `0${text}` : `0x${text}`) : text;
    const padded = spec.flags.includes('0') && spec.width !== undefined ? prefixed.padStart(spec.width, '0') : prefixed;
    return justify(padded, spec);
  }
  if (!Number.isFinite(v)) {
    const text = Number.isNaN(v) ? 'NaN' : 'Infinity';
    return justify(Number.isNaN(v) ? text : v < 0 ? (spec.flags.includes('(') ? `(${text})` : `-${text}`) : spec.flags.includes('+') ? `+${text}` : text, spec);
  }
  const precision = spec.precision ?? 6;
  const abs = Math.abs(v);
  const text = c === 'f' ? fixed(abs, precision) : c === 'e' ? scientific(abs, precision) : general(abs, precision);
  return signed(v < 0 || Object.is(v, -0), text, spec, c !== 'e');
}

/** Formats one specification. */
function formatSpec(spec: Spec, arg: FormatArg | undefined): string {
  const c = spec.conversion;
  if (c === '%') return justify('%', spec);
  if (c === 'n') return '\n';
  const a = arg!;
  const lower = c.toLowerCase();
  let text: string;
  if (lower === 'b') text = a.value === null ? 'false' : a.type.root === 'BOOLEAN' ? String(a.value) : 'true';
  else if (lower === 's') text = javaToString(a);
  else if (a.value === null) text = 'null';
  else if (lower === 'c') text = String.fromCodePoint(a.value as number);
  else return upper(formatNumber(spec, a), c);
  if ((lower === 'b' || lower === 's') && spec.precision !== undefined) text = [...text].slice(0, spec.precision).join('');
  return upper(justify(text, spec), c);
}

function upper(text: string, conversion: string): string {
  return conversion !== conversion.toLowerCase() ? text.toUpperCase() : text;
}

/**
 * Checks a format against the argument types, as far as Java would reject it for any values.
 *
 * @throws JavaFormatError naming what Java's Formatter throws.
 */
export function checkJavaFormat(format: string, types: readonly LogicalType[]): void {
  const args = types.map((type) => ({ value: null, type }));
  walk(format, args, () => '');
}

/**
 * `String.format(Locale.US, format, args…)`.
 *
 * @throws JavaFormatError naming what Java's Formatter throws.
 */
export function javaFormat(format: string, args: readonly FormatArg[]): string {
  return walk(format, args, formatSpec);
}

function walk(format: string, args: readonly FormatArg[], render: (spec: Spec, arg: FormatArg | undefined) => string): string {
  let out = '';
  let ordinary = 0;
  let last: FormatArg | undefined;
  for (const part of parseFormat(format)) {
    if (typeof part === 'string') {
      out += part;
      continue;
    }
    let arg: FormatArg | undefined;
    if (part.conversion !== '%' && part.conversion !== 'n') {
      if (part.index === -1) {
        if (last === undefined) throw new JavaFormatError(`MissingFormatArgumentException: Format specifier '${part.text}'`);
        arg = last;
      } else {
        arg = args[part.index === 0 ? ordinary++ : part.index - 1];
      }
      last = arg;
    }
    checkSpec(part, arg);
    out += render(part, arg);
  }
  return out;
}
