/**
 * Changelog rows: a row plus its kind, as Flink's RowKind.
 *
 * `+I` insert, `-U` update-before (retracts the previous version), `+U` update-after, `-D` delete.
 */
import type { Row } from './types.ts';

/** The four changelog kinds, spelled as Flink prints them. */
export type RowKind = '+I' | '-U' | '+U' | '-D';

/** All row kinds in Flink's order. */
export const ROW_KINDS: readonly RowKind[] = ['+I', '-U', '+U', '-D'];

/** A row with its changelog kind. */
export interface ChangeRow {
  readonly kind: RowKind;
  readonly row: Row;
}

/** True for kinds that add a row to the materialized result (`+I`, `+U`). */
export function isAccumulate(kind: RowKind): boolean {
  return kind === '+I' || kind === '+U';
}

/** True for kinds that remove a row from the materialized result (`-U`, `-D`). */
export function isRetract(kind: RowKind): boolean {
  return kind === '-U' || kind === '-D';
}

/** Builds a `+I` row. */
export function insertRecord(row: Row): ChangeRow {
  return { kind: '+I', row };
}

/** Builds a `-U` row. */
export function updateBeforeRecord(row: Row): ChangeRow {
  return { kind: '-U', row };
}

/** Builds a `+U` row. */
export function updateAfterRecord(row: Row): ChangeRow {
  return { kind: '+U', row };
}

/** Builds a `-D` row. */
export function deleteRecord(row: Row): ChangeRow {
  return { kind: '-D', row };
}

/** Checks a string is a row kind; used when decoding changelog input. */
export function isRowKind(value: unknown): value is RowKind {
  return value === '+I' || value === '-U' || value === '+U' || value === '-D';
}
