/**
 * Runs a SQL script's job on both runtimes — the embedded runtime and the AWS runtime on
 * emulators (runLocalJob: Kinesis exchanges, stage handlers, DynamoDB state) — and returns each
 * one's final result as JSON text rows (the sink's encoder, so timestamps and decimals read as
 * Flink prints them), sorted, so a test can assert both equal one expected list.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLocalJob } from '../../shared/aws/local/local-job.ts';
import { createRowEncoder } from '../../shared/core/codec.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import type { JobGraph } from '../../shared/plan/job-graph.ts';
import { runEmbeddedJob } from '../../shared/runtime/embedded/embedded-runtime.ts';
import { MaterializedView } from '../../shared/runtime/materialized-view.ts';
import type { UserFunctionDefinition } from '../../shared/api/user-functions.ts';
import { compileSql } from '../../shared/sql/compile-sql.ts';

/** A directory of JSON-lines input files for one test file; `cleanup` removes it. */
export function inputDir(prefix: string): { file: (name: string, rows: readonly unknown[]) => string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `flambda-${prefix}-`));
  return {
    file: (name, rows) => {
      const path = join(dir, `${name}.jsonl`);
      writeFileSync(path, rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n');
      return path;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The final rows of the first sink as sorted JSON texts. */
export function finalRows(graph: JobGraph, changes: readonly ChangeRow[]): string[] {
  const sink = graph.sinks[0]!;
  const view = new MaterializedView({ ...(sink.upsertKey ? { key: sink.upsertKey } : {}), columns: sink.schema.fields.map((f) => f.name), strict: true });
  for (const c of changes) view.apply(c);
  const encode = createRowEncoder(sink.schema);
  return view
    .rows()
    .map((r) => JSON.stringify(encode(r)))
    .sort();
}

/** What a run produced: the final rows and the raw changelog of the first sink. */
export interface SqlRun {
  readonly rows: string[];
  readonly changes: readonly ChangeRow[];
  /** Dead-lettered records as `position: reason` (the position's path cut to the file name). */
  readonly deadLetters: string[];
}

/** `dir/name.jsonl:3: reason` → `name.jsonl:3: reason`. */
const shortLetter = (position: string | undefined, reason: string): string => {
  const text = position !== undefined && !reason.startsWith(position) ? `${position}: ${reason}` : reason;
  return text.replace(/^[^:]*\/([^/:]+:)/, '$1');
};

/**
 * Options of a run: tasks per stage, rows per batch, the user functions CREATE FUNCTION names,
 * and the processing-time clock (PROCTIME(), processing-time windows; default Date.now).
 */
export interface SqlRunOptions {
  parallelism?: number;
  batchSize?: number;
  functions?: ReadonlyMap<string, UserFunctionDefinition>;
  clock?: () => number;
}

/** Runs the script's job on the embedded runtime. */
export async function runEmbeddedSql(text: string, options: SqlRunOptions = {}): Promise<SqlRun> {
  const program = compileSql(text, options.functions ? { functions: options.functions } : {});
  const graph = program.pipeline.jobGraph({ parallelism: options.parallelism ?? 2 });
  const changes: ChangeRow[] = [];
  const deadLetters: string[] = [];
  await runEmbeddedJob(graph, {
    onDeadLetter: (letter) => deadLetters.push(shortLetter(letter.position, letter.reason)),
    code: { functions: program.pipeline.userFunctions, generators: program.pipeline.generators },
    observers: new Map([[graph.sinks[0]!.name, [{ write: (rows: readonly ChangeRow[]) => void changes.push(...rows) }]]]),
    batchSize: options.batchSize ?? 1,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return { rows: finalRows(graph, changes), changes, deadLetters };
}

/**
 * Runs the script's job on the AWS runtime over emulators; every source must name its file in
 * 'path' or be a generator source (VALUES, datagen), whose rows its producer puts.
 */
export async function runLocalSql(text: string, options: SqlRunOptions = {}): Promise<SqlRun> {
  const program = compileSql(text, options.functions ? { functions: options.functions } : {});
  const graph = program.pipeline.jobGraph({ parallelism: options.parallelism ?? 2 });
  const inputs = new Map<string, string>();
  for (const s of graph.sources) {
    if (s.connector.type === 'generator') continue;
    if (s.connector.type !== 'jsonl' || s.connector.path === undefined) throw new Error(`source '${s.name}' has no file`);
    inputs.set(s.name, s.connector.path);
  }
  const changes: ChangeRow[] = [];
  const deadLetters: string[] = [];
  const result = await runLocalJob({
    onDeadLetters: (letters) => deadLetters.push(...letters.map((l) => l.reason)),
    graph,
    code: { functions: program.pipeline.userFunctions, generators: program.pipeline.generators },
    inputs,
    sink: (name, rows) => {
      if (name === graph.sinks[0]!.name) changes.push(...rows);
    },
    batchSize: options.batchSize ?? 2,
    env: {},
    ...(options.clock ? { handlerSetup: { options: { clock: options.clock } } } : {}),
  });
  if (result.errors.length > 0) throw new Error(`handler errors: ${result.errors.map(String).join('; ')}`);
  return { rows: finalRows(graph, changes), changes, deadLetters };
}
