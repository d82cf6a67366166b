/**
 * Creates the operator runner of one job-graph operator on one shard.
 */
import type { JobOperator } from '../../plan/job-graph.ts';
import { createOperator, type UserCode } from '../../operators/registry.ts';
import { OperatorRunner } from '../operator-runner.ts';

/** A runner for `op` on `shard` of a stage with `parallelism` shards. */
export function createOperatorRunner(
  op: JobOperator,
  code: UserCode,
  shard: number,
  parallelism: number,
  clock: () => number,
): OperatorRunner {
  return new OperatorRunner(() => createOperator(op, code), { operatorId: op.id, shard, parallelism, clock });
}
