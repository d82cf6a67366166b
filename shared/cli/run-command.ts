/**
 * `flambda run <pipeline> --input <source>=<file.jsonl> … [--parallelism N] [--final <file>]
 * [--changelog <file>] [--dead-letter <file>] [--table] [--quiet]`
 */
import { writeFileSync, createWriteStream } from 'node:fs';
import type { JsonValue } from '../core/codec.ts';
import type { ErrorPolicy } from '../core/errors.ts';
import type { Pipeline } from '../api/pipeline.ts';
import type { JobGraph, JobSink } from '../plan/job-graph.ts';
import { runEmbeddedJob, type DeadLetter, type JobProgress } from '../runtime/embedded/embedded-runtime.ts';
import type { JobProbe } from '../runtime/job-probe.ts';
import { formatStages } from './explain-command.ts';
import { createDisplayEncoder, JsonlChangelogWriter, type SinkObserver } from '../runtime/embedded/sinks.ts';
import { FinalCollector, bindInputs, bindSinkFiles, checkOutputPath, describeSchema, encodeFinal, summaryLine } from './bindings.ts';
import { loadPipelineWithOutputs } from './load-pipeline.ts';
import { renderTable } from './table.ts';
import { openJobPage, type JobPage } from '../ui/job-page.ts';

/** Options of the run command, as parsed by the CLI. */
export interface RunOptions {
  readonly input: readonly string[];
  readonly parallelism: number;
  readonly final?: readonly string[];
  readonly changelog?: readonly string[];
  readonly deadLetter?: string;
  /** Overrides the pipeline's error policy. */
  readonly errorPolicy?: ErrorPolicy;
  readonly table?: boolean;
  readonly quiet?: boolean;
  readonly printLimit?: number;
  readonly batchSize?: number;
  /** Print the plan (and the Top-N strategy the planner chose) before running. */
  readonly explain?: boolean;
  /** Print the current result table every this many input records. */
  readonly liveEvery?: number;
  /** Serve the live job page while the job runs and after it ends, until Ctrl-C. */
  readonly ui?: boolean;
  /** Port of the job page (0: a free one). */
  readonly port?: number;
}

/** Streams the CLI writes to; injectable for tests. */
export interface CliIo {
  /** Where `flambda sql` reads statements. @default process.stdin */
  readonly stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/** Runs a pipeline module on the embedded runtime; returns the process exit code. */
export async function runCommand(file: string, options: RunOptions, io: CliIo): Promise<number> {
  const { pipeline, outputs } = await loadPipelineWithOutputs(
    file,
    (warning) => io.stderr.write(`flambda: warning: ${warning}\n`),
    (line) => io.stderr.write(`flambda: ${line}\n`),
  );
  // A script's EXPLAIN, SHOW and DESCRIBE statements print, as Flink's SQL client executing the script does.
  for (const text of outputs) io.stdout.write(`${text}\n\n`);
  if (pipeline === undefined) return 0;
  const graph = pipeline.jobGraph({ parallelism: options.parallelism, ...(options.errorPolicy !== undefined ? { errorPolicy: options.errorPolicy } : {}) });
  const inputs = bindInputs(graph, options.input);
  const finals = bindSinkFiles('--final', graph, options.final ?? []);
  const changelogs = bindSinkFiles('--changelog', graph, options.changelog ?? []);
  // Check every output path before the job runs, so a typo does not cost a whole run.
  for (const [sink, path] of finals) checkOutputPath(`--final ${sink}=`, path);
  for (const [sink, path] of changelogs) checkOutputPath(`--changelog ${sink}=`, path);
  if (options.deadLetter) checkOutputPath('--dead-letter ', options.deadLetter);
  const collectors = new Map<string, FinalCollector>();
  const observers = new Map<string, SinkObserver[]>();
  const observe = (sink: string, o: SinkObserver): void => {
    observers.set(sink, [...(observers.get(sink) ?? []), o]);
  };
  if (options.explain) {
    io.stdout.write(`== Physical Plan ==\n${pipeline.explain()}\n\n== Stages ==\n${formatStages(graph)}\n\n`);
  }
  const everySink = options.table || options.liveEvery !== undefined;
  const wantsFinal = new Set([...finals.keys(), ...(everySink ? graph.sinks.map((s) => s.name) : [])]);
  for (const sink of graph.sinks) {
    if (wantsFinal.has(sink.name)) {
      const collector = new FinalCollector(sink);
      collectors.set(sink.name, collector);
      observe(sink.name, collector);
    }
    const changelogFile = changelogs.get(sink.name);
    if (changelogFile) observe(sink.name, new JsonlChangelogWriter(sink.schema, changelogFile));
  }

  const page = options.ui ? await openJobPage(graph, 'embedded', options.port ?? 0, (line) => io.stderr.write(`${line}\n`)) : undefined;
  if (page) for (const sink of graph.sinks) observe(sink.name, page.monitor.sinkObserver(sink.name));
  const deadLetters = new Map<string, number>();
  /** Records a source could not decode, by source (the schema-mismatch check below). */
  const undecodable = new Map<string, number>();
  const firstReasons: string[] = [];
  const deadLetterOut = options.deadLetter ? createWriteStream(options.deadLetter) : undefined;
  const progress = progressPrinter(io, options.quiet ?? false);
  let nextLive = options.liveEvery ?? Infinity;
  const onProgress = (p: JobProgress): void => {
    progress.update(p);
    if (p.recordsRead >= nextLive) {
      while (nextLive <= p.recordsRead) nextLive += options.liveEvery as number;
      for (const sink of graph.sinks) {
        const collector = collectors.get(sink.name) as FinalCollector;
        io.stdout.write(`\n-- ${sink.name} after ${p.recordsRead} records --\n${renderSinkTable(sink, collector, 10)}\n`);
      }
    }
  };
  let result: Awaited<ReturnType<typeof runEmbeddedJob>>;
  try {
    result = await runEmbeddedJob(graph, {
    inputs,
    code: { functions: pipeline.userFunctions, generators: pipeline.generators },
    ...(options.batchSize ? { batchSize: options.batchSize } : {}),
    sinkSetup: {
      quiet: options.quiet ?? false,
      printTo: io.stdout,
      ...(options.printLimit !== undefined ? { printLimit: options.printLimit } : {}),
    },
    observers,
    onDeadLetter: (letter: DeadLetter) => {
      deadLetters.set(letter.source, (deadLetters.get(letter.source) ?? 0) + 1);
      if (letter.operator === undefined) undecodable.set(letter.source, (undecodable.get(letter.source) ?? 0) + 1);
      // Decoding errors name their position already; an operator's error is about the value.
      if (firstReasons.length < 5) firstReasons.push(letter.reason.startsWith(letter.position) ? letter.reason : `${letter.position}: ${letter.reason} (${letter.operator ?? letter.source})`);
      deadLetterOut?.write(`${JSON.stringify(letter)}\n`);
      page?.monitor.deadLetter({ source: letter.source, position: letter.position, reason: letter.reason, raw: letter.raw });
    },
    onProgress,
    // Live tables need a look after every batch; the progress line throttles itself.
    ...(options.liveEvery !== undefined ? { progressIntervalMs: 0 } : {}),
    ...(page ? { onStart: (probe: JobProbe) => page.monitor.attach(probe), signal: page.stop } : {}),
    });
  } catch (error) {
    progress.done();
    if (page === undefined) throw error;
    return failedWithPage(page, error, io);
  }
  progress.done();
  if (deadLetterOut) await new Promise<void>((resolve) => deadLetterOut.end(resolve));

  for (const [sinkName, path] of finals) {
    const collector = collectors.get(sinkName) as FinalCollector;
    writeFileSync(path, `${JSON.stringify(encodeFinal(graph, sinkName, collector), null, 1)}\n`);
  }
  if (options.table) printTables(graph, collectors, io, pipeline);
  const summary = summaryLine(result, deadLetters);
  io.stderr.write(`${summary}\n`);
  for (const reason of firstReasons) io.stderr.write(`  dead letter: ${reason}\n`);
  if (page) {
    page.monitor.finished({ summary: summary.replace(/^flambda: /, ''), recordsRead: result.recordsRead, deadLettered: result.deadLettered, elapsedMs: result.elapsedMs });
    await page.serveUntilStopped();
  }

  // A source whose every record was rejected is bound to the wrong file or schema: fail loudly.
  for (const [source, bad] of undecodable) {
    if ((result.recordsBySource.get(source) ?? 0) === 0) {
      io.stderr.write(
        `flambda: error: schema mismatch: none of the ${bad} records of source '${source}' matched its schema ` +
          `(${describeSchema(graph, source)}); first error: ${firstReasons[0] ?? ''}\n`,
      );
      return 1;
    }
  }
  return 0;
}

/** A job with a page failed or was stopped: the page shows why and stays until Ctrl-C. */
async function failedWithPage(page: JobPage, error: unknown, io: CliIo): Promise<number> {
  const stopped = page.stop.aborted;
  page.monitor.failed(error, stopped);
  if (!stopped) io.stderr.write(`flambda: error: ${error instanceof Error ? error.message : String(error)}\n`);
  await page.serveUntilStopped();
  return stopped ? 130 : 1;
}

function printTables(graph: JobGraph, collectors: ReadonlyMap<string, FinalCollector>, io: CliIo, pipeline: Pipeline): void {
  for (const sink of graph.sinks) {
    const collector = collectors.get(sink.name);
    if (!collector) continue;
    io.stdout.write(`\nFinal result of ${pipeline.name} → sink '${sink.name}' (${collector.view.size} rows)\n`);
    io.stdout.write(`${renderSinkTable(sink, collector, 50)}\n`);
  }
}

/**
 * A sink's current rows as a table, at most `limit` of them. Rows are sorted by the sink's key
 * columns (e.g. a rank number) when it has one, else by all columns, so the table reads like a
 * leaderboard where there is one.
 */
function renderSinkTable(sink: JobSink, collector: FinalCollector, limit: number): string {
  const columns = sink.schema.fields.map((f) => f.name);
  const sortBy = [...(sink.upsertKey ?? []), ...columns];
  // As the print sink shows them: a TIMESTAMP_LTZ in the session time zone the sink carries.
  const encode = createDisplayEncoder(sink.schema, sink.connector.type === 'print' ? sink.connector.timeZone : undefined);
  const rows = collector.view.rows().map((r) => encode(r)).sort((a, b) => compareJsonRows(a, b, sortBy));
  const more = rows.length > limit ? `\n… ${rows.length - limit} more rows (use --final <file> to get them all)` : '';
  return `${renderTable(columns, rows.slice(0, limit))}${more}`;
}

/** Orders rows by their columns left to right (numbers numerically, NULLs first) for display. */
function compareJsonRows(a: Record<string, JsonValue>, b: Record<string, JsonValue>, columns: readonly string[]): number {
  for (const c of columns) {
    const x = a[c] ?? null;
    const y = b[c] ?? null;
    if (x === y) continue;
    if (x === null) return -1;
    if (y === null) return 1;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return 0;
}

/** Prints a progress line on stderr: rewritten in place on a terminal, every few seconds otherwise. */
function progressPrinter(io: CliIo, quiet: boolean): { update: (p: { recordsRead: number; deadLettered: number; elapsedMs: number }) => void; done: () => void } {
  const tty = io.stderr.isTTY === true;
  let shown = false;
  let lastLine = 0;
  return {
    update: (p) => {
      if (quiet) return;
      const line = `processed ${p.recordsRead} records (${p.deadLettered} dead-lettered), ${(p.elapsedMs / 1000).toFixed(1)} s`;
      if (tty) {
        io.stderr.write(`\r${line}`);
        shown = true;
      } else if (p.elapsedMs - lastLine >= 5000) {
        lastLine = p.elapsedMs;
        io.stderr.write(`${line}\n`);
      }
    },
    done: () => {
      if (shown) io.stderr.write('\n');
    },
  };
}
