/**
 * ROW_NUMBER ranking with Flink's emission rules, changelog row for changelog row.
 *
 * Ties take their arrival order: a row goes after the rows with its sort key, and an updated
 * row whose sort key changes goes after the rows of its new key.
 *
 * Two modes, as in Flink's functions:
 *
 * - **Set mode** (no rank number, range starting at 1): only the set of rows in the top matters.
 *   A row entering it is `+I`; the row it pushes out is `-D` first. A retracted row in the top
 *   is `-D`, then the row moving up into the last place is `+I`. An updated row is `-U`/`+U`.
 *   (AppendOnlyTopNFunction.processElementWithoutRowNumber, RetractableTopNFunction
 *   .emitRecordsWithoutRowNumber / retractRecordWithoutRowNumber, UpdatableTopNFunction
 *   .processElementWithoutRowNumber.)
 * - **Position mode** (rank number output, or a range starting after 1, which "the
 *   without-number-algorithm can't handle"): a rank is a slot. Every slot in range whose
 *   occupant changes gets `-U` of the old occupant and `+U` of the new one, in rank order; a slot
 *   newly filled gets `+I`, a slot emptied `-D`. Without the rank column the same rows are
 *   emitted without it. (processElementWithRowNumber, emitRecordsWithRowNumber,
 *   retractRecordWithRowNumber.)
 *
 * With `top1` (Flink's FastTop1Function: ROW_NUMBER in [1, 1], where the partition key is a
 * unique key of the output) set mode replaces the top row by `-U`/`+U` instead of `-D`/`+I`.
 */
import type { Row } from '../../core/types.ts';
import type { RankCollector } from './rank-collector.ts';
import type { DroppedRow, Ranker } from './ranker.ts';
import { RowCursor } from './row-cursor.ts';
import type { SortGroup, TopNBuffer } from './topn-buffer.ts';

/** ROW_NUMBER over a {@link TopNBuffer}; see the module documentation. */
export class RowNumberRanker implements Ranker {
  private readonly cursor = new RowCursor();

  /**
   * @param positional position mode (rank number output or range start > 1)
   * @param top1 emit FastTop1Function's `-U`/`+U` when the single top row is replaced
   */
  constructor(
    private readonly c: RankCollector,
    private readonly compare: (a: Row, b: Row) => number,
    private readonly positional: boolean,
    private readonly top1: boolean,
  ) {}

  beyondEnd(buffer: TopNBuffer, row: Row, end: number): boolean {
    // TopNBuffer.checkSortKeyInBufferRange: a full buffer takes only keys before its last one
    // (a tie goes after the rows already there, hence out).
    if (buffer.rowCount < end) return false;
    return this.compare(row, buffer.last()!.rows[0]!) >= 0;
  }

  insert(buffer: TopNBuffer, key: string, row: Row): SortGroup {
    const group = buffer.addRow(key, row);
    const c = this.c;
    const end = c.end;
    const rank = buffer.rowsBefore(group) + group.rows.length;
    if (rank > end) return group;
    const size = buffer.rowCount;
    if (!this.positional) {
      if (size > end) {
        const pushed = lastRowAt(buffer, end + 1);
        if (this.top1) {
          c.updateBeforeRow(pushed);
          c.updateAfterRow(row);
        } else {
          c.deleteRow(pushed);
          c.insertRow(row);
        }
      } else {
        c.insertRow(row);
      }
      return group;
    }
    // Slots rank..end now hold what the slot above held: -U old occupant, +U new occupant.
    let position = Math.max(rank, c.start);
    if (position > size) return group;
    const cursor = this.cursor;
    let current = cursor.seek(buffer, position)!;
    for (; position <= end && position < size; position++) {
      const next = cursor.advance(buffer)!;
      c.updateBefore(next, position);
      c.updateAfter(current, position);
      current = next;
    }
    // "there is no enough elements in Top-N, emit INSERT message for the new record"
    if (size <= end) c.insert(current, size);
    return group;
  }

  remove(buffer: TopNBuffer, group: SortGroup, index: number): void {
    const row = group.rows[index]!;
    const rank = buffer.rowsBefore(group) + index + 1;
    const oldSize = buffer.rowCount;
    buffer.removeRowAt(group, index);
    const c = this.c;
    const end = c.end;
    if (rank > end) return;
    if (!this.positional) {
      // The row ranked end + 1 moves up into the top.
      const promoted = oldSize > end ? lastRowAt(buffer, end) : undefined;
      if (this.top1 && promoted !== undefined) {
        c.updateBeforeRow(row);
        c.updateAfterRow(promoted);
      } else {
        c.deleteRow(row);
        if (promoted !== undefined) c.insertRow(promoted);
      }
      return;
    }
    // Slots rank..end now hold what the slot below held.
    const size = oldSize - 1;
    let position = Math.max(rank, c.start);
    if (position > oldSize) return;
    const cursor = this.cursor;
    let previous: Row;
    let current: Row | undefined;
    if (position === rank) {
      previous = row;
      current = cursor.seek(buffer, position);
    } else {
      previous = cursor.seek(buffer, position - 1)!;
      current = cursor.advance(buffer);
    }
    for (; position <= end && position <= size; position++) {
      c.updateBefore(previous, position);
      c.updateAfter(current!, position);
      previous = current!;
      current = cursor.advance(buffer);
    }
    // "there is no enough elements in Top-N, emit DELETE message for the retract record"
    if (oldSize <= end) c.delete(previous, oldSize);
  }

  update(buffer: TopNBuffer, group: SortGroup, index: number, key: string, row: Row): SortGroup {
    const c = this.c;
    const end = c.end;
    const old = group.rows[index]!;
    if (key === group.key) {
      // "sort key is not changed, so the rank is the same, only output the row"
      buffer.replaceRow(group, index, row);
      const rank = buffer.rowsBefore(group) + index + 1;
      if (this.positional) {
        c.updateBefore(old, rank);
        c.updateAfter(row, rank);
      } else if (rank <= end) {
        c.updateBeforeRow(old);
        c.updateAfterRow(row);
      }
      return group;
    }
    const oldRank = buffer.rowsBefore(group) + index + 1;
    buffer.removeRowAt(group, index);
    const target = buffer.addRow(key, row);
    const rank = buffer.rowsBefore(target) + target.rows.length;
    if (rank > end) return target;
    if (!this.positional) {
      if (oldRank <= end) {
        // "row content may change, so a UPDATE_BEFORE is needed"
        c.updateBeforeRow(old);
        c.updateAfterRow(row);
      } else {
        // The row enters the top from below it: as an insertion.
        const pushed = buffer.rowAt(end + 1);
        if (pushed !== undefined) c.deleteRow(pushed);
        c.insertRow(row);
      }
      return target;
    }
    if (rank === oldRank) {
      c.updateBefore(old, oldRank);
      c.updateAfter(row, rank);
      return target;
    }
    // Slots rank..oldRank - 1 pass their occupant one slot down; the old row's slot gets the
    // occupant of the slot above it. As in UpdatableTopNFunction.emitRecordsWithRowNumber, the
    // old version is retracted right after the first slot's old occupant ("In a same unique
    // key, we should retract oldRow first").
    const cursor = this.cursor;
    cursor.seek(buffer, rank);
    let current = row;
    for (let position = rank; position < oldRank && position <= end; position++) {
      const next = cursor.advance(buffer)!;
      c.updateBefore(next, position);
      if (position === rank) c.updateBefore(old, oldRank);
      c.updateAfter(current, position);
      current = next;
    }
    if (oldRank <= end) c.updateAfter(current, oldRank);
    return target;
  }

  trim(buffer: TopNBuffer, end: number, dropped: DroppedRow): void {
    while (buffer.rowCount > end) {
      const last = buffer.last()!;
      const row = buffer.removeRowAt(last, last.rows.length - 1);
      dropped(last, row);
    }
  }
}

/**
 * The row at `position`, in O(1) when it is the last row — always so for a buffer that keeps
 * only the top (AppendFast, UpdateFast), whose pushed-out or promoted row sits at its end.
 */
function lastRowAt(buffer: TopNBuffer, position: number): Row {
  if (position === buffer.rowCount) {
    const last = buffer.last()!;
    return last.rows[last.rows.length - 1]!;
  }
  return buffer.rowAt(position)!;
}
