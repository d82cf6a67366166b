/**
 * Applies a changelog to a table, as a sink does: by the sink's key when it has one (upsert:
 * `+I`/`+U` replace the row with that key, `-D` removes it, `-U` is ignored), otherwise by whole
 * row (retract: `+I`/`+U` add one copy, `-U`/`-D` remove one copy).
 *
 * A retraction of a row that is not in the table means the changelog is malformed; the view
 * counts these and, in strict mode, throws with the offending row, so tests can assert that a
 * changelog is well formed.
 */
import { FlambdaError } from '../core/errors.ts';
import type { ChangeRow } from '../core/row.ts';
import type { Row, Value } from '../core/types.ts';
import { encodeKey } from '../partition/key-encoding.ts';

/** Options of {@link MaterializedView}. */
export interface MaterializedViewOptions {
  /** Apply by these columns (upsert); absent = by whole row (retract). */
  readonly key?: readonly string[];
  /** Throw on a retraction of a row that is not live. @default false */
  readonly strict?: boolean;
  /** Column order used to build whole-row identities. Required without `key`. */
  readonly columns?: readonly string[];
}

/** The materialized result of a changelog. */
export class MaterializedView {
  private readonly byKey = new Map<string, { row: Row; count: number }>();
  private readonly key: readonly string[] | undefined;
  private readonly strict: boolean;
  private columns: readonly string[] | undefined;
  /** Retractions that matched no live row. */
  malformed = 0;

  constructor(options: MaterializedViewOptions = {}) {
    this.key = options.key;
    this.strict = options.strict ?? false;
    this.columns = options.columns;
  }

  /** Applies one changelog row. */
  apply(change: ChangeRow): void {
    const { kind, row } = change;
    if (this.key) {
      const id = this.identity(row, this.key);
      if (kind === '+I' || kind === '+U') this.byKey.set(id, { row, count: 1 });
      else if (kind === '-D') {
        if (!this.byKey.delete(id)) this.reportMalformed(change);
      }
      return;
    }
    this.columns ??= Object.keys(row);
    const id = this.identity(row, this.columns);
    const entry = this.byKey.get(id);
    if (kind === '+I' || kind === '+U') {
      if (entry) entry.count += 1;
      else this.byKey.set(id, { row, count: 1 });
    } else if (!entry) {
      this.reportMalformed(change);
    } else if (entry.count === 1) {
      this.byKey.delete(id);
    } else {
      entry.count -= 1;
    }
  }

  /** Applies many rows in order. */
  applyAll(changes: Iterable<ChangeRow>): this {
    for (const c of changes) this.apply(c);
    return this;
  }

  /** The live rows (each copy of a duplicated row repeated). */
  rows(): Row[] {
    const out: Row[] = [];
    for (const { row, count } of this.byKey.values()) for (let i = 0; i < count; i++) out.push(row);
    return out;
  }

  /** Number of live rows. */
  get size(): number {
    let n = 0;
    for (const { count } of this.byKey.values()) n += count;
    return n;
  }

  private identity(row: Row, columns: readonly string[]): string {
    const values: Value[] = new Array<Value>(columns.length);
    for (let i = 0; i < columns.length; i++) values[i] = row[columns[i] as string] ?? null;
    return encodeKey(values);
  }

  private reportMalformed(change: ChangeRow): void {
    this.malformed += 1;
    if (this.strict) {
      throw new FlambdaError(
        `malformed changelog: ${change.kind} retracts a row that is not live: ${JSON.stringify(change.row, (_k, v: unknown) =>
          typeof v === 'bigint' ? v.toString() : v,
        )}`,
        'internal',
        'fail',
      );
    }
  }
}
