import { describe, expect, it } from 'vitest';
import { PlanError, RecordError, TransientError } from '../../shared/core/errors.ts';
import { schemaOf } from '../../shared/core/type-parse.ts';
import type { Schema } from '../../shared/core/types.ts';
import { createFunctionSource } from '../../shared/lookup/function-source.ts';
import { createLookupJoinOperator, lookupJoinOutputSchema } from '../../shared/lookup/lookup-join.ts';
import type { LookupJoinSpec } from '../../shared/lookup/lookup-join.ts';
import { col, gt, lit } from '../../shared/plan/expr-build.ts';
import { OperatorHarness, del, insert, updateAfter, updateBefore } from '../harness/index.ts';
import { recordingSource } from './helpers.ts';

const probe: Schema = {
  fields: [
    ...schemaOf({ order_id: 'BIGINT NOT NULL', customer: 'INT', amount: 'DECIMAL(10, 2)' }).fields,
    { name: 'proc', type: { root: 'TIMESTAMP', nullable: false, precision: 3 }, timeAttribute: 'proctime' },
  ],
};
const dimSchema = schemaOf({ id: 'BIGINT NOT NULL', tier: 'STRING NOT NULL', credit: 'DECIMAL(10, 2)' });
const dimRows = () => [
  { id: 1, tier: 'gold', credit: 100000n },
  { id: 2, tier: 'silver', credit: 500n },
  { id: 2, tier: 'bronze', credit: 100n }, // non-unique key: customer 2 has two rows
];

const spec = (over: Partial<LookupJoinSpec> = {}): LookupJoinSpec => ({
  table: 'customers',
  joinType: 'INNER',
  keys: [{ probe: 'customer', lookup: 'id' }],
  dimensionSchema: dimSchema,
  ...over,
});

const order = (order_id: number, customer: number | null, amount = 1000n) => ({ order_id, customer, amount, proc: 0 });
const joined = (o: ReturnType<typeof order>, d: { id: number; tier: string; credit: bigint | null } | null) => ({
  ...o,
  id: d?.id ?? null,
  tier: d?.tier ?? null,
  credit: d?.credit ?? null,
});

describe('lookupJoinOutputSchema', () => {
  it('probe columns (time attributes kept), then dimension columns; LEFT makes them nullable', () => {
    const inner = lookupJoinOutputSchema(spec(), probe);
    expect(inner.fields.map((f) => f.name)).toEqual(['order_id', 'customer', 'amount', 'proc', 'id', 'tier', 'credit']);
    expect(inner.fields[3]!.timeAttribute).toBe('proctime');
    expect(inner.fields[5]!.type.nullable).toBe(false);
    expect(lookupJoinOutputSchema(spec({ joinType: 'LEFT' }), probe).fields[5]!.type.nullable).toBe(true);
  });

  it('a name on both sides is a PlanError; an output list with renames resolves it', () => {
    const clash = schemaOf({ id: 'BIGINT NOT NULL', order_id: 'BIGINT' });
    expect(() => lookupJoinOutputSchema(spec({ dimensionSchema: clash }), probe)).toThrow(
      /output column 'order_id' comes from both probe and lookup columns; list the output columns with 'output' and rename one with 'as'/,
    );
    const renamed = lookupJoinOutputSchema(
      spec({
        dimensionSchema: clash,
        output: [
          { side: 'probe', column: 'order_id' },
          { side: 'lookup', column: 'order_id', as: 'dim_order_id' },
        ],
      }),
      probe,
    );
    expect(renamed.fields.map((f) => f.name)).toEqual(['order_id', 'dim_order_id']);
  });

  it('rejects unknown columns, incomparable key types, a non-BOOLEAN condition and bad settings', () => {
    expect(() => lookupJoinOutputSchema(spec({ keys: [{ probe: 'nope', lookup: 'id' }] }), probe)).toThrow(/Column 'nope' not found/);
    expect(() => lookupJoinOutputSchema(spec({ keys: [{ probe: 'customer', lookup: 'tier' }] }), probe)).toThrow(
      /key 'customer' \(INT\) cannot be compared with 'tier' \(VARCHAR\(2147483647\) NOT NULL\); CAST one side/,
    );
    expect(() => lookupJoinOutputSchema(spec({ keys: [] }), probe)).toThrow(PlanError);
    expect(() => lookupJoinOutputSchema(spec({ condition: col('tier') }), probe)).toThrow(/condition must be BOOLEAN/);
    expect(() => lookupJoinOutputSchema(spec({ batchSize: 0 }), probe)).toThrow(/batchSize/);
    expect(() => lookupJoinOutputSchema(spec({ cache: { type: 'PARTIAL', maxRows: -1 } }), probe)).toThrow(/maxRows/);
  });
});

describe('lookup join operator', () => {
  it('INNER drops unmatched rows; several matches give several rows, in order', async () => {
    const h = await OperatorHarness.open(() => createLookupJoinOperator(spec(), probe, recordingSource(dimRows(), dimSchema)));
    const [a, b, c, d] = [order(10, 2), order(11, 9), order(12, 1), order(13, null)];
    expect(await h.processBatch([insert(a), insert(b), insert(c), insert(d)])).toEqual([
      insert(joined(a, dimRows()[1]!)),
      insert(joined(a, dimRows()[2]!)),
      insert(joined(c, dimRows()[0]!)),
    ]);
  });

  it('LEFT pads NULLs for unmatched rows and NULL keys', async () => {
    const h = await OperatorHarness.open(() => createLookupJoinOperator(spec({ joinType: 'LEFT' }), probe, recordingSource(dimRows(), dimSchema)));
    const [a, b, c] = [order(10, 9), order(11, null), order(12, 1)];
    expect(await h.processBatch([insert(a), insert(b), insert(c)])).toEqual([insert(joined(a, null)), insert(joined(b, null)), insert(joined(c, dimRows()[0]!))]);
  });

  it('the condition filters matches; LEFT pads when none passes', async () => {
    const condition = gt(col('credit'), lit(200n, 'DECIMAL(10, 2)'));
    const h = await OperatorHarness.open(() =>
      createLookupJoinOperator(spec({ joinType: 'LEFT', condition }), probe, recordingSource([...dimRows(), { id: 3, tier: 'x', credit: 1n }], dimSchema)),
    );
    const [a, b] = [order(1, 2), order(2, 3)];
    expect(await h.processBatch([insert(a), insert(b)])).toEqual([insert(joined(a, dimRows()[1]!)), insert(joined(b, null))]);
  });

  it('the probe row kind passes through', async () => {
    const h = await OperatorHarness.open(() => createLookupJoinOperator(spec(), probe, recordingSource(dimRows(), dimSchema)));
    const a = order(1, 1);
    const out = await h.processBatch([insert(a), updateBefore(a), updateAfter(a), del(a)]);
    const row = joined(a, dimRows()[0]!);
    expect(out).toEqual([insert(row), updateBefore(row), updateAfter(row), del(row)]);
  });

  it('fetches the distinct keys of a batch in one call; the cache serves the next batch; metrics are published', async () => {
    const source = recordingSource(dimRows(), dimSchema);
    let operator: ReturnType<typeof createLookupJoinOperator> | undefined;
    const h = await OperatorHarness.open(() => (operator = createLookupJoinOperator(spec({ cache: { type: 'PARTIAL', maxRows: 100 } }), probe, source)));
    await h.processBatch([1, 2, 1, 9, 2].map((c, i) => insert(order(i, c))));
    expect(source.calls).toEqual([[{ id: 1 }, { id: 2 }, { id: 9 }]]);
    await h.processBatch([insert(order(7, 2)), insert(order(8, 3))]);
    expect(source.calls).toEqual([[{ id: 1 }, { id: 2 }, { id: 9 }], [{ id: 3 }]]);
    expect(operator!.cacheMetrics()).toMatchObject({ hits: 1, misses: 4, loads: 2 });
    expect(h.metrics.get('lookupCacheHits')).toBe(1);
    expect(h.metrics.get('lookupCacheMisses')).toBe(4);
    expect(h.metrics.get('lookupLoads')).toBe(2);
    expect(h.metrics.get('lookupKeysRequested')).toBe(5);
  });

  it('converts probe keys to the dimension type; a DECIMAL key with a fraction cannot match an integer column', async () => {
    const source = recordingSource(dimRows(), dimSchema);
    const decimalProbe = schemaOf({ k: 'DECIMAL(5, 1)' });
    const h = await OperatorHarness.open(() =>
      createLookupJoinOperator(spec({ keys: [{ probe: 'k', lookup: 'id' }], output: [{ side: 'probe', column: 'k' }, { side: 'lookup', column: 'tier' }] }), decimalProbe, source),
    );
    expect(await h.processBatch([insert({ k: 10n }), insert({ k: 15n })])).toEqual([insert({ k: 10n, tier: 'gold' })]);
    expect(source.calls).toEqual([[{ id: 1 }]]);
  });

  it('a key value of the wrong kind is a RecordError naming the column, raised before any lookup', async () => {
    const source = recordingSource(dimRows(), dimSchema);
    const h = await OperatorHarness.open(() => createLookupJoinOperator(spec(), probe, source));
    const error = await h.processBatch([insert(order(1, 1)), insert({ ...order(2, 1), customer: 'one' })]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RecordError);
    expect((error as RecordError).field).toBe('customer');
    expect(source.calls).toEqual([]);
  });

  it('store failures surface classified, never as NULL padding', async () => {
    const failing = createFunctionSource({
      table: 'customers',
      schema: dimSchema,
      lookup: () => {
        throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      },
    });
    const h = await OperatorHarness.open(() => createLookupJoinOperator(spec({ joinType: 'LEFT', retry: { maxAttempts: 2, delayMs: 0 } }), probe, failing, { sleep: async () => undefined }));
    await expect(h.processBatch([insert(order(1, 1))])).rejects.toThrow(TransientError);
    expect(h.metrics.get('lookupRetries')).toBe(1);
  });

  it('retries a miss and joins the late dimension row', async () => {
    const source = recordingSource([], dimSchema);
    const h = await OperatorHarness.open(() =>
      createLookupJoinOperator(spec({ retry: { maxAttempts: 3, delayMs: 50 } }), probe, source, {
        sleep: async () => void source.rows.push({ id: 1, tier: 'late', credit: null }),
      }),
    );
    const a = order(1, 1);
    expect(await h.processBatch([insert(a)])).toEqual([insert(joined(a, { id: 1, tier: 'late', credit: null }))]);
  });

  it('closes the source with the operator', async () => {
    let closed = 0;
    const source = createFunctionSource({ table: 'customers', schema: dimSchema, lookup: () => [], close: () => void closed++ });
    const h = await OperatorHarness.open(() => createLookupJoinOperator(spec(), probe, source));
    await h.close();
    expect(closed).toBe(1);
  });
});
