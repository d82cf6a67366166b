/**
 * Planning rules of the join nodes, as Flink's planner applies them:
 *
 * - Distribution: each side is hash-exchanged by its join keys (`single` without keys), so equal
 *   keys of both sides meet on one shard (Flink's StreamPhysicalJoin / WindowJoin requirements).
 *   A window join hashes by its keys without the window columns.
 * - Input specs (JoinUtil.analyzeJoinInput): a side whose upsert keys include one contained in
 *   the join key keeps one row per join key (JoinKeyContainsUniqueKey); one with another upsert
 *   key keeps rows by the smallest (HasUniqueKey); otherwise rows are counted (NoUniqueKey).
 * - Changelog mode (FlinkChangelogModeInferenceProgram): an inner or semi join forwards the
 *   union of its inputs' kinds (insert-only when both are: a semi join's right side then only
 *   ever adds matches); an outer or anti join may produce any change. Interval
 *   and window joins are insert-only and need insert-only inputs; a temporal join forwards its
 *   probe side's kinds.
 * - Upsert keys (FlinkRelMdUniqueKeys.getJoinUniqueKeys): every left key with every right key;
 *   a side's keys alone when the other side is unique on its join columns and the side is not
 *   null-padded. A semi or anti join keeps the left side's keys (it emits left rows only). A
 *   temporal join keeps the probe side's keys (each probe row meets one version).
 */
import { PlanError } from '../core/errors.ts';
import { joinedFieldNames } from '../operators/join/join-spec.ts';
import type { JoinInputSpec } from '../operators/join/record-state-views.ts';
import type { ChangelogMode, Distribution, JoinNode, TwoInputNode } from './logical.ts';
import { INSERT_ONLY, RETRACT } from './logical.ts';
import type { NodeTraits } from './logical.ts';

/** The distributions a join requires of its left and right inputs. */
export function joinDistributions(node: TwoInputNode): readonly [Distribution, Distribution] {
  const byKeys = (keys: readonly string[]): Distribution => (keys.length === 0 ? { type: 'single' } : { type: 'hash', keys });
  return [byKeys(node.leftKeys), byKeys(node.rightKeys)];
}

const insertOnly = (t: NodeTraits): boolean => t.changelogMode.length === 1 && t.changelogMode[0] === '+I';

/**
 * Checks a join's inputs: interval and window joins need insert-only inputs; a temporal join's
 * versioned side needs a primary (upsert) key contained in its join key.
 *
 * @throws PlanError naming the join and what its input lacks.
 */
export function checkJoinInputs(node: TwoInputNode, left: NodeTraits, right: NodeTraits): void {
  if (node.type === 'IntervalJoin' || node.type === 'WindowJoin') {
    for (const [side, t] of [
      ['left', left],
      ['right', right],
    ] as const) {
      if (!insertOnly(t)) {
        throw new PlanError(
          `${node.type} #${node.id} doesn't support consuming update and delete changes, but its ${side} input emits [${t.changelogMode.join(', ')}]: ` +
            (node.type === 'IntervalJoin' ? 'join updating inputs with a regular join (drop the time bounds)' : 'window an insert-only stream'),
        );
      }
    }
  }
  if (node.type === 'TemporalJoin') {
    const key = right.upsertKeys.find((k) => k.length > 0 && k.every((c) => node.rightKeys.includes(c)));
    if (!key) {
      const known = right.upsertKeys.map((k) => `[${k.join(', ')}]`).join(', ');
      throw new PlanError(
        `TemporalJoin #${node.id}: the versioned table needs a primary key contained in the join key [${node.rightKeys.join(', ')}] ` +
          `(${known === '' ? 'it has none: declare PRIMARY KEY … NOT ENFORCED, or deduplicate it by key with ROW_NUMBER() … DESC = 1' : `its keys: ${known}`})`,
      );
    }
  }
}

/** Flink's JoinUtil.analyzeJoinInput for one side. */
export function analyzeJoinInput(joinKeys: readonly string[], upsertKeys: readonly (readonly string[])[]): JoinInputSpec {
  const keys = upsertKeys.filter((k) => k.length > 0);
  if (keys.length === 0) return { type: 'NoUniqueKey' };
  if (keys.some((k) => k.every((c) => joinKeys.includes(c)))) return { type: 'JoinKeyContainsUniqueKey' };
  const smallest = keys.reduce((a, b) => (b.length < a.length ? b : a));
  return { type: 'HasUniqueKey', uniqueKey: smallest };
}

/** A regular join with its input specs chosen from its inputs' upsert keys. */
export function withInputSpecs(node: JoinNode, left: NodeTraits, right: NodeTraits): JoinNode {
  return { ...node, leftInputSpec: analyzeJoinInput(node.leftKeys, left.upsertKeys), rightInputSpec: analyzeJoinInput(node.rightKeys, right.upsertKeys) };
}

/** The union of two changelog modes, in Flink's kind order. */
function unionModes(a: ChangelogMode, b: ChangelogMode): ChangelogMode {
  return RETRACT.filter((k) => a.includes(k) || b.includes(k));
}

/** Changelog mode of a join from its inputs' modes. */
export function joinChangelogMode(node: TwoInputNode, left: ChangelogMode, right: ChangelogMode): ChangelogMode {
  switch (node.type) {
    case 'Join':
      return node.joinType === 'INNER' || node.joinType === 'SEMI' ? unionModes(left, right) : RETRACT;
    case 'TemporalJoin':
      return left;
    case 'IntervalJoin':
    case 'WindowJoin':
      return INSERT_ONLY;
    case 'Union':
      return unionModes(left, right);
  }
}

/** Changelog mode, upsert keys and distribution of a join's output. */
export function joinTraits(node: TwoInputNode, left: NodeTraits, right: NodeTraits): NodeTraits {
  const changelogMode = joinChangelogMode(node, left.changelogMode, right.changelogMode);
  if (node.type === 'TemporalJoin') return { changelogMode, upsertKeys: left.upsertKeys, distribution: undefined };
  // A union's rows of both sides may share any key: no upsert key survives.
  if (node.type !== 'Join') return { changelogMode, upsertKeys: [], distribution: undefined };
  if (node.joinType === 'SEMI' || node.joinType === 'ANTI') return { changelogMode, upsertKeys: left.upsertKeys, distribution: undefined };
  const rightNames = new Map(node.right.schema.fields.map((f, i) => [f.name, joinedFieldNames(node.left.schema, node.right.schema).right[i] as string]));
  const rightKeys = right.upsertKeys.map((k) => k.map((c) => rightNames.get(c) ?? c));
  const unique = (keys: readonly (readonly string[])[], joinColumns: readonly string[]): boolean => keys.some((k) => k.length > 0 && k.every((c) => joinColumns.includes(c)));
  const keys: (readonly string[])[] = [];
  for (const l of left.upsertKeys) for (const r of rightKeys) keys.push([...l, ...r.filter((c) => !l.includes(c))]);
  const padsLeft = node.joinType === 'RIGHT' || node.joinType === 'FULL';
  const padsRight = node.joinType === 'LEFT' || node.joinType === 'FULL';
  if (unique(right.upsertKeys, node.rightKeys) && !padsLeft) keys.push(...left.upsertKeys);
  if (unique(left.upsertKeys, node.leftKeys) && !padsRight) keys.push(...rightKeys);
  return { changelogMode, upsertKeys: dedupeKeys(keys), distribution: undefined };
}

function dedupeKeys(keys: readonly (readonly string[])[]): (readonly string[])[] {
  const seen = new Set<string>();
  const out: (readonly string[])[] = [];
  for (const k of keys) {
    const id = [...k].sort().join('\u0000');
    if (k.length === 0 || seen.has(id)) continue;
    seen.add(id);
    out.push(k);
  }
  return out;
}
