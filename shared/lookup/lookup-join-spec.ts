/**
 * The plain-data spec of a lookup join (`FOR SYSTEM_TIME AS OF proctime`) and its output schema.
 *
 * Output columns: by default every probe column then every dimension column, in schema order.
 * A name on both sides is a PlanError (not a silent `id0` rename, which the user would have to
 * guess); list the columns with `output` and rename with `as` instead. With a LEFT join the
 * dimension columns become nullable. Probe columns keep their time attributes (a proctime or
 * rowtime column stays one, as in Flink); dimension columns carry none.
 *
 * The extra `condition` (the non-equi part of the ON clause) is evaluated over the output row,
 * so it refers to output column names; a dimension row failing it is not a match, and a LEFT
 * join pads NULLs when no row passes.
 */
import { PlanError } from '../core/errors.ts';
import { requireField, schemaFromFields } from '../core/type-parse.ts';
import type { Field, Schema } from '../core/types.ts';
import type { Expr } from '../plan/expr.ts';
import { printExpr } from '../plan/expr-print.ts';
import { typeName } from '../plan/expr-type-rules.ts';
import { inferType } from '../plan/expr-types.ts';
import type { LookupCacheSpec } from './cache-spec.ts';
import { validateCacheSpec } from './cache-spec.ts';
import { keyConverter } from './lookup-keys.ts';
import type { LookupRetrySpec } from './resilient-source.ts';
import { validateResilience } from './resilient-source.ts';

/** One output column: a probe or dimension column, optionally renamed. */
export interface LookupOutputColumn {
  readonly side: 'probe' | 'lookup';
  readonly column: string;
  /** Output name. @default column */
  readonly as?: string;
}

/** One equality of the join: probe column = dimension column. */
export interface LookupKeyPair {
  readonly probe: string;
  readonly lookup: string;
}

/** A lookup join as it travels in the JSON job graph. */
export interface LookupJoinSpec {
  /** The dimension table's name (errors, metrics). */
  readonly table: string;
  readonly joinType: 'INNER' | 'LEFT';
  /** The equi-join keys, at least one; the lookup columns in this order form the lookup key. */
  readonly keys: readonly LookupKeyPair[];
  /** Extra join condition over the output row (see the module header). */
  readonly condition?: Expr;
  /** Columns and types of the dimension rows. */
  readonly dimensionSchema: Schema;
  /** Output columns; absent: all probe columns, then all dimension columns. */
  readonly output?: readonly LookupOutputColumn[];
  /** @default { type: 'NONE' } */
  readonly cache?: LookupCacheSpec;
  /** Retries on miss and on transient errors; absent: no miss retry, 3 attempts on errors. */
  readonly retry?: LookupRetrySpec;
  /** Store requests in flight per batch. @default 4 */
  readonly maxConcurrency?: number;
  /** Keys per store request. @default all keys of a batch in one request */
  readonly batchSize?: number;
}

/** An output column resolved against the schemas. */
export interface ResolvedOutputColumn {
  readonly side: 'probe' | 'lookup';
  readonly column: string;
  readonly field: Field;
}

/** The output columns with their fields (see the module header for naming and nullability). */
export function resolveOutput(spec: LookupJoinSpec, probeSchema: Schema): ResolvedOutputColumn[] {
  const columns: readonly LookupOutputColumn[] =
    spec.output ??
    [
      ...probeSchema.fields.map((f) => ({ side: 'probe' as const, column: f.name })),
      ...spec.dimensionSchema.fields.map((f) => ({ side: 'lookup' as const, column: f.name })),
    ];
  const seen = new Map<string, string>();
  return columns.map(({ side, column, as }) => {
    const source = side === 'probe' ? probeSchema : spec.dimensionSchema;
    const where = side === 'probe' ? `the probe input of the lookup join with '${spec.table}'` : `lookup table '${spec.table}'`;
    if (side !== 'probe' && side !== 'lookup') throw new PlanError(`lookup join with '${spec.table}': output side must be 'probe' or 'lookup' (given ${JSON.stringify(side)})`);
    const input = requireField(source, column, where);
    const name = as ?? column;
    const previous = seen.get(name);
    if (previous !== undefined) {
      throw new PlanError(
        `lookup join with '${spec.table}': output column '${name}' comes from both ${previous} and ${side} columns; list the output columns with 'output' and rename one with 'as'`,
      );
    }
    seen.set(name, side);
    let field: Field;
    if (side === 'probe') field = input.timeAttribute === undefined ? { name, type: input.type } : { name, type: input.type, timeAttribute: input.timeAttribute };
    else field = { name, type: spec.joinType === 'LEFT' ? { ...input.type, nullable: true } : input.type };
    return { side, column, field };
  });
}

/**
 * Validates `spec` against the probe schema and returns the output schema.
 *
 * @throws PlanError for an unknown column, incomparable key types, a duplicate output name, a
 *   non-BOOLEAN condition, or an invalid cache, retry or batching setting.
 */
export function lookupJoinOutputSchema(spec: LookupJoinSpec, probeSchema: Schema): Schema {
  if (spec.joinType !== 'INNER' && spec.joinType !== 'LEFT') {
    throw new PlanError(`lookup join with '${spec.table}': joinType must be INNER or LEFT (given ${JSON.stringify(spec.joinType)})`);
  }
  if (spec.keys.length === 0) throw new PlanError(`lookup join with '${spec.table}' needs at least one equality key`);
  const lookupColumns = new Set<string>();
  for (const pair of spec.keys) {
    const probe = requireField(probeSchema, pair.probe, `the lookup join keys with '${spec.table}'`);
    const lookup = requireField(spec.dimensionSchema, pair.lookup, `lookup table '${spec.table}'`);
    if (lookupColumns.has(pair.lookup)) throw new PlanError(`lookup join with '${spec.table}': lookup column '${pair.lookup}' appears twice in the keys`);
    lookupColumns.add(pair.lookup);
    keyConverter(spec.table, probe, lookup);
  }
  if (spec.cache !== undefined) validateCacheSpec(spec.cache, spec.table);
  validateResilience(spec, spec.table);
  const schema = schemaFromFields(resolveOutput(spec, probeSchema).map((c) => c.field));
  if (spec.condition !== undefined) {
    const type = inferType(spec.condition, schema);
    if (type.root !== 'BOOLEAN') {
      throw new PlanError(`lookup join with '${spec.table}': the condition must be BOOLEAN, but ${printExpr(spec.condition)} is ${typeName(type)}`);
    }
  }
  return schema;
}
