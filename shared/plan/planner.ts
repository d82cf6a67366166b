/**
 * The planner: takes the sink nodes a pipeline declared and returns a planned tree in which
 *
 * - every node's input has the distribution the node needs (an Exchange is inserted otherwise,
 *   as Flink's FlinkExpandConversionRule does: `hash[keys]` for keyed operators, `single` for
 *   global ones);
 * - every node has a changelog mode and upsert keys (Flink's changelog-mode inference), and
 *   a GroupAggregate emits update-before rows only when a consumer needs them.
 *
 * Planned nodes are new objects; the declared nodes are never mutated.
 */
import { PlanError } from '../core/errors.ts';
import type {
  ChangelogMode,
  Distribution,
  ExchangeNode,
  GroupAggregateNode,
  LogicalNode,
  SinkNode,
} from './logical.ts';
import { INSERT_ONLY, RETRACT, UPSERT, inputOf } from './logical.ts';
import { mergeCalcs } from './rules/merge-calcs.ts';

/** What the planner derived for one node. */
export interface NodeTraits {
  readonly changelogMode: ChangelogMode;
  /** Column sets that identify a row of the node's output (empty list: none known). */
  readonly upsertKeys: readonly (readonly string[])[];
  /** How the node's output is spread over shards; `undefined` means no known distribution. */
  readonly distribution: Distribution | undefined;
}

/** A plan after the planner ran: the sinks (roots) and the traits of every node. */
export interface PlannedPipeline {
  readonly name: string;
  readonly sinks: readonly SinkNode[];
  readonly traits: ReadonlyMap<LogicalNode, NodeTraits>;
  /** GroupAggregates that must emit update-before (`-U`) rows. */
  readonly needsUpdateBefore: ReadonlySet<LogicalNode>;
}

/** The distribution a node requires of its input, if any. */
export function requiredDistribution(node: LogicalNode): Distribution | undefined {
  const byKeys = (keys: readonly string[]): Distribution =>
    keys.length === 0 ? { type: 'single' } : { type: 'hash', keys };
  switch (node.type) {
    case 'GroupAggregate':
      return byKeys(node.groupBy);
    case 'Rank':
    case 'WindowRank':
      return byKeys(node.partitionBy);
    case 'Deduplicate':
      return byKeys(node.keys);
    case 'WindowAggregate':
      return byKeys(node.window.type === 'SESSION' ? node.window.partitionBy : node.groupBy);
    case 'LookupJoin':
      return node.shuffle ? byKeys(node.keys.map((k) => k.probe)) : undefined;
    default:
      return undefined;
  }
}

/** True when rows distributed as `actual` are already where `required` wants them. */
export function satisfies(actual: Distribution | undefined, required: Distribution): boolean {
  if (actual === undefined) return false;
  if (required.type === 'single') return actual.type === 'single';
  if (required.type === 'broadcast') return actual.type === 'broadcast';
  return (
    actual.type === 'hash' &&
    actual.keys.length === required.keys.length &&
    actual.keys.every((k, i) => k === required.keys[i])
  );
}

/** Prints a distribution as Flink does: `hash[a, b]`, `single`, `broadcast`. */
export function formatDistribution(d: Distribution): string {
  return d.type === 'hash' ? `hash[${d.keys.join(', ')}]` : d.type;
}

/**
 * Plans a pipeline. `nextId` allocates ids for inserted Exchange nodes (ids continue after the
 * declared ones so explain output and operator ids stay stable for a given pipeline).
 */
export function planPipeline(name: string, sinks: readonly SinkNode[], nextId: () => number): PlannedPipeline {
  if (sinks.length === 0) {
    throw new PlanError(`pipeline '${name}' has no sink: add one with .sinkTo(…) or .print()`);
  }
  checkNoFanOut(sinks);
  const rebuilt = new Map<LogicalNode, LogicalNode>();
  const traits = new Map<LogicalNode, NodeTraits>();

  const plan = (node: LogicalNode): LogicalNode => {
    const done = rebuilt.get(node);
    if (done) return done;
    let result: LogicalNode;
    if (node.type === 'Source') {
      result = node;
    } else {
      let input = plan(node.input);
      if (node.type === 'Calc' && input.type === 'Calc') {
        const merged = mergeCalcs(node, input);
        if (merged) {
          traits.delete(input);
          result = plan(merged);
          rebuilt.set(node, result);
          return result;
        }
      }
      const required = requiredDistribution(node);
      if (required && !satisfies(traits.get(input)?.distribution, required)) {
        const exchange: ExchangeNode = {
          type: 'Exchange',
          id: nextId(),
          schema: input.schema,
          input,
          distribution: required,
        };
        const inputTraits = traits.get(input);
        traits.set(exchange, {
          changelogMode: inputTraits?.changelogMode ?? INSERT_ONLY,
          upsertKeys: inputTraits?.upsertKeys ?? [],
          distribution: required,
        });
        input = exchange;
      }
      result = input === node.input ? node : ({ ...node, input } as LogicalNode);
    }
    traits.set(result, deriveTraits(result, traits));
    rebuilt.set(node, result);
    return result;
  };

  const planned = sinks.map((s) => plan(s) as SinkNode);
  const needsUpdateBefore = new Set<LogicalNode>();
  for (const sink of planned) markUpdateBefore(sink, sinkNeedsUpdateBefore(sink), needsUpdateBefore);
  // Aggregates that may omit -U emit an upsert changelog; record that in their traits.
  for (const [node, t] of traits) {
    if (node.type === 'GroupAggregate' && !needsUpdateBefore.has(node)) {
      traits.set(node, { ...t, changelogMode: UPSERT });
    }
  }
  propagateModes(planned, traits);
  return { name, sinks: planned, traits, needsUpdateBefore };
}

/** A sink that applies rows by key can do without `-U`; a whole-row (retract) sink cannot. */
function sinkNeedsUpdateBefore(sink: SinkNode): boolean {
  return sink.upsertKey === undefined;
}

/**
 * Walks from a consumer down to the producers of updates, telling each GroupAggregate whether
 * a consumer needs `-U` rows (Flink's ChangelogModeInferenceProgram, reduced to our nodes).
 */
function markUpdateBefore(node: LogicalNode, needed: boolean, out: Set<LogicalNode>): void {
  const input = inputOf(node);
  if (node.type === 'GroupAggregate' && needed) out.add(node);
  if (!input) return;
  // Stateful consumers retract their own earlier results, so they need their input's -U rows.
  const inputNeeds =
    node.type === 'GroupAggregate' ||
    node.type === 'Rank' ||
    node.type === 'WindowAggregate' ||
    node.type === 'WindowRank' ||
    node.type === 'Deduplicate'
      ? true
      : needed;
  markUpdateBefore(input, inputNeeds, out);
}

function deriveTraits(node: LogicalNode, traits: ReadonlyMap<LogicalNode, NodeTraits>): NodeTraits {
  const inputTraits = (n: LogicalNode): NodeTraits =>
    traits.get(n) ?? { changelogMode: INSERT_ONLY, upsertKeys: [], distribution: undefined };
  switch (node.type) {
    case 'Source':
      return {
        changelogMode: INSERT_ONLY,
        upsertKeys: [],
        distribution: node.parallelism === 1 ? { type: 'single' } : undefined,
      };
    case 'Calc': {
      const t = inputTraits(node.input);
      const renames = plainRefRenames(node);
      return {
        changelogMode: t.changelogMode,
        upsertKeys: t.upsertKeys.flatMap((keys) => mapKeys(keys, renames)),
        distribution: mapDistribution(t.distribution, renames),
      };
    }
    case 'Map':
      return { changelogMode: inputTraits(node.input).changelogMode, upsertKeys: [], distribution: undefined };
    case 'Exchange':
      return { ...inputTraits(node.input), distribution: node.distribution };
    case 'GroupAggregate':
      return aggregateTraits(node, inputTraits(node.input));
    case 'Sink':
      return inputTraits(node.input);
    case 'Rank':
    case 'Deduplicate':
    case 'WindowRank':
    case 'WindowAggregate':
    case 'LookupJoin': {
      const t = inputTraits(node.input);
      const insertOnlyOut = node.type === 'WindowAggregate' || node.type === 'WindowRank';
      return {
        changelogMode: insertOnlyOut ? INSERT_ONLY : node.type === 'LookupJoin' ? t.changelogMode : RETRACT,
        upsertKeys: [],
        distribution: t.distribution,
      };
    }
  }
}

function aggregateTraits(node: GroupAggregateNode, input: NodeTraits): NodeTraits {
  return { changelogMode: RETRACT, upsertKeys: [node.groupBy], distribution: input.distribution };
}

/** After update-before decisions, modes of downstream pass-through nodes follow their inputs. */
function propagateModes(sinks: readonly LogicalNode[], traits: Map<LogicalNode, NodeTraits>): void {
  const visit = (node: LogicalNode): ChangelogMode => {
    const input = inputOf(node);
    const own = traits.get(node);
    if (!own) return INSERT_ONLY;
    if (!input) return own.changelogMode;
    const inputMode = visit(input);
    if (node.type === 'Calc' || node.type === 'Map' || node.type === 'Exchange' || node.type === 'Sink' || node.type === 'LookupJoin') {
      traits.set(node, { ...own, changelogMode: inputMode });
      return inputMode;
    }
    return own.changelogMode;
  };
  for (const s of sinks) visit(s);
}

/** Output name → input name for projection entries that are plain column references. */
function plainRefRenames(node: { readonly projection: readonly { readonly name: string; readonly expr: { readonly kind: string } }[] }): Map<string, string> {
  const renames = new Map<string, string>();
  for (const p of node.projection) {
    const expr = p.expr as { kind: string; name?: string };
    if (expr.kind === 'ref' && expr.name !== undefined && !renames.has(expr.name)) renames.set(expr.name, p.name);
  }
  return renames;
}

function mapKeys(keys: readonly string[], renames: ReadonlyMap<string, string>): (readonly string[])[] {
  const mapped: string[] = [];
  for (const k of keys) {
    const to = renames.get(k);
    if (to === undefined) return [];
    mapped.push(to);
  }
  return [mapped];
}

function mapDistribution(d: Distribution | undefined, renames: ReadonlyMap<string, string>): Distribution | undefined {
  if (!d || d.type !== 'hash') return d;
  const keys = mapKeys(d.keys, renames)[0];
  return keys ? { type: 'hash', keys } : undefined;
}

/**
 * Stages are linear operator chains, so a stream consumed twice would need a fan-out the job
 * graph cannot express yet; say so instead of planning something wrong.
 */
function checkNoFanOut(sinks: readonly SinkNode[]): void {
  const consumers = new Map<LogicalNode, number>();
  const seen = new Set<LogicalNode>();
  const visit = (node: LogicalNode): void => {
    if (seen.has(node)) return;
    seen.add(node);
    const input = inputOf(node);
    if (!input) return;
    consumers.set(input, (consumers.get(input) ?? 0) + 1);
    visit(input);
  };
  sinks.forEach(visit);
  for (const [node, count] of consumers) {
    if (count > 1) {
      throw new PlanError(
        `${describeNode(node)} is consumed by ${count} operators; a stream may have one consumer ` +
          `(build the shared part twice, once per branch)`,
      );
    }
  }
}

/** Short human name of a node for error messages. */
export function describeNode(node: LogicalNode): string {
  return node.type === 'Source' || node.type === 'Sink' ? `${node.type} '${node.name}'` : `${node.type} #${node.id}`;
}
