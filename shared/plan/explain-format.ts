/**
 * Formatters of plan parts as Flink prints them in EXPLAIN, shared by the node descriptions of
 * explain.ts and window-explain.ts (a leaf module, so neither imports the other).
 */
import { aggCallName, aggOptionsText } from '../operators/aggregate/agg-call.ts';
import type { AggCall, RankRange, RankStrategy, SortField } from './logical.ts';

/** `COUNT(DISTINCT bidder) FILTER $f3 AS total_bidders`, as Flink prints aggregate calls. */
export function formatAggCall(call: AggCall): string {
  const args = call.arg === undefined ? (call.user ? '' : '*') : [call.arg, ...(call.extraArgs ?? [])].join(', ');
  const arg = call.distinct ? `DISTINCT ${args}` : args;
  const filter = call.filterField === undefined ? '' : ` FILTER ${call.filterField}`;
  return `${aggCallName(call)}(${arg}${aggOptionsText(call)})${filter} AS ${call.name}`;
}

/** `price DESC`, `a ASC NULLS LAST`, as Flink prints order keys. */
export function formatSortField(f: SortField): string {
  const nulls = f.direction === 'ASC' ? (f.nullsFirst ? '' : ' NULLS LAST') : f.nullsFirst ? ' NULLS FIRST' : '';
  return `${f.column} ${f.direction}${nulls}`;
}

/** `rankStart=1, rankEnd=10` or `rankEnd=col`. */
export function formatRankRange(r: RankRange): string {
  return r.type === 'constant' ? `rankStart=${r.start}, rankEnd=${r.end}` : `rankEnd=${r.endColumn}`;
}

/** Flink's names for the strategies, as EXPLAIN prints them. */
export const STRATEGY_NAMES: Readonly<Record<RankStrategy, string>> = {
  AppendFast: 'AppendFastStrategy',
  Retract: 'RetractStrategy',
  UpdateFast: 'UpdateFastStrategy',
};
