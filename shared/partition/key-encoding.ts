/**
 * The canonical key encoding: a list of key values → one string, used as the Kinesis partition
 * key input (so equal keys land on the same shard) and as the state key (so equal keys share
 * state). It must be deterministic and injective, and it is on the per-record path.
 *
 * Layout: one field after another, each a type tag followed by its payload.
 *
 * | value                  | not last field        | last field      |
 * |------------------------|-----------------------|-----------------|
 * | null                   | `N`                   | `N`             |
 * | true / false           | `T` / `F`             | `T` / `F`       |
 * | number                 | `n` String(x) `;`     | `n` String(x)   |
 * | bigint (DECIMAL)       | `d` String(x) `;`     | `d` String(x)   |
 * | string                 | `s` length `:` text   | `S` text        |
 * | array (ARRAY)          | `a` length `:` key    | the same        |
 * | object (ROW, MAP)      | `o` length `:` key    | the same        |
 *
 * A nested value's payload is the encoded key of its elements (an object's: key, value, …
 * with the keys sorted, so equal MAPs built in different orders are one key), prefixed with
 * its length like a non-last string.
 *
 * Every field can be read back without knowing where it ends: number and bigint text never
 * contains `;`, a non-last string carries its UTF-16 length, and the last string runs to the
 * end — which keeps the common single-string key a plain `S` + text with no scanning or
 * escaping. `decodeKey` is the inverse, so the encoding is injective.
 *
 * Numbers follow SQL equality: -0 encodes as 0 (String(-0) is "0"), and all NaNs are one key.
 * String(x) is otherwise exact: it prints the shortest text that reads back as the same double.
 * The empty list (a global aggregate) encodes as the empty string.
 */
import { FlambdaError } from '../core/errors.ts';
import type { Value } from '../core/types.ts';

export { compareValues, encodeSortKey } from './sort-key.ts';
export type { SortDirection } from './sort-key.ts';

/** Encodes key values; see the module header for the layout. */
export function encodeKey(values: readonly Value[]): string {
  const n = values.length;
  if (n === 1) return encodeLastField(values[0] as Value);
  if (n === 0) return '';
  let out = '';
  for (let i = 0; i < n - 1; i++) out += encodeField(values[i] as Value);
  return out + encodeLastField(values[n - 1] as Value);
}

/** Encodes a field that another field follows. */
function encodeField(value: Value): string {
  switch (typeof value) {
    case 'number':
      return 'n' + String(value) + ';';
    case 'string':
      return 's' + String(value.length) + ':' + value;
    case 'bigint':
      return 'd' + value.toString() + ';';
    case 'boolean':
      return value ? 'T' : 'F';
    default:
      if (value === null) return 'N';
      return encodeNested(value);
  }
}

/** An ARRAY, ROW or MAP value: `a`/`o`, the payload's length, `:`, the payload. */
function encodeNested(value: unknown): string {
  if (Array.isArray(value)) {
    const inner = encodeKey(value as Value[]);
    return 'a' + String(inner.length) + ':' + inner;
  }
  if (typeof value === 'object' && value !== null) {
    const record = value as Readonly<Record<string, Value>>;
    const flat: Value[] = [];
    for (const k of Object.keys(record).sort()) flat.push(k, record[k] as Value);
    const inner = encodeKey(flat);
    return 'o' + String(inner.length) + ':' + inner;
  }
  throw notAValue(value);
}

/** Encodes the last field: strings, numbers and bigints need no delimiter there. */
function encodeLastField(value: Value): string {
  switch (typeof value) {
    case 'number':
      return 'n' + String(value);
    case 'string':
      return 'S' + value;
    case 'bigint':
      return 'd' + value.toString();
    case 'boolean':
      return value ? 'T' : 'F';
    default:
      if (value === null) return 'N';
      return encodeNested(value);
  }
}

/**
 * Reads an encoded key back into its values (-0 comes back as 0). Operators use it to recover
 * key columns from a state key, e.g. when a timer fires. Throws on text `encodeKey` cannot
 * produce.
 */
export function decodeKey(encoded: string): Value[] {
  const values: Value[] = [];
  const length = encoded.length;
  let i = 0;
  while (i < length) {
    const tag = encoded[i++];
    switch (tag) {
      case 'N':
        values.push(null);
        break;
      case 'T':
      case 'F':
        values.push(tag === 'T');
        break;
      case 'n':
      case 'd': {
        const semicolon = encoded.indexOf(';', i);
        if (semicolon === length - 1) throw malformed(encoded, 'a field separator ends the key');
        const end = semicolon < 0 ? length : semicolon;
        const text = encoded.slice(i, end);
        values.push(tag === 'n' ? parseNumber(text, encoded) : parseBigInt(text, encoded));
        i = semicolon < 0 ? length : semicolon + 1;
        break;
      }
      case 'S':
        values.push(encoded.slice(i));
        i = length;
        break;
      case 's': {
        const colon = encoded.indexOf(':', i);
        const digits = colon < 0 ? '' : encoded.slice(i, colon);
        if (!/^(0|[1-9][0-9]*)$/.test(digits)) throw malformed(encoded, 'bad string length');
        const end = colon + 1 + Number(digits);
        // A non-last string is always followed by another field.
        if (end >= length) throw malformed(encoded, 'string length runs past the key');
        values.push(encoded.slice(colon + 1, end));
        i = end;
        break;
      }
      case 'a':
      case 'o': {
        const colon = encoded.indexOf(':', i);
        const digits = colon < 0 ? '' : encoded.slice(i, colon);
        if (!/^(0|[1-9][0-9]*)$/.test(digits)) throw malformed(encoded, 'bad nested length');
        const end = colon + 1 + Number(digits);
        if (end > length) throw malformed(encoded, 'nested value runs past the key');
        const inner = decodeKey(encoded.slice(colon + 1, end));
        if (tag === 'a') {
          values.push(inner);
        } else {
          if (inner.length % 2 !== 0) throw malformed(encoded, 'an object needs key, value pairs');
          const record: Record<string, Value> = {};
          for (let k = 0; k < inner.length; k += 2) {
            const key = inner[k];
            if (typeof key !== 'string') throw malformed(encoded, 'an object key is not a string');
            Object.defineProperty(record, key, { value: inner[k + 1] as Value, enumerable: true, writable: true, configurable: true });
          }
          values.push(record);
        }
        i = end;
        break;
      }
      default:
        throw malformed(encoded, `unknown type tag ${JSON.stringify(tag)} at ${i - 1}`);
    }
  }
  return values;
}

/** Parses number text written by String(x), rejecting any other spelling. */
function parseNumber(text: string, encoded: string): number {
  const value = Number(text);
  if (text === '' || String(value) !== text) throw malformed(encoded, `bad number ${JSON.stringify(text)}`);
  return value;
}

/** Parses bigint text written by toString(), rejecting any other spelling. */
function parseBigInt(text: string, encoded: string): bigint {
  if (!/^-?(0|[1-9][0-9]*)$/.test(text) || text === '-0') {
    throw malformed(encoded, `bad decimal ${JSON.stringify(text)}`);
  }
  return BigInt(text);
}

function malformed(encoded: string, reason: string): FlambdaError {
  return new FlambdaError(`malformed encoded key ${JSON.stringify(encoded)}: ${reason}`, 'internal', 'fail');
}

function notAValue(value: unknown): FlambdaError {
  return new FlambdaError(`key value of type ${typeof value} is not a Flambda value`, 'internal', 'fail');
}
