/**
 * Limits and defaults of the local Kinesis event source mapping, each with the AWS value it
 * mirrors (Lambda developer guide, "Lambda parameters for Amazon Kinesis Data Streams event
 * source mappings", and the CreateEventSourceMapping API reference). Defaults are applied in one
 * place, `resolveOptions` in local-event-source-mapping.ts.
 */

/** BatchSize range for Kinesis: 1..10,000. */
export const MAX_BATCH_SIZE = 10_000;

/** BatchSize default for Kinesis. */
export const DEFAULT_BATCH_SIZE = 100;

/** MaximumBatchingWindowInSeconds: 0..300 s. */
export const MAX_BATCHING_WINDOW_MS = 300_000;

/** MaximumRetryAttempts: -1 (infinite) ..10,000. */
export const MAX_RETRY_ATTEMPTS = 10_000;

/** MaximumRecordAgeInSeconds: -1 (infinite) or up to 604,800 s (7 days). */
export const MAX_RECORD_AGE_MS = 604_800_000;

/**
 * Lambda's synchronous invocation payload limit ("6 MB"): a batch stops growing before its
 * event would exceed it ("until it has gathered a full batch, the batching window expires, or
 * the batch reaches the payload limit of 6 MB").
 */
export const MAX_PAYLOAD_BYTES = 6 * 1024 * 1024;

/** GetRecords returns at most 10,000 records per call (GetRecords API reference). */
export const MAX_GET_RECORDS_LIMIT = 10_000;

/**
 * "Lambda polls each shard in your Kinesis stream for records at a base rate of once per
 * second" (standard iterator): the wait after an empty read.
 */
export const DEFAULT_POLL_INTERVAL_MS = 1_000;

/** How often the stream's shard list is read again to discover shards created by resharding. */
export const DEFAULT_SHARD_DISCOVERY_INTERVAL_MS = 1_000;

/** First delay before retrying a failed batch; it doubles per attempt up to {@link MAX_RETRY_DELAY_MS}. */
export const DEFAULT_RETRY_DELAY_MS = 100;

/** Cap of the retry backoff, and of the backoff after throttled or failed Kinesis reads. */
export const MAX_RETRY_DELAY_MS = 10_000;

/** Function name in the context object and ARNs when none is given. */
export const DEFAULT_FUNCTION_NAME = 'flambda-local-function';

/** What `context.getRemainingTimeInMillis()` counts down from when no timeout is given. */
export const DEFAULT_FUNCTION_TIMEOUT_MS = 60_000;

/** `kinesis.kinesisSchemaVersion` and `eventVersion` of every record Lambda delivers today. */
export const KINESIS_EVENT_VERSION = '1.0';
