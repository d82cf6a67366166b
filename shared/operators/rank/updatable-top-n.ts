/**
 * UpdatableTopN: the UpdateFast strategy, Flink's UpdatableTopNFunction. The input is an upsert
 * stream keyed by `spec.upsertKey` (which contains the partition key) whose sort key only moves
 * a row towards the top — e.g. a growing `SUM(quantity)` ordered DESC, the seed article's case.
 * A new version of a row replaces the old one by key, so no `-U` input is needed, and a row in
 * the top can only move up inside it.
 *
 * As in Flink, the buffer holds only the rows ranked up to the range end, indexed by upsert
 * key; an updated row that keeps its sort key keeps its place among ties, one whose key changes
 * goes after the rows of its new key. Flink's UpdatableTopNFunction drops every other row; this
 * one keeps all rows in state (`data-state-with-update`: upsert key → [row, tie order]), because
 * beyond Flink it also accepts what its contract excludes:
 *
 * - `-D` of a row in the top (Flink's UpdateFast input "could not contain DELETE"): the rows
 *   after the top are read back from state to promote the next one (O(rows), only then);
 * - an update moving a row away from the top (Flink logs that the monotonicity "is guaranteed
 *   by the sql semantic" and patches ranks): handled as a removal then an insertion, and counted
 *   (`topn.nonMonotonicUpdates`).
 *
 * `-U` input rows are ignored (counted): the following `+U` carries the new version.
 *
 * For ROW_NUMBER in [1, 1] Flink runs FastTop1Function instead, whose changelog replaces the
 * top row by `-U`/`+U` (the partition key being a unique key); this operator emits the same
 * changelog then, and keeps the deletes FastTop1Function cannot handle.
 */
import type { ChangeRow } from '../../core/row.ts';
import type { Row } from '../../core/types.ts';
import type { KeyedStateStore, MapState, StateOptions } from '../../state/state.ts';
import { RANK_METRICS } from './abstract-top-n.ts';
import { BufferedTopN, type PartitionBuffer } from './buffered-top-n.ts';
import type { RankPlan } from './rank-plan.ts';
import { isTop1 } from './rank-range.ts';
import type { DroppedRow } from './ranker.ts';
import { TopNBuffer, type SortGroup } from './topn-buffer.ts';

/** Name of the row state, as in UpdatableTopNFunction. */
export const UPDATE_DATA_STATE = 'data-state-with-update';

/** A stored row and its tie order (Flink keeps the row's index among ties, `innerRank`). */
export type StoredRow = readonly [row: Row, seq: number];

/** A row of the top, by upsert key. */
interface BufferedRow {
  row: Row;
  seq: number;
  group: SortGroup;
}

/** A partition's cached top rows. */
interface UpdatablePartition extends PartitionBuffer {
  readonly index: Map<string, BufferedRow>;
  /** State may hold rows ranked after the buffer (false only when known not to). */
  overflow: boolean;
  /** The next tie order; above every stored one. */
  nextSeq: number;
}

/** A row of state during loading. */
interface Candidate {
  readonly key: string;
  readonly row: Row;
  readonly seq: number;
}

/** The UpdateFast Top-N; see the module documentation. */
export class UpdatableTopN extends BufferedTopN<UpdatablePartition> {
  private rows!: MapState<StoredRow>;
  private readonly upsertKey: (row: Row) => string;
  private readonly dense: boolean;
  /** Partition of the record being processed, for {@link dropped}. */
  private current: UpdatablePartition | undefined;
  /** A row trimmed from the top stays in state only. */
  private readonly dropped: DroppedRow = (_group, row) => {
    const part = this.current!;
    part.index.delete(this.upsertKey(row));
    part.overflow = true;
  };

  constructor(plan: RankPlan) {
    super(plan, plan.spec.rankType === 'ROW_NUMBER' && isTop1(plan.range));
    this.upsertKey = plan.upsertKey!;
    this.dense = plan.spec.rankType === 'DENSE_RANK';
  }

  protected openData(store: KeyedStateStore, options: StateOptions | undefined): void {
    this.rows = store.mapState<StoredRow>(UPDATE_DATA_STATE, options);
  }

  protected load(key: string): UpdatablePartition {
    const candidates: Candidate[] = [];
    let nextSeq = 0;
    for (const [rowKey, [row, seq]] of this.rows.entries(key)) {
      candidates.push({ key: rowKey, row, seq });
      if (seq >= nextSeq) nextSeq = seq + 1;
    }
    const compare = this.plan.order.compare;
    candidates.sort((a, b) => compare(a.row, b.row) || a.seq - b.seq);
    const part: UpdatablePartition = {
      buffer: new TopNBuffer(),
      end: this.initialEnd(key),
      referenced: true,
      index: new Map(),
      overflow: false,
      nextSeq,
    };
    for (const candidate of candidates) {
      if (part.end !== undefined && this.ranker.beyondEnd(part.buffer, candidate.row, part.end)) {
        part.overflow = true;
        break;
      }
      this.buffer(part, candidate, this.plan.order.encode(candidate.row));
    }
    return part;
  }

  protected clearData(key: string): void {
    this.rows.clear(key);
  }

  protected rewriteData(key: string): void {
    for (const [rowKey, stored] of this.rows.entries(key)) this.rows.put(key, rowKey, stored);
  }

  protected processRecord(key: string, change: ChangeRow): void {
    if (change.kind === '-U') {
      this.count(RANK_METRICS.ignoredUpdateBefore);
      return;
    }
    const row = change.row;
    const part = this.partition(key);
    if (!this.resolveEnd(key, part, row)) return;
    this.current = part;
    if (change.kind === '-D') this.delete(key, part, row);
    else this.upsert(key, part, row);
  }

  private upsert(key: string, part: UpdatablePartition, row: Row): void {
    const rowKey = this.upsertKey(row);
    const compare = this.plan.order.compare;
    const end = this.collector.end;
    let seq: number;
    const buffered = part.index.get(rowKey);
    if (buffered !== undefined) {
      const group = buffered.group;
      const index = group.rows.indexOf(buffered.row);
      const order = compare(row, buffered.row);
      if (order <= 0) {
        // "the new sort key must be higher than old sort key, this is guaranteed by rules"
        seq = order === 0 ? buffered.seq : part.nextSeq++;
        const sortKey = order === 0 ? group.key : this.plan.order.encode(row);
        // Under DENSE_RANK a row leaving its key empty moves every later key up one rank, so
        // the first key after the buffer may enter the range.
        if (order < 0 && part.overflow && this.dense && group.rows.length === 1) this.bufferNextGroup(key, part);
        buffered.group = this.ranker.update(part.buffer, group, index, sortKey, row);
        buffered.row = row;
        buffered.seq = seq;
        this.rows.put(key, rowKey, [row, seq]);
        // With RANK ties, moving up can push the last group of the top out.
        if (order < 0) this.ranker.trim(part.buffer, end, this.dropped);
        return;
      }
      this.count(RANK_METRICS.nonMonotonicUpdates);
      this.rows.delete(key, rowKey);
      part.index.delete(rowKey);
      this.removeBuffered(key, part, group, index);
      seq = part.nextSeq++;
    } else {
      // A row outside the top keeps its tie order when its sort key does not change.
      const stored = this.rows.get(key, rowKey);
      seq = stored !== undefined && compare(row, stored[0]) === 0 ? stored[1] : part.nextSeq++;
    }
    this.rows.put(key, rowKey, [row, seq]);
    if (this.ranker.beyondEnd(part.buffer, row, end)) {
      part.overflow = true;
      return;
    }
    const group = this.ranker.insert(part.buffer, this.plan.order.encode(row), row);
    part.index.set(rowKey, { row, seq, group });
    this.ranker.trim(part.buffer, end, this.dropped);
  }

  private delete(key: string, part: UpdatablePartition, row: Row): void {
    const rowKey = this.upsertKey(row);
    this.rows.delete(key, rowKey);
    const buffered = part.index.get(rowKey);
    // A row outside the top changes no rank in it.
    if (buffered === undefined) return;
    part.index.delete(rowKey);
    const group = buffered.group;
    this.removeBuffered(key, part, group, group.rows.indexOf(buffered.row));
  }

  /** Removes a row of the top, first buffering the rows that may move up into it. */
  private removeBuffered(key: string, part: UpdatablePartition, group: SortGroup, index: number): void {
    if (part.overflow) this.bufferNextGroup(key, part);
    this.ranker.remove(part.buffer, group, index);
    this.ranker.trim(part.buffer, this.collector.end, this.dropped);
  }

  /**
   * Buffers the best rows of state that are not buffered: all rows of the next sort key, in tie
   * order. They rank after the whole buffer, so adding them changes no rank in range; after the
   * removal one of them (ROW_NUMBER) or all (RANK, DENSE_RANK) may move up into the range.
   */
  private bufferNextGroup(key: string, part: UpdatablePartition): void {
    const compare = this.plan.order.compare;
    let best: Candidate[] = [];
    for (const [rowKey, [row, seq]] of this.rows.entries(key)) {
      if (part.index.has(rowKey)) continue;
      const order = best.length === 0 ? -1 : compare(row, best[0]!.row);
      if (order < 0) best = [{ key: rowKey, row, seq }];
      else if (order === 0) best.push({ key: rowKey, row, seq });
    }
    if (best.length === 0) {
      part.overflow = false;
      return;
    }
    best.sort((a, b) => a.seq - b.seq);
    const sortKey = this.plan.order.encode(best[0]!.row);
    for (const candidate of best) this.buffer(part, candidate, sortKey);
  }

  /** Adds a stored row to the buffer after its ties, without emitting. */
  private buffer(part: UpdatablePartition, candidate: Candidate, sortKey: string): void {
    const group = part.buffer.addRow(sortKey, candidate.row);
    part.index.set(candidate.key, { row: candidate.row, seq: candidate.seq, group });
  }
}
