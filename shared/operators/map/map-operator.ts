/**
 * The Map operator: applies a user row function from a TypeScript pipeline
 * (`stream.map(schema, fn)`) to every row; the row kind passes through, as in Flink's Calc.
 */
import { PlanError } from '../../core/errors.ts';
import type { ChangeRow } from '../../core/row.ts';
import type { Row } from '../../core/types.ts';
import type { Operator, Output } from '../operator.ts';

/** Plain-data spec of a Map operator. */
export interface MapSpec {
  readonly ref: string;
  readonly display: string;
}

/** Creates a Map operator; the function is looked up in the pipeline's registry by `spec.ref`. */
export function createMapOperator(spec: MapSpec, functions: ReadonlyMap<string, unknown>): Operator {
  const fn = functions.get(spec.ref);
  if (typeof fn !== 'function') {
    throw new PlanError(`map function '${spec.display}' (${spec.ref}) is not in the pipeline's function registry`);
  }
  const map = fn as (row: Row) => Row;
  return {
    open() {},
    rowwise: true,
    processBatch(batch: readonly ChangeRow[], out: Output) {
      for (const change of batch) out.emit({ kind: change.kind, row: map(change.row) });
    },
  };
}
