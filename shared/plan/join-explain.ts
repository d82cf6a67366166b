/**
 * Explain lines of the join nodes, as Flink prints them:
 *
 * ```
 * Join(joinType=[InnerJoin], where=[=(seller, id0)], select=[id, seller, id0, name], leftInputSpec=[NoUniqueKey], rightInputSpec=[JoinKeyContainsUniqueKey])
 * IntervalJoin(joinType=[InnerJoin], windowBounds=[isRowTime=true, leftLowerBound=-10000, leftUpperBound=0, leftTimeIndex=2, rightTimeIndex=1], where=[…], select=[…])
 * TemporalJoin(joinType=[InnerJoin], where=[AND(=(currency, currency0), __TEMPORAL_JOIN_CONDITION(order_time, update_time, __TEMPORAL_JOIN_CONDITION_PRIMARY_KEY(currency0), __TEMPORAL_JOIN_LEFT_KEY(currency), __TEMPORAL_JOIN_RIGHT_KEY(currency0)))], select=[…])
 * WindowJoin(leftWindow=[TUMBLE(win_start=[window_start], win_end=[window_end], size=[10 s])], rightWindow=[…], joinType=[InnerJoin], where=[=(id, seller)], select=[…])
 * ```
 *
 * `where` is the whole join condition over the joined row's columns: the key equalities (right
 * columns under their joined names, `id0`; `IS NOT DISTINCT FROM(s, s0)` for a null-safe key) and
 * the residual condition.
 */
import { JOIN_TYPE_NAMES, joinedFieldNames } from '../operators/join/join-spec.ts';
import { formatJoinInputSpec } from '../operators/join/record-state-views.ts';
import type { Expr } from './expr.ts';
import { printExpr } from './expr-print.ts';
import type { TwoInputNode } from './logical.ts';
import { formatAttachedWindow } from './window-explain.ts';

/** The join condition as Flink prints it: key equalities, then the residual condition. */
function joinCondition(node: TwoInputNode, extra: readonly Expr[] = []): Expr | undefined {
  const rightNames = joinedFieldNames(node.left.schema, node.right.schema).right;
  const rightIndex = new Map(node.right.schema.fields.map((f, i) => [f.name, rightNames[i] as string]));
  const nullSafe = node.type === 'Join' ? node.nullSafeKeys : undefined;
  const conjuncts: Expr[] = node.leftKeys.map((l, i) => ({
    kind: 'call',
    // Printed as Flink prints the key of an INTERSECT / EXCEPT (ReplaceIntersectWithSemiJoinRule).
    fn: nullSafe?.[i] === true ? 'IS NOT DISTINCT FROM' : '=',
    args: [
      { kind: 'ref', name: l },
      { kind: 'ref', name: rightIndex.get(node.rightKeys[i] as string) ?? (node.rightKeys[i] as string) },
    ],
  }));
  conjuncts.push(...extra);
  if (node.condition !== undefined) {
    const c = node.condition;
    if (c.kind === 'call' && c.fn === 'AND') conjuncts.push(...c.args);
    else conjuncts.push(c);
  }
  if (conjuncts.length === 0) return undefined;
  return conjuncts.length === 1 ? conjuncts[0] : { kind: 'call', fn: 'AND', args: conjuncts };
}

/** The joined name of a right column. */
function rightName(node: TwoInputNode, column: string): string {
  const index = node.right.schema.fields.findIndex((f) => f.name === column);
  return joinedFieldNames(node.left.schema, node.right.schema).right[index] ?? column;
}

/** One join node as Flink prints it. */
export function describeJoinNode(node: TwoInputNode): string {
  const attrs = (pairs: [string, string | undefined][]): string =>
    pairs
      .filter((p): p is [string, string] => p[1] !== undefined)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ');
  const select = `[${node.schema.fields.map((f) => f.name).join(', ')}]`;
  if (node.type === 'Union') return `Union(all=[true], union=${select})`;
  const joinType = `[${JOIN_TYPE_NAMES[node.joinType]}]`;
  const where = (c: Expr | undefined): string | undefined => (c === undefined ? undefined : `[${printExpr(c)}]`);
  switch (node.type) {
    case 'Join':
      return `Join(${attrs([
        ['joinType', joinType],
        ['where', where(joinCondition(node)) ?? '[true]'],
        ['select', select],
        ['leftInputSpec', node.leftInputSpec ? `[${formatJoinInputSpec(node.leftInputSpec)}]` : undefined],
        ['rightInputSpec', node.rightInputSpec ? `[${formatJoinInputSpec(node.rightInputSpec)}]` : undefined],
      ])})`;
    case 'IntervalJoin': {
      const rowTime = node.timeDomain === 'event';
      const index = (schema: TwoInputNode['left']['schema'], column: string | undefined): string =>
        column === undefined ? '-1' : String(schema.fields.findIndex((f) => f.name === column));
      return `IntervalJoin(${attrs([
        ['joinType', joinType],
        [
          'windowBounds',
          `[isRowTime=${rowTime}, leftLowerBound=${node.leftLowerBoundMs}, leftUpperBound=${node.leftUpperBoundMs}, ` +
            `leftTimeIndex=${index(node.left.schema, node.leftTimeColumn)}, rightTimeIndex=${index(node.right.schema, node.rightTimeColumn)}]`,
        ],
        ['where', where(joinCondition(node, node.boundPredicates ?? []))],
        ['select', select],
      ])})`;
    }
    case 'TemporalJoin': {
      const ref = (name: string): Expr => ({ kind: 'ref', name });
      const fn = (name: string, ...args: Expr[]): Expr => ({ kind: 'call', fn: name, args });
      const rightKeys = node.rightKeys.map((k) => ref(rightName(node, k)));
      const temporal = fn(
        '__TEMPORAL_JOIN_CONDITION',
        ref(node.leftTimeColumn),
        ref(rightName(node, node.rightTimeColumn)),
        fn('__TEMPORAL_JOIN_CONDITION_PRIMARY_KEY', ...rightKeys),
        fn('__TEMPORAL_JOIN_LEFT_KEY', ...node.leftKeys.map(ref)),
        fn('__TEMPORAL_JOIN_RIGHT_KEY', ...rightKeys),
      );
      return `TemporalJoin(${attrs([
        ['joinType', joinType],
        ['where', where(joinCondition(node, [temporal]))],
        ['select', select],
      ])})`;
    }
    case 'WindowJoin':
      return `WindowJoin(${attrs([
        ['leftWindow', `[${formatAttachedWindow(node.leftWindow, node.leftWindowStartColumn, node.leftWindowEndColumn)}]`],
        ['rightWindow', `[${formatAttachedWindow(node.rightWindow, node.rightWindowStartColumn, node.rightWindowEndColumn)}]`],
        ['joinType', joinType],
        ['where', where(joinCondition(node)) ?? '[true]'],
        ['select', select],
      ])})`;
  }
}
