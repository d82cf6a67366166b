/**
 * Plain-data spec of a Rank (streaming Top-N) operator, as it travels in the job graph. The
 * planner fills it in; `createRankOperator` (rank-operator.ts) builds the operator the strategy
 * names, mirroring Flink's StreamExecRank choosing among AppendOnlyTopNFunction,
 * RetractableTopNFunction, UpdatableTopNFunction and FastTop1Function.
 */
import type { RankRange, RankStrategy, SortField } from '../../plan/logical.ts';

/** The strategy is the planner's choice (plan/logical.ts); the operator builds what it names. */
export type { RankStrategy };

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
