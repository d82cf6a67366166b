/**
 * Helpers for the local event source mapping tests: put labelled records, and a handler that
 * records every invocation (which shard, which records, when, how many ran at once) and answers
 * with whatever a test's `respond` function decides.
 */
import { Buffer } from 'node:buffer';
import { PutRecordsCommand } from '@aws-sdk/client-kinesis';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { Context, KinesisStreamBatchResponse, KinesisStreamEvent } from 'aws-lambda';
import type { KinesisEventHandler } from '../../shared/aws/esm/types.ts';

/** A record to put: its partition key and a unique text payload. */
export interface LabelledRecord {
  readonly partitionKey: string;
  readonly data: string;
}

/** Where a put record landed. */
export interface PutResult extends LabelledRecord {
  readonly shardId: string;
  readonly sequenceNumber: string;
}

/** Puts records in order (PutRecords, 500 per call) and returns where each landed. */
export async function putLabelled(client: KinesisClient, streamName: string, records: readonly LabelledRecord[]): Promise<PutResult[]> {
  const results: PutResult[] = [];
  for (let i = 0; i < records.length; i += 500) {
    const chunk = records.slice(i, i + 500);
    const out = await client.send(
      new PutRecordsCommand({
        StreamName: streamName,
        Records: chunk.map((r) => ({ PartitionKey: r.partitionKey, Data: Buffer.from(r.data, 'utf8') })),
      }),
    );
    (out.Records ?? []).forEach((entry, j) => {
      if (entry.ErrorCode !== undefined) throw new Error(`put failed: ${entry.ErrorCode}`);
      const r = chunk[j] as LabelledRecord;
      results.push({ ...r, shardId: entry.ShardId ?? '', sequenceNumber: entry.SequenceNumber ?? '' });
    });
  }
  return results;
}

/** `n` records `<prefix><i>` spread over `keys` partition keys. */
export function labelled(n: number, prefix = 'r', keys = 17): LabelledRecord[] {
  return Array.from({ length: n }, (_, i) => ({ partitionKey: `k${i % keys}`, data: `${prefix}${i}` }));
}

/** One recorded invocation. */
export interface Invocation {
  /** 0-based, in start order. */
  readonly index: number;
  readonly shardId: string;
  readonly event: KinesisStreamEvent;
  readonly context: Context;
  /** Decoded payloads, in event order. */
  readonly data: string[];
  readonly sequenceNumbers: string[];
  /** Date.now() at start. */
  readonly startedAtMs: number;
  /** Position in the start/end event log when it started, and when it ended. */
  readonly startTick: number;
  endTick: number;
}

/** Decides a handler's answer; throw to fail the batch. */
export type Respond = (invocation: Invocation) => Promise<KinesisStreamBatchResponse | void> | KinesisStreamBatchResponse | void;

/** A handler that records what it was given. */
export interface RecordingHandler {
  readonly handler: KinesisEventHandler;
  readonly invocations: Invocation[];
  /** Most invocations of one shard that ever ran at the same time, per shard. */
  readonly maxActivePerShard: Map<string, number>;
  /** Most invocations that ever ran at the same time, over all shards. */
  maxActive(): number;
  /** Every payload delivered, in delivery order, successful or not. */
  delivered(): string[];
  /** Invocations of one shard. */
  of(shardId: string): Invocation[];
}

/** The shard id of an event, from its first record's `eventID` (`shardId-…:seq`). */
export function shardOfEvent(event: KinesisStreamEvent): string {
  const id = event.Records[0]?.eventID ?? '';
  return id.slice(0, id.indexOf(':'));
}

/** A recording handler; `delayMs` keeps each invocation busy, to exercise overlap. */
export function recordingHandler(respond: Respond = () => undefined, delayMs = 0): RecordingHandler {
  const invocations: Invocation[] = [];
  const active = new Map<string, number>();
  const maxActivePerShard = new Map<string, number>();
  let activeTotal = 0;
  let maxTotal = 0;
  let tick = 0;
  const handler: KinesisEventHandler = async (event, context) => {
    const shardId = shardOfEvent(event);
    const invocation: Invocation = {
      index: invocations.length,
      shardId,
      event,
      context,
      data: event.Records.map((r) => Buffer.from(r.kinesis.data, 'base64').toString('utf8')),
      sequenceNumbers: event.Records.map((r) => r.kinesis.sequenceNumber),
      startedAtMs: Date.now(),
      startTick: tick++,
      endTick: -1,
    };
    invocations.push(invocation);
    const now = (active.get(shardId) ?? 0) + 1;
    active.set(shardId, now);
    maxActivePerShard.set(shardId, Math.max(maxActivePerShard.get(shardId) ?? 0, now));
    activeTotal++;
    maxTotal = Math.max(maxTotal, activeTotal);
    try {
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      return await respond(invocation);
    } finally {
      active.set(shardId, (active.get(shardId) ?? 1) - 1);
      activeTotal--;
      invocation.endTick = tick++;
    }
  };
  return {
    handler,
    invocations,
    maxActivePerShard,
    maxActive: () => maxTotal,
    delivered: () => invocations.flatMap((i) => i.data),
    of: (shardId) => invocations.filter((i) => i.shardId === shardId),
  };
}

/** A promise and its resolver, for handlers a test releases by hand. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Waits `ms` milliseconds. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
