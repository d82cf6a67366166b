/**
 * DynamoDB limits and the attribute names of the state table's items, in one place so the
 * store, the item codec and the tests agree on them.
 *
 * Item layout (single-table design shared by every operator of a pipeline):
 *
 * | attribute | type | on            | meaning                                                     |
 * |-----------|------|---------------|-------------------------------------------------------------|
 * | `pk`      | S    | every item    | `<operatorId>#<keyGroup>#<encoded key>`                      |
 * | `sk`      | S    | every item    | `<state>` (value state) or `<state>#<sub-key>` (map entries) |
 * | `v`       | S    | inline entry  | the value as tagged JSON (see value-codec.ts)                |
 * | `k`       | S    | hashed sk     | the sub-key as JSON text, when the sk holds a hash of it      |
 * | `cf`,`cn` | N    | chunked entry | first chunk index and chunk count of the value               |
 * | `d`       | B    | chunk item    | one slice of the value's UTF-8 JSON                          |
 * | `wt`      | N    | TTL states    | the exact last write (or refreshing read) time, epoch ms     |
 * | `ttl`     | N    | TTL states    | expiry in epoch seconds, for DynamoDB TTL (name configurable) |
 */

/**
 * DynamoDB's maximum item size, 400 KB, counted as the UTF-8 lengths of attribute names plus
 * attribute values ("Service, account, and table quotas in Amazon DynamoDB": Item size).
 */
export const MAX_ITEM_BYTES = 400 * 1024;

/** BatchWriteItem accepts at most 25 put or delete requests per call. */
export const MAX_BATCH_WRITE_ITEMS = 25;

/** DynamoDB's maximum partition-key value length: 2048 bytes of UTF-8. */
export const MAX_PARTITION_KEY_BYTES = 2048;

/** DynamoDB's maximum sort-key value length: 1024 bytes of UTF-8. */
export const MAX_SORT_KEY_BYTES = 1024;

/**
 * An encoded key whose UTF-8 form is longer than this is stored under a SHA-256 digest instead,
 * well inside {@link MAX_PARTITION_KEY_BYTES} together with the operator id and key group.
 */
export const HASH_KEY_ABOVE_BYTES = 1024;

/**
 * A map sub-key whose escaped UTF-8 form is longer than this is stored under a SHA-256 digest
 * (the sub-key itself goes into attribute `k`), so the sort key plus a chunk suffix stays inside
 * {@link MAX_SORT_KEY_BYTES}.
 */
export const HASH_SUB_KEY_ABOVE_BYTES = 512;

/** The longest operator id accepted (it is part of every partition key). */
export const MAX_OPERATOR_ID_LENGTH = 255;

/** The longest state name accepted (it is part of every sort key). */
export const MAX_STATE_NAME_LENGTH = 255;

/**
 * Bytes of value JSON per chunk item. A chunk item is pk (≤ ~1.3 KB with the hashed fallback) +
 * sk (≤ ~0.8 KB) + this + two numbers, comfortably under {@link MAX_ITEM_BYTES}.
 */
export const CHUNK_BYTES = 384 * 1024;

/** What a DynamoDB number attribute may cost at most: "approximately (length / 2) + 1", ≤ 21 bytes. */
export const MAX_NUMBER_BYTES = 21;

/** Separator between the parts of `pk` and between state name and sub-key in `sk`. */
export const KEY_SEPARATOR = '#';

/**
 * Between an entry's sort key and a chunk index: `<sk>#~chunk#<n>`. Sub-keys are escaped so
 * that no entry's sort key can end like this (see item-keys.ts).
 */
export const CHUNK_INFIX = '#~chunk#';

/** The default name of the epoch-seconds expiry attribute that DynamoDB TTL is configured on. */
export const DEFAULT_TTL_ATTRIBUTE = 'ttl';

/** Attribute names (short: every byte of a name counts against the item size and capacity). */
export const ATTR = {
  pk: 'pk',
  sk: 'sk',
  value: 'v',
  subKey: 'k',
  chunkFirst: 'cf',
  chunkCount: 'cn',
  chunkData: 'd',
  writeTime: 'wt',
} as const;
