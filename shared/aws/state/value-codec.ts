/**
 * State values as JSON text, lossless for Flambda's plain-data values.
 *
 * JSON cannot hold a bigint (DECIMAL accumulators), NaN, ±Infinity (DOUBLE sums), -0 or an
 * `undefined` array slot, so those are written as one-key tag objects:
 *
 * | value                 | JSON                          |
 * |-----------------------|-------------------------------|
 * | `123n`                | `{"$bigint":"123"}` (as the job graph writes DECIMAL literals) |
 * | `NaN`, `-Infinity`, `-0` | `{"$number":"NaN"}` …      |
 * | `undefined` (in an array or object) | `{"$undefined":1}` |
 * | a plain object whose only key starts with `$` | `{"$object":[["$key", value]]}` |
 *
 * The last row keeps the tagging injective: user data that merely looks like a tag is wrapped,
 * so decoding never mistakes it for one. Objects must be plain (`{}` or null prototype) and
 * arrays real arrays; a Map, Set, Date or class instance would silently lose data in JSON, so it
 * is rejected instead. Decoding skips the tag walk entirely when the text holds no `"$`, which
 * is the common case.
 */
import { FlambdaError } from '../../core/errors.ts';

const BIGINT_TAG = '$bigint';
const NUMBER_TAG = '$number';
const UNDEFINED_TAG = '$undefined';
const OBJECT_TAG = '$object';
const DOLLAR = 36;

/** Thrown for a value JSON cannot carry faithfully (Map, Set, Date, class instance, function). */
export class UnsupportedValueError extends FlambdaError {
  constructor(message: string) {
    super(message, 'internal', 'fail');
  }
}

function describe(value: unknown): string {
  if (typeof value === 'object' && value !== null) {
    const name = (Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null)?.constructor?.name;
    return `a ${name ?? 'non-plain object'}`;
  }
  return `a ${typeof value}`;
}

function replacer(this: unknown, key: string, value: unknown): unknown {
  switch (typeof value) {
    case 'number':
      if (Number.isFinite(value)) return value === 0 && Object.is(value, -0) ? { [NUMBER_TAG]: '-0' } : value;
      return { [NUMBER_TAG]: String(value) };
    case 'string': {
      // toJSON already ran: a Date (or anything with toJSON) arrives here as a string.
      const raw = (this as Record<string, unknown>)[key];
      if (typeof raw === 'object' && raw !== null) throw new UnsupportedValueError(`State values must be plain data; got ${describe(raw)}`);
      return value;
    }
    case 'bigint':
      return { [BIGINT_TAG]: value.toString() };
    case 'boolean':
      return value;
    case 'undefined':
      return { [UNDEFINED_TAG]: 1 };
    case 'object': {
      if (value === null || Array.isArray(value)) return value;
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        throw new UnsupportedValueError(`State values must be plain data; got ${describe(value)}`);
      }
      let count = 0;
      let only = '';
      for (const k in value) {
        if (count++ > 0) break;
        only = k;
      }
      if (count === 1 && only.charCodeAt(0) === DOLLAR) {
        return { [OBJECT_TAG]: [[only, (value as Record<string, unknown>)[only]]] };
      }
      return value;
    }
    default:
      throw new UnsupportedValueError(`State values must be plain data; got ${describe(value)}`);
  }
}

/**
 * Encodes a state value as JSON text (see the module header for the tags).
 *
 * @throws UnsupportedValueError for values JSON cannot carry (Map, Set, Date, class instances,
 * functions, symbols).
 */
export function encodeValue(value: unknown): string {
  const text = JSON.stringify(value, replacer) as string | undefined;
  if (text === undefined) throw new UnsupportedValueError(`State values must be plain data; got ${describe(value)}`);
  return text;
}

/**
 * Decodes text written by {@link encodeValue}.
 *
 * @throws SyntaxError for text that is not JSON; FlambdaError for an unknown tag.
 */
export function decodeValue(text: string): unknown {
  const parsed: unknown = JSON.parse(text);
  return text.includes('"$') ? revive(parsed) : parsed;
}

/** Assigns an own property; a plain `obj[k] = v` with k = "__proto__" would set the prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

function revive(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'object' && item !== null) value[i] = revive(item);
    }
    return value;
  }
  const record = value as Record<string, unknown>;
  let count = 0;
  let only = '';
  for (const k in record) {
    if (count++ > 0) break;
    only = k;
  }
  if (count === 1 && only.charCodeAt(0) === DOLLAR) return reviveTag(only, record[only]);
  for (const k in record) {
    const item = record[k];
    if (typeof item === 'object' && item !== null) setOwn(record, k, revive(item));
  }
  return record;
}

function reviveTag(tag: string, payload: unknown): unknown {
  switch (tag) {
    case BIGINT_TAG:
      if (typeof payload === 'string') return BigInt(payload);
      break;
    case NUMBER_TAG:
      if (payload === '-0') return -0;
      if (payload === 'NaN' || payload === 'Infinity' || payload === '-Infinity') return Number(payload);
      break;
    case UNDEFINED_TAG:
      return undefined;
    case OBJECT_TAG:
      if (Array.isArray(payload) && payload.length === 1 && Array.isArray(payload[0]) && typeof payload[0][0] === 'string') {
        const out: Record<string, unknown> = {};
        setOwn(out, payload[0][0], revive(payload[0][1]));
        return out;
      }
      break;
  }
  throw new FlambdaError(`Stored state value holds an unknown or malformed tag '${tag}'`, 'internal', 'fail');
}
