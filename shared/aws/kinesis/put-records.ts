/**
 * Putting user records into a source stream (flambda local's input files, a generator source's
 * rows): PutRecords calls of at most 500 records and 5 MiB, the entries Kinesis rejects
 * (throttling) sent again with backoff from the one retry module. Stage output goes through the
 * KinesisStageWriter instead, which also keeps a shard's records in order.
 */
import { PutRecordsCommand } from '@aws-sdk/client-kinesis';
import type { KinesisClient, PutRecordsRequestEntry } from '@aws-sdk/client-kinesis';
import { TransientError } from '../../core/errors.ts';
import { retryPolicy } from '../../core/retry.ts';
import type { RetryOptions } from '../../core/retry.ts';
import { MAX_PUT_RECORDS_BYTES, MAX_PUT_RECORDS_ENTRIES } from './kinesis-writer.ts';

/** The most bytes of data one Kinesis record holds. */
export const MAX_RECORD_BYTES = 1_048_576;

/** Where a record landed. */
export interface PutRecordResult {
  readonly shardId: string;
  readonly sequenceNumber: string;
}

/**
 * Puts `entries` (each at most {@link MAX_RECORD_BYTES}) into `streamName` and returns where
 * each landed, in the order given.
 *
 * @throws TransientError when an entry still fails after the retries (10 attempts by default).
 */
export async function putRecords(client: Pick<KinesisClient, 'send'>, streamName: string, entries: readonly PutRecordsRequestEntry[], retry: RetryOptions = {}): Promise<PutRecordResult[]> {
  const policy = retryPolicy(retry, { maxAttempts: 10, baseDelayMs: 50 });
  const results = new Array<PutRecordResult>(entries.length);
  let chunk: number[] = [];
  let chunkBytes = 0;
  const flush = async (): Promise<void> => {
    if (chunk.length > 0) await putChunk(client, streamName, entries, chunk, results, policy);
    chunk = [];
    chunkBytes = 0;
  };
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as PutRecordsRequestEntry;
    const bytes = (entry.Data?.length ?? 0) + (entry.PartitionKey?.length ?? 0);
    if (chunk.length >= MAX_PUT_RECORDS_ENTRIES || chunkBytes + bytes > MAX_PUT_RECORDS_BYTES) await flush();
    chunk.push(i);
    chunkBytes += bytes;
  }
  await flush();
  return results;
}

/** One PutRecords call of `indices`, re-sending the entries that failed. */
async function putChunk(
  client: Pick<KinesisClient, 'send'>,
  streamName: string,
  entries: readonly PutRecordsRequestEntry[],
  indices: readonly number[],
  results: PutRecordResult[],
  policy: ReturnType<typeof retryPolicy>,
): Promise<void> {
  let pending = indices;
  for (let failures = 0; ; ) {
    const out = await client.send(new PutRecordsCommand({ StreamName: streamName, Records: pending.map((i) => entries[i] as PutRecordsRequestEntry) }));
    const failed: number[] = [];
    let error: { code?: string; message?: string } | undefined;
    pending.forEach((index, j) => {
      const result = out.Records?.[j];
      if (result?.ShardId !== undefined && result.SequenceNumber !== undefined && result.ErrorCode === undefined) {
        results[index] = { shardId: result.ShardId, sequenceNumber: result.SequenceNumber };
      } else {
        failed.push(index);
        error ??= { ...(result?.ErrorCode !== undefined ? { code: result.ErrorCode } : {}), ...(result?.ErrorMessage !== undefined ? { message: result.ErrorMessage } : {}) };
      }
    });
    if (failed.length === 0) return;
    failures++;
    if (failures >= policy.maxAttempts) {
      throw new TransientError(`PutRecords to ${streamName}: ${failed.length} records still failing after ${failures} attempts (${error?.code ?? '?'}: ${error?.message ?? ''})`);
    }
    pending = failed;
    await policy.sleep(policy.delay(failures));
  }
}
