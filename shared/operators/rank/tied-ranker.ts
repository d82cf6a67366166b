/**
 * RANK and DENSE_RANK in streaming — beyond Flink, whose AbstractTopNFunction rejects both
 * ("RANK() on streaming table is not supported currently").
 *
 * Rows with equal sort keys share a rank: RANK is 1 + the number of rows ranked strictly before
 * (so numbers are skipped after ties: 1, 1, 3), DENSE_RANK is 1 + the number of distinct sort
 * keys before (1, 1, 2). The range filters by rank value, so `rank <= 3` may hold more than
 * three rows when there are ties, and a whole group of ties is in or out together.
 *
 * Since ties share a rank, (partition, rank) identifies no row, so there are no rank "slots" as
 * ROW_NUMBER's position mode has: rows are identified by themselves. The emission rules are
 * ROW_NUMBER's set-mode rules applied to every row whose rank changes:
 *
 * - **With the rank number**: the changed row first — `+I` (new row in range), `-D` (removed row
 *   was in range), `-U`/`+U` (updated row, in range before and after) — then, in rank order,
 *   every other row whose rank moved: `-U row@old`/`+U row@new` when in range both times, `-D
 *   row@old` when it left the range, `+I row@new` when it entered it.
 * - **Without the rank number** only the set of rows in range matters, so rows whose rank moves
 *   inside the range emit nothing. Order: the changed row's retraction (`-D`, or `-U` when it
 *   stays in range), `-D` of the rows leaving the range, `+I` of the rows entering it, the
 *   changed row's accumulation (`+I`, or `+U`). With ROW_NUMBER's rules this gives `-D pushed`,
 *   `+I new` for an insertion and `-D old`, `+I promoted` for a retraction, exactly as Flink.
 *
 * One change shifts the ranks of one run of groups by exactly one (RANK: every group after the
 * changed row; DENSE_RANK: only when a group appears or disappears), so at most one group
 * crosses each end of the range, and the walk stops at the first group past the range.
 */
import type { Row } from '../../core/types.ts';
import type { RankCollector } from './rank-collector.ts';
import type { DroppedRow, Ranker } from './ranker.ts';
import type { SortGroup, TopNBuffer } from './topn-buffer.ts';

/** RANK (`dense` false) or DENSE_RANK (`dense` true) over a {@link TopNBuffer}. */
export class TiedRanker implements Ranker {
  constructor(
    private readonly c: RankCollector,
    private readonly compare: (a: Row, b: Row) => number,
    private readonly dense: boolean,
    private readonly withNumber: boolean,
  ) {}

  beyondEnd(buffer: TopNBuffer, row: Row, end: number): boolean {
    // A row tied with the last group joins it and shares its rank, which is in range.
    if ((this.dense ? buffer.groupCount : buffer.rowCount) < end) return false;
    return this.compare(row, buffer.last()!.rows[0]!) > 0;
  }

  insert(buffer: TopNBuffer, key: string, row: Row): SortGroup {
    const group = buffer.addRow(key, row);
    const shift = this.dense && !buffer.created ? 0 : 1;
    this.emit(buffer, undefined, 0, row, this.rankOf(buffer, group), shift === 0 ? null : buffer.next(group), null, shift);
    return group;
  }

  remove(buffer: TopNBuffer, group: SortGroup, index: number): void {
    const row = group.rows[index]!;
    const rank = this.rankOf(buffer, group);
    const after = buffer.next(group);
    buffer.removeRowAt(group, index);
    const shift = this.dense && group.attached ? 0 : -1;
    this.emit(buffer, row, rank, undefined, 0, shift === 0 ? null : after, null, shift);
  }

  update(buffer: TopNBuffer, group: SortGroup, index: number, key: string, row: Row): SortGroup {
    const old = group.rows[index]!;
    if (key === group.key) {
      buffer.replaceRow(group, index, row);
      const rank = this.rankOf(buffer, group);
      this.emit(buffer, old, rank, row, rank, null, null, 0);
      return group;
    }
    const oldRank = this.rankOf(buffer, group);
    const afterOld = buffer.next(group);
    buffer.removeRowAt(group, index);
    const removed = !group.attached;
    const target = buffer.addRow(key, row);
    const created = buffer.created;
    // The row moved up past the groups between its new and its old key (RANK: they and the rest
    // of its old group now have one more row before them). DENSE_RANK shifts by the groups
    // created and removed: +1 after a new group, -1 after a vanished one.
    let from: SortGroup | null = null;
    let until: SortGroup | null = null;
    let shift = 0;
    if (!this.dense || (created && removed)) {
      from = buffer.next(target);
      until = afterOld;
      shift = 1;
    } else if (created) {
      from = buffer.next(target);
      shift = 1;
    } else if (removed) {
      from = afterOld;
      shift = -1;
    }
    this.emit(buffer, old, oldRank, row, this.rankOf(buffer, target), from, until, shift);
    return target;
  }

  trim(buffer: TopNBuffer, end: number, dropped: DroppedRow): void {
    for (;;) {
      const last = buffer.last();
      if (last === undefined) return;
      const rank = this.dense ? buffer.groupCount : buffer.rowCount - last.rows.length + 1;
      if (rank <= end) return;
      buffer.removeGroup(last);
      for (const row of last.rows) dropped(last, row);
    }
  }

  private rankOf(buffer: TopNBuffer, group: SortGroup): number {
    return (this.dense ? buffer.groupsBefore(group) : buffer.rowsBefore(group)) + 1;
  }

  /**
   * Emits a change of one row (`oldRow` at `oldRank` replaced by `newRow` at `newRank`, either
   * side absent for an insertion or removal) plus the rank shift by `shift` of the groups from
   * `from` up to (excluding) `until`.
   */
  private emit(
    buffer: TopNBuffer,
    oldRow: Row | undefined,
    oldRank: number,
    newRow: Row | undefined,
    newRank: number,
    from: SortGroup | null,
    until: SortGroup | null,
    shift: number,
  ): void {
    const c = this.c;
    const oldIn = oldRow !== undefined && c.inRange(oldRank);
    const newIn = newRow !== undefined && c.inRange(newRank);
    if (this.withNumber) {
      if (oldIn && newIn) {
        c.updateBefore(oldRow, oldRank);
        c.updateAfter(newRow, newRank);
      } else if (oldIn) {
        c.delete(oldRow, oldRank);
      } else if (newIn) {
        c.insert(newRow, newRank);
      }
      if (from !== null && shift !== 0) this.walk(buffer, from, until, shift);
      return;
    }
    if (oldIn) {
      if (newIn) c.updateBeforeRow(oldRow);
      else c.deleteRow(oldRow);
    }
    const entering = from !== null && shift !== 0 ? this.walk(buffer, from, until, shift) : null;
    if (entering !== null) for (const row of entering.rows) c.insertRow(row);
    if (newIn) {
      if (oldIn) c.updateAfterRow(newRow);
      else c.insertRow(newRow);
    }
  }

  /**
   * Walks the shifted groups until both their old and new ranks are past the range. With the
   * rank number it emits every row whose rank moved in or out of or within the range; without,
   * it emits `-D` for the group leaving the range and returns the group entering it (emitted
   * after the leaving rows by the caller), if any.
   */
  private walk(buffer: TopNBuffer, from: SortGroup, until: SortGroup | null, shift: number): SortGroup | null {
    const c = this.c;
    const end = c.end;
    let entering: SortGroup | null = null;
    let rank = this.rankOf(buffer, from);
    for (let group: SortGroup | null = from; group !== null && group !== until; group = buffer.next(group)) {
      const oldRank = rank - shift;
      if (rank > end && oldRank > end) break;
      const oldIn = c.inRange(oldRank);
      const newIn = c.inRange(rank);
      if (this.withNumber) {
        if (oldIn || newIn) {
          for (const row of group.rows) {
            if (oldIn && newIn) {
              c.updateBefore(row, oldRank);
              c.updateAfter(row, rank);
            } else if (oldIn) {
              c.delete(row, oldRank);
            } else {
              c.insert(row, rank);
            }
          }
        }
      } else if (oldIn && !newIn) {
        for (const row of group.rows) c.deleteRow(row);
      } else if (newIn && !oldIn) {
        entering = group;
      }
      rank += this.dense ? 1 : group.rows.length;
    }
    return entering;
  }
}
