/**
 * RetractableTopN: the Retract strategy, Flink's RetractableTopNFunction. The input may retract
 * any row (`-U`/`-D`), and a retraction inside the top promotes the next row, so every row of a
 * partition is kept, ordered, with O(log n) insertion, deletion, rank and select.
 *
 * State (`data-state`, as Flink's): per partition, sort key → the rows with that key in arrival
 * order. Flink keeps a separate `sorted-map` of sort key → count so that it can count without
 * loading rows; here a partition is loaded whole into its buffer, whose tree counts, so the
 * counts need no state of their own.
 *
 * Retractions follow Flink's lenient mode: retracting a row that is not held (never seen, or its
 * state expired) emits nothing and is counted (`topn.retractMissing`). Among equal rows the
 * earliest is retracted, as Flink's equaliser loop does.
 */
import type { ChangeRow } from '../../core/row.ts';
import type { Row } from '../../core/types.ts';
import type { KeyedStateStore, MapState, StateOptions } from '../../state/state.ts';
import { RANK_METRICS } from './abstract-top-n.ts';
import { BufferedTopN, type PartitionBuffer } from './buffered-top-n.ts';
import type { RankPlan } from './rank-plan.ts';
import { loadGroups } from './topn-buffer.ts';

/** Name of the row state, as in RetractableTopNFunction. */
export const RETRACT_DATA_STATE = 'data-state';

/** The Retract Top-N; see the module documentation. */
export class RetractableTopN extends BufferedTopN<PartitionBuffer> {
  private data!: MapState<Row[]>;

  constructor(plan: RankPlan) {
    super(plan, false);
  }

  protected openData(store: KeyedStateStore, options: StateOptions | undefined): void {
    this.data = store.mapState<Row[]>(RETRACT_DATA_STATE, options);
  }

  protected load(key: string): PartitionBuffer {
    return { buffer: loadGroups(this.data.entries(key)), end: this.initialEnd(key), referenced: true };
  }

  protected clearData(key: string): void {
    this.data.clear(key);
  }

  protected rewriteData(key: string): void {
    for (const [sortKey, rows] of this.data.entries(key)) this.data.put(key, sortKey, rows);
  }

  protected processRecord(key: string, change: ChangeRow): void {
    const row = change.row;
    const part = this.partition(key);
    if (!this.resolveEnd(key, part, row)) return;
    const buffer = part.buffer;
    const sortKey = this.plan.order.encode(row);
    if (change.kind === '+I' || change.kind === '+U') {
      const group = this.ranker.insert(buffer, sortKey, row);
      this.data.put(key, group.key, group.rows);
      return;
    }
    const group = buffer.find(sortKey);
    const index = group === undefined ? -1 : this.indexOf(group.rows, row);
    if (index < 0) {
      this.count(RANK_METRICS.retractMissing);
      return;
    }
    this.ranker.remove(buffer, group!, index);
    if (group!.attached) this.data.put(key, sortKey, group!.rows);
    else this.data.delete(key, sortKey);
  }

  /** Index of the first row equal to `row`, or -1. */
  private indexOf(rows: readonly Row[], row: Row): number {
    const equal = this.plan.rowsEqual;
    for (let i = 0; i < rows.length; i++) if (equal(rows[i]!, row)) return i;
    return -1;
  }
}
