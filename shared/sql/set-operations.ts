/**
 * `INTERSECT` and `EXCEPT` (`MINUS`), with or without `ALL`, rewritten as Flink's planner does
 * (two inputs with the same columns, the right side's already named and typed as the left's):
 *
 * - `INTERSECT` — ReplaceIntersectWithSemiJoinRule: the left rows with a match on the right, a
 *   SEMI join on every column by `IS NOT DISTINCT FROM` (so NULLs match), then the distinct rows
 *   (a GroupAggregate by every column).
 * - `EXCEPT` — ReplaceMinusWithAntiJoinRule: the same with an ANTI join.
 * - `INTERSECT ALL` — RewriteIntersectAllRule: both sides marked (`true AS vcol_left_marker,
 *   null AS vcol_right_marker` and the other way round), UNION ALL, per distinct row the count of
 *   each marker, the rows present on both sides, each repeated `min(left count, right count)`
 *   times by the `$REPLICATE_ROWS$` table function.
 * - `EXCEPT ALL` — RewriteMinusAllRule: `1` on the left, `-1` on the right, UNION ALL, per
 *   distinct row their SUM, the rows with a positive sum repeated that many times.
 *
 * All four take any input changelog and give a retract changelog; rows equal in every column are
 * one row, NULL equal to NULL, as SQL's set operations say.
 */
import { count, sum } from '../api/aggregates.ts';
import type { Stream } from '../api/stream.ts';
import type { Row } from '../core/types.ts';
import { call, col, lit } from '../plan/expr-build.ts';
import type { Expr } from '../plan/expr.ts';
import { buildJoin } from '../api/joins.ts';

/** Which set operation. */
export type IntersectOrExcept = 'INTERSECT' | 'EXCEPT';

/** Options the rewrite passes on: the GroupAggregates' idle-state retention, the join's. */
export interface SetOperationOptions {
  readonly stateTtlMs?: number;
}

/**
 * `left INTERSECT [ALL] right` or `left EXCEPT [ALL] right`; both inputs have the same column
 * names and types.
 */
export function intersectOrExcept(left: Stream<Row>, right: Stream<Row>, op: IntersectOrExcept, all: boolean, options: SetOperationOptions = {}): Stream<Row> {
  const columns = left.schema.fields.map((f) => f.name);
  if (!all) {
    const ttl = options.stateTtlMs !== undefined ? { leftStateTtlMs: options.stateTtlMs, rightStateTtlMs: options.stateTtlMs } : {};
    const joined = buildJoin(left, right, {
      type: op === 'INTERSECT' ? 'SEMI' : 'ANTI',
      keys: columns.map((c) => ({ left: c, right: c, nullSafe: true })),
      ...ttl,
      what: op,
    });
    return joined.groupBy(...(columns as never[])).aggregate({}, options) as unknown as Stream<Row>;
  }
  return op === 'INTERSECT' ? intersectAll(left, right, columns, options) : exceptAll(left, right, columns, options);
}

const refs = (columns: readonly string[]): { name: string; expr: Expr }[] => columns.map((c) => ({ name: c, expr: col(c) }));

function intersectAll(left: Stream<Row>, right: Stream<Row>, columns: readonly string[], options: SetOperationOptions): Stream<Row> {
  const marked = (l: boolean): { name: string; expr: Expr }[] => [
    ...refs(columns),
    { name: 'vcol_left_marker', expr: l ? lit(true) : lit(null, 'BOOLEAN') },
    { name: 'vcol_right_marker', expr: l ? lit(null, 'BOOLEAN') : lit(true) },
  ];
  const union = left.calc(marked(true)).unionAll(right.calc(marked(false)));
  const counted = union.groupBy(...(columns as never[])).aggregate({ vcol_left_cnt: count('vcol_left_marker'), vcol_right_cnt: count('vcol_right_marker') }, options) as unknown as Stream<Row>;
  const leftCount = col('vcol_left_cnt');
  const rightCount = col('vcol_right_cnt');
  const both = counted.calc(
    [{ name: '$f0', expr: call('CASE', call('>', leftCount, rightCount), rightCount, leftCount) }, ...refs(columns)],
    call('AND', call('>=', leftCount, lit(1)), call('>=', rightCount, lit(1))),
  );
  return replicate(both, '$f0', columns);
}

function exceptAll(left: Stream<Row>, right: Stream<Row>, columns: readonly string[], options: SetOperationOptions): Stream<Row> {
  const marked = (marker: number): { name: string; expr: Expr }[] => [...refs(columns), { name: 'vcol_marker', expr: lit(marker, 'BIGINT') }];
  const union = left.calc(marked(1)).unionAll(right.calc(marked(-1)));
  const summed = union.groupBy(...(columns as never[])).aggregate({ sum_vcol_marker: sum('vcol_marker') }, options) as unknown as Stream<Row>;
  const positive = summed.calc([{ name: 'sum_vcol_marker', expr: col('sum_vcol_marker') }, ...refs(columns)], call('>', col('sum_vcol_marker'), lit(0, 'BIGINT')));
  return replicate(positive, 'sum_vcol_marker', columns);
}

/**
 * Each row of `input` `times` times (a column of it), projected to `columns`: Flink's
 * `$REPLICATE_ROWS$` table function in a Correlate, then the Calc that keeps its columns.
 */
function replicate(input: Stream<Row>, times: string, columns: readonly string[]): Stream<Row> {
  const fields = input.schema.fields.filter((f) => columns.includes(f.name));
  const taken = new Set(input.schema.fields.map((f) => f.name));
  const out = fields.map((f) => {
    let name = f.name;
    for (let n = 0; taken.has(name); n++) name = `${f.name}${n}`;
    taken.add(name);
    return name;
  });
  const correlated = input.correlate({ call: { fn: 'REPLICATE_ROWS', args: [times, ...fields.map((f) => f.name)].map((c) => col(c)) }, columns: out, joinType: 'INNER' });
  return correlated.calc(fields.map((f, i) => ({ name: f.name, expr: col(out[i] as string) })));
}
