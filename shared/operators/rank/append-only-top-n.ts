/**
 * AppendOnlyTopN: the AppendFast strategy, Flink's AppendOnlyTopNFunction. The input only
 * inserts, so a row pushed out of the top can never come back: each partition keeps only the
 * rows ranked up to the range end (for RANK / DENSE_RANK, whole groups of ties), and a row
 * ranked after them is dropped after one comparison, without being encoded or stored.
 *
 * State (`data-state-with-append`, as Flink's): per partition, sort key → the rows with that key
 * in arrival order, which is also the cached buffer's content.
 */
import type { ChangeRow } from '../../core/row.ts';
import type { Row } from '../../core/types.ts';
import type { KeyedStateStore, MapState, StateOptions } from '../../state/state.ts';
import { requireInsert } from './abstract-top-n.ts';
import { BufferedTopN, type PartitionBuffer } from './buffered-top-n.ts';
import type { RankPlan } from './rank-plan.ts';
import type { DroppedRow } from './ranker.ts';
import { loadGroups } from './topn-buffer.ts';

/** Name of the row state, as in AppendOnlyTopNFunction. */
export const APPEND_DATA_STATE = 'data-state-with-append';

/** The AppendFast Top-N; see the module documentation. */
export class AppendOnlyTopN extends BufferedTopN<PartitionBuffer> {
  private data!: MapState<Row[]>;
  /** Partition of the record being processed, for {@link dropped}. */
  private currentKey = '';
  /** Mirrors a trimmed group into state; bound once so trimming allocates nothing. */
  private readonly dropped: DroppedRow = (group) => {
    if (group.attached) this.data.put(this.currentKey, group.key, group.rows);
    else this.data.delete(this.currentKey, group.key);
  };

  constructor(plan: RankPlan) {
    super(plan, false);
  }

  protected openData(store: KeyedStateStore, options: StateOptions | undefined): void {
    this.data = store.mapState<Row[]>(APPEND_DATA_STATE, options);
  }

  protected load(key: string): PartitionBuffer {
    return { buffer: loadGroups(this.data.entries(key)), end: this.initialEnd(key) };
  }

  protected clearData(key: string): void {
    this.data.clear(key);
  }

  protected rewriteData(key: string): void {
    for (const [sortKey, rows] of this.data.entries(key)) this.data.put(key, sortKey, rows);
  }

  protected processRecord(key: string, change: ChangeRow): void {
    requireInsert(change, 'AppendOnlyTopN');
    const row = change.row;
    const part = this.partition(key);
    if (!this.resolveEnd(key, part, row)) return;
    const buffer = part.buffer;
    const end = this.collector.end;
    // TopNBuffer.checkSortKeyInBufferRange: the common case for a long stream ends here.
    if (this.ranker.beyondEnd(buffer, row, end)) return;
    const group = this.ranker.insert(buffer, this.plan.order.encode(row), row);
    this.data.put(key, group.key, group.rows);
    this.currentKey = key;
    this.ranker.trim(buffer, end, this.dropped);
  }
}
