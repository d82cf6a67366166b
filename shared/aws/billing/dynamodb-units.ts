/**
 * What DynamoDB bills: item sizes and the read and write units of each kind of request, from
 * the documented rules (Amazon DynamoDB Developer Guide, "Item sizes and formats" and "Read and
 * write operations" / "Capacity unit consumption"). On-demand tables bill the same units
 * (read and write request units) that provisioned tables consume, so these are the bill's units,
 * whatever the number of requests: a BatchWriteItem of 25 items costs at least 25 write units.
 *
 * Item size = the sum, over its attributes, of the attribute name's UTF-8 bytes plus the value's
 * size:
 *
 * ```
 *  S        UTF-8 bytes                       B     raw bytes (not the base64 text)
 *  N        1 byte + the base-100 digit pairs (see numberSize) + 1 byte if negative
 *  BOOL     1 byte                            NULL  1 byte
 *  SS/NS/BS the sum of the elements' sizes
 *  L / M    3 bytes + per element 1 byte + the element's size (+ its name's bytes, in a map)
 * ```
 *
 * Units:
 *
 * ```
 *  write  ceil(size / 1 KB), at least 1, per item      PutItem: the larger of the old and new item
 *         UpdateItem: the larger of before and after   DeleteItem: the deleted item (1 if none)
 *         BatchWriteItem: each item on its own         failed condition: the existing item (1 if none)
 *  read   ceil(size / 4 KB), at least 1, per item      GetItem / BatchGetItem: per item (1 if none)
 *         Query / Scan: ceil(sum of the items' sizes / 4 KB) per request
 *         eventually consistent: half of that         transactional: twice (writes too)
 * ```
 *
 * Only the shape of the SDK's `AttributeValue` is needed here, so this module has no AWS SDK
 * import and serves any client (the SDK's, a test's, a cost model's).
 */
import { Buffer } from 'node:buffer';

/** Bytes per write unit. */
export const WRITE_UNIT_BYTES = 1024;

/** Bytes per read unit (strongly consistent). */
export const READ_UNIT_BYTES = 4096;

/** A DynamoDB attribute value, as the SDK and the wire format spell it (one member set). */
export interface AttributeValueLike {
  readonly S?: string;
  readonly N?: string;
  /** Raw bytes, or their base64 text as the JSON wire format carries them. */
  readonly B?: Uint8Array | string;
  readonly SS?: readonly string[];
  readonly NS?: readonly string[];
  readonly BS?: readonly (Uint8Array | string)[];
  readonly M?: Readonly<Record<string, AttributeValueLike>>;
  readonly L?: readonly AttributeValueLike[];
  readonly NULL?: boolean;
  readonly BOOL?: boolean;
}

/** An item: attribute name → value. */
export type ItemLike = Readonly<Record<string, AttributeValueLike>>;

/** How a read is made: the consistency decides the price of each 4 KB. */
export type ReadConsistency = 'eventual' | 'strong' | 'transactional';

/** Read units per 4 KB, by consistency. */
const READ_UNIT_FACTOR: Readonly<Record<ReadConsistency, number>> = { eventual: 0.5, strong: 1, transactional: 2 };

function utf8Bytes(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

function binaryBytes(b: Uint8Array | string): number {
  return typeof b === 'string' ? Buffer.from(b, 'base64').length : b.byteLength;
}

/**
 * Bytes of a number value. DynamoDB stores a number's significant digits (leading and trailing
 * zeros trimmed) in pairs aligned on the decimal point — "1 byte per two significant digits" —
 * plus 1 byte of exponent, and 1 more byte for a negative number; zero takes 1 byte. Aligned
 * pairs are why 12 takes 2 bytes and 1.2 takes 3 (`01|20`). This is the encoding dynalite
 * reproduces byte for byte (test/aws/billing/dynamodb-units.test.ts checks ours against it).
 */
export function numberSize(n: string): number {
  const text = n.trim();
  const negative = text.startsWith('-');
  const unsigned = text.replace(/^[+-]/, '');
  const match = /^(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(unsigned);
  if (match === null || (match[1] === '' && (match[2] ?? '') === '')) throw new RangeError(`not a DynamoDB number: ${JSON.stringify(n)}`);
  const intPart = match[1] ?? '';
  const fracPart = match[2] ?? '';
  const exponent = Number(match[3] ?? '0');
  const all = intPart + fracPart;
  const first = all.search(/[1-9]/);
  if (first < 0) return 1;
  const digits = all.replace(/0+$/, '').slice(first);
  // Decimal position of the first significant digit: 10^position.
  const position = intPart.length - 1 - first + exponent;
  // Pairs cover positions (2k+1, 2k); the digits span position .. position - digits + 1.
  const lowest = position - digits.length + 1;
  const pairs = Math.floor(position / 2) - Math.floor(lowest / 2) + 1;
  return 1 + pairs + (negative ? 1 : 0);
}

/** Bytes of one attribute value (without its name). */
export function attributeValueSize(value: AttributeValueLike): number {
  if (value.S !== undefined) return utf8Bytes(value.S);
  if (value.N !== undefined) return numberSize(value.N);
  if (value.B !== undefined) return binaryBytes(value.B);
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS !== undefined) return value.SS.reduce((sum, s) => sum + utf8Bytes(s), 0);
  if (value.NS !== undefined) return value.NS.reduce((sum, s) => sum + numberSize(s), 0);
  if (value.BS !== undefined) return value.BS.reduce((sum, b) => sum + binaryBytes(b), 0);
  if (value.L !== undefined) return value.L.reduce((sum, v) => sum + 1 + attributeValueSize(v), 3);
  if (value.M !== undefined) return Object.entries(value.M).reduce((sum, [name, v]) => sum + 1 + utf8Bytes(name) + attributeValueSize(v), 3);
  throw new RangeError(`attribute value with no type: ${JSON.stringify(value)}`);
}

/** Bytes of an item: attribute names plus values. */
export function itemSize(item: ItemLike): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) size += utf8Bytes(name) + attributeValueSize(value);
  return size;
}

/** Write units of writing one item of `bytes` (1 KB each, rounded up; at least 1). */
export function writeUnits(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / WRITE_UNIT_BYTES));
}

/**
 * Write units of a PutItem (or a put in a BatchWriteItem): the larger of the new item and the
 * item it replaces. `transactional` doubles it (TransactWriteItems).
 */
export function putWriteUnits(newBytes: number, oldBytes: number | undefined, transactional = false): number {
  return writeUnits(Math.max(newBytes, oldBytes ?? 0)) * (transactional ? 2 : 1);
}

/** Write units of an UpdateItem: the larger of the item before and after (before undefined: a new item). */
export function updateWriteUnits(beforeBytes: number | undefined, afterBytes: number, transactional = false): number {
  return writeUnits(Math.max(beforeBytes ?? 0, afterBytes)) * (transactional ? 2 : 1);
}

/** Write units of a DeleteItem (or a delete in a BatchWriteItem): the deleted item's size; 1 when there was none. */
export function deleteWriteUnits(deletedBytes: number | undefined, transactional = false): number {
  return writeUnits(deletedBytes ?? 0) * (transactional ? 2 : 1);
}

/** Write units of a write whose condition failed: the existing item's size; 1 when there is none. */
export function failedConditionWriteUnits(existingBytes: number | undefined): number {
  return writeUnits(existingBytes ?? 0);
}

/** Read units of reading `bytes` at once (4 KB each, rounded up, at least one) with `consistency`. */
export function readUnits(bytes: number, consistency: ReadConsistency): number {
  return Math.max(1, Math.ceil(bytes / READ_UNIT_BYTES)) * READ_UNIT_FACTOR[consistency];
}

/** Read units of a GetItem (or one item of a BatchGetItem); `undefined` when the item does not exist. */
export function getItemReadUnits(itemBytes: number | undefined, consistency: ReadConsistency): number {
  return readUnits(itemBytes ?? 0, consistency);
}

/**
 * Read units of one Query or Scan request: the sizes of the items it read (before any filter)
 * summed, then rounded up to 4 KB. A request that reads nothing is priced as a read of an item
 * that does not exist: one 4 KB unit (half of one when eventually consistent).
 */
export function queryReadUnits(itemBytes: readonly number[], consistency: ReadConsistency): number {
  return readUnits(itemBytes.reduce((sum, b) => sum + b, 0), consistency);
}
