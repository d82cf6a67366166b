/**
 * Aggregate user functions in window aggregation (Flink's AggregateFunction contract): several
 * arguments, FILTER, DISTINCT, `merge` for the sliced HOP / CUMULATE path (the same changelog as
 * the per-window operator), TUMBLE without `merge` on the per-window path, SESSION windows, and
 * accumulators that come back from a JSON round trip of the state (as the AWS state path stores them).
 */
import { describe, expect, it } from 'vitest';
import { aggregateFunction } from '../../../shared/api/user-functions.ts';
import type { Value } from '../../../shared/core/types.ts';
import { createWindowAggregateOperator, type WindowAggregateSpec } from '../../../shared/operators/window/window-aggregate.ts';
import type { AggCall, WindowSpec } from '../../../shared/plan/logical.ts';
import { OperatorHarness, insert } from '../../harness/index.ts';
import { cumulate, hop, input, leftovers, NOTHING_LEFT, r, session, tumble } from './window-test-kit.ts';

/** How often `dot`'s merge ran. */
let merges = 0;

/** `dot(a, b)`: the sum of a·b, with merge. */
const dot = aggregateFunction<{ s: number }>('BIGINT', {
  createAccumulator: () => ({ s: 0 }),
  accumulate(acc, a, b) {
    if (a !== null && b !== null) acc.s += (a as number) * (b as number);
  },
  merge(acc, other) {
    merges++;
    acc.s += other.s;
  },
  getValue: (acc) => acc.s,
});

/** The values seen, in order; no merge. */
const seen = aggregateFunction<{ values: Value[] }>('STRING', {
  createAccumulator: () => ({ values: [] }),
  accumulate(acc, v) {
    acc.values.push(v);
  },
  getValue: (acc) => acc.values.join(','),
});

const functions = new Map<string, unknown>([
  ['udf_1', dot],
  ['udf_2', seen],
]);

const DOT = { ref: 'udf_1', name: 'dot', resultType: dot.resultType };
const SEEN = { ref: 'udf_2', name: 'seen', resultType: seen.resultType };

function spec(window: WindowSpec, aggCalls: readonly AggCall[]): WindowAggregateSpec {
  return { window, groupBy: ['k'], aggCalls, generateUpdateBefore: true };
}

async function run(s: WindowAggregateSpec, slicing: boolean, rows = [r('a', 1, 0), r('a', 2, 3), r('b', 3, 4, true), r('a', 4, 7, true), r('a', 2, 9)]): Promise<OperatorHarness> {
  const h = await OperatorHarness.open(() => createWindowAggregateOperator(s, input, { slicing, functions }));
  for (const row of rows) await h.processElement(insert(row));
  await h.endInput();
  return h;
}

const row = (k: string, values: Record<string, Value>, start: number, end: number): Record<string, Value> => ({ k, ...values, window_start: start, window_end: end, window_time: end - 1 });

describe('aggregate user functions in window aggregation', () => {
  it('HOP with merge: sliced (one entry per slice) and per-window give the same changelog', async () => {
    const s = spec(hop(8, 4), [{ fn: 'USER', user: DOT, arg: 'v', extraArgs: ['v'], distinct: false, name: 'd' }]);
    merges = 0;
    const sliced = await run(s, true);
    // The sliced path merges each window's slices with the function's merge; the other never does.
    expect(merges).toBeGreaterThan(0);
    merges = 0;
    const plain = await run(s, false);
    expect(merges).toBe(0);
    expect(sliced.output()).toEqual(plain.output());
    expect(sliced.output()).toEqual([
      insert(row('a', { d: 5 }, -4, 4)),
      insert(row('a', { d: 21 }, 0, 8)),
      insert(row('b', { d: 9 }, 0, 8)),
      insert(row('b', { d: 9 }, 4, 12)),
      insert(row('a', { d: 20 }, 4, 12)),
      insert(row('a', { d: 4 }, 8, 16)),
    ]);
    expect(leftovers(sliced)).toEqual(NOTHING_LEFT);
  });

  it('CUMULATE with merge, FILTER and DISTINCT', async () => {
    const s = spec(cumulate(8, 4), [
      { fn: 'USER', user: DOT, arg: 'v', extraArgs: ['v'], distinct: false, filterField: 'f', name: 'd' },
      { fn: 'USER', user: SEEN, arg: 'v', distinct: true, name: 'vs' },
    ]);
    const [sliced, plain] = [await run(s, true), await run(s, false)];
    expect(sliced.output()).toEqual(plain.output());
    expect(sliced.output()).toEqual([
      insert(row('a', { d: 0, vs: '1,2' }, 0, 4)),
      insert(row('a', { d: 16, vs: '1,2,4' }, 0, 8)),
      insert(row('b', { d: 9, vs: '3' }, 0, 8)),
      insert(row('a', { d: 0, vs: '2' }, 8, 12)),
      insert(row('a', { d: 0, vs: '2' }, 8, 16)),
    ]);
  });

  it('TUMBLE without merge and SESSION windows', async () => {
    const tumbling = await run(spec(tumble(5), [{ fn: 'USER', user: SEEN, arg: 'v', distinct: false, name: 'vs' }]), true);
    expect(tumbling.output()).toEqual([insert(row('a', { vs: '1,2' }, 0, 5)), insert(row('b', { vs: '3' }, 0, 5)), insert(row('a', { vs: '4,2' }, 5, 10))]);
    const sessions = await run(spec(session(3), [{ fn: 'USER', user: DOT, arg: 'v', extraArgs: ['v'], distinct: false, name: 'd' }]), true);
    expect(sessions.output()).toEqual([insert(row('a', { d: 5 }, 0, 6)), insert(row('b', { d: 9 }, 4, 7)), insert(row('a', { d: 20 }, 7, 12))]);
  });

  it('accumulators survive a JSON round trip of the state', async () => {
    const s = spec(hop(8, 4), [{ fn: 'USER', user: DOT, arg: 'v', extraArgs: ['v'], distinct: false, name: 'd' }]);
    const h = await OperatorHarness.open(() => createWindowAggregateOperator(s, input, { functions }));
    await h.processElement(insert(r('a', 1, 0)));
    await h.processElement(insert(r('a', 2, 3)));
    const restored = await OperatorHarness.restore(() => createWindowAggregateOperator(s, input, { functions }), JSON.parse(JSON.stringify(h.snapshot())) as ReturnType<OperatorHarness['snapshot']>);
    await restored.processElement(insert(r('a', 4, 7)));
    await restored.endInput();
    expect(restored.output()).toEqual([insert(row('a', { d: 5 }, -4, 4)), insert(row('a', { d: 21 }, 0, 8)), insert(row('a', { d: 16 }, 4, 12))]);
  });
});
