/**
 * RetractableTopN: Flink's RetractableTopNFunctionTest, test by test (the TopNFunctionTestBase
 * scenarios run in top-n-base.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { schemaOf } from '../../../shared/core/type-parse.ts';
import type { Row } from '../../../shared/core/types.ts';
import { RANK_METRICS } from '../../../shared/operators/rank/abstract-top-n.ts';
import { createRankOperator } from '../../../shared/operators/rank/rank-operator.ts';
import { RetractableTopN } from '../../../shared/operators/rank/retractable-top-n.ts';
import { OperatorHarness, del, insert } from '../../harness/index.ts';
import { D, I, INPUT, UA, UB, VARIABLE_RANGE, constantRange, feed, openRank, rankFactory, topNSpec } from './rank-test-kit.ts';

const retract = (range = constantRange(1, 2), generateUpdateBefore = true, outputRankNumber = true, stateTtlMs?: number) =>
  topNSpec({ strategy: 'Retract', range, generateUpdateBefore, outputRankNumber, ...(stateTtlMs !== undefined ? { stateTtlMs } : {}) });

describe('Class: RetractableTopN', () => {
  it('is what the Retract strategy builds', () => {
    expect(createRankOperator(retract(), INPUT)).toBeInstanceOf(RetractableTopN);
  });

  it('testProcessRetractMessageWithNotGenerateUpdateBefore', async () => {
    const h = await openRank(retract(constantRange(1, 2), false, true));
    await feed(h, [
      I('book', 1, 12),
      I('book', 2, 19),
      I('book', 4, 11),
      UB('book', 1, 12),
      I('book', 5, 11),
      I('fruit', 4, 33),
      I('fruit', 3, 44),
      I('fruit', 5, 22),
    ]);
    expect(h.output()).toEqual([
      I('book', 1, 12, 1),
      I('book', 2, 19, 2),
      UA('book', 4, 11, 1),
      UA('book', 1, 12, 2),
      // UB ("book", 1L, 12)
      UA('book', 2, 19, 2),
      UA('book', 5, 11, 2),
      I('fruit', 4, 33, 1),
      I('fruit', 3, 44, 2),
      UA('fruit', 5, 22, 1),
      UA('fruit', 4, 33, 2),
    ]);
  });

  it('testProcessRetractMessageWithGenerateUpdateBefore', async () => {
    const h = await openRank(retract(constantRange(1, 2), true, true));
    await feed(h, [
      I('book', 1, 12),
      I('book', 2, 19),
      I('book', 4, 11),
      UB('book', 1, 12),
      I('book', 5, 11),
      I('fruit', 4, 33),
      I('fruit', 3, 44),
      I('fruit', 5, 22),
    ]);
    expect(h.output()).toEqual([
      I('book', 1, 12, 1),
      I('book', 2, 19, 2),
      UB('book', 1, 12, 1),
      UA('book', 4, 11, 1),
      UB('book', 2, 19, 2),
      UA('book', 1, 12, 2),
      // UB ("book", 1L, 12)
      UB('book', 1, 12, 2),
      UA('book', 2, 19, 2),
      UB('book', 2, 19, 2),
      UA('book', 5, 11, 2),
      I('fruit', 4, 33, 1),
      I('fruit', 3, 44, 2),
      UB('fruit', 4, 33, 1),
      UA('fruit', 5, 22, 1),
      UB('fruit', 3, 44, 2),
      UA('fruit', 4, 33, 2),
    ]);
  });

  it('testConstantRankRangeWithoutOffsetWithRowNumber (and its snapshot → restore)', async () => {
    const spec = retract(constantRange(1, 2), true, true);
    const h = await openRank(spec);
    await feed(h, [I('book', 1, 12), I('book', 2, 19), I('book', 4, 11), I('fruit', 4, 33), I('fruit', 3, 44), I('fruit', 5, 22)]);
    expect(h.output()).toEqual([
      I('book', 1, 12, 1),
      I('book', 2, 19, 2),
      UB('book', 1, 12, 1),
      UA('book', 4, 11, 1),
      UB('book', 2, 19, 2),
      UA('book', 1, 12, 2),
      I('fruit', 4, 33, 1),
      I('fruit', 3, 44, 2),
      UB('fruit', 4, 33, 1),
      UA('fruit', 5, 22, 1),
      UB('fruit', 3, 44, 2),
      UA('fruit', 4, 33, 2),
    ]);
    const restored = await OperatorHarness.restore(rankFactory(spec), h.snapshot());
    await restored.processElement(I('book', 1, 10));
    expect(restored.output()).toEqual([UB('book', 4, 11, 1), UA('book', 1, 10, 1), UB('book', 1, 12, 2), UA('book', 4, 11, 2)]);
  });

  it('testConstantRankRangeWithoutOffsetWithoutRowNumber (and its snapshot → restore)', async () => {
    const spec = retract(constantRange(1, 2), true, false);
    const h = await openRank(spec);
    await feed(h, [I('book', 1, 12), I('book', 2, 19), I('book', 4, 11), I('fruit', 4, 33), I('fruit', 3, 44), I('fruit', 5, 22)]);
    expect(h.output()).toEqual([
      I('book', 1, 12),
      I('book', 2, 19),
      D('book', 2, 19),
      I('book', 4, 11),
      I('fruit', 4, 33),
      I('fruit', 3, 44),
      D('fruit', 3, 44),
      I('fruit', 5, 22),
    ]);
    const restored = await OperatorHarness.restore(rankFactory(spec), h.snapshot());
    await restored.processElement(I('book', 1, 10));
    expect(restored.output()).toEqual([D('book', 1, 12), I('book', 1, 10)]);
  });

  it('testVariableRankRangeWithRowNumber', async () => {
    const h = await openRank(retract(VARIABLE_RANGE, true, true));
    await feed(h, [I('book', 2, 12), I('book', 2, 19), I('book', 2, 11), I('fruit', 1, 33), I('fruit', 1, 44), I('fruit', 1, 22)]);
    expect(h.output()).toEqual([
      I('book', 2, 12, 1),
      I('book', 2, 19, 2),
      UB('book', 2, 12, 1),
      UA('book', 2, 11, 1),
      UB('book', 2, 19, 2),
      UA('book', 2, 12, 2),
      I('fruit', 1, 33, 1),
      // ("fruit", 1L, 44): nothing, because it's Top-1
      UB('fruit', 1, 33, 1),
      UA('fruit', 1, 22, 1),
    ]);
  });

  it('testVariableRankRangeWithoutRowNumber', async () => {
    const h = await openRank(retract(VARIABLE_RANGE, true, false));
    await feed(h, [I('book', 2, 12), I('book', 2, 19), I('book', 2, 11), I('fruit', 1, 33), I('fruit', 1, 44), I('fruit', 1, 22)]);
    expect(h.output()).toEqual([
      I('book', 2, 12),
      I('book', 2, 19),
      D('book', 2, 19),
      I('book', 2, 11),
      I('fruit', 1, 33),
      D('fruit', 1, 33),
      I('fruit', 1, 22),
    ]);
  });

  it('testDisableGenerateUpdateBeforeWithRowNumber', async () => {
    const h = await openRank(retract(constantRange(1, 2), false, true));
    await feed(h, [I('book', 1, 12), I('book', 2, 19), I('book', 4, 11), I('fruit', 4, 33), I('fruit', 3, 44), I('fruit', 5, 22)]);
    expect(h.output()).toEqual([
      I('book', 1, 12, 1),
      I('book', 2, 19, 2),
      UA('book', 4, 11, 1),
      UA('book', 1, 12, 2),
      I('fruit', 4, 33, 1),
      I('fruit', 3, 44, 2),
      UA('fruit', 5, 22, 1),
      UA('fruit', 4, 33, 2),
    ]);
  });

  it('testDisableGenerateUpdateBeforeWithoutRowNumber', async () => {
    const h = await openRank(retract(constantRange(1, 2), false, false));
    await feed(h, [I('book', 1, 12), I('book', 2, 19), I('book', 4, 11), I('fruit', 4, 33), I('fruit', 3, 44), I('fruit', 5, 22)]);
    expect(h.output()).toEqual([
      I('book', 1, 12),
      I('book', 2, 19),
      D('book', 2, 19),
      I('book', 4, 11),
      I('fruit', 4, 33),
      I('fruit', 3, 44),
      D('fruit', 3, 44),
      I('fruit', 5, 22),
    ]);
  });

  it('testCleanIdleState', async () => {
    const h = await openRank(retract(constantRange(1, 2), true, true, 10_000_000));
    await h.setProcessingTime(0);
    await feed(h, [I('book', 1, 12), I('fruit', 5, 22)]);
    await h.setProcessingTime(9_000_000);
    await feed(h, [UB('book', 1, 12), I('fruit', 4, 11)]);
    // Both partitions have been idle for the 10,000,000 ms retention.
    await h.setProcessingTime(20_000_000);
    await feed(h, [I('fruit', 8, 100), I('book', 1, 12)]);
    expect(h.output()).toEqual([
      I('book', 1, 12, 1),
      I('fruit', 5, 22, 1),
      // UB ("book", 1L, 12)
      D('book', 1, 12, 1),
      // ("fruit", 4L, 11)
      UB('fruit', 5, 22, 1),
      UA('fruit', 4, 11, 1),
      I('fruit', 5, 22, 2),
      // after idle state expired
      I('fruit', 8, 100, 1),
      I('book', 1, 12, 1),
    ]);
  });

  it('testConstantRankRangeWithoutRowNumber', async () => {
    const h = await openRank(retract(constantRange(1, 3), false, false));
    await feed(h, [I('a', 1, 1), I('a', 2, 2), I('a', 3, 2), I('a', 4, 2), I('a', 5, 3), I('a', 6, 4), UB('a', 2, 2)]);
    expect(h.output()).toEqual([I('a', 1, 1), I('a', 2, 2), I('a', 3, 2), D('a', 2, 2), I('a', 4, 2)]);
  });

  it('testConstantRankRangeWithRowNumber', async () => {
    const h = await openRank(retract(constantRange(1, 3), false, true));
    await feed(h, [I('a', 1, 1), I('a', 2, 2), I('a', 3, 2), I('a', 4, 2), I('a', 5, 3), I('a', 6, 4), UB('a', 2, 2)]);
    expect(h.output()).toEqual([I('a', 1, 1, 1), I('a', 2, 2, 2), I('a', 3, 2, 3), UA('a', 3, 2, 2), UA('a', 4, 2, 3)]);
  });

  it('testRetractRecordOutOfRankRangeWithoutRowNumber', async () => {
    const h = await openRank(retract(constantRange(1, 2), false, false));
    await feed(h, [I('a', 1, 1), I('a', 2, 2), I('a', 3, 2), I('a', 4, 4), I('a', 5, 4)]);
    // delete records from out of rank range
    await feed(h, [D('a', 4, 4), D('a', 1, 1), D('a', 2, 2)]);
    expect(h.output()).toEqual([I('a', 1, 1), I('a', 2, 2), D('a', 1, 1), I('a', 3, 2), D('a', 2, 2), I('a', 5, 4)]);
  });

  it('testRetractRecordOutOfRankRangeWithRowNumber', async () => {
    const h = await openRank(retract(constantRange(1, 2), false, true));
    await feed(h, [I('a', 1, 1), I('a', 2, 2), I('a', 3, 2), I('a', 4, 4), I('a', 5, 4)]);
    await feed(h, [D('a', 4, 4), D('a', 1, 1), D('a', 2, 2)]);
    expect(h.output()).toEqual([
      I('a', 1, 1, 1),
      I('a', 2, 2, 2),
      UA('a', 2, 2, 1),
      UA('a', 3, 2, 2),
      UA('a', 3, 2, 1),
      UA('a', 5, 4, 2),
    ]);
  });

  it('testRetractAndThenDeleteRecordWithoutRowNumber', async () => {
    // A fourth INT column that is not part of the sort key.
    const schema = schemaOf({ category: 'STRING', id: 'BIGINT', price: 'INT', extra: 'INT' });
    const spec = topNSpec({ strategy: 'Retract', range: constantRange(1, 1), generateUpdateBefore: true, outputRankNumber: false });
    const r = (price: number, extra: number): Row => ({ category: 'a', id: 1, price, extra });
    const h = await openRank(spec, schema);
    await feed(h, [insert(r(10, 0)), insert(r(9, 0)), del(r(10, 0)), del(r(9, 0)), insert(r(10, 1)), insert(r(9, 1))]);
    expect(h.output()).toEqual([
      insert(r(10, 0)),
      del(r(10, 0)),
      insert(r(9, 0)),
      del(r(9, 0)),
      insert(r(10, 1)),
      del(r(10, 1)),
      insert(r(9, 1)),
    ]);
  });

  it('testRetractAnStaledRecordWithRowNumber', async () => {
    const h = await openRank(retract(constantRange(1, 2), true, true, 1_000));
    await h.setProcessingTime(0);
    await h.processElement(I('a', 1, 10));
    await h.setProcessingTime(1_001);
    await feed(h, [I('a', 2, 11), D('a', 1, 10)]);
    // "the following delete record should not be sent because the left row is null which is illegal"
    expect(h.output()).toEqual([I('a', 1, 10, 1), I('a', 2, 11, 1)]);
    expect(h.metrics.get(RANK_METRICS.retractMissing)).toBe(1);
  });

  it('retracts the earliest of equal rows, as Flink’s equaliser loop does', async () => {
    const h = await openRank(retract(constantRange(1, 3), true, true));
    await feed(h, [I('a', 1, 5), I('a', 2, 5), I('a', 1, 5), D('a', 1, 5)]);
    // Ties in arrival order: (1,5)@1, (2,5)@2, (1,5)@3; removing the first moves the others up.
    expect(h.extractOutput().slice(3)).toEqual([UB('a', 1, 5, 1), UA('a', 2, 5, 1), UB('a', 2, 5, 2), UA('a', 1, 5, 2), D('a', 1, 5, 3)]);
  });
});
