/**
 * Deduplicate operator: Flink's harness tests for the non-mini-batch deduplicate functions,
 * reproduced changelog row for changelog row, plus the decisions Flambda makes where Flink's
 * planner guarantees things (insert-only input, non-null rowtimes), TTL, batching and restore.
 *
 * Flink asserts with `assertOutputEqualsSorted`, which stably sorts by the key column; the
 * expectations below are the exact arrival order, which sorts to Flink's lists.
 */
import { describe, it, expect, vi } from 'vitest';
import { createRowDecoder } from '../../../shared/core/codec.ts';
import { PlanError, RecordError } from '../../../shared/core/errors.ts';
import type { ChangeRow } from '../../../shared/core/row.ts';
import { parseType } from '../../../shared/core/type-parse.ts';
import type { Row, Schema } from '../../../shared/core/types.ts';
import {
  DEDUPLICATE_STATE,
  createDeduplicateOperator,
  deduplicateOutputSchema,
  type DeduplicateSpec,
} from '../../../shared/operators/dedup/deduplicate-operator.ts';
import { encodeKey } from '../../../shared/partition/key-encoding.ts';
import { OperatorHarness, del, insert, materialize, updateAfter, updateBefore } from '../../harness/index.ts';
import { nexmarkTestData } from '../../nexmark/test-data.ts';

// ---- Processing time: ProcTimeDeduplicateFunctionTestBase (STRING, BIGINT key, INT; TTL 10 ms). ----

const procSchema: Schema = {
  fields: [
    { name: 'item', type: parseType('STRING') },
    { name: 'id', type: parseType('BIGINT') },
    { name: 'n', type: parseType('INT') },
    { name: 'pt', type: parseType('TIMESTAMP(3)'), timeAttribute: 'proctime' },
  ],
};

/** Flink's `insertRecord("book", id, n)`; `pt` is never read (processing time is arrival order). */
const book = (id: number, n: number): Row => ({ item: 'book', id, n, pt: null });

const procSpec = (keep: 'first' | 'last', generateUpdateBefore: boolean, stateTtlMs = 10): DeduplicateSpec => ({
  keys: ['id'],
  keep,
  orderColumn: 'pt',
  timeDomain: 'processing',
  generateUpdateBefore,
  stateTtlMs,
});

// ---- Event time: RowTimeDeduplicateFunctionTestBase (STRING key, INT, BIGINT rowtime; TTL 10 ms). ----

const rowSchema: Schema = {
  fields: [
    { name: 'key', type: parseType('STRING') },
    { name: 'v', type: parseType('INT') },
    { name: 'ts', type: parseType('TIMESTAMP(3)'), timeAttribute: 'rowtime' },
  ],
};

/** Flink's `insertRecord(key, v, ts)`. */
const rec = (key: string, v: number, ts: number): Row => ({ key, v, ts });

const rowSpec = (keep: 'first' | 'last', generateUpdateBefore: boolean, stateTtlMs = 10): DeduplicateSpec => ({
  keys: ['key'],
  keep,
  orderColumn: 'ts',
  timeDomain: 'event',
  generateUpdateBefore,
  stateTtlMs,
});

const factoryOf = (spec: DeduplicateSpec, schema: Schema) => () => createDeduplicateOperator(spec, schema);
const open = (spec: DeduplicateSpec, schema: Schema): Promise<OperatorHarness> => OperatorHarness.open(factoryOf(spec, schema));

/** Snapshot, persist (structuredClone) and restore into a fresh operator, as Flink's harness tests do. */
async function restartFrom(h: OperatorHarness, spec: DeduplicateSpec, schema: Schema): Promise<OperatorHarness> {
  const snapshot = structuredClone(h.snapshot());
  await h.close();
  return OperatorHarness.restore(factoryOf(spec, schema), snapshot);
}

describe('deduplicateOutputSchema', () => {
  it('is the input schema', () => {
    expect(deduplicateOutputSchema(rowSpec('last', true), rowSchema)).toBe(rowSchema);
    expect(deduplicateOutputSchema(procSpec('first', false), procSchema)).toBe(procSchema);
  });

  it('rejects missing columns, a non-time order column, a contradicting time attribute and unknown modes', () => {
    expect(() => deduplicateOutputSchema({ ...rowSpec('last', true), keys: ['nope'] }, rowSchema)).toThrow(/Column 'nope' not found in PARTITION BY/);
    expect(() => deduplicateOutputSchema({ ...rowSpec('last', true), orderColumn: 'nope' }, rowSchema)).toThrow(/Column 'nope' not found in ORDER BY/);
    expect(() => deduplicateOutputSchema({ ...rowSpec('last', true), orderColumn: 'v' }, rowSchema)).toThrow(/ordered by a time attribute, but 'v' is INT/);
    expect(() => deduplicateOutputSchema({ ...rowSpec('last', true), timeDomain: 'processing' }, rowSchema)).toThrow(/needs a proctime column, but 'ts' is a rowtime attribute/);
    expect(() => deduplicateOutputSchema({ ...procSpec('last', true), timeDomain: 'event' }, procSchema)).toThrow(/needs a rowtime column, but 'pt' is a proctime attribute/);
    const bad = { ...rowSpec('last', true), keep: 'middle' } as unknown as DeduplicateSpec;
    expect(() => deduplicateOutputSchema(bad, rowSchema)).toThrow(/keep must be 'first' or 'last'/);
    const bad2 = { ...rowSpec('last', true), timeDomain: 'ingestion' } as unknown as DeduplicateSpec;
    expect(() => deduplicateOutputSchema(bad2, rowSchema)).toThrow(/timeDomain must be 'event' or 'processing'/);
    expect(() => createDeduplicateOperator({ ...rowSpec('last', true), keys: ['nope'] }, rowSchema)).toThrow(PlanError);
  });

  it('accepts a TIMESTAMP order column without a time attribute', () => {
    const plain: Schema = { fields: rowSchema.fields.map((f) => ({ name: f.name, type: f.type })) };
    expect(deduplicateOutputSchema(rowSpec('first', false), plain)).toBe(plain);
  });

  it('orders by arrival without an order column for processing time, and needs one for event time', async () => {
    const { orderColumn: _unused, ...spec } = procSpec('last', false);
    expect(() => deduplicateOutputSchema({ ...rowSpec('last', true), orderColumn: undefined }, rowSchema)).toThrow(
      'Deduplicate: event-time deduplication needs an orderColumn (the rowtime column)',
    );
    const noPt: Schema = { fields: procSchema.fields.slice(0, 3) };
    expect(deduplicateOutputSchema(spec, noPt)).toBe(noPt);
    const h = await open(spec, noPt);
    await h.processElements(insert({ item: 'book', id: 1, n: 1 }), insert({ item: 'book', id: 1, n: 2 }));
    expect(h.output()).toEqual([insert({ item: 'book', id: 1, n: 1 }), updateAfter({ item: 'book', id: 1, n: 2 })]);
    expect(() => deduplicateOutputSchema({ ...procSpec('last', false), orderColumn: 'n' }, procSchema)).toThrow(/'n' is INT/);
  });
});

describe('ProcTimeDeduplicateKeepFirstRowFunctionTest', () => {
  it('test: emits the first row per key and never retracts', async () => {
    const h = await open(procSpec('first', false), procSchema);
    await h.processElements(insert(book(1, 12)), insert(book(2, 11)), insert(book(1, 13)));
    expect(h.output()).toEqual([insert(book(1, 12)), insert(book(2, 11))]);
  });

  it('testWithStateTtl: a key is first again once its state has expired', async () => {
    const h = await open(procSpec('first', false), procSchema);
    await h.processElements(insert(book(1, 12)), insert(book(2, 11)), insert(book(1, 13)));
    await h.setProcessingTime(30);
    await h.processElements(insert(book(1, 17)), insert(book(2, 18)), insert(book(1, 19)));
    // (1, 12) and (2, 11) have retired, so (1, 17) and (2, 18) are emitted.
    expect(h.output()).toEqual([insert(book(1, 12)), insert(book(2, 11)), insert(book(1, 17)), insert(book(2, 18))]);
  });
});

describe('ProcTimeDeduplicateKeepLastRowFunctionTest', () => {
  it('testWithoutGenerateUpdateBefore: +I first, then +U only', async () => {
    const h = await open(procSpec('last', false), procSchema);
    await h.processElements(insert(book(1, 12)), insert(book(2, 11)), insert(book(1, 13)));
    expect(h.output()).toEqual([insert(book(1, 12)), insert(book(2, 11)), updateAfter(book(1, 13))]);
  });

  it('testWithGenerateUpdateBefore: with TTL an equal row is still emitted as -U/+U', async () => {
    const h = await open(procSpec('last', true), procSchema);
    await h.processElements(insert(book(1, 12)), insert(book(2, 11)), insert(book(1, 12)));
    expect(h.output()).toEqual([insert(book(1, 12)), insert(book(2, 11)), updateBefore(book(1, 12)), updateAfter(book(1, 12))]);
  });

  it('testWithStateTtlDisabled: without TTL an equal row emits nothing', async () => {
    const h = await open(procSpec('last', true, 0), procSchema);
    await h.processElements(insert(book(1, 12)), insert(book(2, 11)), insert(book(1, 12)));
    expect(h.output()).toEqual([insert(book(1, 12)), insert(book(2, 11))]);
  });

  it('testWithGenerateUpdateBeforeAndStateTtl: expired keys start again with +I', async () => {
    const h = await open(procSpec('last', true), procSchema);
    await h.processElements(insert(book(1, 12)), insert(book(2, 11)), insert(book(1, 13)));
    await h.setProcessingTime(30);
    await h.processElements(insert(book(1, 17)), insert(book(2, 18)), insert(book(1, 19)));
    expect(h.output()).toEqual([
      insert(book(1, 12)),
      insert(book(2, 11)),
      updateBefore(book(1, 12)),
      updateAfter(book(1, 13)),
      // (2, 11) and (1, 13) retired, so no UPDATE_BEFORE is sent for them.
      insert(book(1, 17)),
      insert(book(2, 18)),
      updateBefore(book(1, 17)),
      updateAfter(book(1, 19)),
    ]);
  });

  it('compares whole rows as Flink\'s RecordEqualiser: NaN equals NaN, -0 differs from 0', async () => {
    const schema: Schema = { fields: [...procSchema.fields, { name: 'x', type: parseType('DOUBLE') }] };
    const h = await open(procSpec('last', false, 0), schema);
    await h.processElements(
      insert({ ...book(1, 1), x: Number.NaN }),
      insert({ ...book(1, 1), x: Number.NaN }),
      insert({ ...book(1, 1), x: 0 }),
      insert({ ...book(1, 1), x: -0 }),
    );
    expect(h.output()).toEqual([insert({ ...book(1, 1), x: Number.NaN }), updateAfter({ ...book(1, 1), x: 0 }), updateAfter({ ...book(1, 1), x: -0 })]);
    expect(Object.is(h.output()[2]!.row['x'], -0)).toBe(true);
  });
});

describe('RowTimeDeduplicateFunctionTest (non-mini-batch)', () => {
  /** The scenario of testRowTimeDeduplicateKeepFirstRow / KeepLastRow, with a restore after watermark 102. */
  async function runScenario(spec: DeduplicateSpec, firstRows: readonly Row[]): Promise<ChangeRow[]> {
    let h = await open(spec, rowSchema);
    await h.processElements(...firstRows.map(insert));
    // Deduplication emits on each record; watermarks produce nothing.
    expect(await h.processWatermark(102)).toEqual([]);
    const actual = h.extractOutput();
    h = await restartFrom(h, spec, rowSchema);
    // test 2: the restored state decides these rows.
    await h.processElements(insert(rec('key1', 12, 300)), insert(rec('key2', 11, 301)), insert(rec('key3', 5, 299)));
    expect(await h.processWatermark(302)).toEqual([]);
    // test 3: expire the state (TTL 10 ms, written at 0).
    await h.setProcessingTime(11);
    await h.processElements(insert(rec('key1', 12, 400)), insert(rec('key2', 11, 401)));
    expect(await h.processWatermark(402)).toEqual([]);
    return [...actual, ...h.output()];
  }

  const firstRowsKeepFirst = [rec('key1', 13, 99), rec('key1', 13, 99), rec('key1', 12, 100), rec('key2', 11, 101)];
  const firstRowsKeepLast = [rec('key1', 13, 99), rec('key1', 12, 100), rec('key2', 11, 101)];

  it.each([true, false])('testRowTimeDeduplicateKeepFirstRow (generateUpdateBefore: %s)', async (generateUpdateBefore) => {
    expect(await runScenario(rowSpec('first', generateUpdateBefore), firstRowsKeepFirst)).toEqual([
      insert(rec('key1', 13, 99)),
      insert(rec('key2', 11, 101)),
      // watermark 102, restore
      insert(rec('key3', 5, 299)),
      // watermark 302; state expired
      insert(rec('key1', 12, 400)),
      insert(rec('key2', 11, 401)),
      // watermark 402
    ]);
  });

  it('testRowTimeDeduplicateKeepLastRow (generateUpdateBefore: true)', async () => {
    expect(await runScenario(rowSpec('last', true), firstRowsKeepLast)).toEqual([
      insert(rec('key1', 13, 99)),
      updateBefore(rec('key1', 13, 99)),
      updateAfter(rec('key1', 12, 100)),
      insert(rec('key2', 11, 101)),
      // watermark 102, restore
      updateBefore(rec('key1', 12, 100)),
      updateAfter(rec('key1', 12, 300)),
      updateBefore(rec('key2', 11, 101)),
      updateAfter(rec('key2', 11, 301)),
      insert(rec('key3', 5, 299)),
      // watermark 302; all state expired, so these are INSERTs
      insert(rec('key1', 12, 400)),
      insert(rec('key2', 11, 401)),
      // watermark 402
    ]);
  });

  it('testRowTimeDeduplicateKeepLastRow (generateUpdateBefore: false)', async () => {
    expect(await runScenario(rowSpec('last', false), firstRowsKeepLast)).toEqual([
      insert(rec('key1', 13, 99)),
      updateAfter(rec('key1', 12, 100)),
      insert(rec('key2', 11, 101)),
      updateAfter(rec('key1', 12, 300)),
      updateAfter(rec('key2', 11, 301)),
      insert(rec('key3', 5, 299)),
      insert(rec('key1', 12, 400)),
      insert(rec('key2', 11, 401)),
    ]);
  });
});

describe('Row-time ordering (DeduplicateFunctionHelper.shouldKeepCurrentRow)', () => {
  it('keep last: a row with rowtime >= the kept one replaces it, so on a tie the later arrival wins', async () => {
    const h = await open(rowSpec('last', true, 0), rowSchema);
    await h.processElements(insert(rec('k', 1, 100)), insert(rec('k', 2, 90)), insert(rec('k', 3, 100)), insert(rec('k', 3, 100)));
    expect(h.output()).toEqual([
      insert(rec('k', 1, 100)),
      updateBefore(rec('k', 1, 100)),
      updateAfter(rec('k', 3, 100)),
      // RowTimeDeduplicateFunction has no equaliser: an equal row with an equal rowtime replaces too.
      updateBefore(rec('k', 3, 100)),
      updateAfter(rec('k', 3, 100)),
    ]);
  });

  it('keep first: only a strictly smaller rowtime replaces the kept row', async () => {
    const h = await open(rowSpec('first', true, 0), rowSchema);
    await h.processElements(insert(rec('k', 1, 100)), insert(rec('k', 2, 90)), insert(rec('k', 3, 90)), insert(rec('k', 4, 100)));
    expect(h.output()).toEqual([insert(rec('k', 1, 100)), updateBefore(rec('k', 1, 100)), updateAfter(rec('k', 2, 90))]);
  });

  it('ignores the watermark: a late row still takes part, as RowTimeDeduplicateFunction does', async () => {
    const h = await open(rowSpec('first', false, 0), rowSchema);
    await h.processElement(insert(rec('k', 1, 5_000)));
    await h.processWatermark(10_000);
    await h.processElement(insert(rec('k', 2, 1_000)));
    await h.processElement(insert(rec('j', 3, 2_000)));
    expect(h.output()).toEqual([insert(rec('k', 1, 5_000)), updateAfter(rec('k', 2, 1_000)), insert(rec('j', 3, 2_000))]);
    expect(h.sideOutput('late')).toEqual([]);
  });

  it('keys by several columns, nulls included, and by none (a global deduplication)', async () => {
    const schema: Schema = { fields: [...rowSchema.fields, { name: 'g', type: parseType('INT') }] };
    const h = await open({ ...rowSpec('last', false, 0), keys: ['key', 'g'] }, schema);
    await h.processElements(
      insert({ ...rec('a', 1, 1), g: null }),
      insert({ ...rec('a', 2, 1), g: 1 }),
      insert({ ...rec('a', 3, 2), g: null }),
    );
    expect(h.output()).toEqual([insert({ ...rec('a', 1, 1), g: null }), insert({ ...rec('a', 2, 1), g: 1 }), updateAfter({ ...rec('a', 3, 2), g: null })]);

    const global = await open({ ...rowSpec('last', true, 0), keys: [] }, rowSchema);
    await global.processElements(insert(rec('a', 1, 5)), insert(rec('b', 2, 7)), insert(rec('c', 3, 6)));
    expect(global.output()).toEqual([insert(rec('a', 1, 5)), updateBefore(rec('a', 1, 5)), updateAfter(rec('b', 2, 7))]);
    expect([...global.state.snapshot().tables[0]!.entries].map((e) => e[0])).toEqual([encodeKey([])]);
  });
});

describe('Input checks', () => {
  const variants: readonly [string, DeduplicateSpec, Schema, Row][] = [
    ['proctime keep first', procSpec('first', true), procSchema, book(1, 1)],
    ['proctime keep last', procSpec('last', true), procSchema, book(1, 1)],
    ['rowtime keep first', rowSpec('first', true), rowSchema, rec('k', 1, 1)],
    ['rowtime keep last', rowSpec('last', true), rowSchema, rec('k', 1, 1)],
  ];

  it.each(variants)('%s: a -U, +U or -D input row is a PlanError (input must be insert-only)', async (_name, spec, schema, row) => {
    const h = await open(spec, schema);
    for (const change of [updateBefore(row), updateAfter(row), del(row)]) {
      const error = await h.processElement(change).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PlanError);
      expect((error as PlanError).retry).toBe('fail');
      expect((error as Error).message).toMatch(new RegExp(`doesn't support consuming update and delete changes, but got a \\${change.kind} row`));
    }
    expect(h.output()).toEqual([]);
  });

  it('a null rowtime is a RecordError on the order column, and the batch changes nothing', async () => {
    const h = await open(rowSpec('last', true, 0), rowSchema);
    const error = await h.processBatch([insert(rec('k', 1, 100)), insert({ key: 'k', v: 2, ts: null })]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RecordError);
    expect((error as RecordError).field).toBe('ts');
    expect((error as RecordError).retry).toBe('dead-letter');
    expect((error as Error).message).toMatch(/rowtime column 'ts' is null: RowTime field should not be null/);
    expect(h.output()).toEqual([]);
    expect(h.state.stats().entries).toBe(0);
    // The operator is still usable, and nothing of the rejected batch was kept.
    await h.processElement(insert(rec('k', 1, 100)));
    expect(h.output()).toEqual([insert(rec('k', 1, 100))]);
  });

  it('a non-numeric rowtime is a RecordError too', async () => {
    const h = await open(rowSpec('first', true, 0), rowSchema);
    await expect(h.processElement(insert({ key: 'k', v: 1, ts: '2015-07-15 00:00:01.000' }))).rejects.toThrow(/'ts' is not a TIMESTAMP\(3\) value \(got a string\)/);
  });

  it('processing time never reads the order column, so its value may be null', async () => {
    const h = await open(procSpec('last', true), procSchema);
    await h.processElements(insert(book(1, 1)), insert({ ...book(1, 2), pt: 123 }));
    expect(h.output()).toEqual([insert(book(1, 1)), updateBefore(book(1, 1)), updateAfter({ ...book(1, 2), pt: 123 })]);
  });
});

describe('State TTL with the harness clock', () => {
  it('keep last: every kept row refreshes the key, so it expires ttl after its last write', async () => {
    const h = await open(rowSpec('last', true, 10), rowSchema);
    await h.processElement(insert(rec('k', 1, 100)));
    await h.setProcessingTime(8);
    await h.processElement(insert(rec('k', 2, 101))); // written at 8: alive until 18
    await h.setProcessingTime(15);
    await h.processElement(insert(rec('k', 3, 50))); // dropped (older): a read, no refresh
    await h.setProcessingTime(18);
    await h.processElement(insert(rec('k', 4, 10)));
    expect(h.output()).toEqual([
      insert(rec('k', 1, 100)),
      updateBefore(rec('k', 1, 100)),
      updateAfter(rec('k', 2, 101)),
      // 8 + 10 <= 18: expired (Flink's TtlUtils.expired), so even an older row is first again.
      insert(rec('k', 4, 10)),
    ]);
  });

  it('keep first (processing time): dropped duplicates do not keep a key alive', async () => {
    const h = await open(procSpec('first', false, 10), procSchema);
    await h.processElement(insert(book(1, 1)));
    await h.setProcessingTime(9);
    await h.processElement(insert(book(1, 2)));
    await h.setProcessingTime(10);
    await h.processElement(insert(book(1, 3)));
    expect(h.output()).toEqual([insert(book(1, 1)), insert(book(1, 3))]);
  });

  it('keep last (processing time): TTL survives a restore', async () => {
    const spec = procSpec('last', true, 10);
    let h = await open(spec, procSchema);
    await h.processElement(insert(book(1, 1)));
    await h.setProcessingTime(5);
    h = await restartFrom(h, spec, procSchema);
    await h.processElement(insert(book(1, 2))); // at 5: alive
    await h.setProcessingTime(15);
    await h.processElement(insert(book(1, 3))); // written at 5, 5 + 10 <= 15: expired
    expect(h.output()).toEqual([updateBefore(book(1, 1)), updateAfter(book(1, 2)), insert(book(1, 3))]);
    expect(h.state.snapshot().tables[0]!.ttl).toEqual({ ttlMs: 10, updateOnRead: false });
  });

  it('no TTL when stateTtlMs is absent or not positive', async () => {
    const { stateTtlMs: _ttl, ...withoutTtl } = rowSpec('first', true);
    for (const spec of [withoutTtl, rowSpec('first', true, 0), rowSpec('first', true, -5)]) {
      const h = await open(spec, rowSchema);
      await h.processElement(insert(rec('k', 1, 1)));
      await h.setProcessingTime(1_000_000_000);
      await h.processElement(insert(rec('k', 2, 2)));
      expect(h.output()).toEqual([insert(rec('k', 1, 1))]);
      expect(h.state.snapshot().tables[0]!.ttl).toBeUndefined();
    }
  });
});

describe('Batches, state access and restore', () => {
  /** Both time attributes, so every variant runs over the same rows (`pt` is never read). */
  const mixedSchema: Schema = { fields: [...rowSchema.fields, { name: 'pt', type: parseType('TIMESTAMP(3)'), timeAttribute: 'proctime' }] };
  const stream: readonly ChangeRow[] = [
    insert(rec('a', 1, 10)),
    insert(rec('b', 2, 10)),
    insert(rec('a', 3, 12)),
    insert(rec('a', 4, 11)),
    insert(rec('b', 5, 10)),
    insert(rec('c', 6, 1)),
    insert(rec('a', 7, 12)),
    insert(rec('c', 8, 0)),
    insert(rec('b', 5, 10)),
  ];
  const variant = (keep: 'first' | 'last', timeDomain: 'event' | 'processing', generateUpdateBefore: boolean, stateTtlMs?: number): DeduplicateSpec => ({
    keys: ['key'],
    keep,
    orderColumn: timeDomain === 'event' ? 'ts' : 'pt',
    timeDomain,
    generateUpdateBefore,
    ...(stateTtlMs === undefined ? {} : { stateTtlMs }),
  });
  const variants: readonly (readonly [string, DeduplicateSpec])[] = [
    ['proctime keep first', variant('first', 'processing', false)],
    ['proctime keep last', variant('last', 'processing', true)],
    ['proctime keep last, TTL', variant('last', 'processing', false, 10)],
    ['rowtime keep first', variant('first', 'event', true)],
    ['rowtime keep last', variant('last', 'event', true)],
    ['rowtime keep last, TTL', variant('last', 'event', false, 10)],
  ];

  it.each(variants)('%s: one batch emits what the rows one by one emit, with one prefetch, one read and at most one write per row', async (_name, spec) => {
    const single = await open(spec, mixedSchema);
    await single.processElements(...stream);
    const batched = await open(spec, mixedSchema);
    const prefetch = vi.spyOn(batched.state, 'prefetch');
    await batched.processBatch(stream);
    expect(batched.output()).toEqual(single.output());
    expect(prefetch).toHaveBeenCalledTimes(1);
    expect([...(prefetch.mock.calls[0]![0] as Iterable<string>)].sort()).toEqual(['Sa', 'Sb', 'Sc']);
    const stats = batched.state.stats();
    expect(stats.reads).toBe(stream.length);
    expect(stats.writes).toBeLessThanOrEqual(stream.length);
    expect(stats.entries).toBe(3);
  });

  it.each(variants)('%s: snapshot → restore mid-stream → continue equals an uninterrupted run', async (_name, spec) => {
    const straight = await open(spec, mixedSchema);
    await straight.processBatch(stream);
    for (let cut = 0; cut <= stream.length; cut++) {
      let h = await open(spec, mixedSchema);
      await h.processBatch(stream.slice(0, cut));
      const before = h.extractOutput();
      h = await restartFrom(h, spec, mixedSchema);
      await h.processBatch(stream.slice(cut));
      expect([...before, ...h.output()]).toEqual(straight.output());
    }
  });

  it('waits for an asynchronous prefetch before touching state', async () => {
    const h = await open(rowSpec('last', true, 0), rowSchema);
    let loaded = false;
    const readsAfterLoad: boolean[] = [];
    const state = h.state.valueState<Row>(DEDUPLICATE_STATE);
    const get = state.get.bind(state);
    vi.spyOn(state, 'get').mockImplementation((key: string) => {
      readsAfterLoad.push(loaded);
      return get(key);
    });
    vi.spyOn(h.state, 'prefetch').mockImplementation(async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      loaded = true;
    });
    await h.processBatch([insert(rec('a', 1, 1)), insert(rec('a', 2, 2))]);
    expect(readsAfterLoad).toEqual([true, true]);
    expect(h.output()).toEqual([insert(rec('a', 1, 1)), updateBefore(rec('a', 1, 1)), updateAfter(rec('a', 2, 2))]);
  });

  it('proctime keep first stores a flag, the others the kept row', async () => {
    const first = await open(procSpec('first', false, 0), procSchema);
    await first.processElement(insert(book(7, 1)));
    expect(first.state.snapshot().tables).toEqual([{ name: DEDUPLICATE_STATE, kind: 'value', ttl: undefined, entries: [['n7', true]] }]);
    const last = await open(rowSpec('last', false, 0), rowSchema);
    await last.processElement(insert(rec('k', 1, 1)));
    expect(last.state.snapshot().tables[0]!.entries).toEqual([['Sk', rec('k', 1, 1)]]);
  });

  it('an empty batch does nothing', async () => {
    const h = await open(rowSpec('last', true), rowSchema);
    const prefetch = vi.spyOn(h.state, 'prefetch');
    expect(await h.processBatch([])).toEqual([]);
    expect(prefetch).not.toHaveBeenCalled();
  });
});

describe('Nexmark q18 on generated bids', () => {
  const data = nexmarkTestData();
  const bidSchema: Schema = {
    fields: [
      { name: 'auction', type: parseType('BIGINT') },
      { name: 'bidder', type: parseType('BIGINT') },
      { name: 'price', type: parseType('BIGINT') },
      { name: 'channel', type: parseType('VARCHAR') },
      { name: 'url', type: parseType('VARCHAR') },
      { name: 'date_time', type: parseType('TIMESTAMP(3)'), timeAttribute: 'rowtime' },
      { name: 'extra', type: parseType('VARCHAR') },
    ],
  };
  /** ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY date_time DESC) = 1 */
  const q18: DeduplicateSpec = {
    keys: ['bidder', 'auction'],
    keep: 'last',
    orderColumn: 'date_time',
    timeDomain: 'event',
    generateUpdateBefore: true,
  };
  const byKey = (a: Row, b: Row): number => {
    const ka = encodeKey([a['bidder']!, a['auction']!]);
    const kb = encodeKey([b['bidder']!, b['auction']!]);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  };

  it.each([1, 7, 50])('last bid per (bidder, auction), later arrival winning ties (batches of %i)', async (size) => {
    const decode = createRowDecoder(bidSchema);
    const bids = data.bidLines.map((line, i) => decode(JSON.parse(line), `bid.jsonl:${i + 1}`));
    const expected = data.expected('q18').map((json) => decode(json));
    const h = await open(q18, bidSchema);
    for (let i = 0; i < bids.length; i += size) await h.processBatch(bids.slice(i, i + size).map(insert));
    expect(materialize(h.output(), q18.keys).sort(byKey)).toEqual(expected.sort(byKey));
    expect(materialize(h.output()).sort(byKey)).toEqual(expected);
  });
});
