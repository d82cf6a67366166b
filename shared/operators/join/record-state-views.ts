/**
 * How a regular join keeps one input's rows, chosen by what the input's unique key allows —
 * Flink's JoinRecordStateViews / OuterJoinRecordStateViews and their JoinInputSideSpec:
 *
 * | input spec                | state (per join key)                      | a row is found by   |
 * |---------------------------|-------------------------------------------|---------------------|
 * | JoinKeyContainsUniqueKey  | one value: the key's only row             | the join key        |
 * | HasUniqueKey              | map: unique key → row                     | its unique key      |
 * | NoUniqueKey               | map: whole row → row, copies              | all its values      |
 *
 * An outer side also keeps, per row, its number of associations: how many rows of the other
 * side (counting copies) match it. The row's null-padded result is live exactly while that
 * number is 0; the join emits the padding transitions when it moves between 0 and 1.
 *
 * Values are stored as `{ r, c?, n? }` (row, copies when more than one, associations when not 0)
 * and are never mutated in place: every change is a `put`, so a remote backend sees it. Rows of a
 * key are kept in a sorted map and read in sub-key order, so a batch replayed after a crash (its
 * state loaded from DynamoDB rather than cached) emits its rows in the same order as the first
 * time — the effectively-once protocol re-sends output under the same ids and needs the same rows.
 */
import type { Row, Schema, Value } from '../../core/types.ts';
import { PlanError } from '../../core/errors.ts';
import { requireField } from '../../core/type-parse.ts';
import { encodeKey } from '../../partition/key-encoding.ts';
import type { KeyedStateStore, SortedMapState, StateOptions, ValueState } from '../../state/state.ts';

/** State names of a regular join's two views, as Flink's AbstractStreamingJoinOperator names them. */
export const JOIN_STATE = { left: 'left-records', right: 'right-records' } as const;

/** A side's state options for an idle-state retention of `ms` (none for undefined, 0 or ∞: keep forever). */
export function retentionOptions(ms: number | undefined): StateOptions | undefined {
  return ms !== undefined && Number.isFinite(ms) && ms > 0 ? { ttl: { ttlMs: ms } } : undefined;
}

/** Flink's JoinInputSideSpec: what identifies a row of a join input (printed by EXPLAIN). */
export type JoinInputSpec =
  /** The join key contains a unique key: at most one row per join key. */
  | { readonly type: 'JoinKeyContainsUniqueKey' }
  /** A unique key that the join key does not contain (the smallest one the input has). */
  | { readonly type: 'HasUniqueKey'; readonly uniqueKey: readonly string[] }
  /** No unique key: equal rows are counted. */
  | { readonly type: 'NoUniqueKey' };

/** A stored row as the views return it. */
export interface JoinRecord {
  /** Where the row sits under its join key (sub-key; empty for a value state). */
  readonly slot: string;
  readonly row: Row;
  /** Equal copies of the row (only a NoUniqueKey view holds more than one). */
  readonly count: number;
  /** Rows of the other side matching it; kept for outer sides only. */
  readonly associations: number;
}

/** The stored form of a {@link JoinRecord}. */
interface Stored {
  readonly r: Row;
  readonly c?: number;
  readonly n?: number;
}

/** One join input's rows, by join key. */
export interface JoinRecordStateView {
  /** The rows kept under `key`, each once with its copy count. */
  records(key: string): JoinRecord[];
  /** Adds a row (one more copy when an equal row is kept) with its associations. */
  addRecord(key: string, row: Row, associations: number): void;
  /** Removes one copy of a row; a row that is not kept is ignored, as Flink's views do. */
  retractRecord(key: string, row: Row): void;
  /** Sets a kept row's associations. */
  updateAssociations(key: string, record: JoinRecord, associations: number): void;
  /**
   * The kept row that adding `row` would replace, if any: a row with the same unique key that
   * was never retracted (an input that repeats a declared, not enforced, primary key).
   */
  replaced(key: string, row: Row): Row | undefined;
}

const toRecord = (slot: string, s: Stored): JoinRecord => ({ slot, row: s.r, count: s.c ?? 1, associations: s.n ?? 0 });

function stored(row: Row, count: number, associations: number): Stored {
  if (count === 1) return associations === 0 ? { r: row } : { r: row, n: associations };
  return associations === 0 ? { r: row, c: count } : { r: row, c: count, n: associations };
}

/** Values of `columns` of a row, in order. */
function valuesOf(row: Row, columns: readonly string[], into: Value[]): Value[] {
  for (let i = 0; i < columns.length; i++) into[i] = row[columns[i] as string] ?? null;
  return into;
}

/** At most one row per join key: a value state. */
class UniqueByJoinKeyView implements JoinRecordStateView {
  constructor(private readonly state: ValueState<Stored>) {}

  records(key: string): JoinRecord[] {
    const s = this.state.get(key);
    return s === undefined ? [] : [toRecord('', s)];
  }

  addRecord(key: string, row: Row, associations: number): void {
    this.state.put(key, stored(row, 1, associations));
  }

  retractRecord(key: string): void {
    this.state.delete(key);
  }

  updateAssociations(key: string, record: JoinRecord, associations: number): void {
    this.state.put(key, stored(record.row, 1, associations));
  }

  replaced(key: string): Row | undefined {
    return this.state.get(key)?.r;
  }
}

/** Rows by unique key under each join key; a later row with the same unique key replaces it. */
class UniqueKeyView implements JoinRecordStateView {
  private readonly scratch: Value[];

  constructor(
    private readonly state: SortedMapState<Stored>,
    private readonly uniqueKey: readonly string[],
  ) {
    this.scratch = new Array<Value>(uniqueKey.length).fill(null);
  }

  private slotOf(row: Row): string {
    return encodeKey(valuesOf(row, this.uniqueKey, this.scratch));
  }

  records(key: string): JoinRecord[] {
    const out: JoinRecord[] = [];
    for (const [slot, s] of this.state.ascending(key)) out.push(toRecord(slot, s));
    return out;
  }

  addRecord(key: string, row: Row, associations: number): void {
    this.state.put(key, this.slotOf(row), stored(row, 1, associations));
  }

  retractRecord(key: string, row: Row): void {
    this.state.delete(key, this.slotOf(row));
  }

  updateAssociations(key: string, record: JoinRecord, associations: number): void {
    this.state.put(key, record.slot, stored(record.row, 1, associations));
  }

  replaced(key: string, row: Row): Row | undefined {
    return this.state.get(key, this.slotOf(row))?.r;
  }
}

/** Whole rows with copy counts under each join key. */
class CountedRowsView implements JoinRecordStateView {
  private readonly scratch: Value[];

  constructor(
    private readonly state: SortedMapState<Stored>,
    private readonly columns: readonly string[],
  ) {
    this.scratch = new Array<Value>(columns.length).fill(null);
  }

  private slotOf(row: Row): string {
    return encodeKey(valuesOf(row, this.columns, this.scratch));
  }

  records(key: string): JoinRecord[] {
    const out: JoinRecord[] = [];
    for (const [slot, s] of this.state.ascending(key)) out.push(toRecord(slot, s));
    return out;
  }

  addRecord(key: string, row: Row, associations: number): void {
    const slot = this.slotOf(row);
    const known = this.state.get(key, slot);
    // Equal rows match the same rows of the other side, so they share one association count.
    this.state.put(key, slot, stored(known?.r ?? row, (known?.c ?? (known ? 1 : 0)) + 1, associations));
  }

  retractRecord(key: string, row: Row): void {
    const slot = this.slotOf(row);
    const known = this.state.get(key, slot);
    if (known === undefined) return;
    const count = known.c ?? 1;
    if (count <= 1) this.state.delete(key, slot);
    else this.state.put(key, slot, stored(known.r, count - 1, known.n ?? 0));
  }

  updateAssociations(key: string, record: JoinRecord, associations: number): void {
    this.state.put(key, record.slot, stored(record.row, record.count, associations));
  }

  /** Equal rows are counted, never replaced. */
  replaced(): Row | undefined {
    return undefined;
  }
}

/**
 * Creates the view of one input (`name` is its state's name, e.g. `left-records`).
 *
 * @throws PlanError when a unique key column is not in the input schema.
 */
export function createJoinRecordStateView(
  store: KeyedStateStore,
  name: string,
  spec: JoinInputSpec,
  schema: Schema,
  options: StateOptions | undefined,
): JoinRecordStateView {
  switch (spec.type) {
    case 'JoinKeyContainsUniqueKey':
      return new UniqueByJoinKeyView(store.valueState<Stored>(name, options));
    case 'HasUniqueKey':
      for (const k of spec.uniqueKey) requireField(schema, k, 'join input unique key');
      return new UniqueKeyView(store.sortedMapState<Stored>(name, options), spec.uniqueKey);
    case 'NoUniqueKey':
      return new CountedRowsView(
        store.sortedMapState<Stored>(name, options),
        schema.fields.map((f) => f.name),
      );
    default:
      throw new PlanError(`join input spec must be JoinKeyContainsUniqueKey, HasUniqueKey or NoUniqueKey (given ${JSON.stringify(spec)})`);
  }
}

/** `JoinKeyContainsUniqueKey`, `HasUniqueKey`, `NoUniqueKey`, as Flink's JoinInputSideSpec prints. */
export function formatJoinInputSpec(spec: JoinInputSpec): string {
  return spec.type;
}
