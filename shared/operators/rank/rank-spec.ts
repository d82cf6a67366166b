/**
 * Plain-data spec of a Rank (streaming Top-N) operator, as it travels in the job graph. The
 * planner fills it in; `createRankOperator` (rank-operator.ts) builds the operator the strategy
 * names, mirroring Flink's StreamExecRank choosing among AppendOnlyTopNFunction,
 * RetractableTopNFunction, UpdatableTopNFunction and FastTop1Function.
 */
import type { RankRange, SortField } from '../../plan/logical.ts';

/**
 * How the Top-N result is maintained (Flink's RankProcessStrategy):
 * - `AppendFast`: insert-only input; only the top rows are kept.
 * - `Retract`: any input; all rows of a partition are kept with a sorted count map.
 * - `UpdateFast`: upsert input whose sort key only moves rows towards the top (monotonic in the
 *   direction opposite to the order, e.g. a growing COUNT ordered DESC).
 */
export type RankStrategy = 'AppendFast' | 'Retract' | 'UpdateFast';

/** Flink's names for the strategies, as EXPLAIN prints them. */
export const STRATEGY_NAMES: Readonly<Record<RankStrategy, string>> = {
  AppendFast: 'AppendFastStrategy',
  Retract: 'RetractStrategy',
  UpdateFast: 'UpdateFastStrategy',
};

/** Spec of a Rank operator. */
export interface RankSpec {
  readonly strategy: RankStrategy;
  readonly rankType: 'ROW_NUMBER' | 'RANK' | 'DENSE_RANK';
  /** Partition columns; empty for a global Top-N (which runs on one shard). */
  readonly partitionBy: readonly string[];
  readonly orderBy: readonly SortField[];
  readonly rankRange: RankRange;
  /** Output column holding the rank number; absent when the rank is not output. */
  readonly rankNumberColumn?: string;
  /** UpdateFast only: the input's upsert key (the row identity). */
  readonly upsertKey?: readonly string[];
  /** Emit `-U` before `+U` (false when every consumer applies rows by key). */
  readonly generateUpdateBefore: boolean;
  /** Idle-state retention of a partition. */
  readonly stateTtlMs?: number;
  /** Partitions whose sorted buffers stay cached in memory (`table.exec.topn.cache-size`). @default 10000 */
  readonly cacheSize?: number;
}

/** Spec of a Deduplicate operator (`ROW_NUMBER() OVER (PARTITION BY k ORDER BY t) = 1`). */
export interface DeduplicateSpec {
  readonly keys: readonly string[];
  /** First row per key (ORDER BY t ASC) or last row (ORDER BY t DESC). */
  readonly keep: 'first' | 'last';
  /** The time attribute ordering the rows (rowtime or proctime column). */
  /**
   * The rowtime column for event time. For processing time the rows are ordered by arrival, so
   * the column is optional: present when the input materializes a proctime attribute.
   */
  readonly orderColumn?: string;
  /** Whether rows are ordered by event time (compare timestamps) or processing time (arrival order). */
  readonly timeDomain: 'event' | 'processing';
  /** Emit `-U` before `+U` when the kept row changes (keep last). */
  readonly generateUpdateBefore: boolean;
  /** Idle-state retention of a key. */
  readonly stateTtlMs?: number;
}
