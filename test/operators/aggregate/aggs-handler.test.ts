import { describe, it, expect } from 'vitest';
import { PlanError } from '../../../shared/core/errors.ts';
import { schemaOf } from '../../../shared/core/type-parse.ts';
import type { Row, Value } from '../../../shared/core/types.ts';
import type { AggCallSpec } from '../../../shared/operators/aggregate/agg-call.ts';
import { AggsHandler } from '../../../shared/operators/aggregate/aggs-handler.ts';

const schema = schemaOf({ k: 'STRING', v: 'INT', d: 'DECIMAL(10, 2)', s: 'STRING', f: 'BOOLEAN', g: 'BOOLEAN' });

/** Applies `+row`/`-row` steps to one group and returns the results after each. */
function run(calls: readonly AggCallSpec[], steps: readonly ['+' | '-', Row][]): Value[][] {
  const handler = new AggsHandler(calls, schema);
  const acc = handler.createAccumulators();
  return steps.map(([op, row]) => {
    if (op === '+') handler.accumulate(acc, row);
    else handler.retract(acc, row);
    return handler.getValues(acc);
  });
}

describe('AggsHandler', () => {
  it('counts records independently of the aggregates (RecordCounter)', () => {
    const handler = new AggsHandler([{ fn: 'MAX', arg: 'v', distinct: false, name: 'm' }], schema);
    const acc = handler.createAccumulators();
    handler.accumulate(acc, { v: null });
    handler.accumulate(acc, { v: 3 });
    expect(acc.records).toBe(2);
    handler.retract(acc, { v: 3 });
    expect(acc.records).toBe(1);
    expect(handler.getValues(acc)).toEqual([null]);
  });

  it('COUNT(DISTINCT x) accumulates on 0 → 1 and retracts on 1 → 0', () => {
    const calls: AggCallSpec[] = [
      { fn: 'COUNT', arg: 's', distinct: true, name: 'ds' },
      { fn: 'COUNT', arg: 's', distinct: false, name: 'cs' },
    ];
    expect(
      run(calls, [
        ['+', { s: 'a' }],
        ['+', { s: 'a' }],
        ['+', { s: 'b' }],
        ['+', { s: null }],
        ['-', { s: 'a' }],
        ['-', { s: 'a' }],
        ['-', { s: 'b' }],
      ]),
    ).toEqual([
      [1, 1],
      [1, 2],
      [2, 3],
      [2, 3],
      [2, 2],
      [1, 1],
      [0, 0],
    ]);
  });

  it('SUM(DISTINCT) and AVG(DISTINCT) share one distinct map per argument', () => {
    const calls: AggCallSpec[] = [
      { fn: 'SUM', arg: 'd', distinct: true, name: 'sd' },
      { fn: 'AVG', arg: 'd', distinct: true, name: 'ad' },
      { fn: 'SUM', arg: 'd', distinct: false, name: 'sa' },
    ];
    const handler = new AggsHandler(calls, schema);
    const acc = handler.createAccumulators();
    for (const d of [100n, 100n, 300n]) handler.accumulate(acc, { d });
    expect(handler.getValues(acc)).toEqual([400n, 2000000n, 500n]);
    expect(acc.distinct).toHaveLength(1);
    expect(Object.values(acc.distinct[0]!).sort()).toEqual([[1], [2]]);
    handler.retract(acc, { d: 300n });
    expect(handler.getValues(acc)).toEqual([100n, 1000000n, 200n]);
  });

  it('FILTER: only rows whose filter column is TRUE reach the call', () => {
    const calls: AggCallSpec[] = [
      { fn: 'COUNT', distinct: false, filterField: 'f', name: 'c' },
      { fn: 'SUM', arg: 'v', distinct: false, filterField: 'f', name: 's' },
      { fn: 'MIN', arg: 'v', distinct: false, name: 'm' },
    ];
    expect(
      run(calls, [
        ['+', { v: 5, f: true }],
        ['+', { v: 1, f: false }],
        ['+', { v: 7, f: null }],
        ['+', { v: 2, f: true }],
        ['-', { v: 5, f: true }],
        ['-', { v: 1, f: false }],
      ]),
    ).toEqual([
      [1, 5, 5],
      [1, 5, 1],
      [1, 5, 1],
      [2, 7, 1],
      [1, 2, 1],
      [1, 2, 2],
    ]);
  });

  it('DISTINCT with different FILTERs over one argument counts per filter', () => {
    const calls: AggCallSpec[] = [
      { fn: 'COUNT', arg: 's', distinct: true, filterField: 'f', name: 'cf' },
      { fn: 'COUNT', arg: 's', distinct: true, filterField: 'g', name: 'cg' },
      { fn: 'COUNT', arg: 's', distinct: true, name: 'c' },
    ];
    expect(
      run(calls, [
        ['+', { s: 'a', f: true, g: false }],
        ['+', { s: 'a', f: false, g: true }],
        ['+', { s: 'b', f: true, g: true }],
        ['-', { s: 'a', f: true, g: false }],
        ['+', { s: 'a', f: true, g: true }],
        ['-', { s: 'a', f: false, g: true }],
        ['-', { s: 'a', f: true, g: true }],
      ]),
    ).toEqual([
      [1, 0, 1],
      [1, 1, 1],
      [2, 2, 2],
      [1, 2, 2],
      [2, 2, 2],
      [2, 2, 2],
      [1, 1, 1],
    ]);
  });

  it('ignores the retraction of a distinct value it never saw', () => {
    const calls: AggCallSpec[] = [{ fn: 'COUNT', arg: 's', distinct: true, name: 'c' }];
    expect(run(calls, [['-', { s: 'x' }], ['+', { s: 'x' }]])).toEqual([[0], [1]]);
  });

  it('distinct keys never collide with object prototype keys', () => {
    const calls: AggCallSpec[] = [{ fn: 'COUNT', arg: 's', distinct: true, name: 'c' }];
    expect(run(calls, [['+', { s: '__proto__' }], ['+', { s: 'constructor' }], ['-', { s: '__proto__' }]])).toEqual([[1], [2], [1]]);
  });

  it('accumulators are plain data that survive structuredClone', () => {
    const calls: AggCallSpec[] = [
      { fn: 'MAX', arg: 'd', distinct: true, name: 'm' },
      { fn: 'AVG', arg: 'v', distinct: false, name: 'a' },
    ];
    const handler = new AggsHandler(calls, schema);
    const acc = handler.createAccumulators();
    handler.accumulate(acc, { d: 5n, v: 1 });
    handler.accumulate(acc, { d: 9n, v: 2 });
    const copy = structuredClone(acc);
    expect(copy).toEqual(acc);
    handler.retract(copy, { d: 9n, v: 2 });
    expect(handler.getValues(copy)).toEqual([5n, 1]);
    expect(handler.getValues(acc)).toEqual([9n, 1]);
  });

  it('rejects invalid calls with a PlanError naming the call', () => {
    expect(() => new AggsHandler([{ fn: 'COUNT', distinct: true, name: 'c' }], schema)).toThrow(/COUNT\(DISTINCT \*\)/);
    expect(() => new AggsHandler([{ fn: 'SUM', arg: 's', distinct: false, name: 'x' }], schema)).toThrow(/SUM\(s\) AS x/);
    expect(() => new AggsHandler([{ fn: 'SUM', arg: 'nope', distinct: false, name: 'x' }], schema)).toThrow(/Column 'nope' not found in SUM\(nope\) AS x/);
    expect(() => new AggsHandler([{ fn: 'COUNT', distinct: false, filterField: 'v', name: 'c' }], schema)).toThrow(PlanError);
    expect(() => new AggsHandler([{ fn: 'COUNT', distinct: false, filterField: 'v', name: 'c' }], schema)).toThrow(/must be BOOLEAN/);
  });
});
