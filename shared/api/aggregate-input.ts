/**
 * What the group aggregate and the window aggregate of the API share: reading aggregate calls
 * into plain column arguments, with expression arguments and filters first projected into
 * `$fN` columns, as Flink's planner does.
 */
import { PlanError } from '../core/errors.ts';
import type { LogicalType, Row, Schema } from '../core/types.ts';
import type { Expr } from '../plan/expr.ts';
import type { AggCall } from '../plan/logical.ts';
import type { AggregateSpec } from './aggregates.ts';
import type { Stream } from './stream.ts';

/**
 * Projects what an aggregate reads — the `keys`, then every column in `keep` (e.g. a window's
 * time column), then the calls' arguments and filters — and returns the aggregate's input and
 * its calls. When the projection would be the identity, the input is returned unchanged.
 *
 * @throws PlanError for no calls and no keys, an unknown column, or a call named like a key.
 */
export function aggregateInput<T>(
  input: Stream<T>,
  keys: readonly string[],
  aggregates: Readonly<Record<string, AggregateSpec>>,
  keep: readonly string[] = [],
): { aggInput: Stream<T> | Stream<Row>; calls: AggCall[] } {
  const entries = Object.entries(aggregates);
  // Keys without calls are a DISTINCT (one row per group); no keys and no calls is nothing.
  if (entries.length === 0 && keys.length === 0) throw new PlanError('aggregate needs a group key or an aggregate call');
  const projection: { name: string; expr: Expr }[] = keys.map((k) => ({ name: k, expr: { kind: 'ref', name: k } }));
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
  for (const column of keep) columnFor({ kind: 'ref', name: column });
  const calls: AggCall[] = entries.map(([name, spec]) => {
    if (keys.includes(name)) throw new PlanError(`aggregate '${name}' has the name of a group key`);
    const arg = spec.arg === undefined ? undefined : columnFor(typeof spec.arg === 'string' ? { kind: 'ref', name: spec.arg } : spec.arg);
    const extraArgs = spec.extraArgs?.map((a) => columnFor(typeof a === 'string' ? { kind: 'ref', name: a } : a));
    const filterField = spec.filter ? columnFor(spec.filter) : undefined;
    return {
      fn: spec.fn,
      ...(arg !== undefined ? { arg } : {}),
      ...(extraArgs !== undefined && extraArgs.length > 0 ? { extraArgs } : {}),
      distinct: spec.distinct,
      ...(spec.separator !== undefined ? { separator: spec.separator } : {}),
      ...(spec.onNull !== undefined ? { onNull: spec.onNull } : {}),
      ...(spec.percentages !== undefined ? { percentages: spec.percentages } : {}),
      ...(spec.user !== undefined ? { user: spec.user } : {}),
      ...(filterField !== undefined ? { filterField } : {}),
      name,
    };
  });
  // Project only what the aggregate reads (Flink pushes this projection below the Exchange).
  const identity =
    projection.length === input.schema.fields.length &&
    projection.every((p, i) => p.expr.kind === 'ref' && p.expr.name === input.schema.fields[i]?.name && p.name === p.expr.name);
  return { aggInput: identity ? input : input.calc(projection), calls };
}

function sameExpr(a: Expr, b: Expr): boolean {
  const key = (e: Expr): string => JSON.stringify(e, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
  return key(a) === key(b);
}

/**
 * The type of column `name`.
 *
 * @throws PlanError naming the context, the column and the available columns.
 */
export function requireColumn(schema: Schema, name: string, context: string): LogicalType {
  const field = schema.fields.find((f) => f.name === name);
  if (!field) {
    throw new PlanError(`${context}: unknown column '${name}' (available: ${schema.fields.map((f) => f.name).join(', ')})`);
  }
  return field.type;
}
