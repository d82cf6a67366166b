/**
 * Builds dead letters from Kinesis event records, with the record's data kept as base64 and
 * truncated to a size that fits a dead-letter queue message.
 */
import type { KinesisStreamRecord } from 'aws-lambda';
import type { DeadLetter, DeadLetterKind, StageInputStats } from './types.ts';
import { DEAD_LETTER_KINDS } from './types.ts';
import { arrivalMillisOf, dataBytesOf, shardIdOf, streamNameOf } from './kinesis-records.ts';

/**
 * Default largest number of a record's data bytes a dead letter keeps: 64 KiB, which base64
 * makes 87,384 characters — with the envelope, well inside one 256 KiB SQS message (and up to
 * two such letters fit one SendMessageBatch call, whose total is also capped at 256 KiB). Whole
 * records can be up to 1 MiB; the rest stays readable in the stream until its retention ends,
 * and the letter names the shard and sequence number to fetch it.
 */
export const DEFAULT_DEAD_LETTER_DATA_BYTES = 65_536;

/** Zeroed counters. */
export function emptyStats(): StageInputStats {
  const deadLetters = {} as Record<DeadLetterKind, number>;
  for (const kind of DEAD_LETTER_KINDS) deadLetters[kind] = 0;
  return { records: 0, redelivered: 0, rowRecords: 0, rows: 0, watermarkRecords: 0, heartbeats: 0, misrouted: 0, duplicates: 0, gaps: 0, deadLetters };
}

/**
 * A dead letter for `record`, keeping at most `maxDataBytes` leading bytes of its data.
 * Truncation cuts the base64 text at a multiple of 4 characters, which is exactly the base64 of
 * the first 3·k bytes, so no decoding or re-encoding of a large record is needed.
 */
export function deadLetterOf(record: KinesisStreamRecord, stage: string, kind: DeadLetterKind, reason: string, maxDataBytes: number): DeadLetter {
  const full = record.kinesis.data;
  const dataBytes = dataBytesOf(record);
  let data = full;
  if (dataBytes > maxDataBytes) data = full.slice(0, Math.floor(maxDataBytes / 3) * 4);
  return {
    kind,
    reason,
    stage,
    stream: streamNameOf(record),
    shardId: shardIdOf(record),
    sequenceNumber: record.kinesis.sequenceNumber,
    approximateArrivalTimestamp: arrivalMillisOf(record),
    partitionKey: record.kinesis.partitionKey,
    data,
    dataBytes,
    truncated: data.length < full.length,
  };
}
