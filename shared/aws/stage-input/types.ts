/**
 * What a stage's input reader hands the runtime: input steps in shard order, dead letters, the
 * counters of one batch, and the reader's checkpointable state.
 */
import type { KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';
import type { ChangeRow } from '../../core/row.ts';
import type { BundleId } from '../kinesis/bundle-codec.ts';
import type { ChannelWatermarksSnapshot } from './channel-watermarks.ts';
import type { ChannelProgress } from './high-water-mark.ts';

/**
 * Why a record was dead-lettered by an input reader.
 *
 * - `oversized`: the record's data is larger than the reader's `maxRecordBytes`; it is not
 *   decoded at all.
 * - `undecodable`: not UTF-8, not JSON, not a JSON object (source), not a well-formed stage
 *   record (exchange: version, header fields, row arrays), or a malformed heartbeat.
 * - `schema-invalid`: well-formed, but a value does not fit its column (the JSON codec's
 *   rules), or an exchange record was written for another schema (fingerprint `sc`).
 * - `unexpected-producer`: an exchange record from another stage than the one feeding this
 *   stage (a miswired stream).
 * - `overlapping-range`: an exchange bundle whose input range overlaps what its channel has
 *   already applied without being a replay of it (see high-water-mark.ts); applying it would
 *   double count, dropping it silently would lose rows.
 */
export type RecordDeadLetterKind = 'oversized' | 'undecodable' | 'schema-invalid' | 'unexpected-producer' | 'overlapping-range';

/**
 * What a dead letter reports: a record an input reader could not process; `data-error`: a
 * record an operator could not process (a bad CAST, a division by zero: the stage executor's
 * error policy, shared/runtime/stage-executor.ts); or `skipped-range`: an announced range the
 * event source mapping discarded (checkpoint/skipped-range.ts), reported by position only
 * (`sequenceNumber`..`lastSequenceNumber`, no data).
 */
export type DeadLetterKind = RecordDeadLetterKind | 'data-error' | 'skipped-range';

/** Every {@link RecordDeadLetterKind}, in a fixed order (metrics, tests). */
export const DEAD_LETTER_KINDS: readonly RecordDeadLetterKind[] = [
  'oversized',
  'undecodable',
  'schema-invalid',
  'unexpected-producer',
  'overlapping-range',
];

/** A record that cannot be processed: it goes to the dead-letter queue instead of blocking its shard. */
export interface DeadLetter {
  readonly kind: DeadLetterKind;
  /** What is wrong, with the position (`<shardId>@<sequenceNumber>`) and, where one is to blame, the field and value. */
  readonly reason: string;
  /** The stage whose input this record was. */
  readonly stage: string;
  /** The Kinesis stream (name from `eventSourceARN`). */
  readonly stream: string;
  readonly shardId: string;
  readonly sequenceNumber: string;
  /** The last sequence number of a reported range (`skipped-range`); absent for one record. */
  readonly lastSequenceNumber?: string;
  /** Arrival time at Kinesis, epoch milliseconds (0 when unknown: `skipped-range`). */
  readonly approximateArrivalTimestamp: number;
  readonly partitionKey: string;
  /** The record's data, base64, of at most the reader's `maxDeadLetterDataBytes` leading bytes. */
  readonly data: string;
  /** Size of the whole record's data in bytes. */
  readonly dataBytes: number;
  /** True when `data` holds fewer than `dataBytes` bytes. */
  readonly truncated: boolean;
  /** `data-error`: the operator that raised the error. */
  readonly operator?: string;
}

/** Rows for the operator chain, all from one input channel. */
export interface RowsStep {
  readonly type: 'rows';
  /** Source stage: the source shard id. Exchange stage: the producer shard (`s`) the rows came from. */
  readonly channel: string;
  readonly rows: readonly ChangeRow[];
  /** Sequence number of the first Kinesis record the rows came from. */
  readonly first: string;
  /** Sequence number of the last Kinesis record the rows came from. */
  readonly last: string;
  /**
   * The Kinesis record each row came from, when the reader knows it (a source stage: one per
   * row; an exchange stage: the bundle's record, once) — the position of a dead letter.
   */
  readonly records?: readonly KinesisStreamRecord[];
  /** Exchange stage: the bundle's id. */
  readonly bundle?: BundleId;
  /** Two-input stage: the input the rows belong to. @default 'left' */
  readonly side?: 'left' | 'right';
}

/** The combined input watermark advanced to `value` (epoch ms, or +∞ at the end of bounded input). */
export interface WatermarkStep {
  readonly type: 'watermark';
  readonly value: number;
  /** The record that made it advance. */
  readonly sequenceNumber: string;
}

/**
 * A heartbeat advanced processing time to `value` (epoch ms): the runtime may fire
 * processing-time timers even though no rows arrived.
 */
export interface ProcessingTimeStep {
  readonly type: 'processing-time';
  readonly value: number;
  readonly sequenceNumber: string;
}

/** A record that was dead-lettered, in its place in shard order. */
export interface DeadLetterStep {
  readonly type: 'dead-letter';
  readonly letter: DeadLetter;
  readonly sequenceNumber: string;
}

/** One step of input for the runtime. */
export type InputStep = RowsStep | WatermarkStep | ProcessingTimeStep | DeadLetterStep;

/** Counters of one batch. */
export interface StageInputStats {
  /** Records in the batch. */
  records: number;
  /** Records skipped because the reader's state already covers them (at or before `lastSequenceNumber`). */
  redelivered: number;
  /** Records that delivered rows. */
  rowRecords: number;
  /** Rows delivered. */
  rows: number;
  /** Exchange: watermark-only records applied. */
  watermarkRecords: number;
  /** Heartbeat records read (including misrouted ones). */
  heartbeats: number;
  /** Records whose `to` is another shard, dropped. */
  misrouted: number;
  /** Exchange: bundles dropped because their channel already applied them. */
  duplicates: number;
  /**
   * Exchange: bundles applied after a hole in their channel (a missing part, or a range that
   * started before the previous one was complete): rows were lost upstream.
   */
  gaps: number;
  /** Dead letters, by kind. */
  deadLetters: Record<RecordDeadLetterKind, number>;
}

/** What {@link StageInputReader.read} returns for one batch. */
export interface StageInputBatch {
  /** Input steps in shard order. */
  readonly steps: InputStep[];
  readonly stats: StageInputStats;
  /** The combined input watermark after the batch. */
  readonly watermark: number;
  /** Processing time after the batch (epoch ms; -∞ before any record). */
  readonly processingTime: number;
  /** The last sequence number read (the reader's position), undefined before any record. */
  readonly lastSequenceNumber: string | undefined;
}

/** Checkpointable state of a source-stage reader: plain data. */
export interface SourceInputSnapshot {
  readonly version: 1;
  readonly kind: 'source';
  readonly stage: string;
  readonly shardId: string;
  readonly lastSequenceNumber: string | null;
  /** Largest event time seen (−∞ before the first). */
  readonly maxEventTime: number;
  /** The watermark last emitted. */
  readonly watermark: number;
  /** Arrival time of the last data record (epoch ms), null before the first. */
  readonly lastDataAt: number | null;
  /** The first processing time the reader saw, null before any record. */
  readonly since: number | null;
  /** Processing time (−∞ before any record). */
  readonly processingTime: number;
}

/** Checkpointable state of an exchange-stage reader: plain data. */
export interface ExchangeInputSnapshot {
  readonly version: 1;
  readonly kind: 'exchange';
  readonly stage: string;
  readonly shardId: string;
  readonly lastSequenceNumber: string | null;
  /** Per-channel watermarks, activity and the combined value. */
  readonly watermarks: ChannelWatermarksSnapshot;
  /**
   * Per-channel high-water marks (the last bundle applied); `channel` is set when it is not the
   * producer shard (a two-input stage's `stage/shard`).
   */
  readonly progress: readonly (ChannelProgress & { readonly channel?: string })[];
}

/** A reader's state, as {@link StageInputReader.snapshot} returns it. */
export type StageInputSnapshot = SourceInputSnapshot | ExchangeInputSnapshot;

/**
 * Reads the input of one shard of one stage, batch after batch.
 *
 * The reader's state moves with every batch it reads. The runtime persists `snapshot()` with
 * its checkpoint when it commits a batch, and calls `restore()` with the last committed
 * snapshot before re-reading input after a failure; otherwise the records of a failed batch
 * would count as already read (and be skipped as redelivered) when Lambda delivers them again.
 */
export interface StageInputReader {
  /** `source` or `exchange`. */
  readonly kind: 'source' | 'exchange';
  /** The stage id. */
  readonly stage: string;
  /** The shard this reader reads. */
  readonly shardId: string;
  /** The combined input watermark. */
  readonly watermark: number;
  /**
   * Turns one batch (in shard order) into input steps.
   *
   * @throws FlambdaError (internal, fail) when a record comes from another shard than this
   *   reader's (the handler picked the wrong reader). Bad records never throw: they become
   *   dead-letter steps.
   */
  read(input: KinesisStreamEvent | readonly KinesisStreamRecord[]): StageInputBatch;
  /** The reader's state as plain data (a fresh copy). */
  snapshot(): StageInputSnapshot;
  /**
   * Replaces the reader's state with a snapshot of a reader of the same kind, stage and shard.
   *
   * @throws FlambdaError (internal, fail) for a snapshot of another kind, stage, shard or version.
   */
  restore(snapshot: StageInputSnapshot): void;
}
