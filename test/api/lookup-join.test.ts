/**
 * The lookup-join API: `pipeline.lookupTable` and `stream.lookupJoin` build LookupJoin nodes with
 * the right spec, and every mistake is a PlanError that names the table and the column.
 */
import { describe, expect, it } from 'vitest';
import { Pipeline, col, gt } from '../../shared/api/index.ts';
import { PlanError } from '../../shared/core/errors.ts';
import type { Row } from '../../shared/core/types.ts';
import type { LookupJoinNode } from '../../shared/plan/logical.ts';

const ORDERS = { product_id: 'BIGINT', name: 'STRING', qty: 'INT' } as const;
const DIM = { id: 'BIGINT NOT NULL', title: 'STRING', price: 'INT' } as const;

function setup() {
  const p = new Pipeline('api');
  const orders = p.source('orders', { schema: ORDERS });
  const dim = p.lookupTable('dim', { schema: DIM, source: { jsonl: {} } });
  return { p, orders, dim };
}

describe('stream.lookupJoin builds a LookupJoin node', () => {
  it('defaults: INNER, every dimension column appended, no shuffle, the source descriptor and dimension schema attached', () => {
    const { orders, dim } = setup();
    const node = orders.lookupJoin(dim, { on: { product_id: 'id' } }).node as LookupJoinNode;
    expect(node).toMatchObject({ type: 'LookupJoin', table: 'dim', joinType: 'INNER', keys: [{ probe: 'product_id', lookup: 'id' }], shuffle: false, source: { type: 'jsonl' } });
    expect(node.dimensionSchema?.fields.map((f) => f.name)).toEqual(['id', 'title', 'price']);
    expect(node.schema.fields.map((f) => f.name)).toEqual(['product_id', 'name', 'qty', 'id', 'title', 'price']);
  });

  it('columns as a list or a rename map; LEFT makes dimension columns nullable; pairs as tuples or objects', () => {
    const { orders, dim } = setup();
    const listed = orders.lookupJoin(dim, { on: [['product_id', 'id']], columns: ['price'], type: 'left' });
    expect(listed.schema.fields.map((f) => [f.name, f.type.nullable])).toEqual([
      ['product_id', true],
      ['name', true],
      ['qty', true],
      ['price', true],
    ]);
    const { orders: o2, dim: d2 } = setup();
    const renamed = o2.lookupJoin(d2, { on: [{ probe: 'product_id', lookup: 'id' }], columns: { product_title: 'title', key: 'id' } });
    expect(renamed.schema.fields.map((f) => [f.name, f.type.nullable])).toEqual([
      ['product_id', true],
      ['name', true],
      ['qty', true],
      ['product_title', true],
      ['key', false],
    ]);
  });

  it('table hash: true shuffles; the join shuffle option overrides the table either way', () => {
    const p = new Pipeline('h');
    const hashed = p.lookupTable('hashed', { schema: DIM, source: { jsonl: {} }, hash: true, cache: { type: 'PARTIAL', maxRows: 10 } });
    const plain = p.lookupTable('plain', { schema: DIM, source: { jsonl: {} } });
    const s = p.source('orders', { schema: ORDERS });
    const node = (n: { node: unknown }): LookupJoinNode => n.node as LookupJoinNode;
    expect(node(s.lookupJoin(hashed, { on: { product_id: 'id' } })).shuffle).toBe(true);
    expect(node(s.lookupJoin(hashed, { on: { product_id: 'id' }, shuffle: false })).shuffle).toBe(false);
    expect(node(s.lookupJoin(plain, { on: { product_id: 'id' }, shuffle: true })).shuffle).toBe(true);
    expect(node(s.lookupJoin(plain, { on: { product_id: 'id' } })).shuffle).toBe(false);
    // The table's cache is the join's unless the join gives one.
    expect(node(s.lookupJoin(hashed, { on: { product_id: 'id' } })).cache).toEqual({ type: 'PARTIAL', maxRows: 10 });
    expect(node(s.lookupJoin(hashed, { on: { product_id: 'id' }, cache: { type: 'NONE' } })).cache).toEqual({ type: 'NONE' });
  });

  it('source descriptors: jdbc (table defaults to the name), dynamodb, jsonl path, functions registered as user functions', () => {
    const p = new Pipeline('src');
    const lookup = (keys: readonly Row[]) => keys.map((k) => ({ id: k.id ?? null, title: 't', price: 1 }));
    const tables = [
      p.lookupTable('users', { schema: DIM, source: { jdbc: { url: 'jdbc:postgresql://db/shop', user: 'app', passwordFrom: 'DB_PASSWORD' } } }),
      p.lookupTable('items', { schema: DIM, source: { dynamodb: { mode: 'query', indexName: 'by_id' } } }),
      p.lookupTable('side', { schema: DIM, source: { jsonl: '/data/side.jsonl' } }),
      p.lookupTable('svc', { schema: DIM, source: { fn: lookup, loadAll: () => [] } }),
    ];
    expect(tables.map((t) => t.source)).toEqual([
      { type: 'jdbc', url: 'jdbc:postgresql://db/shop', table: 'users', user: 'app', passwordFrom: 'DB_PASSWORD' },
      { type: 'dynamodb', table: 'items', mode: 'query', indexName: 'by_id' },
      { type: 'jsonl', path: '/data/side.jsonl' },
      { type: 'function', ref: 'udf_1', display: 'lookup', loadAllRef: 'udf_2' },
    ]);
    expect(p.userFunctions.get('udf_1')).toBe(lookup);
  });
});

describe('lookup API errors are PlanErrors that say what is wrong', () => {
  const cases: [string, () => unknown, RegExp][] = [
    [
      'an empty on',
      () => {
        const { orders, dim } = setup();
        orders.lookupJoin(dim, { on: {} });
      },
      /lookup join with 'dim' needs at least one key in 'on'/,
    ],
    [
      'an unknown probe column',
      () => {
        const { orders, dim } = setup();
        orders.lookupJoin(dim, { on: { nope: 'id' } as never });
      },
      /Column 'nope' not found in the probe stream of the lookup join with 'dim'; available columns: product_id, name, qty/,
    ],
    [
      'an unknown lookup column',
      () => {
        const { orders, dim } = setup();
        orders.lookupJoin(dim, { on: { product_id: 'idx' } as never });
      },
      /Column 'idx' not found in lookup table 'dim'; available columns: id, title, price/,
    ],
    [
      'a probe key whose type cannot equal the lookup key',
      () => {
        const { orders, dim } = setup();
        orders.lookupJoin(dim, { on: { name: 'id' } });
      },
      /key 'name' \(VARCHAR.*\) cannot be compared with 'id' \(BIGINT NOT NULL\)/,
    ],
    ['a table without a source', () => new Pipeline('x').lookupTable('dim', { schema: DIM } as never), /lookup table 'dim' has no source/],
    ['a table with two sources', () => new Pipeline('x').lookupTable('dim', { schema: DIM, source: { jsonl: {}, fn: () => [] } } as never), /exactly one of jdbc, dynamodb, jsonl, fn \(given jsonl, fn\)/],
    ['a table without columns', () => new Pipeline('x').lookupTable('dim', { schema: {}, source: { jsonl: {} } }), /needs a schema with at least one column/],
    ['a malformed JDBC URL', () => new Pipeline('x').lookupTable('dim', { schema: DIM, source: { jdbc: { url: 'mysql://h/db' } } }), /invalid JDBC URL/],
    ['a password in the JDBC URL', () => new Pipeline('x').lookupTable('dim', { schema: DIM, source: { jdbc: { url: 'jdbc:mysql://h/db?password=s' } } }), /carries a password: use passwordFrom/],
    ['a FULL cache over a function without loadAll', () => new Pipeline('x').lookupTable('dim', { schema: DIM, source: { fn: () => [] }, cache: { type: 'FULL' } }), /function source needs loadAll/],
    ['an invalid cache', () => new Pipeline('x').lookupTable('dim', { schema: DIM, source: { jsonl: {} }, cache: { type: 'PARTIAL', maxRows: 0 } }), /maxRows must be a positive integer/],
    [
      'a table declared twice',
      () => {
        const p = new Pipeline('x');
        p.lookupTable('dim', { schema: DIM, source: { jsonl: {} } });
        p.lookupTable('dim', { schema: DIM, source: { jsonl: {} } });
      },
      /lookup table 'dim' is declared twice/,
    ],
    [
      'a table named like a source',
      () => {
        const p = new Pipeline('x');
        p.source('orders', { schema: ORDERS });
        p.lookupTable('orders', { schema: DIM, source: { jsonl: {} } });
      },
      /'orders' is already a source/,
    ],
    [
      'a table of another pipeline',
      () => {
        const other = new Pipeline('other').lookupTable('dim', { schema: DIM, source: { jsonl: {} } });
        setup().orders.lookupJoin(other, { on: { product_id: 'id' } });
      },
      /belongs to another pipeline/,
    ],
    [
      'an output name on both sides',
      () => {
        const p = new Pipeline('x');
        const t = p.lookupTable('dim', { schema: { id: 'BIGINT NOT NULL', name: 'STRING' }, source: { jsonl: {} } });
        p.source('orders', { schema: ORDERS }).lookupJoin(t, { on: { product_id: 'id' } });
      },
      /output column 'name' comes from both probe and lookup columns.*columns: \{ new_name: 'column' \}/,
    ],
    [
      'a non-BOOLEAN condition',
      () => {
        const { orders, dim } = setup();
        orders.lookupJoin(dim, { on: { product_id: 'id' }, condition: col('title') });
      },
      /the condition must be BOOLEAN, but title is STRING/,
    ],
    [
      'both columns and output',
      () => {
        const { orders, dim } = setup();
        orders.lookupJoin(dim, { on: { product_id: 'id' }, columns: ['title'], output: [{ side: 'lookup', column: 'title' }] });
      },
      /either 'columns' or 'output'/,
    ],
  ];
  it.each(cases)('%s', (_what, build, message) => {
    expect(build).toThrow(PlanError);
    expect(build).toThrow(message);
  });

  it('a condition over output columns is accepted', () => {
    const { orders, dim } = setup();
    const joined = orders.lookupJoin(dim, { on: { product_id: 'id' }, condition: gt(col('price'), col('qty')) });
    expect((joined.node as LookupJoinNode).condition).toBeDefined();
  });
});
