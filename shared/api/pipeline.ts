/**
 * The typed TypeScript pipeline API.
 *
 * ```ts
 * const p = new Pipeline('top-merchandise');
 * p.source('orders', { schema: { merchandiseId: 'BIGINT NOT NULL', quantity: 'INT', log_ts: 'TIMESTAMP(3)' },
 *                      watermark: { column: 'log_ts', outOfOrdernessMs: 5000 } })
 *   .groupBy('merchandiseId')
 *   .aggregate({ totalQuantity: sum('quantity') })
 *   .print();
 * export default p;
 * ```
 *
 * A pipeline module's default export is a `Pipeline`; the CLI, the Lambda handlers and the CDK
 * stack all load it and plan it the same way, so user functions get the same registry
 * references (`udf_1`, `udf_2`, …) in every process.
 */
import { DEFAULT_ERROR_POLICY, PlanError, parseErrorPolicy, type ErrorPolicy } from '../core/errors.ts';
import { schemaOf } from '../core/type-parse.ts';
import type { Row, Value } from '../core/types.ts';
import type { Expr } from '../plan/expr.ts';
import { inferType } from '../plan/expr-types.ts';
import type { JobGraph, JobGraphOptions } from '../plan/job-graph.ts';
import { buildJobGraph } from '../plan/job-graph.ts';
import type { ExplainOptions } from '../plan/explain.ts';
import { explainPlan } from '../plan/explain.ts';
import type { SinkNode, SourceConnector, SourceNode } from '../plan/logical.ts';
import type { PlannedPipeline } from '../plan/planner.ts';
import { planPipeline } from '../plan/planner.ts';
import type { RowOf, SchemaSpec } from './schema-spec.ts';
import { Stream } from './stream.ts';
import { isAggregateFunction, isScalarFunction, isTableFunction, type AggregateFunction, type FunctionArgument, type ScalarFunction, type TableFunction, type TableFunctionCall, type UserAggregateOptions, type UserFunctionDefinition } from './user-functions.ts';
import type { AggregateSpec } from './aggregates.ts';
import { LookupTable, createLookupTable, type LookupTableOptions } from './lookup-table.ts';

/** Context handed to a generator source: which source shard to produce, and from which row. */
export interface GeneratorContext {
  readonly shard: number;
  readonly parallelism: number;
  /**
   * For a {@link GeneratorFunction.seekable} generator: the index (0-based) of the first row to
   * produce, the rows before it having been produced already (a deployed producer resumes there).
   * Other generators are never given it: the runtime skips the rows they yield before it.
   * @default 0
   */
  readonly from?: number;
}

/**
 * A generator of source rows (values in the engine's representation), bounded unless the
 * source says `unbounded`. The same function must yield the same rows in the same order every
 * time: the AWS runtime numbers them (`orders#17`) and a deployed producer that resumes after
 * a crash generates its last rows again.
 */
export type GeneratorFunction = ((context: GeneratorContext) => Iterable<Row>) & {
  /** True when it honours {@link GeneratorContext.from} (starts at that row without generating the ones before). */
  readonly seekable?: boolean;
};

/** Options of {@link Pipeline.source}. */
export interface SourceOptions<S extends SchemaSpec> {
  readonly schema: S;
  /** Event-time watermark: bounded out-of-orderness on a TIMESTAMP(3) column. */
  readonly watermark?: {
    readonly column: keyof S & string;
    readonly outOfOrdernessMs: number;
    readonly idleTimeoutMs?: number;
  } | {
    /**
     * A computed rowtime (SQL's `WATERMARK FOR rowtime` on `rowtime AS expr`): the column is not
     * in the schema but defined by a Calc after the source; `expr`, over the schema's columns,
     * gives the event time the source shards track. See {@link WatermarkSpec.expr}.
     */
    readonly column: string;
    readonly expr: Expr;
    readonly outOfOrdernessMs: number;
    readonly idleTimeoutMs?: number;
  };
  /** Where records come from. @default JSON lines bound with `--input name=path` */
  readonly connector?: SourceConnector;
  /**
   * Generates the records in-process instead of reading a file. The AWS runtime puts them into
   * the source stream: `flambda local` before the job starts, a deployed pipeline from a
   * producer function (infra/lib/stream-pipeline.ts).
   */
  readonly generator?: GeneratorFunction;
  /**
   * For a generator: the rows per second a deployed producer puts into the source stream (Flink
   * datagen's `rows-per-second`); local runs generate as fast as they can.
   * @default - no pace: as fast as the stream takes them
   */
  readonly rowsPerSecond?: number;
  /**
   * For a generator: it never ends (Flink's datagen without `number-of-rows`). Only a deployed
   * producer can run it (at `rowsPerSecond`); `flambda run` and `flambda local` refuse it.
   * @default false
   */
  readonly unbounded?: boolean;
  /** Number of source shards. @default the job's parallelism */
  readonly parallelism?: number;
  /**
   * Columns identifying a row (Flink's `PRIMARY KEY … NOT ENFORCED`, trusted, not checked): the
   * source's upsert key, which makes it a versioned table for {@link Stream.temporalJoin} and
   * lets joins keep one row per key.
   */
  readonly primaryKey?: readonly (keyof S & string)[];
}

/** Job-wide options of a pipeline. */
export interface PipelineOptions {
  /**
   * What runtimes do with a record whose processing fails with a data error (a bad CAST, a
   * division by zero, a value its sink cannot hold): `'dead-letter'` sets it aside with its
   * reason and position and goes on; `'fail'` stops the job, as Flink does. The SQL option
   * `'pipeline.error-policy'` and the CLI flag `--error-policy` set the same. @default 'dead-letter'
   */
  readonly errorPolicy?: ErrorPolicy;
}

/** A user function registered with the pipeline. */
export type UserFunction = ((row: Row) => Value) | ((row: Row) => Row) | ((row: Row) => boolean);

/** A pipeline under construction; see the module header. */
export class Pipeline {
  readonly name: string;
  private readonly sinkNodes: SinkNode[] = [];
  private readonly functions = new Map<string, UserFunction>();
  private readonly generatorFns = new Map<string, GeneratorFunction>();
  private readonly sourceNames = new Set<string>();
  private readonly lookupTables = new Map<string, LookupTable<unknown>>();
  /** Names of sinks fed by side outputs (late sinks), reserved when declared. */
  private readonly sideSinkNames = new Set<string>();
  private nodeCounter = 0;
  private planned: PlannedPipeline | undefined;

  /** What runtimes do with a record that fails with a data error; see {@link PipelineOptions}. */
  errorPolicy: ErrorPolicy;

  constructor(name: string, options: PipelineOptions = {}) {
    this.errorPolicy = options.errorPolicy === undefined ? DEFAULT_ERROR_POLICY : parseErrorPolicy(options.errorPolicy, `pipeline '${name}': errorPolicy`);
    if (!/^[A-Za-z][A-Za-z0-9_-]*$/.test(name)) {
      throw new PlanError(`pipeline name must start with a letter and use letters, digits, '_' or '-' (given '${name}')`);
    }
    this.name = name;
  }

  /** Declares a source and returns its stream. */
  source<const S extends SchemaSpec>(name: string, options: SourceOptions<S>): Stream<RowOf<S>> {
    if (this.sourceNames.has(name)) throw new PlanError(`source '${name}' is declared twice`);
    if (this.lookupTables.has(name)) throw new PlanError(`'${name}' is already a lookup table; sources and lookup tables share one namespace (--input binds them by name)`);
    this.sourceNames.add(name);
    const schema = schemaOf(options.schema);
    for (const k of options.primaryKey ?? []) {
      if (!schema.fields.some((f) => f.name === k)) throw new PlanError(`source '${name}': primary key column '${k}' is not in the schema`);
    }
    const watermark = options.watermark;
    if (watermark && 'expr' in watermark) {
      const type = inferType(watermark.expr, schema);
      if (type.root !== 'TIMESTAMP' && type.root !== 'TIMESTAMP_LTZ') {
        throw new PlanError(`source '${name}': watermark column '${watermark.column}' must be TIMESTAMP(3) or TIMESTAMP_LTZ(3) (it is ${type.root})`);
      }
      if (schema.fields.some((f) => f.name === watermark.column)) {
        throw new PlanError(`source '${name}': computed watermark column '${watermark.column}' is also a physical column`);
      }
    } else if (watermark) {
      const field = schema.fields.find((f) => f.name === watermark.column);
      if (!field) throw new PlanError(`source '${name}': watermark column '${watermark.column}' is not in the schema`);
      if (field.type.root !== 'TIMESTAMP' && field.type.root !== 'TIMESTAMP_LTZ') {
        throw new PlanError(`source '${name}': watermark column '${watermark.column}' must be TIMESTAMP(3) or TIMESTAMP_LTZ(3) (it is ${field.type.root})`);
      }
    }
    if (watermark && !(watermark.outOfOrdernessMs >= 0)) {
      throw new PlanError(`source '${name}': outOfOrdernessMs must be >= 0 (given ${watermark.outOfOrdernessMs})`);
    }
    let connector: SourceConnector = options.connector ?? { type: 'jsonl' };
    if (options.generator) {
      const ref = `gen_${this.generatorFns.size + 1}`;
      this.generatorFns.set(ref, options.generator);
      const rate = options.rowsPerSecond;
      if (rate !== undefined && !(Number.isSafeInteger(rate) && rate > 0)) throw new PlanError(`source '${name}': rowsPerSecond must be a positive integer (given ${rate})`);
      if (options.unbounded === true && rate === undefined) throw new PlanError(`source '${name}': an unbounded generator needs rowsPerSecond (the pace a deployed producer puts its rows at)`);
      connector = {
        type: 'generator',
        ref,
        display: options.generator.name || ref,
        ...(rate !== undefined ? { rowsPerSecond: rate } : {}),
        ...(options.unbounded === true ? { unbounded: true as const } : {}),
      };
    } else if (options.rowsPerSecond !== undefined || options.unbounded !== undefined) {
      throw new PlanError(`source '${name}': rowsPerSecond and unbounded apply to generator sources only`);
    }
    const node: SourceNode = {
      type: 'Source',
      id: this.nextId(),
      name,
      connector,
      // The watermark column becomes the rowtime attribute, as in Flink's WATERMARK FOR.
      schema: watermark
        ? { fields: schema.fields.map((f) => (f.name === watermark.column ? { ...f, timeAttribute: 'rowtime' as const } : f)) }
        : schema,
      ...(watermark ? { watermark: { ...watermark } } : {}),
      ...(options.parallelism !== undefined ? { parallelism: options.parallelism } : {}),
      ...(options.primaryKey !== undefined && options.primaryKey.length > 0 ? { primaryKey: [...options.primaryKey] } : {}),
    };
    return new Stream<RowOf<S>>(this, node);
  }

  /**
   * Declares a lookup (dimension) table for {@link Stream.lookupJoin}: its schema, where its rows
   * come from (`jdbc`, `dynamodb`, `jsonl` or a function `fn`), its cache, and whether joins
   * hash-shuffle their input by the join key first (`hash`, Flink's `'lookup.enable_hash'`).
   * See shared/api/lookup-table.ts.
   *
   * @throws PlanError for a missing or ambiguous source, a bad JDBC URL or cache, or a name
   *   already used by a source or another lookup table.
   */
  lookupTable<const S extends SchemaSpec>(name: string, options: LookupTableOptions<S>): LookupTable<RowOf<S>> {
    if (this.planned) throw new PlanError(`pipeline '${this.name}' was already planned; declare lookup tables before planning`);
    if (this.lookupTables.has(name)) throw new PlanError(`lookup table '${name}' is declared twice`);
    if (this.sourceNames.has(name)) throw new PlanError(`'${name}' is already a source; sources and lookup tables share one namespace (--input binds them by name)`);
    let table = createLookupTable(this, name, options);
    const spec = options.source;
    if ('fn' in spec) {
      // Lookup functions live in the user-function registry, so every process (CLI, Lambda)
      // that loads the module resolves the same references.
      const ref = this.registerFunction(spec.fn as unknown as UserFunction);
      const loadAllRef = spec.loadAll === undefined ? undefined : this.registerFunction(spec.loadAll as unknown as UserFunction);
      const display = spec.fn.name || name;
      table = new LookupTable(this, name, table.schema, { type: 'function', ref, display, ...(loadAllRef !== undefined ? { loadAllRef } : {}), ...(table.source.l2 !== undefined ? { l2: table.source.l2 } : {}) }, table.options);
    }
    this.lookupTables.set(name, table);
    return table;
  }

  /**
   * A user function for the API's expressions, by name (`pipeline.function('count_char',
   * countChar)`): a scalar function gives a builder of its calls, an expression for `select`,
   * `filter` and the like; a table function gives calls for `stream.joinLateral(…)`; an aggregate
   * function gives aggregate calls for `groupBy(…).aggregate({…})` and `window(…).aggregate({…})`
   * (`avg('x')`, `wavg(['x', 'w'], { filter, distinct })`: one argument, or a list of none or
   * several). Scalar and table function arguments are input columns by name or `lit(…)` values
   * (compute other expressions in a `select` first); aggregate arguments may be expressions. A
   * function's declared parameter types cast its arguments as in SQL, and a call they do not take
   * is refused where the call meets its input (`select`, `joinLateral`, `aggregate`), naming the
   * function, the argument and both types.
   *
   * @throws PlanError for a definition that is not `scalarFunction(…)`, `tableFunction(…)` or
   *   `aggregateFunction(…)`.
   */
  function(name: string, definition: ScalarFunction): (...args: FunctionArgument[]) => Expr;
  function(name: string, definition: TableFunction): (...args: FunctionArgument[]) => TableFunctionCall;
  function(name: string, definition: AggregateFunction): (args: string | Expr | readonly (string | Expr)[], options?: UserAggregateOptions) => AggregateSpec;
  function(
    name: string,
    definition: UserFunctionDefinition,
  ): ((...args: FunctionArgument[]) => Expr) | ((...args: FunctionArgument[]) => TableFunctionCall) | ((args: string | Expr | readonly (string | Expr)[], options?: UserAggregateOptions) => AggregateSpec) {
    if (isTableFunction(definition)) return (...args: FunctionArgument[]): TableFunctionCall => ({ fn: definition, name, args });
    if (isAggregateFunction(definition)) {
      // One registry entry per declared function: the aggregate operators find it by reference.
      const user = { ref: this.registerFunction(definition as never), name, resultType: definition.resultType, ...(definition.signatures !== undefined ? { input: definition.signatures } : {}) };
      // One argument (a column name or an expression), or a list of them: none or several.
      return (args: string | Expr | readonly (string | Expr)[], options: UserAggregateOptions = {}): AggregateSpec => {
        const list: readonly (string | Expr)[] = Array.isArray(args) ? args : [args as string | Expr];
        const [first, ...rest] = list;
        return {
          fn: 'USER',
          user,
          ...(first !== undefined ? { arg: first } : {}),
          ...(rest.length > 0 ? { extraArgs: rest } : {}),
          distinct: options.distinct ?? false,
          ...(options.filter ? { filter: options.filter } : {}),
        };
      };
    }
    if (!isScalarFunction(definition)) throw new PlanError(`pipeline.function('${name}'): the definition must be a scalarFunction(…), tableFunction(…) or aggregateFunction(…)`);
    // A call of the arguments' values: the expression compiler resolves it against the declared
    // parameter types when it meets the input's schema (shared/plan/udf-values.ts).
    return (...args: FunctionArgument[]): Expr => ({
      kind: 'udf',
      ref: this.registerFunction(definition.eval as never),
      display: name,
      type: definition.resultType,
      args: args.map((a): Expr => (typeof a === 'string' ? { kind: 'ref', name: a } : a)),
      ...(definition.signatures !== undefined ? { input: definition.signatures } : {}),
    });
  }

  /** Registers a user function and returns its stable reference. @internal */
  registerFunction(fn: UserFunction): string {
    const ref = `udf_${this.functions.size + 1}`;
    this.functions.set(ref, fn);
    return ref;
  }

  /** Allocates a node id. @internal */
  nextId(): number {
    this.nodeCounter += 1;
    return this.nodeCounter;
  }

  /** Adds a sink node. @internal */
  addSink(sink: SinkNode): void {
    if (this.planned) throw new PlanError(`pipeline '${this.name}' was already planned; add sinks before planning`);
    if (this.sinkNodes.some((s) => s.name === sink.name) || this.sideSinkNames.has(sink.name)) throw new PlanError(`two sinks are named '${sink.name}'`);
    this.sinkNodes.push(sink);
  }

  /** Reserves the name of a sink fed by a side output (e.g. a window's `lateSink`). @internal */
  reserveSinkName(name: string): void {
    if (this.planned) throw new PlanError(`pipeline '${this.name}' was already planned; add sinks before planning`);
    if (!/^[A-Za-z][A-Za-z0-9_-]*$/.test(name)) {
      throw new PlanError(`late sink name must start with a letter and use letters, digits, '_' or '-' (given '${name}')`);
    }
    if (this.sinkNodes.some((s) => s.name === name) || this.sideSinkNames.has(name)) throw new PlanError(`two sinks are named '${name}'`);
    this.sideSinkNames.add(name);
  }

  /** User functions by reference, for runtimes. */
  get userFunctions(): ReadonlyMap<string, UserFunction> {
    return this.functions;
  }

  /** Generator sources by reference, for runtimes. */
  get generators(): ReadonlyMap<string, GeneratorFunction> {
    return this.generatorFns;
  }

  /** Plans the pipeline (once; later calls return the same plan). */
  plan(): PlannedPipeline {
    this.planned ??= planPipeline(this.name, this.sinkNodes, () => this.nextId());
    return this.planned;
  }

  /** The serializable job graph. */
  jobGraph(options: JobGraphOptions = {}): JobGraph {
    return buildJobGraph(this.plan(), { errorPolicy: this.errorPolicy, ...options });
  }

  /** Flink-style plan text. */
  explain(options: ExplainOptions = {}): string {
    return explainPlan(this.plan(), options);
  }
}

/** Type guard for a module's default export. */
export function isPipeline(value: unknown): value is Pipeline {
  return value instanceof Pipeline;
}
