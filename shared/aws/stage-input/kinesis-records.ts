/**
 * Small, pure helpers over the records of a Lambda `KinesisStreamEvent`: which shard and stream
 * a record came from, its arrival time in milliseconds, its data bytes, and the order of Kinesis
 * sequence numbers.
 */
import { Buffer } from 'node:buffer';
import type { KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';
import { FlambdaError } from '../../core/errors.ts';

/**
 * Kinesis's sequence number syntax (GetRecords / PutRecord API reference:
 * `0|([1-9]\d{0,128})`): decimal digits without leading zeros, so numeric order is "shorter
 * first, then lexicographic" and no BigInt is needed to compare two of them.
 */
const SEQUENCE_NUMBER = /^(?:0|[1-9]\d{0,128})$/;

/** True when `text` is a Kinesis sequence number (decimal, no leading zeros, ≤ 129 digits). */
export function isSequenceNumber(text: string): boolean {
  return SEQUENCE_NUMBER.test(text);
}

/**
 * Compares two Kinesis sequence numbers numerically: negative when `a` comes first, 0 when
 * equal, positive when `b` comes first. Both must satisfy {@link isSequenceNumber}.
 */
export function compareSequenceNumbers(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The shard a record was read from. Lambda's Kinesis event has no shard field; `eventID` is
 * `<shardId>:<sequenceNumber>` (Lambda developer guide, "Using Lambda with Kinesis", sample
 * event: `"eventID": "shardId-000000000006:49590338271490256608559692538361571095921575989136588898"`).
 *
 * @throws FlambdaError (internal, fail) when `eventID` does not have that shape: the event did
 *   not come from a Kinesis event source mapping.
 */
export function shardIdOf(record: KinesisStreamRecord): string {
  const id = record.eventID;
  const colon = typeof id === 'string' ? id.lastIndexOf(':') : -1;
  if (colon <= 0) {
    throw new FlambdaError(`Kinesis event record has no '<shardId>:<sequenceNumber>' eventID: ${JSON.stringify(id)}`, 'internal', 'fail');
  }
  return id.slice(0, colon);
}

/**
 * The stream name of a record, from `eventSourceARN` (`arn:aws:kinesis:<region>:<account>:stream/<name>`);
 * the ARN itself when it has another shape, so a dead letter still says where it came from.
 */
export function streamNameOf(record: KinesisStreamRecord): string {
  const arn = record.eventSourceARN ?? '';
  const slash = arn.indexOf(':stream/');
  return slash >= 0 ? arn.slice(slash + ':stream/'.length) : arn;
}

/**
 * A record's arrival time in epoch milliseconds. Lambda writes `approximateArrivalTimestamp`
 * in epoch SECONDS with a fraction (sample event: `1545084650.987`), unlike the GetRecords API,
 * which returns a timestamp; rounding to whole milliseconds keeps it exact and deterministic.
 */
export function arrivalMillisOf(record: KinesisStreamRecord): number {
  const seconds = record.kinesis.approximateArrivalTimestamp;
  return typeof seconds === 'number' && Number.isFinite(seconds) ? Math.round(seconds * 1000) : 0;
}

/** The size of a record's data in bytes, computed from its base64 text without decoding it. */
export function dataBytesOf(record: KinesisStreamRecord): number {
  return Buffer.byteLength(record.kinesis.data, 'base64');
}

/** A record's data bytes (Lambda delivers them base64-encoded). */
export function dataOf(record: KinesisStreamRecord): Buffer {
  return Buffer.from(record.kinesis.data, 'base64');
}

/** The records of an event, or the records themselves. */
export function recordsOf(input: KinesisStreamEvent | readonly KinesisStreamRecord[]): readonly KinesisStreamRecord[] {
  return Array.isArray(input) ? input : (input as KinesisStreamEvent).Records;
}
