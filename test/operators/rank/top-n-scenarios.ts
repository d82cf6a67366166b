/**
 * The scenarios of Flink's TopNFunctionTestBase (flink-table-runtime, operators/rank), run
 * against every Top-N variant whose input they fit — as Flink's base class runs them against
 * AppendOnlyTopNFunction, RetractableTopNFunction and UpdatableTopNFunction. Each `it` names the
 * Flink test it reproduces; the expected changelogs are Flink's, row for row.
 */
import { describe, expect, it } from 'vitest';
import { PlanError } from '../../../shared/core/errors.ts';
import { createRankOperator } from '../../../shared/operators/rank/rank-operator.ts';
import type { RankStrategy } from '../../../shared/operators/rank/rank-spec.ts';
import { OperatorHarness } from '../../harness/index.ts';
import { D, I, INPUT, UA, UB, VARIABLE_RANGE, constantRange, feed, openRank, rankFactory, topNSpec } from './rank-test-kit.ts';

/** Options of {@link describeTopNBaseScenarios}. */
export interface BaseScenarioOptions {
  /** Skip testOutputRankNumberWithVariableRankRange (UpdatableTopNFunctionTest overrides it). */
  readonly overridesVariableRankRange?: boolean;
}

/** Registers the TopNFunctionTestBase scenarios for one strategy. */
export function describeTopNBaseScenarios(strategy: RankStrategy, options: BaseScenarioOptions = {}): void {
  const spec = (range: ReturnType<typeof constantRange>, generateUpdateBefore: boolean, outputRankNumber: boolean) =>
    topNSpec({ strategy, range, generateUpdateBefore, outputRankNumber });

  describe(`TopNFunctionTestBase scenarios (${strategy})`, () => {
    // testInvalidVariableRankRangeWithIntType: "RankEnd column must be long, int or short type".
    it('rejects a rank end column that is not an integer (testInvalidVariableRankRangeWithIntType)', () => {
      const bad = topNSpec({ strategy, range: { type: 'variable', endColumn: 'category' }, generateUpdateBefore: true, outputRankNumber: false });
      expect(() => createRankOperator(bad, INPUT)).toThrow(PlanError);
      expect(() => createRankOperator(bad, INPUT)).toThrow(/rank end column 'category' must be INT or BIGINT, got STRING/);
    });

    // testNotSupportWithoutRankEnd: ConstantRankRangeWithoutEnd is rejected.
    it('rejects a range without an end (testNotSupportWithoutRankEnd)', () => {
      const bad = spec(constantRange(1, Infinity), true, true);
      expect(() => createRankOperator(bad, INPUT)).toThrow(/range \[start=1, end=Infinity\] has no end/);
    });

    // testNotSupportRank / testNotSupportDenseRank: Flink throws; here both are supported.
    it('accepts RANK and DENSE_RANK, which Flink rejects (testNotSupportRank, testNotSupportDenseRank)', () => {
      for (const rankType of ['RANK', 'DENSE_RANK'] as const) {
        expect(() => createRankOperator({ ...spec(constantRange(1, 10), true, true), rankType }, INPUT)).not.toThrow();
      }
    });

    it('testDisableGenerateUpdateBefore', async () => {
      const h = await openRank(spec(constantRange(1, 2), false, false));
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
      // "Delete message will be sent even disable generate retraction when not output rankNumber."
      expect(h.output()).toEqual([
        I('book', 1, 12),
        I('book', 2, 19),
        D('book', 2, 19),
        I('book', 4, 11),
        D('book', 1, 12),
        I('book', 5, 11),
        I('fruit', 4, 33),
        I('fruit', 3, 44),
        D('fruit', 3, 44),
        I('fruit', 5, 22),
      ]);
    });

    it('testDisableGenerateUpdateBeforeAndOutputRankNumber', async () => {
      const h = await openRank(spec(constantRange(1, 2), false, true));
      await feed(h, [
        I('book', 1, 12),
        I('book', 2, 19),
        I('book', 4, 11),
        I('book', 5, 11),
        I('fruit', 4, 33),
        I('fruit', 3, 44),
        I('fruit', 5, 22),
      ]);
      // "Retract message will not be sent if disable generate retraction and output rankNumber.
      // Because partition key + rankNumber decomposes a uniqueKey."
      expect(h.output()).toEqual([
        I('book', 1, 12, 1),
        I('book', 2, 19, 2),
        UA('book', 4, 11, 1),
        UA('book', 1, 12, 2),
        UA('book', 5, 11, 2),
        I('fruit', 4, 33, 1),
        I('fruit', 3, 44, 2),
        UA('fruit', 5, 22, 1),
        UA('fruit', 4, 33, 2),
      ]);
    });

    it('testOutputRankNumberWithConstantRankRange', async () => {
      const h = await openRank(spec(constantRange(1, 2), true, true));
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
        I('book', 2, 19, 2),
        UB('book', 1, 12, 1),
        UA('book', 4, 11, 1),
        UB('book', 2, 19, 2),
        UA('book', 1, 12, 2),
        UB('book', 1, 12, 2),
        UA('book', 5, 11, 2),
        I('fruit', 4, 33, 1),
        I('fruit', 3, 44, 2),
        UB('fruit', 4, 33, 1),
        UA('fruit', 5, 22, 1),
        UB('fruit', 3, 44, 2),
        UA('fruit', 4, 33, 2),
      ]);
    });

    it('testConstantRankRangeWithOffset', async () => {
      const h = await openRank(spec(constantRange(2, 2), true, false));
      await feed(h, [I('book', 1, 12), I('book', 2, 19), I('book', 4, 11), I('fruit', 4, 33), I('fruit', 3, 44), I('fruit', 5, 22)]);
      expect(h.output()).toEqual([
        I('book', 2, 19),
        UB('book', 2, 19),
        UA('book', 1, 12),
        I('fruit', 3, 44),
        UB('fruit', 3, 44),
        UA('fruit', 4, 33),
      ]);
    });

    if (!options.overridesVariableRankRange) {
      it('testOutputRankNumberWithVariableRankRange', async () => {
        const h = await openRank(spec(VARIABLE_RANGE, true, true));
        await feed(h, [I('book', 2, 12), I('book', 2, 19), I('book', 2, 11), I('fruit', 1, 33), I('fruit', 1, 44), I('fruit', 1, 22)]);
        expect(h.output()).toEqual([
          I('book', 2, 12, 1),
          I('book', 2, 19, 2),
          UB('book', 2, 12, 1),
          UA('book', 2, 11, 1),
          UB('book', 2, 19, 2),
          UA('book', 2, 12, 2),
          I('fruit', 1, 33, 1),
          UB('fruit', 1, 33, 1),
          UA('fruit', 1, 22, 1),
        ]);
      });
    }

    it('testConstantRankRangeWithoutOffset (and its snapshot → restore)', async () => {
      const s = spec(constantRange(1, 2), true, false);
      const h = await openRank(s);
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
      // "do a snapshot, data could be recovered from state"
      const restored = await OperatorHarness.restore(rankFactory(s), h.snapshot());
      await restored.processElement(I('book', 5, 10));
      expect(restored.output()).toEqual([D('book', 1, 12), I('book', 5, 10)]);
    });
  });
}
