/**
 * `EXPLAIN` for SQL scripts, laid out like Flink's: the plan as declared (Flink's "Abstract
 * Syntax Tree", here the unoptimized node tree each statement compiled to), the optimized plan
 * (after the planner chose Rank strategies, merged Calcs and inserted Exchanges), and the
 * physical execution plan as numbered stages with their ship strategies.
 */
import { describePlanNode, explainPlan, explainTree } from '../plan/explain.ts';
import { inputsOf, type LogicalNode } from '../plan/logical.ts';
import { compileSql, type CompileSqlOptions, type SqlProgram } from './compile-sql.ts';

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
  return program.explained.map((e) => explainSinks(e, { changelogMode: e.details.includes('CHANGELOG_MODE') }));
}

/** The three EXPLAIN sections of the plan ending at `sinks`. */
function explainSinks(program: Pick<SqlProgram, 'pipeline' | 'sinks'>, options: Pick<ExplainSqlOptions, 'changelogMode'>): string {
  const ast = program.sinks.map((s) => explainTree(s, new Map())).join('\n\n');
  const planned = program.pipeline.plan();
  const optimized = explainPlan(planned, options.changelogMode ? { changelogMode: true } : {});
  return [
    '== Abstract Syntax Tree ==',
    ast,
    '',
    '== Optimized Logical Plan ==',
    optimized,
    '',
    '== Physical Execution Plan ==',
    planned.sinks.map((s) => physicalStages(s)).join('\n\n'),
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
