/**
 * Merging of {@link GroupAccumulators} for the sliced window path (./sliced-window-operator.ts):
 * `AggsHandler` has no `merge(acc, acc)`, so this module merges the accumulators of the calls
 * whose merge is exact — the same accumulator as one that saw every row (and retraction) of the
 * merged parts, in any order:
 *
 * - COUNT / COUNT(*): counts add;
 * - SUM of INT (32-bit wrap-around arithmetic, associative) and of DECIMAL (bigint); AVG of
 *   DECIMAL: sums and counts add;
 * - MIN / MAX of every type but DOUBLE (where values comparing equal are identical): the sorted
 *   value → count lists add, entries netting to 0 dropped (what `adjust` maintains).
 *
 * - a user aggregate function with a `merge` method: its merge, as Flink's slicing window
 *   operator merges slices with the function's `merge` (the function's contract).
 *
 * DISTINCT calls, DOUBLE/BIGINT sums and averages (floating-point addition is order-dependent)
 * and user functions without `merge` are not mergeable: {@link accumulatorMerger} returns `undefined` and the operator keeps one
 * accumulator per window instead. The accumulator layouts are those of
 * shared/operators/aggregate/ (count.ts, sum.ts, avg.ts, min-max.ts); the window tests compare
 * both paths.
 */
import type { LogicalType, Schema, Value } from '../../core/types.ts';
import type { AggCall } from '../../plan/logical.ts';
import { userAggregateOf, type GroupAccumulators } from '../aggregate/aggs-handler.ts';
import { compareValues } from '../aggregate/value-order.ts';

/** Adds the accumulator `from` into `into`, in place. */
export type AccumulatorMerger = (into: GroupAccumulators, from: GroupAccumulators) => void;

type CallMerger = (into: unknown, from: unknown) => void;

interface CountAcc {
  count: number;
}
interface SumAcc {
  sum: number | bigint;
  count: number;
}
interface MinMaxAcc {
  entries: [Value, number][];
}

const mergeCount: CallMerger = (into, from) => {
  (into as CountAcc).count += (from as CountAcc).count;
};
const mergeIntSum: CallMerger = (into, from) => {
  const a = into as SumAcc;
  const b = from as SumAcc;
  a.sum = ((a.sum as number) + (b.sum as number)) | 0;
  a.count += b.count;
};
const mergeDecimalSum: CallMerger = (into, from) => {
  const a = into as SumAcc;
  const b = from as SumAcc;
  a.sum = (a.sum as bigint) + (b.sum as bigint);
  a.count += b.count;
};
const mergeMinMax: CallMerger = (into, from) => {
  const a = into as MinMaxAcc;
  const b = (from as MinMaxAcc).entries;
  if (b.length === 0) return;
  const x = a.entries;
  const merged: [Value, number][] = [];
  let i = 0;
  let j = 0;
  while (i < x.length || j < b.length) {
    if (j >= b.length) merged.push(x[i++]!);
    else if (i >= x.length) merged.push([b[j]![0], b[j++]![1]]);
    else {
      const c = compareValues(x[i]![0], b[j]![0]);
      if (c < 0) merged.push(x[i++]!);
      else if (c > 0) merged.push([b[j]![0], b[j++]![1]]);
      else {
        const count = x[i]![1] + b[j]![1];
        if (count !== 0) merged.push([x[i]![0], count]);
        i++;
        j++;
      }
    }
  }
  a.entries = merged;
};

function callMerger(call: AggCall, argType: LogicalType | undefined, functions: ReadonlyMap<string, unknown> | undefined): CallMerger | undefined {
  if (call.distinct) return undefined;
  switch (call.fn) {
    case 'USER': {
      const fn = call.user === undefined ? undefined : userAggregateOf(call.user, functions);
      const merge = fn?.merge;
      return fn !== undefined && merge !== undefined ? (into, from) => merge.call(fn, into, from) : undefined;
    }
    case 'COUNT':
      return mergeCount;
    case 'SUM':
      if (argType?.root === 'INT') return mergeIntSum;
      if (argType?.root === 'DECIMAL') return mergeDecimalSum;
      return undefined;
    case 'AVG':
      return argType?.root === 'DECIMAL' ? mergeDecimalSum : undefined;
    case 'MIN':
    case 'MAX':
      return argType === undefined || argType.root === 'DOUBLE' || argType.root === 'FLOAT' ? undefined : mergeMinMax;
    default:
      return undefined;
  }
}

/**
 * The merge of the accumulators of these calls, or `undefined` when any call is not exactly
 * mergeable (see the module documentation).
 */
export function accumulatorMerger(calls: readonly AggCall[], inputSchema: Schema, functions?: ReadonlyMap<string, unknown>): AccumulatorMerger | undefined {
  const mergers: CallMerger[] = [];
  for (const call of calls) {
    const argType = call.arg === undefined ? undefined : inputSchema.fields.find((f) => f.name === call.arg)?.type;
    const merger = callMerger(call, argType, functions);
    if (merger === undefined) return undefined;
    mergers.push(merger);
  }
  return (into, from) => {
    into.records += from.records;
    for (let i = 0; i < mergers.length; i++) mergers[i]!(into.aggs[i], from.aggs[i]);
  };
}
