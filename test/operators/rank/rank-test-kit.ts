/**
 * Shared fixtures of the Top-N tests, shaped like Flink's TopNFunctionTestBase: input rows
 * (STRING, BIGINT, INT) as `category, id, price`, partitioned by `category`, ordered by `price`
 * ascending (Flink's IntRecordComparator), with `id` as the row key of the UpdateFast variant and
 * `rn` as the rank number column.
 */
import type { ChangeRow } from '../../../shared/core/row.ts';
import { schemaOf } from '../../../shared/core/type-parse.ts';
import type { Row, Schema } from '../../../shared/core/types.ts';
import type { Operator } from '../../../shared/operators/operator.ts';
import { createRankOperator } from '../../../shared/operators/rank/rank-operator.ts';
import type { RankSpec, RankStrategy } from '../../../shared/operators/rank/rank-spec.ts';
import type { RankRange } from '../../../shared/plan/logical.ts';
import { OperatorHarness, del, insert, updateAfter, updateBefore } from '../../harness/index.ts';

/** TopNFunctionTestBase's `inputRowType`. */
export const INPUT: Schema = schemaOf({ category: 'STRING', id: 'BIGINT', price: 'INT' });

/** Flink's `new ConstantRankRange(start, end)`. */
export function constantRange(start: number, end: number): RankRange {
  return { type: 'constant', start, end };
}

/** Flink's `new VariableRankRange(1)`: the end is read from field 1, `id`. */
export const VARIABLE_RANGE: RankRange = { type: 'variable', endColumn: 'id' };

/** Options of {@link topNSpec}, named after the arguments of Flink's `createFunction`. */
export interface TopNOptions {
  readonly strategy: RankStrategy;
  readonly rankType?: RankSpec['rankType'];
  readonly range: RankRange;
  readonly generateUpdateBefore: boolean;
  readonly outputRankNumber: boolean;
  readonly stateTtlMs?: number;
  readonly cacheSize?: number;
}

/** A spec over {@link INPUT} as TopNFunctionTestBase builds its functions. */
export function topNSpec(o: TopNOptions): RankSpec {
  return {
    strategy: o.strategy,
    rankType: o.rankType ?? 'ROW_NUMBER',
    partitionBy: ['category'],
    orderBy: [{ column: 'price', direction: 'ASC', nullsFirst: true }],
    rankRange: o.range,
    ...(o.outputRankNumber ? { rankNumberColumn: 'rn' } : {}),
    // Flink's rowKeySelector is field 1; ours must contain the partition key too.
    ...(o.strategy === 'UpdateFast' ? { upsertKey: ['category', 'id'] } : {}),
    generateUpdateBefore: o.generateUpdateBefore,
    ...(o.stateTtlMs !== undefined ? { stateTtlMs: o.stateTtlMs } : {}),
    ...(o.cacheSize !== undefined ? { cacheSize: o.cacheSize } : {}),
  };
}

/** Opens a harness over a Top-N built from `spec` and `schema`. */
export function openRank(spec: RankSpec, schema: Schema = INPUT): Promise<OperatorHarness> {
  return OperatorHarness.open(() => createRankOperator(spec, schema));
}

/** A factory for restoring a Top-N from a snapshot. */
export function rankFactory(spec: RankSpec, schema: Schema = INPUT): () => Operator {
  return () => createRankOperator(spec, schema);
}

/** A row `(category, id, price)`, plus `rn` when a rank is given: Flink's `row(…)` arguments. */
export function row(category: string, id: number, price: number, rank?: number): Row {
  return rank === undefined ? { category, id, price } : { category, id, price, rn: rank };
}

/** Flink's `insertRecord(…)`. */
export const I = (category: string, id: number, price: number, rank?: number): ChangeRow => insert(row(category, id, price, rank));
/** Flink's `updateBeforeRecord(…)`. */
export const UB = (category: string, id: number, price: number, rank?: number): ChangeRow =>
  updateBefore(row(category, id, price, rank));
/** Flink's `updateAfterRecord(…)`. */
export const UA = (category: string, id: number, price: number, rank?: number): ChangeRow =>
  updateAfter(row(category, id, price, rank));
/** Flink's `deleteRecord(…)`. */
export const D = (category: string, id: number, price: number, rank?: number): ChangeRow => del(row(category, id, price, rank));

/** Feeds rows one batch each, as Flink's harness feeds elements; returns all rows emitted. */
export async function feed(harness: OperatorHarness, rows: readonly ChangeRow[]): Promise<ChangeRow[]> {
  return harness.processElements(...rows);
}
