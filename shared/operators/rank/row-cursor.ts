/**
 * A cursor over a {@link TopNBuffer}'s rows in rank order, for the cascading emissions of the
 * rankers.
 */
import type { Row } from '../../core/types.ts';
import type { SortGroup, TopNBuffer } from './topn-buffer.ts';

/**
 * Walks a buffer's rows in rank order from a given position. One cursor is reused for every
 * walk, so cascading emissions allocate nothing.
 */
export class RowCursor {
  private group: SortGroup | undefined;
  private index = 0;

  /** The current row, or undefined past the end. */
  get row(): Row | undefined {
    return this.group === undefined ? undefined : this.group.rows[this.index];
  }

  /** Moves to the row at 1-based `position` of `buffer`; returns it. */
  seek(buffer: TopNBuffer, position: number): Row | undefined {
    this.group = position >= 1 ? buffer.groupAtRow(position - 1) : undefined;
    this.index = buffer.offset;
    return this.row;
  }

  /** Moves to the next row; returns it. */
  advance(buffer: TopNBuffer): Row | undefined {
    const group = this.group;
    if (group === undefined) return undefined;
    if (++this.index >= group.rows.length) {
      this.group = buffer.next(group) ?? undefined;
      this.index = 0;
    }
    return this.row;
  }
}
