/**
 * The second cache level of lookup joins on AWS: dimension rows cached in DynamoDB, so a Lambda
 * container that starts cold (after a deployment, a scale-out, a shard move) finds the keys its
 * predecessors loaded instead of sending them all to the dimension database again.
 *
 * ```
 *  lookup join ─► L1 (in-container LRU, shared/lookup/cached-source.ts)
 *                   │ misses
 *                   ▼
 *                 L2 (this decorator): one BatchGetItem per 100 distinct keys
 *                   │ misses, expired entries, L2 failures
 *                   ▼
 *                 the dimension source (MySQL, PostgreSQL, DynamoDB, …) ─► rows written back to L2
 * ```
 *
 * Items (in the pipeline's state table): partition key `#lookup#<table>#<encoded key>` (an MD5
 * digest instead of the key when it is long), sort key `row`; `r` = the key's rows as tagged
 * JSON (shared/aws/state/value-codec.ts: DECIMAL and timestamps survive exactly), `m` = true for a
 * negative entry (the key had no rows; written only when missing keys are cached), `wt` = write
 * time in epoch ms and the TTL attribute = its expiry in epoch seconds. DynamoDB's TTL deletes
 * expired items only eventually, so expiry is decided from `wt` on every read: an expired item
 * is a miss, never a hit.
 *
 * A FULL cache in front loads the whole table with `loadAll`, which goes to the source directly:
 * its reload already refreshes everything, so L2 is only for PARTIAL caches (and NONE).
 *
 * Failures degrade, they do not fail the batch: an L2 read that fails (after the SDK's retries)
 * sends all its keys to the source, an L2 write that fails is dropped; both are counted (and
 * reported to `onError`). Only the source's own failures propagate.
 */
import { createHash } from 'node:crypto';
import { BatchGetItemCommand } from '@aws-sdk/client-dynamodb';
import type { AttributeValue, BatchGetItemCommandOutput, KeysAndAttributes, WriteRequest } from '@aws-sdk/client-dynamodb';
import { PlanError } from '../../core/errors.ts';
import type { Row } from '../../core/types.ts';
import type { DimensionSource } from '../../lookup/dimension-source.ts';
import { distinctKeys, encodeLookupKey, keyColumnsOf } from '../../lookup/dimension-source.ts';
import { sleep } from '../../core/retry.ts';
import { batchWrite, newIoCounters } from '../state/table-io.ts';
import type { DynamoDbSender, IoCounters } from '../state/table-io.ts';
import { decodeValue, encodeValue } from '../state/value-codec.ts';

/** BatchGetItem reads at most 100 items per call. */
const MAX_BATCH_GET = 100;
/** Encoded keys longer than this are digested in the partition key (its limit is 2,048 bytes). */
const MAX_PLAIN_KEY = 512;
/** BatchGetItem calls per chunk before the still-unprocessed keys go to the source. */
const MAX_GET_ATTEMPTS = 4;

/** Options of {@link createDynamoDbL2Source}. */
export interface DynamoDbL2Options {
  readonly client: DynamoDbSender;
  /** The table holding the cached rows (the pipeline's state table). */
  readonly tableName: string;
  /** How long a cached entry is trusted (the L2's expire-after-write), ms. */
  readonly ttlMs: number;
  /** Cache keys without rows as negative entries. @default true */
  readonly cacheMissingKey?: boolean;
  /** Name of the epoch-seconds attribute DynamoDB TTL is enabled on. @default 'ttl' */
  readonly ttlAttribute?: string;
  /** Epoch-ms clock for write times and expiry. @default Date.now */
  readonly clock?: () => number;
  /** Told about L2 failures (which never fail the lookup). */
  readonly onError?: (error: unknown, phase: 'read' | 'write') => void;
}

/** Counters of an L2 source. */
export interface L2Metrics {
  /** Keys answered by L2 (negative entries included). */
  readonly l2Hits: number;
  /** Keys L2 had no valid entry for. */
  readonly l2Misses: number;
  /** Entries found but past their expiry. */
  readonly l2Expired: number;
  /** Keys passed on to the dimension source. */
  readonly sourceKeys: number;
  /** Calls to the dimension source. */
  readonly sourceCalls: number;
  /** L2 reads and writes that failed (and were degraded). */
  readonly l2ReadFailures: number;
  readonly l2WriteFailures: number;
  /** DynamoDB requests made by L2. */
  readonly io: IoCounters;
}

/** A source with the DynamoDB second level in front of it. */
export interface L2DimensionSource extends DimensionSource {
  metrics(): L2Metrics;
}

/**
 * Puts the DynamoDB cache in front of `source` (then an L1 goes in front of the result).
 *
 * @throws PlanError for a table name with `#` or a non-positive TTL.
 */
export function createDynamoDbL2Source(source: DimensionSource, options: DynamoDbL2Options): L2DimensionSource {
  if (source.table.includes('#')) throw new PlanError(`lookup table name '${source.table}' cannot name an L2 cache entry: it must not contain '#'`);
  if (!(Number.isFinite(options.ttlMs) && options.ttlMs > 0)) throw new PlanError(`lookup table '${source.table}': the L2 cache TTL must be a positive number of ms (given ${options.ttlMs})`);
  const clock = options.clock ?? Date.now;
  const ttlAttribute = options.ttlAttribute ?? 'ttl';
  const cacheMissing = options.cacheMissingKey ?? true;
  const io = newIoCounters();
  const counts = { l2Hits: 0, l2Misses: 0, l2Expired: 0, sourceKeys: 0, sourceCalls: 0, l2ReadFailures: 0, l2WriteFailures: 0 };
  const prefix = `#lookup#${source.table}#`;
  const pkOf = (encoded: string): string => prefix + (encoded.length > MAX_PLAIN_KEY ? `~${createHash('md5').update(encoded, 'utf8').digest('hex')}` : encoded);

  /** Valid cached entries of `pks`: pk → rows (empty for a negative entry). */
  const read = async (pks: readonly string[]): Promise<Map<string, Row[]>> => {
    const found = new Map<string, Row[]>();
    const now = clock();
    for (let i = 0; i < pks.length; i += MAX_BATCH_GET) {
      let request: KeysAndAttributes | undefined = { Keys: pks.slice(i, i + MAX_BATCH_GET).map((pk) => ({ pk: { S: pk }, sk: { S: 'row' } })), ConsistentRead: false };
      for (let attempt = 1; request !== undefined && attempt <= MAX_GET_ATTEMPTS; attempt++) {
        if (attempt > 1) await sleep(20 * 2 ** attempt);
        const output: BatchGetItemCommandOutput = await options.client.send(new BatchGetItemCommand({ RequestItems: { [options.tableName]: request } }));
        io.readRequests++;
        for (const item of output.Responses?.[options.tableName] ?? []) {
          io.readItems++;
          const pk = item.pk?.S;
          const writeTime = Number(item.wt?.N);
          if (pk === undefined || !Number.isFinite(writeTime)) continue;
          if (now >= writeTime + options.ttlMs) {
            counts.l2Expired++;
            continue;
          }
          found.set(pk, item.m?.BOOL === true ? [] : (decodeValue(item.r?.S ?? '[]') as Row[]));
        }
        const left: KeysAndAttributes | undefined = output.UnprocessedKeys?.[options.tableName];
        request = left?.Keys !== undefined && left.Keys.length > 0 ? left : undefined;
      }
      // Keys still unprocessed after the attempts are simply misses.
    }
    return found;
  };

  const write = async (entries: readonly { pk: string; rows: Row[] | undefined }[]): Promise<void> => {
    const now = clock();
    const requests: WriteRequest[] = entries.map(({ pk, rows }) => {
      const item: Record<string, AttributeValue> = {
        pk: { S: pk },
        sk: { S: 'row' },
        wt: { N: String(now) },
        [ttlAttribute]: { N: String(Math.ceil((now + options.ttlMs) / 1000)) },
      };
      if (rows === undefined) item.m = { BOOL: true };
      else item.r = { S: encodeValue(rows) };
      return { PutRequest: { Item: item } };
    });
    await batchWrite(requests, { client: options.client, tableName: options.tableName, concurrency: 4, maxAttempts: 4, baseMs: 20, maxMs: 500, random: Math.random, sleep }, io);
  };

  return {
    table: source.table,
    async lookupMany(keys: readonly Row[]): Promise<Map<string, Row[]>> {
      const columns = keyColumnsOf(keys);
      const { keys: distinct } = distinctKeys(keys, columns);
      const result = new Map<string, Row[]>();
      if (distinct.length === 0) return result;
      const encodedOf = (key: Row): string => encodeLookupKey(key, columns);
      const pks = distinct.map((key) => pkOf(encodedOf(key)));
      let cached = new Map<string, Row[]>();
      try {
        cached = await read(pks);
      } catch (error) {
        counts.l2ReadFailures++;
        options.onError?.(error, 'read');
      }
      const missing: Row[] = [];
      distinct.forEach((key, i) => {
        const rows = cached.get(pks[i] as string);
        if (rows === undefined) {
          missing.push(key);
          return;
        }
        counts.l2Hits++;
        if (rows.length > 0) result.set(encodedOf(key), rows);
      });
      counts.l2Misses += missing.length;
      if (missing.length === 0) return result;
      counts.sourceCalls++;
      counts.sourceKeys += missing.length;
      const loaded = await source.lookupMany(missing);
      const entries: { pk: string; rows: Row[] | undefined }[] = [];
      for (const key of missing) {
        const encoded = encodedOf(key);
        const rows = loaded.get(encoded);
        if (rows !== undefined && rows.length > 0) {
          result.set(encoded, rows);
          entries.push({ pk: pkOf(encoded), rows });
        } else if (cacheMissing) {
          entries.push({ pk: pkOf(encoded), rows: undefined });
        }
      }
      if (entries.length > 0) {
        try {
          await write(entries);
        } catch (error) {
          counts.l2WriteFailures++;
          options.onError?.(error, 'write');
        }
      }
      return result;
    },
    // A FULL cache reloads the whole table from the source; L2 has nothing to add there.
    ...(source.loadAll !== undefined ? { loadAll: () => (source.loadAll as () => Promise<Row[]>)() } : {}),
    close: () => source.close(),
    metrics: () => ({ ...counts, io: { ...io } }),
  };
}
