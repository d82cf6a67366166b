/**
 * Factories for stage-input tests: Kinesis event records as Lambda delivers them (data base64,
 * `approximateArrivalTimestamp` in epoch seconds, `eventID` = `<shardId>:<sequenceNumber>`),
 * sequence numbers, and a JSON-safe round trip for snapshots.
 */
import { Buffer } from 'node:buffer';
import type { KinesisStreamRecord } from 'aws-lambda';
import { decodeValue, encodeValue } from '../../shared/aws/state/value-codec.ts';
import type { StageInputSnapshot } from '../../shared/aws/stage-input/types.ts';

/** The stream the test records come from. */
export const STREAM = 'flambda-test-stream';

/** A 56-digit Kinesis-looking sequence number, increasing with `n`. */
export function seq(n: number): string {
  return `4959${String(n).padStart(52, '0')}`;
}

/** What one test record needs. */
export interface RecordSpec {
  /** The data: bytes, text, or a value written as JSON. */
  readonly data: Uint8Array | string | object;
  readonly shardId: string;
  /** Sequence number index, see {@link seq}. */
  readonly n: number;
  /** Arrival time, epoch ms. */
  readonly arrivalMs: number;
  readonly partitionKey?: string;
  readonly stream?: string;
}

/** One Kinesis event record. */
export function kinesisRecord(spec: RecordSpec): KinesisStreamRecord {
  const bytes =
    spec.data instanceof Uint8Array
      ? Buffer.from(spec.data)
      : Buffer.from(typeof spec.data === 'string' ? spec.data : JSON.stringify(spec.data), 'utf8');
  const sequenceNumber = seq(spec.n);
  return {
    kinesis: {
      kinesisSchemaVersion: '1.0',
      partitionKey: spec.partitionKey ?? `pk-${spec.n}`,
      sequenceNumber,
      data: bytes.toString('base64'),
      approximateArrivalTimestamp: spec.arrivalMs / 1000,
    },
    eventSource: 'aws:kinesis',
    eventVersion: '1.0',
    eventID: `${spec.shardId}:${sequenceNumber}`,
    eventName: 'aws:kinesis:record',
    invokeIdentityArn: 'arn:aws:iam::123456789012:role/lambda-role',
    awsRegion: 'us-east-1',
    eventSourceARN: `arn:aws:kinesis:us-east-1:123456789012:stream/${spec.stream ?? STREAM}`,
  };
}

/** A snapshot after a trip through the DynamoDB state value codec (JSON with ±∞ tagged) and structuredClone. */
export function roundTrip(snapshot: StageInputSnapshot): StageInputSnapshot {
  return structuredClone(decodeValue(encodeValue(snapshot)) as StageInputSnapshot);
}

/** Splits `items` into consecutive chunks at the given cut points (any numbers; taken modulo the length). */
export function splitAt<T>(items: readonly T[], cuts: readonly number[]): T[][] {
  if (items.length === 0) return [];
  const points = [...new Set(cuts.map((c) => c % items.length).filter((c) => c > 0))].sort((a, b) => a - b);
  const chunks: T[][] = [];
  let start = 0;
  for (const p of points) {
    chunks.push(items.slice(start, p));
    start = p;
  }
  chunks.push(items.slice(start));
  return chunks;
}
