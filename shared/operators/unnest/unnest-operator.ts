/**
 * The Unnest operator (Flink's Correlate over its built-in UNNEST table function): for every
 * input row, one output row per element of an ARRAY (or entry of a MAP) the row holds, the input
 * columns followed by the element's columns — the fields of a ROW element, else the element
 * itself, or a MAP's key and value — and optionally its 1-based position (WITH ORDINALITY).
 *
 * `CROSS JOIN UNNEST(…)` drops a row whose collection is NULL or empty; `LEFT JOIN UNNEST(…)
 * ON TRUE` (`outer`) keeps it once, with NULL element columns. The row kind passes through: a
 * `-U` or `-D` row retracts exactly the rows its `+I`/`+U` produced, since unnesting is a
 * function of the row. Stateless, so it runs in any stage.
 */
import { PlanError } from '../../core/errors.ts';
import type { ChangeRow } from '../../core/row.ts';
import { schemaFromFields } from '../../core/type-parse.ts';
import type { Field, LogicalType, Row, Schema, Value } from '../../core/types.ts';
import type { UdfRegistry } from '../../plan/expr-compile.ts';
import { compileTypedExpr } from '../../plan/expr-compile.ts';
import type { Expr } from '../../plan/expr.ts';
import { printExpr } from '../../plan/expr-print.ts';
import { typeName, withNullable } from '../../plan/expr-type-rules.ts';
import { inferType } from '../../plan/expr-types.ts';
import type { Operator, Output } from '../operator.ts';

/** Plain-data spec of an Unnest. */
export interface UnnestSpec {
  /** The ARRAY or MAP to unnest, over the input row. */
  readonly expr: Expr;
  /** Names of the element columns, in order (one per ROW field, one for a scalar, key and value for a MAP). */
  readonly columns: readonly string[];
  /** Name of the WITH ORDINALITY column (INT, 1-based). */
  readonly ordinality?: string;
  /** Keep a row without elements once, with NULL element columns (LEFT JOIN … ON TRUE). */
  readonly outer?: boolean;
}

/** The element columns' types for the collection type, before naming. */
export function unnestElementTypes(collection: LogicalType, where: string): LogicalType[] {
  if (collection.root === 'MAP') return [collection.key ?? { root: 'STRING', nullable: false }, collection.value ?? { root: 'STRING', nullable: true }];
  if (collection.root !== 'ARRAY') throw new PlanError(`UNNEST takes an ARRAY or a MAP, but ${where} is ${typeName(collection)}`);
  const element = collection.element ?? { root: 'STRING', nullable: true };
  if (element.root === 'ROW') return (element.fields ?? []).map((f) => withNullable(f.type, f.type.nullable || element.nullable));
  return [element];
}

/** The element columns' default names: a ROW element's field names, else `f0` (Flink: `EXPR$0`), a MAP's `KEY`/`VALUE`. */
export function unnestDefaultColumns(collection: LogicalType): string[] {
  if (collection.root === 'MAP') return ['KEY', 'VALUE'];
  const element = collection.element;
  if (element?.root === 'ROW') return (element.fields ?? []).map((f) => f.name);
  return ['EXPR$0'];
}

/**
 * The output schema: the input's fields, the element columns and the ordinality column.
 *
 * @throws PlanError for a non-collection expression, a wrong number of names or a clash with an input column.
 */
export function unnestOutputSchema(spec: UnnestSpec, input: Schema): Schema {
  const where = printExpr(spec.expr);
  const types = unnestElementTypes(inferType(spec.expr, input), where);
  if (types.length !== spec.columns.length) {
    throw new PlanError(`UNNEST(${where}) has ${types.length} column${types.length === 1 ? '' : 's'}, but ${spec.columns.length} names are given (${spec.columns.join(', ')})`);
  }
  const added: Field[] = spec.columns.map((name, i) => ({ name, type: spec.outer ? withNullable(types[i]!, true) : types[i]! }));
  if (spec.ordinality !== undefined) added.push({ name: spec.ordinality, type: { root: 'INT', nullable: spec.outer === true } });
  for (const f of added) {
    if (input.fields.some((g) => g.name === f.name)) {
      throw new PlanError(`UNNEST column '${f.name}' clashes with an input column: name the columns with AS t (…)`);
    }
  }
  return schemaFromFields([...input.fields, ...added]);
}

/** Creates an Unnest operator. @throws PlanError as {@link unnestOutputSchema}. */
export function createUnnestOperator(spec: UnnestSpec, input: Schema, udfs: UdfRegistry): Operator {
  unnestOutputSchema(spec, input);
  const { evaluate, type } = compileTypedExpr(spec.expr, input, udfs);
  const inputNames = input.fields.map((f) => f.name);
  const columns = spec.columns;
  const ordinality = spec.ordinality;
  const rowFields = type.root === 'ARRAY' && type.element?.root === 'ROW' ? (type.element.fields ?? []).map((f) => f.name) : undefined;
  const isMap = type.root === 'MAP';
  /** The element columns' values of one element (a NULL ROW element gives NULLs). */
  const elementValues = (element: Value): Value[] => {
    if (rowFields === undefined) return [element];
    if (element === null) return rowFields.map(() => null);
    const r = element as Row;
    return rowFields.map((f) => (Object.hasOwn(r, f) ? (r[f] as Value) : null));
  };
  const emit = (change: ChangeRow, values: readonly Value[], position: number | null, out: Output): void => {
    const row: Record<string, Value> = {};
    for (const name of inputNames) row[name] = change.row[name] ?? null;
    for (let i = 0; i < columns.length; i++) row[columns[i]!] = values[i] ?? null;
    if (ordinality !== undefined) row[ordinality] = position;
    out.emit({ kind: change.kind, row });
  };
  return {
    open() {},
    rowwise: true,
    processBatch(batch: readonly ChangeRow[], out: Output) {
      for (const change of batch) {
        const collection = evaluate(change.row);
        let emitted = 0;
        if (collection !== null) {
          if (isMap) {
            for (const [k, v] of Object.entries(collection as Row)) emit(change, [k, v as Value], ++emitted, out);
          } else {
            for (const element of collection as readonly Value[]) emit(change, elementValues(element), ++emitted, out);
          }
        }
        if (emitted === 0 && spec.outer === true) emit(change, columns.map(() => null), null, out);
      }
    },
  };
}
