/**
 * A Kinesis stream as a changelog sink: one record per changelog row in the sink's format — the
 * JSON line `{"op":"+I", …columns}` (as the `jsonl` sink writes), a csv line or a Debezium change
 * event (core/format-encoders.ts) — partition key = the upsert key's values
 * (so a key's changes stay on one shard, in order) or, without an upsert key, the whole row.
 *
 * Order per key: a PutRecords call carries at most one record per partition key, and a key's
 * next record waits until the previous one is accepted — Kinesis does not order the entries of a
 * call once some are retried. Entries failed with a throttling error are retried with backoff.
 * A record over Kinesis's 1 MiB never gets here: the stage's constraint enforcer
 * (shared/operators/sink/constraint-enforcer.ts) makes it a data error of its record.
 * A replayed batch (same id, same rows, after a crash) is written again: consumers that need
 * exactly-once dedupe by key and value, or read the stream as an upsert log.
 */
import { PutRecordsCommand } from '@aws-sdk/client-kinesis';
import type { KinesisClient, PutRecordsRequestEntry } from '@aws-sdk/client-kinesis';
import { Buffer } from 'node:buffer';
import { TransientError } from '../../core/errors.ts';
import { createRowEncoder } from '../../core/codec.ts';
import type { RowEncoder } from '../../core/codec.ts';
import type { ChangeRow } from '../../core/row.ts';
import type { Schema } from '../../core/types.ts';
import { kinesisRecordKeys } from '../../partition/kinesis-hash.ts';
import { kinesisKeyText } from '../../operators/sink/constraint-enforcer.ts';
import { createChangeEncoder, type ChangeEncoder } from '../../core/format-encoders.ts';
import type { RecordFormat } from '../../core/formats.ts';
import { MAX_PUT_RECORDS_ENTRIES } from '../kinesis/kinesis-writer.ts';
import { retryPolicy } from '../../core/retry.ts';
import type { RetryOptions, RetryPolicy } from '../../core/retry.ts';

/** PutRecords takes at most 5 MiB per call, partition keys included. */
const MAX_CALL_BYTES = 5 * 1024 * 1024;

/** Options of {@link KinesisChangelogSink}. */
export interface KinesisChangelogSinkOptions {
  readonly client: Pick<KinesisClient, 'send'>;
  readonly streamName: string;
  readonly schema: Schema;
  /** Columns whose values form the partition key. @default - the whole row */
  readonly upsertKey?: readonly string[];
  /** The records' format. @default the json changelog line */
  readonly format?: RecordFormat;
  readonly retry?: RetryOptions;
}

/** Writes changelog batches to a stream; see the module documentation. */
export class KinesisChangelogSink {
  /** PutRecords calls made, retries included. */
  calls = 0;
  private readonly encode: RowEncoder;
  private readonly record: ChangeEncoder;
  private readonly policy: RetryPolicy;

  constructor(private readonly options: KinesisChangelogSinkOptions) {
    this.encode = createRowEncoder(options.schema);
    this.record = createChangeEncoder(options.schema, options.format);
    this.policy = retryPolicy(options.retry ?? {}, { maxAttempts: 8, baseDelayMs: 100 });
  }

  /** Writes one batch in order per key. @throws TransientError when a record keeps failing. */
  async write(rows: readonly ChangeRow[]): Promise<void> {
    const queues = new Map<string, PutRecordsRequestEntry[]>();
    for (const change of rows) {
      const json = this.encode(change.row);
      const keyText = kinesisKeyText(json, this.options.upsertKey);
      const { partitionKey, explicitHashKey } = kinesisRecordKeys(keyText);
      const entry: PutRecordsRequestEntry = { PartitionKey: partitionKey, ExplicitHashKey: explicitHashKey, Data: Buffer.from(this.record(change), 'utf8') };
      let queue = queues.get(keyText);
      if (queue === undefined) queues.set(keyText, (queue = []));
      queue.push(entry);
    }
    let failures = 0;
    while (queues.size > 0) {
      // One round: the head of every key's queue, within the call limits.
      const round: [string, PutRecordsRequestEntry][] = [];
      let bytes = 0;
      for (const [key, queue] of queues) {
        const head = queue[0] as PutRecordsRequestEntry;
        const size = (head.Data?.length ?? 0) + Buffer.byteLength(head.PartitionKey ?? '', 'utf8');
        if (round.length >= MAX_PUT_RECORDS_ENTRIES || (round.length > 0 && bytes + size > MAX_CALL_BYTES)) break;
        round.push([key, head]);
        bytes += size;
      }
      this.calls++;
      const output = await this.options.client.send(new PutRecordsCommand({ StreamName: this.options.streamName, Records: round.map(([, e]) => e) }));
      let failed = 0;
      round.forEach(([key], i) => {
        if (output.Records?.[i]?.ErrorCode !== undefined) {
          failed++;
          return;
        }
        const queue = queues.get(key) as PutRecordsRequestEntry[];
        queue.shift();
        if (queue.length === 0) queues.delete(key);
      });
      if (failed === 0) continue;
      failures++;
      if (failures >= this.policy.maxAttempts) {
        throw new TransientError(`${failed} changelog record(s) to stream '${this.options.streamName}' still failed after ${failures} attempts`);
      }
      await this.policy.sleep(this.policy.delay(failures));
    }
  }
}
