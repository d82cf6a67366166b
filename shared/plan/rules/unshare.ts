/**
 * Turns a plan DAG into a tree: a node consumed by more than one operator (a stream joined with
 * its own aggregate, as Nexmark q5 and q7 do, or one source feeding two sinks) is copied for every
 * consumer after the first, with fresh ids, down to its sources. Stages stay linear chains with
 * one output each; a copied source is read once more (on AWS a second event source mapping on
 * its stream), which gives every branch the same rows in the same order. Flink reuses the scan
 * instead (`table.optimizer.reuse-source-enabled`); the results are the same for deterministic
 * pipelines.
 */
import type { LogicalNode, SinkNode } from '../logical.ts';
import { inputsOf, isTwoInput } from '../logical.ts';

/** `node` with `inputs` in place of its own, the same object when nothing changed. */
export function withInputs(node: LogicalNode, inputs: readonly LogicalNode[]): LogicalNode {
  if (node.type === 'Source') return node;
  if (isTwoInput(node)) {
    const [left, right] = inputs as [LogicalNode, LogicalNode];
    return left === node.left && right === node.right ? node : ({ ...node, left, right } as LogicalNode);
  }
  const [input] = inputs as [LogicalNode];
  return input === node.input ? node : ({ ...node, input } as LogicalNode);
}

/** Copies every node of the subtree under fresh ids. */
function copyTree(node: LogicalNode, nextId: () => number): LogicalNode {
  const copied = withInputs(node, inputsOf(node).map((n) => copyTree(n, nextId)));
  return { ...copied, id: nextId() } as LogicalNode;
}

/** The sinks' trees with every shared subtree copied once per extra consumer. */
export function unshareSubtrees(sinks: readonly SinkNode[], nextId: () => number): SinkNode[] {
  const claimed = new Set<LogicalNode>();
  const visit = (node: LogicalNode): LogicalNode => {
    if (claimed.has(node)) return copyTree(node, nextId);
    claimed.add(node);
    return withInputs(node, inputsOf(node).map(visit));
  };
  return sinks.map((s) => visit(s) as SinkNode);
}
