/**
 * `EXPLAIN PLAN_ADVICE`: checks of a planned pipeline that Flambda can make for real, in the
 * form of Flink's plan advice (FLIP-280: a kind, the text, the nodes it concerns):
 *
 * - `[WARNING]` on every stateful node whose state never expires — a regular group aggregation,
 *   join, Top-N or deduplication without `table.exec.state.ttl` (or a STATE_TTL hint): Flink's
 *   state-expiration risk, in Flink's words. Its state grows with every key it ever sees.
 * - `[ADVICE]` on a lookup join whose probe rows are not hashed by the join key: every shard
 *   then looks up, and caches, every key, where hashed each caches only its share (the seed
 *   article's advice; `'lookup.enable_hash'` or `/*+ LOOKUP('table'='t', 'shuffle'='true') *\/`).
 *
 * One advice text concerns all the nodes it applies to, numbered in the order the plan is
 * printed, as Flink numbers them.
 */
import { inputsOf, type LogicalNode } from './logical.ts';
import type { PlannedPipeline } from './planner.ts';

/** One piece of advice and the nodes it concerns. */
export interface PlanAdvice {
  readonly kind: 'WARNING' | 'ADVICE';
  readonly text: string;
  readonly nodes: readonly LogicalNode[];
}

/** Flink's StateExpireRiskAnalyzer text. */
export const STATE_TTL_WARNING = "You might want to pay attention to this node because state expiration configuration 'table.exec.state.ttl' is not set.";

/** The advice for a planned pipeline, in plan order (sinks first, each tree top-down). */
export function planAdvice(plan: PlannedPipeline): PlanAdvice[] {
  const byText = new Map<string, { kind: PlanAdvice['kind']; nodes: LogicalNode[] }>();
  const add = (kind: PlanAdvice['kind'], text: string, node: LogicalNode): void => {
    const entry = byText.get(text) ?? { kind, nodes: [] };
    if (!entry.nodes.includes(node)) entry.nodes.push(node);
    byText.set(text, entry);
  };
  const seen = new Set<LogicalNode>();
  const visit = (node: LogicalNode): void => {
    if (seen.has(node)) return;
    seen.add(node);
    const risk = stateNeverExpires(node);
    if (risk) add('WARNING', STATE_TTL_WARNING, node);
    if (node.type === 'LookupJoin' && !hashedByKey(plan, node)) {
      const keys = node.keys.map((k) => k.probe).join(', ');
      add(
        'ADVICE',
        `You might want to hash the input of the lookup join on '${node.table}' by its join key (${keys}) — 'lookup.enable_hash' = 'true' on the table, or /*+ LOOKUP('table'='${node.table}', 'shuffle'='true') */ — so that each shard looks up, and caches, only its share of the keys.`,
        node,
      );
    }
    for (const input of inputsOf(node)) visit(input);
  };
  for (const sink of plan.sinks) visit(sink);
  return [...byText].map(([text, e]) => ({ kind: e.kind, text, nodes: e.nodes }));
}

/** Whether a node keeps state per key with no TTL (windowed and interval operators clean up by time). */
function stateNeverExpires(node: LogicalNode): boolean {
  switch (node.type) {
    case 'GroupAggregate':
    case 'Rank':
    case 'Deduplicate':
      return !(node.stateTtlMs !== undefined && node.stateTtlMs > 0);
    case 'Join':
      return !(node.leftStateTtlMs !== undefined && node.leftStateTtlMs > 0 && node.rightStateTtlMs !== undefined && node.rightStateTtlMs > 0);
    default:
      return false;
  }
}

/** Whether a lookup join's probe rows arrive hashed by its probe keys (its own shuffle, or an upstream exchange on them). */
function hashedByKey(plan: PlannedPipeline, node: Extract<LogicalNode, { type: 'LookupJoin' }>): boolean {
  if (node.shuffle) return true;
  const d = plan.traits.get(node.input)?.distribution;
  if (d?.type !== 'hash') return false;
  const probe = new Set(node.keys.map((k) => k.probe));
  return d.keys.length > 0 && d.keys.every((k) => probe.has(k));
}
