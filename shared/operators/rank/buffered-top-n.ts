/**
 * The Top-N operators that keep a sorted {@link TopNBuffer} per partition (AppendOnlyTopN,
 * RetractableTopN, UpdatableTopN): the buffer cache in front of state, idle-state retention a
 * partition at a time (partition-meta.ts) and the variable rank end.
 *
 * Every change is written through to state when it happens, so the cache only saves rebuilding
 * buffers: a partition dropped from the cache is rebuilt from state with the same rows in the
 * same order, and a snapshot taken between batches is complete.
 */
import type { Row } from '../../core/types.ts';
import type { KeyedStateStore, StateOptions } from '../../state/state.ts';
import { AbstractTopN, RANK_METRICS } from './abstract-top-n.ts';
import { PartitionCache, type Cached } from './partition-cache.ts';
import { PartitionMetaStore } from './partition-meta.ts';
import type { RankCollector } from './rank-collector.ts';
import type { RankPlan } from './rank-plan.ts';
import type { Ranker } from './ranker.ts';
import { RowNumberRanker } from './row-number-ranker.ts';
import { TiedRanker } from './tied-ranker.ts';
import type { TopNBuffer } from './topn-buffer.ts';

/** A partition's cached buffer. */
export interface PartitionBuffer extends Cached {
  readonly buffer: TopNBuffer;
  /** The partition's rank end: the constant one, or the variable one once fixed. */
  end: number | undefined;
}

/** Creates the ranker of a plan: ROW_NUMBER with Flink's rules, or RANK / DENSE_RANK. */
export function createRanker(plan: RankPlan, collector: RankCollector, top1: boolean): Ranker {
  const rankType = plan.spec.rankType;
  if (rankType === 'ROW_NUMBER') {
    // "the without-number-algorithm can't handle topN with offset, so use the with-number-algorithm"
    const positional = plan.outputRankNumber || plan.range.start > 1;
    return new RowNumberRanker(collector, plan.order.compare, positional, top1);
  }
  return new TiedRanker(collector, plan.order.compare, rankType === 'DENSE_RANK', plan.outputRankNumber);
}

/** Base class of the buffered Top-N operators; see the module documentation. */
export abstract class BufferedTopN<P extends PartitionBuffer> extends AbstractTopN {
  protected readonly ranker: Ranker;
  protected meta!: PartitionMetaStore;
  private readonly cache: PartitionCache<P>;

  constructor(plan: RankPlan, top1: boolean) {
    super(plan);
    this.ranker = createRanker(plan, this.collector, top1);
    this.cache = new PartitionCache<P>(plan.cacheSize);
  }

  /** Drops the cached buffers. */
  close(): void {
    this.cache.clear();
  }

  protected openState(store: KeyedStateStore): void {
    const ttlMs = this.plan.ttlMs;
    this.meta = new PartitionMetaStore(store, ttlMs, this.plan.range.kind === 'variable');
    this.openData(store, PartitionMetaStore.dataTtl(ttlMs));
  }

  protected touchPartition(key: string, now: number): void {
    const liveness = this.meta.touch(key, now);
    if (liveness === 'expired') {
      this.cache.delete(key);
      this.clearData(key);
    } else if (liveness === 'refresh') {
      this.rewriteData(key);
    }
  }

  /** Declares the row state with the given options (TTL of row entries). */
  protected abstract openData(store: KeyedStateStore, options: StateOptions | undefined): void;

  /** Builds a partition's buffer from state. */
  protected abstract load(key: string): P;

  /** Removes all row entries of a partition. */
  protected abstract clearData(key: string): void;

  /** Writes all row entries of a partition again, refreshing their TTL. */
  protected abstract rewriteData(key: string): void;

  /** The partition's buffer, from the cache or built from state. */
  protected partition(key: string): P {
    let part = this.cache.get(key);
    if (part !== undefined) {
      this.cacheHits++;
      return part;
    }
    this.cacheMisses++;
    part = this.load(key);
    this.cache.put(key, part);
    return part;
  }

  /** The rank end a freshly loaded partition starts with. */
  protected initialEnd(key: string): number | undefined {
    const range = this.plan.range;
    return range.kind === 'constant' ? range.end : this.meta.rankEnd(key);
  }

  /**
   * Makes the collector's range that of the row's partition. A variable range's end is fixed by
   * the partition's first row (AbstractTopNFunction.initRankEnd); returns false, counting it, for
   * a row that would fix it without holding a positive integer end.
   */
  protected resolveEnd(key: string, part: P, row: Row): boolean {
    const range = this.plan.range;
    if (range.kind === 'constant') return true;
    const value = range.endOf(row);
    if (part.end === undefined) {
      if (value === undefined) {
        this.count(RANK_METRICS.invalidRankEnd);
        return false;
      }
      part.end = value;
      this.meta.setRankEnd(key, value, this.context.timers.currentProcessingTime());
    } else if (value !== part.end) {
      this.count(RANK_METRICS.invalidTopSize);
    }
    this.collector.end = part.end;
    return true;
  }
}
