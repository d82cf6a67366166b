/**
 * UNNEST as the built-in table function of a Correlate (Flink's `$UNNEST_ROWS$1`, and
 * `$UNNEST_ROWS_WITH_ORDINALITY$1` for `WITH ORDINALITY`): the rows of one or more collections.
 *
 * - An ARRAY gives one column per field of a ROW element, else the element itself; a MAP gives
 *   its key and value (Calcite's Uncollect row type, which Flink keeps).
 * - Several collections (`UNNEST(a, b)`) are zipped as the SQL standard and Calcite's Uncollect
 *   define it: row i holds the i-th element of every collection, a shorter collection padded
 *   with NULLs, so there are as many rows as the longest collection has elements. A NULL
 *   collection counts as empty.
 * - `WITH ORDINALITY` appends the 1-based position (INT).
 */
import { PlanError } from '../../core/errors.ts';
import type { LogicalType, Row, Value } from '../../core/types.ts';
import { typeName, withNullable } from '../../plan/expr-type-rules.ts';

/** The columns one collection type gives, and how to read an element's values. */
interface CollectionShape {
  readonly types: LogicalType[];
  readonly names: string[];
  /** The element values of a non-NULL collection, one array of column values per element. */
  readonly elements: (collection: Value) => Value[][];
}

function shapeOf(collection: LogicalType, index: number, where: string): CollectionShape {
  if (collection.root === 'MAP') {
    const types = [collection.key ?? { root: 'STRING', nullable: false }, collection.value ?? { root: 'STRING', nullable: true }];
    return { types, names: ['KEY', 'VALUE'], elements: (map) => Object.entries(map as Row).map(([k, v]) => [k, v as Value]) };
  }
  if (collection.root !== 'ARRAY') throw new PlanError(`UNNEST takes an ARRAY or a MAP, but ${where} is ${typeName(collection)}`);
  const element = collection.element ?? { root: 'STRING', nullable: true };
  if (element.root === 'ROW') {
    const fields = element.fields ?? [];
    const names = fields.map((f) => f.name);
    return {
      types: fields.map((f) => withNullable(f.type, f.type.nullable || element.nullable)),
      names,
      // A NULL ROW element gives NULL in each of its columns.
      elements: (array) => (array as readonly Value[]).map((e) => (e === null ? names.map(() => null) : names.map((n) => (Object.hasOwn(e as Row, n) ? ((e as Row)[n] as Value) : null)))),
    };
  }
  return { types: [element], names: [`EXPR$${index}`], elements: (array) => (array as readonly Value[]).map((e) => [e]) };
}

/** The UNNEST function's columns for these collection types (`where` prints each argument). */
export interface UnnestColumns {
  readonly types: readonly LogicalType[];
  /** Calcite's default names: ROW field names, `EXPR$i` for a scalar element, `KEY`/`VALUE`, `ORDINALITY`. */
  readonly defaultNames: readonly string[];
}

/**
 * The columns of `UNNEST(collections…) [WITH ORDINALITY]`.
 *
 * @throws PlanError for an argument that is not an ARRAY or a MAP, or no argument.
 */
export function unnestColumns(collections: readonly LogicalType[], ordinality: boolean, where: readonly string[]): UnnestColumns {
  if (collections.length === 0) throw new PlanError('UNNEST needs at least one ARRAY or MAP');
  const shapes = collections.map((c, i) => shapeOf(c, i, where[i] ?? `argument ${i + 1}`));
  // Zipped collections pad the shorter ones with NULLs, so every column may be NULL.
  const padded = collections.length > 1;
  const types = shapes.flatMap((s) => s.types.map((t) => (padded ? withNullable(t, true) : t)));
  const names = shapes.flatMap((s) => s.names);
  if (ordinality) {
    types.push({ root: 'INT', nullable: false });
    names.push('ORDINALITY');
  }
  return { types, defaultNames: names };
}

/**
 * The rows function of `UNNEST(collections…) [WITH ORDINALITY]`: the argument values → the rows,
 * each an array of column values in {@link unnestColumns} order.
 */
export function unnestRowsFunction(collections: readonly LogicalType[], ordinality: boolean): (values: readonly Value[]) => Value[][] {
  const shapes = collections.map((c, i) => shapeOf(c, i, `argument ${i + 1}`));
  return (values) => {
    const parts = shapes.map((s, i) => {
      const v = values[i] ?? null;
      return v === null ? [] : s.elements(v);
    });
    const count = Math.max(0, ...parts.map((p) => p.length));
    const rows: Value[][] = [];
    for (let r = 0; r < count; r++) {
      const row: Value[] = [];
      parts.forEach((p, i) => {
        const element = p[r];
        if (element !== undefined) row.push(...element);
        else for (let c = 0; c < (shapes[i] as CollectionShape).types.length; c++) row.push(null);
      });
      if (ordinality) row.push(r + 1);
      rows.push(row);
    }
    return rows;
  };
}
