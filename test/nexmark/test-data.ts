/**
 * The project's own Nexmark test data: a small seeded data set made by our generator
 * (shared/nexmark/generator.ts) and written as the JSON-lines files `flambda run --input` reads,
 * with the expected final result of every example query computed by the plain-TypeScript
 * references in ./reference.ts. Tests use this instead of any data set outside the repository.
 *
 * The default set has the shape of a hand-sized fixture: 60 events at 2 events/s of event time
 * (52 bids over 27.5 s, 12 auctions, 10 bidders), so windows open, fire and overlap, sessions
 * merge and Top-N partitions fill, while every run stays in the milliseconds.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pipeline } from '../../shared/api/pipeline.ts';
import { createRowEncoder, type JsonValue } from '../../shared/core/codec.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import { formatTimestamp } from '../../shared/core/timestamp.ts';
import type { NexmarkOptions } from '../../shared/nexmark/config.ts';
import { generateTable } from '../../shared/nexmark/generator.ts';
import { NEXMARK_TABLES, type BidRow } from '../../shared/nexmark/schemas.ts';
import { nexmarkJsonLine } from '../../shared/nexmark/write-files.ts';
import { lookupTablesOf } from '../../shared/plan/job-graph.ts';
import { runEmbeddedJob } from '../../shared/runtime/embedded/embedded-runtime.ts';
import { MaterializedView } from '../../shared/runtime/materialized-view.ts';
import { REFERENCES, defaultSideInput, type RefRow } from './reference.ts';

/** The default test data set: 60 events, seed 1, 2 events per second of event time. */
export const SMALL_NEXMARK: NexmarkOptions = { events: 60, seed: 1, firstEventRate: 2 };

/** Result columns that hold TIMESTAMP(3) values (epoch ms in the engine, strings in JSON). */
const TIMESTAMP_COLUMNS = new Set(['date_time', 'window_start', 'window_end', 'starttime', 'endtime', 'expires']);

/** A written data set: the files, the bids in arrival order, and expected results. */
export interface NexmarkTestData {
  /** Directory holding `person.jsonl`, `auction.jsonl`, `bid.jsonl` and `side_input.jsonl`. */
  readonly dir: string;
  /** Absolute path of a table's JSON-lines file (`bid`, `person`, `auction`, `side_input`). */
  file(table: string): string;
  /** The bids in arrival order, in the engine's representation. */
  readonly bids: readonly BidRow[];
  /** The bid file's lines, in order. */
  readonly bidLines: readonly string[];
  /** The reference result of an example query (q5, q7, q11, q13, q15, q18, q19) as `--final` writes it. */
  expected(query: string): Record<string, JsonValue>[];
  /** The reference result in the engine's representation (timestamps as epoch ms). */
  reference(query: string): RefRow[];
}

const written = new Map<string, NexmarkTestData>();
const dirs: string[] = [];
process.on('exit', () => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/**
 * Generates `options`' events into a temporary directory (once per process and options; removed
 * when the process exits) and returns the data set.
 */
export function nexmarkTestData(options: NexmarkOptions = SMALL_NEXMARK): NexmarkTestData {
  const id = JSON.stringify(options);
  const known = written.get(id);
  if (known) return known;
  const dir = mkdtempSync(join(tmpdir(), 'flambda-nexmark-'));
  dirs.push(dir);
  const lines: Record<string, string[]> = {};
  for (const table of NEXMARK_TABLES) {
    lines[table] = [...generateTable(options, table)].map((row) => nexmarkJsonLine(row as unknown as Record<string, unknown>));
    writeFileSync(join(dir, `${table}.jsonl`), lines[table]!.map((l) => `${l}\n`).join(''));
  }
  const side = [...defaultSideInput()].map(([key, value]) => `${JSON.stringify({ key, value })}\n`);
  writeFileSync(join(dir, 'side_input.jsonl'), side.join(''));
  const bids = [...generateTable(options, 'bid')];
  const reference = (query: string): RefRow[] => {
    const run = REFERENCES[query];
    if (!run) throw new Error(`no reference for ${query}`);
    return run(bids);
  };
  const data: NexmarkTestData = {
    dir,
    file: (table) => join(dir, `${table}.jsonl`),
    bids,
    bidLines: lines['bid']!,
    reference,
    expected: (query) => reference(query).map(asJson),
  };
  written.set(id, data);
  return data;
}

/** A reference row as the CLI's `--final` writes it: TIMESTAMP columns as `YYYY-MM-DD HH:MM:SS.mmm`. */
export function asJson(row: RefRow): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(row)) out[k] = TIMESTAMP_COLUMNS.has(k) && typeof v === 'number' ? formatTimestamp(v) : v;
  return out;
}

/**
 * Runs `pipeline` on the embedded runtime with its sources and JSON-lines lookup tables bound by
 * name to `<dir>/<name>.jsonl` (as `--input name=path` does) and returns its first sink's final
 * rows, JSON-encoded.
 */
export async function runOnDir(pipeline: Pipeline, dir: string, parallelism: number, batchSize: number): Promise<Record<string, JsonValue>[]> {
  const graph = pipeline.jobGraph({ parallelism });
  const sink = graph.sinks[0]!;
  const view = new MaterializedView({ ...(sink.upsertKey ? { key: sink.upsertKey } : {}), columns: sink.schema.fields.map((f) => f.name), strict: true });
  const names = [...graph.sources.map((s) => s.name), ...[...lookupTablesOf(graph).values()].filter((t) => t.source.type === 'jsonl').map((t) => t.table)];
  const inputs = new Map(names.map((name) => [name, join(dir, `${name}.jsonl`)]));
  await runEmbeddedJob(graph, {
    inputs,
    code: { functions: pipeline.userFunctions, generators: pipeline.generators },
    batchSize,
    observers: new Map([[sink.name, [{ write: (rows: readonly ChangeRow[]) => rows.forEach((r) => view.apply(r)) }]]]),
  });
  const encode = createRowEncoder(sink.schema);
  return view.rows().map(encode);
}
