/**
 * A local Kinesis event source mapping: feeds Lambda handlers real `KinesisStreamEvent`
 * batches from a (local) Kinesis stream, as the Lambda Kinesis event source mapping does.
 */
export { LocalEventSourceMapping } from './local-event-source-mapping.ts';
export { interpretBatchResponse } from './batch-response.ts';
export { deployedMappingOptions } from './deployed-mapping.ts';
export type { DeployedMappingConfiguration, DeployedMappingOptions } from './deployed-mapping.ts';
export { onFailureMessageBody, sqsOnFailureDestination } from './on-failure-destination.ts';
export type { SqsOnFailureDestinationOptions } from './on-failure-destination.ts';
export type { BatchOutcome } from './batch-response.ts';
export { ShardLineage } from './shard-lineage.ts';
export type { LineageEntry, ShardDescription } from './shard-lineage.ts';
export { buildFailureRecord, createContext, parseStreamArn, toPolledRecord } from './kinesis-event.ts';
export type { ContextOptions, EventSourceIdentity, FailureRecordInput, PolledRecord, StreamArnParts } from './kinesis-event.ts';
export {
  DEFAULT_BATCH_SIZE,
  DEFAULT_POLL_INTERVAL_MS,
  MAX_BATCHING_WINDOW_MS,
  MAX_BATCH_SIZE,
  MAX_PAYLOAD_BYTES,
  MAX_RECORD_AGE_MS,
  MAX_RETRY_ATTEMPTS,
} from './constants.ts';
export type {
  DrainOptions,
  EventSourceMappingStats,
  FailureCondition,
  KinesisBatchInfo,
  KinesisEventHandler,
  KinesisOnFailureRecord,
  LocalEventSourceMappingOptions,
  OnFailureCallback,
  OnFailureDetails,
  ShardStats,
  ShardStatus,
  StartingPosition,
} from './types.ts';
