/**
 * Modified monotonicity of a node's output columns (Flink's FlinkRelMdModifiedMonotonicity):
 * how a column's value can change when a row with the same key is updated. The planner uses it
 * to pick the UpdateFast Top-N strategy, which is only correct when updates move rows towards
 * the top (e.g. a growing COUNT ordered DESC).
 *
 * `undefined` means the node's output may contain deletions, so no column is monotonic.
 */
import { isChangelogFormat } from '../core/formats.ts';
import type { LogicalNode } from './logical.ts';

/** Calcite's SqlMonotonicity, reduced to what the planner distinguishes. */
export type Monotonicity = 'CONSTANT' | 'INCREASING' | 'DECREASING' | 'NOT_MONOTONIC';

/** Column name → monotonicity, or undefined when the output may contain deletions. */
export type ColumnMonotonicity = ReadonlyMap<string, Monotonicity> | undefined;

const allOf = (node: LogicalNode, m: Monotonicity): Map<string, Monotonicity> =>
  new Map(node.schema.fields.map((f) => [f.name, m]));

const isAllAppend = (m: ColumnMonotonicity): boolean => m !== undefined && [...m.values()].every((v) => v === 'CONSTANT');

/** Derives the monotonicity of `node`'s output from its inputs. */
export function modifiedMonotonicity(node: LogicalNode): ColumnMonotonicity {
  switch (node.type) {
    case 'Source':
      // Sources are insert-only, nothing is ever updated — except a source of change events.
      if (node.connector.type !== 'generator' && isChangelogFormat(node.connector.format)) return undefined;
      return allOf(node, 'CONSTANT');
    case 'Exchange':
    case 'Sink':
      return modifiedMonotonicity(node.input);
    case 'Calc': {
      const input = modifiedMonotonicity(node.input);
      if (input === undefined) return undefined;
      if (isAllAppend(input)) return allOf(node, 'CONSTANT');
      // A filter over an updating input can turn an update into a deletion.
      if (node.condition) return undefined;
      const out = new Map<string, Monotonicity>();
      for (const p of node.projection) {
        const e = p.expr.kind === 'cast' ? p.expr.expr : p.expr;
        out.set(p.name, e.kind === 'ref' ? (input.get(e.name) ?? 'NOT_MONOTONIC') : 'NOT_MONOTONIC');
      }
      return out;
    }
    case 'Correlate': {
      // The input columns keep their monotonicity; the function's columns are not monotonic.
      const input = modifiedMonotonicity(node.input);
      if (input === undefined) return undefined;
      const out = new Map<string, Monotonicity>();
      for (const f of node.schema.fields) out.set(f.name, input.get(f.name) ?? (isAllAppend(input) ? 'CONSTANT' : 'NOT_MONOTONIC'));
      return out;
    }
    case 'Map': {
      const input = modifiedMonotonicity(node.input);
      if (input === undefined) return undefined;
      return allOf(node, isAllAppend(input) ? 'CONSTANT' : 'NOT_MONOTONIC');
    }
    case 'GroupAggregate': {
      const input = modifiedMonotonicity(node.input);
      // Grouping by a column that changes moves rows between groups: deletions.
      if (input === undefined || node.groupBy.some((k) => input.get(k) !== 'CONSTANT')) return undefined;
      const out = new Map<string, Monotonicity>(node.groupBy.map((k) => [k, 'CONSTANT']));
      const inputUpdates = !isAllAppend(input);
      for (const call of node.aggCalls) {
        let m: Monotonicity =
          call.fn === 'COUNT' ? 'INCREASING' : call.fn === 'MAX' ? 'INCREASING' : call.fn === 'MIN' ? 'DECREASING' : 'NOT_MONOTONIC';
        // SUM is monotonic only when its argument is known to be non-negative (or non-positive);
        // Flink derives that from value intervals, which we do not track, so SUM is not monotonic.
        if (inputUpdates && call.fn !== 'COUNT' && call.arg !== undefined && input.get(call.arg) !== m) m = 'NOT_MONOTONIC';
        out.set(call.name, m);
      }
      return out;
    }
    case 'Rank': {
      const input = modifiedMonotonicity(node.input);
      if (input === undefined || node.partitionBy.some((k) => input.get(k) !== 'CONSTANT')) return undefined;
      const out = allOf(node, 'NOT_MONOTONIC');
      for (const k of node.partitionBy) out.set(k, 'CONSTANT');
      if (node.rankNumberColumn) out.set(node.rankNumberColumn, 'CONSTANT');
      const first = node.orderBy[0];
      if (first) {
        const m = input.get(first.column);
        out.set(
          first.column,
          (m === 'INCREASING' || m === 'CONSTANT') && first.direction === 'DESC'
            ? 'INCREASING'
            : (m === 'DECREASING' || m === 'CONSTANT') && first.direction === 'ASC'
              ? 'DECREASING'
              : 'NOT_MONOTONIC',
        );
      }
      return out;
    }
    default:
      // Other operators (dedup, joins, windows) are treated conservatively.
      return undefined;
  }
}
