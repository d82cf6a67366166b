/**
 * A {@link RankSpec} validated against its input schema and compiled into what every Top-N
 * operator needs: key functions, the ORDER BY, the range, the output columns and the options.
 * Done once per operator instance, so per-record code only calls closures.
 */
import { PlanError } from '../../core/errors.ts';
import { requireField, schemaFromFields } from '../../core/type-parse.ts';
import type { Field, Row, Schema, Value } from '../../core/types.ts';
import { encodeKey } from '../../partition/key-encoding.ts';
import { valuesEqual } from '../aggregate/value-order.ts';
import { ARRIVAL_ORDER, compileOrderKey, type OrderKey } from './order-key.ts';
import { DEFAULT_CACHE_SIZE } from './partition-cache.ts';
import { compileRankRange, type CompiledRankRange } from './rank-range.ts';
import type { RankSpec } from './rank-spec.ts';

/** A compiled {@link RankSpec}. */
export interface RankPlan {
  readonly spec: RankSpec;
  readonly inputSchema: Schema;
  /** Input columns, then the rank number column when output. */
  readonly outputSchema: Schema;
  /** Input column names, in order. */
  readonly fieldNames: readonly string[];
  /** The state key of a row's partition (`encodeKey` of the PARTITION BY values). */
  readonly partitionKey: (row: Row) => string;
  readonly order: OrderKey;
  readonly range: CompiledRankRange;
  /** Whether the rank number is a column of the output. */
  readonly outputRankNumber: boolean;
  /** Idle-state retention in ms, or undefined to keep state forever. */
  readonly ttlMs: number | undefined;
  /** Partitions kept in the buffer cache. */
  readonly cacheSize: number;
  /** Equality of two input rows over all input columns (Flink's generated RecordEqualiser). */
  readonly rowsEqual: (a: Row, b: Row) => boolean;
  /** UpdateFast only: the encoded upsert key of a row. */
  readonly upsertKey: ((row: Row) => string) | undefined;
}

const STRATEGIES: ReadonlySet<string> = new Set(['AppendFast', 'Retract', 'UpdateFast']);
const RANK_TYPES: ReadonlySet<string> = new Set(['ROW_NUMBER', 'RANK', 'DENSE_RANK']);

/**
 * Validates `spec` against `inputSchema` and compiles it.
 *
 * @throws PlanError naming what is wrong: an unknown strategy or rank type, a missing column, an
 *   empty ORDER BY (but for a LIMIT), an invalid range, a rank column clashing with an input column, an UpdateFast
 *   spec without an upsert key containing the partition key, a bad TTL or cache size.
 */
export function compileRankPlan(spec: RankSpec, inputSchema: Schema): RankPlan {
  // The spec travels as JSON, so check the enumerations rather than trusting the types.
  if (!STRATEGIES.has(spec.strategy)) {
    throw new PlanError(`Rank: unknown strategy ${JSON.stringify(spec.strategy)}; expected AppendFast, Retract or UpdateFast`);
  }
  if (!RANK_TYPES.has(spec.rankType)) {
    throw new PlanError(`Rank: unknown rank type ${JSON.stringify(spec.rankType)}; expected ROW_NUMBER, RANK or DENSE_RANK`);
  }
  const partitionBy = spec.partitionBy ?? [];
  for (const column of partitionBy) requireField(inputSchema, column, 'Rank PARTITION BY');
  const order = Array.isArray(spec.orderBy) && spec.orderBy.length === 0 ? limitOrder(spec) : compileOrderKey(spec.orderBy, inputSchema);
  const range = compileRankRange(spec.rankRange, inputSchema);
  const fields: Field[] = [...inputSchema.fields];
  const rankColumn = spec.rankNumberColumn;
  if (rankColumn !== undefined) {
    if (inputSchema.fields.some((f) => f.name === rankColumn)) {
      throw new PlanError(`Rank: the rank number column '${rankColumn}' clashes with an input column`);
    }
    fields.push({ name: rankColumn, type: { root: 'BIGINT', nullable: false } });
  }
  const outputSchema = schemaFromFields(fields);
  let upsertKey: ((row: Row) => string) | undefined;
  if (spec.strategy === 'UpdateFast') {
    const key = spec.upsertKey;
    if (key === undefined || key.length === 0) {
      throw new PlanError('Rank: the UpdateFast strategy needs the upsert key of its input (spec.upsertKey)');
    }
    for (const column of key) requireField(inputSchema, column, 'Rank upsert key');
    const missing = partitionBy.filter((p) => !key.includes(p));
    if (missing.length > 0) {
      // RankProcessStrategy: UpdateFast needs "the upsert key of input stream contains partition
      // key", else a row could move between partitions and leave a stale copy behind.
      throw new PlanError(
        `Rank: the UpdateFast upsert key [${key.join(', ')}] must contain the partition key; missing ${missing.join(', ')}`,
      );
    }
    upsertKey = keyFunction(key);
  }
  const ttl = spec.stateTtlMs;
  if (ttl !== undefined && (typeof ttl !== 'number' || Number.isNaN(ttl) || ttl === Infinity)) {
    throw new PlanError(`Rank: stateTtlMs must be a finite number of milliseconds, got ${String(ttl)}`);
  }
  const cacheSize = spec.cacheSize ?? DEFAULT_CACHE_SIZE;
  if (!Number.isSafeInteger(cacheSize) || cacheSize < 1) {
    throw new PlanError(`Rank: cacheSize must be a positive integer number of partitions, got ${String(cacheSize)}`);
  }
  const fieldNames = inputSchema.fields.map((f) => f.name);
  return {
    spec,
    inputSchema,
    outputSchema,
    fieldNames,
    partitionKey: keyFunction(partitionBy),
    order,
    range,
    outputRankNumber: rankColumn !== undefined,
    // As for GroupAggregate, absent or ≤ 0 keeps state forever.
    ttlMs: ttl !== undefined && ttl > 0 ? ttl : undefined,
    cacheSize,
    rowsEqual: (a, b) => {
      for (let i = 0; i < fieldNames.length; i++) {
        const name = fieldNames[i]!;
        if (!valuesEqual(a[name] ?? null, b[name] ?? null)) return false;
      }
      return true;
    },
    upsertKey,
  };
}

/**
 * The order of a rank without ORDER BY: only Flink's Limit (`LIMIT n [OFFSET m]` alone, a
 * ROW_NUMBER over a constant range without the rank column) has none.
 *
 * @throws PlanError for any other rank without ORDER BY.
 */
function limitOrder(spec: RankSpec): OrderKey {
  if (spec.rankType !== 'ROW_NUMBER' || spec.rankRange.type !== 'constant' || spec.rankNumberColumn !== undefined) {
    throw new PlanError('Rank: ORDER BY needs at least one column (only a LIMIT, a ROW_NUMBER over a constant range without the rank column, has none)');
  }
  return ARRIVAL_ORDER;
}

/** `encodeKey` of the given columns, reusing one values array (the key string is the only allocation). */
function keyFunction(columns: readonly string[]): (row: Row) => string {
  const n = columns.length;
  if (n === 0) return () => '';
  if (n === 1) {
    const column = columns[0]!;
    const values: Value[] = [null];
    return (row) => {
      values[0] = row[column] ?? null;
      return encodeKey(values);
    };
  }
  const values: Value[] = new Array<Value>(n).fill(null);
  return (row) => {
    for (let i = 0; i < n; i++) values[i] = row[columns[i]!] ?? null;
    return encodeKey(values);
  };
}
