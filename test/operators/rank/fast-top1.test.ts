/**
 * The top-1 fast path: Flink's FastTop1FunctionTest. Its insert-only scenarios run against the
 * AppendFast FastTop1 operator and against UpdateFast (which Flink also serves with
 * FastTop1Function, and which here runs on UpdatableTopN with FastTop1's changelog); its update
 * scenarios run against UpdateFast.
 */
import { describe, expect, it } from 'vitest';
import { FastTop1 } from '../../../shared/operators/rank/fast-top1.ts';
import { createRankOperator } from '../../../shared/operators/rank/rank-operator.ts';
import type { RankStrategy } from '../../../shared/operators/rank/rank-spec.ts';
import { OperatorHarness } from '../../harness/index.ts';
import { D, I, INPUT, UA, UB, constantRange, feed, openRank, rankFactory, topNSpec } from './rank-test-kit.ts';

const top1 = (strategy: RankStrategy, generateUpdateBefore: boolean, outputRankNumber: boolean) =>
  topNSpec({ strategy, range: constantRange(1, 1), generateUpdateBefore, outputRankNumber });

describe('Class: FastTop1', () => {
  it('is what AppendFast builds for ROW_NUMBER in [1, 1], and only then', () => {
    expect(createRankOperator(top1('AppendFast', true, false), INPUT)).toBeInstanceOf(FastTop1);
    expect(createRankOperator({ ...top1('AppendFast', true, false), rankType: 'RANK' }, INPUT)).not.toBeInstanceOf(FastTop1);
    expect(createRankOperator({ ...top1('AppendFast', true, false), rankRange: constantRange(1, 2) }, INPUT)).not.toBeInstanceOf(
      FastTop1,
    );
  });

  for (const strategy of ['AppendFast', 'UpdateFast'] as const) {
    describe(`FastTop1FunctionTest insert-only scenarios (${strategy})`, () => {
      it('testDisableGenerateUpdateBefore', async () => {
        const h = await openRank(top1(strategy, false, false));
        await feed(h, [
          I('book', 1, 12),
          I('book', 2, 19),
          I('book', 3, 19),
          I('book', 4, 11),
          I('book', 5, 11),
          I('fruit', 4, 33),
          I('fruit', 3, 44),
          I('fruit', 5, 22),
        ]);
        // "partition key is unique key if only top-1 is desired"
        expect(h.output()).toEqual([I('book', 1, 12), UA('book', 4, 11), I('fruit', 4, 33), UA('fruit', 5, 22)]);
      });

      it('testOutputRankNumberWithConstantRankRange', async () => {
        const h = await openRank(top1(strategy, true, true));
        await feed(h, [
          I('book', 1, 12),
          I('book', 2, 19),
          I('book', 4, 11),
          I('book', 5, 11),
          I('fruit', 4, 33),
          I('fruit', 3, 44),
          I('fruit', 5, 22),
        ]);
        expect(h.output()).toEqual([
          I('book', 1, 12, 1),
          UB('book', 1, 12, 1),
          UA('book', 4, 11, 1),
          I('fruit', 4, 33, 1),
          UB('fruit', 4, 33, 1),
          UA('fruit', 5, 22, 1),
        ]);
      });

      it('testDisableGenerateUpdateBeforeAndOutputRankNumber', async () => {
        const h = await openRank(top1(strategy, false, true));
        await feed(h, [
          I('book', 1, 12),
          I('book', 2, 19),
          I('book', 4, 11),
          I('book', 5, 11),
          I('fruit', 4, 33),
          I('fruit', 3, 44),
          I('fruit', 5, 22),
        ]);
        expect(h.output()).toEqual([I('book', 1, 12, 1), UA('book', 4, 11, 1), I('fruit', 4, 33, 1), UA('fruit', 5, 22, 1)]);
      });

      it('testConstantRankRangeWithoutOffset (and its snapshot → restore)', async () => {
        const spec = top1(strategy, true, false);
        const h = await openRank(spec);
        await feed(h, [I('book', 1, 12), I('book', 2, 19), I('book', 4, 11), I('fruit', 4, 33), I('fruit', 3, 44), I('fruit', 5, 22)]);
        expect(h.output()).toEqual([
          I('book', 1, 12),
          UB('book', 1, 12),
          UA('book', 4, 11),
          I('fruit', 4, 33),
          UB('fruit', 4, 33),
          UA('fruit', 5, 22),
        ]);
        const restored = await OperatorHarness.restore(rankFactory(spec), h.snapshot());
        await restored.processElement(I('book', 5, 10));
        expect(restored.output()).toEqual([UB('book', 4, 11), UA('book', 5, 10)]);
      });
    });
  }

  describe('FastTop1FunctionTest update scenarios (UpdateFast)', () => {
    const SORT_KEY_CHANGES = [I('book', 2, 19), I('book', 3, 16), UA('book', 2, 11), UA('book', 3, 15), I('book', 4, 2), UA('book', 2, 1)];

    // FastTop1FunctionTest.testVariableRankRange (despite its name, over ConstantRankRange(1, 1))
    it('testVariableRankRange', async () => {
      const h = await openRank(top1('UpdateFast', true, false));
      await feed(h, [I('book', 2, 19), UA('book', 2, 18), I('fruit', 1, 44), UA('fruit', 1, 33), UA('fruit', 1, 22)]);
      expect(h.output()).toEqual([
        I('book', 2, 19),
        UB('book', 2, 19),
        UA('book', 2, 18),
        I('fruit', 1, 44),
        UB('fruit', 1, 44),
        UA('fruit', 1, 33),
        UB('fruit', 1, 33),
        UA('fruit', 1, 22),
      ]);
    });

    it('testOutputRankNumberWithUpdateInputs', async () => {
      const h = await openRank(top1('UpdateFast', true, true));
      await feed(h, [I('book', 2, 19), UA('book', 2, 12), UA('book', 2, 11), I('fruit', 1, 44), UA('fruit', 1, 33), UA('fruit', 1, 22)]);
      expect(h.output()).toEqual([
        I('book', 2, 19, 1),
        UB('book', 2, 19, 1),
        UA('book', 2, 12, 1),
        UB('book', 2, 12, 1),
        UA('book', 2, 11, 1),
        I('fruit', 1, 44, 1),
        UB('fruit', 1, 44, 1),
        UA('fruit', 1, 33, 1),
        UB('fruit', 1, 33, 1),
        UA('fruit', 1, 22, 1),
      ]);
    });

    it('testSortKeyChangesWhenOutputRankNumber', async () => {
      const h = await openRank(top1('UpdateFast', true, true));
      await feed(h, SORT_KEY_CHANGES);
      expect(h.output()).toEqual([
        I('book', 2, 19, 1),
        UB('book', 2, 19, 1),
        UA('book', 3, 16, 1),
        UB('book', 3, 16, 1),
        UA('book', 2, 11, 1),
        UB('book', 2, 11, 1),
        UA('book', 4, 2, 1),
        UB('book', 4, 2, 1),
        UA('book', 2, 1, 1),
      ]);
    });

    it('testSortKeyChangesWhenOutputRankNumberAndNotGenerateUpdateBefore', async () => {
      const h = await openRank(top1('UpdateFast', false, true));
      await feed(h, SORT_KEY_CHANGES);
      expect(h.output()).toEqual([I('book', 2, 19, 1), UA('book', 3, 16, 1), UA('book', 2, 11, 1), UA('book', 4, 2, 1), UA('book', 2, 1, 1)]);
    });

    it('testSortKeyChangesWhenNotOutputRankNumber', async () => {
      const h = await openRank(top1('UpdateFast', true, false));
      await feed(h, SORT_KEY_CHANGES);
      expect(h.output()).toEqual([
        I('book', 2, 19),
        UB('book', 2, 19),
        UA('book', 3, 16),
        UB('book', 3, 16),
        UA('book', 2, 11),
        UB('book', 2, 11),
        UA('book', 4, 2),
        UB('book', 4, 2),
        UA('book', 2, 1),
      ]);
    });

    it('testSortKeyChangesWhenNotOutputRankNumberAndNotGenerateUpdateBefore', async () => {
      const h = await openRank(top1('UpdateFast', false, false));
      await feed(h, SORT_KEY_CHANGES);
      expect(h.output()).toEqual([I('book', 2, 19), UA('book', 3, 16), UA('book', 2, 11), UA('book', 4, 2), UA('book', 2, 1)]);
    });

    it('beyond Flink: deleting the top row promotes the next (-U/+U), or deletes it (-D)', async () => {
      const h = await openRank(top1('UpdateFast', true, false));
      await feed(h, [I('a', 1, 3), I('a', 2, 1), D('a', 2, 1), D('a', 1, 3)]);
      expect(h.output()).toEqual([I('a', 1, 3), UB('a', 1, 3), UA('a', 2, 1), UB('a', 2, 1), UA('a', 1, 3), D('a', 1, 3)]);
    });
  });
});
