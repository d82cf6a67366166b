/**
 * Evaluates SQL expressions the way the function tests need them: `SELECT e1, e2, …` (no FROM,
 * so constants) on the embedded runtime, returning each value and its type as Flink's SQL
 * client prints them (`3.70`, `[1, 2]`, `{a=2}`, `NULL`).
 */
import type { ChangeRow } from '../../shared/core/row.ts';
import { formatTypeSummary } from '../../shared/core/type-parse.ts';
import { runEmbeddedJob } from '../../shared/runtime/embedded/embedded-runtime.ts';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { formatValue } from './conformance/run-case.ts';

/** The printed value of each expression, by expression. */
export async function printedValues(exprs: readonly string[]): Promise<Record<string, string>> {
  const out = await evaluated(exprs);
  return Object.fromEntries(exprs.map((e, i) => [e, out[i]!.text]));
}

/** The printed type of each expression (Flink's summary form, `INT NOT NULL`), by expression. */
export async function printedTypes(exprs: readonly string[]): Promise<Record<string, string>> {
  const out = await evaluated(exprs);
  return Object.fromEntries(exprs.map((e, i) => [e, out[i]!.type]));
}

async function evaluated(exprs: readonly string[]): Promise<{ text: string; type: string }[]> {
  const program = compileSql(`SELECT ${exprs.map((e, i) => `${e} AS c${i}`).join(', ')}`);
  const graph = program.pipeline.jobGraph({ parallelism: 1 });
  const sink = graph.sinks[0]!;
  const changes: ChangeRow[] = [];
  await runEmbeddedJob(graph, {
    code: { functions: program.pipeline.userFunctions, generators: program.pipeline.generators },
    observers: new Map([[sink.name, [{ write: (rows: readonly ChangeRow[]) => void changes.push(...rows) }]]]),
    sinkSetup: { quiet: true },
  });
  if (changes.length !== 1) throw new Error(`expected one row, got ${changes.length}`);
  const row = changes[0]!.row;
  return sink.schema.fields.map((f) => ({ text: formatValue(row[f.name], f.type), type: formatTypeSummary(f.type) }));
}
