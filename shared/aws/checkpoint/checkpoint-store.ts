/**
 * The checkpoint item of one (stage, input shard) and the conditional writes of the
 * effectively-once protocol (docs/effectively-once.md), without DynamoDB transactions:
 *
 * ```
 *  fence     UpdateItem  epoch += 1, lease = deadline      if lease free (released, or expired + grace)
 *  announce  UpdateItem  pending = first..last              if epoch = mine
 *  (skipped  UpdateItem  REMOVE pending                      if epoch = mine: the mapping discarded the range)
 *  commit    [BatchWriteItem redo chunks, when large]
 *            UpdateItem  version += 1, seq, reader, watermark, redo, REMOVE pending   if epoch = mine
 *  finish    UpdateItem  lease = 0, REMOVE redo            if epoch = mine (a fenced-out owner changes nothing)
 * ```
 *
 * Items live in the pipeline's state table under partition keys that start with `#`, which no
 * operator state key can (operator ids never contain `#`): `#ckpt#<stage>#<shard>` and, for redo
 * logs too large to sit inline in the checkpoint item, `#redo#<stage>#<shard>`.
 *
 * The lease is what lets a new owner start while an older invocation of the same shard might
 * still be running (a timeout overlapping the retry): the older one never issues a write after
 * its deadline ({@link CheckpointStore.checkLease}), and the new owner waits until the deadline
 * plus a grace period has passed, unless the older one released the lease when it returned.
 * Conditional writes on the epoch then turn away anything the older one still tries.
 */
import { Buffer } from 'node:buffer';
import { GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { AttributeValue, WriteRequest } from '@aws-sdk/client-dynamodb';
import { FlambdaError, PlanError, TransientError } from '../../core/errors.ts';
import { sleep as realSleep } from '../state/concurrency.ts';
import { toStateError } from '../state/errors.ts';
import { batchWrite, newIoCounters, queryPartition } from '../state/table-io.ts';
import type { DynamoDbSender, IoCounters } from '../state/table-io.ts';
import { decodeValue, encodeValue } from '../state/value-codec.ts';

/** Characters of redo text per redo chunk item (≤ 3 UTF-8 bytes each: < 400 KB per item). */
export const REDO_CHUNK_CHARS = 100_000;

/** Most UTF-8 bytes of redo log and data kept inline in the checkpoint item (DynamoDB's limit is 400 KB per item). */
export const INLINE_REDO_BYTES = 350_000;

/** An input range `first..last` (Kinesis sequence numbers, inclusive). */
export interface SequenceRange {
  readonly first: string;
  readonly last: string;
  /**
   * Under commit intervals, the first record of the event that announced the range (the
   * interval's earlier records came with earlier events): Lambda re-delivers from here, so only
   * an event starting after it shows the mapping discarded the range (skipped-range.ts).
   */
  readonly delivered?: string;
}

/** Where a committed batch's redo log is. */
export type RedoRef = { readonly version: number; readonly inline: string } | { readonly version: number; readonly chunks: number };

/** The checkpoint as this invocation found it after fencing. */
export interface Checkpoint {
  /** This invocation's fencing token. */
  readonly epoch: number;
  /** Commits so far. */
  readonly version: number;
  /** What the stage stored with the last commit (reader snapshot, watermark …); undefined before the first. */
  readonly data: unknown;
  /** An announced range whose output may have been (partly) sent but is not committed. */
  readonly pending: SequenceRange | undefined;
  /** A committed redo log that may not be fully applied. */
  readonly redo: RedoRef | undefined;
}

/** Options of {@link CheckpointStore}. */
export interface CheckpointStoreOptions {
  readonly client: DynamoDbSender;
  readonly tableName: string;
  readonly stage: string;
  readonly shardId: string;
  /** Lease clock, epoch ms. @default Date.now */
  readonly now?: () => number;
  /** Waits between polls of a held lease. @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Poll interval while another invocation holds the lease. @default 200 */
  readonly pollMs?: number;
  /** Time past an unreleased lease's deadline before taking it over (requests in flight at the deadline). @default 1000 */
  readonly graceMs?: number;
  /** Stop issuing writes this long before the own deadline. @default 500 */
  readonly safetyMs?: number;
  /** Longest total wait for a held lease before giving up with a {@link LeaseHeldError} (the batch is retried). @default 15 minutes */
  readonly maxWaitMs?: number;
}

/** A conditional write found another invocation's epoch: this one no longer owns the shard. */
export class FencedError extends FlambdaError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 'external', 'retry', options);
  }
}

/** Another invocation held the lease for longer than the caller would wait (`maxWaitMs`). */
export class LeaseHeldError extends TransientError {}

const A = { pk: 'pk', sk: 'sk', epoch: 'epoch', lease: 'lease', version: 'version', data: 'data', pending: 'pending', redo: 'redo', redoChunks: 'redoChunks', redoVersion: 'redoVersion', chunk: 'd' } as const;
const CHECKPOINT_SK = 'ckpt';

/** See the module documentation. One instance per (stage, shard) and invocation chain. */
export class CheckpointStore {
  readonly pk: string;
  private readonly redoPk: string;
  private readonly options: CheckpointStoreOptions;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  /** DynamoDB requests made, for metrics and the state-io benchmark. */
  readonly io: IoCounters = newIoCounters();
  private epoch: number | undefined;
  /** The lease end stored in the checkpoint item. */
  private deadline = 0;
  /** The invocation's own end: the lease is never renewed past it. */
  private hardDeadline = Infinity;
  /** Length of one lease slice (see {@link keepLease}). */
  private sliceMs = Infinity;

  constructor(options: CheckpointStoreOptions) {
    if (options.stage.includes('#') || options.shardId.includes('#')) {
      throw new PlanError(`stage and shard ids must not contain '#' (given ${options.stage}, ${options.shardId})`);
    }
    this.options = options;
    this.pk = `#ckpt#${options.stage}#${options.shardId}`;
    this.redoPk = `#redo#${options.stage}#${options.shardId}`;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? realSleep;
  }

  /** The epoch this store holds, if fenced. */
  get currentEpoch(): number | undefined {
    return this.epoch;
  }

  /**
   * Takes the shard: waits while another invocation holds an unexpired lease, then bumps the
   * epoch and sets the lease to `deadline`. Returns the checkpoint as committed so far.
   *
   * @throws LeaseHeldError when the lease stays held longer than `maxWaitMs`; TransientError when DynamoDB fails.
   */
  async fence(deadline: number, hardDeadline: number = deadline): Promise<Checkpoint> {
    const graceMs = this.options.graceMs ?? 1000;
    const pollMs = this.options.pollMs ?? 200;
    const giveUpAt = this.now() + (this.options.maxWaitMs ?? 15 * 60_000);
    for (;;) {
      const now = this.now();
      let output;
      try {
        output = await this.options.client.send(
          new UpdateItemCommand({
            TableName: this.options.tableName,
            Key: this.key(),
            UpdateExpression: 'SET #epoch = if_not_exists(#epoch, :zero) + :one, #lease = :deadline, #version = if_not_exists(#version, :zero)',
            ConditionExpression: 'attribute_not_exists(#pk) OR #lease < :free',
            ExpressionAttributeNames: { '#epoch': A.epoch, '#lease': A.lease, '#version': A.version, '#pk': A.pk },
            ExpressionAttributeValues: { ':zero': num(0), ':one': num(1), ':deadline': num(deadline), ':free': num(now - graceMs) },
            ReturnValues: 'ALL_NEW',
          }),
        );
        this.io.writeRequests++;
      } catch (error) {
        if (!isConditionFailure(error)) throw toStateError(error, `fencing ${this.pk}`);
        this.io.writeRequests++;
        const held = await this.read();
        const lease = held === undefined ? 0 : readNum(held, A.lease);
        if (this.now() > giveUpAt) {
          throw new LeaseHeldError(`shard ${this.options.shardId} of stage ${this.options.stage} stayed leased by another invocation (until ${new Date(lease).toISOString()})`);
        }
        const freeAt = lease + graceMs;
        await this.sleep(Math.max(1, Math.min(pollMs, freeAt - this.now() + 1)));
        continue;
      }
      const item = output.Attributes ?? {};
      this.epoch = readNum(item, A.epoch);
      this.deadline = deadline;
      this.hardDeadline = Math.max(deadline, hardDeadline);
      this.sliceMs = deadline - now;
      return parseCheckpoint(item, this.epoch);
    }
  }

  /**
   * Continues holding the shard in a later invocation of the same container, without a write:
   * true when this store still holds its epoch and its lease runs past now plus the safety
   * margin — nobody can have fenced meanwhile, since a successor waits for the lease plus the
   * grace period. The lease may then be renewed up to `hardDeadline` (the new invocation's end).
   * False when it must {@link fence} again (the epoch is kept, so the caller can tell from the
   * next fence's epoch whether anybody else fenced in between).
   */
  resume(hardDeadline: number): boolean {
    if (this.epoch === undefined) return false;
    if (this.now() >= this.deadline - (this.options.safetyMs ?? 500)) return false;
    this.hardDeadline = Math.max(this.deadline, hardDeadline);
    return true;
  }

  /**
   * Throws unless this invocation may still write: it is fenced and its deadline (less the
   * safety margin) has not passed.
   */
  checkLease(): void {
    if (this.epoch === undefined) throw new FlambdaError(`checkpoint ${this.pk}: write before fence()`, 'internal', 'fail');
    if (this.now() >= this.deadline - (this.options.safetyMs ?? 500)) {
      throw new FencedError(`the lease of ${this.options.stage}/${this.options.shardId} ran out; leaving the batch to the next invocation`);
    }
  }

  /**
   * Makes sure the lease covers the next write: throws when the invocation's own deadline (less
   * the safety margin) has come; renews the lease by another slice (conditional on the epoch,
   * never past the invocation's deadline) when less than half a slice or the safety margin is
   * left. Short slices bound how long a successor waits for a dead invocation's lease (slice +
   * grace) while a live invocation keeps its shard for as long as it runs.
   *
   * @throws FencedError when the invocation's time is up or another invocation took the shard.
   */
  async keepLease(): Promise<void> {
    const safety = this.options.safetyMs ?? 500;
    const now = this.now();
    if (now >= this.hardDeadline - safety) {
      throw new FencedError(`the invocation of ${this.options.stage}/${this.options.shardId} is out of time; leaving the batch to the next invocation`);
    }
    const left = this.deadline - now;
    if (left >= Math.max(safety, this.sliceMs / 2) || this.deadline >= this.hardDeadline) {
      this.checkLease();
      return;
    }
    const until = Math.min(this.hardDeadline, now + this.sliceMs);
    // Conditional on the epoch only: if the lease lapsed meanwhile but nobody fenced, the shard
    // is still ours; if somebody did, the condition fails and this invocation stops writing.
    await this.update('SET #lease = :until', { '#lease': A.lease }, { ':until': num(until) }, 'lease renewal', false);
    this.deadline = until;
  }

  /** Records `range` as the batch whose output is about to be sent. @throws FencedError */
  async announce(range: SequenceRange): Promise<void> {
    await this.update('SET #pending = :pending', { '#pending': A.pending }, { ':pending': { S: JSON.stringify(range) } }, 'announce');
  }

  /**
   * Forgets the announced range without committing: the event source mapping discarded it and
   * will never deliver it again (skipped-range.ts). @throws FencedError
   */
  async clearPending(): Promise<void> {
    await this.update('REMOVE #pending', { '#pending': A.pending }, {}, 'clearing a skipped range');
  }

  /**
   * Commits version `version` (the previous + 1): stores `data` and the redo log (inline when
   * small, else as chunk items written first), clears the pending range. @throws FencedError
   */
  async commit(version: number, data: unknown, redo: string | undefined): Promise<RedoRef | undefined> {
    let ref: RedoRef | undefined;
    const names: Record<string, string> = { '#version': A.version, '#data': A.data, '#pending': A.pending, '#redo': A.redo, '#chunks': A.redoChunks, '#rv': A.redoVersion };
    const dataText = encodeValue(data);
    const values: Record<string, AttributeValue> = { ':version': num(version), ':data': { S: dataText } };
    let expression = 'SET #version = :version, #data = :data';
    if (redo === undefined || redo.length === 0) {
      expression += ' REMOVE #pending, #redo, #chunks, #rv';
    } else if (Buffer.byteLength(redo, 'utf8') + Buffer.byteLength(dataText, 'utf8') <= INLINE_REDO_BYTES) {
      ref = { version, inline: redo };
      expression += ', #redo = :redo, #rv = :version REMOVE #pending, #chunks';
      values[':redo'] = { S: redo };
    } else {
      const chunks = Math.ceil(redo.length / REDO_CHUNK_CHARS);
      const puts: WriteRequest[] = [];
      for (let i = 0; i < chunks; i++) {
        puts.push({ PutRequest: { Item: { [A.pk]: { S: this.redoPk }, [A.sk]: { S: redoSortKey(version, i) }, [A.chunk]: { S: redo.slice(i * REDO_CHUNK_CHARS, (i + 1) * REDO_CHUNK_CHARS) } } } });
      }
      this.checkLease();
      await batchWrite(puts, this.writeOptions(), this.io);
      ref = { version, chunks };
      expression += ', #chunks = :chunks, #rv = :version REMOVE #pending, #redo';
      values[':chunks'] = num(chunks);
    }
    await this.update(expression, names, values, 'commit');
    return ref;
  }

  /** The redo log text a {@link RedoRef} points at. */
  async readRedo(ref: RedoRef): Promise<string> {
    if ('inline' in ref) return ref.inline;
    const items = await queryPartition(this.options.client, this.options.tableName, this.redoPk, this.io);
    const parts: string[] = [];
    for (const item of items) {
      const sk = item[A.sk]?.S ?? '';
      const prefix = `${padVersion(ref.version)}#`;
      if (!sk.startsWith(prefix)) continue;
      parts[Number.parseInt(sk.slice(prefix.length), 10)] = item[A.chunk]?.S ?? '';
    }
    for (let i = 0; i < ref.chunks; i++) {
      if (parts[i] === undefined) throw new FlambdaError(`redo log ${this.redoPk} version ${ref.version} lacks chunk ${i} of ${ref.chunks}`, 'internal', 'fail');
    }
    return parts.slice(0, ref.chunks).join('');
  }

  /**
   * Ends the invocation's hold: releases the lease and, when `appliedRedo` is given, forgets that
   * redo log (deleting its chunk items). A fenced-out owner's release changes nothing.
   */
  async release(appliedRedo: RedoRef | undefined): Promise<void> {
    if (this.epoch === undefined) return;
    try {
      if (appliedRedo !== undefined && 'chunks' in appliedRedo) {
        // Deleting chunks is a write like any other: only while the lease holds.
        await this.keepLease();
        const deletes: WriteRequest[] = [];
        for (let i = 0; i < appliedRedo.chunks; i++) deletes.push({ DeleteRequest: { Key: { [A.pk]: { S: this.redoPk }, [A.sk]: { S: redoSortKey(appliedRedo.version, i) } } } });
        await batchWrite(deletes, this.writeOptions(), this.io);
      }
      const remove = appliedRedo === undefined ? '' : ' REMOVE #redo, #chunks, #rv';
      const names: Record<string, string> = appliedRedo === undefined ? {} : { '#redo': A.redo, '#chunks': A.redoChunks, '#rv': A.redoVersion };
      await this.update(`SET #lease = :zero${remove}`, { ...names, '#lease': A.lease }, { ':zero': num(0) }, 'release', false);
    } catch (error) {
      if (!(error instanceof FencedError)) throw error;
    } finally {
      this.epoch = undefined;
    }
  }

  private async update(expression: string, names: Record<string, string>, values: Record<string, AttributeValue>, what: string, checkLease = true): Promise<void> {
    if (checkLease) this.checkLease();
    if (this.epoch === undefined) throw new FlambdaError(`checkpoint ${this.pk}: ${what} before fence()`, 'internal', 'fail');
    try {
      await this.options.client.send(
        new UpdateItemCommand({
          TableName: this.options.tableName,
          Key: this.key(),
          UpdateExpression: expression,
          ConditionExpression: '#epoch = :epoch',
          ExpressionAttributeNames: { ...names, '#epoch': A.epoch },
          ExpressionAttributeValues: { ...values, ':epoch': num(this.epoch) },
        }),
      );
      this.io.writeRequests++;
    } catch (error) {
      if (isConditionFailure(error)) {
        this.io.writeRequests++;
        throw new FencedError(`${what} of ${this.options.stage}/${this.options.shardId} was fenced out: another invocation took the shard (epoch ${this.epoch} is stale)`, { cause: error });
      }
      throw toStateError(error, `${what} of ${this.pk}`);
    }
  }

  private async read(): Promise<Record<string, AttributeValue> | undefined> {
    try {
      const output = await this.options.client.send(new GetItemCommand({ TableName: this.options.tableName, Key: this.key(), ConsistentRead: true }));
      this.io.readRequests++;
      return output.Item;
    } catch (error) {
      throw toStateError(error, `reading ${this.pk}`);
    }
  }

  private key(): Record<string, AttributeValue> {
    return { [A.pk]: { S: this.pk }, [A.sk]: { S: CHECKPOINT_SK } };
  }

  private writeOptions() {
    return { client: this.options.client, tableName: this.options.tableName, concurrency: 4, maxAttempts: 8, baseMs: 50, maxMs: 2000, random: Math.random, sleep: this.sleep };
  }
}

function parseCheckpoint(item: Record<string, AttributeValue>, epoch: number): Checkpoint {
  const pendingText = item[A.pending]?.S;
  const dataText = item[A.data]?.S;
  let redo: RedoRef | undefined;
  const inline = item[A.redo]?.S;
  if (inline !== undefined) redo = { version: readNum(item, A.redoVersion), inline };
  else if (item[A.redoChunks]?.N !== undefined) redo = { version: readNum(item, A.redoVersion), chunks: readNum(item, A.redoChunks) };
  return {
    epoch,
    version: readNum(item, A.version),
    data: dataText === undefined ? undefined : decodeValue(dataText),
    pending: pendingText === undefined ? undefined : (JSON.parse(pendingText) as SequenceRange),
    redo,
  };
}

function num(n: number): AttributeValue {
  return { N: String(n) };
}

function readNum(item: Record<string, AttributeValue>, name: string): number {
  const text = item[name]?.N;
  return text === undefined ? 0 : Number(text);
}

function padVersion(version: number): string {
  return String(version).padStart(12, '0');
}

function redoSortKey(version: number, chunk: number): string {
  return `${padVersion(version)}#${chunk}`;
}

function isConditionFailure(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'ConditionalCheckFailedException';
}
