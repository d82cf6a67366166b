/**
 * The job graph: the serializable (JSON) form of a planned pipeline that runtimes and the CDK
 * stack consume. A stage is a linear chain of operators that needs no re-partitioning; an
 * exchange (hash, single or broadcast) ends a stage. On AWS each exchange becomes a Kinesis
 * stream whose shard count is the next stage's parallelism.
 *
 * Operator specs are plain data; user functions appear only as registry references
 * (`udf_3`), resolved from the pipeline module at run time.
 */
import { PlanError, type ErrorPolicy } from '../core/errors.ts';
import type { Schema } from '../core/types.ts';
import { DEFAULT_KEY_GROUPS } from '../partition/key-groups.ts';
import type { Expr } from './expr.ts';
import type {
  AggCall,
  ChangelogMode,
  Distribution,
  LogicalNode,
  LookupJoinNode,
  LookupSourceDescriptor,
  SinkConnector,
  SourceConnector,
  WatermarkSpec,
} from './logical.ts';
import { describePlanNode } from './explain.ts';
import type { PlannedPipeline } from './planner.ts';
import type { DeduplicateSpec, RankSpec } from '../operators/rank/rank-spec.ts';
import type { WindowAggregateSpec, WindowProcessSpec } from '../operators/window/window-aggregate.ts';
import type { WindowDeduplicateSpec } from '../operators/window-rank/window-deduplicate.ts';
import type { WindowRankSpec } from '../operators/window-rank/window-rank.ts';
import type { WindowTableFunctionSpec } from '../operators/window-rank/window-table-function.ts';
import type { LookupJoinSpec } from '../lookup/lookup-join-spec.ts';
import type { IntervalJoinSpec, StreamingJoinSpec, TemporalJoinSpec, WindowJoinSpec } from '../operators/join/index.ts';
import type { UnionSpec } from '../operators/union/union-operator.ts';
import type { CorrelateSpec } from '../operators/correlate/correlate-operator.ts';
import type { OverAggregateSpec } from '../operators/over/over-aggregate.ts';
import type { TemporalSortSpec } from '../operators/sort/temporal-sort.ts';
import type { ConstraintEnforcerSpec } from '../operators/sink/constraint-enforcer.ts';
import { windowOperator, lateSinksOf } from './window-job.ts';
import { isTwoInput, type ExchangeNode, type TwoInputNode } from './logical.ts';

/** Version of the job graph format; bump on incompatible changes. */
export const JOB_GRAPH_VERSION = 1;

/** A source of the job. */
export interface JobSource {
  readonly name: string;
  readonly schema: Schema;
  readonly connector: SourceConnector;
  readonly watermark?: WatermarkSpec;
  readonly parallelism: number;
}

/** A sink of the job. */
export interface JobSink {
  readonly name: string;
  readonly schema: Schema;
  readonly connector: SinkConnector;
  readonly upsertKey?: readonly string[];
  readonly changelogMode: ChangelogMode;
}

/** Plain-data specs of the operators the runtimes can build, by type. */
export interface OperatorSpecs {
  Calc: { readonly projection: readonly { readonly name: string; readonly expr: Expr }[]; readonly condition?: Expr };
  Map: { readonly ref: string; readonly display: string };
  Correlate: CorrelateSpec;
  GroupAggregate: {
    readonly groupBy: readonly string[];
    readonly aggCalls: readonly AggCall[];
    readonly generateUpdateBefore: boolean;
    readonly stateTtlMs?: number;
  };
  Rank: RankSpec;
  Deduplicate: DeduplicateSpec;
  /** OVER aggregation (ROWS / RANGE frames ending at the current row). */
  OverAggregate: OverAggregateSpec;
  /** ORDER BY a time attribute without LIMIT: rows re-emitted in time order. */
  TemporalSort: TemporalSortSpec;
  /** Window aggregation (TUMBLE / HOP / CUMULATE / SESSION, triggers, lateness). */
  WindowAggregate: WindowAggregateSpec;
  /** Full window function: the window spec plus the user function's registry reference. */
  WindowProcess: WindowProcessSpec & { readonly ref: string; readonly display: string };
  /** Window table function: appends window_start, window_end, window_time. */
  WindowTableFunction: WindowTableFunctionSpec;
  /** The SESSION window table function: rows wait until their session closes, then leave with its window columns. */
  UnalignedWindowTableFunction: WindowTableFunctionSpec;
  /** Window Top-N. */
  WindowRank: WindowRankSpec;
  /** Window deduplication. */
  WindowDeduplicate: WindowDeduplicateSpec;
  /** Lookup (dimension table) join: the operator's spec plus where the dimension rows come from. */
  LookupJoin: LookupJoinSpec & { readonly source: LookupSourceDescriptor };
  /** Regular stream–stream join (two-input: the first operator of a two-input stage). */
  Join: StreamingJoinSpec;
  /** Interval join (two-input). */
  IntervalJoin: IntervalJoinSpec;
  /** Event-time temporal join (two-input). */
  TemporalJoin: TemporalJoinSpec;
  /** Window join (two-input). */
  WindowJoin: WindowJoinSpec;
  /** UNION ALL (two-input): forwards the rows of both inputs. */
  Union: UnionSpec;
  /**
   * The last operator of a stage writing a sink that has something to check (NOT NULL
   * columns, a DynamoDB or Kinesis target): a row that does not fit the sink is a data error.
   */
  ConstraintEnforcer: ConstraintEnforcerSpec;
}

/** Operator types with two inputs; such an operator is always the first of its stage. */
export const TWO_INPUT_OPERATORS: ReadonlySet<keyof OperatorSpecs> = new Set(['Join', 'IntervalJoin', 'TemporalJoin', 'WindowJoin', 'Union']);

/**
 * A side output routed to a sink: rows the operator `operatorId` emits under `tag` (late rows
 * of window operators use the tag `late`) are written, as `+I` rows, to the sink `sink`.
 */
export interface JobSideOutput {
  readonly operatorId: string;
  readonly tag: string;
  readonly sink: string;
}

/** One operator of a stage's chain. */
export type JobOperator = {
  [T in keyof OperatorSpecs]: {
    /** Stable id, e.g. `GroupAggregate_4`; state is stored under it. */
    readonly id: string;
    readonly type: T;
    readonly spec: OperatorSpecs[T];
    readonly inputSchema: Schema;
    readonly outputSchema: Schema;
    /** The explain line of the node, for logs and dashboards. */
    readonly description: string;
  };
}[keyof OperatorSpecs];

/** One exchange feeding a stage: the stage that writes it and how its rows are spread. */
export interface ExchangeInput {
  readonly fromStage: string;
  readonly distribution: Distribution;
  /** The rows' schema (each side of a two-input stage has its own). */
  readonly schema: Schema;
}

/** What feeds a stage. */
export type StageInput =
  | { readonly type: 'source'; readonly source: string }
  | { readonly type: 'exchange'; readonly fromStage: string; readonly distribution: Distribution }
  /**
   * Two exchanges into a two-input stage (a join): both producers write into the stage's one
   * input stream, each row tagged by its side (on AWS by the producing stage); the stage's
   * watermark is the minimum over both sides' channels.
   */
  | { readonly type: 'twoInput'; readonly left: ExchangeInput; readonly right: ExchangeInput };

/** The stages feeding a stage through exchanges, with the side each feeds (`left` for one input). */
export function upstreamOf(input: StageInput): { readonly fromStage: string; readonly side: 'left' | 'right' }[] {
  if (input.type === 'exchange') return [{ fromStage: input.fromStage, side: 'left' }];
  if (input.type === 'twoInput') return [{ fromStage: input.left.fromStage, side: 'left' }, { fromStage: input.right.fromStage, side: 'right' }];
  return [];
}

/** Where a stage's output goes. */
export type StageOutput =
  | { readonly type: 'exchange'; readonly toStage: string; readonly distribution: Distribution }
  | { readonly type: 'sink'; readonly sink: string };

/** A chain of operators run by one handler per shard. */
export interface JobStage {
  readonly id: string;
  readonly parallelism: number;
  readonly input: StageInput;
  readonly inputSchema: Schema;
  readonly operators: readonly JobOperator[];
  readonly output: StageOutput;
  /** Side outputs of this stage's operators that go to sinks (e.g. `lateSink` of a window). */
  readonly sideOutputs?: readonly JobSideOutput[];
}

/** The whole job, upstream stages first. */
export interface JobGraph {
  readonly version: typeof JOB_GRAPH_VERSION;
  readonly name: string;
  /** Fixed number of key groups state is addressed by (like Flink's max parallelism). */
  readonly keyGroups: number;
  readonly sources: readonly JobSource[];
  readonly sinks: readonly JobSink[];
  readonly stages: readonly JobStage[];
  /**
   * What every runtime does with a record that fails with a data error
   * (`'pipeline.error-policy'`); absent means the default, `dead-letter`.
   */
  readonly errorPolicy?: ErrorPolicy;
}

/** Options of {@link buildJobGraph}. */
export interface JobGraphOptions {
  /** Shards of every stage that is not forced to one shard. @default 1 */
  readonly parallelism?: number;
  /** @default DEFAULT_KEY_GROUPS */
  readonly keyGroups?: number;
  /** The job's error policy (see {@link JobGraph.errorPolicy}). @default 'dead-letter' */
  readonly errorPolicy?: ErrorPolicy;
}

/** A stage before ids are assigned: its chain and what feeds it. */
interface Segment {
  /** Operators in execution order (the stage's head first). */
  readonly nodes: LogicalNode[];
  readonly head: LogicalNode;
  /** Upstream segments with the exchange that feeds each (one for an Exchange head, two for a join). */
  readonly inputs: { readonly segment: Segment; readonly exchange: ExchangeNode }[];
}

/** Turns a planned pipeline into stages. */
export function buildJobGraph(plan: PlannedPipeline, options: JobGraphOptions = {}): JobGraph {
  const parallelism = options.parallelism ?? 1;
  if (!Number.isInteger(parallelism) || parallelism < 1 || parallelism > 10_000) {
    throw new PlanError(`parallelism must be an integer 1..10000 (given ${parallelism})`);
  }
  const sources: JobSource[] = [];
  const sinks: JobSink[] = [];
  const stages: JobStage[] = [];

  /** Walks down from `top`, cutting the chain at exchanges and sources; joins head their stage. */
  const segmentOf = (top: LogicalNode): Segment => {
    const nodes: LogicalNode[] = [];
    let node: LogicalNode = top;
    for (;;) {
      if (node.type === 'Source') return { nodes: nodes.reverse(), head: node, inputs: [] };
      if (node.type === 'Exchange') return { nodes: nodes.reverse(), head: node, inputs: [{ segment: segmentOf(node.input), exchange: node }] };
      if (isTwoInput(node)) {
        nodes.push(node);
        const join: TwoInputNode = node;
        const sides = [join.left, join.right].map((side) => {
          if (side.type !== 'Exchange') throw new PlanError(`internal: ${join.type} #${join.id} must read both inputs through an Exchange`);
          return { segment: segmentOf(side.input), exchange: side };
        });
        return { nodes: nodes.reverse(), head: join, inputs: sides };
      }
      nodes.push(node);
      node = node.input;
    }
  };

  for (const sink of plan.sinks) {
    /** Emits the stages of a segment tree upstream first; returns the segment's stage id. */
    const emit = (segment: Segment, output: StageOutput): string => {
      const id = `stage-${stages.length + countStages(segment) - 1}`;
      const upstream = segment.inputs.map((i) => ({ ...i, stage: emit(i.segment, { type: 'exchange', toStage: id, distribution: i.exchange.distribution }) }));
      const head = segment.head;
      const exchangeParallelism = (d: Distribution): number => (d.type === 'single' ? 1 : parallelism);
      let input: StageInput;
      let stageParallelism: number;
      let inputSchema: Schema;
      if (head.type === 'Source') {
        stageParallelism = head.parallelism ?? parallelism;
        const known = sources.find((s) => s.name === head.name);
        if (known === undefined) {
          sources.push({
            name: head.name,
            schema: head.schema,
            connector: head.connector,
            ...(head.watermark ? { watermark: head.watermark } : {}),
            parallelism: stageParallelism,
          });
        } else if (known.parallelism !== stageParallelism) {
          throw new PlanError(`internal: source '${head.name}' is read with ${known.parallelism} and ${stageParallelism} shards`);
        }
        input = { type: 'source', source: head.name };
        inputSchema = head.schema;
      } else if (head.type === 'Exchange') {
        const from = upstream[0] as (typeof upstream)[number];
        stageParallelism = exchangeParallelism(head.distribution);
        input = { type: 'exchange', fromStage: from.stage, distribution: head.distribution };
        inputSchema = head.schema;
      } else if (isTwoInput(head)) {
        const [l, r] = upstream as [(typeof upstream)[number], (typeof upstream)[number]];
        stageParallelism = exchangeParallelism(l.exchange.distribution);
        input = {
          type: 'twoInput',
          left: { fromStage: l.stage, distribution: l.exchange.distribution, schema: l.exchange.schema },
          right: { fromStage: r.stage, distribution: r.exchange.distribution, schema: r.exchange.schema },
        };
        inputSchema = l.exchange.schema;
      } else {
        throw new PlanError(`internal: a stage cannot start at ${head.type}`);
      }
      const late = lateSinksOf(segment.nodes);
      for (const l of late) {
        if (sinks.some((s) => s.name === l.sink.name) || plan.sinks.some((s) => s.name === l.sink.name)) {
          throw new PlanError(`two sinks are named '${l.sink.name}' (one is the late sink of ${l.side.operatorId})`);
        }
        sinks.push(l.sink);
      }
      const operators = segment.nodes.map((n) => toJobOperator(n, plan));
      if (output.type === 'sink') {
        const enforcer = constraintEnforcerOf(sink, operators[operators.length - 1]?.outputSchema ?? inputSchema);
        if (enforcer !== undefined) operators.push(enforcer);
      }
      stages.push({
        id,
        parallelism: stageParallelism,
        input,
        inputSchema,
        operators,
        output,
        ...(late.length > 0 ? { sideOutputs: late.map((l) => l.side) } : {}),
      });
      return id;
    };
    emit(segmentOf(sink.input), { type: 'sink', sink: sink.name });
    if (sinks.some((s) => s.name === sink.name)) throw new PlanError(`two sinks are named '${sink.name}'`);
    sinks.push({
      name: sink.name,
      schema: sink.schema,
      connector: sink.connector,
      ...(sink.upsertKey ? { upsertKey: sink.upsertKey } : {}),
      changelogMode: plan.traits.get(sink)?.changelogMode ?? ['+I'],
    });
  }
  return {
    version: JOB_GRAPH_VERSION,
    name: plan.name,
    keyGroups: options.keyGroups ?? DEFAULT_KEY_GROUPS,
    sources,
    sinks,
    stages,
    // Only a non-default policy is written, so graphs of pipelines that set none stay as they were.
    ...(options.errorPolicy === 'fail' ? { errorPolicy: options.errorPolicy } : {}),
  };
}

/**
 * The constraint enforcer of a sink stage (Flink's ConstraintEnforcer), when the sink has
 * something to check: a row that does not fit its sink becomes a data error of that record
 * instead of a failed write (shared/operators/sink/constraint-enforcer.ts).
 */
function constraintEnforcerOf(sink: PlannedPipeline['sinks'][number], rows: Schema): JobOperator | undefined {
  const target = sink.connector.type === 'dynamodb' || sink.connector.type === 'kinesis' ? sink.connector.type : 'other';
  // As Flink's NotNullEnforcer: only NOT NULL sink columns the rows may hold a NULL in.
  const rowsNullable = new Map(rows.fields.map((f) => [f.name, f.type.nullable]));
  const notNull = sink.schema.fields.filter((f) => !f.type.nullable && rowsNullable.get(f.name) !== false).map((f) => f.name);
  if (target === 'other' && notNull.length === 0) return undefined;
  const format = sink.connector.type === 'kinesis' ? sink.connector.format : undefined;
  const spec: ConstraintEnforcerSpec = { sink: sink.name, schema: sink.schema, target, notNull, ...(sink.upsertKey ? { upsertKey: sink.upsertKey } : {}), ...(format ? { format } : {}) };
  const checks = [...(notNull.length > 0 ? [`notNull=[${notNull.join(', ')}]`] : []), ...(target !== 'other' ? [`fits=[${target}]`] : [])];
  return { id: `ConstraintEnforcer_${sink.name}`, type: 'ConstraintEnforcer', spec, inputSchema: rows, outputSchema: rows, description: `ConstraintEnforcer(sink=[${sink.name}], ${checks.join(', ')})` };
}

/** Stages of a segment tree (the segment and everything upstream of it). */
function countStages(segment: Segment): number {
  return 1 + segment.inputs.reduce((n, i) => n + countStages(i.segment), 0);
}

function toJobOperator(node: LogicalNode, plan: PlannedPipeline): JobOperator {
  const common = {
    id: `${node.type}_${node.id}`,
    inputSchema: isTwoInput(node) ? node.left.schema : 'input' in node ? node.input.schema : node.schema,
    outputSchema: node.schema,
    description: describePlanNode(node),
  };
  switch (node.type) {
    case 'Calc':
      return {
        ...common,
        type: 'Calc',
        spec: { projection: node.projection, ...(node.condition ? { condition: node.condition } : {}) },
      };
    case 'Map':
      return { ...common, type: 'Map', spec: { ref: node.ref, display: node.display } };
    case 'Correlate':
      return {
        ...common,
        type: 'Correlate',
        spec: { call: node.call, columns: node.columns, joinType: node.joinType, ...(node.condition !== undefined ? { condition: node.condition } : {}) },
      };
    case 'GroupAggregate':
      return {
        ...common,
        type: 'GroupAggregate',
        spec: {
          groupBy: node.groupBy,
          aggCalls: node.aggCalls,
          generateUpdateBefore: plan.needsUpdateBefore.has(node),
          ...(node.stateTtlMs !== undefined ? { stateTtlMs: node.stateTtlMs } : {}),
        },
      };
    case 'Rank':
      return {
        ...common,
        type: 'Rank',
        spec: {
          strategy: node.strategy ?? 'Retract',
          rankType: node.rankType,
          partitionBy: node.partitionBy,
          orderBy: node.orderBy,
          rankRange: node.rankRange,
          ...(node.rankNumberColumn !== undefined ? { rankNumberColumn: node.rankNumberColumn } : {}),
          ...(node.upsertKey !== undefined ? { upsertKey: node.upsertKey } : {}),
          generateUpdateBefore: plan.needsUpdateBefore.has(node),
          ...(node.stateTtlMs !== undefined ? { stateTtlMs: node.stateTtlMs } : {}),
          ...(node.cacheSize !== undefined ? { cacheSize: node.cacheSize } : {}),
        },
      };
    case 'OverAggregate':
      return {
        ...common,
        type: 'OverAggregate',
        spec: { partitionBy: node.partitionBy, orderBy: node.orderBy, timeDomain: node.timeDomain, frame: node.frame, aggCalls: node.aggCalls },
      };
    case 'TemporalSort':
      return { ...common, type: 'TemporalSort', spec: { timeDomain: node.timeDomain, timeColumn: node.timeColumn, orderBy: node.orderBy } };
    case 'Deduplicate':
      return {
        ...common,
        type: 'Deduplicate',
        spec: {
          keys: node.keys,
          keep: node.keep,
          ...(node.orderColumn !== undefined ? { orderColumn: node.orderColumn } : {}),
          timeDomain: node.orderColumn === undefined ? 'processing' : 'event',
          generateUpdateBefore: plan.needsUpdateBefore.has(node),
          ...(node.stateTtlMs !== undefined ? { stateTtlMs: node.stateTtlMs } : {}),
        },
      };
    case 'WindowAggregate':
    case 'WindowProcess':
    case 'WindowTableFunction':
    case 'WindowRank':
    case 'WindowDeduplicate':
      return windowOperator(node, common, plan.needsUpdateBefore.has(node));
    case 'LookupJoin':
      return { ...common, type: 'LookupJoin', spec: lookupJoinSpec(node) };
    case 'Join':
    case 'IntervalJoin':
    case 'TemporalJoin':
    case 'WindowJoin':
    case 'Union':
      return joinOperator(node, common);
    default:
      throw new PlanError(`${node.type} is planned but not executable by this version of the runtime`);
  }
}

/** The job-graph operator of a join node: its spec carries both input schemas. */
function joinOperator(node: TwoInputNode, common: Omit<JobOperator, 'type' | 'spec'>): JobOperator {
  const base = {
    leftSchema: node.left.schema,
    rightSchema: node.right.schema,
    leftKeys: node.leftKeys,
    rightKeys: node.rightKeys,
    ...(node.condition !== undefined ? { condition: node.condition } : {}),
  };
  switch (node.type) {
    case 'Join':
      return {
        ...common,
        type: 'Join',
        spec: {
          ...base,
          joinType: node.joinType,
          ...(node.nullSafeKeys?.some((n) => n) === true ? { nullSafeKeys: node.nullSafeKeys } : {}),
          leftInput: node.leftInputSpec ?? { type: 'NoUniqueKey' },
          rightInput: node.rightInputSpec ?? { type: 'NoUniqueKey' },
          ...(node.leftStateTtlMs !== undefined ? { leftStateTtlMs: node.leftStateTtlMs } : {}),
          ...(node.rightStateTtlMs !== undefined ? { rightStateTtlMs: node.rightStateTtlMs } : {}),
        },
      };
    case 'IntervalJoin':
      return {
        ...common,
        type: 'IntervalJoin',
        spec: {
          ...base,
          joinType: node.joinType,
          timeDomain: node.timeDomain,
          ...(node.leftTimeColumn !== undefined ? { leftTimeColumn: node.leftTimeColumn } : {}),
          ...(node.rightTimeColumn !== undefined ? { rightTimeColumn: node.rightTimeColumn } : {}),
          leftLowerBoundMs: node.leftLowerBoundMs,
          leftUpperBoundMs: node.leftUpperBoundMs,
        },
      };
    case 'TemporalJoin':
      return {
        ...common,
        type: 'TemporalJoin',
        spec: {
          ...base,
          joinType: node.joinType,
          leftTimeColumn: node.leftTimeColumn,
          rightTimeColumn: node.rightTimeColumn,
          ...(node.stateTtlMs !== undefined ? { stateTtlMs: node.stateTtlMs } : {}),
        },
      };
    case 'WindowJoin': {
      // Both windows are the same (the join rule checks), so one zone serves both inputs.
      const timeZone = node.leftWindow?.timeZone ?? node.rightWindow?.timeZone;
      return {
        ...common,
        type: 'WindowJoin',
        spec: { ...base, joinType: node.joinType, leftWindowEndColumn: node.leftWindowEndColumn, rightWindowEndColumn: node.rightWindowEndColumn, ...(timeZone !== undefined ? { timeZone } : {}) },
      };
    }
    case 'Union':
      return { ...common, type: 'Union', spec: { schema: node.schema } };
  }
}

/** The job-graph spec of a LookupJoin node; it needs the dimension schema and source to run. */
function lookupJoinSpec(node: LookupJoinNode): OperatorSpecs['LookupJoin'] {
  if (node.dimensionSchema === undefined || node.source === undefined) {
    throw new PlanError(
      `LookupJoin #${node.id} with '${node.table}' has no ${node.dimensionSchema === undefined ? 'dimension schema' : 'dimension source'}: ` +
        `declare the table with pipeline.lookupTable(name, { schema, source })`,
    );
  }
  return {
    table: node.table,
    joinType: node.joinType,
    keys: node.keys,
    ...(node.condition !== undefined ? { condition: node.condition } : {}),
    dimensionSchema: node.dimensionSchema,
    ...(node.output !== undefined ? { output: node.output } : {}),
    ...(node.cache !== undefined ? { cache: node.cache } : {}),
    ...(node.retry !== undefined ? { retry: node.retry } : {}),
    ...(node.maxConcurrency !== undefined ? { maxConcurrency: node.maxConcurrency } : {}),
    ...(node.batchSize !== undefined ? { batchSize: node.batchSize } : {}),
    source: node.source,
  };
}

/** A lookup table a job reads, with the operators that read it. */
export interface JobLookupTable {
  /** The table's name (`--input <name>=<file>` binds a JSON-lines table by it). */
  readonly table: string;
  readonly source: LookupSourceDescriptor;
  /** Ids of the LookupJoin operators reading it. */
  readonly operators: readonly string[];
}

/** The lookup tables of a job graph, by table name, in stage order. */
export function lookupTablesOf(graph: JobGraph): Map<string, JobLookupTable> {
  const tables = new Map<string, JobLookupTable>();
  for (const stage of graph.stages) {
    for (const op of stage.operators) {
      if (op.type !== 'LookupJoin') continue;
      const known = tables.get(op.spec.table);
      tables.set(op.spec.table, { table: op.spec.table, source: op.spec.source, operators: [...(known?.operators ?? []), op.id] });
    }
  }
  return tables;
}

/** Parses and checks a job graph read from JSON (e.g. a Lambda's bundled job graph). */
export function parseJobGraph(json: string): JobGraph {
  let value: unknown;
  try {
    value = JSON.parse(json, reviveBigints);
  } catch (error) {
    throw new PlanError(`job graph is not valid JSON: ${(error as Error).message}`);
  }
  const graph = value as Partial<JobGraph>;
  if (typeof graph !== 'object' || graph === null || graph.version !== JOB_GRAPH_VERSION) {
    throw new PlanError(`job graph version must be ${JOB_GRAPH_VERSION} (given ${JSON.stringify((graph as { version?: unknown })?.version)})`);
  }
  if (!Array.isArray(graph.stages) || !Array.isArray(graph.sources) || !Array.isArray(graph.sinks)) {
    throw new PlanError('job graph must have stages, sources and sinks arrays');
  }
  return graph as JobGraph;
}

/**
 * Serializes a job graph to JSON. DECIMAL literals are bigints, which JSON cannot hold; they
 * are written as `{"$bigint": "123"}` and restored by {@link parseJobGraph}.
 */
export function serializeJobGraph(graph: JobGraph, indent = 2): string {
  return JSON.stringify(graph, (_key, value: unknown) => (typeof value === 'bigint' ? { $bigint: value.toString() } : value), indent);
}

function reviveBigints(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const v = value as Record<string, unknown>;
    if (typeof v.$bigint === 'string' && Object.keys(v).length === 1) return BigInt(v.$bigint);
  }
  return value;
}
