/**
 * `flambda bench <suite> [--json] [--events N]`. Default events: 300,000 (20,000 for `state-io`,
 * which runs against an in-process DynamoDB emulator).
 */
import { defaultEvents, runSuite } from '../bench/suites.ts';
import type { CliIo } from './run-command.ts';

/** Options of the bench command. */
export interface BenchCommandOptions {
  readonly json: boolean;
  readonly events?: number;
}

/** Runs a benchmark suite and prints one line per result. */
export async function benchCommand(suite: string, options: BenchCommandOptions, io: CliIo): Promise<number> {
  const results = await runSuite(suite, { events: options.events ?? defaultEvents(suite), parallelism: 4 });
  for (const r of results) {
    if (options.json) io.stdout.write(`${JSON.stringify(r)}\n`);
    else {
      const figures = Object.entries(r)
        .filter(([k]) => k !== 'suite' && k !== 'case')
        .map(([k, v]) => `${k}=${v}`)
        .join(' ');
      io.stdout.write(`${r.suite}/${r.case}: ${figures}\n`);
    }
  }
  return 0;
}
