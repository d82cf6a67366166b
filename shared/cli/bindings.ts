/**
 * What `flambda run` and `flambda local` share: binding sources to `--input` files and sinks to
 * `--final` / `--changelog` files, checking output paths before a job runs, collecting a sink's
 * final result, and the summary line.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { PlanError } from '../core/errors.ts';
import { createRowEncoder, type JsonValue } from '../core/codec.ts';
import type { ChangeRow } from '../core/row.ts';
import type { JobGraph, JobSink } from '../plan/job-graph.ts';
import { lookupTablesOf } from '../plan/job-graph.ts';
import { MaterializedView } from '../runtime/materialized-view.ts';
import type { SinkObserver } from '../runtime/embedded/sinks.ts';
import { parseBindings } from './args.ts';

/** Collects a sink's changelog into a materialized view. */
export class FinalCollector implements SinkObserver {
  readonly view: MaterializedView;
  constructor(sink: JobSink) {
    this.view = new MaterializedView({
      ...(sink.upsertKey ? { key: sink.upsertKey } : {}),
      columns: sink.schema.fields.map((f) => f.name),
    });
  }
  write(rows: readonly ChangeRow[]): void {
    for (const r of rows) this.view.apply(r);
  }
}

/** The source's column names, for error messages. */
export function describeSchema(graph: JobGraph, source: string): string {
  const spec = graph.sources.find((s) => s.name === source);
  return spec ? spec.schema.fields.map((f) => f.name).join(', ') : '?';
}

/**
 * Binds `--input <source>=<file>` values to the graph's sources and checks the files exist.
 * Every source must get an input unless it has its own (a generator, or a jsonl path).
 */
export function bindInputs(graph: JobGraph, bindings: readonly string[]): Map<string, string> {
  const inputs = parseBindings('--input', bindings, graph.sources.length === 1 ? graph.sources[0]?.name : undefined);
  const names = graph.sources.map((s) => s.name);
  // JSON-lines lookup tables are bound by name too (`--input side_input=side_input.jsonl`).
  const lookups = [...lookupTablesOf(graph).values()].filter((t) => t.source.type === 'jsonl');
  const lookupNames = lookups.map((t) => t.table);
  for (const [name, path] of inputs) {
    if (!names.includes(name) && !lookupNames.includes(name)) {
      const tables = lookupNames.length > 0 ? `; JSON-lines lookup tables: ${lookupNames.join(', ')}` : '';
      throw new PlanError(`--input ${name}=…: the pipeline has no source '${name}' (sources: ${names.join(', ')}${tables})`);
    }
    if (!existsSync(path)) throw new PlanError(`--input ${name}=${path}: file not found`);
    const stat = statSync(path);
    // A named pipe is read as its writer writes (a live input); a directory is a partitioned
    // input, one partition per file (sources only).
    const partitioned = stat.isDirectory() && names.includes(name);
    if (!stat.isFile() && !stat.isFIFO() && !partitioned) {
      throw new PlanError(`--input ${name}=${path}: not a file (expected a JSON-lines file${names.includes(name) ? ', a named pipe, or a directory of them' : ''})`);
    }
  }
  for (const source of graph.sources) {
    const c = source.connector;
    const hasOwnInput = c.type === 'generator' || (c.type === 'jsonl' && c.path !== undefined);
    if (!inputs.has(source.name) && !hasOwnInput) {
      throw new PlanError(`source '${source.name}' needs an input: pass --input ${source.name}=<file.jsonl>`);
    }
  }
  for (const table of lookups) {
    if (!inputs.has(table.table) && (table.source.type !== 'jsonl' || table.source.path === undefined)) {
      throw new PlanError(`lookup table '${table.table}' needs a file: pass --input ${table.table}=<file.jsonl>`);
    }
  }
  return inputs;
}

/** Binds `[<sink>=]<file>` values of `option` to the graph's sinks. */
export function bindSinkFiles(option: string, graph: JobGraph, values: readonly string[]): Map<string, string> {
  const names = graph.sinks.map((s) => s.name);
  const bare = names.length === 1 ? names[0] : undefined;
  const out = new Map<string, string>();
  for (const v of values) {
    const eq = v.indexOf('=');
    const named = eq > 0 && names.includes(v.slice(0, eq));
    // `other=file` where `other` looks like a sink name but is none: say so instead of writing a
    // file literally named `other=file`.
    if (!named && eq > 0 && /^[A-Za-z_][\w-]*$/.test(v.slice(0, eq))) {
      throw new PlanError(`${option} ${v}: unknown sink '${v.slice(0, eq)}' (sinks: ${names.join(', ')})`);
    }
    if (!named && bare === undefined) {
      throw new PlanError(`${option}: the pipeline has ${names.length} sinks (${names.join(', ')}); write ${option} <sink>=<file>`);
    }
    const sink = named ? v.slice(0, eq) : (bare as string);
    const path = named ? v.slice(eq + 1) : v;
    if (out.has(sink)) throw new PlanError(`${option} given twice for sink '${sink}'`);
    out.set(sink, path);
  }
  return out;
}

/** Fails early, with the path, when an output file cannot be created. */
export function checkOutputPath(option: string, path: string): void {
  const dir = dirname(resolve(path));
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new PlanError(`${option}${path}: directory ${dir} does not exist`);
  }
  if (existsSync(path) && statSync(path).isDirectory()) throw new PlanError(`${option}${path}: is a directory, expected a file`);
}

/** A sink's final rows, encoded as JSON objects. */
export function encodeFinal(graph: JobGraph, sinkName: string, collector: FinalCollector): Record<string, JsonValue>[] {
  const sink = graph.sinks.find((s) => s.name === sinkName) as JobSink;
  const encode = createRowEncoder(sink.schema);
  return collector.view.rows().map((r) => encode(r));
}

/** What the summary line reports. */
export interface SummaryCounts {
  readonly recordsRead: number;
  readonly elapsedMs: number;
  readonly sinks: ReadonlyMap<string, { readonly rowsWritten: number }>;
  /** Rows too late for every window (counted whether or not a late sink took them). */
  readonly lateRecords?: number;
  readonly sideOutputRows?: { readonly routed: number; readonly dropped: number };
  /** Lookup cache counters, when the job has lookup joins. */
  readonly lookupCache?: { readonly hits: number; readonly misses: number };
}

/** `flambda: read N records (k dead-lettered) in s (rate); sink '…': n changelog rows`. */
export function summaryLine(result: SummaryCounts, deadLetters: ReadonlyMap<string, number>): string {
  const dead = [...deadLetters.values()].reduce((a, b) => a + b, 0);
  const secs = (result.elapsedMs / 1000).toFixed(2);
  const rate = result.elapsedMs > 0 ? Math.round((result.recordsRead * 1000) / result.elapsedMs) : result.recordsRead;
  const sinks = [...result.sinks].map(([n, s]) => `sink '${n}': ${s.rowsWritten} changelog rows`).join(', ');
  const late = result.lateRecords ?? 0;
  const side = result.sideOutputRows ?? { routed: 0, dropped: 0 };
  // Late rows are never lost silently: say how many there were and how many no sink took.
  const lateText = late > 0 ? `; ${late} late rows (${side.routed} to late sinks, ${side.dropped} dropped)` : side.dropped > 0 ? `; ${side.dropped} side-output rows dropped` : '';
  return `flambda: read ${result.recordsRead} records${dead > 0 ? ` (${dead} dead-lettered)` : ''} in ${secs} s (${rate} records/s); ${sinks}${lateText}${lookupText(result.lookupCache)}`;
}

/** `; lookup cache: 40 hits, 10 misses (hit rate 80.0 %)`, when the job has lookup joins. */
function lookupText(cache: SummaryCounts['lookupCache']): string {
  if (cache === undefined) return '';
  const total = cache.hits + cache.misses;
  const rate = total === 0 ? '-' : `${((cache.hits * 100) / total).toFixed(1)} %`;
  return `; lookup cache: ${cache.hits} hits, ${cache.misses} misses (hit rate ${rate})`;
}
