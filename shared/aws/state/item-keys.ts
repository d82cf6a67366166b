/**
 * Partition and sort keys of state items, and their inverse.
 *
 * - `pk` = `<operatorId>#<keyGroup>#<encoded key>`. The key group (shared/partition/key-groups.ts)
 *   comes from the key's hash, never from a shard id, so a key's state is found again after
 *   Kinesis splits or merges shards.
 * - `sk` = `<stateName>` for a value state, `<stateName>#<escaped sub-key>` for a map or
 *   sorted-map entry, and `<entry sk>#~chunk#<n>` for the chunks of a value too large for one
 *   item (see item-codec.ts).
 *
 * Sub-keys are escaped by doubling every `~`. Doubling one character keeps string order (the
 * images `~~` and every other single character form a prefix-free, order-preserving code), so
 * sorted-map entries still sort in DynamoDB as they do in memory; and because an escaped sub-key
 * has no lone `~`, no entry's sort key can end in `#~chunk#<n>` — chunk items are recognisable
 * from the sort key alone.
 *
 * DynamoDB keys must be valid UTF-8 and at most 2048 (pk) / 1024 (sk) bytes. A key or sub-key
 * that is too long, or holds a lone UTF-16 surrogate (which UTF-8 cannot carry: the SDK would
 * turn it into U+FFFD and merge distinct keys), is replaced by `~h:` + SHA-256 in base64url.
 * Plain keys never start with `~` (a key that does is hashed too) and escaped sub-keys never
 * hold a lone `~`, so hashed and plain forms cannot collide. A hashed sub-key is kept, as JSON
 * text, in attribute `k` so the entry can be read back.
 */
import { createHash } from 'node:crypto';
import { FlambdaError } from '../../core/errors.ts';
import {
  CHUNK_INFIX,
  HASH_KEY_ABOVE_BYTES,
  HASH_SUB_KEY_ABOVE_BYTES,
  KEY_SEPARATOR,
  MAX_OPERATOR_ID_LENGTH,
  MAX_STATE_NAME_LENGTH,
} from './constants.ts';

const HASH_PREFIX = '~h:';
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const CHUNK_SUFFIX = /#~chunk#(\d{1,15})$/;
const TILDE = /~/g;
const DOUBLE_TILDE = /~~/g;
const LONE_TILDE = /(?:^|[^~])(?:~~)*~(?!~)/;

function digest(text: string): string {
  return HASH_PREFIX + createHash('sha256').update(text, 'utf8').digest('base64url');
}

function needsHash(text: string, maxBytes: number): boolean {
  // A UTF-16 string of n code units takes at most 3n UTF-8 bytes: skip the count when short.
  if (text.length * 3 > maxBytes && Buffer.byteLength(text, 'utf8') > maxBytes) return true;
  return LONE_SURROGATE.test(text);
}

/**
 * Throws unless `operatorId` can be part of a partition key: non-empty, at most
 * {@link MAX_OPERATOR_ID_LENGTH} characters, no `#` (which would make `pk` ambiguous).
 */
export function checkOperatorId(operatorId: string): void {
  if (operatorId.length === 0 || operatorId.length > MAX_OPERATOR_ID_LENGTH || operatorId.includes(KEY_SEPARATOR) || LONE_SURROGATE.test(operatorId)) {
    throw new FlambdaError(
      `Operator id ${JSON.stringify(operatorId)} cannot name DynamoDB state: it must be 1..${MAX_OPERATOR_ID_LENGTH} characters without '#'`,
      'internal',
      'fail',
    );
  }
}

/**
 * Throws unless `name` can be part of a sort key: non-empty, at most
 * {@link MAX_STATE_NAME_LENGTH} characters, no `#` (the separator before the sub-key).
 */
export function checkStateName(name: string): void {
  if (name.length === 0 || name.length > MAX_STATE_NAME_LENGTH || name.includes(KEY_SEPARATOR) || LONE_SURROGATE.test(name)) {
    throw new FlambdaError(
      `State name ${JSON.stringify(name)} cannot be stored in DynamoDB: it must be 1..${MAX_STATE_NAME_LENGTH} characters without '#'`,
      'internal',
      'fail',
    );
  }
}

/** The partition key of one key's state for one operator: `<operatorId>#<keyGroup>#<key>`. */
export function partitionKey(operatorId: string, keyGroup: number, key: string): string {
  const stored = key.charCodeAt(0) === 0x7e || needsHash(key, HASH_KEY_ABOVE_BYTES) ? digest(key) : key;
  return operatorId + KEY_SEPARATOR + String(keyGroup) + KEY_SEPARATOR + stored;
}

/** The sort key of a value state's item. */
export function valueSortKey(stateName: string): string {
  return stateName;
}

/** Where a map entry is stored: its sort key, and the sub-key for attribute `k` when hashed. */
export interface EntrySortKey {
  readonly sk: string;
  /** The sub-key as JSON text when `sk` holds its digest; undefined when `sk` spells it out. */
  readonly storedSubKey: string | undefined;
}

/** The sort key of a map or sorted-map entry: `<stateName>#<escaped sub-key>`, or a digest. */
export function mapSortKey(stateName: string, subKey: string): EntrySortKey {
  const escaped = subKey.includes('~') ? subKey.replace(TILDE, '~~') : subKey;
  if (needsHash(escaped, HASH_SUB_KEY_ABOVE_BYTES)) {
    return { sk: stateName + KEY_SEPARATOR + digest(subKey), storedSubKey: JSON.stringify(subKey) };
  }
  return { sk: stateName + KEY_SEPARATOR + escaped, storedSubKey: undefined };
}

/** The sort key of chunk `index` of the entry stored at `sk`. */
export function chunkSortKey(sk: string, index: number): string {
  return sk + CHUNK_INFIX + String(index);
}

/** What a sort key read back from DynamoDB denotes. */
export type ParsedSortKey =
  | { readonly kind: 'chunk'; readonly entrySk: string; readonly index: number }
  | { readonly kind: 'value'; readonly stateName: string }
  | { readonly kind: 'map'; readonly stateName: string; readonly subKey: string };

/**
 * Parses a sort key. `storedSubKey` is attribute `k` of the item, if any.
 *
 * @throws FlambdaError for a sort key this module cannot have written.
 */
export function parseSortKey(sk: string, storedSubKey: string | undefined): ParsedSortKey {
  const chunk = CHUNK_SUFFIX.exec(sk);
  if (chunk !== null) return { kind: 'chunk', entrySk: sk.slice(0, chunk.index), index: Number(chunk[1]) };
  const at = sk.indexOf(KEY_SEPARATOR);
  if (at < 0) return { kind: 'value', stateName: sk };
  const stateName = sk.slice(0, at);
  if (storedSubKey !== undefined) {
    const subKey: unknown = JSON.parse(storedSubKey);
    if (typeof subKey === 'string') return { kind: 'map', stateName, subKey };
  } else {
    const escaped = sk.slice(at + 1);
    if (!LONE_TILDE.test(escaped)) return { kind: 'map', stateName, subKey: escaped.replace(DOUBLE_TILDE, '~') };
  }
  throw new FlambdaError(`State item with sort key ${JSON.stringify(sk)} is malformed`, 'internal', 'fail');
}
