/**
 * UNION ALL (Flink's StreamPhysicalUnion): a two-input operator that forwards every row of
 * either input with its changelog kind. Stateless; the stage's watermark is the minimum of both
 * inputs', as for any two-input stage.
 */
import type { Schema } from '../../core/types.ts';
import type { Operator } from '../operator.ts';

/** Plain-data spec of a union (the output schema, for explain and checks). */
export interface UnionSpec {
  readonly schema: Schema;
}

/** Creates the operator. */
export function createUnionOperator(): Operator {
  return {
    open() {},
    rowwise: true,
    processBatch(batch, out) {
      for (const row of batch) out.emit(row);
    },
  };
}
