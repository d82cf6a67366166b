/**
 * The plan IR: logical nodes named after Flink's physical nodes, each carrying what a planner
 * needs — output schema, changelog mode, upsert keys and time attributes (in the schema).
 *
 * The TypeScript API builds these nodes today; the Flink SQL front end compiles into the same
 * nodes. Nodes are plain data except for their `input` links (a DAG), so a planned tree can be
 * printed (explain.ts) and turned into the serializable job graph (job-graph.ts).
 */
import type { RowKind } from '../core/row.ts';
import type { Schema } from '../core/types.ts';
import type { RecordFormat } from '../core/formats.ts';
import type { LookupCacheSpec } from '../lookup/cache-spec.ts';
import type { LookupOutputColumn } from '../lookup/lookup-join-spec.ts';
import type { LookupRetrySpec } from '../lookup/resilient-source.ts';
import type { Expr } from './expr.ts';
import type { WindowTriggerSpec } from '../operators/window/triggers.ts';
import type { JoinType, OuterJoinType } from '../operators/join/join-spec.ts';
import type { JoinInputSpec } from '../operators/join/record-state-views.ts';
import type { AggCallSpec, AggOptions, UserAggregateRef } from '../operators/aggregate/agg-call.ts';
import type { AggFunctionName } from '../operators/aggregate/agg-function.ts';
import type { OverFrame } from '../operators/over/over-aggregate.ts';
import type { CalcColumn } from '../operators/calc/calc-operator.ts';
import type { CorrelateSpec } from '../operators/correlate/correlate-operator.ts';

/**
 * How the Top-N result is maintained (Flink's RankProcessStrategy):
 * - `AppendFast`: insert-only input; only the top rows are kept.
 * - `Retract`: any input; all rows of a partition are kept with a sorted count map.
 * - `UpdateFast`: upsert input whose sort key only moves rows towards the top (monotonic in the
 *   direction opposite to the order, e.g. a growing COUNT ordered DESC).
 */
export type RankStrategy = 'AppendFast' | 'Retract' | 'UpdateFast';

/**
 * The kinds of rows a node may emit (Flink's ChangelogMode). `['+I']` is insert-only;
 * `['+I', '+U', '-D']` is upsert (needs a key); all four is retract.
 */
export type ChangelogMode = readonly RowKind[];

/** Insert-only changelog. */
export const INSERT_ONLY: ChangelogMode = ['+I'];
/** Full retract changelog. */
export const RETRACT: ChangelogMode = ['+I', '-U', '+U', '-D'];
/** Upsert changelog: no update-before rows; consumers apply rows by key. */
export const UPSERT: ChangelogMode = ['+I', '+U', '-D'];

/** How rows are spread over the shards of the next stage. */
export type Distribution =
  | { readonly type: 'hash'; readonly keys: readonly string[] }
  | { readonly type: 'single' }
  | { readonly type: 'broadcast' };

/** What the planner derived for one node. */
export interface NodeTraits {
  readonly changelogMode: ChangelogMode;
  /** Column sets that identify a row of the node's output (empty list: none known). */
  readonly upsertKeys: readonly (readonly string[])[];
  /** How the node's output is spread over shards; `undefined` means no known distribution. */
  readonly distribution: Distribution | undefined;
}

/** Where a source's records come from. */
export type SourceConnector =
  /** Bounded JSON lines; the path may be bound later with `--input name=path`. */
  | { readonly type: 'jsonl'; readonly path?: string; readonly format?: RecordFormat }
  /**
   * A generator function from the pipeline module (resolved by `ref` in the function registry);
   * `rowsPerSecond` paces a deployed producer, `unbounded` marks one that never ends.
   */
  | { readonly type: 'generator'; readonly ref: string; readonly display: string; readonly rowsPerSecond?: number; readonly unbounded?: true }
  /** A Kinesis stream (AWS runtime and CDK). */
  | { readonly type: 'kinesis'; readonly streamName?: string; readonly streamArn?: string; readonly format?: RecordFormat };

/** Where a sink writes. */
export type SinkConnector =
  /** Flink's print format; a TIMESTAMP_LTZ shows in `timeZone` (the session's, UTC when absent). */
  | { readonly type: 'print'; readonly timeZone?: string }
  /** Keeps the changelog and the materialized result in memory (CLI `--final`, tests). */
  | { readonly type: 'collect' }
  /** A file of records, one per line, in `format` (json: the changelog line `{"op":…}`; csv, debezium-json: core/format-encoders.ts). */
  | { readonly type: 'jsonl'; readonly path: string; readonly format?: RecordFormat }
  | { readonly type: 'blackhole' }
  | { readonly type: 'kinesis'; readonly streamName?: string; readonly format?: RecordFormat }
  | { readonly type: 'dynamodb'; readonly tableName?: string };

/** Event-time watermark declaration of a source: bounded out-of-orderness on a column. */
export interface WatermarkSpec {
  readonly column: string;
  /** Watermark = max event time seen on the shard − this delay. */
  readonly outOfOrdernessMs: number;
  /** A source shard with no records for this long stops holding back the watermark. */
  readonly idleTimeoutMs?: number;
  /**
   * The event time as an expression over the source's physical columns, when the watermark is
   * declared on a computed column (`rowtime AS TO_TIMESTAMP(ts), WATERMARK FOR rowtime …`): the
   * source shards evaluate it to track the watermark, and `column` names the computed column the
   * Calc after the source defines by the same expression (Flink's WatermarkAssigner after the
   * computed-column Calc, here folded into the source's watermark generator).
   */
  readonly expr?: Expr;
}

/** One aggregate call of a GroupAggregate; arguments and filters are input columns, as in Flink. */
export interface AggCall extends AggOptions {
  readonly fn: AggFunctionName;
  /** Input column; absent for COUNT(*) (and a user aggregate of no argument). */
  readonly arg?: string;
  /** A user aggregate's second and later argument columns. */
  readonly extraArgs?: readonly string[];
  readonly distinct: boolean;
  /** For `fn: 'USER'`: the TypeScript aggregate function's reference, name and result type. */
  readonly user?: UserAggregateRef;
  /** BOOLEAN input column holding the FILTER (WHERE …) predicate, e.g. `$f3`. */
  readonly filterField?: string;
  /** Output column name. */
  readonly name: string;
}

/** Order key of a Rank: column, direction and null ordering. */
export interface SortField {
  readonly column: string;
  readonly direction: 'ASC' | 'DESC';
  readonly nullsFirst: boolean;
}

/** Rank range: constant `[start, end]` or variable `<= column` (Flink's VariableRankRange). */
export type RankRange =
  | { readonly type: 'constant'; readonly start: number; readonly end: number }
  | { readonly type: 'variable'; readonly endColumn: string };

/** Window assigner of windowed nodes (window TVFs). */
export type WindowSpec = (
  | { readonly type: 'TUMBLE'; readonly timeColumn: string; readonly sizeMs: number; readonly offsetMs?: number }
  | { readonly type: 'HOP'; readonly timeColumn: string; readonly sizeMs: number; readonly slideMs: number; readonly offsetMs?: number }
  | { readonly type: 'CUMULATE'; readonly timeColumn: string; readonly maxSizeMs: number; readonly stepMs: number; readonly offsetMs?: number }
  | { readonly type: 'SESSION'; readonly timeColumn: string; readonly gapMs: number; readonly partitionBy: readonly string[] }
) & {
  /**
   * Windows over a TIMESTAMP_LTZ time column (or processing time) are aligned in this time zone,
   * as Flink aligns them in the session time zone: `window_start` / `window_end` are its
   * wall-clock times (TIMESTAMP(3)) and `window_time` the instant of `window_end - 1`
   * (TIMESTAMP_LTZ(3)). Absent means UTC (where wall clock and instant agree).
   */
  readonly timeZone?: string;
};

interface NodeBase {
  /** Unique within a plan; used for operator ids (`GroupAggregate_3`). */
  readonly id: number;
  readonly schema: Schema;
}

/** Reads a named source. */
export interface SourceNode extends NodeBase {
  readonly type: 'Source';
  readonly name: string;
  readonly connector: SourceConnector;
  readonly watermark?: WatermarkSpec;
  /**
   * Declared primary key (`PRIMARY KEY (…) NOT ENFORCED`): the source's upsert key, as Flink
   * trusts it, so a versioned table can be the right side of a temporal join.
   */
  readonly primaryKey?: readonly string[];
  /** Number of source shards (Kinesis shards / embedded source partitions). */
  readonly parallelism?: number;
}

/** Projection and filter (Flink's Calc). */
export interface CalcNode extends NodeBase {
  readonly type: 'Calc';
  readonly input: LogicalNode;
  readonly projection: readonly CalcColumn[];
  readonly condition?: Expr;
}

/** A user row function from a TypeScript pipeline (`stream.map(schema, fn)`). */
export interface MapNode extends NodeBase {
  readonly type: 'Map';
  readonly input: LogicalNode;
  readonly ref: string;
  readonly display: string;
}

/**
 * Each input row joined with the rows of a table function: UNNEST or a table user function
 * (SQL's `CROSS JOIN UNNEST(…)`, `LATERAL TABLE(f(x))`; Flink's Correlate).
 */
export interface CorrelateNode extends NodeBase, CorrelateSpec {
  readonly type: 'Correlate';
  readonly input: LogicalNode;
}

/** Unbounded group aggregation with retraction. */
export interface GroupAggregateNode extends NodeBase {
  readonly type: 'GroupAggregate';
  readonly input: LogicalNode;
  readonly groupBy: readonly string[];
  readonly aggCalls: readonly AggCall[];
  readonly stateTtlMs?: number;
}

/**
 * Top-N (ROW_NUMBER / RANK / DENSE_RANK over a partition, filtered by a rank range). With an
 * empty `orderBy` it is `LIMIT n [OFFSET m]` without ORDER BY (Flink's Limit, a ROW_NUMBER rank
 * of the whole stream in which every row ties: the first rows to arrive).
 */
export interface RankNode extends NodeBase {
  readonly type: 'Rank';
  readonly input: LogicalNode;
  readonly rankType: 'ROW_NUMBER' | 'RANK' | 'DENSE_RANK';
  readonly partitionBy: readonly string[];
  readonly orderBy: readonly SortField[];
  readonly rankRange: RankRange;
  /** Name of the rank number column when it is output. */
  readonly rankNumberColumn?: string;
  readonly stateTtlMs?: number;
  /** Partition buffers cached in memory (`table.exec.topn.cache-size`). */
  readonly cacheSize?: number;
  /** Chosen by the planner (Flink's RankProcessStrategy); absent before planning. */
  readonly strategy?: RankStrategy;
  /** UpdateFast only: the input's upsert key the planner relies on. */
  readonly upsertKey?: readonly string[];
}

/** Keep the first or last row per key by a time attribute (`ROW_NUMBER … = 1`). */
export interface DeduplicateNode extends NodeBase {
  readonly type: 'Deduplicate';
  readonly input: LogicalNode;
  readonly keys: readonly string[];
  readonly keep: 'first' | 'last';
  /** The time attribute ordering rows; absent means processing time (arrival order). */
  readonly orderColumn?: string;
  readonly stateTtlMs?: number;
}

/**
 * OVER aggregation (`SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS …)`): each input row with the
 * aggregates over its frame appended; insert-only in and out.
 */
export interface OverAggregateNode extends NodeBase {
  readonly type: 'OverAggregate';
  readonly input: LogicalNode;
  readonly partitionBy: readonly string[];
  readonly orderBy: string;
  readonly timeDomain: 'event' | 'processing';
  readonly frame: OverFrame;
  readonly aggCalls: readonly AggCallSpec[];
}

/**
 * `ORDER BY time [, secondary keys]` without LIMIT (Flink's TemporalSort): the rows come out in
 * time order — in event time when the watermark passes their timestamp (ties ordered by the
 * secondary keys), in processing time as they arrive (the rows of one millisecond ordered by the
 * secondary keys). Insert-only in and out; runs on one shard, as Flink's does.
 */
export interface TemporalSortNode extends NodeBase {
  readonly type: 'TemporalSort';
  readonly input: LogicalNode;
  readonly timeDomain: 'event' | 'processing';
  /** Event time: the rowtime column sorted by. Processing time: the attribute's name (explain only). */
  readonly timeColumn: string;
  /** The sort keys after the time attribute. */
  readonly orderBy: readonly SortField[];
  /** Where rows too late to be sorted go; absent: counted (`numLateRecordsDropped`) and dropped. */
  readonly lateSink?: LateSinkSpec;
}

/** Join each row with a dimension table looked up by key. */
export interface LookupJoinNode extends NodeBase {
  readonly type: 'LookupJoin';
  readonly input: LogicalNode;
  readonly table: string;
  readonly joinType: 'INNER' | 'LEFT';
  /** Probe column → dimension key column. */
  readonly keys: readonly { readonly probe: string; readonly lookup: string }[];
  /** Hash-shuffle the probe stream by the join key first (`lookup.enable_hash`). */
  readonly shuffle: boolean;
  readonly condition?: Expr;
  /**
   * Columns and types of the dimension rows. Required to execute the join (the job graph
   * builder raises a PlanError without it); `schema` is the join's output schema.
   */
  readonly dimensionSchema?: Schema;
  /** Where the dimension rows come from. Required to execute the join, like `dimensionSchema`. */
  readonly source?: LookupSourceDescriptor;
  /** Output columns; absent: all probe columns, then all dimension columns. */
  readonly output?: readonly LookupOutputColumn[];
  /** @default no cache */
  readonly cache?: LookupCacheSpec;
  /** Retries on miss and on transient errors. */
  readonly retry?: LookupRetrySpec;
  /** Store requests in flight per batch. */
  readonly maxConcurrency?: number;
  /** Keys per store request. */
  readonly batchSize?: number;
}

/**
 * Where a lookup table's rows come from, as plain data in the job graph. No secret travels in
 * it: a JDBC password is read at run time from the environment variable `passwordFrom` (or, with
 * `secretArn`, from Secrets Manager where the runtime supports it).
 */
export type LookupSourceDescriptor = (
  /** MySQL / MariaDB / PostgreSQL table, by JDBC URL (`jdbc:mysql://…`, `jdbc:postgresql://…`). */
  | {
      readonly type: 'jdbc';
      readonly url: string;
      readonly table: string;
      readonly user?: string;
      /** Name of the environment variable holding the password. */
      readonly passwordFrom?: string;
      /** ARN of a Secrets Manager secret holding the password. */
      readonly secretArn?: string;
    }
  /** A DynamoDB table (`get`: by primary key; `query`: by partition key of the table or `indexName`). */
  | { readonly type: 'dynamodb'; readonly table: string; readonly mode?: 'get' | 'query'; readonly indexName?: string }
  /** A JSON-lines file; without a path it is bound at run time with `--input <table>=<file>`. */
  | { readonly type: 'jsonl'; readonly path?: string }
  /** A user function of the pipeline module (`(keys) => rows`), by registry reference. */
  | { readonly type: 'function'; readonly ref: string; readonly display?: string; readonly loadAllRef?: string }
) & {
  /**
   * The DynamoDB second cache level on AWS, so a cold container finds the rows its predecessors loaded.
   * @default { type: 'dynamodb' } on AWS; the embedded runtime has no second level
   */
  readonly l2?: LookupL2Option;
};

/** Whether and how long dimension rows are cached in DynamoDB behind a container's cache. */
export interface LookupL2Option {
  readonly type: 'dynamodb' | 'none';
  /** Expire-after-write of an L2 entry, ms. @default the cache's expire-after-write, else 1 hour */
  readonly ttlMs?: number;
}

/** A sink fed by an operator's late side output (`lateSink: 'late_bids'`). */
export interface LateSinkSpec {
  readonly name: string;
  readonly connector: SinkConnector;
}

/**
 * When and how a window operator fires: time domain, trigger, allowed lateness, and the sink of
 * the rows too late for every window.
 */
export interface WindowTiming {
  /** @default 'event' */
  readonly timeDomain?: 'event' | 'processing';
  /** Early/late/count/purge firing; absent: fire once at the end of the window. */
  readonly trigger?: WindowTriggerSpec;
  /** Keep windows this long past their end and re-fire on late rows. @default 0 */
  readonly allowedLatenessMs?: number;
  /** Where late rows go; absent: they are counted (`numLateRecordsDropped`) and dropped. */
  readonly lateSink?: LateSinkSpec;
}

/** Window aggregation (window TVF + GROUP BY window_start, window_end, …). */
export interface WindowAggregateNode extends NodeBase, WindowTiming {
  readonly type: 'WindowAggregate';
  readonly input: LogicalNode;
  readonly window: WindowSpec;
  readonly groupBy: readonly string[];
  readonly aggCalls: readonly AggCall[];
}

/** A full window function from a TypeScript pipeline (Flink's ProcessWindowFunction). */
export interface WindowProcessNode extends NodeBase, WindowTiming {
  readonly type: 'WindowProcess';
  readonly input: LogicalNode;
  readonly window: WindowSpec;
  readonly groupBy: readonly string[];
  /** Registry reference of the user function. */
  readonly ref: string;
  readonly display: string;
}

/**
 * A window table function on its own: appends window_start, window_end, window_time. TUMBLE /
 * HOP / CUMULATE assign each row its windows as it passes; SESSION buffers the rows of each
 * partition until their session closes (its late rows go to `lateSink`, or are counted).
 */
export interface WindowTableFunctionNode extends NodeBase {
  readonly type: 'WindowTableFunction';
  readonly input: LogicalNode;
  readonly window: WindowSpec;
  /** `'processing'`: windows (sessions) by the time rows are processed. @default 'event' */
  readonly timeDomain?: 'event' | 'processing';
  readonly lateSink?: LateSinkSpec;
}

/** Window Top-N over rows that carry their window (from a window TVF or window aggregate). */
export interface WindowRankNode extends NodeBase {
  readonly type: 'WindowRank';
  readonly input: LogicalNode;
  readonly rankType: 'ROW_NUMBER' | 'RANK' | 'DENSE_RANK';
  /** Partition columns without the window columns (the window always partitions). */
  readonly partitionBy: readonly string[];
  readonly orderBy: readonly SortField[];
  readonly rankRange: RankRange;
  readonly rankNumberColumn?: string;
  readonly windowStartColumn: string;
  readonly windowEndColumn: string;
  /** The window the input rows carry, when known (explain only). */
  readonly window?: WindowSpec;
  /** `'processing'`: the windows fire on the processing-time clock. @default 'event' */
  readonly timeDomain?: 'event' | 'processing';
  readonly lateSink?: LateSinkSpec;
}

/** Window deduplication: first or last row per partition and window by a rowtime column. */
export interface WindowDeduplicateNode extends NodeBase {
  readonly type: 'WindowDeduplicate';
  readonly input: LogicalNode;
  readonly partitionBy: readonly string[];
  readonly keep: 'first' | 'last';
  readonly orderColumn: string;
  readonly windowStartColumn: string;
  readonly windowEndColumn: string;
  /** The window the input rows carry, when known (explain only). */
  readonly window?: WindowSpec;
  readonly lateSink?: LateSinkSpec;
}

/** What every join node has: two inputs, their equi-join keys and a residual condition. */
interface JoinNodeBase extends NodeBase {
  readonly left: LogicalNode;
  readonly right: LogicalNode;
  /** Left key columns, pairwise equal to `rightKeys`; the Exchange of each side hashes them. */
  readonly leftKeys: readonly string[];
  readonly rightKeys: readonly string[];
  /** Non-equi condition over the joined row (left columns, then right columns renamed). */
  readonly condition?: Expr;
}

/** Regular (unbounded) join: Flink's StreamPhysicalJoin (SEMI / ANTI: its semi / anti form). */
export interface JoinNode extends JoinNodeBase {
  readonly type: 'Join';
  readonly joinType: JoinType;
  /**
   * Per key pair, whether it is `IS NOT DISTINCT FROM` (NULL matches NULL) instead of `=`: the
   * keys INTERSECT and EXCEPT join on. @default every pair is `=`
   */
  readonly nullSafeKeys?: readonly boolean[];
  /** Idle-state retention of each side's rows (`table.exec.state.ttl`, the `STATE_TTL` hint). */
  readonly leftStateTtlMs?: number;
  readonly rightStateTtlMs?: number;
  /** How each side's rows are kept; chosen by the planner from the inputs' unique keys. */
  readonly leftInputSpec?: JoinInputSpec;
  readonly rightInputSpec?: JoinInputSpec;
}

/** Time-bounded join: `right.t + lower <= left.t <= right.t + upper`. */
export interface IntervalJoinNode extends JoinNodeBase {
  readonly type: 'IntervalJoin';
  readonly joinType: OuterJoinType;
  readonly timeDomain: 'event' | 'processing';
  /** Event time: the rowtime columns of each side. */
  readonly leftTimeColumn?: string;
  readonly rightTimeColumn?: string;
  readonly leftLowerBoundMs: number;
  readonly leftUpperBoundMs: number;
  /** The time predicates the bounds were read from (EXPLAIN prints them in `where`, as Flink does). */
  readonly boundPredicates?: readonly Expr[];
}

/** Event-time temporal join against a versioned table (`FOR SYSTEM_TIME AS OF left.t`). */
export interface TemporalJoinNode extends JoinNodeBase {
  readonly type: 'TemporalJoin';
  readonly joinType: 'INNER' | 'LEFT';
  readonly leftTimeColumn: string;
  /** The versioned table's rowtime column. */
  readonly rightTimeColumn: string;
  readonly stateTtlMs?: number;
}

/** Join of two windowed inputs on their windows and keys (Flink's WindowJoin). */
export interface WindowJoinNode extends JoinNodeBase {
  readonly type: 'WindowJoin';
  readonly joinType: JoinType;
  readonly leftWindowStartColumn: string;
  readonly leftWindowEndColumn: string;
  readonly rightWindowStartColumn: string;
  readonly rightWindowEndColumn: string;
  /** The windows the inputs carry, when known: explained, and their time zone fires the join. */
  readonly leftWindow?: WindowSpec;
  readonly rightWindow?: WindowSpec;
}

/**
 * `UNION ALL` of two inputs with the same columns (Flink's Union): every row of either side,
 * changelog kinds kept. Both sides are hashed by all columns (`leftKeys` = `rightKeys` = every
 * column), so a row and its retraction meet in one shard whichever side they come from.
 */
export interface UnionNode extends JoinNodeBase {
  readonly type: 'Union';
}

/** Nodes with two inputs: the joins and the union. */
export type TwoInputNode = JoinNode | IntervalJoinNode | TemporalJoinNode | WindowJoinNode | UnionNode;

/** Node types with two inputs. */
export const TWO_INPUT_TYPES: ReadonlySet<LogicalNode['type']> = new Set(['Join', 'IntervalJoin', 'TemporalJoin', 'WindowJoin', 'Union']);

/** Re-partitions rows between stages. Inserted by the planner. */
export interface ExchangeNode extends NodeBase {
  readonly type: 'Exchange';
  readonly input: LogicalNode;
  readonly distribution: Distribution;
}

/** Writes the changelog to a named sink. */
export interface SinkNode extends NodeBase {
  readonly type: 'Sink';
  readonly input: LogicalNode;
  readonly name: string;
  readonly connector: SinkConnector;
  /** Columns by which the sink applies the changelog (upsert); absent: whole-row retract. */
  readonly upsertKey?: readonly string[];
}

/** Any plan node. */
export type LogicalNode =
  | SourceNode
  | CalcNode
  | MapNode
  | CorrelateNode
  | GroupAggregateNode
  | RankNode
  | DeduplicateNode
  | OverAggregateNode
  | TemporalSortNode
  | LookupJoinNode
  | WindowAggregateNode
  | WindowProcessNode
  | WindowTableFunctionNode
  | WindowRankNode
  | WindowDeduplicateNode
  | ExchangeNode
  | SinkNode
  | TwoInputNode;

/** Every node type that has one input. */
export type SingleInputNode = Exclude<LogicalNode, SourceNode | TwoInputNode>;

/** Whether a node has two inputs. */
export function isTwoInput(node: LogicalNode): node is TwoInputNode {
  return TWO_INPUT_TYPES.has(node.type);
}

/**
 * The single input of a node: undefined for a source and for a two-input node (walk those with
 * {@link inputsOf}).
 */
export function inputOf(node: LogicalNode): LogicalNode | undefined {
  if (node.type === 'Source' || isTwoInput(node)) return undefined;
  return node.input;
}

/** The inputs of a node, left first. */
export function inputsOf(node: LogicalNode): readonly LogicalNode[] {
  if (node.type === 'Source') return [];
  if (isTwoInput(node)) return [node.left, node.right];
  return [node.input];
}
