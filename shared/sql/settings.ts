/**
 * The `SET 'key' = 'value'` options a script may give. Flambda reads some of Flink's options;
 * others are Flink's but mean nothing here (the runtime has no such knob); anything else is a
 * typo or an option of a newer Flink, and is warned about by name rather than ignored silently.
 */
import type { SqlPosition } from './errors.ts';

/** Options the compiler reads, with what they do. */
export const HONORED_SETTINGS: ReadonlyMap<string, string> = new Map([
  ['table.exec.state.ttl', 'idle state retention of regular aggregates, joins, Top-N and deduplication'],
  ['table.exec.topn.cache-size', 'rows of the Top-N cache'],
  ['pipeline.error-policy', "what a record's data error does: 'dead-letter' (the default) or 'fail'"],
  ['table.local-time-zone', 'the session time zone of TIMESTAMP_LTZ values, CURRENT_DATE and the other time functions (UTC by default)'],
  ['flambda.explain.cost-rate', 'the input rate in events/s EXPLAIN ESTIMATED_COST prices the job at (default 1000)'],
]);

/** Flink options accepted without effect, and why they have none. */
const NO_EFFECT: ReadonlyMap<string, string> = new Map([
  ['execution.runtime-mode', 'every Flambda job is a streaming job'],
  ['parallelism.default', 'parallelism is set by the run (--parallelism) or the stack'],
  ['pipeline.name', 'the job is named after the script'],
  ['sql-client.execution.result-mode', 'results go to the sinks and --final'],
  ['table.exec.mini-batch.enabled', 'stages always process records in batches'],
  ['table.exec.mini-batch.allow-latency', 'stages always process records in batches'],
  ['table.exec.mini-batch.size', 'stages always process records in batches'],
  ['table.optimizer.agg-phase-strategy', 'aggregates run in one phase per key partition'],
  ['table.optimizer.distinct-agg.split.enabled', 'aggregates run in one phase per key partition'],
  ['table.exec.source.idle-timeout', 'idle shards do not hold the watermark back'],
  ['table.exec.sink.not-null-enforcer', "NOT NULL sink columns are always enforced as Flink's default ERROR does: a NULL there is a data error of its record"],
  ['table.dynamic-table-options.enabled', "OPTIONS hints are always read, as Flink's default 'true' does"],
  ['execution.checkpointing.interval', 'stages commit every batch'],
]);

/**
 * The warning for a SET statement, if any: unknown keys and Flink keys without effect.
 */
export function settingWarning(key: string, pos: SqlPosition): string | undefined {
  if (HONORED_SETTINGS.has(key)) return undefined;
  const where = `line ${pos.line}:${pos.column}`;
  const reason = NO_EFFECT.get(key);
  if (reason !== undefined) return `${where}: SET '${key}' has no effect in Flambda (${reason})`;
  return `${where}: SET '${key}' is not an option Flambda knows; it is ignored (options read: ${[...HONORED_SETTINGS.keys()].join(', ')})`;
}
