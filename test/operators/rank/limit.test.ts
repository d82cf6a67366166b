/**
 * `LIMIT n [OFFSET m]` without ORDER BY: Flink's StreamExecLimit is a ROW_NUMBER rank of the
 * whole stream with no sort keys (SortSpec.ANY), every row tying with every other, so rank order
 * is arrival order. AppendFast over an insert-only input (the first rows, then nothing), Retract
 * over an updating one (RetractableTopNFunction: a retracted row in the top lets the next one
 * in). Exact changelogs, worked out from Flink's rank functions' emission rules.
 */
import { describe, expect, it } from 'vitest';
import { PlanError } from '../../../shared/core/errors.ts';
import type { RankSpec } from '../../../shared/operators/rank/rank-spec.ts';
import { del, insert, updateAfter, updateBefore } from '../../harness/index.ts';
import { INPUT, constantRange, openRank } from './rank-test-kit.ts';

const limit = (strategy: RankSpec['strategy'], start: number, end: number): RankSpec => ({
  strategy,
  rankType: 'ROW_NUMBER',
  partitionBy: [],
  orderBy: [],
  rankRange: constantRange(start, end),
  generateUpdateBefore: true,
});

const row = (id: number, price = 0) => ({ category: 'x', id, price });

describe('Limit (a rank without sort keys)', () => {
  it('insert-only input: the first rows to arrive, then nothing, whatever their values', async () => {
    const h = await openRank(limit('AppendFast', 1, 2));
    await h.processElements(insert(row(5, 9)), insert(row(1, 1)), insert(row(7, 0)), insert(row(2, -1)));
    expect(h.extractOutput()).toEqual([insert(row(5, 9)), insert(row(1, 1))]);
    // A counter is all it keeps (AppendOnlyFirstNFunction's state), not the rows.
    expect(h.state.stats().entries).toBe(1);
  });

  it('OFFSET: the rows after the first m, up to n of them', async () => {
    const h = await openRank(limit('AppendFast', 3, 4));
    await h.processElements(...[1, 2, 3, 4, 5, 6].map((id) => insert(row(id))));
    expect(h.extractOutput()).toEqual([insert(row(3)), insert(row(4))]);
  });

  it('updating input: a retraction in the top lets the next row in (-D, then +I), a row updated goes to the back', async () => {
    const h = await openRank(limit('Retract', 1, 2));
    await h.processElements(insert(row(1)), insert(row(2)), insert(row(3)), updateBefore(row(1)), updateAfter(row(1, 5)), del(row(2)), del(row(9)));
    expect(h.extractOutput()).toEqual([insert(row(1)), insert(row(2)), del(row(1)), insert(row(3)), del(row(2)), insert(row(1, 5))]);
  });

  it('updating input with OFFSET: each place whose row changes is updated', async () => {
    const h = await openRank(limit('Retract', 2, 3));
    await h.processElements(insert(row(1)), insert(row(2)), insert(row(3)), insert(row(4)), del(row(2)));
    expect(h.extractOutput()).toEqual([insert(row(2)), insert(row(3)), updateBefore(row(2)), updateAfter(row(3)), updateBefore(row(3)), updateAfter(row(4))]);
  });

  it('only a LIMIT may rank without ORDER BY', async () => {
    await expect(openRank({ ...limit('AppendFast', 1, 2), rankType: 'RANK' })).rejects.toThrow(PlanError);
    await expect(openRank({ ...limit('AppendFast', 1, 2), rankNumberColumn: 'rn' })).rejects.toThrow(/ORDER BY needs at least one column/);
    await expect(openRank({ ...limit('AppendFast', 1, 2), rankRange: { type: 'variable', endColumn: 'id' } }, INPUT)).rejects.toThrow(PlanError);
  });
});
