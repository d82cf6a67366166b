/**
 * Planning of the window nodes: Flink-style explain lines, the exchange before every keyed
 * window operator hashing exactly its state-key columns, changelog modes (insert-only unless a
 * window can fire twice), late sinks in the job graph, and serialization round trips.
 */
import { describe, expect, it } from 'vitest';
import { Pipeline, count, cumulate, hop, max, session, sum, tumble } from '../../shared/api/index.ts';
import { PlanError } from '../../shared/core/errors.ts';
import { TIMER_OPERATOR_TYPES } from '../../shared/aws/handler/stage-handler.ts';
import type { JobGraph, JobOperator } from '../../shared/plan/job-graph.ts';
import { parseJobGraph, serializeJobGraph } from '../../shared/plan/job-graph.ts';
import { formatDuration } from '../../shared/plan/window-explain.ts';

const BID = {
  auction: 'BIGINT',
  bidder: 'BIGINT',
  price: 'BIGINT',
  channel: 'VARCHAR',
  date_time: 'TIMESTAMP(3)',
} as const;

function bids(p: Pipeline) {
  return p.source('bid', { schema: BID, watermark: { column: 'date_time', outOfOrdernessMs: 4000 } });
}

function operators(graph: JobGraph): JobOperator[] {
  return graph.stages.flatMap((s) => s.operators);
}

/**
 * Every keyed window operator's stage must be fed by an exchange hashing exactly its state key
 * (or `single` when it has none): the AWS runtime loads a shard's timers by hashing that key.
 */
function expectExchangeOnStateKey(graph: JobGraph): void {
  for (const stage of graph.stages) {
    const op = stage.operators[0];
    if (!op || !['WindowAggregate', 'WindowProcess', 'WindowRank', 'WindowDeduplicate'].includes(op.type)) continue;
    const key = op.type === 'WindowAggregate' || op.type === 'WindowProcess' ? op.spec.groupBy : (op.spec as { partitionBy: readonly string[] }).partitionBy;
    expect(stage.input.type).toBe('exchange');
    const distribution = (stage.input as { distribution: unknown }).distribution;
    expect(distribution).toEqual(key.length === 0 ? { type: 'single' } : { type: 'hash', keys: key });
  }
}

describe('window planning: explain', () => {
  it('prints a HOP window aggregate and the window Top-N after it as Flink does', () => {
    const p = new Pipeline('q5');
    bids(p)
      .window(hop('date_time', '2 s', '10 s'))
      .aggregate({ num: count() }, { groupBy: ['auction'] })
      .rank({ partitionBy: ['window_start', 'window_end'], orderBy: ['num DESC'], rankType: 'RANK', range: { atMost: 1 } })
      .sinkTo('out');
    expect(p.explain()).toBe(
      [
        'Sink(table=[out], fields=[auction, num, window_start, window_end, window_time])',
        '+- WindowRank(window=[HOP(win_start=[window_start], win_end=[window_end], size=[10 s], slide=[2 s])], rankType=[RANK], rankRange=[rankStart=1, rankEnd=1], partitionBy=[], orderBy=[num DESC], select=[auction, num, window_start, window_end, window_time])',
        '   +- Exchange(distribution=[single])',
        "      +- WindowAggregate(groupBy=[auction], window=[HOP(time_col=[date_time], size=[10 s], slide=[2 s])], select=[auction, COUNT(*) AS num, start('w$) AS window_start, end('w$) AS window_end, rowtime('w$) AS window_time])",
        '         +- Exchange(distribution=[hash[auction]])',
        '            +- Calc(select=[auction, date_time])',
        '               +- Source(table=[bid], fields=[auction, bidder, price, channel, date_time], watermark=[-(date_time, 4000:INTERVAL MILLISECOND)])',
      ].join('\n'),
    );
  });

  it('prints TUMBLE, CUMULATE and SESSION windows, the window TVF, deduplication, triggers, lateness and late sinks', () => {
    const a = new Pipeline('a');
    bids(a).window(tumble('date_time', '1 min', { offset: '10 s' })).withWindowColumns().sinkTo('out');
    expect(a.explain()).toContain('WindowTableFunction(window=[TUMBLE(time_col=[date_time], size=[1 min], offset=[10 s])])');

    const b = new Pipeline('b');
    bids(b)
      .window(cumulate('date_time', '1 h', '1 d'))
      .aggregate({ total: sum('price') }, { groupBy: ['bidder'], trigger: { early: '5 s' }, allowedLateness: '1 min', lateSink: 'late_bids' })
      .sinkTo('out');
    expect(b.explain()).toContain(
      "WindowAggregate(groupBy=[bidder], window=[CUMULATE(time_col=[date_time], max_size=[1 d], step=[1 h])], trigger=[early delay 5 s], allowedLateness=[1 min], lateSink=[late_bids], select=[bidder, SUM(price) AS total, start('w$) AS window_start",
    );

    const c = new Pipeline('c');
    bids(c).window(session('date_time', 10_000, { partitionBy: ['bidder'] })).aggregate({ n: count() }).sinkTo('out');
    expect(c.explain()).toContain('window=[SESSION(time_col=[date_time], gap=[10 s], partition keys=[bidder])]');

    const d = new Pipeline('d');
    bids(d).window(tumble('date_time', '10 s')).deduplicate({ partitionBy: ['auction'], keep: 'last' }).sinkTo('out');
    expect(d.explain()).toContain(
      'WindowDeduplicate(window=[TUMBLE(win_start=[window_start], win_end=[window_end], size=[10 s])], keep=[LastRow], partitionKeys=[auction], orderKey=[date_time], order=[ROWTIME])',
    );

    const e = new Pipeline('e');
    bids(e).window(tumble('date_time', '10 s'), { timeDomain: 'processing' }).aggregate({ n: count() }, { groupBy: ['auction'] }).sinkTo('out');
    expect(e.explain()).toContain("window=[TUMBLE(time_col=[PROCTIME(date_time)], size=[10 s])], select=[auction, COUNT(*) AS n, start('w$) AS window_start, end('w$) AS window_end, proctime('w$) AS window_time]");
  });

  it('formats durations in their highest exact unit', () => {
    expect([formatDuration(250), formatDuration(1000), formatDuration(90_000), formatDuration(7_200_000), formatDuration(86_400_000), formatDuration(1500)]).toEqual([
      '250 ms',
      '1 s',
      '90 s',
      '2 h',
      '1 d',
      '1500 ms',
    ]);
  });
});

describe('window planning: exchanges on the state key', () => {
  it('hashes by the group key before a window aggregate and by the Top-N partition key before a window rank', () => {
    const p = new Pipeline('p');
    bids(p)
      .window(tumble('date_time', '10 s'))
      .aggregate({ n: count(), top: max('price') }, { groupBy: ['auction', 'bidder'] })
      .rank({ partitionBy: ['window_start', 'bidder', 'window_end'], orderBy: ['n DESC'], range: { atMost: 3 } })
      .sinkTo('out');
    const graph = p.jobGraph({ parallelism: 4 });
    expectExchangeOnStateKey(graph);
    expect(graph.stages.map((s) => s.input.type === 'exchange' && s.input.distribution)).toEqual([
      false,
      { type: 'hash', keys: ['auction', 'bidder'] },
      { type: 'hash', keys: ['bidder'] },
    ]);
    expect(operators(graph).find((o) => o.type === 'WindowRank')?.spec).toMatchObject({ partitionBy: ['bidder'], windowStartColumn: 'window_start', windowEndColumn: 'window_end' });
  });

  it('hashes a session aggregate by its whole group key, and uses single without keys', () => {
    const p = new Pipeline('p');
    bids(p).window(session('date_time', '10 s', { partitionBy: ['bidder'] })).aggregate({ n: count() }, { groupBy: ['auction', 'bidder'] }).sinkTo('out');
    const graph = p.jobGraph({ parallelism: 3 });
    expectExchangeOnStateKey(graph);
    expect(graph.stages[1]?.input).toMatchObject({ distribution: { type: 'hash', keys: ['auction', 'bidder'] } });

    const g = new Pipeline('g');
    bids(g).window(tumble('date_time', '10 s')).aggregate({ n: count() }).sinkTo('out');
    const global = g.jobGraph({ parallelism: 3 });
    expectExchangeOnStateKey(global);
    expect(global.stages[1]).toMatchObject({ parallelism: 1, input: { distribution: { type: 'single' } } });
  });

  it('chains the window table function into the source stage and hashes before the window deduplication', () => {
    const p = new Pipeline('p');
    bids(p).window(hop('date_time', '5 s', '10 s')).deduplicate({ partitionBy: ['auction', 'bidder'], keep: 'first' }).sinkTo('out');
    const graph = p.jobGraph({ parallelism: 2 });
    expectExchangeOnStateKey(graph);
    expect(graph.stages.map((s) => s.operators.map((o) => o.type))).toEqual([['WindowTableFunction'], ['WindowDeduplicate']]);
  });

  it('uses exactly the operator types whose timers the AWS runtime persists', () => {
    const p = new Pipeline('p');
    bids(p).window(tumble('date_time', '10 s')).topN(2, { orderBy: ['price DESC'] }).sinkTo('out');
    const q = new Pipeline('q');
    bids(q).window(tumble('date_time', '10 s')).process({ n: 'BIGINT' }, (_k, _w, rows) => [{ n: rows.length }], { groupBy: ['auction'] }).sinkTo('out');
    const types = [...operators(p.jobGraph()), ...operators(q.jobGraph())].map((o) => o.type);
    expect(types).toEqual(['WindowTableFunction', 'WindowRank', 'WindowProcess']);
    for (const t of ['WindowRank', 'WindowProcess']) expect(TIMER_OPERATOR_TYPES.has(t)).toBe(true);
    const r = new Pipeline('r');
    bids(r).window(tumble('date_time', '10 s')).aggregate({ n: count() }).sinkTo('out');
    const s = new Pipeline('s');
    bids(s).window(tumble('date_time', '10 s')).deduplicate({ keep: 'first' }).sinkTo('out');
    for (const op of [...operators(r.jobGraph()), ...operators(s.jobGraph())].filter((o) => o.type.startsWith('Window') && o.type !== 'WindowTableFunction')) {
      expect(TIMER_OPERATOR_TYPES.has(op.type), op.type).toBe(true);
    }
    expect(TIMER_OPERATOR_TYPES.has('WindowTableFunction')).toBe(false);
  });
});

describe('window planning: changelog modes', () => {
  it('window results are insert-only by default', () => {
    const p = new Pipeline('p');
    bids(p).window(tumble('date_time', '10 s')).aggregate({ n: count() }, { groupBy: ['auction'] }).sinkTo('out');
    expect(p.explain({ changelogMode: true })).toContain('changelogMode=[I])');
    expect(p.jobGraph().sinks[0]?.changelogMode).toEqual(['+I']);
    expect(operators(p.jobGraph())[1]?.spec).toMatchObject({ generateUpdateBefore: false });
  });

  it('lateness or early firing makes a retract changelog, or an upsert one for a sink keyed by group + window', () => {
    const retract = new Pipeline('r');
    bids(retract).window(tumble('date_time', '10 s')).aggregate({ n: count() }, { groupBy: ['auction'], allowedLateness: '5 s' }).sinkTo('out');
    expect(retract.jobGraph().sinks[0]?.changelogMode).toEqual(['+I', '-U', '+U', '-D']);
    expect(operators(retract.jobGraph())[1]?.spec).toMatchObject({ allowedLatenessMs: 5000, generateUpdateBefore: true });

    const upsert = new Pipeline('u');
    bids(upsert)
      .window(tumble('date_time', '10 s'))
      .aggregate({ n: count() }, { groupBy: ['auction'], trigger: { early: '1 s' } })
      .sinkTo('out', { upsertKey: ['auction', 'window_start', 'window_end'] });
    expect(upsert.jobGraph().sinks[0]?.changelogMode).toEqual(['+I', '+U', '-D']);
    expect(operators(upsert.jobGraph())[1]?.spec).toMatchObject({ trigger: { earlyFireIntervalMs: 1000 }, generateUpdateBefore: false });

    const purge = new Pipeline('g');
    bids(purge).window(tumble('date_time', '10 s')).aggregate({ n: count() }, { groupBy: ['auction'], trigger: { count: 10, purge: true } }).sinkTo('out');
    expect(purge.jobGraph().sinks[0]?.changelogMode).toEqual(['+I']);
  });

  it('an updating window aggregate is ranked by an unbounded Top-N, not a window Top-N', () => {
    const p = new Pipeline('p');
    bids(p)
      .window(tumble('date_time', '10 s'))
      .aggregate({ n: count() }, { groupBy: ['auction'], allowedLateness: '1 s' })
      .rank({ partitionBy: ['window_start', 'window_end'], orderBy: ['n DESC'], range: { atMost: 1 } })
      .sinkTo('out');
    expect(operators(p.jobGraph()).map((o) => o.type)).toEqual(['Calc', 'WindowAggregate', 'Rank']);
  });
});

describe('window planning: late sinks and serialization', () => {
  it('registers the late sink as a sink of the input schema and routes the operator side output to it', () => {
    const p = new Pipeline('p');
    bids(p).window(tumble('date_time', '10 s')).aggregate({ n: count() }, { groupBy: ['auction'], lateSink: 'late_bids' }).sinkTo('out');
    const graph = p.jobGraph({ parallelism: 2 });
    expect(graph.sinks.map((s) => s.name)).toEqual(['late_bids', 'out']);
    const late = graph.sinks[0]!;
    expect(late.changelogMode).toEqual(['+I']);
    expect(late.connector).toEqual({ type: 'collect' });
    expect(late.schema.fields.map((f) => f.name)).toEqual(['auction', 'date_time']);
    expect(graph.stages[1]?.sideOutputs).toEqual([{ operatorId: graph.stages[1]?.operators[0]?.id, tag: 'late', sink: 'late_bids' }]);
  });

  it('routes a window Top-N late sink from the rank, where late rows are found (the TVF never drops)', () => {
    const p = new Pipeline('p');
    bids(p).window(tumble('date_time', '10 s')).topN(1, { orderBy: ['price DESC'], lateSink: { name: 'late', connector: { type: 'blackhole' } } }).sinkTo('out');
    const graph = p.jobGraph();
    expect(graph.stages.flatMap((st) => st.sideOutputs ?? [])).toEqual([{ operatorId: 'WindowRank_3', tag: 'late', sink: 'late' }]);
    expect(graph.sinks.find((s) => s.name === 'late')?.schema.fields.map((f) => f.name)).toEqual(['auction', 'bidder', 'price', 'channel', 'date_time', 'window_start', 'window_end', 'window_time']);
  });

  it('round-trips every window operator spec through JSON', () => {
    const p = new Pipeline('p');
    bids(p)
      .window(session('date_time', '10 s', { partitionBy: ['bidder'] }))
      .aggregate({ n: count(), s: sum('price') }, { groupBy: ['bidder'], trigger: { early: 0, late: '1 s' }, allowedLateness: '1 min', lateSink: 'late' })
      .sinkTo('out');
    const q = new Pipeline('q');
    bids(q).window(cumulate('date_time', '2 s', '10 s')).topN(3, { partitionBy: ['auction'], orderBy: ['price DESC'], rankType: 'DENSE_RANK', rankNumber: 'r' }).sinkTo('out');
    for (const graph of [p.jobGraph({ parallelism: 3 }), q.jobGraph({ parallelism: 3 })]) {
      expect(parseJobGraph(serializeJobGraph(graph))).toEqual(JSON.parse(JSON.stringify(graph)));
    }
  });
});

describe('window planning: errors name the bad input', () => {
  const p = () => bids(new Pipeline('p'));
  it.each([
    ['an unreadable duration', () => tumble('date_time', '10 parsecs'), /tumble size: cannot read "10 parsecs" as a duration/],
    ['a zero size', () => p().window(tumble('date_time', 0)), /size/],
    ['a HOP size that is not a multiple of its slide', () => p().window(hop('date_time', '3 s', '10 s')), /multiple/],
    ['an unknown time column', () => p().window(tumble('ts', '10 s')), /TUMBLE time column: unknown column 'ts'/],
    ['a non-timestamp time column', () => p().window(tumble('price', '10 s')).aggregate({ n: count() }), /TIMESTAMP/],
    ['an unknown group column', () => p().window(tumble('date_time', '10 s')).aggregate({ n: count() }, { groupBy: ['nope' as never] }), /window groupBy: unknown column 'nope'/],
    [
      'a session group key without the partition column',
      () => p().window(session('date_time', '10 s', { partitionBy: ['bidder'] })).aggregate({ n: count() }, { groupBy: ['auction'] }),
      /must contain the session partition column 'bidder'/,
    ],
    ['lateness in processing time', () => p().window(tumble('date_time', '10 s'), { timeDomain: 'processing' }).aggregate({ n: count() }, { allowedLateness: '1 s' }), /needs event time/],
    ['a late sink in processing time', () => p().window(tumble('date_time', '10 s'), { timeDomain: 'processing' }).aggregate({ n: count() }, { lateSink: 'late' }), /lateSink 'late' needs event time/],
    ['a Top-N over sessions', () => p().window(session('date_time', '10 s')).topN(1, { orderBy: ['price DESC'] }), /SESSION/],
    ['a window rank with an unknown order column', () => p().window(tumble('date_time', '10 s')).topN(1, { orderBy: ['nope' as never] }), /unknown column 'nope'/],
    ['a negative lateness', () => p().window(tumble('date_time', '10 s')).aggregate({ n: count() }, { allowedLateness: -5 }), /allowedLateness must be a non-negative/],
  ])('%s', (_name, build, message) => {
    expect(build).toThrow(PlanError);
    expect(build).toThrow(message);
  });

  it('a late sink named like another sink', () => {
    const pipeline = new Pipeline('p');
    const windowed = bids(pipeline).window(tumble('date_time', '10 s')).aggregate({ n: count() }, { lateSink: 'out' });
    expect(() => windowed.sinkTo('out')).toThrow(/two sinks are named 'out'/);
    expect(() => bids(new Pipeline('r')).window(tumble('date_time', '10 s')).aggregate({ n: count() }, { lateSink: 'bad name' })).toThrow(/late sink name/);
  });

  it('a window table function over an updating stream', () => {
    const pipeline = new Pipeline('p');
    bids(pipeline)
      .groupBy('auction')
      .aggregate({ last: max('date_time') })
      .window(tumble('last', '10 s'))
      .withWindowColumns()
      .sinkTo('out');
    expect(() => pipeline.plan()).toThrow(/WindowTableFunction #\d+ needs an insert-only input, but its input emits updates/);
  });
});
