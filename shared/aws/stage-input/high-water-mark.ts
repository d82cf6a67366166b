/**
 * Duplicate detection for exchange bundles with one high-water mark per input channel.
 *
 * A channel is one producer shard of the upstream stage. A bundle's id is
 * `(p, s, f..l, to, n of)`: the producer's input range `f..l` (Kinesis sequence numbers of the
 * producer's own input shard) and the part `n` of `of` parts for this target.
 *
 * Why one mark per channel is enough — the records of a channel reach this shard in the order
 * the producer emitted them:
 *
 * 1. The producer reads its input shard in sequence-number order and emits each batch's output
 *    before the next batch's, so the ids it emits to one target rise: ranges are disjoint and
 *    increasing, and parts of one range go 0, 1, …, of−1.
 * 2. `KinesisStageWriter` keeps at most one record per target shard in flight and sends the
 *    next only after the previous one succeeded, and Kinesis keeps a shard's records in the
 *    order they were accepted. So this shard sees the channel's ids in emission order.
 * 3. Duplicates come from (a) a PutRecords attempt whose outcome was unknown and was sent again
 *    — the copy directly follows its original; (b) the producer re-processing input after a
 *    failure — a replay re-emits byte-identical records (same ranges, same parts, see
 *    bundle-codec.ts) for input it had already emitted, then continues with new input; (c)
 *    Lambda re-delivering this shard's own records, which the reader's sequence-number
 *    position already skips.
 *
 * So the bundles a channel has applied always form a prefix of the producer's id sequence, and
 * a prefix is summed up by its last element: a bundle at or before the mark is a duplicate, the
 * next one after it is new. No set of seen ids, no expiry window — O(channels) state that fits
 * in a checkpoint.
 *
 * ```
 *  producer emits:   A0 A1 │ B0 │ C0 C1 C2
 *  shard receives:   A0 A1 A1 B0 │ A0 A1 B0 C0 C1 C2        (A1 retried; replay from A)
 *  mark after each:  A0 A1 ·  B0 │ ·  ·  ·  C0 C1 C2        (· = dropped as duplicate)
 * ```
 *
 * Ranges are compared as intervals of sequence numbers. A bundle whose range overlaps the
 * applied input without being a replay of it — e.g. a producer that re-processed its input
 * with other batch boundaries after emitting only part of a range — cannot be applied exactly
 * once: its rows do not say which input each came from. It is classified `overlap` (the reader
 * dead-letters it and leaves the mark alone). The producer must replay a partly emitted range
 * with the same boundaries.
 */
import type { BundleId } from '../kinesis/bundle-codec.ts';
import { compareSequenceNumbers } from './kinesis-records.ts';

/** The last bundle a channel applied: plain data, checkpointed with the reader. */
export interface ChannelProgress {
  /** The producer shard (`s`). */
  readonly producerShard: string;
  /** Input range of the last bundle applied. */
  readonly first: string;
  readonly last: string;
  /** Its part and part count. */
  readonly part: number;
  readonly parts: number;
}

/**
 * What to do with a bundle:
 *
 * - `apply` — the next bundle of its channel (`gap` when parts or a range's remaining parts
 *   are missing before it: rows were lost upstream, yet it is still the newest input);
 * - `duplicate` — at or before the mark: drop it;
 * - `overlap` — overlaps applied input without being a replay: see the module header.
 */
export type BundleVerdict = { readonly action: 'apply'; readonly gap: boolean } | { readonly action: 'duplicate' } | { readonly action: 'overlap' };

const APPLY: BundleVerdict = { action: 'apply', gap: false };
const APPLY_AFTER_GAP: BundleVerdict = { action: 'apply', gap: true };
const DUPLICATE: BundleVerdict = { action: 'duplicate' };
const OVERLAP: BundleVerdict = { action: 'overlap' };

/**
 * Classifies a bundle against its channel's mark (undefined: nothing applied yet). Sequence
 * numbers must be valid Kinesis sequence numbers with `first <= last` (the reader checks).
 */
export function classifyBundle(mark: ChannelProgress | undefined, id: BundleId): BundleVerdict {
  if (mark === undefined) return id.part === 0 ? APPLY : APPLY_AFTER_GAP;
  const sameRange = id.first === mark.first && id.last === mark.last;
  if (sameRange) {
    // Parts of one range must agree on the count: another count means another split.
    if (id.parts !== mark.parts) return OVERLAP;
    if (id.part <= mark.part) return DUPLICATE;
    return id.part === mark.part + 1 ? APPLY : APPLY_AFTER_GAP;
  }
  const complete = mark.part === mark.parts - 1;
  // Input known to be fully applied: through `last` when the range is complete, else only
  // before `first` (some of its parts are missing).
  if (complete ? compareSequenceNumbers(id.last, mark.last) <= 0 : compareSequenceNumbers(id.last, mark.first) < 0) {
    return DUPLICATE;
  }
  if (compareSequenceNumbers(id.first, mark.last) > 0) {
    // A later range: new input. It should start at part 0 after a complete range.
    return complete && id.part === 0 ? APPLY : APPLY_AFTER_GAP;
  }
  return OVERLAP;
}

/** The mark after applying `id`. */
export function progressOf(id: BundleId): ChannelProgress {
  return { producerShard: id.producerShard, first: id.first, last: id.last, part: id.part, parts: id.parts };
}
