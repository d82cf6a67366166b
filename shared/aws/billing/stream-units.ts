/**
 * What Kinesis Data Streams, SQS and Lambda bill, from their documented unit rules:
 *
 * ```
 *  Kinesis provisioned  PUT payload units: ceil(record bytes / 25 KB) per record (a 5 KB record
 *                       is 1 unit, 45 KB is 2, 1 MB (1,000 KB) is 40); shard-hours per open shard
 *  Kinesis on-demand    data in: record bytes rounded up to 1 KB per record (4.5 KB counts as 5);
 *                       data out: bytes read; stream-hours
 *  SQS                  one request per API call per 64 KB chunk of its payload (256 KB = 4)
 *  Lambda               one request per invocation; GB-seconds = duration × configured memory,
 *                       duration rounded up to 1 ms
 * ```
 *
 * The record's bytes are its data plus its partition key, as Kinesis counts them against the
 * 1 MB record limit.
 */

/** Bytes per Kinesis PUT payload unit. */
export const PUT_PAYLOAD_UNIT_BYTES = 25 * 1024;

/** Bytes per SQS billed request chunk. */
export const SQS_CHUNK_BYTES = 64 * 1024;

/** PUT payload units of one record of `bytes` (at least 1). */
export function putPayloadUnits(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / PUT_PAYLOAD_UNIT_BYTES));
}

/** On-demand data-in bytes of one record: rounded up to 1 KB (at least 1 KB). */
export function onDemandIngestBytes(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / 1024)) * 1024;
}

/** Billed SQS requests of one API call carrying `payloadBytes` (at least 1). */
export function sqsRequests(payloadBytes: number): number {
  return Math.max(1, Math.ceil(payloadBytes / SQS_CHUNK_BYTES));
}

/** GB-seconds of one invocation: duration rounded up to 1 ms, times memory (MB / 1024). */
export function lambdaGbSeconds(durationMs: number, memoryMb: number): number {
  return (Math.ceil(Math.max(0, durationMs)) / 1000) * (memoryMb / 1024);
}

/** Kinesis usage, bumped in place. */
export interface KinesisUsage {
  /** PutRecord / PutRecords calls. */
  putRequests: number;
  /** Records accepted. */
  recordsPut: number;
  /** PUT payload units of the accepted records (provisioned pricing). */
  putPayloadUnits: number;
  /** Data-in bytes as on-demand bills them (1 KB per record, rounded up). */
  onDemandBytesIn: number;
  /** GetRecords calls, and the bytes they returned. */
  getRequests: number;
  bytesOut: number;
}

/** Zeroed {@link KinesisUsage}. */
export function newKinesisUsage(): KinesisUsage {
  return { putRequests: 0, recordsPut: 0, putPayloadUnits: 0, onDemandBytesIn: 0, getRequests: 0, bytesOut: 0 };
}

/** Lambda usage, bumped in place. */
export interface LambdaUsage {
  invocations: number;
  /** Sum of measured handler durations, ms. */
  durationMs: number;
  gbSeconds: number;
}

/** Zeroed {@link LambdaUsage}. */
export function newLambdaUsage(): LambdaUsage {
  return { invocations: 0, durationMs: 0, gbSeconds: 0 };
}

/** Adds one invocation of `durationMs` at `memoryMb` to `usage`. */
export function addInvocation(usage: LambdaUsage, durationMs: number, memoryMb: number): void {
  usage.invocations++;
  usage.durationMs += durationMs;
  usage.gbSeconds += lambdaGbSeconds(durationMs, memoryMb);
}
