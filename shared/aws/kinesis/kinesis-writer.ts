/**
 * Writes a stage's output rows to the Kinesis stream of its exchange, one bundle per target
 * shard (see bundle-codec.ts), landing each bundle exactly on the shard that owns its rows' keys.
 *
 * Routing. The writer reads the stream's open shards and their hash-key ranges with ListShards
 * (DescribeStream is limited to 10 calls/s per account, ListShards to 1,000 per stream), maps
 * each row's encoded key to a shard with `KinesisPartitioner` — MD5 of the key, exactly as
 * Kinesis hashes a partition key — and sends the shard's bundle with ExplicitHashKey = the
 * shard's StartingHashKey, which Kinesis routes to the open shard whose range contains it.
 * `hash` distributions route by the key columns, `single` to the shard owning hash key 0 (the
 * only shard of a one-shard stream, and shard 0 as the embedded runtime picks), `broadcast`
 * copies every row to every shard.
 *
 * Resharding. The shard map is loaded on first use and refreshed on demand: PutRecords reports
 * the ShardId each record landed on, and a record that landed on another shard than meant was
 * sent with a stale map (its shard was split or merged, so the ExplicitHashKey now falls in a
 * child or merged shard). The record carries the shard it was meant for (`to`), so its receiver
 * drops it; the writer lists the shards again and re-routes the rows not yet delivered — those
 * of the misrouted record and of later parts — to the new shards. Rows already delivered to the
 * parent stay there; the Lambda event source mapping reads a parent shard to its end before its
 * children, so each key still reads in order.
 *
 * Per-shard order. A later bundle for a shard is never sent before the earlier one succeeded:
 * each PutRecords call carries at most ONE record per target shard, and the next record for a
 * shard waits for the previous one's success. Why:
 *
 * ```
 *  one call [T1 p0, T1 p1]     p0 throttled, p1 accepted   → shard T1: p1            ✗
 *  retry    [T1 p0]            accepted                    → shard T1: p1, p0        ✗ out of order
 *
 *  call 1   [T0 p0, T1 p0, T2 w]  T1 p0 throttled          → T0: p0      T2: w
 *  call 2   [T0 p1, T1 p0]        (after backoff)          → T0: p0 p1   T1: p0
 *  call 3   [T1 p1]                                        → T1: p0 p1               ✓
 * ```
 *
 * Kinesis processes every entry of a PutRecords call even when some fail ("a single record
 * failure does not stop the processing of subsequent records … PutRecords doesn't guarantee the
 * ordering of records", PutRecords API reference), so two records for one shard in one call can
 * land in either order once a retry is involved. One record per shard per call costs little: a
 * shard accepts 1 MiB/s, about one full bundle. Calls are also capped at 500 entries and 5 MiB
 * including partition keys (PutRecords limits).
 *
 * Failures. Entries failed with ProvisionedThroughputExceededException or InternalFailure (the
 * two per-entry ErrorCodes Kinesis returns) are retried alone — entries that succeeded are not
 * sent again — after exponential backoff with full jitter (delay = random × min(cap, base ×
 * 2^attempt)); a whole call that fails with a retryable error (after the SDK's own retries)
 * counts as a failed attempt of each of its entries. After `maxAttempts` failures of one record
 * the write throws a TransientError: records sent so far stay in the stream, and a retry of the
 * whole write (the handler's input batch re-delivered) re-creates identical records with
 * identical ids, which receivers drop. A call whose outcome is unknown (a timeout) may also
 * duplicate its entries; a duplicate always directly follows its original on the shard.
 *
 * Watermarks. Every target shard that gets rows gets the watermark on its last bundle part. A
 * target that gets no rows gets a watermark-only record when the watermark advanced past what
 * that shard last received from this writer, so downstream watermarks (the minimum over input
 * channels) keep moving when keys are skewed.
 *
 * A writer is for one producer shard and is used sequentially (one write at a time): it keeps
 * the shard map and the last watermark sent to each shard between writes.
 */
import { packCalls } from '../batching.ts';
import { retryPolicy, type RetryOptions, type RetryPolicy } from '../../core/retry.ts';
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { ListShardsCommand, PutRecordsCommand } from '@aws-sdk/client-kinesis';
import type { KinesisClient, ListShardsCommandInput, PutRecordsRequestEntry, Shard } from '@aws-sdk/client-kinesis';
import { FlambdaError, PlanError, TransientError } from '../../core/errors.ts';
import type { ChangeRow } from '../../core/row.ts';
import type { Schema, Value } from '../../core/types.ts';
import { MAX_PARTITION_KEY_LENGTH } from '../../partition/kinesis-hash.ts';
import { encodeKey } from '../../partition/key-encoding.ts';
import { KinesisPartitioner } from '../../partition/partitioner.ts';
import type { HashKeyRange } from '../../partition/shard-ranges.ts';
import type { Distribution } from '../../plan/logical.ts';
import { BundleCodec } from './bundle-codec.ts';
import type { BundleOrigin, EncodedRecord } from './bundle-codec.ts';

/** PutRecords accepts at most 500 entries per call (PutRecords API reference). */
export const MAX_PUT_RECORDS_ENTRIES = 500;

/** PutRecords accepts at most 5 MiB per call, data blobs plus partition keys (PutRecords API reference). */
export const MAX_PUT_RECORDS_BYTES = 5 * 1_048_576;

/** The per-entry ErrorCodes PutRecords returns; both are worth retrying. */
const RETRYABLE_ENTRY_ERRORS: ReadonlySet<string> = new Set(['ProvisionedThroughputExceededException', 'InternalFailure']);

/** Whole-call errors worth another attempt (the SDK has already retried these itself). */
const RETRYABLE_CALL_ERRORS: ReadonlySet<string> = new Set([
  'ProvisionedThroughputExceededException',
  'LimitExceededException',
  'ThrottlingException',
  'KMSThrottlingException',
  'InternalFailure',
  'InternalFailureException',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);

/** Network error codes worth another attempt. */
const RETRYABLE_NETWORK_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN']);

/** How many times one write may refresh the shard map before giving up. */
const MAX_REFRESHES_PER_WRITE = 5;

/** An open shard of the target stream. */
export interface TargetShard {
  readonly shardId: string;
  readonly range: HashKeyRange;
}

/**
 * Options of {@link KinesisStageWriter}. Retries default to 8 attempts per record with a 100 ms
 * backoff base (see shared/aws/retry.ts).
 */
export interface KinesisStageWriterOptions extends RetryOptions {
  /** A client from `createKinesisClient`. */
  readonly client: KinesisClient;
  /** The exchange's stream. */
  readonly streamName: string;
  /** The exchange's row schema. */
  readonly schema: Schema;
  /** How rows are distributed over the target shards (the stage output's distribution). */
  readonly distribution: Distribution;
  /** The producer stage id, written into every bundle id. */
  readonly producerStage: string;
  /** The producer shard (its input shard id), written into every bundle id. */
  readonly producerShard: string;
  /**
   * Largest record (body plus partition key) in bytes.
   * @default MAX_KINESIS_RECORD_BYTES (1 MiB)
   */
  readonly maxRecordBytes?: number;
}

/** One batch of a producer's output. */
export interface StageWriteBatch {
  /** First input sequence number the rows derive from (bundle id). */
  readonly first: string;
  /** Last input sequence number the rows derive from (bundle id). */
  readonly last: string;
  /** Output rows in emission order. */
  readonly rows: readonly ChangeRow[];
  /** The producer's watermark after these rows (epoch ms; -Infinity when none yet). */
  readonly watermark: number;
}

/** What one write or heartbeat did. */
export interface StageWriteStats {
  /** Records written: row bundles, watermark-only records and heartbeats. */
  records: number;
  /** Row bundles written. */
  rowRecords: number;
  /** Watermark-only records written. */
  watermarkRecords: number;
  /** Heartbeat records written. */
  heartbeatRecords: number;
  /** Rows delivered (a broadcast row counts once per shard). */
  rows: number;
  /** Bytes written, data plus partition keys. */
  bytes: number;
  /** PutRecords calls made. */
  putCalls: number;
  /** Entries sent again after a retryable failure. */
  retriedEntries: number;
  /** Entries that landed on another shard than meant (stale shard map). */
  misroutedEntries: number;
  /** ListShards refreshes after a misroute. */
  shardRefreshes: number;
}

/** The records still to send to one target shard, in order. */
interface Pending {
  readonly target: TargetShard;
  readonly kind: 'rows' | 'watermark' | 'heartbeat';
  /**
   * Positions (in the batch) of all rows routed to the target in this write, ascending; kept
   * for re-routing after a reshard.
   */
  readonly positions: readonly number[];
  readonly records: readonly EncodedRecord[];
  /** The watermark the last record carries. */
  readonly watermark: number;
  /** Index of the first record not yet delivered. */
  next: number;
  /** Consecutive failed attempts of `records[next]`. */
  failures: number;
  /** The record landed on another shard: the map is stale. */
  misrouted: boolean;
}

/** The outcome of one PutRecords entry. */
type EntryOutcome = { readonly ok: true; readonly shardId: string } | { readonly ok: false; readonly error: string };

/** A zeroed stats object. */
function emptyStats(): StageWriteStats {
  return {
    records: 0,
    rowRecords: 0,
    watermarkRecords: 0,
    heartbeatRecords: 0,
    rows: 0,
    bytes: 0,
    putCalls: 0,
    retriedEntries: 0,
    misroutedEntries: 0,
    shardRefreshes: 0,
  };
}

/** Name, message and retryability of an error thrown by `client.send`. */
function describeCallError(err: unknown): { readonly text: string; readonly retryable: boolean } {
  if (!(err instanceof Error)) return { text: String(err), retryable: false };
  const e = err as Error & {
    code?: unknown;
    $fault?: unknown;
    $retryable?: unknown;
    $metadata?: { httpStatusCode?: unknown };
  };
  const status = typeof e.$metadata?.httpStatusCode === 'number' ? e.$metadata.httpStatusCode : undefined;
  const retryable =
    RETRYABLE_CALL_ERRORS.has(e.name) ||
    (typeof e.code === 'string' && RETRYABLE_NETWORK_CODES.has(e.code)) ||
    e.$retryable !== undefined ||
    e.$fault === 'server' ||
    (status !== undefined && (status >= 500 || status === 429));
  return { text: `${e.name}: ${e.message}`, retryable };
}

/**
 * Every shard of the stream, open and closed, as ListShards pages them.
 *
 * @throws TransientError for a retryable failure, FlambdaError otherwise.
 */
export async function listShardsOf(client: Pick<KinesisClient, 'send'>, streamName: string): Promise<Shard[]> {
  const shards: Shard[] = [];
  let nextToken: string | undefined;
  do {
    // ListShards takes either StreamName or NextToken, never both.
    const input: ListShardsCommandInput = nextToken === undefined ? { StreamName: streamName } : { NextToken: nextToken };
    let output;
    try {
      output = await client.send(new ListShardsCommand(input));
    } catch (err) {
      const { text, retryable } = describeCallError(err);
      const message = `ListShards on stream '${streamName}' failed: ${text}`;
      throw retryable ? new TransientError(message, { cause: err }) : new FlambdaError(message, 'external', 'fail', { cause: err });
    }
    for (const shard of output.Shards ?? []) shards.push(shard);
    nextToken = output.NextToken;
  } while (nextToken !== undefined);
  return shards;
}

/** Lists the stream's open shards (no EndingSequenceNumber), ordered by starting hash key. */
export async function listOpenShards(client: KinesisClient, streamName: string): Promise<TargetShard[]> {
  const shards: TargetShard[] = [];
  for (const shard of await listShardsOf(client, streamName)) {
    if (shard.SequenceNumberRange?.EndingSequenceNumber !== undefined) continue;
    const start = shard.HashKeyRange?.StartingHashKey;
    const end = shard.HashKeyRange?.EndingHashKey;
    if (shard.ShardId === undefined || start === undefined || end === undefined) {
      throw new FlambdaError(`ListShards on stream '${streamName}' returned a shard without id or hash-key range`, 'external', 'fail');
    }
    shards.push({ shardId: shard.ShardId, range: { startingHashKey: BigInt(start), endingHashKey: BigInt(end) } });
  }
  if (shards.length === 0) throw new FlambdaError(`stream '${streamName}' has no open shards`, 'external', 'fail');
  return shards.sort((a, b) => (a.range.startingHashKey < b.range.startingHashKey ? -1 : 1));
}

/** The shard map: open shards and the partitioner over their ranges (same indices). */
interface ShardMap {
  readonly shards: readonly TargetShard[];
  readonly partitioner: KinesisPartitioner;
  readonly byId: ReadonlyMap<string, TargetShard>;
}

function shardMap(shards: readonly TargetShard[]): ShardMap {
  return {
    shards,
    partitioner: new KinesisPartitioner(shards.map((s) => s.range)),
    byId: new Map(shards.map((s) => [s.shardId, s])),
  };
}

/** Writes a producer shard's output to an exchange stream; see the module header. */
export class KinesisStageWriter {
  private readonly client: KinesisClient;
  private readonly streamName: string;
  private readonly distribution: Distribution;
  private readonly codec: BundleCodec;
  private readonly producerStage: string;
  private readonly producerShard: string;
  private readonly partitionKey: string;
  /** UTF-8 bytes of the partition key, counted against record and call limits. */
  private readonly partitionKeyBytes: number;
  private readonly retry: RetryPolicy;
  /** Key columns of a hash distribution. */
  private readonly keyColumns: readonly string[];

  private map: ShardMap | undefined;
  /** The watermark each shard last received from this writer. */
  private readonly sentWatermark = new Map<string, number>();
  /** The watermark of the last write. */
  private currentWatermark = -Infinity;
  private busy = false;

  /** @throws PlanError for bad options or key columns missing from the schema. */
  constructor(options: KinesisStageWriterOptions) {
    this.client = options.client;
    this.streamName = options.streamName;
    this.distribution = options.distribution;
    this.codec = new BundleCodec(options.schema, { maxRecordBytes: options.maxRecordBytes });
    this.producerStage = options.producerStage;
    this.producerShard = options.producerShard;
    if (this.producerStage.length === 0 || this.producerShard.length === 0) {
      throw new PlanError('producerStage and producerShard must be non-empty');
    }
    this.retry = retryPolicy(options, { maxAttempts: 8, baseDelayMs: 100 });
    this.keyColumns = options.distribution.type === 'hash' ? options.distribution.keys : [];
    const names = new Set(options.schema.fields.map((f) => f.name));
    for (const key of this.keyColumns) {
      if (!names.has(key)) throw new PlanError(`distribution key '${key}' is not a column of the exchange schema`);
    }
    // The partition key is ignored for routing (ExplicitHashKey wins) but shows in the receiver's
    // event; it must be 1..256 characters and counts against the 1 MiB record limit.
    const producer = `${this.producerStage}/${this.producerShard}`;
    this.partitionKey =
      producer.length <= MAX_PARTITION_KEY_LENGTH && Buffer.byteLength(producer, 'utf8') <= MAX_PARTITION_KEY_LENGTH
        ? producer
        : createHash('md5').update(producer, 'utf8').digest('hex');
    this.partitionKeyBytes = Buffer.byteLength(this.partitionKey, 'utf8');
  }

  /** The open target shards as last listed (empty before the first write or refresh). */
  get targetShards(): readonly TargetShard[] {
    return this.map?.shards ?? [];
  }

  /** Lists the target stream's open shards again; writes call this themselves when needed. */
  async refreshShards(): Promise<readonly TargetShard[]> {
    const map = shardMap(await listOpenShards(this.client, this.streamName));
    this.map = map;
    for (const shardId of [...this.sentWatermark.keys()]) {
      if (!map.byId.has(shardId)) this.sentWatermark.delete(shardId);
    }
    return map.shards;
  }

  /**
   * Writes one batch: its rows to the shards owning their keys, in order per shard, then
   * watermark-only records to shards that got no rows but whose watermark advanced.
   *
   * @throws RecordError when a row alone exceeds the record size limit (nothing is sent);
   *   TransientError when a record still fails after `maxAttempts` or ListShards fails
   *   transiently; FlambdaError (external, fail) for non-retryable Kinesis errors.
   */
  async write(batch: StageWriteBatch): Promise<StageWriteStats> {
    if (Number.isNaN(batch.watermark)) throw new FlambdaError('watermark must not be NaN', 'internal', 'fail');
    return this.exclusive(async (stats) => {
      const map = await this.shardMapNow();
      const origin: BundleOrigin = {
        producerStage: this.producerStage,
        producerShard: this.producerShard,
        first: batch.first,
        last: batch.last,
      };
      const all = batch.rows.map((_, i) => i);
      const pending = this.planRows(map, batch.rows, this.route(map, batch.rows, all), origin, batch.watermark, new Set());
      await this.deliver(pending, stats, (newMap, leftovers, kept) => {
        const keptIds = new Set(kept.map((p) => p.target.shardId));
        const routed = this.route(newMap, batch.rows, leftovers);
        routed.forEach((positions, i) => {
          // Open shards tile the hash space before and after, so a closed shard's keys can only
          // fall into new shards.
          if (positions.length > 0 && keptIds.has((newMap.shards[i] as TargetShard).shardId)) {
            throw new FlambdaError('rows of a closed shard re-routed to a shard that was open before the reshard', 'internal', 'fail');
          }
        });
        return this.planRows(newMap, batch.rows, routed, origin, batch.watermark, keptIds);
      });
      // Only a delivered batch's watermark may travel in later heartbeats: a heartbeat after a
      // failed write must not carry a watermark ahead of rows that never arrived.
      this.currentWatermark = batch.watermark;
    });
  }

  /**
   * Sends a heartbeat (processing time `at`, the last write's watermark) to every target
   * shard, so idle downstream shards' handlers run and their timers fire.
   */
  async heartbeat(at: number): Promise<StageWriteStats> {
    return this.exclusive(async (stats) => {
      const map = await this.shardMapNow();
      const plan = (m: ShardMap, skip: ReadonlySet<string>): Pending[] =>
        m.shards
          .filter((target) => !skip.has(target.shardId))
          .map((target) =>
            this.pending(target, 'heartbeat', [], [
              this.codec.encodeHeartbeat(
                { producerStage: this.producerStage, producerShard: this.producerShard, targetShard: target.shardId, partitionKey: this.partitionKey },
                at,
                this.currentWatermark,
              ),
            ]),
          );
      await this.deliver(plan(map, new Set()), stats, (newMap, _leftovers, kept) =>
        plan(newMap, new Set(kept.map((p) => p.target.shardId))),
      );
    });
  }

  /** Runs one write at a time: concurrent writes would interleave shards' records. */
  private async exclusive(body: (stats: StageWriteStats) => Promise<void>): Promise<StageWriteStats> {
    if (this.busy) {
      throw new FlambdaError('KinesisStageWriter is already writing; writes must be sequential to keep per-shard order', 'internal', 'fail');
    }
    this.busy = true;
    const stats = emptyStats();
    try {
      await body(stats);
      return stats;
    } finally {
      this.busy = false;
    }
  }

  private async shardMapNow(): Promise<ShardMap> {
    if (this.map === undefined) await this.refreshShards();
    return this.map as ShardMap;
  }

  /**
   * Routes the rows at `positions` (ascending) of `rows`: for each target index of `map`, the
   * positions of its rows, ascending, so every shard gets its rows in emission order.
   */
  private route(map: ShardMap, rows: readonly ChangeRow[], positions: readonly number[]): number[][] {
    const routed: number[][] = map.shards.map(() => []);
    if (positions.length === 0) return routed;
    const distribution = this.distribution;
    if (distribution.type === 'broadcast') {
      for (const list of routed) list.push(...positions);
      return routed;
    }
    if (distribution.type === 'single') {
      (routed[map.partitioner.shardOfHash(0n)] as number[]).push(...positions);
      return routed;
    }
    const keys = this.keyColumns;
    const values = new Array<Value>(keys.length);
    for (const position of positions) {
      const row = (rows[position] as ChangeRow).row;
      for (let k = 0; k < keys.length; k++) values[k] = row[keys[k] as string] ?? null;
      (routed[map.partitioner.shardOf(encodeKey(values))] as number[]).push(position);
    }
    return routed;
  }

  /**
   * Pending records for routed rows: bundles for shards with rows, watermark-only records for
   * shards without rows whose watermark advanced. Shards in `skip` already have pending work.
   */
  private planRows(
    map: ShardMap,
    rows: readonly ChangeRow[],
    routed: readonly number[][],
    origin: BundleOrigin,
    watermark: number,
    skip: ReadonlySet<string>,
  ): Pending[] {
    const pending: Pending[] = [];
    map.shards.forEach((target, i) => {
      if (skip.has(target.shardId)) return;
      const positions = routed[i] as number[];
      const address = { ...origin, targetShard: target.shardId, partitionKey: this.partitionKey };
      if (positions.length > 0) {
        const records = this.codec.encodeRows(address, positions.map((p) => rows[p] as ChangeRow), watermark, positions);
        pending.push(this.pending(target, 'rows', positions, records, watermark));
      } else if (watermark > (this.sentWatermark.get(target.shardId) ?? -Infinity)) {
        pending.push(this.pending(target, 'watermark', [], [this.codec.encodeWatermark(address, watermark)], watermark));
      }
    });
    return pending;
  }

  private pending(
    target: TargetShard,
    kind: Pending['kind'],
    positions: readonly number[],
    records: readonly EncodedRecord[],
    watermark = this.currentWatermark,
  ): Pending {
    return { target, kind, positions, records, watermark, next: 0, failures: 0, misrouted: false };
  }

  /**
   * Sends every pending record, one record per shard per PutRecords call, in rounds until all
   * are delivered. After a misroute it refreshes the shard map and asks `replan` for the work of
   * shards that are gone: `leftovers` are the batch positions of their undelivered rows,
   * ascending and without repeats (a broadcast row undelivered to two merged shards is sent to
   * the merged shard once), `kept` the pending
   * work of shards still open with the same range.
   */
  private async deliver(
    initial: Pending[],
    stats: StageWriteStats,
    replan: (map: ShardMap, leftovers: number[], kept: readonly Pending[]) => Pending[],
  ): Promise<void> {
    let pending = initial;
    let refreshes = 0;
    for (;;) {
      const heads = pending.filter((p) => p.next < p.records.length);
      if (heads.length === 0) return;
      let failed = 0;
      let misrouted = false;
      let exhausted: string | undefined;
      for (const call of this.packCalls(heads)) {
        const outcomes = await this.putRecords(call, stats);
        call.forEach((p, i) => {
          const outcome = outcomes[i] as EntryOutcome;
          if (outcome.ok && outcome.shardId === p.target.shardId) {
            this.delivered(p, stats);
          } else if (outcome.ok) {
            p.misrouted = true;
            misrouted = true;
            stats.misroutedEntries++;
          } else {
            p.failures++;
            failed = Math.max(failed, p.failures);
            if (p.failures >= this.retry.maxAttempts) {
              exhausted ??= `shard ${p.target.shardId} failed ${p.failures} times (last: ${outcome.error})`;
            } else {
              stats.retriedEntries++;
            }
          }
        });
      }
      if (exhausted !== undefined) {
        throw new TransientError(
          `PutRecords to stream '${this.streamName}': ${exhausted}; ${stats.records} records were written before giving up`,
        );
      }
      if (misrouted) {
        if (++refreshes > MAX_REFRESHES_PER_WRITE) {
          throw new TransientError(`the shards of stream '${this.streamName}' kept changing during one write (${refreshes - 1} refreshes)`);
        }
        pending = await this.reroute(pending, stats, replan);
      }
      if (failed > 0) await this.retry.sleep(this.retry.delay(failed));
    }
  }

  /** Refreshes the map; keeps the work of unchanged shards and re-plans the rest. */
  private async reroute(
    pending: readonly Pending[],
    stats: StageWriteStats,
    replan: (map: ShardMap, leftovers: number[], kept: readonly Pending[]) => Pending[],
  ): Promise<Pending[]> {
    await this.refreshShards();
    stats.shardRefreshes++;
    const map = this.map as ShardMap;
    const kept: Pending[] = [];
    const leftovers = new Set<number>();
    for (const p of pending) {
      const now = map.byId.get(p.target.shardId);
      const unchanged =
        now !== undefined &&
        now.range.startingHashKey === p.target.range.startingHashKey &&
        now.range.endingHashKey === p.target.range.endingHashKey;
      if (unchanged && !p.misrouted) {
        kept.push(p);
      } else if (p.kind === 'rows' && p.next < p.records.length) {
        // Everything from the first undelivered part on: the misrouted record's rows included.
        const from = (p.records[p.next] as EncodedRecord).rowStart;
        for (let i = from; i < p.positions.length; i++) leftovers.add(p.positions[i] as number);
      }
    }
    // Ascending positions: a merged shard gets its parents' rows interleaved in emission order.
    return [...kept, ...replan(map, [...leftovers].sort((a, b) => a - b), kept)];
  }

  /** Books a delivered record and advances its shard's queue. */
  private delivered(p: Pending, stats: StageWriteStats): void {
    const record = p.records[p.next] as EncodedRecord;
    p.next++;
    p.failures = 0;
    stats.records++;
    stats.bytes += record.data.length + this.partitionKeyBytes;
    stats.rows += record.rowEnd - record.rowStart;
    if (p.kind === 'rows') stats.rowRecords++;
    else if (p.kind === 'watermark') stats.watermarkRecords++;
    else stats.heartbeatRecords++;
    // The last record of a queue carries the watermark.
    if (p.next === p.records.length) {
      const shardId = p.target.shardId;
      if (p.watermark > (this.sentWatermark.get(shardId) ?? -Infinity)) this.sentWatermark.set(shardId, p.watermark);
    }
  }

  /** Splits one round's heads (one per shard) into calls within 500 entries and 5 MiB. */
  private packCalls(heads: readonly Pending[]): Pending[][] {
    const pkBytes = this.partitionKeyBytes;
    return packCalls(heads, MAX_PUT_RECORDS_ENTRIES, MAX_PUT_RECORDS_BYTES, (p) => (p.records[p.next] as EncodedRecord).data.length + pkBytes);
  }

  /**
   * One PutRecords call with each pending shard's head record; per-entry outcomes in order. A
   * retryable whole-call failure fails every entry; anything else throws.
   */
  private async putRecords(call: readonly Pending[], stats: StageWriteStats): Promise<EntryOutcome[]> {
    const entries: PutRecordsRequestEntry[] = call.map((p) => ({
      Data: (p.records[p.next] as EncodedRecord).data,
      PartitionKey: this.partitionKey,
      ExplicitHashKey: p.target.range.startingHashKey.toString(10),
    }));
    stats.putCalls++;
    let output;
    try {
      output = await this.client.send(new PutRecordsCommand({ StreamName: this.streamName, Records: entries }));
    } catch (err) {
      const { text, retryable } = describeCallError(err);
      if (!retryable) {
        throw new FlambdaError(`PutRecords to stream '${this.streamName}' failed: ${text}`, 'external', 'fail', { cause: err });
      }
      return call.map(() => ({ ok: false, error: text }));
    }
    const results = output.Records ?? [];
    if (results.length !== entries.length) {
      throw new FlambdaError(
        `PutRecords to stream '${this.streamName}' returned ${results.length} results for ${entries.length} records`,
        'external',
        'fail',
      );
    }
    return results.map((result, i): EntryOutcome => {
      if (result.ErrorCode === undefined) {
        if (result.ShardId === undefined) {
          throw new FlambdaError(`PutRecords to stream '${this.streamName}' returned a result without ShardId`, 'external', 'fail');
        }
        return { ok: true, shardId: result.ShardId };
      }
      if (!RETRYABLE_ENTRY_ERRORS.has(result.ErrorCode)) {
        throw new FlambdaError(
          `PutRecords to stream '${this.streamName}' shard ${(call[i] as Pending).target.shardId} failed: ` +
            `${result.ErrorCode}: ${result.ErrorMessage ?? ''}`,
          'external',
          'fail',
        );
      }
      return { ok: false, error: `${result.ErrorCode}: ${result.ErrorMessage ?? ''}` };
    });
  }

}
