/**
 * FastTop1: Flink's FastTop1Function, the fast path for ROW_NUMBER in [1, 1] over an
 * insert-only input (`… WHERE rn = 1`, `rn <= 1`). A partition's whole buffer is one row, kept
 * in one ValueState (`Top1-Rank-State`, as Flink's); a new row replaces it only when it ranks
 * strictly first (a tie keeps the earlier row, ROW_NUMBER's arrival order).
 *
 * Changelog, as FastTop1FunctionTest expects: `+I` of a partition's first row, then `-U` old /
 * `+U` new each time the top row is replaced ("partition key is unique key if only top-1 is
 * desired, thus emitting UB and UA here"), with the rank number 1 when it is output.
 *
 * No buffer cache: the state value is the buffer, and the state backend caches it. The UpdateFast
 * top-1 case, which Flink also sends to FastTop1Function, runs on UpdatableTopN with this same
 * changelog, because our upsert inputs may delete the top row (see updatable-top-n.ts).
 */
import type { ChangeRow } from '../../core/row.ts';
import type { Row } from '../../core/types.ts';
import type { KeyedStateStore, ValueState } from '../../state/state.ts';
import { AbstractTopN, requireInsert } from './abstract-top-n.ts';

/** Name of the state, as in FastTop1Function. */
export const TOP1_STATE = 'Top1-Rank-State';

/** The AppendFast top-1 Top-N; see the module documentation. */
export class FastTop1 extends AbstractTopN {
  private top!: ValueState<Row>;

  protected openState(store: KeyedStateStore): void {
    const ttlMs = this.plan.ttlMs;
    this.top = store.valueState<Row>(TOP1_STATE, ttlMs === undefined ? undefined : { ttl: { ttlMs } });
  }

  protected touchPartition(key: string): void {
    // Activity keeps the partition alive: rewriting its one value refreshes its TTL.
    const row = this.top.get(key);
    if (row !== undefined) this.top.put(key, row);
  }

  protected processRecord(key: string, change: ChangeRow): void {
    requireInsert(change, 'FastTop1');
    const row = change.row;
    const c = this.collector;
    const previous = this.top.get(key);
    if (previous === undefined) {
      this.top.put(key, row);
      c.insert(row, 1);
      return;
    }
    // "current sort key is higher than old sort key"
    if (this.plan.order.compare(row, previous) < 0) {
      this.top.put(key, row);
      c.updateBefore(previous, 1);
      c.updateAfter(row, 1);
    }
  }
}
