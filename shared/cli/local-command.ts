/**
 * `flambda local <pipeline> --input <source>=<file.jsonl> … [--parallelism N] [--final <file>]
 * [--changelog <file>] [--dead-letter <file>] [--error-policy dead-letter|fail] [--quiet]`: runs a pipeline the AWS way — Kinesis streams, one stage
 * handler per stage fed by a local event source mapping, state in DynamoDB — against emulators
 * started in-process (kinesalite, dynalite), or against the endpoints configured in the
 * environment. See shared/aws/local/local-job.ts.
 */
import { createWriteStream, writeFileSync } from 'node:fs';
import { FlambdaError, PlanError, type ErrorPolicy } from '../core/errors.ts';
import type { JobGraph } from '../plan/job-graph.ts';
import { runLocalJob, type LocalStageReport } from '../aws/local/local-job.ts';
import { awsDimensionSources } from '../aws/lookup/dimension-sources.ts';
import { createSink, JsonlChangelogWriter, type SinkInstance } from '../runtime/embedded/sinks.ts';
import { FinalCollector, bindInputs, bindSinkFiles, checkOutputPath, describeSchema, encodeFinal, summaryLine } from './bindings.ts';
import { loadPipelineWithOutputs } from './load-pipeline.ts';
import type { CliIo } from './run-command.ts';
import type { StageHandler } from '../aws/handler/stage-handler.ts';
import { localBilling } from '../aws/local/local-billing.ts';
import { localProbe } from '../aws/local/local-probe.ts';
import { openJobPage } from '../ui/job-page.ts';
import { requireBoundedGenerator } from '../runtime/generator-rows.ts';

/** Options of the local command, as parsed by the CLI. */
export interface LocalOptions {
  readonly input: readonly string[];
  readonly parallelism: number;
  readonly final?: readonly string[];
  readonly changelog?: readonly string[];
  /** Write dead letters here as JSON lines (as `flambda run --dead-letter` does). */
  readonly deadLetter?: string;
  /** Overrides the pipeline's error policy. */
  readonly errorPolicy?: ErrorPolicy;
  readonly quiet?: boolean;
  readonly printLimit?: number;
  readonly batchSize?: number;
  /** Serve the live job page while the job runs and after it ends, until Ctrl-C. */
  readonly ui?: boolean;
  /** Port of the job page (0: a free one). */
  readonly port?: number;
}

/** Runs a pipeline module on the local AWS runtime; returns the process exit code. */
export async function localCommand(file: string, options: LocalOptions, io: CliIo): Promise<number> {
  const { pipeline, outputs } = await loadPipelineWithOutputs(
    file,
    (warning) => io.stderr.write(`flambda: warning: ${warning}\n`),
    (line) => io.stderr.write(`flambda: ${line}\n`),
  );
  for (const text of outputs) io.stdout.write(`${text}\n\n`);
  if (pipeline === undefined) return 0;
  const graph = pipeline.jobGraph({ parallelism: options.parallelism, ...(options.errorPolicy !== undefined ? { errorPolicy: options.errorPolicy } : {}) });
  const bound = localInputs(graph, options.input);
  // Sources go into Kinesis streams; JSON-lines lookup tables are read by the stage handlers.
  const inputs = new Map([...bound].filter(([name]) => graph.sources.some((s) => s.name === name)));
  const lookupFiles = new Map([...bound].filter(([name]) => !inputs.has(name)));
  const finals = bindSinkFiles('--final', graph, options.final ?? []);
  const changelogs = bindSinkFiles('--changelog', graph, options.changelog ?? []);
  for (const [sink, path] of finals) checkOutputPath(`--final ${sink}=`, path);
  for (const [sink, path] of changelogs) checkOutputPath(`--changelog ${sink}=`, path);
  if (options.deadLetter) checkOutputPath('--dead-letter ', options.deadLetter);
  const deadLetterOut = options.deadLetter ? createWriteStream(options.deadLetter) : undefined;

  const sinks = new Map<string, SinkInstance>();
  const collectors = new Map<string, FinalCollector>();
  for (const spec of graph.sinks) {
    // Print sinks print (unless --quiet); jsonl sinks write their file; others only count.
    const sink = createSink(spec, { quiet: options.quiet ?? false, printTo: io.stdout, ...(options.printLimit !== undefined ? { printLimit: options.printLimit } : {}) });
    if (finals.has(spec.name)) {
      const collector = new FinalCollector(spec);
      collectors.set(spec.name, collector);
      sink.observers.push(collector);
    }
    const changelogFile = changelogs.get(spec.name);
    if (changelogFile) sink.observers.push(new JsonlChangelogWriter(spec.schema, changelogFile));
    sinks.set(spec.name, sink);
  }

  const deadLetters = new Map<string, number>();
  /** Records a source stage could not decode, by source (the schema-mismatch check below). */
  const undecodable = new Map<string, number>();
  const firstReasons: string[] = [];
  const quiet = options.quiet ?? false;
  const page = options.ui ? await openJobPage(graph, 'local', options.port ?? 0, (line) => io.stderr.write(`${line}\n`)) : undefined;
  const meters = page ? localBilling() : undefined;
  let result;
  try {
    result = await runLocalJob({
      graph,
      code: { functions: pipeline.userFunctions, generators: pipeline.generators, lookupSources: awsDimensionSources({ jsonlPaths: lookupFiles }) },
      inputs,
      ...(options.batchSize !== undefined ? { batchSize: options.batchSize } : {}),
      sink: (name, rows) => {
        sinks.get(name)?.write(rows);
        page?.monitor.sinkWrite(name, rows, 0);
      },
      onDeadLetters: (letters, source) => {
        for (const letter of letters) {
          const key = source ?? `stage ${letter.stage}`;
          deadLetters.set(key, (deadLetters.get(key) ?? 0) + 1);
          if (source !== undefined && letter.kind !== 'data-error') undecodable.set(source, (undecodable.get(source) ?? 0) + 1);
          if (firstReasons.length < 5) firstReasons.push(letter.reason);
          // A source stage's record is an input line (partition key = its line number): file:line,
          // as in `run`; or a generated row, whose partition key is its position (`values_1#3`).
          const file = source === undefined ? undefined : inputs.get(source);
          const generated = source !== undefined && graph.sources.some((s) => s.name === source && s.connector.type === 'generator');
          const position =
            letter.kind === 'skipped-range' || (file === undefined && !generated)
              ? `${letter.stream}/${letter.shardId}@${letter.sequenceNumber}`
              : file !== undefined
                ? `${file}:${letter.partitionKey}`
                : letter.partitionKey;
          const raw = Buffer.from(letter.data, 'base64').toString('utf8');
          deadLetterOut?.write(
            `${JSON.stringify({ ...(source !== undefined ? { source } : {}), stage: letter.stage, kind: letter.kind, position, reason: letter.reason, raw, ...(letter.operator !== undefined ? { operator: letter.operator } : {}) })}\n`,
          );
          page?.monitor.deadLetter({
            ...(source !== undefined ? { source } : {}),
            stage: letter.stage,
            position,
            reason: letter.reason,
            raw,
          });
        }
      },
      // The page shows billed units and $ per 1,000 events: meter the handlers' clients.
      ...(page && meters
        ? { handlerSetup: meters.handlerSetup, onHandlers: (handlers: ReadonlyMap<string, StageHandler>) => page.monitor.attach(localProbe(handlers, meters.billing)), signal: page.stop }
        : {}),
      onEndpoints: (e) => {
        if (!quiet) io.stderr.write(`flambda local: Kinesis at ${e.kinesis}, DynamoDB at ${e.dynamoDb}\n`);
      },
      onStageDrained: (report) => {
        if (!quiet) io.stderr.write(`${stageLine(report)}\n`);
      },
    });
  } catch (error) {
    for (const sink of sinks.values()) await sink.close();
    if (deadLetterOut) await new Promise<void>((resolve) => deadLetterOut.end(resolve));
    // AWS SDK errors (an endpoint that does not answer, a denied call) get the CLI's error format.
    const failure = error instanceof FlambdaError ? error : new FlambdaError(`local run failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`, 'external', 'fail', { cause: error });
    if (page === undefined) throw failure;
    const stopped = page.stop.aborted;
    page.monitor.failed(failure, stopped);
    if (!stopped) io.stderr.write(`flambda: error: ${failure.message}\n`);
    await page.serveUntilStopped();
    return stopped ? 130 : 1;
  }
  for (const sink of sinks.values()) await sink.close();
  if (deadLetterOut) await new Promise<void>((resolve) => deadLetterOut.end(resolve));

  for (const [sinkName, path] of finals) {
    writeFileSync(path, `${JSON.stringify(encodeFinal(graph, sinkName, collectors.get(sinkName) as FinalCollector), null, 1)}\n`);
  }
  const summary = summaryLine(result, deadLetters);
  io.stderr.write(`${summary}\n`);
  for (const reason of firstReasons) io.stderr.write(`  dead letter: ${reason}\n`);
  for (const error of result.errors.slice(0, 3)) {
    io.stderr.write(`  retried after: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  if (page) {
    page.monitor.finished({ summary: summary.replace(/^flambda: /, ''), recordsRead: result.recordsRead, elapsedMs: result.elapsedMs });
    await page.serveUntilStopped();
  }
  for (const source of graph.sources) {
    const bad = undecodable.get(source.name) ?? 0;
    if (bad > 0 && bad >= (result.recordsBySource.get(source.name) ?? 0)) {
      io.stderr.write(
        `flambda: error: schema mismatch: none of the ${bad} records of source '${source.name}' matched its schema ` +
          `(${describeSchema(graph, source.name)}); first error: ${firstReasons[0] ?? ''}\n`,
      );
      return 1;
    }
  }
  return 0;
}

/**
 * `--input` bindings, else a jsonl source's own path; generator sources (VALUES, datagen) need
 * none: their producer puts their rows (shared/aws/local/local-job.ts).
 */
function localInputs(graph: JobGraph, bindings: readonly string[]): Map<string, string> {
  const inputs = bindInputs(graph, bindings);
  for (const source of graph.sources) {
    if (inputs.has(source.name)) continue;
    const c = source.connector;
    if (c.type === 'jsonl' && c.path !== undefined) inputs.set(source.name, c.path);
    else if (c.type === 'generator') requireBoundedGenerator(source, 'flambda local');
    else {
      throw new PlanError(
        `source '${source.name}' is a ${c.type} source; flambda local reads Kinesis streams filled from files: pass --input ${source.name}=<file.jsonl>`,
      );
    }
  }
  return inputs;
}

function stageLine(r: LocalStageReport): string {
  const ops = r.stage.operators.map((o) => o.type).join(' → ') || 'no operators';
  const out = r.stage.output.type === 'sink' ? `sink '${r.stage.output.sink}'` : `exchange to ${r.stage.output.toStage}`;
  const extra = [
    r.deadLetters > 0 ? `${r.deadLetters} dead-lettered` : '',
    r.failedBatches > 0 ? `${r.failedBatches} batches retried` : '',
    r.discardedRecords > 0 ? `${r.discardedRecords} records discarded` : '',
  ].filter((s) => s !== '');
  return (
    `stage ${r.stage.id} (${ops}, ${r.stage.parallelism} shard${r.stage.parallelism === 1 ? '' : 's'}) drained: ` +
    `${r.records} records in, ${r.outputRows} rows to ${out}${extra.length > 0 ? `, ${extra.join(', ')}` : ''} (${(r.elapsedMs / 1000).toFixed(1)} s)`
  );
}
