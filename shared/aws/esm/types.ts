/**
 * Public types of the local Kinesis event source mapping: the handler it invokes, its options,
 * what it reports to the on-failure callback and its statistics.
 */
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { Context, KinesisStreamBatchResponse, KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';

/**
 * A Lambda handler for Kinesis events, as the Node.js runtime calls an async handler. It may
 * return a partial batch response (`batchItemFailures`); throwing fails the whole batch.
 */
export type KinesisEventHandler = (
  event: KinesisStreamEvent,
  context: Context,
) => Promise<KinesisStreamBatchResponse | void>;

/**
 * Where a shard is read from when the mapping starts (StartingPosition); AT_TIMESTAMP reads from
 * `startingPositionTimestamp` (StartingPositionTimestamp).
 */
export type StartingPosition = 'TRIM_HORIZON' | 'LATEST' | 'AT_TIMESTAMP';

/** Why a batch was discarded: the `requestContext.condition` values Lambda reports. */
export type FailureCondition = 'RetryAttemptsExhausted' | 'RecordAgeExceeded';

/**
 * The metadata of a discarded batch, as Lambda sends it to an on-failure destination
 * (`KinesisBatchInfo`): the shard and the sequence range, never the records themselves.
 */
export interface KinesisBatchInfo {
  readonly shardId: string;
  /** First discarded record's sequence number. */
  readonly startSequenceNumber: string;
  /** Last discarded record's sequence number. */
  readonly endSequenceNumber: string;
  /** ISO-8601 arrival time of the first discarded record. */
  readonly approximateArrivalOfFirstRecord: string;
  /** ISO-8601 arrival time of the last discarded record. */
  readonly approximateArrivalOfLastRecord: string;
  /** Number of discarded records. */
  readonly batchSize: number;
  readonly streamArn: string;
}

/**
 * The invocation record Lambda sends to a Kinesis mapping's on-failure destination (Lambda
 * developer guide, "Retain discarded batch records for a Kinesis Data Streams event source").
 */
export interface KinesisOnFailureRecord {
  readonly requestContext: {
    /** The request id of the last invocation (a fresh id when the batch was never invoked). */
    readonly requestId: string;
    readonly functionArn: string;
    readonly condition: FailureCondition;
    /** Invocations of the batch, retries included (0 when it expired before any). */
    readonly approximateInvokeCount: number;
  };
  /** The last invocation's outcome; absent when the batch was never invoked. */
  readonly responseContext?: {
    readonly statusCode: number;
    readonly executedVersion: string;
    /** `Unhandled` when the function threw; absent for a partial batch response. */
    readonly functionError?: string;
  };
  readonly version: '1.0';
  /** ISO-8601 time the batch was discarded. */
  readonly timestamp: string;
  readonly KinesisBatchInfo: KinesisBatchInfo;
}

/** Local extras passed next to the on-failure record: what AWS does not send but tests need. */
export interface OnFailureDetails {
  /** The discarded records, exactly as the handler saw them (or would have). */
  readonly records: readonly KinesisStreamRecord[];
  /** What the last invocation threw, or the invalid response it returned; undefined for expiry. */
  readonly lastError: unknown;
}

/** Receives a discarded batch's metadata; the mapping waits for it before reading on. */
export type OnFailureCallback = (record: KinesisOnFailureRecord, details: OnFailureDetails) => void | Promise<void>;

/** Options of `LocalEventSourceMapping`; the AWS setting each one mirrors is named. */
export interface LocalEventSourceMappingOptions {
  /** The function to invoke. */
  readonly handler: KinesisEventHandler;
  /**
   * The Kinesis client to read with.
   * @default - `createKinesisClient()`: endpoint, region and credentials from the environment
   */
  readonly client?: KinesisClient;
  /** The stream's name; give this or `streamArn`. */
  readonly streamName?: string;
  /** The stream's ARN (EventSourceArn); give this or `streamName`. */
  readonly streamArn?: string;
  /** Where shards open at start are read from (StartingPosition; AWS requires it too). */
  readonly startingPosition: StartingPosition;
  /**
   * The time AT_TIMESTAMP reads from (StartingPositionTimestamp), epoch ms or a Date; required
   * with AT_TIMESTAMP, refused otherwise.
   */
  readonly startingPositionTimestamp?: number | Date;
  /**
   * Most records per invocation (BatchSize), 1..10000.
   * @default 100
   */
  readonly batchSize?: number;
  /**
   * How long to gather records before invoking (MaximumBatchingWindowInSeconds, in ms here),
   * 0..300000. 0 invokes as soon as a read returns records.
   * @default 0
   */
  readonly maximumBatchingWindowMs?: number;
  /**
   * Honour partial batch responses (FunctionResponseTypes: ReportBatchItemFailures). When
   * false, whatever the handler returns counts as success, as on AWS.
   * @default true (AWS's default is off; every Flambda stage enables it)
   */
  readonly reportBatchItemFailures?: boolean;
  /**
   * Retries of a failed batch before it is discarded (MaximumRetryAttempts), -1..10000; -1
   * retries until the records expire.
   * @default -1
   */
  readonly maximumRetryAttempts?: number;
  /**
   * Records older than this are discarded instead of invoked (MaximumRecordAgeInSeconds, in ms
   * here), -1 (never) or 0..604800000. AWS's minimum is 60 s; smaller values are for tests.
   * @default -1
   */
  readonly maximumRecordAgeMs?: number;
  /**
   * Called with what AWS sends to the on-failure destination (DestinationConfig.OnFailure) when
   * a batch is discarded, e.g. `sqsOnFailureDestination(…)` (on-failure-destination.ts), which
   * sends it to an SQS queue as AWS does. Without it discarded batches are only counted.
   * @default - none
   */
  readonly onFailure?: OnFailureCallback;
  /**
   * Wait after a read that returned no records, in ms.
   * @default 1000 (AWS polls an idle shard once per second)
   */
  readonly pollIntervalMs?: number;
  /**
   * How often ListShards runs to discover shards created by SplitShard / MergeShards, in ms.
   * A shard that ends also triggers a discovery at once.
   * @default 1000
   */
  readonly shardDiscoveryIntervalMs?: number;
  /**
   * Delay before the first retry of a failed batch, in ms; it doubles per attempt up to 10 s.
   * @default 100
   */
  readonly retryDelayMs?: number;
  /**
   * Function name in the context object and the ARNs.
   * @default 'flambda-local-function'
   */
  readonly functionName?: string;
  /**
   * The function timeout `context.getRemainingTimeInMillis()` counts down from, in ms. It is
   * not enforced: an invocation runs until its promise settles.
   * @default 60000
   */
  readonly functionTimeoutMs?: number;
  /**
   * The execution role ARN written into every record's `invokeIdentityArn`.
   * @default - `arn:aws:iam::<account of the stream>:role/<functionName>-role`
   */
  readonly roleArn?: string;
}

/** Where a shard is in its life under the mapping. */
export type ShardStatus = 'waiting' | 'starting' | 'active' | 'finished';

/** Counters of one shard. */
export interface ShardStats {
  readonly shardId: string;
  /** `waiting` for parents, `starting` (getting an iterator), `active`, or `finished`. */
  readonly status: ShardStatus;
  /** Handler invocations, retries included. */
  readonly invocations: number;
  /** Records processed successfully. */
  readonly records: number;
  /** Invocations that retried a failed batch. */
  readonly retries: number;
  /** Batches discarded (retries exhausted or records too old). */
  readonly failures: number;
  /** Records in discarded batches. */
  readonly discardedRecords: number;
  /** GetRecords calls. */
  readonly getRecordsCalls: number;
  /** GetRecords calls that returned no records. */
  readonly emptyReads: number;
  /** Iterators obtained again after ExpiredIteratorException. */
  readonly iteratorRefreshes: number;
  /** Throttled or failed reads that were retried. */
  readonly readErrors: number;
  /** The last read's MillisBehindLatest (0 when caught up). */
  readonly millisBehindLatest: number;
  /** Sequence number of the last record processed or discarded: where Lambda's checkpoint is. */
  readonly checkpoint: string | undefined;
}

/** Counters of the whole mapping: sums over shards, plus each shard's. */
export interface EventSourceMappingStats {
  readonly invocations: number;
  readonly records: number;
  readonly retries: number;
  readonly failures: number;
  readonly discardedRecords: number;
  /** ListShards calls. */
  readonly shardDiscoveries: number;
  /** Per shard, by shard id. */
  readonly shards: Readonly<Record<string, ShardStats>>;
}

/** Options of `LocalEventSourceMapping.drain`. */
export interface DrainOptions {
  /**
   * Reject after this many ms instead of waiting forever (a batch that keeps failing with
   * infinite retries never drains).
   * @default - no timeout
   */
  readonly timeoutMs?: number;
}
