/**
 * The sliced window aggregate (shared/operators/window/sliced-window-operator.ts): the same
 * changelog, in the same order, as the per-window operator (`slicing: false`), one state entry
 * per (key, slice) instead of per (key, window), cleanup, retractions, snapshots, and which
 * specs take it (slice-merge.ts).
 */
import { describe, it, expect } from 'vitest';
import type { ChangeRow } from '../../../shared/core/row.ts';
import { parseType } from '../../../shared/core/type-parse.ts';
import type { Schema } from '../../../shared/core/types.ts';
import type { AggCall } from '../../../shared/plan/logical.ts';
import { AggsHandler } from '../../../shared/operators/aggregate/aggs-handler.ts';
import { accumulatorMerger } from '../../../shared/operators/window/slice-merge.ts';
import { createWindowAggregateOperator, type WindowAggregateSpec } from '../../../shared/operators/window/window-aggregate.ts';
import { OperatorHarness, del, insert } from '../../harness/index.ts';
import { countSum, cumulate, hop, input, leftovers, NOTHING_LEFT, out, r, tumble } from './window-test-kit.ts';

const open = (spec: WindowAggregateSpec, slicing: boolean): Promise<OperatorHarness> =>
  OperatorHarness.open(() => createWindowAggregateOperator(spec, input, { slicing }));

type Step = ChangeRow | number;

/** Runs the steps (rows one batch each, numbers as watermarks) on both paths; returns both harnesses. */
async function both(spec: WindowAggregateSpec, steps: readonly Step[]): Promise<[OperatorHarness, OperatorHarness]> {
  const hs = [await open(spec, true), await open(spec, false)] as const;
  for (const h of hs) {
    for (const s of steps) {
      if (typeof s === 'number') await h.processWatermark(s);
      else await h.processElement(s);
    }
    await h.endInput();
  }
  return [hs[0], hs[1]];
}

describe('sliced window aggregate', () => {
  it('HOP: one accumulator per key and slice, results and order as the per-window operator', async () => {
    const spec = countSum(hop(10, 2));
    const sliced = await open(spec, true);
    const plain = await open(spec, false);
    const rows = [r('a', 1, 0), r('b', 2, 1), r('a', 3, 3), r('c', 4, 3), r('b', 5, 9), r('a', 6, 11)];
    for (const h of [sliced, plain]) for (const row of rows) await h.processElement(insert(row));
    // a: slices 2, 4, 12; b: 2, 10; c: 4 — against 5 windows per row on the per-window path.
    expect(sliced.state.stats().entries).toBe(6);
    expect(plain.state.stats().entries).toBeGreaterThan(15);
    for (const h of [sliced, plain]) await h.processWatermark(4);
    expect(sliced.output()).toEqual(plain.output());
    expect(sliced.output()).toEqual([
      insert(out('a', 1, 1, -8, 2)),
      insert(out('b', 1, 2, -8, 2)),
      insert(out('a', 2, 4, -6, 4)),
      insert(out('b', 1, 2, -6, 4)),
      insert(out('c', 1, 4, -6, 4)),
    ]);
    for (const h of [sliced, plain]) await h.endInput();
    expect(sliced.output()).toEqual(plain.output());
    expect(leftovers(sliced)).toEqual(NOTHING_LEFT);
    expect(sliced.metrics.get('numLateRecordsDropped') ?? 0).toBe(0);
  });

  it('late rows: added for the windows still open, side output when every window is late', async () => {
    const steps: Step[] = [insert(r('a', 1, 4)), 5, insert(r('a', 2, 5)), insert(r('a', 3, 0)), 7, insert(r('a', 4, -3)), insert(r('a', 5, 6))];
    for (const window of [hop(6, 2), hop(12, 4, 1), tumble(4, -1), cumulate(8, 2)]) {
      const [sliced, plain] = await both(countSum(window), steps);
      expect(sliced.output()).toEqual(plain.output());
      expect(sliced.sideOutput('late')).toEqual(plain.sideOutput('late'));
      expect(sliced.metrics.get('numLateRecordsDropped')).toBe(plain.metrics.get('numLateRecordsDropped'));
      expect(leftovers(sliced)).toEqual(NOTHING_LEFT);
    }
  });

  it('retractions apply per window, only where the window holds records', async () => {
    // The retraction at 5 reaches windows that hold the row at 1 and windows holding nothing.
    const steps: Step[] = [insert(r('a', 7, 1)), del(r('a', 7, 5)), insert(r('a', 2, 6)), del(r('a', 2, 6)), del(r('b', 1, 3)), 3, del(r('a', 9, 9)), del(r('a', 1, 0))];
    for (const window of [hop(8, 2), hop(8, 4), cumulate(8, 2), tumble(4)]) {
      const [sliced, plain] = await both(countSum(window), steps);
      expect(sliced.output()).toEqual(plain.output());
      expect(sliced.output().length).toBeGreaterThan(0);
      expect(sliced.sideOutput('late')).toEqual(plain.sideOutput('late'));
      expect(leftovers(sliced)).toEqual(NOTHING_LEFT);
    }
  });

  it('MIN, MAX, AVG(DECIMAL) and FILTER merge to the per-window results', async () => {
    const schema: Schema = { fields: [...input.fields, { name: 'd', type: parseType('DECIMAL(10, 2)') }] };
    const spec: WindowAggregateSpec = {
      window: hop(6, 2),
      groupBy: ['k'],
      aggCalls: [
        { fn: 'MIN', arg: 'v', distinct: false, name: 'lo' },
        { fn: 'MAX', arg: 'v', distinct: false, name: 'hi', filterField: 'f' },
        { fn: 'AVG', arg: 'd', distinct: false, name: 'avg' },
        { fn: 'COUNT', arg: 'v', distinct: false, name: 'n' },
      ],
      generateUpdateBefore: false,
    };
    const rows = [
      insert({ k: 'a', v: 5, f: true, ts: 0, d: 150n }),
      insert({ k: 'a', v: 1, f: false, ts: 3, d: 25n }),
      insert({ k: 'a', v: null, f: true, ts: 4, d: null }),
      insert({ k: 'a', v: 5, f: true, ts: 5, d: 1n }),
      del({ k: 'a', v: 5, f: true, ts: 1, d: 150n }),
      insert({ k: 'a', v: 9, f: null, ts: 7, d: 3n }),
    ];
    const outputs = [];
    for (const slicing of [true, false]) {
      const h = await OperatorHarness.open(() => createWindowAggregateOperator(spec, schema, { slicing }));
      for (const row of rows) await h.processElement(row);
      await h.endInput();
      expect(leftovers(h)).toEqual(NOTHING_LEFT);
      outputs.push(h.output());
    }
    expect(outputs[0]).toEqual(outputs[1]);
    expect(outputs[0]!.length).toBeGreaterThan(3);
  });

  it('restores its slices and timers from a snapshot', async () => {
    const spec = countSum(hop(10, 5));
    const h = await open(spec, true);
    await h.processElements(insert(r('a', 1, 1)), insert(r('a', 2, 6)), insert(r('b', 3, 7)));
    await h.processWatermark(5);
    const restored = await OperatorHarness.restore(() => createWindowAggregateOperator(spec, input), h.snapshot());
    await restored.processElement(insert(r('a', 4, 8)));
    await restored.endInput();
    expect([...h.output(), ...restored.output()]).toEqual([
      insert(out('a', 1, 1, -5, 5)),
      insert(out('a', 3, 7, 0, 10)),
      insert(out('b', 1, 3, 0, 10)),
      insert(out('a', 2, 6, 5, 15)),
      insert(out('b', 1, 3, 5, 15)),
    ]);
    expect(leftovers(restored)).toEqual(NOTHING_LEFT);
  });
});

describe('slice-merge: which calls take the sliced path', () => {
  const schema: Schema = {
    fields: [
      { name: 'i', type: parseType('INT') },
      { name: 'b', type: parseType('BIGINT') },
      { name: 'x', type: parseType('DOUBLE') },
      { name: 'd', type: parseType('DECIMAL(10, 2)') },
      { name: 's', type: parseType('STRING') },
    ],
  };
  const call = (fn: AggCall['fn'], arg?: string, distinct = false): AggCall => ({ fn, arg, distinct, name: `${fn}_${arg ?? 'star'}` });

  it('merges exactly mergeable calls', () => {
    for (const c of [call('COUNT'), call('COUNT', 'x'), call('SUM', 'i'), call('SUM', 'd'), call('AVG', 'd'), call('MIN', 's'), call('MAX', 'b'), call('MAX', 'd')]) {
      expect(accumulatorMerger([c], schema), c.name).toBeDefined();
    }
  });

  it('refuses DISTINCT and order-dependent floating-point sums', () => {
    for (const c of [call('COUNT', 'i', true), call('SUM', 'x'), call('SUM', 'b'), call('AVG', 'i'), call('AVG', 'x'), call('MIN', 'x')]) {
      expect(accumulatorMerger([call('COUNT'), c], schema), c.name).toBeUndefined();
    }
  });

  it('merging accumulators equals accumulating every row into one', () => {
    const calls = [call('COUNT'), call('SUM', 'i'), call('MIN', 's'), call('MAX', 'i'), call('AVG', 'd')];
    const handler = new AggsHandler(calls, schema);
    const merge = accumulatorMerger(calls, schema)!;
    const rows = [
      { i: 3, s: 'q', d: 10n },
      { i: 2147483647, s: 'b', d: null },
      { i: null, s: 'q', d: -3n },
      { i: 3, s: null, d: 7n },
      { i: -8, s: 'a', d: 1n },
    ];
    const one = handler.createAccumulators();
    for (const row of rows) handler.accumulate(one, row);
    handler.retract(one, rows[0]!);
    const parts = [handler.createAccumulators(), handler.createAccumulators(), handler.createAccumulators()];
    rows.forEach((row, n) => handler.accumulate(parts[n % 2]!, row));
    handler.retract(parts[2]!, rows[0]!);
    const merged = handler.createAccumulators();
    for (const p of parts) merge(merged, p);
    expect(handler.getValues(merged)).toEqual(handler.getValues(one));
    expect(merged.records).toBe(one.records);
  });
});
