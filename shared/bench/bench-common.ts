/**
 * What the benchmark suites share: the result line and options, the passthrough job graph every
 * ratio is measured against, timing a job through an encoding sink, and the median. A leaf of
 * shared/bench/, so the suite dispatcher (suites.ts) loads the suites lazily and they import
 * nothing back from it.
 */
import { PlanError } from '../core/errors.ts';
import { schemaOf } from '../core/type-parse.ts';
import { createRowEncoder } from '../core/codec.ts';
import type { ChangeRow } from '../core/row.ts';
import { JOB_GRAPH_VERSION, type JobGraph } from '../plan/job-graph.ts';
import { runEmbeddedJob } from '../runtime/embedded/embedded-runtime.ts';
import type { SinkObserver } from '../runtime/embedded/sinks.ts';
import { BID_SCHEMA } from './bench-input.ts';

/** One result line. */
export interface BenchResult {
  readonly suite: string;
  readonly case: string;
  readonly events: number;
  /** Absent for suites that do not measure throughput (`state-io`). */
  readonly events_per_s?: number;
  readonly ratio_to_passthrough?: number;
  readonly [figure: string]: string | number | undefined;
}

/** Options of a suite run. */
export interface BenchOptions {
  readonly events: number;
  readonly parallelism: number;
  /** Timed runs per case (medians are reported). @default 3 */
  readonly repetitions?: number;
  /** The one query to measure (suite `nexmark` only; q0 is measured too, for `ratio_to_q0`). @default every query */
  readonly query?: string;
}

/** Encodes every sink row to JSON and counts bytes, so passthrough includes the encode cost. */
class EncodingSink implements SinkObserver {
  bytes = 0;
  rows = 0;
  constructor(private readonly encode: (row: ChangeRow['row']) => unknown) {}
  write(rows: readonly ChangeRow[]): void {
    for (const r of rows) {
      this.bytes += JSON.stringify(this.encode(r.row)).length;
      this.rows += 1;
    }
  }
}

/** Job graph of the passthrough case: source stage → hash[auction] → sink stage, no operators. */
export function passthroughGraph(parallelism: number): JobGraph {
  const schema = schemaOf(BID_SCHEMA);
  return {
    version: JOB_GRAPH_VERSION,
    name: 'passthrough',
    keyGroups: 256,
    sources: [{ name: 'bid', schema, connector: { type: 'jsonl' }, parallelism }],
    sinks: [{ name: 'out', schema, connector: { type: 'blackhole' }, changelogMode: ['+I'] }],
    stages: [
      {
        id: 'stage-0',
        parallelism,
        input: { type: 'source', source: 'bid' },
        inputSchema: schema,
        operators: [],
        output: { type: 'exchange', toStage: 'stage-1', distribution: { type: 'hash', keys: ['auction'] } },
      },
      {
        id: 'stage-1',
        parallelism,
        input: { type: 'exchange', fromStage: 'stage-0', distribution: { type: 'hash', keys: ['auction'] } },
        inputSchema: schema,
        operators: [],
        output: { type: 'sink', sink: 'out' },
      },
    ],
  };
}

/** Runs a job over a bid file through an encoding sink; returns events per second. */
export async function timeJob(graph: JobGraph, path: string, events: number, functions = new Map<string, unknown>()): Promise<number> {
  const sinkSpec = graph.sinks[0];
  if (!sinkSpec) throw new PlanError('internal: benchmark job has no sink');
  const sink = new EncodingSink(createRowEncoder(sinkSpec.schema));
  const result = await runEmbeddedJob(graph, {
    inputs: new Map([['bid', path]]),
    code: { functions },
    observers: new Map([[sinkSpec.name, [sink]]]),
    batchSize: 1024,
  });
  if (result.recordsRead !== events) throw new PlanError(`benchmark read ${result.recordsRead} of ${events} events`);
  return Math.round((events * 1000) / result.elapsedMs);
}

/** Median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}
