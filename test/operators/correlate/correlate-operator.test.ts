/**
 * The Correlate operator (Flink's Correlate) with exact changelogs: UNNEST of one ARRAY / ARRAY
 * of ROW / MAP, of several collections zipped (checked against a plain reference model), WITH
 * ORDINALITY, a table user function from the registry, INNER with a condition and LEFT with
 * NULL padding, every output row with its input row's kind.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlanError } from '../../../shared/core/errors.ts';
import type { ChangeRow } from '../../../shared/core/row.ts';
import { schemaOf } from '../../../shared/core/type-parse.ts';
import type { Schema } from '../../../shared/core/types.ts';
import { correlateOutputSchema, createCorrelateOperator, type CorrelateSpec } from '../../../shared/operators/correlate/correlate-operator.ts';
import type { OperatorContext, Output } from '../../../shared/operators/operator.ts';
import { col, gt } from '../../../shared/plan/expr-build.ts';
import { tableFunction } from '../../../shared/api/user-functions.ts';

const context = { operatorId: 'Correlate_1', shard: 0, parallelism: 1, metrics: { increment() {} } } as unknown as OperatorContext;

async function run(spec: CorrelateSpec, schema: Schema, batch: readonly ChangeRow[], functions: ReadonlyMap<string, unknown> = new Map()): Promise<string[]> {
  const op = createCorrelateOperator(spec, schema, functions);
  await op.open(context);
  const emitted: string[] = [];
  const out: Output = { emit: (r) => emitted.push(`${r.kind}${JSON.stringify(r.row)}`), emitSide: () => {} };
  await op.processBatch(batch, out);
  return emitted;
}

const tags = schemaOf({ id: 'BIGINT NOT NULL', tags: 'ARRAY<STRING>' });

describe('Correlate operator', () => {
  it('UNNEST INNER drops rows without elements; the row kind passes through', async () => {
    const spec: CorrelateSpec = { call: { fn: 'UNNEST', args: [col('tags')] }, columns: ['tag'], joinType: 'INNER' };
    expect(
      await run(spec, tags, [
        { kind: '+I', row: { id: 1, tags: ['a', 'b'] } },
        { kind: '+I', row: { id: 2, tags: [] } },
        { kind: '+I', row: { id: 3, tags: null } },
        { kind: '-U', row: { id: 1, tags: ['a', 'b'] } },
        { kind: '+U', row: { id: 1, tags: ['c'] } },
        { kind: '-D', row: { id: 1, tags: ['c'] } },
      ]),
    ).toEqual(['+I{"id":1,"tags":["a","b"],"tag":"a"}', '+I{"id":1,"tags":["a","b"],"tag":"b"}', '-U{"id":1,"tags":["a","b"],"tag":"a"}', '-U{"id":1,"tags":["a","b"],"tag":"b"}', '+U{"id":1,"tags":["c"],"tag":"c"}', '-D{"id":1,"tags":["c"],"tag":"c"}']);
  });

  it('UNNEST LEFT keeps a row without elements once, padded with NULL, and types the column nullable', async () => {
    const spec: CorrelateSpec = { call: { fn: 'UNNEST', args: [col('tags')], ordinality: true }, columns: ['tag', 'n'], joinType: 'LEFT' };
    expect(correlateOutputSchema(spec, tags).fields.map((f) => `${f.name} ${f.type.root}${f.type.nullable ? '' : ' NOT NULL'}`)).toEqual(['id BIGINT NOT NULL', 'tags ARRAY', 'tag STRING', 'n INT']);
    expect(
      await run(spec, tags, [
        { kind: '+I', row: { id: 1, tags: ['a', null] } },
        { kind: '+I', row: { id: 2, tags: [] } },
        { kind: '-D', row: { id: 3, tags: null } },
      ]),
    ).toEqual(['+I{"id":1,"tags":["a",null],"tag":"a","n":1}', '+I{"id":1,"tags":["a",null],"tag":null,"n":2}', '+I{"id":2,"tags":[],"tag":null,"n":null}', '-D{"id":3,"tags":null,"tag":null,"n":null}']);
  });

  it('UNNEST of an ARRAY of ROW gives its fields (a NULL element NULLs), of a MAP its keys and values', async () => {
    const items = schemaOf({ id: 'INT', items: 'ARRAY<ROW<sku STRING, qty INT>>', attrs: 'MAP<STRING, INT>' });
    const rows: ChangeRow[] = [{ kind: '+I', row: { id: 1, items: [{ sku: 'a', qty: 2 }, null], attrs: { x: 1, y: 2 } } }];
    expect(await run({ call: { fn: 'UNNEST', args: [col('items')] }, columns: ['sku', 'qty'], joinType: 'INNER' }, items, rows)).toEqual([
      '+I{"id":1,"items":[{"sku":"a","qty":2},null],"attrs":{"x":1,"y":2},"sku":"a","qty":2}',
      '+I{"id":1,"items":[{"sku":"a","qty":2},null],"attrs":{"x":1,"y":2},"sku":null,"qty":null}',
    ]);
    expect(await run({ call: { fn: 'UNNEST', args: [col('attrs')] }, columns: ['k', 'v'], joinType: 'INNER' }, items, rows)).toEqual([
      '+I{"id":1,"items":[{"sku":"a","qty":2},null],"attrs":{"x":1,"y":2},"k":"x","v":1}',
      '+I{"id":1,"items":[{"sku":"a","qty":2},null],"attrs":{"x":1,"y":2},"k":"y","v":2}',
    ]);
  });

  it('UNNEST of several collections zips them, the shorter padded with NULLs, every column nullable', async () => {
    const two = schemaOf({ a: 'ARRAY<INT NOT NULL>', m: 'MAP<STRING, STRING>' });
    const spec: CorrelateSpec = { call: { fn: 'UNNEST', args: [col('a'), col('m')], ordinality: true }, columns: ['x', 'k', 'v', 'n'], joinType: 'INNER' };
    expect(correlateOutputSchema(spec, two).fields.slice(2).map((f) => `${f.name} ${f.type.nullable}`)).toEqual(['x true', 'k true', 'v true', 'n false']);
    expect(
      await run(spec, two, [
        { kind: '+I', row: { a: [1, 2, 3], m: { p: 'q' } } },
        { kind: '+I', row: { a: null, m: { r: 's' } } },
        { kind: '+I', row: { a: [], m: {} } },
      ]),
    ).toEqual(['+I{"a":[1,2,3],"m":{"p":"q"},"x":1,"k":"p","v":"q","n":1}', '+I{"a":[1,2,3],"m":{"p":"q"},"x":2,"k":null,"v":null,"n":2}', '+I{"a":[1,2,3],"m":{"p":"q"},"x":3,"k":null,"v":null,"n":3}', '+I{"a":null,"m":{"r":"s"},"x":null,"k":"r","v":"s","n":1}']);
  });

  it('zipping matches a reference model for any arrays', async () => {
    const two = schemaOf({ a: 'ARRAY<INT>', b: 'ARRAY<INT>' });
    const spec: CorrelateSpec = { call: { fn: 'UNNEST', args: [col('a'), col('b')] }, columns: ['x', 'y'], joinType: 'LEFT' };
    const arr = fc.option(fc.array(fc.option(fc.integer({ min: -5, max: 5 }), { nil: null }), { maxLength: 4 }), { nil: null });
    await fc.assert(
      fc.asyncProperty(arr, arr, async (a, b) => {
        const n = Math.max(a?.length ?? 0, b?.length ?? 0);
        const expected = Array.from({ length: Math.max(n, 1) }, (_, i) => `+I${JSON.stringify({ a, b, x: n === 0 ? null : (a?.[i] ?? null), y: n === 0 ? null : (b?.[i] ?? null) })}`);
        expect(await run(spec, two, [{ kind: '+I', row: { a, b } }])).toEqual(expected);
      }),
    );
  });

  it('a table user function from the registry, with an INNER condition and a LEFT join', async () => {
    const split = tableFunction({ word: 'STRING', len: 'INT' }, function* (line: string | null) {
      for (const w of (line ?? '').split(' ')) if (w !== '') yield w.length % 2 === 0 ? [w, w.length] : { word: w, len: w.length };
    });
    const docs = schemaOf({ id: 'INT', line: 'STRING' });
    const functions = new Map([['udf_1', split]]);
    const call = { fn: 'USER' as const, ref: 'udf_1', name: 'split', args: [col('line')], columnTypes: split.columns.map((c) => c.type) };
    const input: ChangeRow[] = [
      { kind: '+I', row: { id: 1, line: 'aa b ccc' } },
      { kind: '+I', row: { id: 2, line: null } },
      { kind: '-U', row: { id: 3, line: 'x' } },
    ];
    expect(await run({ call, columns: ['w', 'l'], joinType: 'INNER', condition: gt(col('l'), 1) }, docs, input, functions)).toEqual(['+I{"id":1,"line":"aa b ccc","w":"aa","l":2}', '+I{"id":1,"line":"aa b ccc","w":"ccc","l":3}']);
    expect(await run({ call, columns: ['w', 'l'], joinType: 'LEFT' }, docs, input, functions)).toEqual([
      '+I{"id":1,"line":"aa b ccc","w":"aa","l":2}',
      '+I{"id":1,"line":"aa b ccc","w":"b","l":1}',
      '+I{"id":1,"line":"aa b ccc","w":"ccc","l":3}',
      '+I{"id":2,"line":null,"w":null,"l":null}',
      '-U{"id":3,"line":"x","w":"x","l":1}',
    ]);
  });

  it('names what is wrong', () => {
    const unnest: CorrelateSpec = { call: { fn: 'UNNEST', args: [col('id')] }, columns: ['x'], joinType: 'INNER' };
    expect(() => correlateOutputSchema(unnest, tags)).toThrow(new PlanError('UNNEST takes an ARRAY or a MAP, but id is BIGINT'));
    expect(() => correlateOutputSchema({ ...unnest, call: { fn: 'UNNEST', args: [col('tags')] }, columns: ['id'] }, tags)).toThrow("column 'id' of $UNNEST_ROWS$1(tags) has the name of an input column");
    expect(() => correlateOutputSchema({ call: { fn: 'UNNEST', args: [col('tags')] }, columns: ['t'], joinType: 'LEFT', condition: gt(col('id'), 1) }, tags)).toThrow('a LEFT join with $UNNEST_ROWS$1(tags) supports only ON TRUE (as in Flink)');
    const user: CorrelateSpec = { call: { fn: 'USER', ref: 'udf_9', name: 'f', args: [], columnTypes: [{ root: 'INT', nullable: true }] }, columns: ['v'], joinType: 'INNER' };
    expect(() => createCorrelateOperator(user, tags, new Map())).toThrow("table function f (udf_9) is not in the pipeline's function registry");
  });
});
