/**
 * Streaming Top-N (`ROW_NUMBER() / RANK() / DENSE_RANK() OVER (PARTITION BY … ORDER BY …)`
 * filtered by a rank range): builds the operator the spec's strategy names, as Flink's
 * StreamExecRank chooses among its rank functions.
 *
 * | strategy   | operator          | Flink function            | keeps                                   |
 * |------------|-------------------|---------------------------|-----------------------------------------|
 * | AppendFast | AppendOnlyFirstN  | AppendOnlyFirstNFunction  | a counter (ROW_NUMBER by proctime ASC)  |
 * | AppendFast | FastTop1          | FastTop1Function          | one row (ROW_NUMBER in [1, 1])          |
 * | AppendFast | AppendOnlyTopN    | AppendOnlyTopNFunction    | the rows ranked up to the range end     |
 * | Retract    | RetractableTopN   | RetractableTopNFunction   | every row                               |
 * | UpdateFast | UpdatableTopN     | UpdatableTopNFunction (FastTop1Function for [1, 1]) | the top rows in memory, every row's latest version in state |
 *
 * Emission rules: row-number-ranker.ts (ROW_NUMBER, Flink's) and tied-ranker.ts (RANK and
 * DENSE_RANK, which Flink rejects in streaming).
 */
import type { Schema } from '../../core/types.ts';
import type { Operator } from '../operator.ts';
import { AppendOnlyFirstN } from './append-only-first-n.ts';
import { AppendOnlyTopN } from './append-only-top-n.ts';
import { FastTop1 } from './fast-top1.ts';
import { compileRankPlan, type RankPlan } from './rank-plan.ts';
import { isTop1 } from './rank-range.ts';
import type { RankSpec } from './rank-spec.ts';
import { RetractableTopN } from './retractable-top-n.ts';
import { UpdatableTopN } from './updatable-top-n.ts';

/** The spec types, re-exported so that callers need one import. */
export type { RankSpec, RankStrategy } from './rank-spec.ts';

/**
 * The output schema: the input columns unchanged, then the rank number column as
 * `BIGINT NOT NULL` when `rankNumberColumn` is set.
 *
 * @throws PlanError for an invalid spec (see {@link createRankOperator}).
 */
export function rankOutputSchema(spec: RankSpec, inputSchema: Schema): Schema {
  return compileRankPlan(spec, inputSchema).outputSchema;
}

/**
 * Creates a Top-N operator for one shard.
 *
 * @throws PlanError for an unknown strategy or rank type, a missing column, an empty ORDER BY,
 *   an unbounded, empty or non-integer rank range (naming its bounds), a rank column clashing
 *   with an input column, an UpdateFast spec without an upsert key containing the partition key,
 *   or an invalid TTL or cache size.
 */
export function createRankOperator(spec: RankSpec, inputSchema: Schema): Operator {
  const plan = compileRankPlan(spec, inputSchema);
  switch (spec.strategy) {
    case 'AppendFast':
      if (isFirstN(plan)) return new AppendOnlyFirstN(plan);
      if (spec.rankType === 'ROW_NUMBER' && isTop1(plan.range)) return new FastTop1(plan);
      return new AppendOnlyTopN(plan);
    case 'Retract':
      return new RetractableTopN(plan);
    case 'UpdateFast':
      return new UpdatableTopN(plan);
  }
}

/**
 * StreamExecRank's AppendOnlyFirstNFunction case: ROW_NUMBER ordered by one processing-time
 * attribute ascending, where arrival order is rank order. (With RANK, rows arriving in the same
 * millisecond would tie, so the counter would not do.) A LIMIT without ORDER BY ranks by arrival
 * too: Flink runs it with AppendOnlyTopNFunction over all-equal sort keys, which emits exactly
 * what the counter does (the first rows, then nothing) while keeping the rows in state.
 */
function isFirstN(plan: RankPlan): boolean {
  const orderBy = plan.spec.orderBy;
  if (orderBy.length === 0) return true;
  if (plan.spec.rankType !== 'ROW_NUMBER' || orderBy.length !== 1 || orderBy[0]!.direction !== 'ASC') return false;
  const field = plan.inputSchema.fields.find((f) => f.name === orderBy[0]!.column);
  return field?.timeAttribute === 'proctime';
}
