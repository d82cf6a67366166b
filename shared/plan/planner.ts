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
import { isChangelogFormat } from '../core/formats.ts';
import { isInsertOnlyFormat } from '../core/format-encoders.ts';
import { PlanError } from '../core/errors.ts';
import type { NodeTraits, RankStrategy } from './logical.ts';
import type {
  ChangelogMode,
  DeduplicateNode,
  Distribution,
  ExchangeNode,
  GroupAggregateNode,
  LogicalNode,
  LookupJoinNode,
  RankNode,
  SinkNode,
} from './logical.ts';
import { modifiedMonotonicity } from './monotonicity.ts';
import { INSERT_ONLY, RETRACT, UPSERT, inputOf, inputsOf, isTwoInput, type TwoInputNode } from './logical.ts';
import { checkDeterminism } from './determinism.ts';
import { checkJoinInputs, joinChangelogMode, joinDistributions, joinTraits, withInputSpecs } from './join-planning.ts';
import { mergeCalcs } from './rules/merge-calcs.ts';
import { unshareSubtrees } from './rules/unshare.ts';
import { checkWindowInput, windowTraits } from './window-planning.ts';

/** What the planner derived for one node (in logical.ts, so the planning rules need not import the planner). */
export type { NodeTraits };

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
    case 'WindowDeduplicate':
      // Window operators key their state and timers by exactly these columns (the window is a
      // namespace), and the AWS runtime finds a shard's timers by hashing that key: the exchange
      // must hash the same columns in the same order.
      return byKeys(node.partitionBy);
    case 'Deduplicate':
      return byKeys(node.keys);
    case 'OverAggregate':
      return byKeys(node.partitionBy);
    case 'TemporalSort':
      // Flink's StreamPhysicalTemporalSort requires a singleton distribution: one order for all rows.
      return { type: 'single' };
    case 'WindowAggregate':
    case 'WindowProcess':
      // SESSION partition columns are part of the group key (checked by the operator), and the
      // state key is the whole group key.
      return byKeys(node.groupBy);
    case 'WindowTableFunction':
      // A SESSION table function keeps each partition's sessions (Flink keys it by PARTITION BY);
      // the aligned ones are stateless and run where their input is.
      return node.window.type === 'SESSION' ? byKeys(node.window.partitionBy) : undefined;
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
  const trees = unshareSubtrees(sinks, nextId);
  const rebuilt = new Map<LogicalNode, LogicalNode>();
  const traits = new Map<LogicalNode, NodeTraits>();

  const exchangeOver = (input: LogicalNode, distribution: Distribution): ExchangeNode => {
    const exchange: ExchangeNode = { type: 'Exchange', id: nextId(), schema: input.schema, input, distribution };
    const inputTraits = traits.get(input);
    traits.set(exchange, { changelogMode: inputTraits?.changelogMode ?? INSERT_ONLY, upsertKeys: inputTraits?.upsertKeys ?? [], distribution });
    return exchange;
  };

  /**
   * A join gets an Exchange on each side, whatever the inputs' placement: a two-input stage
   * always reads both sides from exchanges (on AWS, one stream both producers write into).
   */
  const planJoin = (node: TwoInputNode): LogicalNode => {
    const left = plan(node.left);
    const right = plan(node.right);
    const lt = traits.get(left) ?? NO_TRAITS;
    const rt = traits.get(right) ?? NO_TRAITS;
    checkJoinInputs(node, lt, rt);
    const [ld, rd] = joinDistributions(node);
    // Planning is idempotent: a join planned already (reached again through a merged Calc)
    // keeps its exchanges.
    const over = (input: LogicalNode, d: Distribution): LogicalNode => (input.type === 'Exchange' && satisfies(input.distribution, d) ? input : exchangeOver(input, d));
    const rebuiltJoin = { ...node, left: over(left, ld), right: over(right, rd) } as TwoInputNode;
    return rebuiltJoin.type === 'Join' ? withInputSpecs(rebuiltJoin, lt, rt) : rebuiltJoin;
  };

  /**
   * A window Top-N over processing-time windows straight after their table function (through
   * projections keeping its keys): the exchange goes below the table function, so that the
   * function assigns each row its window in the rank's own task, as Flink runs the two as one
   * operator. Behind the exchange, a row could reach the rank after its window fired there.
   * Undefined when the plan has another shape.
   */
  const windowFunctionAfterExchange = (node: LogicalNode, input: LogicalNode, required: Distribution): LogicalNode | undefined => {
    if (node.type !== 'WindowRank' || node.timeDomain !== 'processing') return undefined;
    const rebuild = (at: LogicalNode, d: Distribution): LogicalNode | undefined => {
      if (at.type === 'WindowTableFunction') {
        if (at.timeDomain !== 'processing' || at.window.type === 'SESSION') return undefined;
        if (d.type === 'hash' && !d.keys.every((k) => at.input.schema.fields.some((f) => f.name === k))) return undefined;
        return { ...at, input: exchangeOver(at.input, d) };
      }
      if (at.type !== 'Calc') return undefined;
      // The keys by the names the Calc's input gives them (a key the Calc computes stops here).
      const below = mapDistribution(d, new Map([...plainRefRenames(at)].map(([input, output]) => [output, input])));
      if (below === undefined) return undefined;
      const inner = rebuild(at.input, below);
      return inner === undefined ? undefined : { ...at, input: inner };
    };
    const rebuilt = rebuild(input, required);
    if (rebuilt === undefined) return undefined;
    // The rebuilt nodes' traits, bottom up; the rank's input now has the required distribution.
    const settle = (at: LogicalNode): void => {
      if (at.type === 'Calc') settle(at.input);
      traits.set(at, deriveTraits(at, traits));
    };
    settle(rebuilt);
    return rebuilt;
  };

  const plan = (node: LogicalNode): LogicalNode => {
    const done = rebuilt.get(node);
    if (done) return done;
    let result: LogicalNode;
    if (node.type === 'Source') {
      result = node;
    } else if (isTwoInput(node)) {
      result = planJoin(node);
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
      if (required && !satisfies(traits.get(input)?.distribution, required)) input = windowFunctionAfterExchange(node, input, required) ?? exchangeOver(input, required);
      if (node.type === 'Deduplicate' && !isInsertOnly(traits.get(input))) {
        // Flink plans ROW_NUMBER() … = 1 over an updating input as a Rank, not a Deduplicate.
        result = plan(deduplicateAsRank(node));
        rebuilt.set(node, result);
        return result;
      }
      checkWindowInput(node, traits.get(input));
      if (node.type === 'Rank') {
        const choice = chooseRankStrategy(node, input, traits.get(input));
        result = { ...node, input, strategy: choice.strategy, ...(choice.upsertKey ? { upsertKey: choice.upsertKey } : {}) };
      } else {
        result = input === node.input ? node : ({ ...node, input } as LogicalNode);
      }
    }
    traits.set(result, deriveTraits(result, traits));
    rebuilt.set(node, result);
    return result;
  };

  const planned = trees.map((s) => plan(s) as SinkNode);
  const needsUpdateBefore = new Set<LogicalNode>();
  for (const sink of planned) markUpdateBefore(sink, sinkNeedsUpdateBefore(sink), needsUpdateBefore);
  // Producers of updates that may omit -U emit an upsert changelog; record that in their traits.
  for (const [node, t] of traits) {
    if (UPDATE_PRODUCERS.has(node.type) && !needsUpdateBefore.has(node) && t.changelogMode.includes('-U')) {
      traits.set(node, { ...t, changelogMode: UPSERT });
    }
  }
  propagateModes(planned, traits);
  checkCalcDeterminism(planned, traits);
  return { name, sinks: planned, traits, needsUpdateBefore };
}

/** Refuses non-deterministic functions where a retraction could not repeat their value (determinism.ts). */
function checkCalcDeterminism(sinks: readonly LogicalNode[], traits: ReadonlyMap<LogicalNode, NodeTraits>): void {
  const seen = new Set<LogicalNode>();
  const visit = (node: LogicalNode): void => {
    if (seen.has(node)) return;
    seen.add(node);
    if (node.type === 'Calc') checkDeterminism(node, traits.get(node)?.changelogMode ?? INSERT_ONLY);
    for (const input of inputsOf(node)) visit(input);
  };
  for (const sink of sinks) visit(sink);
}

/** A sink that applies rows by key can do without `-U`; a whole-row (retract) sink cannot. */
function sinkNeedsUpdateBefore(sink: SinkNode): boolean {
  return sink.upsertKey === undefined;
}

/** Node types whose operators produce update changelogs and can leave out `-U` rows. */
const UPDATE_PRODUCERS: ReadonlySet<LogicalNode['type']> = new Set(['GroupAggregate', 'Rank', 'Deduplicate', 'WindowAggregate']);

/**
 * Walks from a consumer down to the producers of updates, telling each whether a consumer needs
 * `-U` rows (Flink's ChangelogModeInferenceProgram, reduced to our nodes).
 */
function markUpdateBefore(node: LogicalNode, needed: boolean, out: Set<LogicalNode>): void {
  if (isTwoInput(node)) {
    // A regular join retracts its earlier results, so it needs both inputs' -U rows; a temporal
    // join forwards its probe side's kinds and reads the versioned side as upserts (Flink asks
    // it for only-after updates); interval and window joins have insert-only inputs.
    // A union forwards both sides' rows: its consumer's need is theirs.
    const probeNeeds = node.type === 'TemporalJoin' || node.type === 'Union' ? needed : true;
    markUpdateBefore(node.left, probeNeeds, out);
    markUpdateBefore(node.right, node.type === 'Union' ? needed : node.type !== 'TemporalJoin', out);
    return;
  }
  const input = inputOf(node);
  if (UPDATE_PRODUCERS.has(node.type) && needed) out.add(node);
  if (!input) return;
  // Stateful consumers retract their own earlier results, so they need their input's -U rows;
  // UpdateFast Top-N is the exception: it applies its upsert input by key.
  const inputNeeds =
    node.type === 'Rank'
      ? node.strategy !== 'UpdateFast'
      : node.type === 'GroupAggregate' || node.type === 'WindowAggregate' || node.type === 'WindowProcess' || node.type === 'Deduplicate' || node.type === 'WindowTableFunction'
        ? true
        : needed;
  markUpdateBefore(input, inputNeeds, out);
}

function isInsertOnly(t: NodeTraits | undefined): boolean {
  return t === undefined || (t.changelogMode.length === 1 && t.changelogMode[0] === '+I');
}

/** `ROW_NUMBER() OVER (PARTITION BY keys ORDER BY t ASC|DESC) = 1` as a Rank node. */
function deduplicateAsRank(node: DeduplicateNode): RankNode {
  if (node.orderColumn === undefined) {
    throw new PlanError(
      `Deduplicate #${node.id} keeps the ${node.keep} row by processing time, which needs an insert-only input; ` +
        `its input is an update stream: order by an event-time column instead`,
    );
  }
  return {
    type: 'Rank',
    id: node.id,
    input: node.input,
    schema: node.schema,
    rankType: 'ROW_NUMBER',
    partitionBy: node.keys,
    orderBy: [{ column: node.orderColumn, direction: node.keep === 'first' ? 'ASC' : 'DESC', nullsFirst: node.keep === 'first' }],
    rankRange: { type: 'constant', start: 1, end: 1 },
    ...(node.stateTtlMs !== undefined ? { stateTtlMs: node.stateTtlMs } : {}),
  };
}

/**
 * Flink's RankProcessStrategy.analyzeRankProcessStrategies: AppendFast for insert-only input;
 * UpdateFast when the input has an upsert key containing the partition key and every order
 * column only moves rows towards the top (INCREASING and DESC, DECREASING and ASC, or
 * CONSTANT); Retract otherwise.
 */
export function chooseRankStrategy(
  node: RankNode,
  input: LogicalNode,
  inputTraits: NodeTraits | undefined,
): { strategy: RankStrategy; upsertKey?: readonly string[] } {
  if (isInsertOnly(inputTraits)) return { strategy: 'AppendFast' };
  const key = (inputTraits?.upsertKeys ?? []).find((k) => node.partitionBy.every((p) => k.includes(p)));
  if (!key) return { strategy: 'Retract' };
  const mono = modifiedMonotonicity(input);
  const monotonic =
    mono !== undefined &&
    node.orderBy.length > 0 &&
    node.orderBy.every((f) => {
      const m = mono.get(f.column);
      return (m === 'DECREASING' && f.direction === 'ASC') || (m === 'INCREASING' && f.direction === 'DESC') || m === 'CONSTANT';
    });
  return monotonic ? { strategy: 'UpdateFast', upsertKey: key } : { strategy: 'Retract' };
}

function deriveTraits(node: LogicalNode, traits: ReadonlyMap<LogicalNode, NodeTraits>): NodeTraits {
  const inputTraits = (n: LogicalNode): NodeTraits =>
    traits.get(n) ?? { changelogMode: INSERT_ONLY, upsertKeys: [], distribution: undefined };
  switch (node.type) {
    case 'Source':
      return {
        // A source of change events (debezium-json) is a full retract changelog, as in Flink.
        changelogMode: node.connector.type !== 'generator' && isChangelogFormat(node.connector.format) ? RETRACT : INSERT_ONLY,
        upsertKeys: node.primaryKey !== undefined && node.primaryKey.length > 0 ? [node.primaryKey] : [],
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
    case 'Correlate': {
      // Input columns pass unchanged, so a hash distribution on them still holds; one row becomes many, so no key is unique.
      const t = inputTraits(node.input);
      return { changelogMode: t.changelogMode, upsertKeys: [], distribution: t.distribution };
    }
    case 'Exchange':
      return { ...inputTraits(node.input), distribution: node.distribution };
    case 'GroupAggregate':
      return aggregateTraits(node);
    case 'Sink': {
      const t = inputTraits(node.input);
      if ((node.connector.type === 'jsonl' || node.connector.type === 'kinesis') && isInsertOnlyFormat(node.connector.format) && t.changelogMode.some((k) => k !== '+I')) {
        throw new PlanError(insertOnlySinkMessage(node, t, traits));
      }
      return t;
    }
    case 'Rank': {
      const t = inputTraits(node.input);
      const keys: (readonly string[])[] = [];
      // Ties share a RANK / DENSE_RANK number, so only ROW_NUMBER's number identifies a row.
      if (node.rankNumberColumn && node.rankType === 'ROW_NUMBER') keys.push([...node.partitionBy, node.rankNumberColumn]);
      const top1 = node.rankType === 'ROW_NUMBER' && node.rankRange.type === 'constant' && node.rankRange.end === 1;
      if (top1) keys.push(node.partitionBy);
      for (const k of t.upsertKeys) if (node.partitionBy.every((p) => k.includes(p))) keys.push(k);
      return { changelogMode: RETRACT, upsertKeys: keys, distribution: undefined };
    }
    case 'OverAggregate': {
      const t = inputTraits(node.input);
      if (!(t.changelogMode.length === 1 && t.changelogMode[0] === '+I')) {
        throw new PlanError(`OverAggregate #${node.id} doesn't support consuming update and delete changes, but its input emits [${t.changelogMode.join(', ')}]`);
      }
      return { changelogMode: INSERT_ONLY, upsertKeys: t.upsertKeys, distribution: undefined };
    }
    case 'TemporalSort': {
      const t = inputTraits(node.input);
      if (!(t.changelogMode.length === 1 && t.changelogMode[0] === '+I')) {
        throw new PlanError(`TemporalSort #${node.id} doesn't support consuming update and delete changes, but its input emits [${t.changelogMode.join(', ')}]: ORDER BY a time attribute sorts an insert-only stream`);
      }
      // It runs on one shard (after Exchange(single)), and so does everything after it in its stage.
      return { changelogMode: INSERT_ONLY, upsertKeys: t.upsertKeys, distribution: { type: 'single' } };
    }
    case 'Deduplicate': {
      const insertOnly = node.keep === 'first' && node.orderColumn === undefined;
      return { changelogMode: insertOnly ? INSERT_ONLY : RETRACT, upsertKeys: [node.keys], distribution: undefined };
    }
    case 'WindowAggregate':
    case 'WindowProcess':
    case 'WindowTableFunction':
    case 'WindowRank':
    case 'WindowDeduplicate':
      return windowTraits(node, inputTraits(node.input));
    case 'LookupJoin': {
      // Stateless and row-by-row: the probe's changelog and placement carry over (as long as
      // the distribution's columns survive into the output), so a second lookup join hashed by
      // the same key needs no second Exchange. A probe row may match several dimension rows,
      // so no upsert key survives.
      const t = inputTraits(node.input);
      return { changelogMode: t.changelogMode, upsertKeys: [], distribution: mapDistribution(t.distribution, lookupProbeRenames(node)) };
    }
    case 'Join':
    case 'IntervalJoin':
    case 'TemporalJoin':
    case 'WindowJoin':
    case 'Union':
      return joinTraits(node, inputTraits(node.left), inputTraits(node.right));
  }
}

/** Traits of a node the planner has not seen (it cannot happen for planned inputs). */
const NO_TRAITS: NodeTraits = { changelogMode: INSERT_ONLY, upsertKeys: [], distribution: undefined };

/**
 * Stateful operators report no output distribution, as Flink's streaming planner does: a keyed
 * operator above another one gets its own Exchange even when the keys agree (the seed article's
 * plan shows `Rank` over `Exchange(hash[merchandiseId])` over the GroupAggregate by
 * merchandiseId). Keeping the stages separate also keeps each stage's state and scaling
 * independent on AWS.
 */
function aggregateTraits(node: GroupAggregateNode): NodeTraits {
  return { changelogMode: RETRACT, upsertKeys: [node.groupBy], distribution: undefined };
}

/** After update-before decisions, modes of downstream pass-through nodes follow their inputs. */
function propagateModes(sinks: readonly LogicalNode[], traits: Map<LogicalNode, NodeTraits>): void {
  const visit = (node: LogicalNode): ChangelogMode => {
    const own = traits.get(node);
    if (!own) return INSERT_ONLY;
    if (isTwoInput(node)) {
      const mode = joinChangelogMode(node, visit(node.left), visit(node.right));
      traits.set(node, { ...own, changelogMode: mode });
      return mode;
    }
    const input = inputOf(node);
    if (!input) return own.changelogMode;
    const inputMode = visit(input);
    if (node.type === 'Calc' || node.type === 'Map' || node.type === 'Correlate' || node.type === 'Exchange' || node.type === 'Sink' || node.type === 'LookupJoin') {
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

/** Probe column → output name for the probe columns a lookup join outputs. */
function lookupProbeRenames(node: LookupJoinNode): Map<string, string> {
  const renames = new Map<string, string>();
  if (node.output === undefined) {
    for (const f of node.input.schema.fields) renames.set(f.name, f.name);
    return renames;
  }
  for (const c of node.output) if (c.side === 'probe' && !renames.has(c.column)) renames.set(c.column, c.as ?? c.column);
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
 * Flink's refusal of an updating query in a sink whose format writes inserts only (csv): it
 * names the node whose output first carries the changes (FlinkChangelogModeInferenceProgram).
 */
function insertOnlySinkMessage(sink: Extract<LogicalNode, { type: 'Sink' }>, t: NodeTraits, traits: ReadonlyMap<LogicalNode, NodeTraits>): string {
  const kinds = [...(t.changelogMode.some((k) => k === '-U' || k === '+U') ? ['update'] : []), ...(t.changelogMode.includes('-D') ? ['delete'] : [])];
  let producer: LogicalNode = sink.input;
  for (;;) {
    const below = inputsOf(producer).find((i) => (traits.get(i)?.changelogMode ?? INSERT_ONLY).some((k) => k !== '+I'));
    if (below === undefined) break;
    producer = below;
  }
  const format = sink.connector.type === 'jsonl' || sink.connector.type === 'kinesis' ? (sink.connector.format?.type ?? 'json') : 'json';
  return `Table sink '${sink.name}' doesn't support consuming ${kinds.join(' and ')} changes which is produced by node ${describeNode(producer)} (the '${format}' format writes inserts only; use 'debezium-json' for a changelog)`;
}

/** Short human name of a node for error messages. */
export function describeNode(node: LogicalNode): string {
  return node.type === 'Source' || node.type === 'Sink' ? `${node.type} '${node.name}'` : `${node.type} #${node.id}`;
}
