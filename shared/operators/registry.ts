/**
 * Builds operator instances from job-graph operator specs. Adding an operator type to the
 * runtimes is one entry here plus its spec type in shared/plan/job-graph.ts.
 */
import type { JobOperator } from '../plan/job-graph.ts';
import type { UdfRegistry } from '../plan/expr-compile.ts';
import { createGroupAggregateOperator } from './aggregate/group-aggregate.ts';
import { createCalcOperator } from './calc/calc-operator.ts';
import { createDeduplicateOperator } from './dedup/deduplicate-operator.ts';
import { createMapOperator } from './map/map-operator.ts';
import { createRankOperator } from './rank/rank-operator.ts';
import type { Operator } from './operator.ts';

/** User code a job may reference: scalar/row functions by registry reference. */
export interface UserCode {
  readonly functions: ReadonlyMap<string, unknown>;
}

/** Creates a fresh operator instance for one shard. */
export function createOperator(op: JobOperator, code: UserCode): Operator {
  switch (op.type) {
    case 'Calc':
      return createCalcOperator(op.spec, op.inputSchema, code.functions as UdfRegistry);
    case 'Map':
      return createMapOperator(op.spec, code.functions);
    case 'GroupAggregate':
      return createGroupAggregateOperator(op.spec, op.inputSchema);
    case 'Rank':
      return createRankOperator(op.spec, op.inputSchema);
    case 'Deduplicate':
      return createDeduplicateOperator(op.spec, op.inputSchema);
  }
}
