/**
 * RANK and DENSE_RANK (beyond Flink): ties share a rank, RANK skips numbers after ties and
 * DENSE_RANK does not, the range filters by rank value; and the emission rules of
 * tied-ranker.ts, written out on small cases for each strategy that fits.
 */
import { describe, expect, it } from 'vitest';
import { schemaOf } from '../../../shared/core/type-parse.ts';
import type { Row } from '../../../shared/core/types.ts';
import type { RankStrategy } from '../../../shared/operators/rank/rank-spec.ts';
import { insert, materialize } from '../../harness/index.ts';
import { D, I, UA, UB, constantRange, feed, openRank, topNSpec } from './rank-test-kit.ts';

const spec = (strategy: RankStrategy, rankType: 'RANK' | 'DENSE_RANK', end: number, outputRankNumber: boolean, start = 1) =>
  topNSpec({ strategy, rankType, range: constantRange(start, end), generateUpdateBefore: true, outputRankNumber });

describe('RANK', () => {
  for (const strategy of ['AppendFast', 'Retract', 'UpdateFast'] as const) {
    it(`with the rank number: ties share a rank, numbers skip after them, shifted rows are updated (${strategy})`, async () => {
      const h = await openRank(spec(strategy, 'RANK', 3, true));
      await feed(h, [I('a', 1, 10), I('a', 2, 20), I('a', 3, 20), I('a', 4, 30)]);
      // rank 4 (after the two rows ranked 2) is out of 1..3
      expect(h.extractOutput()).toEqual([I('a', 1, 10, 1), I('a', 2, 20, 2), I('a', 3, 20, 2)]);
      await h.processElement(I('a', 5, 5));
      expect(h.extractOutput()).toEqual([
        I('a', 5, 5, 1),
        UB('a', 1, 10, 1),
        UA('a', 1, 10, 2),
        UB('a', 2, 20, 2),
        UA('a', 2, 20, 3),
        UB('a', 3, 20, 2),
        UA('a', 3, 20, 3),
      ]);
      await h.processElement(I('a', 6, 5));
      // 1, 1, 3, 4, 4: the 20s leave the range together
      expect(h.extractOutput()).toEqual([I('a', 6, 5, 1), UB('a', 1, 10, 2), UA('a', 1, 10, 3), D('a', 2, 20, 3), D('a', 3, 20, 3)]);
    });

    it(`without the rank number only rows entering or leaving the range are emitted (${strategy})`, async () => {
      const h = await openRank(spec(strategy, 'RANK', 3, false));
      await feed(h, [I('a', 1, 10), I('a', 2, 20), I('a', 3, 20), I('a', 4, 30), I('a', 5, 5)]);
      expect(h.extractOutput()).toEqual([I('a', 1, 10), I('a', 2, 20), I('a', 3, 20), I('a', 5, 5)]);
      await h.processElement(I('a', 6, 5));
      // leaving rows first, then the new row
      expect(h.extractOutput()).toEqual([D('a', 2, 20), D('a', 3, 20), I('a', 6, 5)]);
    });
  }

  it('a retraction moves later rows up and can bring a group of ties back in (Retract)', async () => {
    const h = await openRank(spec('Retract', 'RANK', 3, true));
    await feed(h, [I('a', 1, 10), I('a', 2, 20), I('a', 3, 20), I('a', 5, 5), I('a', 6, 5)]);
    h.clearOutput();
    await h.processElement(D('a', 5, 5));
    expect(h.output()).toEqual([D('a', 5, 5, 1), UB('a', 1, 10, 3), UA('a', 1, 10, 2), I('a', 2, 20, 3), I('a', 3, 20, 3)]);
  });

  it('a range starting after 1 lets rows in from above (set mode)', async () => {
    const h = await openRank(spec('AppendFast', 'RANK', 3, false, 2));
    await feed(h, [I('a', 1, 10), I('a', 2, 20)]);
    expect(h.extractOutput()).toEqual([I('a', 2, 20)]);
    await h.processElement(I('a', 3, 5));
    // 10 moves from rank 1 into the range; 20 stays at rank 3
    expect(h.extractOutput()).toEqual([I('a', 1, 10)]);
  });

  it('an UpdateFast row moving up shifts only the rows it passes', async () => {
    const h = await openRank(spec('UpdateFast', 'RANK', 3, true));
    await feed(h, [I('a', 1, 10), I('a', 2, 20), I('a', 3, 30)]);
    h.clearOutput();
    await h.processElement(UA('a', 3, 15));
    expect(h.output()).toEqual([UB('a', 3, 30, 3), UA('a', 3, 15, 2), UB('a', 2, 20, 2), UA('a', 2, 20, 3)]);
  });
});

describe('DENSE_RANK', () => {
  for (const strategy of ['AppendFast', 'Retract', 'UpdateFast'] as const) {
    it(`counts distinct sort keys: a tie shifts nothing, a new key shifts the keys after it (${strategy})`, async () => {
      const h = await openRank(spec(strategy, 'DENSE_RANK', 2, true));
      await feed(h, [I('a', 1, 10), I('a', 2, 20), I('a', 3, 20), I('a', 4, 30)]);
      expect(h.extractOutput()).toEqual([I('a', 1, 10, 1), I('a', 2, 20, 2), I('a', 3, 20, 2)]);
      await h.processElement(I('a', 5, 5));
      expect(h.extractOutput()).toEqual([I('a', 5, 5, 1), UB('a', 1, 10, 1), UA('a', 1, 10, 2), D('a', 2, 20, 2), D('a', 3, 20, 2)]);
      await h.processElement(I('a', 6, 10));
      expect(h.extractOutput()).toEqual([I('a', 6, 10, 2)]);
    });
  }

  it('retracting the last row of a key brings the next key in (Retract, no rank number)', async () => {
    const h = await openRank(spec('Retract', 'DENSE_RANK', 2, false));
    await feed(h, [I('a', 1, 10), I('a', 2, 20), I('a', 3, 30), I('a', 4, 30)]);
    h.clearOutput();
    await h.processElement(D('a', 2, 20));
    expect(h.output()).toEqual([D('a', 2, 20), I('a', 3, 30), I('a', 4, 30)]);
  });
});

describe('generateUpdateBefore = false with ties', () => {
  const moves = [I('a', 1, 10), I('a', 2, 20), I('a', 3, 5)];

  it('keeps -U under AppendFast and Retract: no key identifies a row whose rank moves', async () => {
    for (const strategy of ['AppendFast', 'Retract'] as const) {
      const h = await openRank({ ...spec(strategy, 'RANK', 3, true), generateUpdateBefore: false });
      await feed(h, moves);
      expect(h.output().filter((c) => c.kind === '-U')).toEqual([UB('a', 1, 10, 1), UB('a', 2, 20, 2)]);
    }
  });

  it('drops -U under UpdateFast, whose upsert key identifies the row', async () => {
    const h = await openRank({ ...spec('UpdateFast', 'RANK', 3, true), generateUpdateBefore: false });
    await feed(h, moves);
    expect(h.output()).toEqual([I('a', 1, 10, 1), I('a', 2, 20, 2), I('a', 3, 5, 1), UA('a', 1, 10, 2), UA('a', 2, 20, 3)]);
  });
});

describe('multi-column ORDER BY', () => {
  const schema = schemaOf({ g: 'STRING', x: 'INT', y: 'STRING' });
  const r = (x: number | null, y: string | null): Row => ({ g: 'a', x, y });

  it('orders by each column with its own direction and null placement', async () => {
    const h = await openRank(
      {
        strategy: 'Retract',
        rankType: 'ROW_NUMBER',
        partitionBy: ['g'],
        orderBy: [
          { column: 'x', direction: 'DESC', nullsFirst: false },
          { column: 'y', direction: 'ASC', nullsFirst: true },
        ],
        rankRange: constantRange(1, 10),
        rankNumberColumn: 'rn',
        generateUpdateBefore: true,
      },
      schema,
    );
    const rows = [r(1, 'b'), r(null, 'a'), r(2, null), r(2, 'a'), r(1, null), r(null, null)];
    for (const row of rows) await h.processElement(insert(row));
    // x DESC with nulls last, then y ASC with nulls first.
    const expected = [r(2, null), r(2, 'a'), r(1, null), r(1, 'b'), r(null, null), r(null, 'a')];
    const ranked = materialize(h.output(), ['g', 'rn']).sort((a, b) => (a['rn'] as number) - (b['rn'] as number));
    expect(ranked).toEqual(expected.map((row, i) => ({ ...row, rn: i + 1 })));
  });
});
