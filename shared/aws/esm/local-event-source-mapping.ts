/**
 * A local Kinesis event source mapping: polls a (local or real) Kinesis stream and invokes a
 * Lambda handler with real `KinesisStreamEvent` batches, behaving as the Lambda Kinesis event
 * source mapping is documented to (Lambda developer guide: "How Lambda processes records from
 * Amazon Kinesis Data Streams", "Configuring partial batch response", "Retain discarded batch
 * records"), so the stage handlers can be run against emulators exactly as Lambda will run them.
 *
 * Per shard, one poller does, in a loop (ParallelizationFactor 1: "It processes one batch of
 * records at a time from each shard", so batches of a shard never overlap and arrive in shard
 * order; different shards run concurrently):
 *
 * ```
 *   ┌─► retry pending? ── wait for its backoff, invoke it again
 *   │   batch ready? ───── invoke: full batch (BatchSize or 6 MB), window over, or shard ended
 *   │   else GetRecords(Limit = room left in the batch)
 *   │        records ──► buffer (the batching window starts with the first one)
 *   │        none ─────► sleep pollIntervalMs (1 s on AWS), or the rest of the window
 *   └── NextShardIterator null and nothing left ──► shard finished ──► start its children
 * ```
 *
 * Outcomes of an invocation (see batch-response.ts): success checkpoints the batch; a partial
 * batch response checkpoints the records before the lowest reported sequence number and
 * retries the rest; a thrown error or an invalid response retries the whole batch. A retry
 * re-sends exactly the unprocessed records of the failed batch, after a backoff. After
 * `maximumRetryAttempts` retries the unprocessed records are discarded: `onFailure` receives
 * what AWS sends to an on-failure destination (condition `RetryAttemptsExhausted`, the shard and
 * the sequence range; on-failure-destination.ts sends it to an SQS queue as AWS does) and the
 * shard moves on past them. Records older than `maximumRecordAgeMs` are discarded before an
 * invocation the same way (`RecordAgeExceeded`). deployed-mapping.ts turns a deployed mapping's
 * configuration into these options.
 *
 * Iterators. A shard iterator expires five minutes after it was issued (GetShardIterator API
 * reference); a long invocation can outlive it. On ExpiredIteratorException the poller gets a
 * new one AFTER_SEQUENCE_NUMBER of the last record it read (at the starting position if it has
 * read none). Every record read and not yet processed is still held in memory (buffer or
 * pending retry), so this is the same as re-reading from the last processed sequence number,
 * without reading those records twice.
 *
 * Resharding: ListShards runs every `shardDiscoveryIntervalMs` and whenever a shard ends; a
 * child shard is started only when all its parents are finished (shard-lineage.ts has the
 * timeline).
 *
 * Checkpoints are kept in memory only: a stopped mapping cannot be restarted.
 */
import { randomUUID } from 'node:crypto';
import {
  DescribeStreamSummaryCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  ListShardsCommand,
} from '@aws-sdk/client-kinesis';
import type { KinesisClient, ListShardsCommandInput, Shard, ShardIteratorType } from '@aws-sdk/client-kinesis';
import type { KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';
import { FlambdaError, TransientError } from '../../core/errors.ts';
import { createKinesisClient } from '../kinesis/client.ts';
import { isRetryableAwsError } from '../state/errors.ts';
import { interpretBatchResponse } from './batch-response.ts';
import {
  DEFAULT_BATCH_SIZE,
  DEFAULT_FUNCTION_NAME,
  DEFAULT_FUNCTION_TIMEOUT_MS,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_RETRY_DELAY_MS,
  DEFAULT_SHARD_DISCOVERY_INTERVAL_MS,
  MAX_BATCHING_WINDOW_MS,
  MAX_BATCH_SIZE,
  MAX_GET_RECORDS_LIMIT,
  MAX_PAYLOAD_BYTES,
  MAX_RECORD_AGE_MS,
  MAX_RETRY_ATTEMPTS,
  MAX_RETRY_DELAY_MS,
} from './constants.ts';
import { EVENT_ENVELOPE_BYTES, buildFailureRecord, createContext, parseStreamArn, toPolledRecord } from './kinesis-event.ts';
import type { EventSourceIdentity, PolledRecord } from './kinesis-event.ts';
import { ShardLineage } from './shard-lineage.ts';
import type { LineageEntry } from './shard-lineage.ts';
import type {
  DrainOptions,
  EventSourceMappingStats,
  FailureCondition,
  KinesisEventHandler,
  LocalEventSourceMappingOptions,
  OnFailureCallback,
  ShardStats,
  StartingPosition,
} from './types.ts';

/** Options with every default applied. */
interface ResolvedOptions {
  readonly handler: KinesisEventHandler;
  readonly startingPosition: StartingPosition;
  /** Epoch ms AT_TIMESTAMP reads from. */
  readonly startingPositionTimestamp: number | undefined;
  readonly batchSize: number;
  readonly maximumBatchingWindowMs: number;
  readonly reportBatchItemFailures: boolean;
  readonly maximumRetryAttempts: number;
  readonly maximumRecordAgeMs: number;
  readonly onFailure: OnFailureCallback | undefined;
  readonly pollIntervalMs: number;
  readonly shardDiscoveryIntervalMs: number;
  readonly retryDelayMs: number;
  readonly functionName: string;
  readonly functionTimeoutMs: number;
  readonly roleArn: string | undefined;
}

/** A batch being worked on: invoked, or waiting to be retried. */
interface CurrentBatch {
  /** The records not processed yet, in shard order. */
  records: PolledRecord[];
  /** Failed invocations so far. */
  attempts: number;
  /** Epoch ms before which the next attempt must not start. */
  notBefore: number;
  /** What the last attempt threw or returned wrong. */
  lastError: unknown;
  /** The last attempt's request id. */
  requestId: string | undefined;
  /** Whether the last attempt threw (`functionError: Unhandled`). */
  threw: boolean;
}

/** Mutable counters of one shard. */
type MutableShardStats = { -readonly [K in keyof ShardStats]: ShardStats[K] };

/** A started shard's poller state. */
interface ShardPoller {
  readonly entry: LineageEntry;
  readonly shardId: string;
  /** The iterator for the next read; undefined once the shard has ended. */
  iterator: string | undefined;
  /** NextShardIterator came back null: the shard is closed and read to its end. */
  ended: boolean;
  /** Records read, not yet in a batch. */
  buffer: PolledRecord[];
  bufferBytes: number;
  /** Epoch ms the oldest buffered record was read: the batching window's start. */
  windowStartedAt: number;
  current: CurrentBatch | undefined;
  inFlight: boolean;
  /** The last record read: where a new iterator resumes after expiry. */
  lastReadSequence: string | undefined;
  /** Logical time the latest empty read was issued (see `drain`). */
  caughtUpAt: number;
  /** Consecutive failed reads, for the backoff. */
  readFailures: number;
  readonly stats: MutableShardStats;
}

/** A pending `drain()` call. */
interface DrainWaiter {
  readonly since: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

type State = 'new' | 'running' | 'stopping' | 'stopped';

/** What a poller step asks its loop to do next: go on at once, sleep, or finish the shard. */
type StepResult = { readonly sleepMs: number } | 'finished';

const GO_ON: StepResult = { sleepMs: 0 };

/**
 * Reads a Kinesis stream and invokes a handler with `KinesisStreamEvent` batches the way the
 * Lambda Kinesis event source mapping does (see the module header for what is matched).
 *
 * @example
 * ```ts
 * const esm = new LocalEventSourceMapping({
 *   client, streamName: 'stage-1-input', startingPosition: 'TRIM_HORIZON',
 *   batchSize: 500, handler: stageHandler,
 * });
 * await esm.start();
 * // … put records …
 * await esm.drain();   // everything put so far has been processed
 * await esm.stop();
 * ```
 */
export class LocalEventSourceMapping {
  private readonly options: ResolvedOptions;
  private readonly client: KinesisClient;
  private readonly ownsClient: boolean;
  private readonly lineage = new ShardLineage();
  private readonly pollers = new Map<string, ShardPoller>();
  /** Running loops and background tasks; `stop()` waits for all of them. */
  private readonly tasks = new Set<Promise<void>>();
  private readonly pollSleepers = new Set<() => void>();
  private readonly discoverySleepers = new Set<() => void>();
  private readonly drainWaiters = new Set<DrainWaiter>();
  private state: State = 'new';
  private error: unknown = undefined;
  private readonly streamName: string;
  /** The ARN given in the options; otherwise DescribeStreamSummary supplies it at start. */
  private readonly streamArnOption: string | undefined;
  private identity: EventSourceIdentity | undefined;
  private functionArn = '';
  /** Logical clock ordering drain requests against reads and listings. */
  private clock = 0;
  /** Logical time the latest completed ListShards was issued. */
  private listedAt = -1;
  private discoveryRequested = false;
  private shardDiscoveries = 0;

  /** Validates the options (errors name the bad value); nothing is read until `start()`. */
  constructor(options: LocalEventSourceMappingOptions) {
    this.options = resolveOptions(options);
    if (options.streamArn !== undefined) {
      const parts = parseStreamArn(options.streamArn);
      if (options.streamName !== undefined && options.streamName !== parts.streamName) {
        throw new FlambdaError(
          `streamName ${JSON.stringify(options.streamName)} does not match streamArn ${JSON.stringify(options.streamArn)}`,
          'user',
          'fail',
        );
      }
      this.streamName = parts.streamName;
    } else if (options.streamName !== undefined && options.streamName.length > 0) {
      this.streamName = options.streamName;
    } else {
      throw new FlambdaError('give streamName or streamArn', 'user', 'fail');
    }
    this.streamArnOption = options.streamArn;
    this.ownsClient = options.client === undefined;
    this.client = options.client ?? createKinesisClient();
  }

  /**
   * Resolves the stream's ARN, lists its shards and gets the first iterators, then starts
   * polling. When it resolves, a LATEST mapping has fixed its starting points: records put
   * afterwards are delivered, records put before are not.
   */
  async start(): Promise<void> {
    if (this.state !== 'new') {
      throw new FlambdaError(`start() was already called (the mapping is ${this.state}); create a new mapping`, 'user', 'fail');
    }
    this.state = 'running';
    try {
      const streamArn = this.streamArnOption ?? (await this.describeStreamArn());
      const parts = parseStreamArn(streamArn);
      const roleArn = this.options.roleArn ?? `arn:${parts.partition}:iam::${parts.account}:role/${this.options.functionName}-role`;
      this.identity = { streamArn, region: parts.region, roleArn };
      this.functionArn = `arn:${parts.partition}:lambda:${parts.region}:${parts.account}:function:${this.options.functionName}`;
      await this.discover(true);
    } catch (err) {
      this.fail(err);
      await this.stop();
      throw this.error;
    }
    this.track(this.discoveryLoop());
  }

  /**
   * Stops polling. In-flight invocations (and on-failure callbacks) finish first; buffered
   * records are not invoked. Pending `drain()` calls reject. Safe to call more than once.
   */
  async stop(): Promise<void> {
    if (this.state === 'new') this.state = 'stopped';
    if (this.state === 'running') this.state = 'stopping';
    this.wake(this.pollSleepers);
    this.wake(this.discoverySleepers);
    while (this.tasks.size > 0) await Promise.all([...this.tasks]);
    if (this.state === 'stopping') {
      this.state = 'stopped';
      if (this.ownsClient) this.client.destroy();
    }
    this.rejectDrains(this.error ?? new FlambdaError('the event source mapping was stopped before it drained', 'user', 'fail'));
  }

  /**
   * Resolves once every record in the stream when `drain` was called has been processed (or
   * discarded after its retries): each shard known then or created since is finished, or was
   * read to its tip after this call with nothing left in its buffer, in retry or in flight. A
   * reshard done before the call is seen (ListShards runs again first). Idle pollers are woken,
   * so a long `pollIntervalMs` does not slow it down; a batching window still runs out. Rejects
   * when the mapping fails or stops, or after `timeoutMs`.
   */
  drain(options: DrainOptions = {}): Promise<void> {
    if (this.error !== undefined) return Promise.reject(this.error);
    if (this.state !== 'running') {
      return Promise.reject(new FlambdaError(`drain() needs a running mapping (it is ${this.state})`, 'user', 'fail'));
    }
    const since = ++this.clock;
    return new Promise<void>((resolve, reject) => {
      const waiter: DrainWaiter = { since, resolve, reject, timer: undefined };
      if (options.timeoutMs !== undefined) {
        waiter.timer = setTimeout(() => {
          this.drainWaiters.delete(waiter);
          reject(new TransientError(`drain() timed out after ${options.timeoutMs} ms; shards: ${this.describeShards()}`));
        }, options.timeoutMs);
      }
      this.drainWaiters.add(waiter);
      this.requestDiscovery();
      this.wake(this.pollSleepers);
    });
  }

  /** A snapshot of the counters, totals and per shard (closed shards skipped by LATEST included). */
  stats(): EventSourceMappingStats {
    const shards: Record<string, ShardStats> = {};
    const totals = { invocations: 0, records: 0, retries: 0, failures: 0, discardedRecords: 0 };
    for (const entry of this.lineage.all()) {
      const id = entry.shard.shardId;
      const poller = this.pollers.get(id);
      const s: ShardStats =
        poller !== undefined
          ? { ...poller.stats, status: entry.status }
          : { ...emptyStats(id), status: entry.status };
      shards[id] = s;
      totals.invocations += s.invocations;
      totals.records += s.records;
      totals.retries += s.retries;
      totals.failures += s.failures;
      totals.discardedRecords += s.discardedRecords;
    }
    return { ...totals, shardDiscoveries: this.shardDiscoveries, shards };
  }

  // ── shards ──────────────────────────────────────────────────────────────────────────────

  private async describeStreamArn(): Promise<string> {
    const out = await this.client.send(new DescribeStreamSummaryCommand({ StreamName: this.streamName }));
    const arn = out.StreamDescriptionSummary?.StreamARN;
    if (arn === undefined) {
      throw new FlambdaError(`DescribeStreamSummary of stream '${this.streamName}' returned no StreamARN`, 'external', 'fail');
    }
    return arn;
  }

  /** ListShards (all pages), adds new shards to the lineage and starts the eligible ones. */
  private async discover(initial: boolean): Promise<void> {
    const issuedAt = ++this.clock;
    const shards: Shard[] = [];
    let input: ListShardsCommandInput = { StreamName: this.streamName };
    for (;;) {
      const out = await this.client.send(new ListShardsCommand(input));
      shards.push(...(out.Shards ?? []));
      if (out.NextToken === undefined) break;
      // ListShards rejects StreamName together with NextToken.
      input = { NextToken: out.NextToken };
    }
    this.shardDiscoveries++;
    this.lineage.addListing(
      shards.map((s) => ({
        shardId: s.ShardId ?? '',
        parentShardId: s.ParentShardId,
        adjacentParentShardId: s.AdjacentParentShardId,
        closed: s.SequenceNumberRange?.EndingSequenceNumber !== undefined,
      })),
      this.options.startingPosition,
      initial,
    );
    await this.startEligible();
    this.listedAt = Math.max(this.listedAt, issuedAt);
  }

  /** Gets first iterators for the shards whose parents are done, and starts their pollers. */
  private async startEligible(): Promise<void> {
    const ready = this.lineage.eligible();
    // Marked synchronously, so a concurrent call cannot start the same shard twice.
    for (const entry of ready) entry.status = 'starting';
    await Promise.all(
      ready.map(async (entry) => {
        let iterator: string | undefined;
        try {
          iterator = await this.getIterator(entry.shard.shardId, entry.start, undefined);
        } catch (err) {
          entry.status = 'waiting';
          // The next discovery tries again.
          if (isRetryableAwsError(err)) return;
          throw err;
        }
        if (this.state !== 'running') {
          entry.status = 'waiting';
          return;
        }
        const poller = newPoller(entry, iterator);
        this.pollers.set(poller.shardId, poller);
        entry.status = 'active';
        this.track(this.pollLoop(poller));
      }),
    );
  }

  private async getIterator(shardId: string, type: ShardIteratorType, afterSequence: string | undefined): Promise<string | undefined> {
    const out = await this.client.send(
      new GetShardIteratorCommand({
        StreamName: this.streamName,
        ShardId: shardId,
        ShardIteratorType: afterSequence === undefined ? type : 'AFTER_SEQUENCE_NUMBER',
        ...(afterSequence === undefined ? {} : { StartingSequenceNumber: afterSequence }),
        ...(afterSequence === undefined && type === 'AT_TIMESTAMP' ? { Timestamp: new Date(this.options.startingPositionTimestamp as number) } : {}),
      }),
    );
    return out.ShardIterator;
  }

  private async discoveryLoop(): Promise<void> {
    let failures = 0;
    while (this.state === 'running') {
      if (!this.discoveryRequested) {
        await this.sleep(failures > 0 ? this.backoff(failures) : this.options.shardDiscoveryIntervalMs, this.discoverySleepers);
      }
      if (this.state !== 'running') return;
      this.discoveryRequested = false;
      try {
        await this.discover(false);
        failures = 0;
      } catch (err) {
        if (!isRetryableAwsError(err)) throw err;
        failures++;
      }
      this.checkDrains();
    }
  }

  private requestDiscovery(): void {
    this.discoveryRequested = true;
    this.wake(this.discoverySleepers);
  }

  // ── polling ─────────────────────────────────────────────────────────────────────────────

  private async pollLoop(poller: ShardPoller): Promise<void> {
    while (this.state === 'running') {
      const result = await this.step(poller);
      if (result === 'finished') {
        this.finish(poller);
        return;
      }
      this.checkDrains();
      if (result.sleepMs > 0 && this.state === 'running') await this.sleep(result.sleepMs, this.pollSleepers);
    }
  }

  /** One turn of a shard's loop (see the module header). */
  private async step(p: ShardPoller): Promise<StepResult> {
    const now = Date.now();
    if (p.current !== undefined) {
      if (now < p.current.notBefore) return { sleepMs: p.current.notBefore - now };
      await this.attempt(p, p.current);
      return GO_ON;
    }
    const batch = this.takeBatch(p, now);
    if (batch !== undefined) {
      p.current = { records: batch, attempts: 0, notBefore: 0, lastError: undefined, requestId: undefined, threw: false };
      await this.attempt(p, p.current);
      return GO_ON;
    }
    if (p.ended) return 'finished';
    return this.read(p);
  }

  /**
   * The next batch from the buffer when one is due: BatchSize records or the payload limit
   * reached, the batching window over (at once without a window), or the shard ended so no
   * more records will come. "Lambda continues to read records from the event source until it
   * has gathered a full batch, the batching window expires, or the batch reaches the payload
   * limit of 6 MB."
   */
  private takeBatch(p: ShardPoller, now: number): PolledRecord[] | undefined {
    if (p.buffer.length === 0) return undefined;
    const { batchSize, maximumBatchingWindowMs } = this.options;
    const due =
      p.buffer.length >= batchSize ||
      p.bufferBytes + EVENT_ENVELOPE_BYTES >= MAX_PAYLOAD_BYTES ||
      now - p.windowStartedAt >= maximumBatchingWindowMs ||
      p.ended;
    if (!due) return undefined;
    let count = 0;
    let bytes = EVENT_ENVELOPE_BYTES;
    for (const r of p.buffer) {
      if (count === batchSize || (count > 0 && bytes + r.payloadBytes > MAX_PAYLOAD_BYTES)) break;
      bytes += r.payloadBytes;
      count++;
    }
    const batch = p.buffer.splice(0, count);
    p.bufferBytes -= bytes - EVENT_ENVELOPE_BYTES;
    p.windowStartedAt = now;
    return batch;
  }

  /** One GetRecords call; the result says how long to wait before the next step. */
  private async read(p: ShardPoller): Promise<StepResult> {
    if (p.iterator === undefined) {
      p.ended = true;
      return GO_ON;
    }
    const issuedAt = ++this.clock;
    const limit = Math.min(MAX_GET_RECORDS_LIMIT, Math.max(1, this.options.batchSize - p.buffer.length));
    p.stats.getRecordsCalls++;
    let out;
    try {
      out = await this.client.send(new GetRecordsCommand({ ShardIterator: p.iterator, Limit: limit }));
    } catch (err) {
      if (errorName(err) === 'ExpiredIteratorException') return this.renewIterator(p);
      if (isRetryableAwsError(err)) {
        p.stats.readErrors++;
        p.readFailures++;
        return { sleepMs: this.backoff(p.readFailures) };
      }
      throw new FlambdaError(`GetRecords on ${this.streamName}/${p.shardId} failed: ${describeError(err)}`, 'external', 'fail', {
        cause: err,
      });
    }
    p.readFailures = 0;
    p.iterator = out.NextShardIterator;
    if (p.iterator === undefined) p.ended = true;
    p.stats.millisBehindLatest = out.MillisBehindLatest ?? 0;
    const records = out.Records ?? [];
    if (records.length === 0) {
      p.stats.emptyReads++;
      p.caughtUpAt = issuedAt;
      if (p.ended) return GO_ON;
      // Idle shard: poll again after the interval, or when the batching window runs out.
      const windowLeft =
        p.buffer.length > 0 ? Math.max(1, this.options.maximumBatchingWindowMs - (Date.now() - p.windowStartedAt)) : Infinity;
      return { sleepMs: Math.min(this.options.pollIntervalMs, windowLeft) };
    }
    const identity = this.identity as EventSourceIdentity;
    if (p.buffer.length === 0) p.windowStartedAt = Date.now();
    for (const r of records) {
      const polled = toPolledRecord(r, p.shardId, identity);
      p.buffer.push(polled);
      p.bufferBytes += polled.payloadBytes;
    }
    p.lastReadSequence = (p.buffer[p.buffer.length - 1] as PolledRecord).sequenceNumber;
    return GO_ON;
  }

  /**
   * Replaces an expired iterator. It resumes after the last record read: everything since the
   * last checkpoint is held in memory (buffer or pending retry), so nothing is skipped or read
   * twice. Before the first record, it starts at the shard's starting position again.
   */
  private async renewIterator(p: ShardPoller): Promise<StepResult> {
    try {
      p.iterator = await this.getIterator(p.shardId, p.entry.start, p.lastReadSequence);
    } catch (err) {
      if (!isRetryableAwsError(err)) throw err;
      p.stats.readErrors++;
      p.readFailures++;
      // The expired iterator stays; the next read fails the same way and tries again.
      return { sleepMs: this.backoff(p.readFailures) };
    }
    p.stats.iteratorRefreshes++;
    return GO_ON;
  }

  /** Invokes the handler with a batch (after dropping expired records) and acts on the outcome. */
  private async attempt(p: ShardPoller, batch: CurrentBatch): Promise<void> {
    const { maximumRecordAgeMs, maximumRetryAttempts } = this.options;
    if (maximumRecordAgeMs >= 0) {
      // Arrival times grow along a shard, so the expired records are a prefix.
      const cutoff = Date.now() - maximumRecordAgeMs;
      let expired = 0;
      while (expired < batch.records.length && (batch.records[expired] as PolledRecord).arrivalMs < cutoff) expired++;
      if (expired > 0) {
        await this.discard(p, batch, batch.records.slice(0, expired), 'RecordAgeExceeded');
        batch.records = batch.records.slice(expired);
        if (batch.records.length === 0) {
          p.current = undefined;
          return;
        }
      }
    }

    const requestId = randomUUID();
    const records = batch.records;
    // Fresh objects per invocation, as Lambda deserializes a new event each time: a handler
    // that mutates its event cannot change what a retry sees.
    const event: KinesisStreamEvent = { Records: records.map((r) => copyRecord(r.event)) };
    p.stats.invocations++;
    if (batch.attempts > 0) p.stats.retries++;
    p.inFlight = true;
    let outcome;
    let error: unknown;
    let threw = false;
    try {
      const response: unknown = await this.options.handler(
        event,
        createContext({
          functionName: this.options.functionName,
          functionArn: this.functionArn,
          timeoutMs: this.options.functionTimeoutMs,
          requestId,
        }),
      );
      outcome = interpretBatchResponse(response, event.Records, this.options.reportBatchItemFailures);
      if (outcome.kind === 'failure') error = new FlambdaError(`invalid partial batch response: ${outcome.reason}`, 'user', 'retry');
    } catch (err) {
      outcome = { kind: 'failure' as const, reason: describeError(err) };
      error = err;
      threw = true;
    } finally {
      p.inFlight = false;
    }

    if (outcome.kind === 'success') {
      this.processed(p, records);
      p.current = undefined;
      return;
    }
    if (outcome.kind === 'partial' && outcome.index > 0) {
      // "Lambda uses the record with the lowest sequence number as the checkpoint": the
      // records before it are done and are never delivered again.
      this.processed(p, records.slice(0, outcome.index));
      batch.records = records.slice(outcome.index);
    }
    batch.attempts++;
    batch.lastError = error;
    batch.requestId = requestId;
    batch.threw = threw;
    if (maximumRetryAttempts >= 0 && batch.attempts > maximumRetryAttempts) {
      await this.discard(p, batch, batch.records, 'RetryAttemptsExhausted');
      p.current = undefined;
      return;
    }
    batch.notBefore = Date.now() + this.backoff(batch.attempts);
  }

  private processed(p: ShardPoller, records: readonly PolledRecord[]): void {
    const last = records[records.length - 1];
    if (last === undefined) return;
    p.stats.records += records.length;
    p.stats.checkpoint = last.sequenceNumber;
  }

  /**
   * Skips records as AWS does when retries are exhausted or records are too old: counted, the
   * shard and sequence range handed to `onFailure`, and the checkpoint moved past them.
   */
  private async discard(p: ShardPoller, batch: CurrentBatch, records: readonly PolledRecord[], condition: FailureCondition): Promise<void> {
    const last = records[records.length - 1];
    if (last === undefined) return;
    p.stats.failures++;
    p.stats.discardedRecords += records.length;
    p.stats.checkpoint = last.sequenceNumber;
    const onFailure = this.options.onFailure;
    if (onFailure === undefined) return;
    const record = buildFailureRecord({
      condition,
      shardId: p.shardId,
      streamArn: (this.identity as EventSourceIdentity).streamArn,
      functionArn: this.functionArn,
      records,
      invokeCount: batch.attempts,
      requestId: batch.requestId,
      functionError: batch.threw,
    });
    try {
      await onFailure(record, {
        records: records.map((r) => copyRecord(r.event)),
        lastError: condition === 'RecordAgeExceeded' ? undefined : batch.lastError,
      });
    } catch (err) {
      throw new FlambdaError(`onFailure callback failed for ${p.shardId}: ${describeError(err)}`, 'user', 'fail', { cause: err });
    }
  }

  /** A shard read to its end with nothing pending: its children may start now. */
  private finish(p: ShardPoller): void {
    p.entry.status = 'finished';
    if (this.state !== 'running') return;
    this.track(this.startEligible());
    // A child may not be listed yet if the reshard happened after the last listing.
    this.requestDiscovery();
    this.checkDrains();
  }

  // ── drain, sleep, failure ───────────────────────────────────────────────────────────────

  private checkDrains(): void {
    if (this.drainWaiters.size === 0) return;
    for (const waiter of [...this.drainWaiters]) {
      if (this.drainedSince(waiter.since)) {
        this.drainWaiters.delete(waiter);
        if (waiter.timer !== undefined) clearTimeout(waiter.timer);
        waiter.resolve();
      }
    }
  }

  /**
   * Whether every record in the stream at logical time `since` is processed: the shard list
   * was read after it, and every shard is finished or caught up (an empty read issued after it,
   * nothing buffered, pending or in flight).
   */
  private drainedSince(since: number): boolean {
    if (this.listedAt < since) return false;
    for (const entry of this.lineage.all()) {
      if (entry.status === 'finished') continue;
      if (entry.status !== 'active') return false;
      const p = this.pollers.get(entry.shard.shardId);
      if (p === undefined || p.buffer.length > 0 || p.current !== undefined || p.inFlight) return false;
      if (p.caughtUpAt < since && !p.ended) return false;
    }
    return true;
  }

  private rejectDrains(error: unknown): void {
    for (const waiter of [...this.drainWaiters]) {
      this.drainWaiters.delete(waiter);
      if (waiter.timer !== undefined) clearTimeout(waiter.timer);
      waiter.reject(error);
    }
  }

  private describeShards(): string {
    return this.lineage
      .all()
      .map((e) => {
        const p = this.pollers.get(e.shard.shardId);
        const detail = p === undefined ? '' : ` buffered=${p.buffer.length} pending=${p.current?.records.length ?? 0}`;
        return `${e.shard.shardId}=${e.status}${detail}`;
      })
      .join(', ');
  }

  /** Runs a background task; a task that throws fails the whole mapping. */
  private track(task: Promise<void>): void {
    const tracked = task.catch((err: unknown) => this.fail(err));
    this.tasks.add(tracked);
    void tracked.finally(() => this.tasks.delete(tracked));
  }

  /** Stops everything after an error no retry will fix; `drain()` rejects with it. */
  private fail(err: unknown): void {
    if (this.error === undefined) {
      this.error =
        err instanceof FlambdaError
          ? err
          : new FlambdaError(`event source mapping for stream '${this.streamName}' failed: ${describeError(err)}`, 'external', 'fail', {
              cause: err,
            });
    }
    if (this.state === 'running') this.state = 'stopping';
    this.wake(this.pollSleepers);
    this.wake(this.discoverySleepers);
    this.rejectDrains(this.error);
  }

  /** Waits `ms`, or less when woken (drain, stop, a shard ending). */
  private sleep(ms: number, sleepers: Set<() => void>): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      sleepers.add(done);
    });
  }

  private wake(sleepers: Set<() => void>): void {
    for (const done of [...sleepers]) done();
  }

  /** Exponential backoff from `retryDelayMs`, capped at 10 s. */
  private backoff(failures: number): number {
    return Math.min(MAX_RETRY_DELAY_MS, this.options.retryDelayMs * 2 ** Math.max(0, failures - 1));
  }
}

/** Applies defaults and checks ranges; messages name the bad value, as CDK's do. */
function resolveOptions(o: LocalEventSourceMappingOptions): ResolvedOptions {
  if (typeof o.handler !== 'function') throw new FlambdaError('handler must be a function', 'user', 'fail');
  if (o.startingPosition !== 'TRIM_HORIZON' && o.startingPosition !== 'LATEST' && o.startingPosition !== 'AT_TIMESTAMP') {
    throw new FlambdaError(`startingPosition must be TRIM_HORIZON, LATEST or AT_TIMESTAMP (given ${String(o.startingPosition)})`, 'user', 'fail');
  }
  const at = o.startingPositionTimestamp instanceof Date ? o.startingPositionTimestamp.getTime() : o.startingPositionTimestamp;
  if ((o.startingPosition === 'AT_TIMESTAMP') !== (at !== undefined)) {
    throw new FlambdaError(`startingPositionTimestamp goes with startingPosition AT_TIMESTAMP, and only with it (given ${o.startingPosition} and ${String(at)})`, 'user', 'fail');
  }
  if (at !== undefined && !Number.isFinite(at)) throw new FlambdaError(`startingPositionTimestamp must be a valid time (given ${String(o.startingPositionTimestamp)})`, 'user', 'fail');
  const maximumRecordAgeMs = o.maximumRecordAgeMs ?? -1;
  if (maximumRecordAgeMs !== -1) checkInt('maximumRecordAgeMs', maximumRecordAgeMs, 0, MAX_RECORD_AGE_MS, ' or -1');
  const functionName = o.functionName ?? DEFAULT_FUNCTION_NAME;
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(functionName)) {
    throw new FlambdaError(`functionName must be 1..64 letters, digits, '-' or '_' (given ${JSON.stringify(functionName)})`, 'user', 'fail');
  }
  return {
    handler: o.handler,
    startingPosition: o.startingPosition,
    startingPositionTimestamp: at,
    batchSize: checkInt('batchSize', o.batchSize ?? DEFAULT_BATCH_SIZE, 1, MAX_BATCH_SIZE),
    maximumBatchingWindowMs: checkInt('maximumBatchingWindowMs', o.maximumBatchingWindowMs ?? 0, 0, MAX_BATCHING_WINDOW_MS),
    reportBatchItemFailures: o.reportBatchItemFailures ?? true,
    maximumRetryAttempts: checkInt('maximumRetryAttempts', o.maximumRetryAttempts ?? -1, -1, MAX_RETRY_ATTEMPTS),
    maximumRecordAgeMs,
    onFailure: o.onFailure,
    pollIntervalMs: checkInt('pollIntervalMs', o.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS, 1, 3_600_000),
    shardDiscoveryIntervalMs: checkInt('shardDiscoveryIntervalMs', o.shardDiscoveryIntervalMs ?? DEFAULT_SHARD_DISCOVERY_INTERVAL_MS, 1, 3_600_000),
    retryDelayMs: checkInt('retryDelayMs', o.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS, 0, MAX_RETRY_DELAY_MS),
    functionName,
    functionTimeoutMs: checkInt('functionTimeoutMs', o.functionTimeoutMs ?? DEFAULT_FUNCTION_TIMEOUT_MS, 1, 900_000),
    roleArn: o.roleArn,
  };
}

function checkInt(name: string, value: number, min: number, max: number, extra = ''): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new FlambdaError(`${name} must be ${min}..${max}${extra} (given ${String(value)})`, 'user', 'fail');
  }
  return value;
}

function newPoller(entry: LineageEntry, iterator: string | undefined): ShardPoller {
  const shardId = entry.shard.shardId;
  return {
    entry,
    shardId,
    iterator,
    ended: false,
    buffer: [],
    bufferBytes: 0,
    windowStartedAt: 0,
    current: undefined,
    inFlight: false,
    lastReadSequence: undefined,
    caughtUpAt: -1,
    readFailures: 0,
    stats: emptyStats(shardId),
  };
}

function emptyStats(shardId: string): MutableShardStats {
  return {
    shardId,
    status: 'waiting',
    invocations: 0,
    records: 0,
    retries: 0,
    failures: 0,
    discardedRecords: 0,
    getRecordsCalls: 0,
    emptyReads: 0,
    iteratorRefreshes: 0,
    readErrors: 0,
    millisBehindLatest: 0,
    checkpoint: undefined,
  };
}

function copyRecord(r: KinesisStreamRecord): KinesisStreamRecord {
  return { ...r, kinesis: { ...r.kinesis } };
}

function errorName(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && typeof (err as { name?: unknown }).name === 'string'
    ? (err as { name: string }).name
    : undefined;
}

function describeError(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}
