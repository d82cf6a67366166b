/**
 * Kinesis between stages: the client factory, the inter-stage record format ("bundles") and the
 * writer that routes a stage's output rows to the shards of its exchange stream.
 */
export { KINESIS_HTTP_DEFAULTS, createKinesisClient } from './client.ts';
export type { KinesisClientOptions } from './client.ts';
export {
  BUNDLE_FORMAT_VERSION,
  BundleCodec,
  MAX_KINESIS_RECORD_BYTES,
  schemaFingerprint,
  stageRecordKey,
} from './bundle-codec.ts';
export type {
  BundleAddress,
  BundleCodecOptions,
  BundleId,
  BundleOrigin,
  EncodedRecord,
  HeartbeatAddress,
  HeartbeatRecord,
  RowBundle,
  StageRecord,
  WatermarkRecord,
} from './bundle-codec.ts';
export { KinesisStageWriter, MAX_PUT_RECORDS_BYTES, MAX_PUT_RECORDS_ENTRIES, listOpenShards } from './kinesis-writer.ts';
export type { KinesisStageWriterOptions, StageWriteBatch, StageWriteStats, TargetShard } from './kinesis-writer.ts';
