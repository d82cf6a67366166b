/**
 * The `flambda` command line: `run`, `local`, `explain`, `sql`, `nexmark` and `bench`. Every failure prints
 * `flambda: error: <what is wrong and what was expected>` and exits non-zero.
 */
import { Command, CommanderError, Option } from 'commander';
import { FlambdaError, PlanError, parseErrorPolicy, type ErrorPolicy } from '../core/errors.ts';
import { parsePositiveInt } from './args.ts';
import { benchCommand } from './bench-command.ts';
import { explainCommand } from './explain-command.ts';
import { nexmarkCommand } from './nexmark-command.ts';
import { runCommand, type CliIo } from './run-command.ts';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `--ui` and `--port`: the port needs the page. */
function uiOptions(opts: Record<string, unknown>): { ui?: boolean; port?: number } {
  if (opts.port !== undefined && !opts.ui) throw new PlanError('--port sets the job page\'s port: give --ui too');
  return opts.ui ? { ui: true, ...(opts.port !== undefined ? { port: parsePositiveInt('--port', opts.port as string, 65_535) } : {}) } : {};
}

/** `--error-policy`: overrides the pipeline's `'pipeline.error-policy'`. */
function errorPolicyOption(opts: Record<string, unknown>): { errorPolicy?: ErrorPolicy } {
  return opts.errorPolicy === undefined ? {} : { errorPolicy: parseErrorPolicy(opts.errorPolicy as string, '--error-policy') };
}

/** Runs the CLI with `argv` (without the node and script names); resolves to the exit code. */
export async function main(argv: readonly string[], io: CliIo = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  let exitCode = 0;
  const program = new Command('flambda')
    .description('Flink-style stateful stream processing on AWS serverless, and embedded.')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: (s, write) => write(s.startsWith('error:') ? `flambda: ${s}` : s),
    });

  program
    .command('run')
    .description('run a pipeline on the embedded runtime over bounded JSONL inputs')
    .argument('<pipeline>', 'pipeline module (.ts or .js) whose default export is a Pipeline')
    .option('-i, --input <source=file>', 'bind a source, or a JSON-lines lookup table, to a JSON-lines file (repeatable)', collect, [])
    .option('-p, --parallelism <n>', 'shards per stage', '1')
    .option('--final <[sink=]file>', "write the sink's final materialized rows as a JSON array (repeatable)", collect, [])
    .option('--changelog <[sink=]file>', 'write every changelog row as a JSON line with an "op" field (repeatable)', collect, [])
    .option('--dead-letter <file>', 'write rejected records as JSON lines with the reason and position')
    .option('--error-policy <policy>', "a record that fails with a data error: 'dead-letter' it and go on, or 'fail' the job (overrides 'pipeline.error-policy')")
    .option('--table', 'print the final result of every sink as a table')
    .option('-q, --quiet', 'no print-sink output and no progress line')
    .option('--print-limit <n>', 'print at most n changelog rows per print sink')
    .option('--explain', 'print the plan, including the Top-N strategy the planner chose, before running')
    .option('--live-every <n>', 'print the current result of every sink after each n input records')
    .addOption(new Option('--batch-size <n>', 'records per source batch').default('1024'))
    .option('--ui', 'serve the live job page on 127.0.0.1 while the job runs and after it ends, until Ctrl-C')
    .option('--port <n>', 'port of the job page (default: a free port)')
    .action(async (file: string, opts: Record<string, unknown>) => {
      exitCode = await runCommand(
        file,
        {
          input: opts.input as string[],
          parallelism: parsePositiveInt('--parallelism', opts.parallelism as string, 10_000),
          final: opts.final as string[],
          changelog: opts.changelog as string[],
          ...(opts.deadLetter ? { deadLetter: opts.deadLetter as string } : {}),
          ...errorPolicyOption(opts),
          table: Boolean(opts.table),
          quiet: Boolean(opts.quiet),
          ...(opts.printLimit !== undefined ? { printLimit: parsePositiveInt('--print-limit', opts.printLimit as string) } : {}),
          ...(opts.liveEvery !== undefined ? { liveEvery: parsePositiveInt('--live-every', opts.liveEvery as string) } : {}),
          explain: Boolean(opts.explain),
          batchSize: parsePositiveInt('--batch-size', opts.batchSize as string, 1_000_000),
          ...uiOptions(opts),
        },
        io,
      );
    });

  program
    .command('local')
    .description('run a pipeline the AWS way (Kinesis streams, one stage handler per stage, DynamoDB state) on local emulators')
    .argument('<pipeline>', 'pipeline module (.ts or .js) whose default export is a Pipeline')
    .option('-i, --input <source=file>', 'put a JSON-lines file into the source\'s Kinesis stream, one record per line, or bind a JSON-lines lookup table (repeatable)', collect, [])
    .option('-p, --parallelism <n>', 'shards per stage (and per stream)', '1')
    .option('--final <[sink=]file>', "write the sink's final materialized rows as a JSON array (repeatable)", collect, [])
    .option('--changelog <[sink=]file>', 'write every changelog row as a JSON line with an "op" field (repeatable)', collect, [])
    .option('--dead-letter <file>', 'write rejected records as JSON lines with the reason and position')
    .option('--error-policy <policy>', "a record that fails with a data error: 'dead-letter' it and go on, or 'fail' the job (overrides 'pipeline.error-policy')")
    .option('-q, --quiet', 'no print-sink output and no progress lines')
    .option('--print-limit <n>', 'print at most n changelog rows per print sink')
    .addOption(new Option('--batch-size <n>', 'records per handler invocation (the mapping\'s BatchSize)').default('500'))
    .option('--ui', 'serve the live job page on 127.0.0.1 while the job runs and after it ends, until Ctrl-C')
    .option('--port <n>', 'port of the job page (default: a free port)')
    .addHelpText(
      'after',
      `
Starts kinesalite and dynalite in-process on 127.0.0.1 (free ports) and closes them at the end,
unless AWS_ENDPOINT_URL_KINESIS / AWS_ENDPOINT_URL_DYNAMODB (or AWS_ENDPOINT_URL) name endpoints
to use instead. Creates a stream per source (shards = the source stage's parallelism), a stream
per exchange (shards = the next stage's parallelism) and the state table; puts every input line
as a record (partition key = line number), and the rows of generator sources (VALUES, datagen
with 'number-of-rows') as a deployed producer does (partition key = the row's position,
values_1#3), each source ending with a +inf watermark heartbeat; runs one local event source
mapping and stage handler per stage until each has drained, upstream first, printing a line per
stage. Delivery is effectively once.

Limits: an unbounded datagen table (no 'number-of-rows') is refused; kinesis/dynamodb sinks,
--table and --live-every are not supported.`,
    )
    .action(async (file: string, opts: Record<string, unknown>) => {
      // Loaded on demand: `local` needs the AWS SDK, which `run` must not load.
      const { localCommand } = await import('./local-command.ts');
      exitCode = await localCommand(
        file,
        {
          input: opts.input as string[],
          parallelism: parsePositiveInt('--parallelism', opts.parallelism as string, 1_000),
          final: opts.final as string[],
          changelog: opts.changelog as string[],
          ...(opts.deadLetter ? { deadLetter: opts.deadLetter as string } : {}),
          ...errorPolicyOption(opts),
          quiet: Boolean(opts.quiet),
          ...(opts.printLimit !== undefined ? { printLimit: parsePositiveInt('--print-limit', opts.printLimit as string) } : {}),
          batchSize: parsePositiveInt('--batch-size', opts.batchSize as string, 10_000),
          ...uiOptions(opts),
        },
        io,
      );
    });

  program
    .command('explain')
    .description('print the plan (Flink style) and the stages of the job graph')
    .argument('<pipeline>', 'pipeline module (.ts or .js)')
    .option('-p, --parallelism <n>', 'shards per stage', '1')
    .option('--changelog-mode', 'show the changelog mode of every node')
    .option('--json', 'print the job graph as JSON')
    .option('--cost-rate <events/s>', 'append the monthly cost at this rate, per stage and operator, beside Managed Flink (runs a sample on the local emulators)')
    .action(async (file: string, opts: Record<string, unknown>) => {
      exitCode = await explainCommand(
        file,
        {
          parallelism: parsePositiveInt('--parallelism', opts.parallelism as string, 10_000),
          changelogMode: Boolean(opts.changelogMode),
          json: Boolean(opts.json),
          ...(opts.costRate !== undefined ? { costRate: parsePositiveInt('--cost-rate', opts.costRate as string, 100_000_000) } : {}),
        },
        io,
      );
    });

  program
    .command('cost')
    .description('monthly AWS cost of a pipeline at a rate, per stage and operator, beside Managed Service for Apache Flink (from a sample run on the local emulators)')
    .argument('<pipeline>', 'pipeline module (.ts or .js) or SQL script')
    .requiredOption('--rate <events/s>', 'average input events per second')
    .option('--event-bytes <n>', 'bytes per input event', '1024')
    .option('--keys <n>', 'distinct values per column of generated sample input', '10000')
    .option('--sample <n>', 'events of the sample run', '5000')
    .option('-i, --input <name=file>', 'sample input of a source or lookup table (repeatable; else generated)', collect, [])
    .action(async (file: string, opts: Record<string, unknown>) => {
      const { costCommand } = await import('./cost-command.ts');
      const rate = Number(opts.rate);
      if (!(Number.isFinite(rate) && rate > 0)) throw new FlambdaError(`--rate must be a positive number of events per second (given ${String(opts.rate)})`, 'user', 'fail');
      exitCode = await costCommand(
        file,
        {
          rate,
          eventBytes: parsePositiveInt('--event-bytes', opts.eventBytes as string, 1024 * 1024),
          keys: parsePositiveInt('--keys', opts.keys as string),
          sample: parsePositiveInt('--sample', opts.sample as string, 10_000_000),
          input: opts.input as string[],
        },
        io,
      );
    });

  program
    .command('bench')
    .description('run a benchmark suite (passthrough, group-agg, topn, windows, state-io, aws-cost, nexmark, lookup, lookup-l2)')
    .argument('<suite>', 'suite name')
    .option('--json', 'one JSON object per result line')
    .option('--events <n>', 'input events per case')
    .option('--query <qN>', 'suite nexmark: measure this query only (and q0, for ratio_to_q0)')
    .action(async (suite: string, opts: Record<string, unknown>) => {
      exitCode = await benchCommand(
        suite,
        {
          json: Boolean(opts.json),
          ...(opts.events !== undefined ? { events: parsePositiveInt('--events', opts.events as string) } : {}),
          ...(opts.query !== undefined ? { query: opts.query as string } : {}),
        },
        io,
      );
    });

  program
    .command('sql')
    .description("an interactive SQL shell like Flink's SQL client (statements from a terminal, a pipe, or a script)")
    .argument('[script]', 'a .sql script to run first')
    .option('-i, --input <table=file>', "bind a table to a JSON-lines file, overriding its 'path' (repeatable)", collect, [])
    .option('-p, --parallelism <n>', 'shards per stage of the jobs the shell runs')
    .addHelpText(
      'after',
      `
Statements end with ';' and may span lines: CREATE TABLE / VIEW, DROP, SET, RESET, SELECT (a
live table; Ctrl-C stops the query), INSERT INTO (a background job: SHOW JOBS, STOP JOB '<id>'),
EXPLAIN, SHOW TABLES, DESCRIBE, HELP, QUIT. With statements piped in, the shell runs them in
order, prints each SELECT's final table, waits for running jobs at the end of input, and exits 1
if a statement failed.`,
    )
    .action(async (script: string | undefined, opts: Record<string, unknown>) => {
      const { sqlCommand } = await import('./sql-command.ts');
      exitCode = await sqlCommand(
        {
          ...(script !== undefined ? { script } : {}),
          input: opts.input as string[],
          ...(opts.parallelism !== undefined ? { parallelism: parsePositiveInt('--parallelism', opts.parallelism as string, 10_000) } : {}),
        },
        { stdin: io.stdin ?? process.stdin, stdout: io.stdout, stderr: io.stderr },
      );
    });

  nexmarkCommand(program, io, (code) => (exitCode = code));

  try {
    await program.parseAsync(argv as string[], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit with 0; usage errors were already printed by commander.
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof FlambdaError) {
      io.stderr.write(`flambda: error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
