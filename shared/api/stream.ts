/**
 * `Stream<T>`: a typed handle on a plan node. Every method adds a node and returns a new
 * stream; nothing runs until a runtime executes the planned job graph.
 */
import { PlanError } from '../core/errors.ts';
import { parseType } from '../core/type-parse.ts';
import type { Field, LogicalType, Row, Schema, Value } from '../core/types.ts';
import { groupAggregateOutputSchema } from '../operators/aggregate/group-aggregate.ts';
import { calcOutputSchema } from '../operators/calc/calc-operator.ts';
import type { Expr } from '../plan/expr.ts';
import { inferType } from '../plan/expr-types.ts';
import type { AggCall, CalcNode, LogicalNode, SinkConnector } from '../plan/logical.ts';
import type { AggregateSpec } from './aggregates.ts';
import type { Pipeline } from './pipeline.ts';
import type { RowOf, SchemaSpec } from './schema-spec.ts';

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

  /** The stream's schema. */
  get schema(): Schema {
    return this.node.schema;
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

  /** Groups by key columns; follow with `.aggregate({...})`. */
  groupBy<K extends keyof T & string>(...keys: K[]): GroupedStream<T, K> {
    for (const k of keys) requireColumn(this.schema, k, 'groupBy');
    return new GroupedStream<T, K>(this, keys);
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

/** Options of {@link GroupedStream.aggregate}. */
export interface AggregateOptions {
  /** Idle-state retention: groups not updated for this long are forgotten. */
  readonly stateTtlMs?: number;
}

/** Result row type of an aggregation. */
type AggregateRow<T, K extends keyof T, A> = { [P in K]: T[P] } & {
  [N in keyof A]: A[N] extends AggregateSpec<infer R> ? R : Value;
};

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
    const entries = Object.entries(aggregates);
    if (entries.length === 0) throw new PlanError('aggregate needs at least one aggregate call');
    const input = this.stream;
    const projection: { name: string; expr: Expr }[] = this.keys.map((k) => ({ name: k, expr: { kind: 'ref', name: k } }));
    const columnFor = (expr: Expr): string => {
      if (expr.kind === 'ref') {
        requireColumn(input.schema, expr.name, 'aggregate');
        if (!projection.some((p) => p.name === expr.name)) projection.push({ name: expr.name, expr });
        return expr.name;
      }
      // Identical expressions share one column, as Flink's planner reuses common sub-expressions.
      const same = projection.find((p) => sameExpr(p.expr, expr));
      if (same) return same.name;
      const name = `$f${projection.length}`;
      projection.push({ name, expr });
      return name;
    };
    const calls: AggCall[] = entries.map(([name, spec]) => {
      if (this.keys.includes(name as K)) throw new PlanError(`aggregate '${name}' has the name of a group key`);
      const arg = spec.arg === undefined ? undefined : columnFor(typeof spec.arg === 'string' ? { kind: 'ref', name: spec.arg } : spec.arg);
      const filterField = spec.filter ? columnFor(spec.filter) : undefined;
      return {
        fn: spec.fn,
        ...(arg !== undefined ? { arg } : {}),
        distinct: spec.distinct,
        ...(filterField !== undefined ? { filterField } : {}),
        name,
      };
    });
    // Project only what the aggregate reads (Flink pushes this projection below the Exchange).
    const identity =
      projection.length === input.schema.fields.length &&
      projection.every((p, i) => p.expr.kind === 'ref' && p.expr.name === input.schema.fields[i]?.name && p.name === p.expr.name);
    const aggInput = identity ? input : input.calc(projection);
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

function sameExpr(a: Expr, b: Expr): boolean {
  const key = (e: Expr): string => JSON.stringify(e, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
  return key(a) === key(b);
}

function requireColumn(schema: Schema, name: string, context: string): LogicalType {
  const field = schema.fields.find((f) => f.name === name);
  if (!field) {
    throw new PlanError(`${context}: unknown column '${name}' (available: ${schema.fields.map((f) => f.name).join(', ')})`);
  }
  return field.type;
}
