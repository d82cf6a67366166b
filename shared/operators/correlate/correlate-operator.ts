/**
 * The Correlate operator (Flink's StreamExecCorrelate): every input row joined with the rows a
 * table function gives for it — the built-in UNNEST (./unnest-rows.ts) or a table user function
 * (`tableFunction(…)` in the pipeline's registry). The function's arguments are expressions
 * over the input row; the output is the input's columns followed by the function's.
 *
 * - INNER (`CROSS JOIN`, a comma, `JOIN … ON cond`): an input row the function gives no rows
 *   for is dropped; an optional condition over the joined row keeps only the rows it is TRUE
 *   for (Flink's Correlate `condition`).
 * - LEFT (`LEFT JOIN … ON TRUE`): such an input row is kept once, the function's columns NULL.
 *   As in Flink, a LEFT correlate takes no condition other than TRUE.
 *
 * The row kind passes through: a `-U`/`-D` row retracts exactly the rows its `+I`/`+U` gave,
 * since the function is a function of the row. Stateless, so it runs in any stage.
 */
import { PlanError } from '../../core/errors.ts';
import type { ChangeRow } from '../../core/row.ts';
import { schemaFromFields } from '../../core/type-parse.ts';
import type { Field, LogicalType, Row, Schema, Value } from '../../core/types.ts';
import { compileExpr, compilePredicate, type UdfRegistry } from '../../plan/expr-compile.ts';
import type { Expr } from '../../plan/expr.ts';
import { printExpr } from '../../plan/expr-print.ts';
import { withNullable } from '../../plan/expr-type-rules.ts';
import { inferType } from '../../plan/expr-types.ts';
import { udfArguments, type UdfSignature } from '../../plan/udf-signature.ts';
import { bindUdfCall, udfResultConverter, type BoundUdfCall } from '../../plan/udf-values.ts';
import type { Operator, Output } from '../operator.ts';
import { unnestColumns, unnestRowsFunction } from './unnest-rows.ts';

/** The table function a Correlate calls. */
export type CorrelateCall =
  /** The built-in UNNEST of one or more ARRAY / MAP values. */
  | { readonly fn: 'UNNEST'; readonly args: readonly Expr[]; readonly ordinality?: boolean }
  /**
   * A table user function of the pipeline's registry, with its declared column types and
   * parameter types (`input`, one signature per overload; absent: none declared): its arguments
   * reach it as JS values and its rows' values come back to the column types
   * (shared/plan/udf-values.ts).
   */
  | { readonly fn: 'USER'; readonly ref: string; readonly name: string; readonly args: readonly Expr[]; readonly columnTypes: readonly LogicalType[]; readonly input?: readonly UdfSignature[] }
  /**
   * Flink's internal `$REPLICATE_ROWS$` (the rewrite of INTERSECT ALL / EXCEPT ALL): the first
   * argument is a count n, the others are repeated as one row, n times.
   */
  | { readonly fn: 'REPLICATE_ROWS'; readonly args: readonly Expr[] };

/** Plain-data spec of a Correlate. */
export interface CorrelateSpec {
  readonly call: CorrelateCall;
  /** Output names of the function's columns, in order (they follow the input's columns). */
  readonly columns: readonly string[];
  readonly joinType: 'INNER' | 'LEFT';
  /** INNER only: a predicate over the joined row. */
  readonly condition?: Expr;
}

/** What the registry holds for a table user function (shared/api/user-functions.ts TableFunction). */
interface TableFunctionLike {
  readonly columns: readonly { readonly name: string }[];
  eval(...args: unknown[]): Iterable<Readonly<Record<string, unknown>> | readonly unknown[]> | null | undefined;
}

/** How EXPLAIN names the call, e.g. `$UNNEST_ROWS$1(tags)` or `split(line)`. */
export function formatCorrelateCall(call: CorrelateCall): string {
  const args = call.args.map(printExpr).join(', ');
  if (call.fn === 'USER') return `${call.name}(${args})`;
  if (call.fn === 'REPLICATE_ROWS') return `$REPLICATE_ROWS$1(${args})`;
  return `${call.ordinality === true ? '$UNNEST_ROWS_WITH_ORDINALITY$1' : '$UNNEST_ROWS$1'}(${args})`;
}

/**
 * The types of the function's columns (before the LEFT join's padding makes them nullable).
 *
 * @throws PlanError for an UNNEST argument that is not an ARRAY or a MAP.
 */
export function correlateFunctionTypes(call: CorrelateCall, input: Schema): readonly LogicalType[] {
  if (call.fn === 'USER') {
    bindUserCall(call, input);
    return call.columnTypes;
  }
  if (call.fn === 'REPLICATE_ROWS') return call.args.slice(1).map((a) => inferType(a, input));
  return unnestColumns(
    call.args.map((a) => inferType(a, input)),
    call.ordinality === true,
    call.args.map(printExpr),
  ).types;
}

/**
 * The output schema: the input's fields, then the function's columns.
 *
 * @throws PlanError for a wrong number of column names, a name an input column has, a LEFT
 *   correlate with a condition, or a condition that is not BOOLEAN.
 */
export function correlateOutputSchema(spec: CorrelateSpec, input: Schema): Schema {
  const display = formatCorrelateCall(spec.call);
  const types = correlateFunctionTypes(spec.call, input);
  if (types.length !== spec.columns.length) {
    throw new PlanError(`${display} gives ${types.length} column${types.length === 1 ? '' : 's'}, but ${spec.columns.length} names are given (${spec.columns.join(', ')})`);
  }
  const added: Field[] = spec.columns.map((name, i) => ({ name, type: spec.joinType === 'LEFT' ? withNullable(types[i]!, true) : types[i]! }));
  for (const f of added) {
    if (input.fields.some((g) => g.name === f.name)) throw new PlanError(`column '${f.name}' of ${display} has the name of an input column: rename it (AS t (other_name, …))`);
  }
  const schema = schemaFromFields([...input.fields, ...added]);
  if (spec.condition !== undefined) {
    if (spec.joinType === 'LEFT') throw new PlanError(`a LEFT join with ${display} supports only ON TRUE (as in Flink)`);
    const type = inferType(spec.condition, schema);
    if (type.root !== 'BOOLEAN') throw new PlanError(`the condition of the join with ${display} must be BOOLEAN, not ${type.root}`);
  }
  return schema;
}

/** The table user function's call bound to the parameter types it resolves to. @throws PlanError when no declared signature takes it. */
function bindUserCall(call: Extract<CorrelateCall, { fn: 'USER' }>, input: Schema): BoundUdfCall {
  return bindUdfCall(call.name, call.input, udfArguments(call.args, call.args.map((a) => inferType(a, input))));
}

/** The rows function of the call: argument values → rows of column values. */
function rowsFunction(call: CorrelateCall, input: Schema, functions: ReadonlyMap<string, unknown>): (values: readonly Value[]) => Iterable<readonly Value[]> {
  if (call.fn === 'REPLICATE_ROWS') return replicateRows;
  if (call.fn === 'UNNEST') {
    return unnestRowsFunction(
      call.args.map((a) => inferType(a, input)),
      call.ordinality === true,
    );
  }
  const fn = functions.get(call.ref) as TableFunctionLike | undefined;
  if (fn === undefined || typeof fn.eval !== 'function') throw new PlanError(`table function ${call.name} (${call.ref}) is not in the pipeline's function registry`);
  const names = fn.columns.map((c) => c.name);
  const bound = bindUserCall(call, input);
  const columns = call.columnTypes.map((type, i) => udfResultConverter(type, `table function ${call.name} (column ${names[i]})`));
  return function* rows(values) {
    const result = fn.eval(...bound.toJs(values));
    if (result === null || result === undefined) return;
    for (const r of result) {
      // A row is an array in column order or an object by declared column name.
      yield Array.isArray(r) ? columns.map((convert, i) => convert((r as readonly unknown[])[i])) : columns.map((convert, i) => convert((r as Readonly<Record<string, unknown>>)[names[i]!]));
    }
  };
}

/** `$REPLICATE_ROWS$(n, v1, …)`: the row `(v1, …)` n times (none for a NULL or non-positive n). */
function* replicateRows(values: readonly Value[]): Iterable<readonly Value[]> {
  const n = values[0];
  const times = typeof n === 'bigint' ? Number(n) : typeof n === 'number' ? n : 0;
  const row = values.slice(1);
  for (let i = 0; i < times; i++) yield row;
}

/** Creates a Correlate operator. @throws PlanError as {@link correlateOutputSchema}, or for a function missing from the registry. */
export function createCorrelateOperator(spec: CorrelateSpec, input: Schema, functions: ReadonlyMap<string, unknown>): Operator {
  const schema = correlateOutputSchema(spec, input);
  const udfs = functions as UdfRegistry;
  const args = spec.call.args.map((a) => compileExpr(a, input, udfs));
  const rowsOf = rowsFunction(spec.call, input, functions);
  const condition = spec.condition === undefined ? undefined : compilePredicate(spec.condition, schema, udfs);
  const inputNames = input.fields.map((f) => f.name);
  const columns = spec.columns;
  const left = spec.joinType === 'LEFT';
  const joined = (inputRow: Row, values: readonly (Value | undefined)[]): Row => {
    const row: Record<string, Value> = {};
    for (const name of inputNames) row[name] = inputRow[name] ?? null;
    for (let i = 0; i < columns.length; i++) row[columns[i]!] = values[i] ?? null;
    return row;
  };
  return {
    open() {},
    rowwise: true,
    processBatch(batch: readonly ChangeRow[], out: Output) {
      for (const change of batch) {
        let emitted = false;
        for (const values of rowsOf(args.map((a) => a(change.row)))) {
          const row = joined(change.row, values);
          if (condition !== undefined && !condition(row)) continue;
          out.emit({ kind: change.kind, row });
          emitted = true;
        }
        if (!emitted && left) out.emit({ kind: change.kind, row: joined(change.row, []) });
      }
    },
  };
}
