/**
 * Reading a stage's own input shard again, by sequence number, for commits decoupled from the
 * event source mapping's batches (docs/effectively-once.md, "Commit intervals"):
 *
 * - {@link readUncommitted}: after a container switch, the records after the committed position
 *   that an earlier invocation processed but did not commit — the mapping has moved past them
 *   and will not deliver them again — up to the first record of the current event;
 * - {@link hasRecordsAfter}: whether the shard holds records after an event's last one (a
 *   deferred commit waits for the next event only when there is one);
 * - {@link readToTip}: every record after a position (or from the oldest) up to the shard's
 *   tip — a generator producer resuming after a crash looks there for the rows it already put.
 *
 * Records come back exactly as Lambda delivers them (shared/aws/esm/kinesis-event.ts), so a
 * replayed range decodes to the same rows and arrival times. Reads are bounded by the stream's
 * retention (24 hours by default): a commit interval is seconds.
 */
import { GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-kinesis';
import type { KinesisClient, _Record as KinesisRecord } from '@aws-sdk/client-kinesis';
import type { KinesisStreamRecord } from 'aws-lambda';
import { FlambdaError } from '../../core/errors.ts';
import { toPolledRecord } from '../esm/kinesis-event.ts';
import { compareSequenceNumbers } from './kinesis-records.ts';

/** The Kinesis calls the reads need. */
export type ShardReadClient = Pick<KinesisClient, 'send'>;

/** GetRecords calls one catch-up makes at most before giving up (the batch is then retried). */
const MAX_CALLS = 1_000;

/**
 * The records of `shardId` with a sequence number after `after` and before `before`, as event
 * records shaped like `like` (its stream ARN, region and role). Empty when the shard's next
 * record after `after` is `before` itself.
 *
 * @throws FlambdaError (external, retry) when Kinesis fails or the shard does not reach `before`
 *   within {@link MAX_CALLS} reads.
 */
export async function readUncommitted(client: ShardReadClient, streamName: string, shardId: string, after: string, before: string, like: KinesisStreamRecord): Promise<KinesisStreamRecord[]> {
  const identity = { streamArn: like.eventSourceARN, region: like.awsRegion, roleArn: like.invokeIdentityArn };
  const out: KinesisStreamRecord[] = [];
  let iterator = await iteratorAfter(client, streamName, shardId, after);
  for (let calls = 0; iterator != null; calls++) {
    if (calls >= MAX_CALLS) throw new FlambdaError(`re-reading ${streamName}/${shardId} after ${after}: ${before} not reached in ${MAX_CALLS} GetRecords calls`, 'external', 'retry');
    const page = await getRecords(client, iterator, 10_000, `${streamName}/${shardId}`);
    for (const record of page.Records ?? []) {
      const seq = record.SequenceNumber ?? '';
      if (compareSequenceNumbers(seq, before) >= 0) return out;
      out.push(toPolledRecord(record, shardId, identity).event);
    }
    // Caught up without meeting `before`: the event's first record is the next one written.
    if ((page.Records ?? []).length === 0 && (page.MillisBehindLatest ?? 0) === 0) return out;
    iterator = page.NextShardIterator;
  }
  return out;
}

/**
 * True when `shardId` holds a record after `last`. One GetShardIterator and one GetRecords
 * (Limit 1); an empty read that is not at the shard's tip reads on. Errors count as "yes": the
 * caller then commits at once, which is always safe.
 */
export async function hasRecordsAfter(client: ShardReadClient, streamName: string, shardId: string, last: string): Promise<boolean> {
  try {
    let iterator = await iteratorAfter(client, streamName, shardId, last);
    for (let calls = 0; iterator != null && calls < 5; calls++) {
      const page = await getRecords(client, iterator, 1, `${streamName}/${shardId}`);
      if ((page.Records ?? []).length > 0) return true;
      if ((page.MillisBehindLatest ?? 0) === 0) return false;
      iterator = page.NextShardIterator;
    }
    return iterator != null;
  } catch {
    return true;
  }
}

/**
 * The records of `shardId` after sequence number `after` (from the oldest record the stream
 * keeps when undefined) up to the shard's tip, or its end when it is closed.
 *
 * @throws FlambdaError (external, retry) when Kinesis fails or the tip is not reached within
 *   {@link MAX_CALLS} reads.
 */
export async function readToTip(client: ShardReadClient, streamName: string, shardId: string, after: string | undefined): Promise<KinesisRecord[]> {
  const out: KinesisRecord[] = [];
  let iterator = after === undefined ? await oldestIterator(client, streamName, shardId) : await iteratorAfter(client, streamName, shardId, after);
  for (let calls = 0; iterator != null; calls++) {
    if (calls >= MAX_CALLS) throw new FlambdaError(`reading ${streamName}/${shardId} to its tip: not reached in ${MAX_CALLS} GetRecords calls`, 'external', 'retry');
    const page = await getRecords(client, iterator, 10_000, `${streamName}/${shardId}`);
    out.push(...(page.Records ?? []));
    if ((page.Records ?? []).length === 0 && (page.MillisBehindLatest ?? 0) === 0) return out;
    iterator = page.NextShardIterator;
  }
  return out;
}

async function oldestIterator(client: ShardReadClient, streamName: string, shardId: string): Promise<string | undefined> {
  try {
    const out = await client.send(new GetShardIteratorCommand({ StreamName: streamName, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' }));
    return out.ShardIterator;
  } catch (error) {
    throw new FlambdaError(`GetShardIterator on ${streamName}/${shardId} at TRIM_HORIZON failed: ${error instanceof Error ? error.message : String(error)}`, 'external', 'retry', { cause: error });
  }
}

async function iteratorAfter(client: ShardReadClient, streamName: string, shardId: string, after: string): Promise<string | undefined> {
  try {
    const out = await client.send(new GetShardIteratorCommand({ StreamName: streamName, ShardId: shardId, ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', StartingSequenceNumber: after }));
    return out.ShardIterator;
  } catch (error) {
    throw new FlambdaError(`GetShardIterator on ${streamName}/${shardId} after ${after} failed: ${error instanceof Error ? error.message : String(error)}`, 'external', 'retry', { cause: error });
  }
}

async function getRecords(client: ShardReadClient, iterator: string, limit: number, where: string): Promise<{ Records?: KinesisRecord[]; NextShardIterator?: string; MillisBehindLatest?: number }> {
  try {
    return await client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: limit }));
  } catch (error) {
    throw new FlambdaError(`GetRecords on ${where} failed: ${error instanceof Error ? error.message : String(error)}`, 'external', 'retry', { cause: error });
  }
}
