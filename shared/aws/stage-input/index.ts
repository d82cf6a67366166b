/**
 * The receiving side of a stage on AWS: turning the records of one Kinesis batch into input
 * steps for the runtime (source and exchange readers, with deduplication, misroute checks,
 * channel watermarks and idleness), and sending the records that cannot be read to an SQS
 * dead-letter queue.
 */
export { ChannelWatermarks } from './channel-watermarks.ts';
export type { ChannelWatermarkState, ChannelWatermarksOptions, ChannelWatermarksSnapshot } from './channel-watermarks.ts';
export { createStageInputReader } from './create-reader.ts';
export type { CreateStageInputReaderOptions } from './create-reader.ts';
export { DEFAULT_DEAD_LETTER_DATA_BYTES, deadLetterOf } from './dead-letter.ts';
export { ExchangeInputReader } from './exchange-reader.ts';
export type { ExchangeInputReaderOptions } from './exchange-reader.ts';
export { classifyBundle, progressOf } from './high-water-mark.ts';
export type { BundleVerdict, ChannelProgress } from './high-water-mark.ts';
export type { InputReaderOptions } from './input-reader.ts';
export {
  arrivalMillisOf,
  compareSequenceNumbers,
  dataBytesOf,
  dataOf,
  isSequenceNumber,
  recordsOf,
  shardIdOf,
  streamNameOf,
} from './kinesis-records.ts';
export { SourceInputReader } from './source-reader.ts';
export type { SourceInputReaderOptions } from './source-reader.ts';
export { SQS_HTTP_DEFAULTS, createSqsClient } from './sqs-client.ts';
export type { SqsClientOptions } from './sqs-client.ts';
export { MAX_SQS_BATCH_ENTRIES, MAX_SQS_MESSAGE_BYTES, SqsDeadLetterQueue, deadLetterMessage } from './sqs-dead-letter-queue.ts';
export type { DeadLetterMessage, DeadLetterSendStats, SqsDeadLetterQueueOptions } from './sqs-dead-letter-queue.ts';
export { DEAD_LETTER_KINDS } from './types.ts';
export type {
  DeadLetter,
  DeadLetterKind,
  RecordDeadLetterKind,
  DeadLetterStep,
  ExchangeInputSnapshot,
  InputStep,
  ProcessingTimeStep,
  RowsStep,
  SourceInputSnapshot,
  StageInputBatch,
  StageInputReader,
  StageInputSnapshot,
  StageInputStats,
  WatermarkStep,
} from './types.ts';
