/**
 * The join API end to end: `stream.join`, `intervalJoin`, `temporalJoin` and window `join` build
 * the nodes Flink's planner would (a windowed equi-join becomes a WindowJoin, time bounds an
 * IntervalJoin), plan an Exchange of each side by its keys into a two-input stage, and run in the
 * embedded runtime with the same results at every parallelism as a plain recomputation.
 */
import { describe, expect, it } from 'vitest';
import { Pipeline, col, count, le, tumble } from '../../shared/api/index.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import type { Row } from '../../shared/core/types.ts';
import { interval, sub, ge, and, mul } from '../../shared/plan/expr-build.ts';
import { runEmbeddedJob } from '../../shared/runtime/embedded/embedded-runtime.ts';
import { MaterializedView } from '../../shared/runtime/materialized-view.ts';
import { formatRow } from '../harness/index.ts';

/** Runs a pipeline embedded and returns the final rows of its sink (canonical, sorted). */
async function finalRows(p: Pipeline, parallelism: number): Promise<string[]> {
  const graph = p.jobGraph({ parallelism });
  const sink = graph.sinks[0]!;
  const view = new MaterializedView({ ...(sink.upsertKey ? { key: sink.upsertKey } : {}), columns: sink.schema.fields.map((f) => f.name), strict: true });
  await runEmbeddedJob(graph, {
    code: { functions: p.userFunctions, generators: p.generators },
    observers: new Map([[sink.name, [{ write: (rows: readonly ChangeRow[]) => rows.forEach((r) => view.apply(r)) }]]]),
    batchSize: 7,
  });
  return view.rows().map(formatRow).sort();
}

const canon = (rows: readonly Row[]): string[] => rows.map(formatRow).sort();

// Deterministic test data: orders and customers, with keys shared and missing on both sides.
const orders: Row[] = Array.from({ length: 60 }, (_, i) => ({ oid: i, cid: i % 7 === 6 ? null : i % 9, amount: (i * 37) % 100, ts: 1000 * i }));
const customers: Row[] = Array.from({ length: 8 }, (_, i) => ({ id: i + 3, name: `c${i + 3}`, ts: 1000 * (i * 7) }));

function sources(p: Pipeline) {
  const o = p.source('orders', {
    schema: { oid: 'INT NOT NULL', cid: 'INT', amount: 'INT', ts: 'TIMESTAMP(3)' },
    watermark: { column: 'ts', outOfOrdernessMs: 0 },
    generator: () => orders,
  });
  const c = p.source('customers', {
    schema: { id: 'INT NOT NULL', name: 'STRING', ts: 'TIMESTAMP(3)' },
    watermark: { column: 'ts', outOfOrdernessMs: 0 },
    generator: () => customers,
  });
  return { o, c };
}

const joined = (o: Row | null, c: Row | null): Row => ({ oid: o?.oid ?? null, cid: o?.cid ?? null, amount: o?.amount ?? null, ts: o?.ts ?? null, id: c?.id ?? null, name: c?.name ?? null, ts0: c?.ts ?? null });

describe('stream.join (regular join)', () => {
  for (const type of ['inner', 'left', 'right', 'full'] as const) {
    it(`${type}: the same result at parallelism 1 and 3, equal to a recomputation`, async () => {
      const build = (): Pipeline => {
        const p = new Pipeline(`j-${type}`);
        const { o, c } = sources(p);
        o.join(c, { on: { cid: 'id' }, type, where: le(col('amount'), 80) }).sinkTo('out');
        return p;
      };
      const match = (o: Row, c: Row): boolean => o.cid !== null && o.cid === c.id && (o.amount as number) <= 80;
      const expected: Row[] = [];
      for (const o of orders) {
        const found = customers.filter((c) => match(o, c));
        for (const c of found) expected.push(joined(o, c));
        if (found.length === 0 && (type === 'left' || type === 'full')) expected.push(joined(o, null));
      }
      if (type === 'right' || type === 'full') for (const c of customers) if (!orders.some((o) => match(o, c))) expected.push(joined(null, c));
      expect(await finalRows(build(), 1)).toEqual(canon(expected));
      expect(await finalRows(build(), 3)).toEqual(canon(expected));
    });
  }

  it('plans an Exchange of each side by its keys into a two-input stage, as Flink prints it', () => {
    const p = new Pipeline('plan');
    const { o, c } = sources(p);
    o.join(c, { on: { cid: 'id' } }).sinkTo('out');
    expect(p.explain()).toBe(
      [
        'Sink(table=[out], fields=[oid, cid, amount, ts, id, name, ts0])',
        '+- Join(joinType=[InnerJoin], where=[=(cid, id)], select=[oid, cid, amount, ts, id, name, ts0], leftInputSpec=[NoUniqueKey], rightInputSpec=[NoUniqueKey])',
        '   :- Exchange(distribution=[hash[cid]])',
        '   :  +- Source(table=[orders], fields=[oid, cid, amount, ts], watermark=[-(ts, 0:INTERVAL MILLISECOND)])',
        '   +- Exchange(distribution=[hash[id]])',
        '      +- Source(table=[customers], fields=[id, name, ts], watermark=[-(ts, 0:INTERVAL MILLISECOND)])',
      ].join('\n'),
    );
    const graph = p.jobGraph({ parallelism: 2 });
    expect(graph.stages.map((s) => [s.id, s.input.type, s.operators.map((x) => x.type), s.output])).toEqual([
      ['stage-0', 'source', [], { type: 'exchange', toStage: 'stage-2', distribution: { type: 'hash', keys: ['cid'] } }],
      ['stage-1', 'source', [], { type: 'exchange', toStage: 'stage-2', distribution: { type: 'hash', keys: ['id'] } }],
      ['stage-2', 'twoInput', ['Join'], { type: 'sink', sink: 'out' }],
    ]);
  });

  it('picks the state views from the inputs\' unique keys (an aggregate by the join key)', () => {
    const p = new Pipeline('views');
    const { o, c } = sources(p);
    o.groupBy('cid').aggregate({ n: count() }).join(c, { on: { cid: 'id' } }).sinkTo('out');
    expect(p.explain()).toContain('leftInputSpec=[JoinKeyContainsUniqueKey], rightInputSpec=[NoUniqueKey]');
  });
});

describe("stream.join type 'semi' / 'anti' (regular semi and anti joins)", () => {
  for (const type of ['semi', 'anti'] as const) {
    it(`${type}: this stream's rows with ${type === 'semi' ? 'a' : 'no'} match, the same at parallelism 1 and 3`, async () => {
      const build = (): Pipeline => {
        const p = new Pipeline(`j-${type}`);
        const { o, c } = sources(p);
        o.join(c, { on: { cid: 'id' }, type, where: le(col('amount'), mul(col('id'), 10)) }).sinkTo('out');
        return p;
      };
      const match = (o: Row, c: Row): boolean => o.cid !== null && o.cid === c.id && (o.amount as number) <= (c.id as number) * 10;
      const expected = orders.filter((o) => customers.some((c) => match(o, c)) === (type === 'semi'));
      expect(expected.length).toBeGreaterThan(3);
      expect(await finalRows(build(), 1)).toEqual(canon(expected));
      expect(await finalRows(build(), 3)).toEqual(canon(expected));
    });
  }

  it("plans a Join of type LeftSemiJoin over an Exchange of each side, as Flink prints it; its changelog is the union of the inputs' kinds", () => {
    const p = new Pipeline('semi-plan');
    const { o, c } = sources(p);
    o.join(c.groupBy('id').aggregate({ n: count() }), { on: { cid: 'id' }, type: 'semi' }).sinkTo('out');
    expect(p.explain()).toBe(
      [
        'Sink(table=[out], fields=[oid, cid, amount, ts])',
        '+- Join(joinType=[LeftSemiJoin], where=[=(cid, id)], select=[oid, cid, amount, ts], leftInputSpec=[NoUniqueKey], rightInputSpec=[JoinKeyContainsUniqueKey])',
        '   :- Exchange(distribution=[hash[cid]])',
        '   :  +- Source(table=[orders], fields=[oid, cid, amount, ts], watermark=[-(ts, 0:INTERVAL MILLISECOND)])',
        '   +- Exchange(distribution=[hash[id]])',
        '      +- GroupAggregate(groupBy=[id], select=[id, COUNT(*) AS n])',
        '         +- Exchange(distribution=[hash[id]])',
        '            +- Calc(select=[id])',
        '               +- Source(table=[customers], fields=[id, name, ts], watermark=[-(ts, 0:INTERVAL MILLISECOND)])',
      ].join('\n'),
    );
    expect(p.explain({ changelogMode: true })).toContain('Join(joinType=[LeftSemiJoin], where=[=(cid, id)], select=[oid, cid, amount, ts], leftInputSpec=[NoUniqueKey], rightInputSpec=[JoinKeyContainsUniqueKey], changelogMode=[I,UB,UA,D])');
    // Time bounds in a semi join's condition stay a condition: no interval join.
    const bounded = new Pipeline('semi-bounded');
    const b = sources(bounded);
    b.o.join(b.c, { on: { cid: 'id' }, type: 'anti', where: and(ge(col('ts'), sub(col('ts0'), interval(5000, 'SECOND'))), le(col('ts'), col('ts0'))) }).sinkTo('out');
    expect(bounded.explain()).toContain('Join(joinType=[LeftAntiJoin], where=[AND(=(cid, id), >=(ts, -(ts0, 5000:INTERVAL SECOND)), <=(ts, ts0))]');
    expect(() => b.o.intervalJoin(b.c, { on: { cid: 'id' }, between: [0, 1], type: 'semi' as never })).toThrow("intervalJoin type must be 'inner', 'left', 'right' or 'full' (given \"semi\")");
  });
});

describe('stream.intervalJoin and time-bounded joins', () => {
  it('joins rows within the bounds in event time, the same as a where with BETWEEN-style bounds', async () => {
    const bounds = (o: Row, c: Row): boolean => (c.ts as number) - 5000 <= (o.ts as number) && (o.ts as number) <= (c.ts as number) + 2000;
    const expected = canon(orders.flatMap((o) => customers.filter((c) => o.cid !== null && o.cid === c.id && bounds(o, c)).map((c) => joined(o, c))));
    const explicit = new Pipeline('ij');
    const a = sources(explicit);
    a.o.intervalJoin(a.c, { on: { cid: 'id' }, between: ['-5 s', '2 s'] }).sinkTo('out');
    expect(explicit.explain()).toContain('IntervalJoin(joinType=[InnerJoin], windowBounds=[isRowTime=true, leftLowerBound=-5000, leftUpperBound=2000, leftTimeIndex=3, rightTimeIndex=2]');
    const inferred = new Pipeline('ij2');
    const b = sources(inferred);
    b.o.join(b.c, { on: { cid: 'id' }, where: and(ge(col('ts'), sub(col('ts0'), interval(5000, 'SECOND'))), le(col('ts'), { kind: 'call', fn: '+', args: [col('ts0'), interval(2000, 'SECOND')] })) }).sinkTo('out');
    expect(inferred.explain()).toContain('IntervalJoin(joinType=[InnerJoin], windowBounds=[isRowTime=true, leftLowerBound=-5000, leftUpperBound=2000');
    expect(await finalRows(explicit, 1)).toEqual(expected);
    expect(await finalRows(explicit, 3)).toEqual(expected);
    expect(await finalRows(inferred, 2)).toEqual(expected);
  });

  it('rejects an updating input with a hint', () => {
    const p = new Pipeline('bad');
    const { o, c } = sources(p);
    o.groupBy('cid').aggregate({ n: count() }).intervalJoin(c, { on: { cid: 'id' }, between: [0, 1], timeDomain: 'processing' }).sinkTo('out');
    expect(() => p.plan()).toThrow(/IntervalJoin #\d+ doesn't support consuming update and delete changes, but its left input emits/);
  });
});

describe('stream.temporalJoin', () => {
  it("joins each row with the version valid at its time; the versioned side needs a primary key", async () => {
    const p = new Pipeline('tj');
    const rates = p.source('rates', {
      schema: { cur: 'STRING NOT NULL', rate: 'INT', t: 'TIMESTAMP(3)' },
      watermark: { column: 't', outOfOrdernessMs: 0 },
      primaryKey: ['cur'],
      generator: () => [
        { cur: 'EUR', rate: 114, t: 0 },
        { cur: 'USD', rate: 1, t: 0 },
        { cur: 'EUR', rate: 119, t: 5000 },
      ],
    });
    const buys = p.source('buys', {
      schema: { n: 'INT NOT NULL', cur: 'STRING', t: 'TIMESTAMP(3)' },
      watermark: { column: 't', outOfOrdernessMs: 0 },
      generator: () => [
        { n: 1, cur: 'EUR', t: 1000 },
        { n: 2, cur: 'USD', t: 2000 },
        { n: 3, cur: 'EUR', t: 6000 },
        { n: 4, cur: 'GBP', t: 7000 },
      ],
    });
    buys.temporalJoin(rates, { on: 'cur', type: 'left' }).sinkTo('out');
    expect(p.explain()).toContain('TemporalJoin(joinType=[LeftOuterJoin], where=[AND(=(cur, cur0), __TEMPORAL_JOIN_CONDITION(t, t0, __TEMPORAL_JOIN_CONDITION_PRIMARY_KEY(cur0), __TEMPORAL_JOIN_LEFT_KEY(cur), __TEMPORAL_JOIN_RIGHT_KEY(cur0)))]');
    expect(await finalRows(p, 2)).toEqual(
      canon([
        { n: 1, cur: 'EUR', t: 1000, cur0: 'EUR', rate: 114, t0: 0 },
        { n: 2, cur: 'USD', t: 2000, cur0: 'USD', rate: 1, t0: 0 },
        { n: 3, cur: 'EUR', t: 6000, cur0: 'EUR', rate: 119, t0: 5000 },
        { n: 4, cur: 'GBP', t: 7000, cur0: null, rate: null, t0: null },
      ]),
    );
    const noKey = new Pipeline('tj2');
    const { o, c } = sources(noKey);
    o.temporalJoin(c, { on: { cid: 'id' } }).sinkTo('out');
    expect(() => noKey.plan()).toThrow(/the versioned table needs a primary key contained in the join key \[id\] \(it has none/);
  });
});

describe('windowed join', () => {
  it('joins the rows of equal windows and keys when the window ends (INNER and ANTI)', async () => {
    const build = (type: 'inner' | 'anti'): Pipeline => {
      const p = new Pipeline(`wj-${type}`);
      const { o, c } = sources(p);
      o.window(tumble('ts', '10 s')).join(c.window(tumble('ts', '10 s')), { on: { cid: 'id' }, type }).sinkTo('out');
      return p;
    };
    const w = (t: unknown): number => Math.floor((t as number) / 10_000) * 10_000;
    const inner = orders.flatMap((o) =>
      customers
        .filter((c) => o.cid !== null && o.cid === c.id && w(o.ts) === w(c.ts))
        .map((c) => ({ ...o, window_start: w(o.ts), window_end: w(o.ts) + 10_000, window_time: w(o.ts) + 9999, id: c.id ?? null, name: c.name ?? null, ts0: c.ts ?? null, window_start0: w(c.ts), window_end0: w(c.ts) + 10_000, window_time0: w(c.ts) + 9999 })),
    );
    const anti = orders
      .filter((o) => !customers.some((c) => o.cid !== null && o.cid === c.id && w(o.ts) === w(c.ts)))
      .map((o) => ({ ...o, window_start: w(o.ts), window_end: w(o.ts) + 10_000, window_time: w(o.ts) + 9999 }));
    expect(build('inner').explain()).toContain('WindowJoin(leftWindow=[TUMBLE(win_start=[window_start], win_end=[window_end], size=[10 s])]');
    expect(await finalRows(build('inner'), 1)).toEqual(canon(inner));
    expect(await finalRows(build('inner'), 4)).toEqual(canon(inner));
    expect(await finalRows(build('anti'), 3)).toEqual(canon(anti));
  });
});
