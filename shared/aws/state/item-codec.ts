/**
 * State entries ⇄ DynamoDB items, including values split across chunk items.
 *
 * An entry (one value-state value, or one map entry) whose item fits in DynamoDB's 400 KB item
 * limit is one item with the JSON in `v`. A larger one becomes a head item (`cf` = first chunk
 * index, `cn` = chunk count) plus chunk items `<sk>#~chunk#<n>`, each holding a slice of the
 * value's UTF-8 JSON as binary (slicing bytes, not UTF-16 units, so no chunk can split a
 * character; binary, so no slice has to be valid UTF-8).
 *
 * Chunk indices are never reused while a head may point at them, so a reader sees either the
 * old value or the new one, whatever happens between the writes (there are no transactions on
 * this path: BatchWriteItem is not atomic, and dynalite has no TransactWriteItems):
 *
 * ```
 *  old head → chunks 0..2         write of a new value (store.flush)
 *  ─────────────────────────────────────────────────────────────────────────────────────
 *  phase 1  put chunks 3..6       crash here: head still → 0..2, intact; 3..6 are orphans
 *  phase 2  put head → 3..6       crash here: head → 3..6, intact; 0..2 are orphans
 *  phase 3  delete chunks 0..2    orphans found by a later load are deleted at its next flush
 * ```
 */
import type { AttributeValue, WriteRequest } from '@aws-sdk/client-dynamodb';
import { FlambdaError } from '../../core/errors.ts';
import { ATTR, CHUNK_BYTES, MAX_ITEM_BYTES, MAX_NUMBER_BYTES } from './constants.ts';
import { chunkSortKey, parseSortKey } from './item-keys.ts';
import type { ParsedSortKey } from './item-keys.ts';

/** A DynamoDB item in the low-level attribute-value form. */
export type Item = Record<string, AttributeValue>;

/** A contiguous range of chunk indices. */
export interface ChunkRange {
  readonly first: number;
  readonly count: number;
}

/**
 * What DynamoDB holds (or may hold) for one entry. Present in the store's bookkeeping exactly
 * when a head or inline item may exist.
 */
export interface StoredInfo {
  /** Estimated size of the entry's items, for the cache's byte bound. */
  bytes: number;
  /** The chunks the head points to; undefined for an inline value, or when unknown. */
  chunks: ChunkRange | undefined;
  /** The first chunk index no head of this entry can point to. */
  nextChunk: number;
}

/** The TTL attributes of an entry of a state with TTL. */
export interface TtlStamp {
  /** Last write (or refreshing read), epoch ms: what expiry is computed from on read. */
  readonly writeTime: number;
  /** Epoch seconds after which DynamoDB TTL may delete the item. */
  readonly expiresAt: number;
}

/** The items of one entry to write. */
export interface EntryWrite {
  /** Chunk puts, to be acknowledged before {@link EntryWrite.head} is written. */
  readonly chunkPuts: WriteRequest[];
  /** The head (or only) item. */
  readonly head: WriteRequest;
  /** The chunks the head points to, if chunked. */
  readonly chunks: ChunkRange | undefined;
  /** Estimated size of all the items. */
  readonly bytes: number;
}

/** What to write for one entry. */
export interface EntryWriteInput {
  readonly pk: string;
  readonly sk: string;
  /** Attribute `k`: the sub-key as JSON text, when `sk` holds its digest. */
  readonly storedSubKey: string | undefined;
  /** The value as written by value-codec.ts. */
  readonly json: string;
  readonly ttl: TtlStamp | undefined;
  readonly ttlAttribute: string;
  /** The index of the first chunk, should the value need chunks. */
  readonly firstChunk: number;
}

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8');

/** Whether a string's UTF-8 form fits in `limit` bytes; counts only when 3 bytes per unit might not. */
function fitsIn(text: string, limit: number): boolean {
  return text.length * 3 <= limit || utf8(text) <= limit;
}

/**
 * Builds the items of one entry: one inline item when it fits in {@link MAX_ITEM_BYTES}, else a
 * head and chunks starting at `firstChunk`.
 *
 * @throws FlambdaError when even a head without its value would exceed the item limit (a
 * sub-key of hundreds of KB).
 */
export function buildEntryItems(input: EntryWriteInput): EntryWrite {
  const { pk, sk, storedSubKey, json, ttl, ttlAttribute } = input;
  let fixed =
    ATTR.pk.length + utf8(pk) + ATTR.sk.length + utf8(sk) + (storedSubKey === undefined ? 0 : ATTR.subKey.length + utf8(storedSubKey));
  if (ttl !== undefined) fixed += ATTR.writeTime.length + utf8(ttlAttribute) + 2 * MAX_NUMBER_BYTES;
  const head: Item = { [ATTR.pk]: { S: pk }, [ATTR.sk]: { S: sk } };
  if (storedSubKey !== undefined) head[ATTR.subKey] = { S: storedSubKey };
  if (ttl !== undefined) {
    head[ATTR.writeTime] = { N: String(ttl.writeTime) };
    head[ttlAttribute] = { N: String(ttl.expiresAt) };
  }
  const room = MAX_ITEM_BYTES - fixed - ATTR.value.length;
  if (fitsIn(json, room)) {
    head[ATTR.value] = { S: json };
    // The estimate counts UTF-16 units, exact for ASCII, without scanning the text again.
    return { chunkPuts: [], head: { PutRequest: { Item: head } }, chunks: undefined, bytes: fixed + ATTR.value.length + json.length };
  }
  fixed += ATTR.chunkFirst.length + ATTR.chunkCount.length + 2 * MAX_NUMBER_BYTES;
  if (fixed > MAX_ITEM_BYTES) {
    throw new FlambdaError(`State entry ${JSON.stringify(sk)} has a sub-key too large for a DynamoDB item (${fixed} bytes)`, 'internal', 'fail');
  }
  const bytes = Buffer.from(json, 'utf8');
  const count = Math.ceil(bytes.length / CHUNK_BYTES);
  const first = input.firstChunk;
  head[ATTR.chunkFirst] = { N: String(first) };
  head[ATTR.chunkCount] = { N: String(count) };
  const chunkPuts: WriteRequest[] = [];
  let total = fixed;
  for (let i = 0; i < count; i++) {
    const slice = bytes.subarray(i * CHUNK_BYTES, Math.min(bytes.length, (i + 1) * CHUNK_BYTES));
    const chunkSk = chunkSortKey(sk, first + i);
    const chunk: Item = { [ATTR.pk]: { S: pk }, [ATTR.sk]: { S: chunkSk }, [ATTR.chunkData]: { B: slice } };
    // Chunks expire with their head, so DynamoDB TTL removes them too (the head decides on read).
    if (ttl !== undefined) chunk[ttlAttribute] = { N: String(ttl.expiresAt) };
    total += ATTR.pk.length + utf8(pk) + ATTR.sk.length + utf8(chunkSk) + ATTR.chunkData.length + slice.length;
    chunkPuts.push({ PutRequest: { Item: chunk } });
  }
  return { chunkPuts, head: { PutRequest: { Item: head } }, chunks: { first, count }, bytes: total };
}

/** A DeleteRequest for one item. */
export function deleteRequest(pk: string, sk: string): WriteRequest {
  return { DeleteRequest: { Key: { [ATTR.pk]: { S: pk }, [ATTR.sk]: { S: sk } } } };
}

/**
 * DynamoDB's item size of an item as we write it: UTF-8 names and strings, binary lengths, and
 * numbers at their 21-byte maximum. Used by tests to check the 400 KB limit and by the cache to
 * estimate bytes.
 */
export function itemBytes(item: Item): number {
  let size = 0;
  for (const name in item) {
    const value = item[name]!;
    size += utf8(name);
    if (value.S !== undefined) size += utf8(value.S);
    else if (value.B !== undefined) size += value.B.length;
    else if (value.N !== undefined) size += MAX_NUMBER_BYTES;
    else size += 1;
  }
  return size;
}

/** One entry read back from DynamoDB. */
export interface LoadedEntry {
  readonly sk: string;
  readonly stateName: string;
  /** The map sub-key; undefined for a value state's item. */
  readonly subKey: string | undefined;
  /** The value's JSON; undefined when chunks the head points to are missing. */
  readonly json: string | undefined;
  /** Attribute `wt`, if present. */
  readonly writeTime: number | undefined;
  /** The TTL attribute, if present. */
  readonly expiresAt: number | undefined;
  readonly info: StoredInfo;
}

/** All entries of one key, as loaded by one (paginated) Query. */
export interface LoadedKey {
  readonly entries: LoadedEntry[];
  /** Chunk items no head points to, by entry sort key: deleted at the next flush. */
  readonly garbage: Map<string, Set<number>> | undefined;
  /** Estimated size of all items. */
  readonly bytes: number;
}

function numberAttr(item: Item, name: string): number | undefined {
  const n = item[name]?.N;
  return n === undefined ? undefined : Number(n);
}

function corrupt(pk: string, sk: string, detail: string): FlambdaError {
  return new FlambdaError(`State item (${JSON.stringify(pk)}, ${JSON.stringify(sk)}) is malformed: ${detail}`, 'internal', 'fail');
}

/**
 * Groups the items of one partition key into entries, reassembling chunked values and noting
 * chunk items that no head points to.
 *
 * @throws FlambdaError for an item this module cannot have written.
 */
export function parseItems(pk: string, items: readonly Item[], ttlAttribute: string): LoadedKey {
  const heads: { item: Item; sk: string; parsed: Exclude<ParsedSortKey, { kind: 'chunk' }> }[] = [];
  const chunks = new Map<string, Map<number, Uint8Array>>();
  /** Item sizes by entry sort key (head plus chunks). */
  const sizes = new Map<string, number>();
  let bytes = 0;
  for (const item of items) {
    const size = itemBytes(item);
    bytes += size;
    const sk = item[ATTR.sk]?.S;
    if (sk === undefined) throw corrupt(pk, '?', 'no sort key');
    const parsed = parseSortKey(sk, item[ATTR.subKey]?.S);
    const entrySk = parsed.kind === 'chunk' ? parsed.entrySk : sk;
    sizes.set(entrySk, (sizes.get(entrySk) ?? 0) + size);
    if (parsed.kind !== 'chunk') {
      heads.push({ item, sk, parsed });
      continue;
    }
    const data = item[ATTR.chunkData]?.B;
    if (data === undefined) throw corrupt(pk, sk, 'a chunk item without data');
    let ofEntry = chunks.get(parsed.entrySk);
    if (ofEntry === undefined) chunks.set(parsed.entrySk, (ofEntry = new Map()));
    ofEntry.set(parsed.index, data);
  }
  const entries: LoadedEntry[] = [];
  for (const { item, sk, parsed } of heads) {
    const writeTime = numberAttr(item, ATTR.writeTime);
    const expiresAt = numberAttr(item, ttlAttribute);
    const inline = item[ATTR.value]?.S;
    let json: string | undefined;
    let range: ChunkRange | undefined;
    if (inline !== undefined) {
      json = inline;
    } else {
      const first = numberAttr(item, ATTR.chunkFirst);
      const count = numberAttr(item, ATTR.chunkCount);
      if (first === undefined || count === undefined) throw corrupt(pk, sk, 'neither a value nor chunks');
      range = { first, count };
      const ofEntry = chunks.get(sk);
      const parts: Uint8Array[] = [];
      for (let i = first; i < first + count; i++) {
        const part = ofEntry?.get(i);
        if (part === undefined) break;
        parts.push(part);
        ofEntry!.delete(i);
      }
      json = parts.length === count ? Buffer.concat(parts).toString('utf8') : undefined;
      if (ofEntry !== undefined && ofEntry.size === 0) chunks.delete(sk);
    }
    entries.push({
      sk,
      stateName: parsed.stateName,
      subKey: parsed.kind === 'map' ? parsed.subKey : undefined,
      json,
      writeTime,
      expiresAt,
      info: { bytes: sizes.get(sk) ?? 0, chunks: range, nextChunk: range === undefined ? 0 : range.first + range.count },
    });
  }
  // Whatever chunks are left belong to no head: leftovers of an interrupted write.
  let garbage: Map<string, Set<number>> | undefined;
  for (const [sk, ofEntry] of chunks) {
    garbage ??= new Map();
    garbage.set(sk, new Set(ofEntry.keys()));
  }
  return { entries, garbage, bytes };
}
