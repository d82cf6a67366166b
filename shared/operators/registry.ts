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
import { PlanError } from '../core/errors.ts';
import { createWindowAggregateOperator, createWindowProcessOperator, type WindowProcessFunction } from './window/index.ts';
import { createWindowDeduplicateOperator, createWindowRankOperator, createWindowTableFunctionOperator } from './window-rank/index.ts';

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
    case 'WindowAggregate':
      return createWindowAggregateOperator(op.spec, op.inputSchema);
    case 'WindowProcess': {
      const fn = code.functions.get(op.spec.ref);
      if (typeof fn !== 'function') {
        throw new PlanError(`${op.id}: window function ${op.spec.display} (${op.spec.ref}) is not in the pipeline module`);
      }
      return createWindowProcessOperator(op.spec, op.inputSchema, fn as WindowProcessFunction);
    }
    case 'WindowTableFunction':
      return createWindowTableFunctionOperator(op.spec, op.inputSchema);
    case 'WindowRank':
      return createWindowRankOperator(op.spec, op.inputSchema);
    case 'WindowDeduplicate':
      return createWindowDeduplicateOperator(op.spec, op.inputSchema);
  }
}
