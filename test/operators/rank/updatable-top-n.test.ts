/**
 * UpdatableTopN: Flink's UpdatableTopNFunctionTest, test by test (the TopNFunctionTestBase
 * scenarios run in top-n-base.test.ts), then what this operator adds beyond Flink: deletes and
 * non-monotonic updates.
 */
import { describe, expect, it } from 'vitest';
import { PlanError } from '../../../shared/core/errors.ts';
import { RANK_METRICS } from '../../../shared/operators/rank/abstract-top-n.ts';
import { createRankOperator } from '../../../shared/operators/rank/rank-operator.ts';
import { UpdatableTopN } from '../../../shared/operators/rank/updatable-top-n.ts';
import { OperatorHarness } from '../../harness/index.ts';
import { D, I, INPUT, UA, UB, VARIABLE_RANGE, constantRange, feed, openRank, rankFactory, topNSpec } from './rank-test-kit.ts';

const updatable = (range = constantRange(1, 2), generateUpdateBefore = true, outputRankNumber = true, cacheSize?: number) =>
  topNSpec({ strategy: 'UpdateFast', range, generateUpdateBefore, outputRankNumber, ...(cacheSize !== undefined ? { cacheSize } : {}) });

/** The input of UpdatableTopNFunctionTest's testSortKeyChanges* scenarios. */
const SORT_KEY_CHANGES = [I('book', 2, 19), I('book', 3, 16), UA('book', 2, 11), UA('book', 3, 15), I('book', 4, 2), UA('book', 2, 1)];

describe('Class: UpdatableTopN', () => {
  it('is what the UpdateFast strategy builds', () => {
    expect(createRankOperator(updatable(), INPUT)).toBeInstanceOf(UpdatableTopN);
  });

  it('needs an upsert key that contains the partition key', () => {
    const spec = updatable();
    expect(() => createRankOperator({ ...spec, upsertKey: undefined }, INPUT)).toThrow(PlanError);
    expect(() => createRankOperator({ ...spec, upsertKey: ['id'] }, INPUT)).toThrow(
      /UpdateFast upsert key \[id\] must contain the partition key; missing category/,
    );
  });

  it('testVariableRankRange', async () => {
    const h = await openRank(updatable(VARIABLE_RANGE, true, false));
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

  it('testOutputRankNumberWithVariableRankRange (the UpdatableTopNFunctionTest override)', async () => {
    const h = await openRank(updatable(VARIABLE_RANGE, true, true));
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
    const h = await openRank(updatable(constantRange(1, 2), true, true));
    await feed(h, SORT_KEY_CHANGES);
    expect(h.output()).toEqual([
      // ("book", 2L, 19)
      I('book', 2, 19, 1),
      // ("book", 3L, 16)
      UB('book', 2, 19, 1),
      UA('book', 3, 16, 1),
      I('book', 2, 19, 2),
      // U ("book", 2L, 11)
      UB('book', 3, 16, 1),
      UB('book', 2, 19, 2),
      UA('book', 2, 11, 1),
      UA('book', 3, 16, 2),
      // U ("book", 3L, 15)
      UB('book', 3, 16, 2),
      UA('book', 3, 15, 2),
      // ("book", 4L, 2)
      UB('book', 2, 11, 1),
      UA('book', 4, 2, 1),
      UB('book', 3, 15, 2),
      UA('book', 2, 11, 2),
      // U ("book", 2L, 1)
      UB('book', 4, 2, 1),
      UB('book', 2, 11, 2),
      UA('book', 2, 1, 1),
      UA('book', 4, 2, 2),
    ]);
  });

  it('testSortKeyChangesWhenOutputRankNumberAndNotGenerateUpdateBefore', async () => {
    const h = await openRank(updatable(constantRange(1, 2), false, true));
    await feed(h, SORT_KEY_CHANGES);
    expect(h.output()).toEqual([
      I('book', 2, 19, 1),
      UA('book', 3, 16, 1),
      I('book', 2, 19, 2),
      UA('book', 2, 11, 1),
      UA('book', 3, 16, 2),
      UA('book', 3, 15, 2),
      UA('book', 4, 2, 1),
      UA('book', 2, 11, 2),
      UA('book', 2, 1, 1),
      UA('book', 4, 2, 2),
    ]);
  });

  it('testSortKeyChangesWhenNotOutputRankNumber', async () => {
    const h = await openRank(updatable(constantRange(1, 2), true, false));
    await feed(h, SORT_KEY_CHANGES);
    expect(h.output()).toEqual([
      I('book', 2, 19),
      I('book', 3, 16),
      UB('book', 2, 19),
      UA('book', 2, 11),
      UB('book', 3, 16),
      UA('book', 3, 15),
      D('book', 3, 15),
      I('book', 4, 2),
      UB('book', 2, 11),
      UA('book', 2, 1),
    ]);
  });

  it('testSortKeyChangesWhenNotOutputRankNumberAndNotGenerateUpdateBefore', async () => {
    const h = await openRank(updatable(constantRange(1, 2), false, false));
    await feed(h, SORT_KEY_CHANGES);
    expect(h.output()).toEqual([
      I('book', 2, 19),
      I('book', 3, 16),
      UA('book', 2, 11),
      UA('book', 3, 15),
      D('book', 3, 15),
      I('book', 4, 2),
      UA('book', 2, 1),
    ]);
  });

  describe('beyond Flink', () => {
    it('a deleted top row is replaced by the best row outside the top, read back from state', async () => {
      const h = await openRank(updatable(constantRange(1, 2), true, false));
      await feed(h, [I('a', 1, 1), I('a', 2, 2), I('a', 3, 3), I('a', 4, 4)]);
      h.clearOutput();
      await h.processElement(D('a', 1, 1));
      expect(h.extractOutput()).toEqual([D('a', 1, 1), I('a', 3, 3)]);
      await h.processElement(D('a', 4, 4)); // outside the top: nothing to emit
      await h.processElement(D('a', 2, 2));
      expect(h.extractOutput()).toEqual([D('a', 2, 2)]);
    });

    it('a row moving away from the top is a removal and an insertion (counted)', async () => {
      const h = await openRank(updatable(constantRange(1, 2), true, true));
      await feed(h, [I('a', 1, 1), I('a', 2, 2), I('a', 3, 3)]);
      h.clearOutput();
      await h.processElement(UA('a', 1, 9));
      expect(h.output()).toEqual([
        // removal of (1, 1): rows move up, (3, 3) enters
        UB('a', 1, 1, 1),
        UA('a', 2, 2, 1),
        UB('a', 2, 2, 2),
        UA('a', 3, 3, 2),
      ]);
      expect(h.metrics.get(RANK_METRICS.nonMonotonicUpdates)).toBe(1);
    });

    it('ignores -U input rows (counted)', async () => {
      const h = await openRank(updatable());
      await feed(h, [I('a', 1, 1), UB('a', 1, 1), UA('a', 1, 0)]);
      expect(h.output()).toEqual([I('a', 1, 1, 1), UB('a', 1, 1, 1), UA('a', 1, 0, 1)]);
      expect(h.metrics.get(RANK_METRICS.ignoredUpdateBefore)).toBe(1);
    });

    it('an updated row that keeps its sort key keeps its place among ties', async () => {
      const h = await openRank(updatable(constantRange(1, 3), true, true));
      await feed(h, [I('a', 1, 5), I('a', 2, 5), I('a', 3, 5)]);
      h.clearOutput();
      await h.processElement(UA('a', 1, 5));
      expect(h.output()).toEqual([UB('a', 1, 5, 1), UA('a', 1, 5, 1)]);
    });

    it('outside rows keep their tie order across a cache reload and a restore', async () => {
      const spec = updatable(constantRange(1, 1), true, true, 1);
      const h = await openRank(spec);
      await feed(h, [I('a', 1, 5), I('a', 2, 5), I('a', 3, 5), I('b', 1, 1), UA('a', 2, 5)]);
      const restored = await OperatorHarness.restore(rankFactory(spec), h.snapshot());
      await restored.processElement(D('a', 1, 5));
      // (2, 5) arrived before (3, 5) and kept its sort key, so it moves up first.
      expect(restored.output()).toEqual([UB('a', 1, 5, 1), UA('a', 2, 5, 1)]);
    });
  });
});
