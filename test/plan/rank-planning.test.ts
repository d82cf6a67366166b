import { describe, expect, it } from 'vitest';
import { Pipeline, count, max, min, sum } from '../../shared/api/index.ts';

const ORDERS = { merchandiseId: 'BIGINT NOT NULL', quantity: 'INT', log_ts: 'TIMESTAMP(3)' } as const;

function orders(p: Pipeline) {
  return p.source('orders', { schema: ORDERS, watermark: { column: 'log_ts', outOfOrdernessMs: 5000 } });
}

describe('Rank planning (RankProcessStrategy)', () => {
  it("plans the seed article's query with RetractStrategy above a hash exchange", () => {
    const p = new Pipeline('seed');
    orders(p)
      .groupBy('merchandiseId')
      .aggregate({ totalQuantity: sum('quantity') })
      .rank({ partitionBy: ['merchandiseId'], orderBy: ['totalQuantity DESC'], range: { atMost: 10 }, rankNumber: 'rownum' })
      .sinkTo('out');
    const lines = p.explain().split('\n');
    expect(lines[1]).toBe(
      '+- Rank(strategy=[RetractStrategy], rankType=[ROW_NUMBER], rankRange=[rankStart=1, rankEnd=10], partitionBy=[merchandiseId], orderBy=[totalQuantity DESC], select=[merchandiseId, totalQuantity, rownum])',
    );
    // As in the article's EXPLAIN: the Rank sits directly above its own hash exchange.
    expect(lines[2]).toBe('   +- Exchange(distribution=[hash[merchandiseId]])');
    expect(lines[3]).toMatch(/^ {6}\+- GroupAggregate\(groupBy=\[merchandiseId\]/);
  });

  it('picks UpdateFastStrategy for a global Top-N over COUNT ordered DESC, and the aggregate drops -U', () => {
    const p = new Pipeline('count-top');
    orders(p)
      .groupBy('merchandiseId')
      .aggregate({ cnt: count() })
      .topN(10, { orderBy: ['cnt DESC'] })
      .sinkTo('out');
    const text = p.explain({ changelogMode: true });
    expect(text).toContain('Rank(strategy=[UpdateFastStrategy[merchandiseId]], rankType=[ROW_NUMBER], rankRange=[rankStart=1, rankEnd=10], partitionBy=[], orderBy=[cnt DESC]');
    expect(text).toContain('Exchange(distribution=[single]');
    // UpdateFast consumes an upsert stream: the GroupAggregate needs no update-before rows.
    expect(text).toMatch(/GroupAggregate\(.*changelogMode=\[I,UA,D\]\)/);
    const graph = p.jobGraph({ parallelism: 4 });
    expect(graph.stages.map((s) => s.parallelism)).toEqual([4, 4, 1]);
    expect(graph.stages[2]?.operators[0]).toMatchObject({ type: 'Rank', spec: { strategy: 'UpdateFast', upsertKey: ['merchandiseId'], generateUpdateBefore: true } });
  });

  it('falls back to Retract when the order does not follow the monotonicity (COUNT ASC, MIN DESC, SUM)', () => {
    const strategyOf = (build: (p: Pipeline) => void): string => {
      const p = new Pipeline('x');
      build(p);
      return /strategy=\[(\w+)/.exec(p.explain())?.[1] ?? '';
    };
    const agg = (p: Pipeline) => orders(p).groupBy('merchandiseId').aggregate({ c: count(), lo: min('quantity'), hi: max('quantity'), s: sum('quantity') });
    expect(strategyOf((p) => agg(p).topN(3, { orderBy: ['c ASC'] }).sinkTo('o'))).toBe('RetractStrategy');
    expect(strategyOf((p) => agg(p).topN(3, { orderBy: ['lo DESC'] }).sinkTo('o'))).toBe('RetractStrategy');
    expect(strategyOf((p) => agg(p).topN(3, { orderBy: ['lo ASC'] }).sinkTo('o'))).toBe('UpdateFastStrategy');
    expect(strategyOf((p) => agg(p).topN(3, { orderBy: ['hi DESC', 'c DESC'] }).sinkTo('o'))).toBe('UpdateFastStrategy');
    expect(strategyOf((p) => agg(p).topN(3, { orderBy: ['s DESC'] }).sinkTo('o'))).toBe('RetractStrategy');
    // Partition key not contained in the input's upsert key: Retract.
    expect(strategyOf((p) => agg(p).topN(3, { partitionBy: ['c'], orderBy: ['hi DESC'] }).sinkTo('o'))).toBe('RetractStrategy');
  });

  it('uses AppendFast for insert-only input and partitions by the partition key', () => {
    const p = new Pipeline('append');
    orders(p).topN(3, { partitionBy: ['merchandiseId'], orderBy: ['quantity DESC'], rankNumber: 'rn', rankType: 'DENSE_RANK' }).sinkTo('out');
    expect(p.explain()).toBe(
      [
        'Sink(table=[out], fields=[merchandiseId, quantity, log_ts, rn])',
        '+- Rank(strategy=[AppendFastStrategy], rankType=[DENSE_RANK], rankRange=[rankStart=1, rankEnd=3], partitionBy=[merchandiseId], orderBy=[quantity DESC], select=[merchandiseId, quantity, log_ts, rn])',
        '   +- Exchange(distribution=[hash[merchandiseId]])',
        '      +- Source(table=[orders], fields=[merchandiseId, quantity, log_ts], watermark=[-(log_ts, 5000:INTERVAL MILLISECOND)])',
      ].join('\n'),
    );
  });

  it('plans deduplication as Deduplicate on insert-only input, and as a Rank on an update stream', () => {
    const p = new Pipeline('dedup');
    orders(p).deduplicate({ keys: ['merchandiseId'], keep: 'last', orderBy: 'log_ts' }).sinkTo('out');
    expect(p.explain()).toContain('Deduplicate(keep=[LastRow], key=[merchandiseId], order=[ROWTIME(log_ts)])');
    const q = new Pipeline('dedup-updates');
    orders(q)
      .groupBy('merchandiseId', 'log_ts')
      .aggregate({ n: count() })
      .deduplicate({ keys: ['merchandiseId'], keep: 'first' })
      .sinkTo('out');
    expect(() => q.plan()).toThrow(/keeps the first row by processing time, which needs an insert-only input/);
  });

  it('validates rank options with messages that name the bad value', () => {
    const s = orders(new Pipeline('v'));
    expect(() => s.rank({ orderBy: ['quantity'], range: { atMost: 0 } })).toThrow(/atMost must be a positive integer \(given 0\)/);
    expect(() => s.rank({ orderBy: ['quantity'], range: { between: [5, 2] } })).toThrow(/BETWEEN 5 AND 2 is empty/);
    expect(() => s.rank({ orderBy: ['quantity'], range: { lessThan: 1 } })).toThrow(/keeps no rank/);
    expect(() => s.rank({ orderBy: ['nope DESC' as never], range: { atMost: 3 } })).toThrow(/unknown column 'nope'/);
    expect(() => s.rank({ orderBy: [], range: { atMost: 3 } })).toThrow(/at least one orderBy/);
    expect(() => s.rank({ orderBy: ['quantity'], range: {} as never })).toThrow(/an unbounded rank is not supported/);
    expect(() => s.deduplicate({ keys: ['merchandiseId'], keep: 'last', orderBy: 'quantity' })).toThrow(/must be an event-time \(rowtime\) column/);
  });
});
