/**
 * `EXPLAIN` for SQL scripts, laid out like Flink's: the plan as declared (Flink's "Abstract
 * Syntax Tree", here the unoptimized node tree each statement compiled to), the optimized plan
 * (after the planner chose Rank strategies, merged Calcs and inserted Exchanges), and the
 * physical execution plan as numbered stages with their ship strategies.
 */
import { describePlanNode, explainPlan, explainTree } from '../plan/explain.ts';
import { inputOf, type LogicalNode } from '../plan/logical.ts';
import { compileSql, type CompileSqlOptions } from './compile-sql.ts';

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
  const program = compileSql(text, options);
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
  const chain: LogicalNode[] = [];
  for (let n: LogicalNode | undefined = sink; n; n = inputOf(n)) chain.unshift(n);
  const lines: string[] = [];
  let stage = 0;
  let ship = 'FORWARD';
  for (const node of chain) {
    if (node.type === 'Exchange') {
      ship = node.distribution.type === 'hash' ? 'HASH' : node.distribution.type === 'single' ? 'GLOBAL' : 'BROADCAST';
      continue;
    }
    stage += 1;
    const kind = node.type === 'Source' ? 'Data Source' : node.type === 'Sink' ? 'Data Sink' : 'Operator';
    lines.push(`Stage ${stage} : ${kind}`);
    lines.push(`\tcontent : ${describePlanNode(node)}`);
    if (node.type !== 'Source') lines.push(`\tship_strategy : ${ship}`);
    lines.push('');
    ship = 'FORWARD';
  }
  return lines.join('\n').trimEnd();
}
