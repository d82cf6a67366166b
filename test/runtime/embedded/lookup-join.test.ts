/**
 * Lookup joins on the embedded runtime against a naive nested-loop join of the same data: INNER
 * and LEFT, forward and hashed, at several parallelisms and batch sizes, over a function source
 * and a JSON-lines table bound by name; plus the cache summary (with `hash: true` every key is
 * looked up on one shard only, so the misses are exactly the distinct keys) and the changelog of
 * an updating probe passing through.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Pipeline, count } from '../../../shared/api/index.ts';
import { PlanError } from '../../../shared/core/errors.ts';
import type { ChangeRow } from '../../../shared/core/row.ts';
import type { Row } from '../../../shared/core/types.ts';
import { runEmbeddedJob, type JobResult } from '../../../shared/runtime/embedded/embedded-runtime.ts';
import { MaterializedView } from '../../../shared/runtime/materialized-view.ts';

const dir = mkdtempSync(join(tmpdir(), 'flambda-lookup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A small deterministic PRNG, so failures reproduce. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

const random = lcg(42);
/** Products 1..40, some without a row (every 7th), some with two rows (every 5th). */
const products: { id: number; title: string; price: number }[] = [];
for (let id = 1; id <= 40; id++) {
  if (id % 7 === 0) continue;
  products.push({ id, title: `p${id}`, price: id * 10 });
  if (id % 5 === 0) products.push({ id, title: `p${id}-b`, price: id * 10 + 1 });
}
/** 300 orders over product ids 1..45 (some unknown), a few NULL keys. */
const orders: { order_id: number; product_id: number | null; qty: number }[] = Array.from({ length: 300 }, (_, i) => ({
  order_id: i,
  product_id: i % 37 === 0 ? null : 1 + Math.floor(random() * 45),
  qty: 1 + Math.floor(random() * 9),
}));
const ordersFile = join(dir, 'orders.jsonl');
writeFileSync(ordersFile, orders.map((o) => JSON.stringify(o)).join('\n'));
const productsFile = join(dir, 'products.jsonl');
writeFileSync(productsFile, products.map((p) => JSON.stringify(p)).join('\n'));

/** The naive join: every order × every product with its id; LEFT pads NULLs. */
function naive(type: 'inner' | 'left'): Row[] {
  const out: Row[] = [];
  for (const o of orders) {
    const matches = products.filter((p) => p.id === o.product_id);
    for (const p of matches) out.push({ ...o, title: p.title, price: p.price });
    if (matches.length === 0 && type === 'left') out.push({ ...o, title: null, price: null });
  }
  return out;
}

const sorted = (rows: readonly Row[]): string[] => rows.map((r) => JSON.stringify(r)).sort();

interface Built {
  pipeline: Pipeline;
  calls: { n: number };
}

function build(source: 'fn' | 'jsonl', type: 'inner' | 'left', hash: boolean): Built {
  const calls = { n: 0 };
  const p = new Pipeline('orders-products');
  const schema = { id: 'BIGINT NOT NULL', title: 'STRING', price: 'INT' } as const;
  const table =
    source === 'fn'
      ? p.lookupTable('products', {
          schema,
          source: {
            fn: (keys) => {
              calls.n++;
              const wanted = new Set(keys.map((k) => k.id));
              return products.filter((row) => wanted.has(row.id));
            },
          },
          cache: { type: 'PARTIAL', maxRows: 1000 },
          hash,
        })
      : p.lookupTable('products', { schema, source: { jsonl: {} }, cache: { type: 'PARTIAL', maxRows: 1000 }, hash });
  p.source('orders', { schema: { order_id: 'INT NOT NULL', product_id: 'BIGINT', qty: 'INT' } })
    .lookupJoin(table, { on: { product_id: 'id' }, columns: ['title', 'price'], type })
    .sinkTo('out');
  return { pipeline: p, calls };
}

async function run(pipeline: Pipeline, parallelism: number, batchSize: number, inputs: Map<string, string>): Promise<{ rows: Row[]; result: JobResult }> {
  const graph = pipeline.jobGraph({ parallelism });
  const rows: Row[] = [];
  const result = await runEmbeddedJob(graph, {
    inputs,
    batchSize,
    code: { functions: pipeline.userFunctions },
    observers: new Map([['out', [{ write: (changes: readonly ChangeRow[]) => changes.forEach((c) => rows.push(c.row)) }]]]),
  });
  return { rows, result };
}

describe('embedded lookup join = naive join', () => {
  const cases: ['fn' | 'jsonl', 'inner' | 'left', boolean, number, number][] = [
    ['fn', 'inner', false, 1, 1024],
    ['fn', 'left', false, 3, 17],
    ['fn', 'inner', true, 4, 1],
    ['fn', 'left', true, 2, 50],
    ['jsonl', 'inner', false, 2, 64],
    ['jsonl', 'left', true, 3, 9],
  ];
  it.each(cases)('%s source, %s join, hash %s, parallelism %i, batch size %i', async (source, type, hash, parallelism, batchSize) => {
    const { pipeline } = build(source, type, hash);
    const { rows, result } = await run(pipeline, parallelism, batchSize, new Map([['orders', ordersFile], ['products', productsFile]]));
    expect(sorted(rows)).toEqual(sorted(naive(type)));
    expect(result.lookupCache).toBeDefined();
    const { hits, misses, hitRate } = result.lookupCache!;
    expect(hitRate).toBeCloseTo(hits / (hits + misses));
    const distinctKeys = new Set(orders.map((o) => o.product_id).filter((k) => k !== null)).size;
    // A key is looked up once per shard at most (missing keys are cached too).
    if (hash) expect(misses).toBe(distinctKeys);
    else expect(misses).toBeGreaterThanOrEqual(distinctKeys);
  });

  it('hashing by the join key partitions the caches: fewer source calls and misses than forward at the same parallelism', async () => {
    const forward = build('fn', 'inner', false);
    const hashed = build('fn', 'inner', true);
    const inputs = new Map([['orders', ordersFile]]);
    const f = await run(forward.pipeline, 4, 5, inputs);
    const h = await run(hashed.pipeline, 4, 5, inputs);
    expect(sorted(h.rows)).toEqual(sorted(f.rows));
    expect(h.result.lookupCache!.misses).toBeLessThan(f.result.lookupCache!.misses);
    expect(h.result.lookupCache!.hitRate).toBeGreaterThan(f.result.lookupCache!.hitRate);
    expect(hashed.calls.n).toBeGreaterThan(0);
  });

  it('an updating probe: the aggregate changelog passes through and the final result joins the final counts', async () => {
    const p = new Pipeline('counts');
    const table = p.lookupTable('products', { schema: { id: 'BIGINT NOT NULL', title: 'STRING', price: 'INT' }, source: { jsonl: productsFile } });
    p.source('orders', { schema: { order_id: 'INT NOT NULL', product_id: 'BIGINT', qty: 'INT' } })
      .groupBy('product_id')
      .aggregate({ n: count() })
      .lookupJoin(table, { on: { product_id: 'id' }, columns: ['title'], shuffle: true })
      .sinkTo('out');
    const graph = p.jobGraph({ parallelism: 3 });
    const sink = graph.sinks[0]!;
    const view = new MaterializedView({ columns: sink.schema.fields.map((f) => f.name), strict: true });
    const kinds = new Set<string>();
    await runEmbeddedJob(graph, {
      inputs: new Map([['orders', ordersFile]]),
      batchSize: 10,
      observers: new Map([['out', [{ write: (rows: readonly ChangeRow[]) => rows.forEach((r) => (kinds.add(r.kind), view.apply(r))) }]]]),
    });
    expect([...kinds].sort()).toEqual(['+I', '+U', '-U']);
    const counts = new Map<number, number>();
    for (const o of orders) if (o.product_id !== null) counts.set(o.product_id, (counts.get(o.product_id) ?? 0) + 1);
    const expected: Row[] = [];
    for (const [id, n] of counts) for (const prod of products.filter((x) => x.id === id)) expected.push({ product_id: id, n, title: prod.title });
    expect(sorted(view.rows())).toEqual(sorted(expected));
  });

  it('a JSON-lines table without a path must be bound by name', async () => {
    const { pipeline } = build('jsonl', 'inner', false);
    await expect(run(pipeline, 1, 100, new Map([['orders', ordersFile]]))).rejects.toThrow(new PlanError("lookup table 'products' has no file: pass --input products=<file.jsonl>"));
  });

  it('a job without lookup joins reports no lookup cache', async () => {
    const p = new Pipeline('plain');
    p.source('orders', { schema: { order_id: 'INT NOT NULL', product_id: 'BIGINT', qty: 'INT' } }).sinkTo('out');
    const { result } = await run(p, 1, 100, new Map([['orders', ordersFile]]));
    expect(result.lookupCache).toBeUndefined();
  });
});
