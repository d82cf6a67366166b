/**
 * `flambda bench <suite> [--json] [--events N] [--query qN]`. Default events per suite: see
 * {@link defaultEvents}. `--query` (suite `nexmark` only) measures one query, with q0 in the
 * same call for its `ratio_to_q0`.
 */
import { defaultEvents, runSuite } from '../bench/suites.ts';
import type { CliIo } from './run-command.ts';

/** Options of the bench command. */
export interface BenchCommandOptions {
  readonly json: boolean;
  readonly events?: number;
  /** Suite `nexmark`: the one query to measure. */
  readonly query?: string;
}

/** Runs a benchmark suite and prints one line per result. */
export async function benchCommand(suite: string, options: BenchCommandOptions, io: CliIo): Promise<number> {
  const results = await runSuite(suite, {
    events: options.events ?? defaultEvents(suite),
    parallelism: 4,
    ...(options.query === undefined ? {} : { query: options.query }),
  });
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
