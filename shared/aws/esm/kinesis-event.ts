/**
 * What Lambda hands a Kinesis-triggered function, built from GetRecords output: the event
 * records (shape of the "Example Kinesis record event" in the Lambda developer guide,
 * `with-kinesis.html`), the context object, and the invocation record an on-failure destination
 * receives for a discarded batch.
 *
 * ```
 * {
 *   "kinesis": {
 *     "kinesisSchemaVersion": "1.0",
 *     "partitionKey": "1",
 *     "sequenceNumber": "49590338271490256608559692538361571095921575989136588898",
 *     "data": "SGVsbG8sIHRoaXMgaXMgYSB0ZXN0Lg==",
 *     "approximateArrivalTimestamp": 1545084650.987
 *   },
 *   "eventSource": "aws:kinesis",
 *   "eventVersion": "1.0",
 *   "eventID": "shardId-000000000006:49590338271490256608559692538361571095921575989136588898",
 *   "eventName": "aws:kinesis:record",
 *   "invokeIdentityArn": "arn:aws:iam::123456789012:role/lambda-role",
 *   "awsRegion": "us-east-2",
 *   "eventSourceARN": "arn:aws:kinesis:us-east-2:123456789012:stream/lambda-stream"
 * }
 * ```
 *
 * Keys are created in that order, so a JSON dump of a local event reads like AWS's.
 */
import { Buffer } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import type { _Record as KinesisRecord } from '@aws-sdk/client-kinesis';
import type { Context, KinesisStreamRecord } from 'aws-lambda';
import { FlambdaError } from '../../core/errors.ts';
import { KINESIS_EVENT_VERSION } from './constants.ts';
import type { FailureCondition, KinesisOnFailureRecord } from './types.ts';

/** The parts of a Kinesis stream ARN `arn:<partition>:kinesis:<region>:<account>:stream/<name>`. */
export interface StreamArnParts {
  readonly partition: string;
  readonly region: string;
  readonly account: string;
  readonly streamName: string;
}

/** Splits a stream ARN; throws a user error naming the value when it is not one. */
export function parseStreamArn(arn: string): StreamArnParts {
  const match = /^arn:([a-z0-9-]+):kinesis:([a-z0-9-]+):(\d{12}):stream\/([a-zA-Z0-9_.-]{1,128})$/.exec(arn);
  if (match === null) {
    throw new FlambdaError(
      `streamArn must look like arn:aws:kinesis:<region>:<account>:stream/<name> (given ${JSON.stringify(arn)})`,
      'user',
      'fail',
    );
  }
  const [, partition, region, account, streamName] = match as unknown as [string, string, string, string, string];
  return { partition, region, account, streamName };
}

/** What every record of one mapping shares. */
export interface EventSourceIdentity {
  /** The stream's ARN (`eventSourceARN`). */
  readonly streamArn: string;
  /** The region in the stream's ARN (`awsRegion`). */
  readonly region: string;
  /** The execution role (`invokeIdentityArn`). */
  readonly roleArn: string;
}

/** A record read from a shard, converted once, with what batching needs. */
export interface PolledRecord {
  /** The event record handed to the function. */
  readonly event: KinesisStreamRecord;
  readonly sequenceNumber: string;
  /** ApproximateArrivalTimestamp in epoch ms. */
  readonly arrivalMs: number;
  /** The record's share of the invocation payload, in bytes (see {@link recordPayloadBytes}). */
  readonly payloadBytes: number;
}

/**
 * Converts one GetRecords record into the event record Lambda delivers: data base64-encoded,
 * the arrival timestamp in epoch seconds with millisecond decimals, `eventID` = `shardId:seq`.
 */
export function toPolledRecord(record: KinesisRecord, shardId: string, identity: EventSourceIdentity): PolledRecord {
  const sequenceNumber = record.SequenceNumber ?? '';
  const partitionKey = record.PartitionKey ?? '';
  const arrivalMs = record.ApproximateArrivalTimestamp?.getTime() ?? Date.now();
  const data = Buffer.from(record.Data ?? new Uint8Array()).toString('base64');
  const event: KinesisStreamRecord = {
    kinesis: {
      kinesisSchemaVersion: KINESIS_EVENT_VERSION,
      partitionKey,
      sequenceNumber,
      data,
      approximateArrivalTimestamp: arrivalMs / 1000,
    },
    eventSource: 'aws:kinesis',
    eventVersion: KINESIS_EVENT_VERSION,
    eventID: `${shardId}:${sequenceNumber}`,
    eventName: 'aws:kinesis:record',
    invokeIdentityArn: identity.roleArn,
    awsRegion: identity.region,
    eventSourceARN: identity.streamArn,
  };
  return { event, sequenceNumber, arrivalMs, payloadBytes: recordPayloadBytes(event) };
}

/** JSON text of one record minus its variable fields (measured once, exact for ASCII). */
const FIXED_RECORD_BYTES = JSON.stringify({
  kinesis: { kinesisSchemaVersion: KINESIS_EVENT_VERSION, partitionKey: '', sequenceNumber: '', data: '', approximateArrivalTimestamp: 0 },
  eventSource: 'aws:kinesis',
  eventVersion: KINESIS_EVENT_VERSION,
  eventID: '',
  eventName: 'aws:kinesis:record',
  invokeIdentityArn: '',
  awsRegion: '',
  eventSourceARN: '',
}).length;

/** `{"Records":[]}`: the event around the records. */
export const EVENT_ENVELOPE_BYTES = '{"Records":[]}'.length;

/**
 * A record's bytes in the serialized event, plus one for the separating comma, computed from
 * the field lengths without serializing the (up to 1.4 MB) base64 data again. The timestamp is
 * counted at its longest (`1545084650.987`); partition keys are JSON-escaped, other fields are
 * ASCII by construction.
 */
export function recordPayloadBytes(event: KinesisStreamRecord): number {
  const k = event.kinesis;
  return (
    FIXED_RECORD_BYTES -
    1 + // the `0` timestamp placeholder
    14 + // `1545084650.987`
    Buffer.byteLength(JSON.stringify(k.partitionKey)) -
    2 +
    k.sequenceNumber.length +
    k.data.length +
    event.eventID.length +
    event.invokeIdentityArn.length +
    event.awsRegion.length +
    event.eventSourceARN.length +
    1
  );
}

/** What the context object of one invocation needs. */
export interface ContextOptions {
  readonly functionName: string;
  readonly functionArn: string;
  readonly timeoutMs: number;
  readonly requestId: string;
}

/**
 * A Lambda context object for one invocation: request id, function name, version `$LATEST`,
 * log group and stream named as Lambda names them, and a countdown from the function timeout
 * (informational: the local mapping does not stop a handler that runs over it).
 */
export function createContext(options: ContextOptions): Context {
  const deadline = Date.now() + options.timeoutMs;
  const day = new Date().toISOString().slice(0, 10).replaceAll('-', '/');
  const unsupported = (name: string) => (): never => {
    throw new FlambdaError(`context.${name}() is not supported: return or throw from the async handler`, 'user', 'fail');
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: options.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: options.functionArn,
    memoryLimitInMB: '128',
    awsRequestId: options.requestId,
    logGroupName: `/aws/lambda/${options.functionName}`,
    logStreamName: `${day}/[$LATEST]${options.requestId.replaceAll('-', '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unsupported('done'),
    fail: unsupported('fail'),
    succeed: unsupported('succeed'),
  };
}

/** What a discarded batch's on-failure record is built from. */
export interface FailureRecordInput {
  readonly condition: FailureCondition;
  readonly shardId: string;
  readonly streamArn: string;
  readonly functionArn: string;
  /** The discarded records, in shard order (at least one). */
  readonly records: readonly PolledRecord[];
  /** Invocations of the batch; 0 when it expired before any. */
  readonly invokeCount: number;
  /** The last invocation's request id, when there was one. */
  readonly requestId: string | undefined;
  /** Whether the last invocation threw (`functionError: Unhandled`) rather than returned. */
  readonly functionError: boolean;
}

/**
 * The invocation record AWS sends to a Kinesis mapping's on-failure destination: request and
 * response context plus `KinesisBatchInfo` with the shard and sequence range of the discarded
 * records (the records themselves are not included, as on AWS).
 */
export function buildFailureRecord(input: FailureRecordInput): KinesisOnFailureRecord {
  const first = input.records[0];
  const last = input.records[input.records.length - 1];
  if (first === undefined || last === undefined) {
    throw new FlambdaError('a discarded batch must hold at least one record', 'internal', 'fail');
  }
  const invoked = input.invokeCount > 0;
  return {
    requestContext: {
      requestId: input.requestId ?? randomUUID(),
      functionArn: input.functionArn,
      condition: input.condition,
      approximateInvokeCount: input.invokeCount,
    },
    ...(invoked
      ? {
          responseContext: {
            statusCode: 200,
            executedVersion: '$LATEST',
            ...(input.functionError ? { functionError: 'Unhandled' } : {}),
          },
        }
      : {}),
    version: '1.0',
    timestamp: new Date().toISOString(),
    KinesisBatchInfo: {
      shardId: input.shardId,
      startSequenceNumber: first.sequenceNumber,
      endSequenceNumber: last.sequenceNumber,
      approximateArrivalOfFirstRecord: new Date(first.arrivalMs).toISOString(),
      approximateArrivalOfLastRecord: new Date(last.arrivalMs).toISOString(),
      batchSize: input.records.length,
      streamArn: input.streamArn,
    },
  };
}
