/**
 * AppendOnlyFirstN: Flink's AppendOnlyFirstNFunction, the fast path StreamExecRank picks for an
 * AppendFast ROW_NUMBER ordered by a processing-time attribute ascending. Arrival order is then
 * the sort order, so a new row always ranks after every earlier one: the top N are the first N
 * rows, and a counter per partition (`counterState`, as Flink's) replaces the sorted buffer.
 *
 * Each of the first `end` rows is `+I` (with its rank number when output, and only from the
 * range start on); later rows emit nothing. A variable range's end is fixed by the partition's
 * first row and kept with the counter.
 */
import type { ChangeRow } from '../../core/row.ts';
import type { KeyedStateStore, ValueState } from '../../state/state.ts';
import { AbstractTopN, RANK_METRICS, requireInsert } from './abstract-top-n.ts';

/** Name of the state, as in AppendOnlyFirstNFunction. */
export const FIRST_N_STATE = 'counterState';

/** A partition's counter and its rank end. */
interface FirstNCounter {
  count: number;
  end: number;
}

/** The first-N Top-N; see the module documentation. */
export class AppendOnlyFirstN extends AbstractTopN {
  private counters!: ValueState<FirstNCounter>;

  protected openState(store: KeyedStateStore): void {
    const ttlMs = this.plan.ttlMs;
    this.counters = store.valueState<FirstNCounter>(FIRST_N_STATE, ttlMs === undefined ? undefined : { ttl: { ttlMs } });
  }

  protected touchPartition(key: string): void {
    const counter = this.counters.get(key);
    if (counter !== undefined) this.counters.put(key, counter);
  }

  protected processRecord(key: string, change: ChangeRow): void {
    requireInsert(change, 'AppendOnlyFirstN');
    const row = change.row;
    const range = this.plan.range;
    let counter = this.counters.get(key);
    if (counter === undefined) {
      const end = range.kind === 'constant' ? range.end : range.endOf(row);
      if (end === undefined) {
        this.count(RANK_METRICS.invalidRankEnd);
        return;
      }
      counter = { count: 0, end };
    } else if (range.kind === 'variable' && range.endOf(row) !== counter.end) {
      this.count(RANK_METRICS.invalidTopSize);
    }
    // "ignore record if it does not belong to the first-n rows"
    if (counter.count >= counter.end) return;
    counter.count += 1;
    this.counters.put(key, counter);
    const c = this.collector;
    c.end = counter.end;
    if (this.plan.outputRankNumber || range.start > 1) c.insert(row, counter.count);
    else c.insertRow(row);
  }
}
