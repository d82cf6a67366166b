import { describe, it, expect, vi } from 'vitest';
import type { ChangeRow } from '../../../shared/core/row.ts';
import { PlanError, RecordError } from '../../../shared/core/errors.ts';
import { parseType, schemaOf } from '../../../shared/core/type-parse.ts';
import type { Schema } from '../../../shared/core/types.ts';
import {
  createGroupAggregateOperator,
  groupAggregateOutputSchema,
  type GroupAggregateSpec,
} from '../../../shared/operators/aggregate/group-aggregate.ts';
import { OperatorHarness, del, insert, updateAfter, updateBefore } from '../../harness/index.ts';

const input: Schema = {
  fields: [
    { name: 'k', type: parseType('STRING') },
    { name: 'v', type: parseType('INT') },
    { name: 'price', type: parseType('DECIMAL(10, 2)') },
    { name: 'ts', type: parseType('TIMESTAMP(3)'), timeAttribute: 'rowtime' },
  ],
};

/** SELECT k, COUNT(*) AS c, SUM(v) AS s, MAX(v) AS m FROM input GROUP BY k */
const spec: GroupAggregateSpec = {
  groupBy: ['k'],
  aggCalls: [
    { fn: 'COUNT', distinct: false, name: 'c' },
    { fn: 'SUM', arg: 'v', distinct: false, name: 's' },
    { fn: 'MAX', arg: 'v', distinct: false, name: 'm' },
  ],
  generateUpdateBefore: true,
};

const open = (s: GroupAggregateSpec = spec): Promise<OperatorHarness> => OperatorHarness.open(() => createGroupAggregateOperator(s, input));

describe('groupAggregateOutputSchema', () => {
  it('group columns keep their types, then one column per call', () => {
    const spec2: GroupAggregateSpec = {
      ...spec,
      groupBy: ['k', 'ts'],
      aggCalls: [...spec.aggCalls, { fn: 'AVG', arg: 'price', distinct: true, name: 'a' }],
    };
    expect(groupAggregateOutputSchema(spec2, input)).toEqual(
      schemaOf({
        k: 'STRING',
        ts: 'TIMESTAMP(3)',
        c: 'BIGINT NOT NULL',
        s: 'INT',
        m: 'INT',
        a: 'DECIMAL(38, 6)',
      }),
    );
  });

  it('rejects unknown group columns, unsupported calls and duplicate names', () => {
    expect(() => groupAggregateOutputSchema({ ...spec, groupBy: ['nope'] }, input)).toThrow(/Column 'nope' not found in GROUP BY/);
    expect(() =>
      groupAggregateOutputSchema({ ...spec, aggCalls: [{ fn: 'SUM', arg: 'k', distinct: false, name: 'x' }] }, input),
    ).toThrow(PlanError);
    expect(() =>
      groupAggregateOutputSchema({ ...spec, aggCalls: [{ fn: 'COUNT', distinct: false, name: 'k' }] }, input),
    ).toThrow(/Duplicate column name 'k'/);
    expect(() => createGroupAggregateOperator({ ...spec, groupBy: ['nope'] }, input)).toThrow(PlanError);
  });
});

describe('GroupAggregate', () => {
  it('emits +I for a new group and -U/+U for a changed result', async () => {
    const h = await open();
    await h.processElements(insert({ k: 'a', v: 1 }), insert({ k: 'b', v: 10 }), insert({ k: 'a', v: 5 }));
    expect(h.output()).toEqual([
      insert({ k: 'a', c: 1, s: 1, m: 1 }),
      insert({ k: 'b', c: 1, s: 10, m: 10 }),
      updateBefore({ k: 'a', c: 1, s: 1, m: 1 }),
      updateAfter({ k: 'a', c: 2, s: 6, m: 5 }),
    ]);
  });

  it('emits nothing when the result does not change', async () => {
    const h = await open({ ...spec, aggCalls: [{ fn: 'MAX', arg: 'v', distinct: false, name: 'm' }] });
    await h.processElements(insert({ k: 'a', v: 5 }), insert({ k: 'a', v: 3 }), del({ k: 'a', v: 3 }));
    expect(h.output()).toEqual([insert({ k: 'a', m: 5 })]);
  });

  it('emits -D of the last result when the group empties, and starts over with +I', async () => {
    const h = await open();
    await h.processElements(
      insert({ k: 'a', v: 1 }),
      insert({ k: 'a', v: 2 }),
      del({ k: 'a', v: 1 }),
      del({ k: 'a', v: 2 }),
      insert({ k: 'a', v: 7 }),
    );
    expect(h.output()).toEqual([
      insert({ k: 'a', c: 1, s: 1, m: 1 }),
      updateBefore({ k: 'a', c: 1, s: 1, m: 1 }),
      updateAfter({ k: 'a', c: 2, s: 3, m: 2 }),
      updateBefore({ k: 'a', c: 2, s: 3, m: 2 }),
      updateAfter({ k: 'a', c: 1, s: 2, m: 2 }),
      del({ k: 'a', c: 1, s: 2, m: 2 }),
      insert({ k: 'a', c: 1, s: 7, m: 7 }),
    ]);
    expect(h.state.stats().entries).toBe(1);
  });

  it('deletes a group by its record count even when only MAX is computed', async () => {
    const h = await open({ ...spec, aggCalls: [{ fn: 'MAX', arg: 'v', distinct: false, name: 'm' }] });
    await h.processElements(insert({ k: 'a', v: null }), insert({ k: 'a', v: null }), del({ k: 'a', v: null }), del({ k: 'a', v: null }));
    expect(h.output()).toEqual([insert({ k: 'a', m: null }), del({ k: 'a', m: null })]);
  });

  it('ignores a retraction for a group without state', async () => {
    const h = await open();
    await h.processElements(del({ k: 'x', v: 1 }), updateBefore({ k: 'x', v: 1 }));
    expect(h.output()).toEqual([]);
    expect(h.state.stats().entries).toBe(0);
  });

  it('treats -U/+U input as retract then accumulate', async () => {
    const h = await open();
    await h.processElements(insert({ k: 'a', v: 1 }), updateBefore({ k: 'a', v: 1 }), updateAfter({ k: 'a', v: 4 }));
    expect(h.output()).toEqual([
      insert({ k: 'a', c: 1, s: 1, m: 1 }),
      del({ k: 'a', c: 1, s: 1, m: 1 }),
      insert({ k: 'a', c: 1, s: 4, m: 4 }),
    ]);
  });

  it('drops -U when generateUpdateBefore is false', async () => {
    const h = await open({ ...spec, generateUpdateBefore: false });
    await h.processElements(insert({ k: 'a', v: 1 }), insert({ k: 'a', v: 2 }), del({ k: 'a', v: 1 }), del({ k: 'a', v: 2 }));
    expect(h.output()).toEqual([
      insert({ k: 'a', c: 1, s: 1, m: 1 }),
      updateAfter({ k: 'a', c: 2, s: 3, m: 2 }),
      updateAfter({ k: 'a', c: 1, s: 2, m: 2 }),
      del({ k: 'a', c: 1, s: 2, m: 2 }),
    ]);
  });

  it('with a state TTL emits unchanged results too, and forgets idle groups', async () => {
    const ttlSpec: GroupAggregateSpec = { ...spec, aggCalls: [{ fn: 'MAX', arg: 'v', distinct: false, name: 'm' }], stateTtlMs: 1000 };
    const h = await open(ttlSpec);
    await h.processElements(insert({ k: 'a', v: 5 }), insert({ k: 'a', v: 3 }));
    expect(h.extractOutput()).toEqual([insert({ k: 'a', m: 5 }), updateBefore({ k: 'a', m: 5 }), updateAfter({ k: 'a', m: 5 })]);
    await h.setProcessingTime(5000);
    // The state expired: the retraction is dropped and the next row starts a new group.
    await h.processElements(del({ k: 'a', v: 3 }), insert({ k: 'a', v: 1 }));
    expect(h.extractOutput()).toEqual([insert({ k: 'a', m: 1 })]);
  });

  it('aggregates globally without GROUP BY', async () => {
    const h = await open({ ...spec, groupBy: [] });
    await h.processElements(insert({ k: 'a', v: 1 }), insert({ k: 'b', v: 2 }), del({ k: 'a', v: 1 }));
    expect(h.output()).toEqual([
      insert({ c: 1, s: 1, m: 1 }),
      updateBefore({ c: 1, s: 1, m: 1 }),
      updateAfter({ c: 2, s: 3, m: 2 }),
      updateBefore({ c: 2, s: 3, m: 2 }),
      updateAfter({ c: 1, s: 2, m: 2 }),
    ]);
  });

  it('groups on NULL keys and multiple columns', async () => {
    const h = await open({ ...spec, groupBy: ['k', 'v'], aggCalls: [{ fn: 'COUNT', distinct: false, name: 'c' }] });
    await h.processElements(insert({ k: null, v: 1 }), insert({ k: null, v: 1 }), insert({ k: null, v: null }));
    expect(h.output()).toEqual([
      insert({ k: null, v: 1, c: 1 }),
      updateBefore({ k: null, v: 1, c: 1 }),
      updateAfter({ k: null, v: 1, c: 2 }),
      insert({ k: null, v: null, c: 1 }),
    ]);
  });

  it('aggregates DISTINCT and FILTER calls', async () => {
    const schema: Schema = schemaOf({ k: 'STRING', user: 'STRING', price: 'DECIMAL(10, 2)', $f3: 'BOOLEAN' });
    const s: GroupAggregateSpec = {
      groupBy: ['k'],
      aggCalls: [
        { fn: 'COUNT', arg: 'user', distinct: true, name: 'users' },
        { fn: 'SUM', arg: 'price', distinct: false, filterField: '$f3', name: 'big' },
      ],
      generateUpdateBefore: true,
    };
    const h = await OperatorHarness.open(() => createGroupAggregateOperator(s, schema));
    await h.processElements(
      insert({ k: 'a', user: 'u1', price: 500n, $f3: false }),
      insert({ k: 'a', user: 'u1', price: 2000n, $f3: true }),
      insert({ k: 'a', user: 'u2', price: 100n, $f3: false }),
      del({ k: 'a', user: 'u1', price: 2000n, $f3: true }),
    );
    expect(h.output()).toEqual([
      insert({ k: 'a', users: 1, big: null }),
      updateBefore({ k: 'a', users: 1, big: null }),
      updateAfter({ k: 'a', users: 1, big: 2000n }),
      updateBefore({ k: 'a', users: 1, big: 2000n }),
      updateAfter({ k: 'a', users: 2, big: 2000n }),
      updateBefore({ k: 'a', users: 2, big: 2000n }),
      updateAfter({ k: 'a', users: 2, big: null }),
    ]);
  });

  it('SINGLE_VALUE: a second row of a group raises its data error before the batch changes any state (the operator contract)', async () => {
    const single: GroupAggregateSpec = { groupBy: ['k'], aggCalls: [{ fn: 'SINGLE_VALUE', arg: 'v', distinct: false, name: 'one' }], generateUpdateBefore: true };
    const h = await open(single);
    await h.processBatch([insert({ k: 'a', v: 1 }), insert({ k: 'b', v: 2 })]);
    // The batch's first row alone would pass, its third fails: nothing of it may be applied.
    await expect(h.processBatch([del({ k: 'a', v: 1 }), insert({ k: 'a', v: 3 }), insert({ k: 'b', v: 4 })])).rejects.toThrow(RecordError);
    expect(h.output()).toEqual([insert({ k: 'a', one: 1 }), insert({ k: 'b', one: 2 })]);
    // Run again without the bad row, as the stage executor does: the state is the one before the failed batch.
    await h.processBatch([del({ k: 'a', v: 1 }), insert({ k: 'a', v: 3 })]);
    expect(h.output()).toEqual([insert({ k: 'a', one: 1 }), insert({ k: 'b', one: 2 }), del({ k: 'a', one: 1 }), insert({ k: 'a', one: 3 })]);
    // A row retracted and another accumulated in one batch is one row at a time.
    await h.processBatch([del({ k: 'b', v: 2 }), insert({ k: 'b', v: 5 })]);
    expect(h.output().slice(4)).toEqual([del({ k: 'b', one: 2 }), insert({ k: 'b', one: 5 })]);
  });

  it('prefetches the distinct keys of a batch once, and gives the same output as row-by-row', async () => {
    const rows: ChangeRow[] = [
      insert({ k: 'a', v: 1 }),
      insert({ k: 'b', v: 2 }),
      insert({ k: 'a', v: 3 }),
      del({ k: 'b', v: 2 }),
      insert({ k: 'a', v: 3 }),
    ];
    const batched = await open();
    const prefetch = vi.spyOn(batched.state, 'prefetch');
    await batched.processBatch(rows);
    expect(prefetch).toHaveBeenCalledTimes(1);
    expect([...prefetch.mock.calls[0]![0]]).toHaveLength(2);
    const single = await open();
    await single.processElements(...rows);
    expect(batched.output()).toEqual(single.output());
  });

  it('continues after snapshot → restore exactly like an uninterrupted run', async () => {
    const s: GroupAggregateSpec = {
      ...spec,
      aggCalls: [
        ...spec.aggCalls,
        { fn: 'MIN', arg: 'price', distinct: true, name: 'lo' },
        { fn: 'AVG', arg: 'price', distinct: false, name: 'avg' },
      ],
    };
    const rows: ChangeRow[] = [
      insert({ k: 'a', v: 1, price: 100n }),
      insert({ k: 'a', v: 2, price: 50n }),
      insert({ k: 'b', v: 3, price: 70n }),
      updateBefore({ k: 'a', v: 2, price: 50n }),
      updateAfter({ k: 'a', v: 4, price: 150n }),
      del({ k: 'b', v: 3, price: 70n }),
      insert({ k: 'a', v: 5, price: 50n }),
      del({ k: 'a', v: 1, price: 100n }),
    ];
    const factory = (): ReturnType<typeof createGroupAggregateOperator> => createGroupAggregateOperator(s, input);
    const whole = await OperatorHarness.open(factory);
    await whole.processBatch(rows);

    for (let cut = 0; cut <= rows.length; cut++) {
      const first = await OperatorHarness.open(factory);
      await first.processBatch(rows.slice(0, cut));
      const saved = first.snapshot();
      const before = first.output();
      // Keep using the first instance after the snapshot: the snapshot must not share state with it.
      await first.processBatch(rows.slice(cut));
      const second = await OperatorHarness.restore(factory, saved);
      await second.processBatch(rows.slice(cut));
      expect(first.output()).toEqual(whole.output());
      expect([...before, ...second.output()]).toEqual(whole.output());
    }
  });
});
