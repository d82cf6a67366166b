/**
 * An announced range the event source mapping skipped, recognised and settled so the shard goes
 * on instead of wedging.
 *
 * The effectively-once protocol announces a batch's range (`pending` in the checkpoint) before
 * its output is sent, and the next invocation must replay exactly that range first, so that the
 * output ids repeat and receivers drop what they already have (docs/effectively-once.md). That
 * only works while Lambda keeps re-delivering the range. With finite `MaximumRetryAttempts`, or a
 * `MaximumRecordAgeInSeconds` the range's records outlive, Lambda gives up on the batch: it sends
 * the batch's metadata to the on-failure destination and "moves on to the next batch" with its
 * checkpoint past the discarded records (Lambda developer guide, "Error handling for Kinesis
 * event sources"; a partial batch response discards from the reported record to the batch's
 * end). The range then never comes back, and without this module every later event of the shard
 * would fail with "must replay its announced range first" until it too is discarded.
 *
 * Recognition: Lambda reads a shard in order and its checkpoint only moves forward, and the
 * handler always reports an announced range's first record when the range fails (a replay stays
 * whole). So an event whose first new record (after the committed position) lies after the
 * range's first record can only mean the mapping discarded the range's start — wholly (the event
 * starts after `pending.last`, retries exhausted) or its older part (records expired by age).
 * Either way the range cannot be replayed whole any more, and it is settled as a whole:
 *
 * 1. its metadata goes to the dead-letter queue (a `skipped-range` letter: stage, stream, shard,
 *    first and last sequence number and why), before anything is cleared, so a crash in between
 *    at worst sends it twice;
 * 2. `pending` is removed from the checkpoint (a write fenced by the epoch, like every other);
 * 3. records of this event still inside the range are dropped with it: the range's output may
 *    have reached receivers in part, and new output for those records would overlap it.
 *
 * The range's state changes were never committed, and its records stay readable in the stream
 * until the stream's retention ends (the letter says where), so an operator can replay them. The
 * caller counts the settled ranges (the `SkippedRanges` metric, which the stack alarms on).
 */
import type { KinesisStreamRecord } from 'aws-lambda';
import { compareSequenceNumbers, shardIdOf, streamNameOf } from '../stage-input/kinesis-records.ts';
import type { DeadLetter } from '../stage-input/types.ts';
import type { SequenceRange } from './checkpoint-store.ts';

/** An announced range the mapping will never deliver again. */
export interface SkippedRange {
  /** The announced range, as the checkpoint holds it (a whole commit interval, under intervals). */
  readonly range: SequenceRange;
  /** The first record of the event after the committed position: where the mapping resumed. */
  readonly resumedAt: string;
  /** True when the mapping resumed after the range's last record; false when inside it (its start expired). */
  readonly whole: boolean;
}

/** What settling needs of the checkpoint store. */
export interface PendingClearer {
  /** Removes the announced range from the checkpoint, fenced by the epoch. */
  clearPending(): Promise<void>;
}

/** Options of {@link settleSkippedRange}. */
export interface SettleSkippedRangeOptions {
  /** The fenced checkpoint store of the shard. */
  readonly checkpoints: PendingClearer;
  /** The announced range the checkpoint holds. */
  readonly pending: SequenceRange;
  /** The event's records after the committed position, in shard order. */
  readonly records: readonly KinesisStreamRecord[];
  /** The stage whose input the shard is. */
  readonly stage: string;
  /** Where the skipped range's letter goes. @default - nowhere (the range is still cleared and reported) */
  readonly onDeadLetters?: (letters: readonly DeadLetter[]) => Promise<void> | void;
}

/** A settled skipped range, and the event's records that remain to be processed. */
export interface SettledSkippedRange extends SkippedRange {
  /** The records after the range's last one. */
  readonly rest: readonly KinesisStreamRecord[];
}

/**
 * The skipped range, when `records` (an event's records after the committed position) show the
 * mapping moved past the start of the announced range `pending`; undefined when the event can
 * still replay it (it starts at `pending.first`) or holds no new record.
 */
export function findSkippedRange(pending: SequenceRange, records: readonly KinesisStreamRecord[]): SkippedRange | undefined {
  const first = records[0]?.kinesis.sequenceNumber;
  // Under commit intervals the mapping re-delivers from the announcing event's first record.
  if (first === undefined || compareSequenceNumbers(first, pending.delivered ?? pending.first) <= 0) return undefined;
  return { range: pending, resumedAt: first, whole: compareSequenceNumbers(first, pending.last) > 0 };
}

/** The dead letter that reports a skipped range: its position and why, no record data. */
export function skippedRangeLetter(skip: SkippedRange, where: { readonly stage: string; readonly stream: string; readonly shardId: string }): DeadLetter {
  const { first, last } = skip.range;
  const how = skip.whole
    ? `the event source mapping gave up on it (MaximumRetryAttempts exhausted) and resumed at ${skip.resumedAt}`
    : `the event source mapping discarded its start (older than MaximumRecordAgeInSeconds) and resumed inside it at ${skip.resumedAt}`;
  return {
    kind: 'skipped-range',
    reason:
      `announced range ${first}..${last} of ${where.shardId} was skipped: ${how}. Its state changes were never committed and its output ` +
      `may have been delivered in part; its records stay in stream ${where.stream} until the retention period ends ` +
      `(GetShardIterator AT_SEQUENCE_NUMBER ${first} to replay them)`,
    stage: where.stage,
    stream: where.stream,
    shardId: where.shardId,
    sequenceNumber: first,
    lastSequenceNumber: last,
    approximateArrivalTimestamp: 0,
    partitionKey: '',
    data: '',
    dataBytes: 0,
    truncated: false,
  };
}

/**
 * Settles the announced range when the mapping skipped it (see the module documentation): sends
 * its letter, clears `pending`, and returns the event's records after the range. Returns
 * undefined, changing nothing, when the event can still replay the range.
 *
 * @throws whatever `onDeadLetters` or `clearPending` throws (a FencedError, a TransientError):
 *   the batch then fails and is delivered again, and the range is recognised again.
 */
export async function settleSkippedRange(options: SettleSkippedRangeOptions): Promise<SettledSkippedRange | undefined> {
  const skip = findSkippedRange(options.pending, options.records);
  if (skip === undefined) return undefined;
  const record = options.records[0] as KinesisStreamRecord;
  await options.onDeadLetters?.([skippedRangeLetter(skip, { stage: options.stage, stream: streamNameOf(record), shardId: shardIdOf(record) })]);
  await options.checkpoints.clearPending();
  const rest = options.records.filter((r) => compareSequenceNumbers(r.kinesis.sequenceNumber, skip.range.last) > 0);
  return { ...skip, rest };
}
