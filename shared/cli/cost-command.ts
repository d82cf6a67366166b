/**
 * `flambda cost <pipeline> --rate <events/s> [--event-bytes N] [--keys N] [--sample N] [--input name=file]`:
 * what the pipeline would cost per month on AWS at that rate, per stage and per operator, beside
 * Amazon Managed Service for Apache Flink's figure for the same rate (cost-estimate.ts).
 */
import { estimateCost, type CostCommandOptions } from './cost-estimate.ts';
import { loadPipeline } from './load-pipeline.ts';
import type { CliIo } from './run-command.ts';

/** Measures the pipeline on a sample and prints its monthly cost; returns the exit code. */
export async function costCommand(file: string, options: CostCommandOptions, io: CliIo): Promise<number> {
  const pipeline = await loadPipeline(file, (warning) => io.stderr.write(`flambda: warning: ${warning}\n`));
  const text = await estimateCost(pipeline, options, (line) => io.stderr.write(`flambda cost: ${line.replace(pipeline.name, file)}\n`));
  io.stdout.write(`${text}\n`);
  return 0;
}
