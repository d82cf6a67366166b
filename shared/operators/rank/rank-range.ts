/**
 * Rank ranges, validated and compiled: Flink's ConstantRankRange (`rn <= N` is [1, N], `rn < N`
 * is [1, N-1], `BETWEEN a AND b` is [a, b], `rn = k` is [k, k]) and VariableRankRange
 * (`rn <= column`: the end is read from a column of the row, and the first value a partition
 * sees stays its end, as AbstractTopNFunction.initRankEnd keeps it in the `rankEnd` state).
 *
 * Flink rejects a range without an end (ConstantRankRangeWithoutEnd, "Rank end is not
 * specified"); so do we, and also empty or non-integer ranges, naming the values.
 */
import { PlanError } from '../../core/errors.ts';
import { requireField } from '../../core/type-parse.ts';
import type { Row, Schema } from '../../core/types.ts';
import type { RankRange } from '../../plan/logical.ts';

/** A validated rank range. */
export type CompiledRankRange =
  | { readonly kind: 'constant'; readonly start: number; readonly end: number }
  | {
      readonly kind: 'variable';
      /** Always 1: `rn <= column` has no lower bound. */
      readonly start: 1;
      readonly column: string;
      /** The row's rank end, or `undefined` when the column does not hold a positive integer. */
      readonly endOf: (row: Row) => number | undefined;
    };

/** Whether a range is `[1, 1]`, the case Flink's FastTop1Function serves (RankUtil.isTop1). */
export function isTop1(range: CompiledRankRange): boolean {
  return range.kind === 'constant' && range.start === 1 && range.end === 1;
}

/**
 * Validates `range` against the input schema.
 *
 * @throws PlanError for a missing, unbounded, empty or non-integer constant range, or a variable
 *   range whose column is missing or not an INT/BIGINT.
 */
export function compileRankRange(range: RankRange | undefined, schema: Schema): CompiledRankRange {
  if (range === undefined || range === null) {
    throw new PlanError('Rank: a rank range is required; a Top-N needs an end such as rn <= N');
  }
  if (range.type === 'constant') {
    const { start, end } = range;
    const describe = `[start=${String(start)}, end=${String(end)}]`;
    if (end === Infinity || end === undefined || end === null) {
      throw new PlanError(`Rank: range ${describe} has no end; Top-N needs a bounded rank range such as rn <= N`);
    }
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end)) {
      throw new PlanError(`Rank: range ${describe} must have integer bounds`);
    }
    if (start < 1) throw new PlanError(`Rank: range ${describe} must start at 1 or later (ranks are 1-based)`);
    if (end < start) throw new PlanError(`Rank: range ${describe} is empty: the end is below the start`);
    return { kind: 'constant', start, end };
  }
  if (range.type === 'variable') {
    const column = range.endColumn;
    const field = requireField(schema, column, 'Rank range end');
    if (field.type.root !== 'BIGINT' && field.type.root !== 'INT' && field.type.root !== 'SMALLINT') {
      // AbstractTopNFunction.open: "variable rank index column must be long, short or int type".
      throw new PlanError(`Rank: the rank end column '${column}' must be INT or BIGINT, got ${field.type.root}`);
    }
    const endOf = (row: Row): number | undefined => {
      const value = row[column];
      return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 ? value : undefined;
    };
    return { kind: 'variable', start: 1, column, endOf };
  }
  throw new PlanError(`Rank: unknown rank range type ${JSON.stringify((range as { type?: unknown }).type)}`);
}
