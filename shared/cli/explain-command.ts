/**
 * `flambda explain <pipeline> [--parallelism N] [--changelog-mode] [--json]`: prints the plan
 * tree as Flink does, followed by the stages of the job graph; `--json` prints the job graph.
 */
import type { JobGraph } from '../plan/job-graph.ts';
import { formatDistribution } from '../plan/planner.ts';
import { serializeJobGraph } from '../plan/job-graph.ts';
import { loadPipeline } from './load-pipeline.ts';
import type { CliIo } from './run-command.ts';

/** Options of the explain command. */
export interface ExplainCommandOptions {
  readonly parallelism: number;
  readonly changelogMode?: boolean;
  readonly json?: boolean;
}

/** Prints the plan of a pipeline module. */
export async function explainCommand(file: string, options: ExplainCommandOptions, io: CliIo): Promise<number> {
  const pipeline = await loadPipeline(file);
  const graph = pipeline.jobGraph({ parallelism: options.parallelism });
  if (options.json) {
    io.stdout.write(`${serializeJobGraph(graph)}\n`);
    return 0;
  }
  io.stdout.write(`== Physical Plan ==\n${pipeline.explain({ changelogMode: options.changelogMode ?? false })}\n\n`);
  io.stdout.write(`== Stages ==\n${formatStages(graph)}\n`);
  return 0;
}

/** One line per stage: parallelism, input, operator chain and output. */
export function formatStages(graph: JobGraph): string {
  return graph.stages
    .map((stage) => {
      const input =
        stage.input.type === 'source'
          ? `source ${stage.input.source}`
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
