/**
 * `stream.window(assigner)`: a stream with a window assigner, waiting for what to compute per
 * window — as Flink SQL's window table functions are followed by a window aggregation, a window
 * Top-N or a window deduplication.
 *
 * ```ts
 * bids.window(hop('date_time', '2 s', '10 s')).aggregate({ num: count() }, { groupBy: ['auction'] });
 * bids.window(tumble('date_time', '10 s')).topN(1, { orderBy: ['price DESC'], rankType: 'RANK' });
 * bids.window(session('date_time', '10 s', { partitionBy: ['bidder'] })).aggregate({ n: count() }, { groupBy: ['bidder'] });
 * ```
 *
 * Every result carries `window_start`, `window_end` and `window_time` (= `window_end - 1`, the
 * rowtime of the result). Results are final, insert-only rows emitted when the watermark passes
 * `window_end - 1`, unless a trigger or allowed lateness makes a window fire more than once.
 */
import { PlanError } from '../core/errors.ts';
import { parseType } from '../core/type-parse.ts';
import type { Field, Row, Value } from '../core/types.ts';
import { windowAggregateOutputSchema, type WindowAggregateSpec } from '../operators/window/window-aggregate.ts';
import { createWindowAssigner } from '../operators/window/assigners.ts';
import type { WindowTriggerSpec } from '../operators/window/triggers.ts';
import { windowDeduplicateOutputSchema } from '../operators/window-rank/window-deduplicate.ts';
import { windowRankOutputSchema } from '../operators/window-rank/window-rank.ts';
import { windowTableFunctionOutputSchema } from '../operators/window-rank/window-table-function.ts';
import type { AggCall, LateSinkSpec, LogicalNode, SinkConnector, WindowSpec, WindowTiming } from '../plan/logical.ts';
import { SESSION_NOT_SUPPORTED, WINDOW_END_COLUMN, WINDOW_START_COLUMN, windowEmitsUpdates } from '../plan/window-planning.ts';
import type { AggregateSpec } from './aggregates.ts';
import { aggregateInput, requireColumn } from './aggregate-input.ts';
import type { RowOf, SchemaSpec } from './schema-spec.ts';
import type { Stream, JoinOn } from './stream.ts';
import type { Pipeline } from './pipeline.ts';
import { parseOrder, parseRankRange, type OrderSpec, type RankRangeSpec } from './rank-options.ts';
import { buildJoin } from './joins.ts';
import type { Expr } from '../plan/expr.ts';
import { parseDuration, type Duration } from './windows.ts';
import { missingMergeError } from './user-functions.ts';

/** The columns every window result carries (TIMESTAMP(3) as epoch milliseconds). */
export interface WindowColumns {
  window_start: number;
  window_end: number;
  window_time: number;
}

/** Options of {@link Stream.window}. */
export interface WindowOptions {
  /**
   * `'event'`: windows by the time column, firing on the watermark. `'processing'`: windows by
   * arrival time on the processing-time clock (the time column only names the window); such
   * windows are never late. @default 'event'
   */
  readonly timeDomain?: 'event' | 'processing';
}

/** When a window fires besides its end (Flink's early/late firing and count/purging triggers). */
export interface TriggerOptions {
  /** Fire early, at most once per this processing-time interval, before the window ends (0: on every row). */
  readonly early?: Duration;
  /** After the end (within the allowed lateness), fire at most once per this interval instead of on every late row. */
  readonly late?: Duration;
  /** Fire every `count` rows of a window instead of at its end. */
  readonly count?: number;
  /** Clear the window after each firing, so each firing emits only what arrived since the last one. */
  readonly purge?: boolean;
}

/** A late sink: a sink name (collected like any sink), or a name with a connector. */
export type LateSinkOption = string | { readonly name: string; readonly connector?: SinkConnector };

/** Timing options of a window aggregation or window function. */
export interface WindowTimingOptions<K extends string> {
  /** Group key; state and windows are per group. SESSION: must contain the session's partitionBy. @default the session's partitionBy, else [] */
  readonly groupBy?: readonly K[];
  readonly trigger?: TriggerOptions;
  /** Keep windows this long after their end and re-fire them on late rows (event time only). @default 0 */
  readonly allowedLateness?: Duration;
  /** Sink receiving the rows too late for every window (else they are counted and dropped). */
  readonly lateSink?: LateSinkOption;
}

/** Options of {@link WindowedStream.join}. */
export interface WindowJoinOptions<T, U> {
  /** Keys besides the window: `{ thisColumn: 'otherColumn' }`, pairs, or shared names. */
  readonly on: JoinOn<T, U>;
  /** @default 'inner' */
  readonly type?: 'inner' | 'left' | 'right' | 'full' | 'semi' | 'anti';
  readonly where?: Expr;
}

/** Options of {@link WindowedStream.rank}. */
export interface WindowRankOptions<T> {
  /** Partition columns besides the window. @default [] */
  readonly partitionBy?: readonly (keyof T & string)[];
  readonly orderBy: readonly OrderSpec<T>[];
  readonly range: RankRangeSpec;
  /** @default 'ROW_NUMBER' */
  readonly rankType?: 'ROW_NUMBER' | 'RANK' | 'DENSE_RANK';
  /** Output the rank in a BIGINT column of this name. */
  readonly rankNumber?: string;
  /** Sink receiving rows whose every window has already fired. */
  readonly lateSink?: LateSinkOption;
}

/** Options of {@link WindowedStream.deduplicate}. */
export interface WindowDeduplicateOptions<T> {
  /** Partition columns besides the window. @default [] */
  readonly partitionBy?: readonly (keyof T & string)[];
  readonly keep: 'first' | 'last';
  /** Sink receiving rows whose every window has already fired. */
  readonly lateSink?: LateSinkOption;
}

/** Result rows of a window aggregation. */
type WindowAggregateRow<T, K extends keyof T, A> = { [P in K]: T[P] } & {
  [N in keyof A]: A[N] extends AggregateSpec<infer R> ? R : Value;
} & WindowColumns;

/** A stream with a window assigner; see the module header. */
export class WindowedStream<T> {
  /** @internal */
  constructor(
    private readonly stream: Stream<T>,
    readonly window: WindowSpec,
    private readonly options: WindowOptions = {},
  ) {
    // Validates sizes, slides, gaps and offsets now, naming the bad value.
    createWindowAssigner(window);
    requireColumn(stream.schema, window.timeColumn, `${window.type} time column`);
    if (window.type === 'SESSION') for (const k of window.partitionBy) requireColumn(stream.schema, k, 'session partitionBy');
    const domain = options.timeDomain ?? 'event';
    if (domain !== 'event' && domain !== 'processing') {
      throw new PlanError(`window timeDomain must be 'event' or 'processing' (given ${JSON.stringify(domain)})`);
    }
  }

  /**
   * Window aggregation (`GROUP BY window_start, window_end, …` over the window TVF): one row per
   * group and window with the group columns, the aggregates and the window columns.
   */
  aggregate<A extends Readonly<Record<string, AggregateSpec>>, K extends keyof T & string = never>(
    aggregates: A,
    options: WindowTimingOptions<K> = {},
  ): Stream<WindowAggregateRow<T, K, A>> {
    const input = this.stream;
    const groupBy = this.groupKeys(options.groupBy);
    const { aggInput, calls } = aggregateInput(input, groupBy, aggregates, [this.window.timeColumn]);
    requireMerge(calls, this.window, input.pipeline.userFunctions);
    const timing = this.timing(options, 'window aggregate');
    const spec: WindowAggregateSpec = { window: this.window, ...timingSpec(timing), groupBy, aggCalls: calls, generateUpdateBefore: true };
    return input.derive({
      type: 'WindowAggregate',
      id: input.pipeline.nextId(),
      input: aggInput.node,
      window: this.window,
      groupBy,
      aggCalls: calls,
      ...timing,
      schema: windowAggregateOutputSchema(spec, aggInput.schema),
    }) as never;
  }

  /**
   * A full window function (Flink's ProcessWindowFunction): `fn(key, window, rows)` gets the
   * group columns, the window and all its rows, and returns the result rows of the declared
   * schema. Runs on every firing; re-firings update the previous rows.
   */
  process<const S extends SchemaSpec, K extends keyof T & string = never>(
    schema: S,
    fn: (key: Row, window: { readonly start: number; readonly end: number }, rows: readonly T[]) => RowOf<S>[],
    options: WindowTimingOptions<K> & { readonly name?: string } = {},
  ): Stream<RowOf<S>> {
    const input = this.stream;
    const groupBy = this.groupKeys(options.groupBy);
    const fields: Field[] = Object.entries(schema).map(([n, t]) => ({ name: n, type: typeof t === 'string' ? parseType(t) : t }));
    if (fields.length === 0) throw new PlanError('window process needs at least one output column');
    const timing = this.timing(options, 'window process');
    const ref = input.pipeline.registerFunction(fn as never);
    // Validates the window options against the input (time column, group key, lateness).
    windowAggregateOutputSchema({ window: this.window, ...timingSpec(timing), groupBy, aggCalls: [], generateUpdateBefore: true }, input.schema);
    return input.derive({
      type: 'WindowProcess',
      id: input.pipeline.nextId(),
      input: input.node,
      window: this.window,
      groupBy,
      ref,
      display: options.name ?? (fn.name || ref),
      ...timing,
      schema: { fields },
    });
  }

  /**
   * Window join (Flink's window join): joins the rows of this window with the rows of `other`'s
   * window of the same start and end whose `on` keys are equal, when the window ends — INNER,
   * LEFT, RIGHT, FULL, or `semi` / `anti` (this side's rows with / without a match, as SQL's
   * `IN` / `EXISTS`). Both sides must use the same window; the output carries both sides'
   * window columns (the other's renamed `window_start0`, …), or this side's rows for semi / anti.
   *
   * @throws PlanError when the windows differ, or as {@link Stream.join}.
   */
  join<U>(other: WindowedStream<U>, options: WindowJoinOptions<T, U>): Stream<Row> {
    if (this.window.type === 'SESSION') throw new PlanError(SESSION_NOT_SUPPORTED.join);
    if (JSON.stringify(this.window) !== JSON.stringify({ ...other.window, timeColumn: this.window.timeColumn })) {
      throw new PlanError('window join: both sides must use the same window (type, size, slide or step, offset)');
    }
    const type = (options.type ?? 'inner').toUpperCase();
    if (!['INNER', 'LEFT', 'RIGHT', 'FULL', 'SEMI', 'ANTI'].includes(type)) {
      throw new PlanError(`window join type must be 'inner', 'left', 'right', 'full', 'semi' or 'anti' (given ${JSON.stringify(options.type)})`);
    }
    const on = options.on;
    const pairs: [string, string][] = typeof on === 'string' ? [[on, on]] : Array.isArray(on) ? on.map((p) => (Array.isArray(p) ? [String(p[0]), String(p[1])] : [String(p), String(p)])) : Object.entries(on as Record<string, string>);
    const keys = [...pairs, [WINDOW_START_COLUMN, WINDOW_START_COLUMN], [WINDOW_END_COLUMN, WINDOW_END_COLUMN]].map(([left, right]) => ({ left: left as string, right: right as string }));
    return buildJoin(this.withWindowColumns(), other.withWindowColumns(), {
      type: type as 'INNER',
      keys,
      ...(options.where !== undefined ? { condition: options.where } : {}),
      what: 'window join',
    });
  }

  /**
   * The window table function alone: every row with the window columns. TUMBLE, HOP and
   * CUMULATE assign each row all its windows as it passes (by its time column, or in processing
   * time by the clock when it is processed; lateness is the operators' after it). A SESSION holds each partition's rows until their session closes (the
   * watermark passes `window_end - 1`, or the processing-time clock does), then emits them in
   * arrival order, each with its kind, so it takes updating input too; a row whose session has
   * closed already is late: it goes to `lateSink`, or is counted and dropped.
   *
   * @throws PlanError for a late sink with an aligned window, or a late sink in processing time.
   */
  withWindowColumns(options: { readonly lateSink?: LateSinkOption } = {}): Stream<T & WindowColumns> {
    const session = this.window.type === 'SESSION';
    if (!session) {
      if (options.lateSink !== undefined) throw new PlanError(`window table function: ${this.window.type} windows have no late rows of their own (lateSink is for SESSION)`);
    } else if (options.lateSink !== undefined && this.options.timeDomain === 'processing') {
      throw new PlanError(`window table function: lateSink '${typeof options.lateSink === 'string' ? options.lateSink : options.lateSink.name}' needs event time; processing-time sessions are never late`);
    }
    const input = this.stream;
    const timeDomain = this.options.timeDomain;
    const spec = { window: this.window, ...(timeDomain !== undefined ? { timeDomain } : {}) };
    const schema = windowTableFunctionOutputSchema(spec, input.schema);
    const lateSink = this.lateSinkOf(options.lateSink);
    return input.derive({
      type: 'WindowTableFunction',
      id: input.pipeline.nextId(),
      input: input.node,
      ...spec,
      ...(lateSink ? { lateSink } : {}),
      schema,
    });
  }

  /**
   * Window Top-N: ranks the rows of each window (and partition) by `orderBy` and emits the ranks
   * in `range` when the window ends (`ROW_NUMBER() / RANK() / DENSE_RANK() OVER (PARTITION BY
   * window_start, window_end, … ORDER BY …)`).
   */
  rank<R extends string | undefined = undefined>(
    options: WindowRankOptions<T> & { readonly rankNumber?: R },
  ): Stream<(R extends string ? T & { [P in R]: number } : T) & WindowColumns> {
    if (this.window.type === 'SESSION') throw new PlanError(SESSION_NOT_SUPPORTED.rank);
    // The TVF assigns every row its windows; lateness is the rank's (its late rows go to lateSink).
    // Processing-time windows fire on the processing-time clock, as Flink's window rank does.
    const lateSink = this.lateSinkOf(options.lateSink);
    const tvf = this.withWindowColumns();
    const { lateSink: _late, ...rankOptions } = options;
    return windowRank(tvf, this.window, rankOptions as WindowRankOptions<T & WindowColumns>, lateSink, this.options.timeDomain) as never;
  }

  /** `rank` with the range `1..n`: the top `n` rows of each window (and partition). */
  topN<R extends string | undefined = undefined>(
    n: number,
    options: Omit<WindowRankOptions<T>, 'range'> & { readonly rankNumber?: R },
  ): Stream<(R extends string ? T & { [P in R]: number } : T) & WindowColumns> {
    return this.rank<R>({ ...options, range: { atMost: n } });
  }

  /**
   * Window deduplication: the first or last row (by the window's time column) of each window
   * and partition, emitted when the window ends.
   */
  deduplicate(options: WindowDeduplicateOptions<T>): Stream<T & WindowColumns> {
    if (this.window.type === 'SESSION') throw new PlanError(SESSION_NOT_SUPPORTED.deduplicate);
    this.requireEventTime('window deduplication');
    const lateSink = this.lateSinkOf(options.lateSink);
    const input = this.withWindowColumns();
    const partitionBy = [...(options.partitionBy ?? [])];
    for (const k of partitionBy) requireColumn(input.schema, k, 'window deduplicate partitionBy');
    const spec = {
      partitionBy,
      keep: options.keep,
      orderColumn: this.window.timeColumn,
      windowStartColumn: WINDOW_START_COLUMN,
      windowEndColumn: WINDOW_END_COLUMN,
    };
    return input.derive({
      type: 'WindowDeduplicate',
      id: input.pipeline.nextId(),
      input: input.node,
      ...spec,
      window: this.window,
      ...(lateSink ? { lateSink } : {}),
      schema: windowDeduplicateOutputSchema(spec, input.schema),
    });
  }

  private groupKeys<K extends string>(given: readonly K[] | undefined): string[] {
    const partition = this.window.type === 'SESSION' ? this.window.partitionBy : [];
    const groupBy: string[] = [...(given ?? partition)];
    for (const k of groupBy) requireColumn(this.stream.schema, k, 'window groupBy');
    for (const k of partition) {
      if (!groupBy.includes(k)) {
        throw new PlanError(`window groupBy [${groupBy.join(', ')}] must contain the session partition column '${k}' (sessions are per group)`);
      }
    }
    return groupBy;
  }

  private timing(options: WindowTimingOptions<string>, what: string): WindowTiming {
    const t = options.trigger;
    const trigger: WindowTriggerSpec | undefined =
      t === undefined
        ? undefined
        : {
            ...(t.early !== undefined ? { earlyFireIntervalMs: parseDuration(t.early, `${what} trigger early`) } : {}),
            ...(t.late !== undefined ? { lateFireIntervalMs: parseDuration(t.late, `${what} trigger late`) } : {}),
            ...(t.count !== undefined ? { count: t.count } : {}),
            ...(t.purge !== undefined ? { purge: t.purge } : {}),
          };
    const lateness = options.allowedLateness === undefined ? undefined : parseDuration(options.allowedLateness, `${what} allowedLateness`);
    const lateSink = this.lateSinkOf(options.lateSink);
    if (lateSink && this.options.timeDomain === 'processing') {
      throw new PlanError(`${what}: lateSink '${lateSink.name}' needs event time; processing-time windows are never late`);
    }
    return {
      ...(this.options.timeDomain !== undefined ? { timeDomain: this.options.timeDomain } : {}),
      ...(trigger ? { trigger } : {}),
      ...(lateness !== undefined ? { allowedLatenessMs: lateness } : {}),
      ...(lateSink ? { lateSink } : {}),
    };
  }

  private lateSinkOf(option: LateSinkOption | undefined): LateSinkSpec | undefined {
    return lateSinkSpec(this.stream.pipeline, option);
  }

  private requireEventTime(what: string): void {
    if (this.options.timeDomain === 'processing') {
      throw new PlanError(`${what}: processing-time windows are supported by aggregate(), process(), rank() and withWindowColumns() only (window deduplication uses event time)`);
    }
  }
}

/**
 * The `merge` a user aggregate function needs in this window (see {@link missingMergeError}).
 *
 * @throws PlanError naming the function, the window and the missing method.
 */
function requireMerge(calls: readonly AggCall[], window: WindowSpec, functions: ReadonlyMap<string, unknown>): void {
  for (const call of calls) {
    if (call.user === undefined) continue;
    const error = missingMergeError(call.user.name, functions.get(call.user.ref), window.type);
    if (error !== undefined) throw new PlanError(error);
  }
}

/**
 * The plan's late sink for a `lateSink` option (a collect sink unless a connector is given),
 * its name reserved in the pipeline. Undefined without the option.
 */
export function lateSinkSpec(pipeline: Pipeline, option: LateSinkOption | undefined): LateSinkSpec | undefined {
  if (option === undefined) return undefined;
  const spec: LateSinkSpec = typeof option === 'string' ? { name: option, connector: { type: 'collect' } } : { name: option.name, connector: option.connector ?? { type: 'collect' } };
  pipeline.reserveSinkName(spec.name);
  return spec;
}

/** The window timing fields of an operator spec. */
function timingSpec(t: WindowTiming): Pick<WindowAggregateSpec, 'timeDomain' | 'trigger' | 'allowedLatenessMs'> {
  return {
    ...(t.timeDomain !== undefined ? { timeDomain: t.timeDomain } : {}),
    ...(t.trigger !== undefined ? { trigger: t.trigger } : {}),
    ...(t.allowedLatenessMs !== undefined ? { allowedLatenessMs: t.allowedLatenessMs } : {}),
  };
}

/**
 * The window a stream's rows carry in `window_start` / `window_end` as final, insert-only
 * results — the output of a window table function or of a window aggregate that fires once —
 * looking through projections that keep both columns, with its time domain (a window Top-N over
 * processing-time windows fires on the processing-time clock). Undefined otherwise.
 */
export function windowOfNode(node: LogicalNode): { readonly window: WindowSpec; readonly timeDomain?: 'processing' } | undefined {
  const processing = { timeDomain: 'processing' } as const;
  switch (node.type) {
    case 'WindowTableFunction':
      if (node.window.type === 'SESSION') return undefined;
      return { window: node.window, ...(node.timeDomain === 'processing' ? processing : {}) };
    case 'WindowAggregate':
      return windowEmitsUpdates(node) ? undefined : { window: node.window, ...(node.timeDomain === 'processing' ? processing : {}) };
    case 'Calc': {
      const keeps = (name: string): boolean => node.projection.some((p) => p.name === name && p.expr.kind === 'ref' && p.expr.name === name);
      return keeps(WINDOW_START_COLUMN) && keeps(WINDOW_END_COLUMN) ? windowOfNode(node.input) : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * Builds a WindowRank node over a stream whose rows carry their window (`partitionBy` without
 * the window columns).
 *
 * @throws PlanError for unknown columns, an empty ORDER BY, or a non-constant range.
 */
export function windowRank<T>(input: Stream<T>, window: WindowSpec | undefined, options: WindowRankOptions<T>, lateSink?: LateSinkSpec, timeDomain?: 'event' | 'processing'): Stream<Row> {
  const partitionBy = [...(options.partitionBy ?? [])].filter((k) => k !== WINDOW_START_COLUMN && k !== WINDOW_END_COLUMN);
  for (const k of partitionBy) requireColumn(input.schema, k, 'window rank partitionBy');
  if (options.orderBy.length === 0) throw new PlanError('window rank needs at least one orderBy column');
  const orderBy = options.orderBy.map((o) => parseOrder(o as OrderSpec<Record<string, unknown>>, input.schema));
  const rankRange = parseRankRange(options.range, input.schema);
  if (rankRange.type !== 'constant') throw new PlanError('window rank needs a constant range (atMost, lessThan, between or equals)');
  const spec = {
    rankType: options.rankType ?? 'ROW_NUMBER',
    partitionBy,
    orderBy,
    rankRange,
    ...(options.rankNumber !== undefined ? { rankNumberColumn: options.rankNumber } : {}),
    windowStartColumn: WINDOW_START_COLUMN,
    windowEndColumn: WINDOW_END_COLUMN,
  } as const;
  return input.derive<Row>({
    type: 'WindowRank',
    id: input.pipeline.nextId(),
    input: input.node,
    ...spec,
    ...(window ? { window } : {}),
    ...(timeDomain === 'processing' ? { timeDomain } : {}),
    ...(lateSink ? { lateSink } : {}),
    schema: windowRankOutputSchema(spec, input.schema),
  });
}
