/**
 * Output of a Top-N: AbstractTopNFunction's collectInsert / collectDelete / collectUpdateBefore /
 * collectUpdateAfter pairs.
 *
 * - The ranked forms (`insert(row, rank)` …) emit only when `rank` is inside the partition's
 *   range, and append the rank number column when the query outputs it.
 * - The plain forms (`insertRow(row)` …) emit the input row unchanged and unfiltered; the
 *   no-rank-number algorithms call them only for rows they know are in range.
 * - `-U` rows are dropped unless update-before is generated. `-D` rows never are: Flink sends
 *   them even without update-before, since a row leaving the top is no update of another.
 */
import type { RowKind } from '../../core/row.ts';
import type { Row, Value } from '../../core/types.ts';
import type { Output } from '../operator.ts';

const NO_OUTPUT: Output = {
  emit: () => undefined,
  emitSide: () => undefined,
};

/** Emits a Top-N's changelog rows; one per operator instance, its range set per record. */
export class RankCollector {
  /** The output of the batch being processed. */
  out: Output = NO_OUTPUT;
  /** First rank of the range (1-based, inclusive). */
  start: number;
  /** Last rank of the range (inclusive); per partition for a variable range. */
  end: number;

  /**
   * @param fieldNames input columns, copied in order into rows that get a rank number
   * @param rankColumn the rank number column, when the query outputs it
   * @param generateUpdateBefore whether `-U` rows are emitted
   */
  constructor(
    private readonly fieldNames: readonly string[],
    private readonly rankColumn: string | undefined,
    readonly generateUpdateBefore: boolean,
    start: number,
    end: number,
  ) {
    this.start = start;
    this.end = end;
  }

  /** Whether a rank lies in the current range. */
  inRange(rank: number): boolean {
    return rank >= this.start && rank <= this.end;
  }

  /** `+I` of a row at `rank`, if in range. */
  insert(row: Row, rank: number): void {
    if (this.inRange(rank)) this.emit('+I', this.ranked(row, rank));
  }

  /** `-D` of a row at `rank`, if in range. */
  delete(row: Row, rank: number): void {
    if (this.inRange(rank)) this.emit('-D', this.ranked(row, rank));
  }

  /** `-U` of a row at `rank`, if in range and update-before is generated. */
  updateBefore(row: Row, rank: number): void {
    if (this.generateUpdateBefore && this.inRange(rank)) this.emit('-U', this.ranked(row, rank));
  }

  /** `+U` of a row at `rank`, if in range. */
  updateAfter(row: Row, rank: number): void {
    if (this.inRange(rank)) this.emit('+U', this.ranked(row, rank));
  }

  /** `+I` of the input row as is. */
  insertRow(row: Row): void {
    this.emit('+I', row);
  }

  /** `-D` of the input row as is. */
  deleteRow(row: Row): void {
    this.emit('-D', row);
  }

  /** `-U` of the input row as is, if update-before is generated. */
  updateBeforeRow(row: Row): void {
    if (this.generateUpdateBefore) this.emit('-U', row);
  }

  /** `+U` of the input row as is. */
  updateAfterRow(row: Row): void {
    this.emit('+U', row);
  }

  private emit(kind: RowKind, row: Row): void {
    this.out.emit({ kind, row });
  }

  /** The output row: the input row itself, or a copy of its columns plus the rank number. */
  private ranked(row: Row, rank: number): Row {
    const column = this.rankColumn;
    if (column === undefined) return row;
    const names = this.fieldNames;
    const out: Record<string, Value> = {};
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      out[name] = row[name] ?? null;
    }
    out[column] = rank;
    return out;
  }
}
