/**
 * The Calc operator (Flink's StreamExecCalc): an optional filter followed by a projection,
 * applied row by row. The row kind passes through unchanged, so Calc works on any changelog:
 * a `-U` row is filtered and projected exactly like the `+I`/`+U` row it retracts.
 *
 * Expressions are compiled to closures when the operator is created, so plan errors (unknown
 * columns, type mismatches) surface before any data flows.
 */
import { PlanError } from '../../core/errors.ts';
import type { ChangeRow } from '../../core/row.ts';
import { findField, schemaFromFields } from '../../core/type-parse.ts';
import type { Field, Row, Schema, TimeAttribute, Value } from '../../core/types.ts';
import type { Evaluator, UdfRegistry } from '../../plan/expr-compile.ts';
import { compileExpr, compilePredicate } from '../../plan/expr-compile.ts';
import { withClock } from '../../plan/expr-fn-time.ts';
import type { Expr } from '../../plan/expr.ts';
import { printExpr } from '../../plan/expr-print.ts';
import { typeName } from '../../plan/expr-type-rules.ts';
import { inferType } from '../../plan/expr-types.ts';
import type { Operator, Output } from '../operator.ts';

/** One output column of a Calc. */
export interface CalcColumn {
  readonly name: string;
  readonly expr: Expr;
  /**
   * Declares the column a time attribute whatever its expression: a computed column that a
   * source's watermark is declared on (WatermarkSpec.expr) is the table's rowtime.
   */
  readonly timeAttribute?: TimeAttribute;
}

/** Plain-data spec of a Calc: output columns in order, and the rows to keep. */
export interface CalcSpec {
  readonly projection: readonly CalcColumn[];
  /** Rows for which this is NULL or false are dropped, as in SQL's WHERE. */
  readonly condition?: Expr;
}

/**
 * The output schema of a Calc: each projected column with its inferred type. A plain reference
 * to a rowtime or proctime column keeps its time attribute, as Flink keeps time attributes
 * through projections; any other expression over it yields a regular TIMESTAMP.
 *
 * @throws PlanError for invalid expressions, a non-BOOLEAN condition or duplicate column names.
 */
export function calcOutputSchema(spec: CalcSpec, inputSchema: Schema): Schema {
  if (spec.condition !== undefined) {
    const type = inferType(spec.condition, inputSchema);
    if (type.root !== 'BOOLEAN') {
      throw new PlanError(`a Calc condition must be BOOLEAN, but ${printExpr(spec.condition)} is ${typeName(type)}`);
    }
  }
  const fields: Field[] = spec.projection.map(({ name, expr, timeAttribute: declared }) => {
    const type = inferType(expr, inputSchema);
    const timeAttribute = declared ?? (expr.kind === 'ref' ? findField(inputSchema, expr.name)?.timeAttribute : undefined);
    return timeAttribute === undefined ? { name, type } : { name, type, timeAttribute };
  });
  return schemaFromFields(fields);
}

/** True when the projection re-emits exactly the input columns, in order and by name. */
function isIdentityProjection(spec: CalcSpec, inputSchema: Schema): boolean {
  const fields = inputSchema.fields;
  return (
    spec.projection.length === fields.length &&
    spec.projection.every(({ name, expr }, i) => expr.kind === 'ref' && expr.name === fields[i]!.name && name === expr.name)
  );
}

/**
 * Creates a Calc operator instance.
 *
 * An identity projection emits the input rows themselves (no copy); otherwise every kept row is
 * projected into a new object with the output columns in order.
 *
 * @throws PlanError as {@link calcOutputSchema}, or for a UDF missing from `udfs`.
 */
export function createCalcOperator(spec: CalcSpec, inputSchema: Schema, udfs: UdfRegistry): Operator {
  // Validates names, types and the condition before compiling.
  calcOutputSchema(spec, inputSchema);
  const keep = spec.condition === undefined ? undefined : compilePredicate(spec.condition, inputSchema, udfs);

  if (isIdentityProjection(spec, inputSchema)) {
    if (keep === undefined) {
      return {
        open() {},
        rowwise: true,
        processBatch: (batch: readonly ChangeRow[], out: Output) => {
          for (let i = 0; i < batch.length; i++) out.emit(batch[i]!);
        },
      };
    }
    return withProcessingClock((batch, out) => {
      for (let i = 0; i < batch.length; i++) {
        const change = batch[i]!;
        if (keep(change.row)) out.emit(change);
      }
    });
  }

  const names = spec.projection.map((p) => p.name);
  const evaluators: Evaluator[] = spec.projection.map((p) => compileExpr(p.expr, inputSchema, udfs));
  const width = names.length;
  const project = (row: Row): Row => {
    // Same insertion order for every row, so all output rows share one hidden class.
    const projected: Record<string, Value> = {};
    for (let i = 0; i < width; i++) projected[names[i]!] = evaluators[i]!(row);
    return projected;
  };
  return withProcessingClock((batch, out) => {
    for (let i = 0; i < batch.length; i++) {
      const change = batch[i]!;
      if (keep !== undefined && !keep(change.row)) continue;
      out.emit({ kind: change.kind, row: project(change.row) });
    }
  });
}

/**
 * A row-wise operator whose expressions' current-time functions (a materialized PROCTIME()
 * attribute among them) read the runtime's processing-time clock, as the processing-time windows
 * and timers do: the wall clock in a job, a controlled one in tests.
 */
function withProcessingClock(processBatch: (batch: readonly ChangeRow[], out: Output) => void): Operator {
  let processingTime: (() => number) | undefined;
  return {
    open(ctx) {
      processingTime = () => ctx.timers.currentProcessingTime();
    },
    rowwise: true,
    processBatch(batch, out) {
      if (processingTime === undefined) processBatch(batch, out);
      else withClock(processingTime, () => processBatch(batch, out));
    },
  };
}
