/**
 * What every Top-N operator shares (Flink's AbstractTopNFunction): the compiled spec, the
 * collector, the batch loop and metrics.
 *
 * A batch is processed in three steps: encode every row's partition key once and prefetch those
 * keys with one call (one await for a remote backend), with a TTL visit each distinct partition
 * once (idle-state retention is per partition and per batch, not per record), then process the
 * rows in order, synchronously.
 */
import { PlanError } from '../../core/errors.ts';
import type { ChangeRow } from '../../core/row.ts';
import type { KeyedStateStore } from '../../state/state.ts';
import type { Operator, OperatorContext, Output } from '../operator.ts';
import { RankCollector } from './rank-collector.ts';
import type { RankPlan } from './rank-plan.ts';

/** Metric names, after Flink's `topn.*` metrics where Flink has one. */
export const RANK_METRICS = {
  cacheHits: 'topn.cache.hits',
  cacheMisses: 'topn.cache.misses',
  /** Rows whose variable rank end differs from their partition's (Flink's `topn.invalidTopSize`). */
  invalidTopSize: 'topn.invalidTopSize',
  /** Rows dropped because the partition's first row had no positive integer rank end. */
  invalidRankEnd: 'topn.invalidRankEnd',
  /** Retractions of rows the operator does not hold (Flink: "Attempt to retract non-existed record"). */
  retractMissing: 'topn.retractMissing',
  /** UpdateFast rows whose sort key moved away from the top, breaking the monotonicity promise. */
  nonMonotonicUpdates: 'topn.nonMonotonicUpdates',
  /** `-U` rows an UpdateFast Top-N ignores (its input is applied by upsert key). */
  ignoredUpdateBefore: 'topn.ignoredUpdateBefore',
} as const;

/**
 * Whether `-U` rows are emitted. ROW_NUMBER follows the spec as Flink does. RANK and DENSE_RANK
 * honour `generateUpdateBefore = false` only under UpdateFast, whose upsert key identifies an
 * output row: otherwise nothing does ((partition, rank) is shared by ties), so a lone `+U`
 * could not be applied and `-U` is always emitted — an upsert consumer simply ignores it.
 */
export function emitsUpdateBefore(plan: RankPlan): boolean {
  const spec = plan.spec;
  return spec.rankType === 'ROW_NUMBER' || spec.strategy === 'UpdateFast' ? spec.generateUpdateBefore : true;
}

/** Throws unless a row is an insertion: the contract of the AppendFast strategy. */
export function requireInsert(change: ChangeRow, operator: string): void {
  if (change.kind !== '+I') {
    throw new PlanError(
      `${operator} received a '${change.kind}' row but the AppendFast strategy needs an insert-only input; ` +
        'the planner must choose Retract (or UpdateFast) for an updating input',
    );
  }
}

/** Base class of the Top-N operators; see the module documentation. */
export abstract class AbstractTopN implements Operator {
  protected context!: OperatorContext;
  protected readonly collector: RankCollector;
  private readonly pendingMetrics = new Map<string, number>();
  /** Cache counters, bumped per record and published per batch. */
  protected cacheHits = 0;
  protected cacheMisses = 0;

  constructor(protected readonly plan: RankPlan) {
    const range = plan.range;
    this.collector = new RankCollector(
      plan.fieldNames,
      plan.spec.rankNumberColumn,
      emitsUpdateBefore(plan),
      range.start,
      range.kind === 'constant' ? range.end : 0,
    );
  }

  /** Declares state (called once before the first batch). */
  open(context: OperatorContext): void {
    this.context = context;
    this.openState(context.state);
  }

  /** Processes a batch; see the module documentation. */
  processBatch(batch: readonly ChangeRow[], out: Output): Promise<void> | void {
    const n = batch.length;
    if (n === 0) return;
    const keys = new Array<string>(n);
    const partitionKey = this.plan.partitionKey;
    for (let i = 0; i < n; i++) keys[i] = partitionKey(batch[i]!.row);
    // Distinct partitions are only needed to visit each once for idle-state retention; the
    // backend's prefetch deduplicates on its own.
    const distinct = this.plan.ttlMs === undefined ? keys : new Set(keys);
    const loading = this.context.state.prefetch(distinct);
    if (loading !== undefined) return loading.then(() => this.run(batch, keys, distinct, out));
    this.run(batch, keys, distinct, out);
  }

  /** Declares the operator's state. */
  protected abstract openState(store: KeyedStateStore): void;

  /**
   * Idle-state retention: records that the current batch touches partition `key`, once per
   * batch, at processing time `now`. Called only when the operator has a state TTL.
   */
  protected abstract touchPartition(key: string, now: number): void;

  /** Processes one row of partition `key`. */
  protected abstract processRecord(key: string, change: ChangeRow): void;

  /** Counts an event; published with the batch's other metrics. */
  protected count(metric: string): void {
    this.pendingMetrics.set(metric, (this.pendingMetrics.get(metric) ?? 0) + 1);
  }

  private run(batch: readonly ChangeRow[], keys: readonly string[], distinct: Iterable<string>, out: Output): void {
    this.collector.out = out;
    if (this.plan.ttlMs !== undefined) {
      const now = this.context.timers.currentProcessingTime();
      for (const key of distinct) this.touchPartition(key, now);
    }
    for (let i = 0; i < batch.length; i++) this.processRecord(keys[i]!, batch[i]!);
    this.publishMetrics();
  }

  private publishMetrics(): void {
    const metrics = this.context.metrics;
    if (this.cacheHits > 0) metrics.increment(RANK_METRICS.cacheHits, this.cacheHits);
    if (this.cacheMisses > 0) metrics.increment(RANK_METRICS.cacheMisses, this.cacheMisses);
    this.cacheHits = 0;
    this.cacheMisses = 0;
    if (this.pendingMetrics.size === 0) return;
    for (const [name, n] of this.pendingMetrics) metrics.increment(name, n);
    this.pendingMetrics.clear();
  }
}
