/**
 * Test helper: runs a SQL script's job on the embedded runtime over one JSON-lines file bound to
 * its source `src`, and returns what its first sink got, the dead letters and their count.
 */
import type { ChangeRow } from '../../shared/core/row.ts';
import type { Row } from '../../shared/core/types.ts';
import { runEmbeddedJob, type DeadLetter, type EmbeddedJobOptions } from '../../shared/runtime/embedded/embedded-runtime.ts';
import { compileSql } from '../../shared/sql/compile-sql.ts';

/** What a run gave. */
export interface SqlJobRun {
  readonly rows: Row[];
  readonly letters: DeadLetter[];
  readonly deadLettered: number;
}

/** Runs `sql` over the file `path` as `src`. */
export async function runSqlJob(sql: string, path: string, options: EmbeddedJobOptions = {}, parallelism = 1): Promise<SqlJobRun> {
  const graph = compileSql(sql).pipeline.jobGraph({ parallelism });
  const rows: Row[] = [];
  const letters: DeadLetter[] = [];
  const result = await runEmbeddedJob(graph, {
    inputs: new Map([['src', path]]),
    sinkSetup: { quiet: true },
    observers: new Map([[graph.sinks[0]!.name, [{ write: (changes: readonly ChangeRow[]) => changes.forEach((c) => rows.push(c.row)) }]]]),
    onDeadLetter: (letter) => letters.push(letter),
    ...options,
  });
  return { rows, letters, deadLettered: result.deadLettered };
}
