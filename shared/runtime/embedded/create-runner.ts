/**
 * Creates the operator runner of one job-graph operator on one shard.
 */
import type { JobOperator } from '../../plan/job-graph.ts';
import type { Operator } from '../../operators/operator.ts';
import { OperatorRunner } from '../operator-runner.ts';

/** Builds a fresh operator instance for a job-graph operator. */
export type OperatorInstantiator = (op: JobOperator, shard: number) => Operator;

/** A runner for `op` on `shard` of a stage with `parallelism` shards. */
export function createOperatorRunner(
  op: JobOperator,
  instantiate: OperatorInstantiator,
  shard: number,
  parallelism: number,
  clock: () => number,
): OperatorRunner {
  return new OperatorRunner(() => instantiate(op, shard), { operatorId: op.id, shard, parallelism, clock });
}
