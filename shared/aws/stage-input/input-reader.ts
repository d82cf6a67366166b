/**
 * What the source and exchange readers share: the per-record frame of a batch — shard check,
 * position (skip what the reader's state already covers), size limit, dead letters — around a
 * kind-specific `readRecord`.
 */
import type { KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';
import { FlambdaError, PlanError } from '../../core/errors.ts';
import { MAX_KINESIS_RECORD_BYTES } from '../kinesis/bundle-codec.ts';
import { DEFAULT_DEAD_LETTER_DATA_BYTES, deadLetterOf, emptyStats } from './dead-letter.ts';
import { compareSequenceNumbers, dataBytesOf, isSequenceNumber, recordsOf, shardIdOf } from './kinesis-records.ts';
import type { InputStep, RecordDeadLetterKind, StageInputBatch, StageInputSnapshot, StageInputStats } from './types.ts';

/** Options every reader takes. */
export interface InputReaderOptions {
  /** The stage id, e.g. `stage-1` (written into dead letters). */
  readonly stage: string;
  /** The shard this reader reads, e.g. `shardId-000000000003`. */
  readonly shardId: string;
  /**
   * Records whose data is larger are dead-lettered as `oversized` without being decoded
   * (1..1048576). Kinesis itself accepts up to 1 MiB per record (data plus partition key), so
   * the default only catches records of streams configured for larger ones; a smaller limit
   * protects a stage from rows it could not forward (one row must fit one 1 MiB bundle).
   * @default MAX_KINESIS_RECORD_BYTES (1 MiB)
   */
  readonly maxRecordBytes?: number;
  /**
   * Leading data bytes a dead letter keeps (0..1048576).
   * @default DEFAULT_DEAD_LETTER_DATA_BYTES (64 KiB)
   */
  readonly maxDeadLetterDataBytes?: number;
}

/** The batch being read: its steps and counters. */
export interface BatchContext {
  readonly steps: InputStep[];
  readonly stats: StageInputStats;
}

/** Checks an integer option's range; PlanError naming the value otherwise. */
export function checkIntegerOption(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new PlanError(`${name} must be an integer ${min}..${max} (given ${value})`);
  }
  return value;
}

/** The frame of {@link StageInputReader.read}; see the module header. */
export abstract class InputReaderBase {
  /** The stage id. */
  readonly stage: string;
  /** The shard this reader reads. */
  readonly shardId: string;
  /** Records above this many data bytes are dead-lettered unread. */
  protected readonly maxRecordBytes: number;
  /** Leading data bytes kept in a dead letter. */
  protected readonly maxDeadLetterDataBytes: number;
  /** The last sequence number read; records at or before it are redeliveries. */
  protected lastSequenceNumber: string | undefined;

  /** @throws PlanError for bad options. */
  constructor(options: InputReaderOptions) {
    if (typeof options.stage !== 'string' || options.stage.length === 0) throw new PlanError('stage must be a non-empty string');
    if (typeof options.shardId !== 'string' || options.shardId.length === 0) throw new PlanError('shardId must be a non-empty string');
    this.stage = options.stage;
    this.shardId = options.shardId;
    this.maxRecordBytes = checkIntegerOption('maxRecordBytes', options.maxRecordBytes ?? MAX_KINESIS_RECORD_BYTES, 1, MAX_KINESIS_RECORD_BYTES);
    this.maxDeadLetterDataBytes = checkIntegerOption(
      'maxDeadLetterDataBytes',
      options.maxDeadLetterDataBytes ?? DEFAULT_DEAD_LETTER_DATA_BYTES,
      0,
      MAX_KINESIS_RECORD_BYTES,
    );
  }

  /** The combined input watermark. */
  abstract get watermark(): number;

  /** Processing time (epoch ms; −∞ before any record). */
  protected abstract get processingTime(): number;

  /** Reads one record that is new, within the size limit and from this shard. */
  protected abstract readRecord(record: KinesisStreamRecord, position: string, batch: BatchContext): void;

  /** Ends a run of steps before a step that must follow it (a dead letter); and the batch. */
  protected abstract flush(batch: BatchContext): void;

  /** See {@link StageInputReader.snapshot}. */
  abstract snapshot(): StageInputSnapshot;

  /** See {@link StageInputReader.read}. */
  read(input: KinesisStreamEvent | readonly KinesisStreamRecord[]): StageInputBatch {
    const batch: BatchContext = { steps: [], stats: emptyStats() };
    for (const record of recordsOf(input)) {
      const shardId = shardIdOf(record);
      if (shardId !== this.shardId) {
        throw new FlambdaError(
          `the reader of ${this.stage}/${this.shardId} was given a record of shard ${shardId}: pick the reader by the event's shard`,
          'internal',
          'fail',
        );
      }
      const sequenceNumber = record.kinesis.sequenceNumber;
      if (!isSequenceNumber(sequenceNumber)) {
        throw new FlambdaError(`Kinesis event record has an invalid sequence number ${JSON.stringify(sequenceNumber)}`, 'internal', 'fail');
      }
      batch.stats.records++;
      // Lambda re-delivers records after a failed or timed-out invocation; what the restored
      // state already covers was applied and committed, so it is skipped as a whole.
      if (this.lastSequenceNumber !== undefined && compareSequenceNumbers(sequenceNumber, this.lastSequenceNumber) <= 0) {
        batch.stats.redelivered++;
        continue;
      }
      this.lastSequenceNumber = sequenceNumber;
      const position = `${shardId}@${sequenceNumber}`;
      const bytes = dataBytesOf(record);
      if (bytes > this.maxRecordBytes) {
        this.deadLetter(batch, record, 'oversized', `${position}: record of ${bytes} bytes is over the ${this.maxRecordBytes}-byte limit for one record`);
        continue;
      }
      this.readRecord(record, position, batch);
    }
    this.flush(batch);
    return {
      steps: batch.steps,
      stats: batch.stats,
      watermark: this.watermark,
      processingTime: this.processingTime,
      lastSequenceNumber: this.lastSequenceNumber,
    };
  }

  /** Appends a dead-letter step, after whatever run of steps is open. */
  protected deadLetter(batch: BatchContext, record: KinesisStreamRecord, kind: RecordDeadLetterKind, reason: string): void {
    this.flush(batch);
    batch.stats.deadLetters[kind]++;
    batch.steps.push({
      type: 'dead-letter',
      letter: deadLetterOf(record, this.stage, kind, reason, this.maxDeadLetterDataBytes),
      sequenceNumber: record.kinesis.sequenceNumber,
    });
  }

  /** Checks a snapshot's identity before restoring it. */
  protected checkSnapshot(snapshot: StageInputSnapshot, kind: StageInputSnapshot['kind']): void {
    if (snapshot.version !== 1 || snapshot.kind !== kind || snapshot.stage !== this.stage || snapshot.shardId !== this.shardId) {
      throw new FlambdaError(
        `cannot restore a ${String(snapshot.kind)} reader snapshot (version ${String(snapshot.version)}) of ${String(snapshot.stage)}/${String(snapshot.shardId)} ` +
          `into the ${kind} reader of ${this.stage}/${this.shardId}`,
        'internal',
        'fail',
      );
    }
    if (snapshot.lastSequenceNumber !== null && !isSequenceNumber(snapshot.lastSequenceNumber)) {
      throw new FlambdaError(`reader snapshot has an invalid lastSequenceNumber ${JSON.stringify(snapshot.lastSequenceNumber)}`, 'internal', 'fail');
    }
  }
}

/** Text of a value for a reason, JSON-quoted and cut so one bad blob cannot flood a message. */
export function excerpt(text: string, max = 80): string {
  const quoted = JSON.stringify(text);
  return quoted.length > max ? `${quoted.slice(0, max)}…` : quoted;
}
