/**
 * What a SQL script's statements print, in order, as Flink's SQL client prints them when it
 * runs a script: the tables of SHOW and DESCRIBE, and each EXPLAIN's plan — with, for `EXPLAIN
 * ESTIMATED_COST`, Flambda's own cost: the AWS bill of the job per stage and operator, measured
 * by `flambda cost`'s sample run on the local emulators (cost-command.ts), not Calcite's
 * row / cpu / io estimate, which Flambda does not compute.
 */
import { existsSync } from 'node:fs';
import { lookupTablesOf } from '../plan/job-graph.ts';
import type { ExplainedStatement, SqlProgram } from '../sql/compile-sql.ts';
import { SqlError } from '../sql/errors.ts';
import { explainStatement } from '../sql/explain-sql.ts';
import { renderStatementResult } from './sql-shell/result-table.ts';

/** The rate EXPLAIN ESTIMATED_COST prices a job at unless `SET 'flambda.explain.cost-rate'` says otherwise. */
export const DEFAULT_EXPLAIN_COST_RATE = 1000;

/** The printed output of every statement of `program` that prints something, in script order. */
export async function renderStatementOutputs(program: SqlProgram, progress?: (line: string) => void): Promise<string[]> {
  const out: string[] = [];
  for (const o of program.outputs) {
    if (o.kind === 'result') {
      out.push(renderStatementResult(o.result));
      continue;
    }
    const plan = explainStatement(o.explained);
    out.push(o.explained.details.includes('ESTIMATED_COST') ? `${plan}\n\n${await estimatedCostSection(o.explained, progress)}` : plan);
  }
  return out;
}

/**
 * The `ESTIMATED_COST` section: the explained job measured on a sample — its sources' and
 * JSON-lines lookup tables' own files where they have one, else rows made from the schema —
 * and priced at the `'flambda.explain.cost-rate'` rate.
 */
async function estimatedCostSection(e: ExplainedStatement, progress?: (line: string) => void): Promise<string> {
  const key = 'flambda.explain.cost-rate';
  const given = e.settings.get(key);
  const rate = given === undefined ? DEFAULT_EXPLAIN_COST_RATE : Number(given);
  if (!(Number.isFinite(rate) && rate > 0)) throw new SqlError(e.pos, `'${key}' must be a positive number of events per second (given '${given}')`);
  const graph = e.pipeline.jobGraph({ parallelism: 1 });
  const input: string[] = [];
  for (const s of graph.sources) if (s.connector.type === 'jsonl' && s.connector.path !== undefined && existsSync(s.connector.path)) input.push(`${s.name}=${s.connector.path}`);
  for (const t of lookupTablesOf(graph).values()) if (t.source.type === 'jsonl' && t.source.path !== undefined && existsSync(t.source.path)) input.push(`${t.table}=${t.source.path}`);
  // Loaded on demand: measuring needs the AWS SDK and the emulators.
  const { estimateCost } = await import('./cost-estimate.ts');
  const cost = await estimateCost(e.pipeline, { rate, input }, progress);
  return `== Estimated Cost: Flambda's AWS bill for this job, per stage and operator (not Calcite's cost model) ==\n${cost}`;
}
