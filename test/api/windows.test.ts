/**
 * The window API: durations, the assigner builders (Flink's TVF argument order), the windowed
 * stream's result schemas, and the rule that ranks windowed rows by window with a window Top-N.
 */
import { describe, expect, it } from 'vitest';
import { Pipeline, count, cumulate, hop, max, parseDuration, session, tumble } from '../../shared/api/index.ts';
import { PlanError } from '../../shared/core/errors.ts';

const BID = { auction: 'BIGINT NOT NULL', bidder: 'BIGINT', price: 'BIGINT', date_time: 'TIMESTAMP(3)' } as const;

function bids(name = 'p') {
  const p = new Pipeline(name);
  return { p, bid: p.source('bid', { schema: BID, watermark: { column: 'date_time', outOfOrdernessMs: 0 } }) };
}

describe('parseDuration', () => {
  it.each([
    [250, 250],
    ['250 ms', 250],
    ['10 s', 10_000],
    ['10s', 10_000],
    ['2 min', 120_000],
    ['2 minutes', 120_000],
    ['1 h', 3_600_000],
    ['1 d', 86_400_000],
    ['1.5 s', 1500],
    ['0', 0],
  ])('%j is %i ms', (input, ms) => {
    expect(parseDuration(input, 'x')).toBe(ms);
  });

  it.each([['ten seconds'], ['10 parsecs'], ['-1 s'], [-1], [1.5], ['0.5 ms'], ['']])('rejects %j naming the argument', (input) => {
    expect(() => parseDuration(input, 'hop slide')).toThrow(PlanError);
    expect(() => parseDuration(input, 'hop slide')).toThrow(/^hop slide/);
  });
});

describe('window assigners', () => {
  it('take Flink TVF argument order: HOP slide then size, CUMULATE step then max size', () => {
    expect(tumble('date_time', '10 s')).toEqual({ type: 'TUMBLE', timeColumn: 'date_time', sizeMs: 10_000 });
    expect(hop('date_time', '2 s', '10 s', { offset: '1 s' })).toEqual({ type: 'HOP', timeColumn: 'date_time', sizeMs: 10_000, slideMs: 2000, offsetMs: 1000 });
    expect(cumulate('date_time', '1 h', '1 d')).toEqual({ type: 'CUMULATE', timeColumn: 'date_time', maxSizeMs: 86_400_000, stepMs: 3_600_000 });
    expect(session('date_time', '10 s', { partitionBy: ['bidder'] })).toEqual({ type: 'SESSION', timeColumn: 'date_time', gapMs: 10_000, partitionBy: ['bidder'] });
    expect(session('date_time', 500)).toEqual({ type: 'SESSION', timeColumn: 'date_time', gapMs: 500, partitionBy: [] });
  });
});

describe('windowed streams', () => {
  it('a window aggregate outputs the group key, the aggregates and the window columns', () => {
    const { bid } = bids();
    const out = bid.window(tumble('date_time', '10 s')).aggregate({ n: count(), top: max('price') }, { groupBy: ['auction'] });
    expect(out.schema.fields.map((f) => [f.name, f.type.root, f.timeAttribute])).toEqual([
      ['auction', 'BIGINT', undefined],
      ['n', 'BIGINT', undefined],
      ['top', 'BIGINT', undefined],
      ['window_start', 'TIMESTAMP', undefined],
      ['window_end', 'TIMESTAMP', undefined],
      ['window_time', 'TIMESTAMP', 'rowtime'],
    ]);
  });

  it('a session aggregate groups by the session partition columns when no groupBy is given', () => {
    const { bid } = bids();
    const out = bid.window(session('date_time', '10 s', { partitionBy: ['bidder'] })).aggregate({ n: count() });
    expect(out.schema.fields.map((f) => f.name)).toEqual(['bidder', 'n', 'window_start', 'window_end', 'window_time']);
  });

  it('topN, deduplicate and withWindowColumns keep the input columns and add the window (and rank) columns', () => {
    const { bid } = bids();
    const top = bid.window(hop('date_time', '5 s', '10 s')).topN(3, { partitionBy: ['auction'], orderBy: ['price DESC'], rankNumber: 'rn' });
    expect(top.schema.fields.map((f) => f.name)).toEqual(['auction', 'bidder', 'price', 'date_time', 'window_start', 'window_end', 'window_time', 'rn']);
    expect(top.node.type).toBe('WindowRank');
    const { bid: b2 } = bids();
    expect(b2.window(tumble('date_time', '1 min')).deduplicate({ keep: 'first' }).node.type).toBe('WindowDeduplicate');
    const { bid: b3 } = bids();
    const tvf = b3.window(tumble('date_time', '1 min')).withWindowColumns();
    expect(tvf.node.type).toBe('WindowTableFunction');
    // Flink moves the rowtime attribute from the time column to window_time.
    expect(tvf.schema.fields.find((f) => f.name === 'date_time')?.timeAttribute).toBeUndefined();
  });

  it('rank() by window_start and window_end of windowed rows is a window Top-N, through projections', () => {
    const { bid } = bids();
    const agg = bid.window(tumble('date_time', '10 s')).aggregate({ n: count() }, { groupBy: ['auction'] });
    const ranked = agg
      .select({ auction: 'auction', n: 'n', window_start: 'window_start', window_end: 'window_end' })
      .rank({ partitionBy: ['window_end', 'window_start'], orderBy: ['n DESC'], range: { atMost: 2 } });
    expect(ranked.node).toMatchObject({ type: 'WindowRank', partitionBy: [], windowStartColumn: 'window_start', windowEndColumn: 'window_end' });

    const { bid: b2 } = bids();
    const renamed = b2
      .window(tumble('date_time', '10 s'))
      .aggregate({ n: count() }, { groupBy: ['auction'] })
      .select({ auction: 'auction', n: 'n', window_start: 'window_end', window_end: 'window_start' });
    expect(renamed.rank({ partitionBy: ['window_start', 'window_end'], orderBy: ['n DESC'], range: { atMost: 1 } }).node.type).toBe('Rank');
  });

  it('process registers the window function and declares its schema', () => {
    const { p, bid } = bids();
    const out = bid
      .window(tumble('date_time', '10 s'))
      .process({ auction: 'BIGINT', bids: 'BIGINT NOT NULL' }, function countBids(key, _window, rows) {
        return [{ auction: key['auction'] as number, bids: rows.length }];
      }, { groupBy: ['auction'] });
    expect(out.node).toMatchObject({ type: 'WindowProcess', display: 'countBids', groupBy: ['auction'] });
    expect(p.userFunctions.size).toBe(1);
    expect(() => bids().bid.window(tumble('date_time', '10 s')).process({}, () => [])).toThrow(/at least one output column/);
  });
});
