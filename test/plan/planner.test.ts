import { describe, expect, it } from 'vitest';
import { Pipeline, col, count, countDistinct, dateFormat, gt, lt, max, sum } from '../../shared/api/index.ts';
import { formatStages } from '../../shared/cli/explain-command.ts';
import { parseJobGraph, serializeJobGraph } from '../../shared/plan/job-graph.ts';

const ORDERS = { merchandiseId: 'BIGINT NOT NULL', quantity: 'INT', log_ts: 'TIMESTAMP(3)' } as const;

function seedPipeline(sinkOptions: { upsertKey?: string[] } = {}): Pipeline {
  const p = new Pipeline('seed');
  p.source('orders', { schema: ORDERS, watermark: { column: 'log_ts', outOfOrdernessMs: 5000 } })
    .groupBy('merchandiseId')
    .aggregate({ totalQuantity: sum('quantity') })
    .sinkTo('print_sink', sinkOptions);
  return p;
}

describe('Function: planPipeline / explain', () => {
  it("prints the seed example's plan with the hash exchange below the aggregate", () => {
    expect(seedPipeline().explain()).toBe(
      [
        'Sink(table=[print_sink], fields=[merchandiseId, totalQuantity])',
        '+- GroupAggregate(groupBy=[merchandiseId], select=[merchandiseId, SUM(quantity) AS totalQuantity])',
        '   +- Exchange(distribution=[hash[merchandiseId]])',
        '      +- Calc(select=[merchandiseId, quantity])',
        '         +- Source(table=[orders], fields=[merchandiseId, quantity, log_ts], watermark=[-(log_ts, 5000:INTERVAL MILLISECOND)])',
      ].join('\n'),
    );
  });

  it('infers a retract changelog for a whole-row sink and an upsert changelog for a keyed sink', () => {
    expect(seedPipeline().explain({ changelogMode: true })).toContain(
      'GroupAggregate(groupBy=[merchandiseId], select=[merchandiseId, SUM(quantity) AS totalQuantity], changelogMode=[I,UB,UA,D])',
    );
    const upsert = seedPipeline({ upsertKey: ['merchandiseId'] });
    expect(upsert.explain({ changelogMode: true })).toContain('changelogMode=[I,UA,D])');
    expect(upsert.jobGraph().stages[1]?.operators[0]).toMatchObject({ type: 'GroupAggregate', spec: { generateUpdateBefore: false } });
    expect(seedPipeline().jobGraph().stages[1]?.operators[0]).toMatchObject({ spec: { generateUpdateBefore: true } });
  });

  it('keeps update-before rows for an aggregate that feeds another aggregate', () => {
    const p = new Pipeline('two-level');
    p.source('orders', { schema: ORDERS })
      .groupBy('merchandiseId')
      .aggregate({ total: sum('quantity') })
      .groupBy('total')
      .aggregate({ products: count() })
      .sinkTo('out', { upsertKey: ['total'] });
    const ops = p.jobGraph().stages.flatMap((s) => s.operators).filter((o) => o.type === 'GroupAggregate');
    expect(ops.map((o) => (o.spec as { generateUpdateBefore: boolean }).generateUpdateBefore)).toEqual([true, false]);
  });

  it('splits the job graph into stages at exchanges, with one shard for global aggregates', () => {
    const p = new Pipeline('global');
    p.source('orders', { schema: ORDERS }).groupBy().aggregate({ n: count(), top: max('quantity') }).sinkTo('out');
    const graph = p.jobGraph({ parallelism: 4 });
    expect(formatStages(graph)).toBe(
      [
        'stage-0 (parallelism 4): source orders => Calc_2 => stage-1 via single',
        'stage-1 (parallelism 1): stage-0 via single => GroupAggregate_3 => sink out',
      ].join('\n'),
    );
    expect(p.explain()).toContain('GroupAggregate(select=[COUNT(*) AS n, MAX(quantity) AS top])');
  });

  it('projects expression arguments and FILTER predicates into $fN columns, as Flink does', () => {
    const p = new Pipeline('q15ish');
    p.source('bid', { schema: { bidder: 'BIGINT', price: 'BIGINT', date_time: 'TIMESTAMP(3)' } })
      .select({ day: dateFormat(col('date_time'), 'yyyy-MM-dd'), price: 'price', bidder: 'bidder' })
      .groupBy('day')
      .aggregate({ cheap: count(undefined, { filter: lt(col('price'), 10000) }), bidders: countDistinct('bidder', { filter: lt(col('price'), 10000) }) })
      .sinkTo('out');
    const text = p.explain();
    // The same predicate is projected once, and the two Calcs merge into one (CalcMergeRule).
    expect(text).toContain('GroupAggregate(groupBy=[day], select=[day, COUNT(*) FILTER $f1 AS cheap, COUNT(DISTINCT bidder) FILTER $f1 AS bidders])');
    expect(text).toContain("Calc(select=[DATE_FORMAT(date_time, 'yyyy-MM-dd') AS day, <(price, 10000) AS $f1, bidder])");
    expect(text.match(/Calc\(/g)).toHaveLength(1);
  });

  it('gives each keyed operator its own exchange, as Flink streaming plans do', () => {
    const p = new Pipeline('rehash');
    p.source('orders', { schema: ORDERS })
      .groupBy('merchandiseId')
      .aggregate({ total: sum('quantity') })
      .select({ merchandiseId: 'merchandiseId', total: 'total' })
      .groupBy('merchandiseId')
      .aggregate({ n: count() })
      .sinkTo('out');
    expect(p.explain().match(/Exchange\(distribution=\[hash\[merchandiseId\]\]\)/g)).toHaveLength(2);
  });

  it('copies a stream consumed twice for its second consumer: the source is read once per branch', () => {
    const p = new Pipeline('fanout');
    const s = p.source('orders', { schema: ORDERS }).filter(gt(col('quantity'), 1));
    s.sinkTo('a');
    s.sinkTo('b');
    const graph = p.jobGraph({ parallelism: 2 });
    expect(graph.sources.map((x) => x.name)).toEqual(['orders']);
    expect(graph.stages.map((st) => [st.input, st.operators.map((o) => o.type), st.output])).toEqual([
      [{ type: 'source', source: 'orders' }, ['Calc'], { type: 'sink', sink: 'a' }],
      [{ type: 'source', source: 'orders' }, ['Calc'], { type: 'sink', sink: 'b' }],
    ]);
    // The copy has its own operator ids, so its state is its own.
    expect(new Set(graph.stages.map((st) => st.operators[0]?.id)).size).toBe(2);
  });

  it('rejects a pipeline without sinks and unknown columns, naming them', () => {
    expect(() => new Pipeline('empty').plan()).toThrow(/pipeline 'empty' has no sink/);
    expect(() => new Pipeline('x').source('orders', { schema: ORDERS }).groupBy('nope' as never)).toThrow(
      /groupBy: unknown column 'nope' \(available: merchandiseId, quantity, log_ts\)/,
    );
    expect(() => new Pipeline('bad name!')).toThrow(/pipeline name must start with a letter/);
  });

  it('round-trips the job graph through JSON, including DECIMAL literals', () => {
    const p = new Pipeline('decimals');
    p.source('t', { schema: { amount: 'DECIMAL(10, 2)' } })
      .filter(lt(col('amount'), { kind: 'literal', value: 1050n, type: { root: 'DECIMAL', nullable: false, precision: 4, scale: 2 } }))
      .sinkTo('out');
    const graph = p.jobGraph({ parallelism: 2 });
    expect(parseJobGraph(serializeJobGraph(graph))).toEqual(graph);
    expect(() => parseJobGraph('{"version": 9}')).toThrow(/job graph version must be 1 \(given 9\)/);
  });
});
