/**
 * `flambda nexmark generate --events N --seed S --out DIR [--rate R] [--out-of-order-ms MS] [--force]`:
 * writes `person.jsonl`, `auction.jsonl` and `bid.jsonl` of the Nexmark reference generator's
 * stream (shared/nexmark) in the fixture's format, streaming, with progress on stderr for large
 * runs, and q13's `side_input.jsonl`. DIR is created with its parents; existing files are an
 * error unless `--force`. Exported as a commander subcommand builder, registered in main.ts with
 * `nexmarkCommand(program, io, (code) => (exitCode = code));` — built with `program.command()`
 * so it inherits the program's `exitOverride` and output settings (`addCommand` would not).
 */
import type { Command } from 'commander';
import { PlanError } from '../core/errors.ts';
import { writeNexmarkFiles } from '../nexmark/write-files.ts';
import { parsePositiveInt } from './args.ts';
import type { CliIo } from './run-command.ts';

/** Options of `nexmark generate`, parsed. */
export interface NexmarkGenerateOptions {
  readonly events: number;
  readonly seed: number;
  readonly out: string;
  readonly rate?: number;
  readonly outOfOrderMs?: number;
  readonly quiet?: boolean;
  /** Overwrite existing files. */
  readonly force?: boolean;
}

/** Parses an integer option that may be 0 or negative (the seed). */
function parseInteger(option: string, value: string): number {
  const n = Number(value);
  if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new PlanError(`${option} must be an integer (given '${value}')`);
  return n;
}

/** Parses a non-negative integer option. */
function parseNonNegativeInt(option: string, value: string, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n > max) throw new PlanError(`${option} must be an integer 0..${max} (given '${value}')`);
  return n;
}

/** Runs `nexmark generate`; returns the exit code. */
export async function nexmarkGenerateCommand(options: NexmarkGenerateOptions, io: CliIo): Promise<number> {
  // Progress only for runs long enough to need it (a second or more), and only once per 10 %.
  const showProgress = !options.quiet && options.events >= 500_000;
  const every = Math.max(100_000, Math.ceil(options.events / 10 / 100_000) * 100_000);
  const started = Date.now();
  const written = await writeNexmarkFiles(
    options.out,
    {
      events: options.events,
      seed: options.seed,
      ...(options.rate !== undefined ? { firstEventRate: options.rate } : {}),
      ...(options.outOfOrderMs !== undefined ? { outOfOrderMs: options.outOfOrderMs } : {}),
    },
    {
      ...(showProgress
        ? { onProgress: (done: number) => io.stderr.write(`nexmark: ${done.toLocaleString('en-US')} / ${options.events.toLocaleString('en-US')} events (${Math.round((done * 100) / options.events)} %)\n`) }
        : {}),
      progressEvery: every,
      force: options.force === true,
    },
  );
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  io.stdout.write(
    `Wrote ${written.events} Nexmark events in ${seconds} s: ${written.rows.person} persons → ${written.files.person}, ` +
      `${written.rows.auction} auctions → ${written.files.auction}, ${written.rows.bid} bids → ${written.files.bid}; ` +
      `q13's side input (${written.rows.side_input} rows) → ${written.files.side_input}\n`,
  );
  return 0;
}

/**
 * Adds the `nexmark` command with its `generate` subcommand to `program`. `setExitCode` receives the action's
 * exit code (main.ts keeps it in its `exitCode`); errors are thrown as PlanError, which main
 * prints as `flambda: error: …` with exit code 1.
 */
export function nexmarkCommand(program: Command, io: CliIo, setExitCode: (code: number) => void): Command {
  const nexmark = program.command('nexmark').description('Nexmark benchmark data (the reference generator, ported)');
  nexmark
    .command('generate')
    .description('write person.jsonl, auction.jsonl and bid.jsonl of a seeded Nexmark event stream, and side_input.jsonl for q13')
    .requiredOption('--events <n>', 'number of events (persons + auctions + bids, 1:3:46)')
    .option('--seed <s>', 'generator seed (0 = Beam\'s per-event seeds)', '0')
    .requiredOption('--out <dir>', 'directory to write the files into (created, with its parents, when missing)')
    .option('--rate <events/s>', 'event-time rate: events per second of event time', '10000')
    .option('--out-of-order-ms <ms>', 'let event times go up to this far back (the reference\'s out-of-order groups)')
    .option('--force', 'overwrite files already in --out (without it, an existing file is an error)')
    .option('-q, --quiet', 'no progress lines')
    .addHelpText(
      'after',
      `
Event time starts at 2015-07-15 00:00:00.000 UTC and advances 1e6/rate µs per event. Timestamps
are written as "YYYY-MM-DD HH:MM:SS.mmm" (UTC), as the fixture and 'flambda run --input' expect.
side_input.jsonl holds q13's side table: 10,000 rows {"key": i, "value": "i"}, i = 0..9999.

Example:
  flambda nexmark generate --events 100000 --seed 1 --out data/nexmark
  flambda run examples/nexmark/q13.ts --input bid=data/nexmark/bid.jsonl \\
    --input side_input=data/nexmark/side_input.jsonl --final out.json`,
    )
    .action(async (opts: Record<string, unknown>) => {
      const parsed: NexmarkGenerateOptions = {
        events: parsePositiveInt('--events', opts.events as string, 2_000_000_000),
        seed: parseInteger('--seed', opts.seed as string),
        out: opts.out as string,
        rate: parsePositiveInt('--rate', opts.rate as string, 1_000_000_000),
        ...(opts.outOfOrderMs !== undefined ? { outOfOrderMs: parseNonNegativeInt('--out-of-order-ms', opts.outOfOrderMs as string, 86_400_000) } : {}),
        quiet: Boolean(opts.quiet),
        force: Boolean(opts.force),
      };
      setExitCode(await nexmarkGenerateCommand(parsed, io));
    });
  return nexmark;
}
