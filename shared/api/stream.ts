/**
 * `Stream<T>`: a typed handle on a plan node. Every method adds a node and returns a new
 * stream; nothing runs until a runtime executes the planned job graph.
 */
import { PlanError } from '../core/errors.ts';
import { parseType } from '../core/type-parse.ts';
import type { Field, Row, Schema, Value } from '../core/types.ts';
import { groupAggregateOutputSchema } from '../operators/aggregate/group-aggregate.ts';
import { calcOutputSchema } from '../operators/calc/calc-operator.ts';
import { correlateOutputSchema, type CorrelateSpec } from '../operators/correlate/correlate-operator.ts';
import { unnestColumns } from '../operators/correlate/unnest-rows.ts';
import { printExpr } from '../plan/expr-print.ts';
import type { Expr } from '../plan/expr.ts';
import { inferType } from '../plan/expr-types.ts';
import type { CalcNode, LogicalNode, SinkConnector } from '../plan/logical.ts';
import type { AggregateSpec } from './aggregates.ts';
import { aggregateInput, requireColumn } from './aggregate-input.ts';
import { parseOrder, parseRankRange, type OrderSpec, type RankRangeSpec } from './rank-options.ts';
import { WindowedStream, windowOfNode, windowRank, type WindowOptions } from './windowed-stream.ts';
import type { WindowSpec } from '../plan/logical.ts';
import type { Pipeline } from './pipeline.ts';
import type { RowOf, SchemaSpec } from './schema-spec.ts';
import { lookupJoinOutputSchema, type LookupOutputColumn } from '../lookup/lookup-join-spec.ts';
import { LookupTable, lookupKeys, lookupOutput, type LookupColumns, type LookupJoined, type LookupJoinOptions } from './lookup-table.ts';
import { buildJoin, intervalJoin as intervalJoinNode, temporalJoin as temporalJoinNode, type JoinKeyPair } from './joins.ts';
import type { Duration } from './windows.ts';
import { overAggregateOutputSchema, type OverFrame } from '../operators/over/over-aggregate.ts';
import { parseDuration } from './windows.ts';
import { limit as limitNode, sortByTime as sortByTimeNode, type SortByTimeOptions } from './time-order.ts';
import type { TableFunctionCall } from './user-functions.ts';
import type { JoinType, OuterJoinType } from '../operators/join/join-spec.ts';

/** Options of {@link Stream.sinkTo}. */
export interface SinkOptions {
  /** @default collect: rows are kept for `--final` / `--changelog` and tests, not printed */
  readonly connector?: SinkConnector;
  /** Apply the changelog by these columns (upsert sink); the planner then drops `-U` rows. */
  readonly upsertKey?: readonly string[];
}

/** A projection entry: an input column name or an expression. */
export type ProjectionSpec<T> = (keyof T & string) | Expr;

/** A stream of rows of type `T`. */
export class Stream<T> {
  /** @internal */
  constructor(
    readonly pipeline: Pipeline,
    readonly node: LogicalNode,
  ) {}

  /**
   * @internal A stream of `node` in this stream's pipeline: how windowed streams and joins make
   * their result streams without importing this module (which imports them).
   */
  derive<R>(node: LogicalNode): Stream<R> {
    return new Stream<R>(this.pipeline, node);
  }

  /** The stream's schema. */
  get schema(): Schema {
    return this.node.schema;
  }

  /**
   * OVER aggregation (Flink's OverAggregate): every row with `aggregates` over its frame — the
   * rows of its partition up to it in `orderBy` time order — appended, e.g. a running total
   * (`frame` absent: RANGE UNBOUNDED PRECEDING) or a moving average over the last rows
   * (`{ rows: 2 }`: ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) or time (`{ range: '1 min' }`).
   * In event time (the default: `orderBy` is a rowtime column) rows come out when the watermark
   * passes them; `timeDomain: 'processing'` processes each row as it arrives.
   *
   * @throws PlanError for an unknown column, an `orderBy` that is not a TIMESTAMP in event
   *   time, or an invalid frame.
   */
  over<A extends Readonly<Record<string, AggregateSpec>>>(options: OverOptions<T, A>): Stream<T & { [N in keyof A]: A[N] extends AggregateSpec<infer R> ? R : Value }> {
    const partitionBy = [...(options.partitionBy ?? [])] as string[];
    const timeDomain = options.timeDomain ?? 'event';
    const f = options.frame;
    const frame: OverFrame =
      f === undefined || (('rows' in f ? f.rows : f.range) === 'unbounded')
        ? { unit: f !== undefined && 'rows' in f ? 'ROWS' : 'RANGE' }
        : 'rows' in f
          ? { unit: 'ROWS', preceding: f.rows as number }
          : { unit: 'RANGE', preceding: parseDuration(f.range as Duration, 'over frame range') };
    const keep = this.schema.fields.map((x) => x.name).filter((n) => !partitionBy.includes(n));
    const { aggInput, calls } = aggregateInput(this, partitionBy, options.aggregates, keep);
    const spec = { partitionBy, orderBy: options.orderBy, timeDomain, frame, aggCalls: calls };
    const over = new Stream<Row>(this.pipeline, {
      type: 'OverAggregate',
      id: this.pipeline.nextId(),
      input: aggInput.node,
      ...spec,
      schema: overAggregateOutputSchema(spec, aggInput.schema),
    });
    // The projected argument columns ($fN) are the aggregate's own: keep the input's and the results.
    const names = [...this.schema.fields.map((x) => x.name), ...calls.map((c) => c.name)];
    const same = over.schema.fields.length === names.length && over.schema.fields.every((x, i) => x.name === names[i]);
    return (!same ? over.calc(names.map((name) => ({ name, expr: { kind: 'ref', name } as Expr }))) : over) as never;
  }

  /**
   * `UNION ALL`: the rows of this stream and of `other`, which must have the same column names
   * and types (project it first); changelog kinds are kept.
   *
   * @throws PlanError naming the first column that differs.
   */
  unionAll(other: Stream<T>): Stream<T> {
    if (other.pipeline !== this.pipeline) throw new PlanError('union: both streams must belong to the same pipeline');
    const a = this.schema.fields;
    const b = other.schema.fields;
    if (a.length !== b.length) throw new PlanError(`union: the inputs have ${a.length} and ${b.length} columns (${a.map((f) => f.name).join(', ')} / ${b.map((f) => f.name).join(', ')})`);
    a.forEach((f, i) => {
      const g = b[i] as Field;
      if (f.name !== g.name || f.type.root !== g.type.root) {
        throw new PlanError(`union: column ${i + 1} is '${f.name}' ${f.type.root} on the left and '${g.name}' ${g.type.root} on the right`);
      }
    });
    const keys = a.map((f) => f.name);
    // A time attribute of both inputs stays one (Flink unions rowtime with rowtime): the union's
    // watermark is the smaller of its inputs', so a window after it closes in event time.
    const fields = a.map((f, i) => {
      const g = b[i] as Field;
      const type = { ...f.type, nullable: f.type.nullable || g.type.nullable };
      return f.timeAttribute !== undefined && f.timeAttribute === g.timeAttribute ? { name: f.name, type, timeAttribute: f.timeAttribute } : { name: f.name, type };
    });
    return new Stream(this.pipeline, {
      type: 'Union',
      id: this.pipeline.nextId(),
      left: this.node,
      right: other.node,
      leftKeys: keys,
      rightKeys: keys,
      schema: { fields },
    });
  }

  /** Keeps rows for which the predicate is TRUE (an expression, or a function of the row). */
  filter(predicate: Expr | ((row: T) => boolean), name?: string): Stream<T> {
    const condition = typeof predicate === 'function' ? this.udf(predicate, 'BOOLEAN', name) : predicate;
    const type = inferType(condition, this.schema);
    if (type.root !== 'BOOLEAN') throw new PlanError(`filter condition must be BOOLEAN (it is ${type.root})`);
    const projection = this.schema.fields.map((f) => ({ name: f.name, expr: { kind: 'ref', name: f.name } as Expr }));
    return this.calc(projection, condition) as unknown as Stream<T>;
  }

  /** Projects columns: each output column is an input column name or an expression. */
  select<S extends Readonly<Record<string, ProjectionSpec<T>>>>(
    columns: S,
  ): Stream<{ [K in keyof S]: S[K] extends keyof T ? T[S[K]] : Value }> {
    const projection = Object.entries(columns).map(([name, spec]) => ({
      name,
      expr: typeof spec === 'string' ? ({ kind: 'ref', name: spec } as Expr) : (spec as Expr),
    }));
    if (projection.length === 0) throw new PlanError('select needs at least one column');
    return this.calc(projection) as never;
  }

  /** Transforms each row with a function; the output schema is declared. */
  map<const S extends SchemaSpec>(schema: S, fn: (row: T) => RowOf<S>, name?: string): Stream<RowOf<S>> {
    const ref = this.pipeline.registerFunction(fn as unknown as (row: Row) => Row);
    const fields: Field[] = Object.entries(schema).map(([n, t]) => ({ name: n, type: typeof t === 'string' ? parseType(t) : t }));
    return new Stream(this.pipeline, {
      type: 'Map',
      id: this.pipeline.nextId(),
      input: this.node,
      ref,
      display: name ?? (fn.name || ref),
      schema: { fields },
    });
  }

  /**
   * Joins every row with the rows of a table function (Flink's Correlate): the one plan node
   * behind {@link unnest} and {@link joinLateral}; see shared/operators/correlate/.
   *
   * @throws PlanError for a wrong number of column names, a name that clashes, a LEFT join with a
   *   condition, or an UNNEST argument that is not an ARRAY or a MAP.
   */
  correlate(spec: CorrelateSpec): Stream<Row> {
    const schema = correlateOutputSchema(spec, this.schema);
    return new Stream<Row>(this.pipeline, { type: 'Correlate', id: this.pipeline.nextId(), input: this.node, ...spec, schema });
  }

  /**
   * One row per element of the ARRAY (or entry of the MAP) `collections` evaluates to — of
   * several collections zipped, the shorter padded with NULLs: this stream's columns, then the
   * element's (SQL's `CROSS JOIN UNNEST(…)`; `type: 'left'` is `LEFT JOIN UNNEST(…) ON TRUE`,
   * keeping a row without elements once). `columns` names the element columns (by default a
   * ROW element's field names, `EXPR$i` for a scalar, `KEY`/`VALUE` for a MAP); `ordinality`
   * names a 1-based position column (`WITH ORDINALITY`).
   *
   * ```ts
   * orders.unnest(col('items'), { columns: ['sku', 'qty'], ordinality: 'n' });
   * ```
   *
   * @throws PlanError as {@link correlate}.
   */
  unnest(collections: Expr | readonly Expr[], options: { readonly type?: 'inner' | 'left'; readonly columns?: readonly string[]; readonly ordinality?: string } = {}): Stream<Row> {
    const args: readonly Expr[] = Array.isArray(collections) ? collections : [collections as Expr];
    const ordinality = options.ordinality !== undefined;
    const names = unnestColumns(
      args.map((a) => inferType(a, this.schema)),
      ordinality,
      args.map(printExpr),
    ).defaultNames;
    const elementNames = options.columns ?? names.slice(0, ordinality ? -1 : undefined);
    return this.correlate({
      call: { fn: 'UNNEST', args, ...(ordinality ? { ordinality: true } : {}) },
      columns: [...elementNames, ...(options.ordinality !== undefined ? [options.ordinality] : [])],
      joinType: options.type === 'left' ? 'LEFT' : 'INNER',
    });
  }

  /**
   * Joins every row with the rows of a table function (SQL `CROSS JOIN LATERAL TABLE(f(x))`, or
   * `LEFT JOIN … ON TRUE` with `type: 'left'`): `call` comes from `pipeline.function(name, fn)`.
   * `columns` renames the function's columns; an inner join's `condition` (over the joined
   * row) keeps only the rows it is TRUE for.
   *
   * ```ts
   * const split = pipeline.function('split', splitWords);
   * docs.joinLateral(split('line'), { type: 'left' });
   * ```
   *
   * @throws PlanError for an unknown argument column, or as {@link correlate}.
   */
  joinLateral(call: TableFunctionCall, options: { readonly type?: 'inner' | 'left'; readonly columns?: readonly string[]; readonly condition?: Expr } = {}): Stream<Row> {
    for (const a of call.args) if (typeof a === 'string') requireColumn(this.schema, a, `${call.name}(…)`);
    const args: Expr[] = call.args.map((a) => (typeof a === 'string' ? { kind: 'ref', name: a } : a));
    // The function object goes into the registry: the operator finds it there by reference.
    const ref = this.pipeline.registerFunction(call.fn as never);
    return this.correlate({
      call: { fn: 'USER', ref, name: call.name, args, columnTypes: call.fn.columns.map((c) => c.type), ...(call.fn.signatures !== undefined ? { input: call.fn.signatures } : {}) },
      columns: options.columns ?? call.fn.columns.map((c) => c.name),
      joinType: options.type === 'left' ? 'LEFT' : 'INNER',
      ...(options.condition !== undefined ? { condition: options.condition } : {}),
    });
  }

  /** Groups by key columns; follow with `.aggregate({...})`. */
  groupBy<K extends keyof T & string>(...keys: K[]): GroupedStream<T, K> {
    for (const k of keys) requireColumn(this.schema, k, 'groupBy');
    return new GroupedStream<T, K>(this, keys);
  }

  /**
   * Assigns windows (`tumble`, `hop`, `cumulate`, `session` from the API); follow with
   * `.aggregate`, `.process`, `.topN` / `.rank`, `.deduplicate` or `.withWindowColumns`.
   *
   * @throws PlanError for an invalid window (size, slide, gap, offset) or an unknown column.
   */
  window(assigner: WindowSpec, options: WindowOptions = {}): WindowedStream<T> {
    return new WindowedStream<T>(this, assigner, options);
  }

  /**
   * Streaming Top-N: ranks rows within each partition by `orderBy` and keeps the ranks in
   * `range` (SQL `ROW_NUMBER() OVER (PARTITION BY … ORDER BY …) AS rn … WHERE rn <= N`). The
   * planner picks Flink's strategy (AppendFast, Retract or UpdateFast) from the input.
   * RANK and DENSE_RANK work too (Flink rejects them in streaming).
   */
  rank<R extends string | undefined = undefined>(
    options: RankOptions<T> & { readonly rankNumber?: R },
  ): Stream<R extends string ? T & { [P in R]: number } : T> {
    const partitionBy = options.partitionBy ?? [];
    // Flink plans a Top-N partitioned by window_start and window_end of windowed rows as a window
    // Top-N: final insert-only results per window, and state dropped when the window ends.
    const window = windowOfNode(this.node);
    if (window && partitionBy.includes('window_start' as never) && partitionBy.includes('window_end' as never) && !('atMostColumn' in options.range)) {
      return windowRank(this, window.window, options, undefined, window.timeDomain) as never;
    }
    for (const k of partitionBy) requireColumn(this.schema, k, 'rank partitionBy');
    if (options.orderBy.length === 0) throw new PlanError('rank needs at least one orderBy column');
    const orderBy = options.orderBy.map((o) => parseOrder(o as OrderSpec<Record<string, unknown>>, this.schema));
    const rankRange = parseRankRange(options.range, this.schema);
    const rankNumber = options.rankNumber;
    if (rankNumber !== undefined && this.schema.fields.some((f) => f.name === rankNumber)) {
      throw new PlanError(`rank number column '${rankNumber}' clashes with an input column`);
    }
    const fields: Field[] = [...this.schema.fields];
    if (rankNumber !== undefined) fields.push({ name: rankNumber, type: { root: 'BIGINT', nullable: false } });
    return new Stream(this.pipeline, {
      type: 'Rank',
      id: this.pipeline.nextId(),
      input: this.node,
      rankType: options.rankType ?? 'ROW_NUMBER',
      partitionBy,
      orderBy,
      rankRange,
      ...(rankNumber !== undefined ? { rankNumberColumn: rankNumber } : {}),
      ...(options.stateTtlMs !== undefined ? { stateTtlMs: options.stateTtlMs } : {}),
      ...(options.cacheSize !== undefined ? { cacheSize: options.cacheSize } : {}),
      schema: { fields },
    }) as never;
  }

  /** `rank` with the range `1..n`: the top `n` rows per partition. */
  topN<R extends string | undefined = undefined>(
    n: number,
    options: Omit<RankOptions<T>, 'range'> & { readonly rankNumber?: R },
  ): Stream<R extends string ? T & { [P in R]: number } : T> {
    return this.rank<R>({ ...options, range: { atMost: n } });
  }

  /**
   * The first `fetch` rows to arrive after the first `offset` (SQL `LIMIT fetch OFFSET offset`
   * without ORDER BY; Flink's Limit): on one shard; over an updating input, a retraction of one
   * of those rows lets the next row in (`-D` then `+I`), as Flink's retracting rank does.
   */
  limit(fetch: number, options: { readonly offset?: number } = {}): Stream<T> {
    return limitNode(this, fetch, options.offset ?? 0);
  }

  /**
   * The rows in time order (SQL `ORDER BY rowtime [, …]` without LIMIT; Flink's TemporalSort), on
   * one shard: in event time each row comes out when the watermark reaches its timestamp, the
   * rows of one timestamp ordered by the other keys; a row whose place has been passed already
   * (its timestamp is not after the last one emitted) goes to `lateSink`, or is counted and
   * dropped. In processing time the rows of one millisecond are ordered by the keys.
   *
   * @throws PlanError as {@link sortByTime} (time-order.ts).
   */
  sortByTime(options: SortByTimeOptions<T>): Stream<T> {
    return sortByTimeNode(this, options);
  }

  /**
   * Keeps the first or last row per key (SQL `ROW_NUMBER() OVER (PARTITION BY keys ORDER BY t) = 1`),
   * by an event-time column or, without `orderBy`, by arrival (processing time).
   */
  deduplicate(options: DeduplicateOptions<T>): Stream<T> {
    if (options.keys.length === 0) throw new PlanError('deduplicate needs at least one key column');
    for (const k of options.keys) requireColumn(this.schema, k, 'deduplicate keys');
    if (options.orderBy !== undefined) {
      const field = this.schema.fields.find((f) => f.name === options.orderBy);
      if (!field) requireColumn(this.schema, options.orderBy, 'deduplicate orderBy');
      if (field?.timeAttribute !== 'rowtime') {
        throw new PlanError(
          `deduplicate orderBy '${options.orderBy}' must be an event-time (rowtime) column, i.e. a source's watermark column; ` +
            `to rank by another column use rank({ range: { atMost: 1 } })`,
        );
      }
    }
    return new Stream(this.pipeline, {
      type: 'Deduplicate',
      id: this.pipeline.nextId(),
      input: this.node,
      keys: options.keys,
      keep: options.keep,
      ...(options.orderBy !== undefined ? { orderColumn: options.orderBy } : {}),
      ...(options.stateTtlMs !== undefined ? { stateTtlMs: options.stateTtlMs } : {}),
      schema: this.schema,
    });
  }

  /**
   * Joins every row with the rows of a lookup table whose key columns equal the row's `on`
   * columns, as they are when the row is processed (Flink's `JOIN dim FOR SYSTEM_TIME AS OF
   * proctime`). Output: the probe columns, then the dimension columns (`columns` picks and
   * renames them); a LEFT join keeps rows without a match, with NULLs. The probe's changelog
   * passes through: each input row's kind is its output rows' kind.
   *
   * Runs in the stage of its input unless the table has `hash: true` or the join `shuffle: true`:
   * then the input is hash-shuffled by the probe key columns first (one extra Exchange).
   *
   * @throws PlanError for an unknown column, probe and lookup key types that cannot be compared,
   *   an output name on both sides, a non-BOOLEAN condition, or a table of another pipeline.
   */
  lookupJoin<
    D,
    const C extends LookupColumns<D> | undefined = undefined,
    J extends 'inner' | 'left' = 'inner',
    O extends readonly LookupOutputColumn[] | undefined = undefined,
  >(
    table: LookupTable<D>,
    options: LookupJoinOptions<T, D> & { readonly type?: J; readonly columns?: C; readonly output?: O },
  ): Stream<O extends readonly LookupOutputColumn[] ? Row : LookupJoined<T, D, C, J>> {
    if (!(table instanceof LookupTable)) throw new PlanError('lookupJoin needs a table declared with pipeline.lookupTable(name, { schema, source })');
    if (table.owner !== this.pipeline) throw new PlanError(`lookup table '${table.name}' belongs to another pipeline; declare it on this one`);
    const type = options.type ?? 'inner';
    if (type !== 'inner' && type !== 'left') throw new PlanError(`lookup join with '${table.name}': type must be 'inner' or 'left' (given ${JSON.stringify(type)})`);
    const keys = lookupKeys(options.on as never, this.schema, table as LookupTable<unknown>);
    const output = lookupOutput(options.columns as never, options.output, this.schema, table as LookupTable<unknown>);
    const cache = options.cache ?? table.options.cache;
    const retry = options.retry ?? table.options.retry;
    const spec = {
      table: table.name,
      joinType: type === 'left' ? ('LEFT' as const) : ('INNER' as const),
      keys,
      ...(options.condition !== undefined ? { condition: options.condition } : {}),
      dimensionSchema: table.schema,
      ...(output !== undefined ? { output } : {}),
      ...(cache !== undefined ? { cache } : {}),
      ...(retry !== undefined ? { retry } : {}),
      ...(table.options.maxConcurrency !== undefined ? { maxConcurrency: table.options.maxConcurrency } : {}),
      ...(table.options.batchSize !== undefined ? { batchSize: table.options.batchSize } : {}),
    };
    let schema: Schema;
    try {
      schema = lookupJoinOutputSchema(spec, this.schema);
    } catch (error) {
      // The spec's advice names the spec's `output`; in the API `columns` renames too.
      if (error instanceof PlanError && error.message.includes('comes from both')) {
        throw new PlanError(`${error.message} (or pick and rename dimension columns with columns: { new_name: 'column' })`, { cause: error });
      }
      throw error;
    }
    return new Stream(this.pipeline, {
      type: 'LookupJoin',
      id: this.pipeline.nextId(),
      input: this.node,
      ...spec,
      shuffle: options.shuffle ?? table.options.hash ?? false,
      source: table.source,
      schema,
    }) as never;
  }

  /**
   * Joins with another stream on equal keys (Flink's regular join): every pair of rows whose `on`
   * columns are equal and for which `where` (an expression over the joined row) is TRUE, as
   * they come and go — inputs may be updating, and the output retracts what no longer holds.
   * `type` `left` / `right` / `full` keeps unmatched rows padded with NULLs (retracted when a
   * match arrives, restored when the last match goes). Output: this stream's columns, then the
   * other's; a clashing name of the other side gets a suffix (`id` → `id0`). `type` `semi` /
   * `anti` outputs this stream's rows alone, while at least one / no row of the other matches
   * (Flink's StreamingSemiAntiJoinOperator: a match arriving or leaving emits or retracts them).
   *
   * As in Flink's planner, a join of two windowed streams on their `window_start` and
   * `window_end` is a window join, and a `where` that bounds one side's rowtime by the other's
   * from both sides is an interval join (see {@link Stream.intervalJoin}; not for semi / anti).
   *
   * @throws PlanError for unknown or incomparable key columns, a non-BOOLEAN `where`, or a
   *   stream of another pipeline.
   */
  join<U, const J extends JoinKind = 'inner'>(other: Stream<U>, options: JoinOptions<T, U> & { readonly type?: J }): Stream<Joined<T, U, J>> {
    const ttl = options.stateTtlMs;
    return buildJoin(this, other, {
      type: joinKind(options.type, true),
      keys: joinKeys(options.on as JoinOn<unknown, unknown>, 'join'),
      ...(options.where !== undefined ? { condition: options.where } : {}),
      ...(typeof ttl === 'number' ? { leftStateTtlMs: ttl, rightStateTtlMs: ttl } : {}),
      ...(typeof ttl === 'object' && ttl.left !== undefined ? { leftStateTtlMs: ttl.left } : {}),
      ...(typeof ttl === 'object' && ttl.right !== undefined ? { rightStateTtlMs: ttl.right } : {}),
    }) as never;
  }

  /**
   * Interval join: rows with equal `on` keys whose times satisfy
   * `other.t + between[0] <= this.t <= other.t + between[1]` (Flink's
   * `l.t BETWEEN r.t - INTERVAL … AND r.t + INTERVAL …`). In event time the times are each
   * side's rowtime column (or `time`), and state is dropped as the watermark passes; in
   * processing time rows are timed by their arrival. Inputs must be insert-only; the output is
   * insert-only, unmatched rows of an outer side are emitted padded once they can match nothing.
   *
   * @throws PlanError for bounds with lower > upper, a missing rowtime column, or as {@link Stream.join}.
   */
  intervalJoin<U, const J extends OuterJoinKind = 'inner'>(other: Stream<U>, options: IntervalJoinOptions<T, U> & { readonly type?: J }): Stream<Joined<T, U, J>> {
    const keys = joinKeys(options.on as JoinOn<unknown, unknown>, 'intervalJoin');
    const timeDomain = options.timeDomain ?? 'event';
    const lower = signedDuration(options.between[0], 'intervalJoin lower bound');
    const upper = signedDuration(options.between[1], 'intervalJoin upper bound');
    if (lower > upper) throw new PlanError(`intervalJoin: the lower bound ${lower} ms is above the upper bound ${upper} ms`);
    const times =
      timeDomain === 'event'
        ? { leftTimeColumn: options.time?.left ?? rowtimeOf(this.schema, 'intervalJoin left input'), rightTimeColumn: options.time?.right ?? rowtimeOf(other.schema, 'intervalJoin right input') }
        : {};
    return intervalJoinNode(this, other, {
      joinType: joinKind(options.type, false),
      leftKeys: keys.map((k) => k.left),
      rightKeys: keys.map((k) => k.right),
      condition: options.where,
      timeDomain,
      ...times,
      lower,
      upper,
    }) as never;
  }

  /**
   * Event-time temporal join (`JOIN versioned FOR SYSTEM_TIME AS OF this.t`): each row joins the
   * version of `versioned`'s row with its key valid at the row's time. `versioned` needs a
   * primary key among the `on` columns (a source with `primaryKey`, or a deduplication / group
   * aggregation by it) and a rowtime column; rows are emitted once the watermark passes them,
   * with their own changelog kind.
   *
   * @throws PlanError for a versioned side without such a key, a missing rowtime column, or as {@link Stream.join}.
   */
  temporalJoin<U, const J extends 'inner' | 'left' = 'inner'>(versioned: Stream<U>, options: TemporalJoinOptions<T, U> & { readonly type?: J }): Stream<Joined<T, U, J>> {
    const type = options.type ?? 'inner';
    if (type !== 'inner' && type !== 'left') throw new PlanError(`temporalJoin: type must be 'inner' or 'left' (given ${JSON.stringify(type)})`);
    return temporalJoinNode(this, versioned, {
      joinType: type === 'left' ? 'LEFT' : 'INNER',
      keys: joinKeys(options.on as JoinOn<unknown, unknown>, 'temporalJoin'),
      ...(options.where !== undefined ? { condition: options.where } : {}),
      leftTimeColumn: options.time ?? rowtimeOf(this.schema, 'temporalJoin probe input'),
      rightTimeColumn: options.versionTime ?? rowtimeOf(versioned.schema, 'temporalJoin versioned input'),
      ...(options.stateTtlMs !== undefined ? { stateTtlMs: options.stateTtlMs } : {}),
    }) as never;
  }

  /** Writes the stream to a named sink. */
  sinkTo(name: string, options: SinkOptions = {}): void {
    if (options.upsertKey) for (const k of options.upsertKey) requireColumn(this.schema, k, `sink '${name}' upsertKey`);
    this.pipeline.addSink({
      type: 'Sink',
      id: this.pipeline.nextId(),
      input: this.node,
      name,
      connector: options.connector ?? { type: 'collect' },
      schema: this.schema,
      ...(options.upsertKey ? { upsertKey: options.upsertKey } : {}),
    });
  }

  /** Prints the changelog (`+I[…]`, `-U[…]`, …) and keeps it for `--final` / `--changelog`. */
  print(name = 'print', options: Omit<SinkOptions, 'connector'> = {}): void {
    this.sinkTo(name, { ...options, connector: { type: 'print' } });
  }

  /** @internal */
  calc(projection: CalcNode['projection'], condition?: Expr): Stream<Row> {
    const spec = { projection, ...(condition ? { condition } : {}) };
    const schema = calcOutputSchema(spec, this.schema);
    return new Stream<Row>(this.pipeline, {
      type: 'Calc',
      id: this.pipeline.nextId(),
      input: this.node,
      projection,
      ...(condition ? { condition } : {}),
      schema,
    });
  }

  private udf(fn: (row: T) => unknown, type: string, name?: string): Expr {
    const ref = this.pipeline.registerFunction(fn as unknown as (row: Row) => Value);
    return { kind: 'udf', ref, display: name ?? (fn.name || ref), type: parseType(type) };
  }
}

/** How a join keeps unmatched rows. */
export type OuterJoinKind = 'inner' | 'left' | 'right' | 'full';

/**
 * How a regular join matches: an {@link OuterJoinKind}, or `semi` / `anti` — this stream's rows
 * while at least one / no row of the other matches (SQL `IN` / `EXISTS`, `NOT IN` / `NOT EXISTS`).
 */
export type JoinKind = OuterJoinKind | 'semi' | 'anti';

/** Equi-join keys: `{ thisColumn: 'otherColumn' }`, a list of pairs, or names both sides share. */
export type JoinOn<T, U> =
  | { readonly [K in keyof T & string]?: keyof U & string }
  | readonly (readonly [keyof T & string, keyof U & string])[]
  | readonly (keyof T & keyof U & string)[]
  | (keyof T & keyof U & string);

type Nullable<R> = { [K in keyof R]: R[K] | null };

/**
 * The row type of a join: this stream's columns, then the other's (nullable on a padded side);
 * this stream's columns alone for a semi or anti join.
 */
export type Joined<T, U, J> = J extends 'semi' | 'anti'
  ? T
  : (J extends 'right' | 'full' ? Nullable<T> : T) & (J extends 'left' | 'full' ? Nullable<Omit<U, keyof T>> : Omit<U, keyof T>);

/** Options of {@link Stream.join}. */
export interface JoinOptions<T, U> {
  readonly on: JoinOn<T, U>;
  /** @default 'inner' */
  readonly type?: JoinKind;
  /** A condition over the joined row besides the keys (an expression, e.g. `le(col('price'), col('reserve'))`). */
  readonly where?: Expr;
  /** Idle-state retention of both sides' rows, or of each side (Flink's `STATE_TTL` hint). @default keep forever */
  readonly stateTtlMs?: number | { readonly left?: number; readonly right?: number };
}

/** Options of {@link Stream.intervalJoin}. */
export interface IntervalJoinOptions<T, U> {
  readonly on: JoinOn<T, U>;
  /** @default 'inner' */
  readonly type?: OuterJoinKind;
  /** `[lower, upper]` of `this.t - other.t`, e.g. `['-10 s', '0 s']` or `[-10_000, 0]`. */
  readonly between: readonly [Duration, Duration];
  /** @default 'event' */
  readonly timeDomain?: 'event' | 'processing';
  /** Event time: the time columns. @default each side's rowtime column */
  readonly time?: { readonly left?: keyof T & string; readonly right?: keyof U & string };
  readonly where?: Expr;
}

/** Options of {@link Stream.temporalJoin}. */
export interface TemporalJoinOptions<T, U> {
  readonly on: JoinOn<T, U>;
  /** @default 'inner' */
  readonly type?: 'inner' | 'left';
  /** This stream's time column (`FOR SYSTEM_TIME AS OF`). @default its rowtime column */
  readonly time?: keyof T & string;
  /** The versioned stream's time column. @default its rowtime column */
  readonly versionTime?: keyof U & string;
  readonly where?: Expr;
  /** Idle-state retention, ms. @default until the watermark drops state */
  readonly stateTtlMs?: number;
}

/** `'left'` → `'LEFT'`, checking the value (options come from JavaScript too); `semi` / `anti` for a regular join only. */
function joinKind(type: string | undefined, semiAnti: true): JoinType;
function joinKind(type: string | undefined, semiAnti: false): OuterJoinType;
function joinKind(type: string | undefined, semiAnti: boolean): JoinType {
  const t = type ?? 'inner';
  const kinds = semiAnti ? ['inner', 'left', 'right', 'full', 'semi', 'anti'] : ['inner', 'left', 'right', 'full'];
  if (!kinds.includes(t)) {
    throw new PlanError(`${semiAnti ? 'join' : 'intervalJoin'} type must be ${kinds.map((k) => `'${k}'`).join(', ').replace(/, ([^,]*)$/, ' or $1')} (given ${JSON.stringify(type)})`);
  }
  return t.toUpperCase() as JoinType;
}

/** The key pairs of an `on` option. */
function joinKeys(on: JoinOn<unknown, unknown> | undefined, what: string): JoinKeyPair[] {
  if (on === undefined) throw new PlanError(`${what} needs 'on' (e.g. on: { seller: 'id' })`);
  let pairs: JoinKeyPair[];
  if (typeof on === 'string') pairs = [{ left: on, right: on }];
  else if (Array.isArray(on)) pairs = (on as readonly unknown[]).map((p) => (Array.isArray(p) ? { left: String(p[0]), right: String(p[1]) } : { left: String(p), right: String(p) }));
  else pairs = Object.entries(on as Record<string, string | undefined>).filter((e): e is [string, string] => e[1] !== undefined).map(([left, right]) => ({ left, right }));
  if (pairs.length === 0) throw new PlanError(`${what} needs at least one key in 'on'`);
  return pairs;
}

/** A duration that may be negative: `-10 s`, `'-10 s'`, `-10000`. */
function signedDuration(value: Duration, what: string): number {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new PlanError(`${what} must be a whole number of milliseconds (given ${value})`);
    return value;
  }
  const text = String(value).trim();
  return text.startsWith('-') ? -parseDuration(text.slice(1), what) : parseDuration(text.replace(/^\+/, ''), what);
}

/** The one rowtime column of a schema. */
function rowtimeOf(schema: Schema, what: string): string {
  const found = schema.fields.filter((f) => f.timeAttribute === 'rowtime');
  if (found.length !== 1) {
    throw new PlanError(`${what} has ${found.length === 0 ? 'no rowtime column (declare a watermark on its source)' : `several rowtime columns (${found.map((f) => f.name).join(', ')})`}: name the time column`);
  }
  return (found[0] as Field).name;
}

/** Options of {@link Stream.rank}. */
export interface RankOptions<T> {
  readonly partitionBy?: readonly (keyof T & string)[];
  readonly orderBy: readonly OrderSpec<T>[];
  readonly range: RankRangeSpec;
  /** @default 'ROW_NUMBER' */
  readonly rankType?: 'ROW_NUMBER' | 'RANK' | 'DENSE_RANK';
  /** Output the rank in a BIGINT column of this name (else only changed rows are emitted). */
  readonly rankNumber?: string;
  /** Idle-state retention of a partition. */
  readonly stateTtlMs?: number;
  /** Partitions kept cached in memory (`table.exec.topn.cache-size`). @default 10000 */
  readonly cacheSize?: number;
}

/** Options of {@link Stream.deduplicate}. */
export interface DeduplicateOptions<T> {
  readonly keys: readonly (keyof T & string)[];
  readonly keep: 'first' | 'last';
  /** Event-time column to order by; absent: arrival order (processing time). */
  readonly orderBy?: keyof T & string;
  readonly stateTtlMs?: number;
}


/** Options of {@link GroupedStream.aggregate}. */
export interface AggregateOptions {
  /** Idle-state retention: groups not updated for this long are forgotten. */
  readonly stateTtlMs?: number;
}

/** Result row type of an aggregation. */
type AggregateRow<T, K extends keyof T, A> = { [P in K]: T[P] } & {
  [N in keyof A]: A[N] extends AggregateSpec<infer R> ? R : Value;
};

/** Options of {@link Stream.over}. */
export interface OverOptions<T, A> {
  readonly partitionBy?: readonly (keyof T & string)[];
  /** The time attribute ordering each partition (a rowtime column in event time). */
  readonly orderBy: string;
  /** @default 'event' */
  readonly timeDomain?: 'event' | 'processing';
  /** Rows or time before the current row in its frame; absent: every earlier row (RANGE UNBOUNDED PRECEDING). */
  readonly frame?: { readonly rows: number | 'unbounded' } | { readonly range: Duration | 'unbounded' };
  readonly aggregates: A;
}

/** A grouped stream waiting for its aggregate calls. */
export class GroupedStream<T, K extends keyof T & string> {
  /** @internal */
  constructor(
    private readonly stream: Stream<T>,
    private readonly keys: readonly K[],
  ) {}

  /**
   * Aggregates per group with retraction (Flink's GroupAggregate). Arguments and filters that
   * are expressions are first projected into `$fN` columns, as Flink's planner does.
   */
  aggregate<A extends Readonly<Record<string, AggregateSpec>>>(aggregates: A, options: AggregateOptions = {}): Stream<AggregateRow<T, K, A>> {
    const input = this.stream;
    const { aggInput, calls } = aggregateInput(input, this.keys, aggregates);
    const spec = {
      groupBy: this.keys,
      aggCalls: calls,
      generateUpdateBefore: true,
      ...(options.stateTtlMs !== undefined ? { stateTtlMs: options.stateTtlMs } : {}),
    };
    return new Stream(input.pipeline, {
      type: 'GroupAggregate',
      id: input.pipeline.nextId(),
      input: aggInput.node,
      groupBy: this.keys,
      aggCalls: calls,
      ...(options.stateTtlMs !== undefined ? { stateTtlMs: options.stateTtlMs } : {}),
      schema: groupAggregateOutputSchema(spec, aggInput.schema),
    }) as never;
  }
}
