/**
 * `EXPLAIN` for SQL scripts, laid out like Flink's: the plan as declared (Flink's "Abstract
 * Syntax Tree", here the unoptimized node tree each statement compiled to), the optimized plan
 * (after the planner chose Rank strategies, merged Calcs and inserted Exchanges), and the
 * physical execution plan as numbered stages with their ship strategies.
 */
import { describePlanNode, explainPlan, explainTree } from '../plan/explain.ts';
import { serializeJobGraph } from '../plan/job-graph.ts';
import { inputsOf, type LogicalNode } from '../plan/logical.ts';
import { planAdvice } from '../plan/plan-advice.ts';
import { compileSql, type CompileSqlOptions, type ExplainedStatement, type SqlProgram } from './compile-sql.ts';

/** Options of {@link explainSql}. */
export interface ExplainSqlOptions extends CompileSqlOptions {
  /** Append `changelogMode=[…]` to the optimized plan's nodes (`EXPLAIN CHANGELOG_MODE`). */
  readonly changelogMode?: boolean;
}

/**
 * Compiles and plans a script and prints its three EXPLAIN sections.
 *
 * @throws SqlError as {@link compileSql} does.
 */
export function explainSql(text: string, options: ExplainSqlOptions = {}): string {
  return explainSinks(compileSql(text, options), options);
}

/**
 * The output of each `EXPLAIN …` statement of a compiled script, in order, as Flink's SQL client
 * prints an EXPLAIN it executes: the statement's three sections (`EXPLAIN CHANGELOG_MODE …` adds
 * the changelog modes). Empty for a script without EXPLAIN statements.
 */
export function explainStatements(program: SqlProgram): string[] {
  return program.explained.map(explainStatement);
}

/**
 * One EXPLAIN statement's output with its details: `CHANGELOG_MODE` adds each node's changelog
 * mode; `JSON_EXECUTION_PLAN` prints the physical plan as the job graph's JSON (what the
 * runtimes run, as Flink prints its stream graph's JSON); `PLAN_ADVICE` tags nodes with
 * `advice=[n]` and lists the advice after the plan, or Flink's "No available advice...".
 * (`ESTIMATED_COST`'s section is measured on the emulators and added by the CLI.)
 */
export function explainStatement(e: ExplainedStatement): string {
  return explainSinks(e, {
    changelogMode: e.details.includes('CHANGELOG_MODE'),
    jsonPlan: e.details.includes('JSON_EXECUTION_PLAN'),
    advice: e.details.includes('PLAN_ADVICE'),
  });
}

/** The three EXPLAIN sections of the plan ending at `sinks`. */
function explainSinks(program: Pick<SqlProgram, 'pipeline' | 'sinks'>, options: Pick<ExplainSqlOptions, 'changelogMode'> & { readonly jsonPlan?: boolean; readonly advice?: boolean }): string {
  const ast = program.sinks.map((s) => explainTree(s, new Map())).join('\n\n');
  const planned = program.pipeline.plan();
  const advice = options.advice ? planAdvice(planned) : [];
  const numbers = new Map<LogicalNode, number[]>();
  advice.forEach((a, i) => {
    for (const node of a.nodes) numbers.set(node, [...(numbers.get(node) ?? []), i + 1]);
  });
  const optimized = explainPlan(planned, { ...(options.changelogMode ? { changelogMode: true } : {}), ...(options.advice ? { advice: numbers } : {}) });
  const adviceLines = options.advice ? ['', ...(advice.length === 0 ? ['No available advice...'] : advice.map((a, i) => `advice[${i + 1}]: [${a.kind}] ${a.text}`))] : [];
  return [
    '== Abstract Syntax Tree ==',
    ast,
    '',
    options.advice ? '== Optimized Logical Plan With Advice ==' : '== Optimized Logical Plan ==',
    optimized,
    ...adviceLines,
    '',
    '== Physical Execution Plan ==',
    options.jsonPlan ? serializeJobGraph(program.pipeline.jobGraph({ parallelism: 1 })) : planned.sinks.map((s) => physicalStages(s)).join('\n\n'),
  ].join('\n');
}

/**
 * Flink's physical plan listing: one entry per operator from the source up, numbered, with the
 * ship strategy of its input (`HASH` after a hash exchange, `GLOBAL` for single, `FORWARD`
 * otherwise). Exchanges are not operators; they only set the next operator's ship strategy.
 */
function physicalStages(sink: LogicalNode): string {
  const lines: string[] = [];
  let stage = 0;
  /** Lists a node after its inputs; returns its stage number (an Exchange is its input's). */
  const visit = (node: LogicalNode): { stage: number; ship: string } => {
    if (node.type === 'Exchange') {
      const from = visit(node.input);
      return { stage: from.stage, ship: node.distribution.type === 'hash' ? 'HASH' : node.distribution.type === 'single' ? 'GLOBAL' : 'BROADCAST' };
    }
    const inputs = inputsOf(node).map(visit);
    stage += 1;
    const kind = node.type === 'Source' ? 'Data Source' : node.type === 'Sink' ? 'Data Sink' : 'Operator';
    lines.push(`Stage ${stage} : ${kind}`);
    lines.push(`\tcontent : ${describePlanNode(node)}`);
    for (const input of inputs) lines.push(`\tship_strategy : ${input.ship}`);
    lines.push('');
    return { stage, ship: 'FORWARD' };
  };
  visit(sink);
  return lines.join('\n').trimEnd();
}
