/**
 * The Top-N of one window of one partition, as a pure algorithm over a plain sorted array (the
 * state value, so it serializes as is): rows in ORDER BY order, ties in arrival order.
 *
 * Only rows that can still be in range are kept. In a window, rows only ever arrive, and a new
 * row never lowers the rank of an existing row, so a row ranked after the range end now will be
 * after it at the end of the window too:
 * - ROW_NUMBER keeps at most `end` rows (a new row goes after its ties, so the earliest of tied
 *   rows win, as Flink's TopNBuffer keeps them);
 * - RANK keeps the groups of ties whose rank (1 + rows strictly before) is at most `end`, so
 *   `RANK() <= 1` keeps every row tied for first;
 * - DENSE_RANK keeps the first `end` groups of ties.
 */
import type { Row } from '../../core/types.ts';

/** The rank functions a window Top-N supports. */
export type WindowRankType = 'ROW_NUMBER' | 'RANK' | 'DENSE_RANK';

/** SQL order of two rows: negative when `a` ranks first, 0 for ties. */
export type RowComparator = (a: Row, b: Row) => number;

/** Ranks and bounds the rows of one window. */
export class WindowTopN {
  /** Ranks by `rankType` in `compare` order and keeps the rows ranked in `[start, end]` (validated by the caller). */
  constructor(
    private readonly rankType: WindowRankType,
    private readonly compare: RowComparator,
    private readonly start: number,
    private readonly end: number,
  ) {}

  /**
   * Adds `row` to `rows` (sorted, possibly `undefined` for an empty window) after its ties and
   * drops what can no longer rank up to the end; returns the array to store.
   */
  add(rows: Row[] | undefined, row: Row): Row[] {
    if (rows === undefined) return [row];
    const n = rows.length;
    // Fast rejection without a search: the row would rank after the end.
    if (n >= this.end && this.rankType !== 'DENSE_RANK') {
      const c = this.compare(row, rows[n - 1]!);
      if (c > 0 || (c === 0 && this.rankType === 'ROW_NUMBER')) return rows;
    }
    rows.splice(this.upperBound(rows, row), 0, row);
    rows.length = this.firstBeyondEnd(rows);
    return rows;
  }

  /** Calls `visit` for each row ranked in `[start, end]`, in rank order, with its rank. */
  forEachInRange(rows: readonly Row[], visit: (row: Row, rank: number) => void): void {
    this.walk(rows, (row, rank) => {
      if (rank >= this.start) visit(row, rank);
    });
  }

  /** Index of the first row after all rows equal to or before `row`: ties keep arrival order. */
  private upperBound(rows: readonly Row[], row: Row): number {
    let lo = 0;
    let hi = rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(rows[mid]!, row) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Index of the first row ranked after the end (the array length if none). */
  private firstBeyondEnd(rows: readonly Row[]): number {
    return this.walk(rows, () => {});
  }

  /** Visits the rows ranked up to the end with their ranks; returns where it stopped. */
  private walk(rows: readonly Row[], visit: (row: Row, rank: number) => void): number {
    let rank = 0;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const tied = i > 0 && this.compare(rows[i - 1]!, row) === 0;
      if (this.rankType === 'ROW_NUMBER') rank = i + 1;
      else if (!tied) rank = this.rankType === 'RANK' ? i + 1 : rank + 1;
      if (rank > this.end) return i;
      visit(row, rank);
    }
    return rows.length;
  }
}
