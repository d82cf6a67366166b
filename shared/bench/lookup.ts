/**
 * The `lookup` benchmark suite: the claim of the seed article on lookup joins ("Flink SQL 扩展维表
 * Keyby 的三种实现方式", `'lookup.enable_hash'`): a lookup join runs forward by default, so every
 * shard's cache holds whatever keys its rows happen to carry and the hit rate is low; hashing the
 * stream by the join key first gives each shard a disjoint key range, and each cache covers its
 * range.
 *
 * Each case is a real job on the embedded runtime, planned by the planner from the pipeline API:
 * a JSON-lines source of probe events `{key, seq}` → `lookupJoin` against a 10,000-row dimension
 * table with a PARTIAL cache of 2,500 rows per shard → a blackhole sink, at parallelism 4. The
 * table is declared with `hash: true` (`'lookup.enable_hash' = 'true'`: the planner puts an
 * `Exchange(hash[key])` before the join, which then runs in its own stage) or without it (the
 * join runs forward, in the source stage, whose shards get the rows round-robin). The dimension
 * source is a function that counts the keys and calls it receives. Cases: `hashed-uniform`,
 * `forward-uniform`, `hashed-zipf`, `forward-zipf` — probe keys uniform over the 10,000 keys, or
 * Zipf-distributed (exponent 1: key k drawn with probability ∝ 1 / (k + 1)).
 *
 * Figures per case: `hit_rate` = the caches' hits / (hits + misses), as the operator publishes
 * them (each batch looks up its distinct keys once, so repeated keys within a batch count once);
 * `lookups_per_1000` = keys the dimension source received per 1,000 events, `source_calls_per_1000`
 * = its calls (each carries one batch's missing keys); `events_per_s` = events / the job's wall
 * time (input decoding included).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pipeline } from '../api/pipeline.ts';
import { PlanError } from '../core/errors.ts';
import type { Row } from '../core/types.ts';
import type { JobGraph } from '../plan/job-graph.ts';
import { runEmbeddedJob } from '../runtime/embedded/embedded-runtime.ts';
import { seededRandom } from './bench-input.ts';
import type { BenchResult } from './bench-common.ts';

/** Dimension keys (rows of the dimension table). */
export const LOOKUP_KEYS = 10_000;
/** Shards of every stage. */
export const LOOKUP_SHARDS = 4;
/** PARTIAL cache rows per shard: a quarter of the table, what one shard's key range needs. */
export const LOOKUP_CACHE_ROWS = 2_500;
/** Default probe events per case. */
export const LOOKUP_DEFAULT_EVENTS = 1_000_000;
/** Exponent of the Zipf distribution of the `*-zipf` cases. */
export const ZIPF_EXPONENT = 1;

/** The cases, in report order. */
export const LOOKUP_CASES = ['hashed-uniform', 'forward-uniform', 'hashed-zipf', 'forward-zipf'] as const;

/** A probe key distribution. */
export type KeyDistribution = 'uniform' | 'zipf';

/** Options of {@link runLookupSuite}. */
export interface LookupSuiteOptions {
  /** Probe events per case. @default 1,000,000 */
  readonly events?: number;
  /** Progress lines (stderr in the CLI). */
  readonly progress?: (line: string) => void;
}

/**
 * A sampler of keys 0..keys-1 with P(k) ∝ 1 / (k + 1)^exponent, by binary search in the
 * cumulative distribution.
 */
export function zipfSampler(keys: number, exponent: number, random: () => number): () => number {
  const cdf = new Float64Array(keys);
  let total = 0;
  for (let k = 0; k < keys; k++) {
    total += 1 / Math.pow(k + 1, exponent);
    cdf[k] = total;
  }
  return () => {
    const u = random() * total;
    let lo = 0;
    let hi = keys - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((cdf[mid] as number) < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** Writes `events` probe lines `{"key":k,"seq":i}` with keys drawn from `distribution`. */
function writeProbeFile(dir: string, distribution: KeyDistribution, events: number): string {
  const random = seededRandom(distribution === 'uniform' ? 11 : 13);
  const next = distribution === 'uniform' ? () => Math.floor(random() * LOOKUP_KEYS) : zipfSampler(LOOKUP_KEYS, ZIPF_EXPONENT, random);
  const path = join(dir, `probe-${distribution}.jsonl`);
  const lines: string[] = new Array<string>(events);
  for (let i = 0; i < events; i++) lines[i] = `{"key":${next()},"seq":${i}}`;
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** The counters of the dimension source: what reached the "database". */
interface SourceCounters {
  keys: number;
  calls: number;
}

/**
 * The case's pipeline: probe source → lookup join (PARTIAL cache of {@link LOOKUP_CACHE_ROWS}
 * rows, hashed or forward) → blackhole. The dimension source answers every key below
 * {@link LOOKUP_KEYS} with `value = "v<key>"` and counts what it is asked.
 */
export function lookupPipeline(hashed: boolean, counters: SourceCounters): Pipeline {
  const p = new Pipeline(`bench-lookup-${hashed ? 'hashed' : 'forward'}`);
  const dim = p.lookupTable('dim', {
    schema: { key: 'BIGINT NOT NULL', value: 'STRING' },
    source: {
      fn: (keys: readonly Row[]): Row[] => {
        counters.calls += 1;
        counters.keys += keys.length;
        const rows: Row[] = [];
        for (const k of keys) {
          const key = k.key as number;
          if (key >= 0 && key < LOOKUP_KEYS) rows.push({ key, value: `v${key}` });
        }
        return rows;
      },
    },
    cache: { type: 'PARTIAL', maxRows: LOOKUP_CACHE_ROWS },
    hash: hashed,
  });
  p.source('probe', { schema: { key: 'BIGINT NOT NULL', seq: 'BIGINT NOT NULL' } })
    .lookupJoin(dim, { on: { key: 'key' }, columns: ['value'] })
    .sinkTo('out', { connector: { type: 'blackhole' } });
  return p;
}

/** Where the planner put the lookup join: after a hash exchange on `key`, or forward in the source stage. */
function joinPlacement(graph: JobGraph): 'hash' | 'forward' {
  const stage = graph.stages.find((s) => s.operators.some((op) => op.type === 'LookupJoin'));
  if (stage === undefined) throw new PlanError(`internal: ${graph.name} has no LookupJoin`);
  if (stage.input.type === 'source') return 'forward';
  if (stage.input.type !== 'exchange') throw new PlanError(`internal: ${graph.name}: the lookup join's stage has two inputs`);
  const distribution = stage.input.distribution;
  if (distribution.type !== 'hash' || distribution.keys.join(',') !== 'key') {
    throw new PlanError(`internal: ${graph.name}: the lookup join's input is ${JSON.stringify(distribution)}, not hash[key]`);
  }
  return 'hash';
}

const round = (x: number, digits: number): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** Runs the four cases; returns one result per case. */
export async function runLookupSuite(options: LookupSuiteOptions = {}): Promise<BenchResult[]> {
  const events = options.events ?? LOOKUP_DEFAULT_EVENTS;
  if (!Number.isSafeInteger(events) || events < 1) throw new PlanError(`lookup bench: events must be a positive integer (given ${events})`);
  const progress = options.progress ?? (() => undefined);
  const dir = mkdtempSync(join(tmpdir(), 'flambda-bench-lookup-'));
  try {
    const files = new Map<KeyDistribution, string>();
    for (const distribution of ['uniform', 'zipf'] as const) {
      progress(`lookup: writing ${events.toLocaleString('en-US')} ${distribution} probe events\n`);
      files.set(distribution, writeProbeFile(dir, distribution, events));
    }
    const results: BenchResult[] = [];
    for (const name of LOOKUP_CASES) {
      const [placement, distribution] = name.split('-') as ['hashed' | 'forward', KeyDistribution];
      const counters: SourceCounters = { keys: 0, calls: 0 };
      const pipeline = lookupPipeline(placement === 'hashed', counters);
      const graph = pipeline.jobGraph({ parallelism: LOOKUP_SHARDS });
      const planned = joinPlacement(graph);
      if ((planned === 'hash') !== (placement === 'hashed')) throw new PlanError(`internal: ${name}: the planner put the lookup join ${planned}`);
      progress(`lookup: ${name} …\n`);
      const result = await runEmbeddedJob(graph, {
        inputs: new Map([['probe', files.get(distribution) as string]]),
        code: { functions: pipeline.userFunctions as Map<string, unknown> },
        batchSize: 1024,
        onProgress: (p) => progress(`lookup: ${name} ${p.recordsRead.toLocaleString('en-US')} / ${events.toLocaleString('en-US')} events\n`),
        progressIntervalMs: 5_000,
      });
      if (result.recordsRead !== events) throw new PlanError(`lookup bench ${name} read ${result.recordsRead} of ${events} events`);
      const written = result.sinks.get('out')?.rowsWritten ?? 0;
      if (written !== events) throw new PlanError(`internal: lookup bench ${name} joined ${written} of ${events} events`);
      const cache = result.lookupCache ?? { hits: 0, misses: 0, hitRate: 0 };
      const r: BenchResult = {
        suite: 'lookup',
        case: name,
        events,
        keys: LOOKUP_KEYS,
        shards: LOOKUP_SHARDS,
        cache_rows_per_shard: LOOKUP_CACHE_ROWS,
        distribution: planned === 'hash' ? 'hash[key]' : 'forward',
        key_distribution: distribution === 'uniform' ? 'uniform' : `zipf(${ZIPF_EXPONENT})`,
        hit_rate: round(cache.hitRate, 4),
        cache_hits: cache.hits,
        cache_misses: cache.misses,
        lookups_per_1000: round((counters.keys * 1000) / events, 3),
        source_calls_per_1000: round((counters.calls * 1000) / events, 3),
        events_per_s: Math.round((events * 1000) / result.elapsedMs),
        elapsed_ms: Math.round(result.elapsedMs),
      };
      progress(`lookup: ${name} hit rate ${r.hit_rate}, ${r.lookups_per_1000} lookups per 1,000 events, ${r.events_per_s} events/s\n`);
      results.push(r);
    }
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
