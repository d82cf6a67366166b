/**
 * The stage handler's counters, defined once: what {@link StageHandlerStats} holds, its zero,
 * and how a shard task's operator and cache counters are added to it. The Lambda function turns
 * them into CloudWatch metrics (functions/stage-handler.ts), the benchmarks into figures.
 */
import type { ShardTask } from './shard-task.ts';

/** Counters of a {@link StageHandler}, summed over its shards. */
export interface StageHandlerStats {
  /** Invocations handled. */
  invocations: number;
  /** Records received. */
  records: number;
  /** Rows sent to the output (exchange or sink), replays included. */
  outputRows: number;
  /** Dead letters handed over. */
  deadLetters: number;
  /** Invocations that returned `batchItemFailures`. */
  failedBatches: number;
  /** Batches committed. */
  commits: number;
  /** Announced ranges replayed after a failure. */
  replays: number;
  /** Announced ranges the event source mapping discarded, settled by checkpoint/skipped-range.ts. */
  skippedRanges: number;
  /** Records at or before the committed position, dropped (a redelivery). */
  redelivered: number;
  /** Redo logs applied by a later invocation than the one that committed them. */
  redoRecoveries: number;
  /** Invocations that found their task stale (another container had processed the shard). */
  staleTasks: number;
  /** Rows too late for every window, sent to a late side output (operators' `numLateRecordsDropped`). */
  lateRecords: number;
  /** Keys state prefetches found in the warm cache. */
  stateCacheHits: number;
  /** Keys state prefetches had to load from DynamoDB. */
  stateCacheMisses: number;
  /** Lookup join cache hits and misses (operators' `lookupCacheHits` / `lookupCacheMisses`). */
  lookupCacheHits: number;
  lookupCacheMisses: number;
  /** Lookup store requests (loads), their total time in ms, and cache evictions (all lookup joins). */
  lookupLoads: number;
  lookupLoadTimeMs: number;
  lookupCacheEvictions: number;
  /** Processing time minus the chain's output watermark after the last committed batch; undefined before a finite watermark. */
  watermarkLagMs: number | undefined;
  /** Side-output rows handed to their sinks (replays included). */
  sideRowsRouted: number;
  /** Side-output rows no sink takes (no route in the job graph, or no `sideSink`). */
  sideRowsDropped: number;
  /** Compressed state changelog bytes committed (segments, and pages when materializing). */
  stateCommitBytes: number;
  /** Commits that materialized pages. */
  materializations: number;
  /** Changelog segments read at cold starts, and the most read by one cold start. */
  coldStartSegments: number;
  maxColdStartSegments: number;
  /** Batches processed without a commit (held in a commit interval). */
  deferredBatches: number;
  /** Uncommitted records re-read from the input stream after a container switch, and the most one catch-up re-read. */
  catchUpRecords: number;
  maxCatchUpRecords: number;
  /** The longest catch-up (re-read and reprocessed before the event's own records), ms. */
  maxCatchUpMs: number;
}

/** Operator metric names the handler sums into its stats. */
export const OPERATOR_COUNTERS = {
  lateRecords: 'numLateRecordsDropped',
  lookupCacheHits: 'lookupCacheHits',
  lookupCacheMisses: 'lookupCacheMisses',
  lookupLoads: 'lookupLoads',
  lookupLoadTimeMs: 'lookupLoadTimeMs',
  lookupCacheEvictions: 'lookupCacheEvictions',
} as const;

/** The counters a task reports into the stats (operator counters and state-cache counters). */
export type ReportedCounters = Record<keyof typeof OPERATOR_COUNTERS | 'stateCacheHits' | 'stateCacheMisses', number>;

/** Reported counters at zero (a new task). */
export function zeroReported(): ReportedCounters {
  return { lateRecords: 0, lookupCacheHits: 0, lookupCacheMisses: 0, lookupLoads: 0, lookupLoadTimeMs: 0, lookupCacheEvictions: 0, stateCacheHits: 0, stateCacheMisses: 0 };
}

/** A handler's counters before its first invocation. */
export function newStageHandlerStats(): StageHandlerStats {
  return {
    invocations: 0,
    records: 0,
    outputRows: 0,
    deadLetters: 0,
    failedBatches: 0,
    commits: 0,
    replays: 0,
    skippedRanges: 0,
    redelivered: 0,
    redoRecoveries: 0,
    staleTasks: 0,
    watermarkLagMs: undefined,
    sideRowsRouted: 0,
    sideRowsDropped: 0,
    stateCommitBytes: 0,
    materializations: 0,
    coldStartSegments: 0,
    maxColdStartSegments: 0,
    deferredBatches: 0,
    catchUpRecords: 0,
    maxCatchUpRecords: 0,
    maxCatchUpMs: 0,
    ...zeroReported(),
  };
}

/**
 * Adds what the task's operators and state caches counted since its last report to `stats`
 * (the task remembers what it reported), and the watermark lag at `now`.
 */
export function reportTask(stats: StageHandlerStats, task: ShardTask, now: number): void {
  const counted = zeroReported();
  for (const runner of task.runners) {
    for (const [stat, metric] of Object.entries(OPERATOR_COUNTERS) as [keyof typeof OPERATOR_COUNTERS, string][]) counted[stat] += runner.metrics.get(metric) ?? 0;
  }
  for (const store of task.stores) {
    const cache = store.stats();
    counted.stateCacheHits += cache.cacheHits;
    counted.stateCacheMisses += cache.cacheMisses;
  }
  for (const key of Object.keys(counted) as (keyof ReportedCounters)[]) {
    stats[key] += counted[key] - task.reported[key];
    task.reported[key] = counted[key];
  }
  if (Number.isFinite(task.watermark)) stats.watermarkLagMs = now - task.watermark;
}
