/**
 * Planning of the time-ordered operators: the SESSION table function on its own (hashed by its
 * partition keys, the input's changelog passed on, its own job-graph operator whose timers the
 * AWS runtime persists, a late sink), the temporal sort (one shard, insert-only input) and the
 * Limit (one shard; Flink's strategies: AppendFast over insert-only input, Retract otherwise),
 * as explain and the job graph show them.
 */
import { describe, expect, it } from 'vitest';
import { Pipeline, max, session, tumble } from '../../shared/api/index.ts';
import { TIMER_OPERATOR_TYPES } from '../../shared/aws/handler/stage-handler.ts';
import type { JobOperator } from '../../shared/plan/job-graph.ts';
import { parseJobGraph, serializeJobGraph } from '../../shared/plan/job-graph.ts';

const BID = { auction: 'BIGINT', bidder: 'BIGINT', price: 'BIGINT', date_time: 'TIMESTAMP(3)' } as const;
const bids = (p: Pipeline) => p.source('bid', { schema: BID, watermark: { column: 'date_time', outOfOrdernessMs: 4000 } });
const operators = (p: Pipeline, parallelism = 4): JobOperator[] => p.jobGraph({ parallelism }).stages.flatMap((s) => s.operators);

describe('the SESSION table function on its own', () => {
  it('is hashed by its partition keys and runs as UnalignedWindowTableFunction, whose timers persist on AWS', () => {
    const p = new Pipeline('p');
    bids(p).window(session('date_time', '10 s', { partitionBy: ['bidder'] })).withWindowColumns({ lateSink: 'late_bids' }).sinkTo('out');
    expect(p.explain()).toBe(
      [
        'Sink(table=[out], fields=[auction, bidder, price, date_time, window_start, window_end, window_time])',
        '+- WindowTableFunction(window=[SESSION(time_col=[date_time], gap=[10 s], partition keys=[bidder])], lateSink=[late_bids])',
        '   +- Exchange(distribution=[hash[bidder]])',
        '      +- Source(table=[bid], fields=[auction, bidder, price, date_time], watermark=[-(date_time, 4000:INTERVAL MILLISECOND)])',
      ].join('\n'),
    );
    const graph = p.jobGraph({ parallelism: 2 });
    const stage = graph.stages.find((s) => s.operators.some((o) => o.type === 'UnalignedWindowTableFunction'))!;
    expect(stage.input).toMatchObject({ type: 'exchange', distribution: { type: 'hash', keys: ['bidder'] } });
    expect(stage.sideOutputs).toEqual([{ operatorId: stage.operators[0]!.id, tag: 'late', sink: 'late_bids' }]);
    expect(TIMER_OPERATOR_TYPES.has('UnalignedWindowTableFunction')).toBe(true);
    expect(parseJobGraph(serializeJobGraph(graph))).toEqual(graph);
  });

  it('passes an updating input on (each row with its kind) and asks it for -U rows', () => {
    const p = new Pipeline('p');
    bids(p).groupBy('auction').aggregate({ last: max('date_time') }).window(session('last', '10 s')).withWindowColumns().sinkTo('out', { upsertKey: ['auction'] });
    expect(p.explain({ changelogMode: true })).toContain('WindowTableFunction(window=[SESSION(time_col=[last], gap=[10 s])], changelogMode=[I,UB,UA,D])');
    expect(p.explain({ changelogMode: true })).toContain('GroupAggregate(groupBy=[auction], select=[auction, MAX(date_time) AS last], changelogMode=[I,UB,UA,D])');
  });

  it('runs in processing time too, as aligned windows alone do; only SESSION has a late sink', () => {
    const p = new Pipeline('p');
    bids(p).window(session('date_time', '10 s'), { timeDomain: 'processing' }).withWindowColumns().sinkTo('out');
    expect(p.explain()).toContain('WindowTableFunction(window=[SESSION(time_col=[PROCTIME(date_time)], gap=[10 s])])');
    expect(operators(p).find((o) => o.type === 'UnalignedWindowTableFunction')?.spec).toMatchObject({ timeDomain: 'processing' });
    expect(() => bids(new Pipeline('q')).window(session('date_time', '10 s'), { timeDomain: 'processing' }).withWindowColumns({ lateSink: 'l' })).toThrow(/needs event time/);
    expect(() => bids(new Pipeline('q')).window(tumble('date_time', '10 s')).withWindowColumns({ lateSink: 'l' })).toThrow(/no late rows of their own/);
    expect(() => bids(new Pipeline('q')).window(session('date_time', '10 s')).join(bids(new Pipeline('q')).window(session('date_time', '10 s')), { on: 'auction' })).toThrow(
      /window join directly after a SESSION window table function is not supported, as in Flink \(window-join "Limitation"/,
    );
    const aligned = new Pipeline('a');
    bids(aligned).window(tumble('date_time', '10 s'), { timeDomain: 'processing' }).withWindowColumns().sinkTo('out');
    expect(aligned.explain()).toContain('WindowTableFunction(window=[TUMBLE(time_col=[PROCTIME(date_time)], size=[10 s])])');
    const tvf = aligned.jobGraph({ parallelism: 2 }).stages.flatMap((s) => s.operators).find((o) => o.type === 'WindowTableFunction');
    expect(tvf?.spec).toMatchObject({ timeDomain: 'processing' });
    // A window Top-N over processing-time windows fires on the processing-time clock.
    const ranked = new Pipeline('r');
    bids(ranked).window(tumble('date_time', '10 s'), { timeDomain: 'processing' }).topN(3, { orderBy: ['price DESC'] }).sinkTo('out');
    const rank = ranked.jobGraph({ parallelism: 2 }).stages.flatMap((s) => s.operators).find((o) => o.type === 'WindowRank');
    expect(rank?.spec).toMatchObject({ timeDomain: 'processing' });
    expect(() => bids(new Pipeline('d')).window(tumble('date_time', '10 s'), { timeDomain: 'processing' }).deduplicate({ keep: 'first' })).toThrow(
      /window deduplication: processing-time windows are supported by aggregate\(\), process\(\), rank\(\) and withWindowColumns\(\) only/,
    );
  });
});

describe('the temporal sort', () => {
  it('runs on one shard over an insert-only input, and keeps the rowtime attribute', () => {
    const p = new Pipeline('p');
    const sorted = bids(p).sortByTime({ orderBy: ['date_time', 'price DESC'], lateSink: 'late' });
    expect(sorted.schema).toEqual(bids(new Pipeline('q')).schema);
    sorted.sinkTo('out');
    expect(p.explain()).toBe(
      [
        'Sink(table=[out], fields=[auction, bidder, price, date_time])',
        '+- TemporalSort(orderBy=[date_time ASC, price DESC])',
        '   +- Exchange(distribution=[single])',
        '      +- Source(table=[bid], fields=[auction, bidder, price, date_time], watermark=[-(date_time, 4000:INTERVAL MILLISECOND)])',
      ].join('\n'),
    );
    const graph = p.jobGraph({ parallelism: 4 });
    const stage = graph.stages.find((s) => s.operators[0]?.type === 'TemporalSort')!;
    expect(stage.parallelism).toBe(1);
    expect(stage.operators[0]!.spec).toEqual({ timeDomain: 'event', timeColumn: 'date_time', orderBy: [{ column: 'price', direction: 'DESC', nullsFirst: false }] });
    expect(stage.sideOutputs).toEqual([{ operatorId: stage.operators[0]!.id, tag: 'late', sink: 'late' }]);
    expect(TIMER_OPERATOR_TYPES.has('TemporalSort')).toBe(true);
  });

  it("rejects what Flink rejects: a first key that is not the rowtime ascending, an updating input", () => {
    expect(() => bids(new Pipeline('p')).sortByTime({ orderBy: ['price'] })).toThrow(/Sort on a non-time-attribute field is not supported/);
    expect(() => bids(new Pipeline('p')).sortByTime({ orderBy: ['date_time DESC'] })).toThrow(/Sort on a non-time-attribute field is not supported/);
    const p = new Pipeline('p');
    bids(p).groupBy('auction').aggregate({ date_time: max('date_time') }).sortByTime({ orderBy: [], timeDomain: 'processing' }).sinkTo('out');
    expect(() => p.plan()).toThrow(/TemporalSort #\d+ doesn't support consuming update and delete changes/);
  });
});

describe('the Limit', () => {
  it('prints as Flink prints it and picks AppendFast over an insert-only input, Retract over an updating one', () => {
    const p = new Pipeline('p');
    bids(p).limit(3, { offset: 2 }).sinkTo('out');
    expect(p.explain()).toContain('Limit(offset=[2], fetch=[3])\n   +- Exchange(distribution=[single])');
    expect(operators(p).find((o) => o.type === 'Rank')?.spec).toMatchObject({ strategy: 'AppendFast', partitionBy: [], orderBy: [], rankRange: { type: 'constant', start: 3, end: 5 } });
    const q = new Pipeline('q');
    bids(q).groupBy('auction').aggregate({ last: max('date_time') }).limit(2).sinkTo('out');
    expect(operators(q).find((o) => o.type === 'Rank')?.spec).toMatchObject({ strategy: 'Retract', orderBy: [] });
    expect(() => bids(new Pipeline('r')).limit(0)).toThrow(/fetch must be a positive integer/);
  });
});
