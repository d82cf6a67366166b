/**
 * Planning joins as Flink's planner does: changelog modes (an inner or semi join forwards its
 * inputs' kinds, an outer or anti join may produce any), upsert keys (FlinkRelMdUniqueKeys.getJoinUniqueKeys),
 * the state views picked from the inputs' upsert keys, the `-U` the inputs must send, and the
 * checks on interval, window and temporal joins' inputs.
 */
import { describe, expect, it } from 'vitest';
import { Pipeline, col, count, cumulate, hop, max, sum } from '../../shared/api/index.ts';
import type { LogicalNode } from '../../shared/plan/logical.ts';
import { analyzeJoinInput } from '../../shared/plan/join-planning.ts';

const A = { k: 'INT NOT NULL', v: 'INT', t: 'TIMESTAMP(3)' } as const;
const B = { k: 'INT NOT NULL', w: 'INT', t: 'TIMESTAMP(3)' } as const;

function planned(build: (p: Pipeline) => void): { text: string; join: LogicalNode; traits: ReturnType<Pipeline['plan']>['traits']; updateBefore: ReadonlySet<LogicalNode> } {
  const p = new Pipeline('j');
  build(p);
  const plan = p.plan();
  const join = [...plan.traits.keys()].find((n) => n.type === 'Join' || n.type === 'WindowJoin' || n.type === 'IntervalJoin' || n.type === 'TemporalJoin');
  if (!join) throw new Error('no join planned');
  return { text: p.explain({ changelogMode: true }), join, traits: plan.traits, updateBefore: plan.needsUpdateBefore };
}

describe('join changelog modes and upsert keys', () => {
  it('an inner join of insert-only inputs is insert-only, with no upsert key', () => {
    const { join, traits } = planned((p) => p.source('a', { schema: A }).join(p.source('b', { schema: B }), { on: 'k' }).sinkTo('out'));
    expect(traits.get(join)).toMatchObject({ changelogMode: ['+I'], upsertKeys: [] });
  });

  it('an inner join of two aggregates by the join key forwards their updates and is keyed by either key', () => {
    const { join, traits, text, updateBefore } = planned((p) => {
      const a = p.source('a', { schema: A }).groupBy('k').aggregate({ n: count() });
      const b = p.source('b', { schema: B }).groupBy('k').aggregate({ total: sum('w') });
      a.join(b, { on: 'k' }).sinkTo('out', { upsertKey: ['k'] });
    });
    expect(traits.get(join)?.changelogMode).toEqual(['+I', '-U', '+U', '-D']);
    // Each side is unique on the join key, so each side's key stays unique; and their union.
    expect(traits.get(join)?.upsertKeys).toEqual([['k', 'k0'], ['k'], ['k0']]);
    expect(text).toContain('leftInputSpec=[JoinKeyContainsUniqueKey], rightInputSpec=[JoinKeyContainsUniqueKey]');
    // A regular join retracts its earlier results: both aggregates must send -U, even into an upsert sink.
    expect([...updateBefore].map((n) => n.type)).toEqual(['GroupAggregate', 'GroupAggregate']);
  });

  it('an outer join may produce any change; a null-padded side keeps no key of its own', () => {
    const { join, traits, text } = planned((p) => {
      const a = p.source('a', { schema: A }).groupBy('k').aggregate({ n: count() });
      const b = p.source('b', { schema: B }).groupBy('k', 'w').aggregate({ n: count() });
      a.join(b, { on: 'k', type: 'left' }).sinkTo('out');
    });
    expect(traits.get(join)?.changelogMode).toEqual(['+I', '-U', '+U', '-D']);
    // b is not unique on the join key: a's key alone is not unique; only the union is.
    expect(traits.get(join)?.upsertKeys).toEqual([['k', 'k0', 'w']]);
    expect(text).toContain('leftInputSpec=[JoinKeyContainsUniqueKey], rightInputSpec=[HasUniqueKey]');
  });

  it('a semi join forwards the union of its inputs\' kinds and keeps the left keys; an anti join may produce any change', () => {
    const insertOnly = planned((p) => p.source('a', { schema: A }).join(p.source('b', { schema: B }), { on: 'k', type: 'semi' }).sinkTo('out'));
    expect(insertOnly.traits.get(insertOnly.join)).toMatchObject({ changelogMode: ['+I'], upsertKeys: [] });
    const semi = planned((p) => {
      const a = p.source('a', { schema: A }).groupBy('k', 'v').aggregate({ n: count() });
      a.join(p.source('b', { schema: B }).groupBy('k').aggregate({ m: max('w') }), { on: 'k', type: 'semi' }).sinkTo('out');
    });
    expect(semi.traits.get(semi.join)).toMatchObject({ changelogMode: ['+I', '-U', '+U', '-D'], upsertKeys: [['k', 'v']] });
    expect(semi.text).toContain('Join(joinType=[LeftSemiJoin], where=[=(k, k0)], select=[k, v, n], leftInputSpec=[HasUniqueKey], rightInputSpec=[JoinKeyContainsUniqueKey], changelogMode=[I,UB,UA,D])');
    expect([...semi.updateBefore].map((n) => n.type)).toEqual(['GroupAggregate', 'GroupAggregate']);
    const anti = planned((p) => p.source('a', { schema: A }).join(p.source('b', { schema: B }), { on: 'k', type: 'anti' }).sinkTo('out'));
    expect(anti.traits.get(anti.join)?.changelogMode).toEqual(['+I', '-U', '+U', '-D']);
    expect(anti.text).toContain(':- Exchange(distribution=[hash[k]], changelogMode=[I])');
  });

  it('picks the smallest unique key the join key does not contain, as JoinUtil.analyzeJoinInput does', () => {
    expect(analyzeJoinInput(['k'], [])).toEqual({ type: 'NoUniqueKey' });
    expect(analyzeJoinInput(['k'], [['k', 'x'], ['y']])).toEqual({ type: 'HasUniqueKey', uniqueKey: ['y'] });
    expect(analyzeJoinInput(['k', 'x'], [['x'], ['y', 'z']])).toEqual({ type: 'JoinKeyContainsUniqueKey' });
  });
});

describe('time-based joins', () => {
  const watermarked = (p: Pipeline, name: string, schema: typeof A | typeof B) => p.source(name, { schema, watermark: { column: 't', outOfOrdernessMs: 0 } });

  it('window joins over HOP and CUMULATE windows plan a WindowJoin hashed by the keys without the window columns', () => {
    for (const window of [hop('t', '2 s', '10 s'), cumulate('t', '2 s', '10 s')]) {
      const { text } = planned((p) => watermarked(p, 'a', A).window(window).join(watermarked(p, 'b', B).window(window), { on: 'k', type: 'full' }).sinkTo('out'));
      expect(text).toMatch(/WindowJoin\(leftWindow=\[(HOP|CUMULATE)\(win_start=\[window_start\], win_end=\[window_end\]/);
      expect(text).toContain('joinType=[FullOuterJoin], where=[=(k, k0)]');
      expect(text).toMatch(/WindowJoin[^\n]*changelogMode=\[I\]\)\n\s*:- Exchange\(distribution=\[hash\[k\]\]/);
    }
  });

  it('a join of windows of different sizes is a regular join', () => {
    const { join } = planned((p) => {
      const a = watermarked(p, 'a', A).window(hop('t', '2 s', '10 s')).aggregate({ n: count() }, { groupBy: ['k'] });
      const b = watermarked(p, 'b', B).window(hop('t', '2 s', '20 s')).aggregate({ m: max('w') }, { groupBy: ['k'] });
      a.join(b, { on: [['k', 'k'], ['window_start', 'window_start'], ['window_end', 'window_end']] }).sinkTo('out');
    });
    expect(join.type).toBe('Join');
  });

  it('reads a versioned side keyed by a group aggregate, and rejects one without a key', () => {
    const keyed = planned((p) => {
      const versions = watermarked(p, 'b', B).groupBy('k').aggregate({ t: max('t') });
      watermarked(p, 'a', A).temporalJoin(versions, { on: 'k', versionTime: 't' }).sinkTo('out');
    });
    expect(keyed.join.type).toBe('TemporalJoin');
    // The versioned side is read as upserts: its aggregate need not send -U.
    expect(keyed.updateBefore.size).toBe(0);
    const p = new Pipeline('bad');
    watermarked(p, 'a', A).temporalJoin(watermarked(p, 'b', B), { on: 'k' }).sinkTo('out');
    expect(() => p.plan()).toThrow(/TemporalJoin #\d+: the versioned table needs a primary key contained in the join key \[k\] \(it has none/);
    expect(col('k')).toEqual({ kind: 'ref', name: 'k' });
  });
});
