/**
 * The ranking algorithm of a Top-N, separate from where rows are stored: it changes a
 * partition's {@link TopNBuffer} and emits, through a {@link RankCollector}, exactly the changelog
 * rows that change brings about. One implementation per family of rank functions:
 * row-number-ranker.ts (ROW_NUMBER, Flink's algorithms) and tied-ranker.ts (RANK, DENSE_RANK).
 *
 * Operators decide which rows a buffer holds (all rows for Retract, only those ranked up to the
 * range end for AppendFast and UpdateFast) and mirror changed groups into state.
 */
import type { Row } from '../../core/types.ts';
import type { SortGroup, TopNBuffer } from './topn-buffer.ts';

/** Called for each row {@link Ranker.trim} drops; `group` may have left the buffer. */
export type DroppedRow = (group: SortGroup, row: Row) => void;

/** Changes a partition's buffer and emits the resulting changelog. */
export interface Ranker {
  /**
   * Whether a row that is not in a top-only buffer would rank after `end`, so that keeping it
   * could change nothing in range. Valid only for buffers that hold exactly the rows ranked up
   * to `end` (see {@link trim}).
   */
  beyondEnd(buffer: TopNBuffer, row: Row, end: number): boolean;
  /** Adds `row` (sort key `key`) after its ties; emits; returns its group. */
  insert(buffer: TopNBuffer, key: string, row: Row): SortGroup;
  /** Removes the row at `index` of `group`; emits. */
  remove(buffer: TopNBuffer, group: SortGroup, index: number): void;
  /**
   * Replaces the row at `index` of `group` by `row` with sort key `key`, which must rank no
   * later than the old key (UpdateFast's monotonic update); emits; returns the row's new group.
   */
  update(buffer: TopNBuffer, group: SortGroup, index: number, key: string, row: Row): SortGroup;
  /** Removes the rows ranked after `end`, reporting each to `dropped`. */
  trim(buffer: TopNBuffer, end: number, dropped: DroppedRow): void;
}

