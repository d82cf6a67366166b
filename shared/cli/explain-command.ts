/**
 * `flambda explain <pipeline> [--parallelism N] [--changelog-mode] [--json] [--cost-rate N]`: prints the plan
 * tree as Flink does, followed by the stages of the job graph; `--json` prints the job graph;
 * `--cost-rate` appends the cost section of `flambda cost` at that rate (cost-command.ts).
 */
import type { JobGraph } from '../plan/job-graph.ts';
import { formatDistribution } from '../plan/planner.ts';
import { serializeJobGraph } from '../plan/job-graph.ts';
import { readFileSync } from 'node:fs';
import { isSqlFile, loadPipelineWithOutputs } from './load-pipeline.ts';
import type { CliIo } from './run-command.ts';

/** Options of the explain command. */
export interface ExplainCommandOptions {
  readonly parallelism: number;
  readonly changelogMode?: boolean;
  readonly json?: boolean;
  /** Append a cost section at this many events/s (a sample run on the local emulators, as `flambda cost`). */
  readonly costRate?: number;
}

/** Prints the plan of a pipeline module or SQL script (for SQL, Flink's three EXPLAIN sections). */
export async function explainCommand(file: string, options: ExplainCommandOptions, io: CliIo): Promise<number> {
  const { pipeline, outputs } = await loadPipelineWithOutputs(
    file,
    (warning) => io.stderr.write(`flambda: warning: ${warning}\n`),
    (line) => io.stderr.write(`flambda: ${line}\n`),
  );
  // What the script's own EXPLAIN, SHOW and DESCRIBE statements print first, as the SQL shell prints them.
  for (const text of outputs) io.stdout.write(`${text}\n\n`);
  if (pipeline === undefined) return 0;
  const graph = pipeline.jobGraph({ parallelism: options.parallelism });
  if (options.json) {
    io.stdout.write(`${serializeJobGraph(graph)}\n`);
    return 0;
  }
  if (isSqlFile(file)) {
    const { explainSql } = await import('../sql/explain-sql.ts');
    io.stdout.write(`${explainSql(readFileSync(file, 'utf8'), { changelogMode: options.changelogMode ?? false })}\n\n`);
  } else {
    io.stdout.write(`== Physical Plan ==\n${pipeline.explain({ changelogMode: options.changelogMode ?? false })}\n\n`);
  }
  io.stdout.write(`== Stages ==\n${formatStages(graph)}\n`);
  if (options.costRate !== undefined) {
    const { costCommand } = await import('./cost-command.ts');
    io.stdout.write('\n');
    return costCommand(file, { rate: options.costRate }, io);
  }
  return 0;
}

/** One line per stage: parallelism, input, operator chain and output. */
export function formatStages(graph: JobGraph): string {
  return graph.stages
    .map((stage) => {
      const input =
        stage.input.type === 'source'
          ? `source ${stage.input.source}`
          : stage.input.type === 'twoInput'
            ? `left ${stage.input.left.fromStage} via ${formatDistribution(stage.input.left.distribution)}, right ${stage.input.right.fromStage} via ${formatDistribution(stage.input.right.distribution)}`
            : `${stage.input.fromStage} via ${formatDistribution(stage.input.distribution)}`;
      const chain = stage.operators.map((o) => o.id).join(' -> ') || '(no operators)';
      const output =
        stage.output.type === 'sink'
          ? `sink ${stage.output.sink}`
          : `${stage.output.toStage} via ${formatDistribution(stage.output.distribution)}`;
      return `${stage.id} (parallelism ${stage.parallelism}): ${input} => ${chain} => ${output}`;
    })
    .join('\n');
}
