/**
 * A stage function's CloudWatch metrics: the difference of the handler's counters across one
 * invocation, published through Powertools Metrics (EMF, flushed by its `logMetrics`
 * middleware, which must wrap this one so it flushes after `after` ran).
 *
 * State reads and writes are counted at the DynamoDB client ({@link countingDynamoDb}): one
 * Query per partition loaded, one BatchWriteItem per flushed chunk.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { BatchWriteItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import type { MiddlewareObj } from '@middy/core';
import type { DynamoDbSender } from './state/table-io.ts';
import type { StageHandlerStats } from './handler/stage-handler.ts';

/** Metric names. */
export const STAGE_METRICS = {
  recordsIn: 'RecordsIn',
  recordsOut: 'RecordsOut',
  deadLettered: 'DeadLettered',
  failedBatches: 'FailedBatches',
  batchDurationMs: 'BatchDurationMs',
  stateReads: 'StateReads',
  stateWrites: 'StateWrites',
  /** Rows too late for every window (sent to the late side output). */
  lateRecords: 'LateRecords',
  /** Keys a state prefetch found in the warm cache / had to load. */
  stateCacheHits: 'StateCacheHits',
  stateCacheMisses: 'StateCacheMisses',
  /** Processing time minus the chain's output watermark after the batch (event-time lag). */
  watermarkLagMs: 'WatermarkLagMs',
  /** Announced ranges replayed after a crash. */
  replays: 'Replays',
  /** Announced ranges the event source mapping discarded (checkpoint/skipped-range.ts); alarmed. */
  skippedRanges: 'SkippedRanges',
  /** Lookup join cache hits / misses (all lookup joins of the stage). */
  lookupCacheHits: 'LookupCacheHits',
  lookupCacheMisses: 'LookupCacheMisses',
  /** Lookup store requests, their total time and lookup cache evictions. */
  lookupLoads: 'LookupLoads',
  lookupLoadTimeMs: 'LookupLoadTimeMs',
  lookupCacheEvictions: 'LookupCacheEvictions',
  /** Lookup keys answered by the DynamoDB second level / passed on to the dimension source. */
  lookupL2Hits: 'LookupL2Hits',
  lookupSourceLoads: 'LookupSourceLoads',
} as const;

/** What this module needs of Powertools' `Metrics`. */
export interface MetricSink {
  addMetric(name: string, unit: (typeof MetricUnit)[keyof typeof MetricUnit], value: number): void;
}

/** DynamoDB requests made by the state stores. */
export interface StateRequestCounts {
  reads: number;
  writes: number;
}

/** Everything one snapshot of the counters holds. */
export interface StageCounters {
  readonly handler: StageHandlerStats;
  readonly state: StateRequestCounts;
  /** Lookup L2 counters of the stage's lookup joins, when it has any. */
  readonly lookupL2?: { readonly l2Hits: number; readonly sourceKeys: number };
}

/**
 * Wraps a DynamoDB client so Query calls count as state reads and BatchWriteItem calls as state
 * writes; `counts` is bumped in place.
 */
export function countingDynamoDb(client: DynamoDbSender): { client: DynamoDbSender; counts: StateRequestCounts } {
  const counts: StateRequestCounts = { reads: 0, writes: 0 };
  // instanceof, not constructor names: a minifying bundler renames classes.
  const send = ((command: unknown, ...rest: unknown[]) => {
    if (command instanceof QueryCommand) counts.reads++;
    else if (command instanceof BatchWriteItemCommand) counts.writes++;
    return (client.send as (...args: unknown[]) => unknown)(command, ...rest);
  }) as DynamoDbSender['send'];
  return { client: { send }, counts };
}

/** Adds the metrics of one invocation: counter deltas from `before` to `after`, and its duration. */
export function addStageMetrics(metrics: MetricSink, before: StageCounters, after: StageCounters, durationMs: number): void {
  const count = MetricUnit.Count;
  metrics.addMetric(STAGE_METRICS.recordsIn, count, after.handler.records - before.handler.records);
  metrics.addMetric(STAGE_METRICS.recordsOut, count, after.handler.outputRows - before.handler.outputRows);
  metrics.addMetric(STAGE_METRICS.deadLettered, count, after.handler.deadLetters - before.handler.deadLetters);
  metrics.addMetric(STAGE_METRICS.failedBatches, count, after.handler.failedBatches - before.handler.failedBatches);
  metrics.addMetric(STAGE_METRICS.batchDurationMs, MetricUnit.Milliseconds, durationMs);
  metrics.addMetric(STAGE_METRICS.stateReads, count, after.state.reads - before.state.reads);
  metrics.addMetric(STAGE_METRICS.stateWrites, count, after.state.writes - before.state.writes);
  metrics.addMetric(STAGE_METRICS.lateRecords, count, after.handler.lateRecords - before.handler.lateRecords);
  metrics.addMetric(STAGE_METRICS.stateCacheHits, count, after.handler.stateCacheHits - before.handler.stateCacheHits);
  metrics.addMetric(STAGE_METRICS.stateCacheMisses, count, after.handler.stateCacheMisses - before.handler.stateCacheMisses);
  metrics.addMetric(STAGE_METRICS.lookupCacheHits, count, after.handler.lookupCacheHits - before.handler.lookupCacheHits);
  metrics.addMetric(STAGE_METRICS.lookupCacheMisses, count, after.handler.lookupCacheMisses - before.handler.lookupCacheMisses);
  metrics.addMetric(STAGE_METRICS.lookupLoads, count, after.handler.lookupLoads - before.handler.lookupLoads);
  metrics.addMetric(STAGE_METRICS.lookupLoadTimeMs, MetricUnit.Milliseconds, after.handler.lookupLoadTimeMs - before.handler.lookupLoadTimeMs);
  metrics.addMetric(STAGE_METRICS.lookupCacheEvictions, count, after.handler.lookupCacheEvictions - before.handler.lookupCacheEvictions);
  metrics.addMetric(STAGE_METRICS.replays, count, after.handler.replays - before.handler.replays);
  metrics.addMetric(STAGE_METRICS.skippedRanges, count, after.handler.skippedRanges - before.handler.skippedRanges);
  if (after.lookupL2 !== undefined) {
    metrics.addMetric(STAGE_METRICS.lookupL2Hits, count, after.lookupL2.l2Hits - (before.lookupL2?.l2Hits ?? 0));
    metrics.addMetric(STAGE_METRICS.lookupSourceLoads, count, after.lookupL2.sourceKeys - (before.lookupL2?.sourceKeys ?? 0));
  }
  // A gauge, not a delta: how far event time trails processing time after this invocation.
  const lag = after.handler.watermarkLagMs;
  if (lag !== undefined && Number.isFinite(lag)) metrics.addMetric(STAGE_METRICS.watermarkLagMs, MetricUnit.Milliseconds, Math.max(0, lag));
}

/** Options of {@link stageMetrics}. */
export interface StageMetricsOptions {
  readonly metrics: MetricSink;
  /** A snapshot of the counters (copied, not live objects). */
  readonly counters: () => StageCounters;
  /** @default performance.now */
  readonly now?: () => number;
}

/**
 * Middy middleware: snapshots the counters `before` the handler and adds the deltas `after` it
 * and `onError` (a rejected invocation still processed records worth counting).
 */
export function stageMetrics(options: StageMetricsOptions): MiddlewareObj {
  const now = options.now ?? (() => performance.now());
  const started = new WeakMap<object, { counters: StageCounters; at: number }>();
  const publish = (request: object): void => {
    const start = started.get(request);
    if (start === undefined) return;
    started.delete(request);
    addStageMetrics(options.metrics, start.counters, options.counters(), now() - start.at);
  };
  return {
    before: (request) => {
      started.set(request, { counters: options.counters(), at: now() });
    },
    after: (request) => publish(request),
    onError: (request) => publish(request),
  };
}
