/**
 * Flink-style plan text: one line per node, children indented under `+- `, e.g.
 *
 * ```
 * Sink(table=[print], fields=[merchandiseId, totalQuantity])
 * +- GroupAggregate(groupBy=[merchandiseId], select=[merchandiseId, SUM(quantity) AS totalQuantity])
 *    +- Exchange(distribution=[hash[merchandiseId]])
 *       +- Calc(select=[merchandiseId, quantity])
 *          +- Source(table=[orders], fields=[merchandiseId, quantity, log_ts])
 * ```
 */
import { formatType } from '../core/type-parse.ts';
import type { RankStrategy } from './logical.ts';
import type { LogicalNode } from './logical.ts';
import { inputsOf } from './logical.ts';
import { printExpr } from './expr-print.ts';
import { describeJoinNode } from './join-explain.ts';
import type { NodeTraits, PlannedPipeline } from './planner.ts';
import { formatDistribution } from './planner.ts';
import { describeWindowNode } from './window-explain.ts';
import { formatAggCall, formatRankRange, formatSortField, STRATEGY_NAMES } from './explain-format.ts';
import { formatOverFrame } from '../operators/over/over-aggregate.ts';
import { formatCorrelateCall } from '../operators/correlate/correlate-operator.ts';

/** Options of {@link explainPlan}. */
export interface ExplainOptions {
  /** Append `changelogMode=[I,UB,UA,D]` to every node, as Flink's `EXPLAIN CHANGELOG_MODE`. */
  readonly changelogMode?: boolean;
  /** The plan advice numbers of nodes, printed first as `advice=[1]` (`EXPLAIN PLAN_ADVICE`). */
  readonly advice?: ReadonlyMap<LogicalNode, readonly number[]>;
}

/** Prints every sink's tree, separated by blank lines. */
export function explainPlan(plan: PlannedPipeline, options: ExplainOptions = {}): string {
  return plan.sinks.map((s) => explainTree(s, plan.traits, options)).join('\n\n');
}

/**
 * Prints one tree rooted at `root`, children under `+- ` (the last) and `:- ` (the others), as
 * Flink's RelTreeWriter draws a join's two inputs:
 *
 * ```
 * Join(joinType=[InnerJoin], …)
 * :- Exchange(distribution=[hash[seller]])
 * :  +- Source(table=[auction], …)
 * +- Exchange(distribution=[hash[id]])
 *    +- Source(table=[person], …)
 * ```
 */
export function explainTree(root: LogicalNode, traits: ReadonlyMap<LogicalNode, NodeTraits>, options: ExplainOptions = {}): string {
  const lines: string[] = [];
  const visit = (node: LogicalNode, prefix: string, childIndent: string): void => {
    let text = describePlanNode(node);
    const advice = options.advice?.get(node);
    if (advice !== undefined) {
      const open = text.indexOf('(');
      text = `${text.slice(0, open + 1)}advice=[${advice.join(', ')}]${text[open + 1] === ')' ? '' : ', '}${text.slice(open + 1)}`;
    }
    if (options.changelogMode) {
      const mode = traits.get(node)?.changelogMode ?? [];
      text = `${text.slice(0, -1)}, changelogMode=[${mode.map(shortKind).join(',')}])`;
    }
    lines.push(prefix + text);
    const inputs = inputsOf(node);
    inputs.forEach((input, i) => {
      const last = i === inputs.length - 1;
      visit(input, childIndent + (last ? '+- ' : ':- '), childIndent + (last ? '   ' : ':  '));
    });
  };
  visit(root, '', '');
  return lines.join('\n');
}

function shortKind(kind: string): string {
  return kind === '+I' ? 'I' : kind === '-U' ? 'UB' : kind === '+U' ? 'UA' : 'D';
}

/** One node as Flink prints it: `Type(attr=[…], …)`. */
export function describePlanNode(node: LogicalNode): string {
  const fields = (names: readonly string[]): string => `[${names.join(', ')}]`;
  const attrs = (pairs: [string, string | undefined][]): string =>
    pairs
      .filter((p): p is [string, string] => p[1] !== undefined)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ');
  const outNames = node.schema.fields.map((f) => f.name);
  switch (node.type) {
    case 'Source': {
      const wm = node.watermark;
      return `Source(${attrs([
        ['table', `[${node.name}]`],
        ['fields', fields(outNames)],
        ['watermark', wm ? `[-(${wm.expr ? `${wm.column}=${printExpr(wm.expr)}` : wm.column}, ${wm.outOfOrdernessMs}:INTERVAL MILLISECOND)]` : undefined],
      ])})`;
    }
    case 'Calc':
      return `Calc(${attrs([
        [
          'select',
          fields(node.projection.map((p) => {
            const text = printExpr(p.expr);
            return text === p.name ? text : `${text} AS ${p.name}`;
          })),
        ],
        ['where', node.condition ? `[${printExpr(node.condition)}]` : undefined],
      ])})`;
    case 'Map':
      return `Map(${attrs([['function', `[${node.display}]`], ['fields', fields(outNames)]])})`;
    case 'Correlate': {
      // As Flink's StreamPhysicalCorrelate: the invocation, its table, `select` without spaces.
      const invocation = formatCorrelateCall(node.call);
      return `Correlate(${attrs([
        ['invocation', `[${invocation}]`],
        ['correlate', `[table(${invocation})]`],
        ['select', `[${outNames.join(',')}]`],
        ['rowType', `[RecordType(${node.schema.fields.map((f) => `${formatType(f.type)} ${f.name}`).join(', ')})]`],
        ['joinType', `[${node.joinType}]`],
        ['condition', node.condition ? `[${printExpr(node.condition)}]` : undefined],
      ])})`;
    }
    case 'GroupAggregate':
      return `GroupAggregate(${attrs([
        ['groupBy', node.groupBy.length > 0 ? fields(node.groupBy) : undefined],
        ['select', fields([...node.groupBy, ...node.aggCalls.map(formatAggCall)])],
      ])})`;
    case 'Rank':
      // Flink's StreamExecLimit is a Rank without sort keys, and EXPLAIN prints it as a Limit.
      if (node.orderBy.length === 0 && node.rankRange.type === 'constant') {
        return `Limit(offset=[${node.rankRange.start - 1}], fetch=[${node.rankRange.end - node.rankRange.start + 1}])`;
      }
      return `${node.type}(${attrs([
        ['strategy', node.strategy ? `[${formatStrategy(node.strategy, node.upsertKey)}]` : undefined],
        ['rankType', `[${node.rankType}]`],
        ['rankRange', `[${formatRankRange(node.rankRange)}]`],
        ['partitionBy', fields(node.partitionBy)],
        ['orderBy', fields(node.orderBy.map(formatSortField))],
        ['select', fields(outNames)],
      ])})`;
    case 'OverAggregate':
      return `OverAggregate(${attrs([
        ['partitionBy', node.partitionBy.length > 0 ? fields(node.partitionBy) : undefined],
        ['orderBy', `[${node.timeDomain === 'processing' ? `${node.orderBy} (PROCTIME)` : node.orderBy} ASC]`],
        ['window', `[${formatOverFrame(node.frame)}]`],
        ['select', fields([...node.input.schema.fields.map((f) => f.name), ...node.aggCalls.map(formatAggCall)])],
      ])})`;
    case 'TemporalSort':
      return `TemporalSort(orderBy=[${[`${node.timeColumn} ASC`, ...node.orderBy.map(formatSortField)].join(', ')}])`;
    case 'Deduplicate':
      return `Deduplicate(${attrs([
        ['keep', `[${node.keep === 'first' ? 'FirstRow' : 'LastRow'}]`],
        ['key', fields(node.keys)],
        ['order', node.orderColumn === undefined ? '[PROCTIME]' : `[ROWTIME(${node.orderColumn})]`],
      ])})`;
    case 'LookupJoin':
      return `LookupJoin(${attrs([
        ['table', `[${node.table}]`],
        ['joinType', `[${node.joinType === 'LEFT' ? 'LeftOuterJoin' : 'InnerJoin'}]`],
        ['lookup', fields(node.keys.map((k) => `${k.lookup}=${k.probe}`))],
        ['where', node.condition ? `[${printExpr(node.condition)}]` : undefined],
        ['select', fields(outNames)],
      ])})`;
    case 'WindowAggregate':
    case 'WindowProcess':
    case 'WindowTableFunction':
    case 'WindowRank':
    case 'WindowDeduplicate':
      return describeWindowNode(node);
    case 'Exchange':
      return `Exchange(distribution=[${formatDistribution(node.distribution)}])`;
    case 'Join':
    case 'IntervalJoin':
    case 'TemporalJoin':
    case 'WindowJoin':
    case 'Union':
      return describeJoinNode(node);
    case 'Sink':
      return `Sink(${attrs([
        ['table', `[${node.name}]`],
        ['fields', fields(outNames)],
        ['upsertKey', node.upsertKey ? fields(node.upsertKey) : undefined],
      ])})`;
  }
}

/** `RetractStrategy`, `AppendFastStrategy`, `UpdateFastStrategy[key]` as Flink prints them. */
function formatStrategy(strategy: RankStrategy, upsertKey: readonly string[] | undefined): string {
  const name = STRATEGY_NAMES[strategy];
  return strategy === 'UpdateFast' ? `${name}[${(upsertKey ?? []).join(',')}]` : name;
}

/** Prints a schema as `name TYPE` lines, used by `flambda explain --schema`. */
export function formatSchemaLines(node: LogicalNode): string[] {
  return node.schema.fields.map((f) => `${f.name} ${formatType(f.type)}${f.timeAttribute ? ` *${f.timeAttribute.toUpperCase()}*` : ''}`);
}
