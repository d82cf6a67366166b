/**
 * User functions in the TypeScript API: `pipeline.function(name, scalarFunction(…))` in a select
 * and a filter, `pipeline.function(name, tableFunction(…))` with `stream.joinLateral` (inner and
 * left), aggregate functions in group and window aggregation, declared parameter types (the
 * arguments cast and converted, a call they do not take refused), run embedded with exact
 * results, and the plan's Correlate in EXPLAIN.
 */
import { describe, expect, it } from 'vitest';
import { Pipeline, aggregateFunction, col, count, gt, hop, lit, scalarFunction, tableFunction } from '../../shared/api/index.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import { runEmbeddedJob } from '../../shared/runtime/embedded/embedded-runtime.ts';
import { MaterializedView } from '../../shared/runtime/materialized-view.ts';
import { formatRow } from '../harness/index.ts';

const countChar = scalarFunction('BIGINT', (s: string | null, c: string | null) => (s === null || c === null ? null : s.split(c).length - 1));
const splitWords = tableFunction({ word: 'STRING', len: 'INT' }, function* split(line: string | null) {
  for (const w of (line ?? '').split(' ')) if (w !== '') yield [w, w.length];
});

function docs(p: Pipeline) {
  return p.source('docs', {
    schema: { id: 'INT NOT NULL', line: 'STRING' },
    generator: () => [
      { id: 1, line: 'aa b' },
      { id: 2, line: '' },
      { id: 3, line: null },
      { id: 4, line: 'ccc' },
    ],
  });
}

async function finalRows(p: Pipeline, parallelism = 2): Promise<string[]> {
  const graph = p.jobGraph({ parallelism });
  const sink = graph.sinks[0]!;
  const view = new MaterializedView({ ...(sink.upsertKey ? { key: sink.upsertKey } : {}), columns: sink.schema.fields.map((f) => f.name), strict: true });
  await runEmbeddedJob(graph, {
    code: { functions: p.userFunctions, generators: p.generators },
    observers: new Map([[sink.name, [{ write: (rows: readonly ChangeRow[]) => rows.forEach((r) => view.apply(r)) }]]]),
    sinkSetup: { quiet: true },
  });
  return view.rows().map(formatRow).sort();
}

describe('pipeline.function', () => {
  it('a scalar function in select and filter', async () => {
    const p = new Pipeline('udf');
    const cc = p.function('count_char', countChar);
    docs(p).select({ id: 'id', as: cc('line', lit('a')) }).filter(gt(col('as'), lit(0))).print('out');
    expect(await finalRows(p)).toEqual(['{"id":1,"as":2}']);
  });

  it('a table function joined laterally, inner and left, and aggregated after', async () => {
    const inner = new Pipeline('lateral');
    const split = inner.function('split', splitWords);
    docs(inner).joinLateral(split('line')).print('out');
    expect(await finalRows(inner)).toEqual(['{"id":1,"line":"aa b","word":"aa","len":2}', '{"id":1,"line":"aa b","word":"b","len":1}', '{"id":4,"line":"ccc","word":"ccc","len":3}']);

    const left = new Pipeline('lateral_left');
    const split2 = left.function('split', splitWords);
    docs(left).joinLateral(split2('line'), { type: 'left', columns: ['w', 'n'] }).groupBy('id').aggregate({ words: count('w') }).print('out');
    expect(await finalRows(left)).toEqual(['{"id":1,"words":2}', '{"id":2,"words":0}', '{"id":3,"words":0}', '{"id":4,"words":1}']);
    expect(left.explain()).toContain(
      'Correlate(invocation=[split(line)], correlate=[table(split(line))], select=[id,line,w,n], rowType=[RecordType(INT NOT NULL id, VARCHAR(2147483647) line, VARCHAR(2147483647) w, INT n)], joinType=[LEFT])',
    );
  });

  it('an aggregate function with retraction in a group aggregation', async () => {
    const longest = aggregateFunction<{ lengths: number[] }>('INT', {
      name: 'longest',
      createAccumulator: () => ({ lengths: [] }),
      accumulate: (acc, v) => void (v !== null && acc.lengths.push(v as number)),
      retract: (acc, v) => void acc.lengths.splice(acc.lengths.indexOf(v as number), 1),
      getValue: (acc) => (acc.lengths.length === 0 ? null : Math.max(...acc.lengths)),
    });
    const p = new Pipeline('uagg');
    const split = p.function('split', splitWords);
    const max = p.function('longest', longest);
    // Words per document (an updating count), then the longest word length per count.
    const perDoc = docs(p).joinLateral(split('line')).groupBy('id').aggregate({ words: count(), len: max('len') });
    perDoc.groupBy('words').aggregate({ longest: max('len') }).print('out');
    expect(await finalRows(p)).toEqual(['{"words":1,"longest":3}', '{"words":2,"longest":2}']);
    expect(p.explain()).toContain('longest(len) AS longest');
  });

  it('an aggregate function of two arguments, with merge, in a HOP window; without merge it is refused', async () => {
    const dot = aggregateFunction<{ s: number }>('BIGINT', {
      createAccumulator: () => ({ s: 0 }),
      accumulate: (acc, a, b) => void (a !== null && b !== null && (acc.s += (a as number) * (b as number))),
      merge: (acc, other) => void (acc.s += other.s),
      getValue: (acc) => acc.s,
    });
    const p = new Pipeline('wagg');
    const dots = p.function('dot', dot);
    const events = p.source('events', {
      schema: { k: 'STRING NOT NULL', a: 'INT', b: 'INT', ts: 'TIMESTAMP(3)' },
      generator: () => [
        { k: 'x', a: 2, b: 3, ts: 1000 },
        { k: 'x', a: 1, b: 5, ts: 4000 },
        { k: 'x', a: 4, b: 4, ts: 9000 },
      ],
      watermark: { column: 'ts', outOfOrdernessMs: 0 },
    });
    events.window(hop('ts', '5 s', '10 s')).aggregate({ d: dots(['a', 'b'], { filter: gt(col('a'), lit(1)) }) }, { groupBy: ['k'] }).print('out');
    expect(await finalRows(p, 1)).toEqual([
      '{"k":"x","d":16,"window_start":5000,"window_end":15000,"window_time":14999}',
      '{"k":"x","d":22,"window_start":0,"window_end":10000,"window_time":9999}',
      '{"k":"x","d":6,"window_start":-5000,"window_end":5000,"window_time":4999}',
    ]);
    expect(p.explain()).toContain('dot(a, b) FILTER $f4 AS d');
    const { merge: _unused, ...withoutMerge } = dot;
    const q = new Pipeline('wagg2');
    const noMerge = q.function('dot', aggregateFunction<{ s: number }>('BIGINT', withoutMerge));
    const src = q.source('events', { schema: { k: 'STRING', a: 'INT', ts: 'TIMESTAMP(3)' }, generator: () => [], watermark: { column: 'ts', outOfOrdernessMs: 0 } });
    expect(() => src.window(hop('ts', '5 s', '10 s')).aggregate({ d: noMerge(['a', 'a']) }, { groupBy: ['k'] })).toThrow(/^the aggregate user function DOT has no merge method: as in Flink, a HOP window aggregation merges accumulators/);
  });

  it('casts arguments to the declared parameter types, a DECIMAL arriving as its text, and converts results back', async () => {
    const sum = scalarFunction('DOUBLE', { input: ['DOUBLE...'] }, (...xs) => xs.reduce<number>((a, x) => a + (x ?? 0), 0));
    const text = scalarFunction('STRING', { input: ['DECIMAL(10, 2)'] }, (d) => d);
    const half = scalarFunction('DECIMAL(10, 2)', { input: ['DECIMAL(10, 2)'] }, (d) => (d === null ? null : Number(d) / 2));
    const p = new Pipeline('declared');
    const [sumOf, textOf, halfOf] = [p.function('sum_of', sum), p.function('text_of', text), p.function('half_of', half)];
    p.source('prices', { schema: { id: 'INT NOT NULL', price: 'DECIMAL(10, 2)' }, generator: () => [{ id: 1, price: 125n }, { id: 2, price: null }, { id: 3, price: 1005n }] })
      .select({ id: 'id', s: sumOf('price', 'id', lit(0.5)), t: textOf('price'), h: halfOf('price') })
      .print('out');
    // DECIMAL(10, 2) results print unscaled here: 0.63 (0.625 rounded HALF_UP) and 5.03.
    expect(await finalRows(p)).toEqual(['{"id":1,"s":2.75,"t":"1.25","h":"63n"}', '{"id":2,"s":2.5,"t":null,"h":null}', '{"id":3,"s":13.55,"t":"10.05","h":"503n"}']);
    expect(p.explain()).toContain('Calc(select=[id, sum_of(price, id, 5.0E-1:DOUBLE) AS s, text_of(price) AS t, half_of(price) AS h])');
    const q = new Pipeline('declared_bad');
    const textOfQ = q.function('text_of', text);
    const src = q.source('prices', { schema: { id: 'INT NOT NULL', name: 'STRING' }, generator: () => [] });
    expect(() => src.select({ t: textOfQ('name') })).toThrow('argument 1 of text_of (name) is STRING, which does not cast implicitly to DECIMAL(10, 2), the declared parameter type of text_of(DECIMAL(10, 2))');
    expect(() => src.select({ t: textOfQ('nope') })).toThrow("Column 'nope' not found in expression; available columns: id, name");
  });

  it('names what is wrong', () => {
    const p = new Pipeline('bad');
    const split = p.function('split', splitWords);
    const d = docs(p);
    expect(() => d.joinLateral(split('nope'))).toThrow(/nope/);
    expect(() => d.joinLateral(split('line'), { columns: ['id', 'x'] })).toThrow("column 'id' of split(line) has the name of an input column: rename it (AS t (other_name, …))");
    expect(() => d.joinLateral(split('line'), { columns: ['x'] })).toThrow('split(line) gives 2 columns, but 1 names are given (x)');
    expect(() => d.joinLateral(split('line'), { type: 'left', condition: gt(col('len'), lit(1)) })).toThrow('a LEFT join with split(line) supports only ON TRUE (as in Flink)');
    expect(() => p.function('x', (() => 1) as never)).toThrow("pipeline.function('x'): the definition must be a scalarFunction(…), tableFunction(…) or aggregateFunction(…)");
  });
});
