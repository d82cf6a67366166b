/**
 * AppendOnlyTopN: Flink's AppendOnlyTopNFunctionTest (plus the TopNFunctionTestBase scenarios
 * in top-n-base.test.ts), and the AppendFast contract.
 */
import { describe, expect, it } from 'vitest';
import { PlanError } from '../../../shared/core/errors.ts';
import { encodeKey } from '../../../shared/partition/key-encoding.ts';
import { APPEND_DATA_STATE, AppendOnlyTopN } from '../../../shared/operators/rank/append-only-top-n.ts';
import { createRankOperator } from '../../../shared/operators/rank/rank-operator.ts';
import { D, I, INPUT, VARIABLE_RANGE, constantRange, feed, openRank, row, topNSpec } from './rank-test-kit.ts';

describe('Class: AppendOnlyTopN', () => {
  it('is what AppendFast builds outside the top-1 and first-N fast paths', () => {
    const spec = topNSpec({ strategy: 'AppendFast', range: constantRange(1, 2), generateUpdateBefore: true, outputRankNumber: false });
    expect(createRankOperator(spec, INPUT)).toBeInstanceOf(AppendOnlyTopN);
  });

  // AppendOnlyTopNFunctionTest.testVariableRankRange
  it('testVariableRankRange', async () => {
    const h = await openRank(topNSpec({ strategy: 'AppendFast', range: VARIABLE_RANGE, generateUpdateBefore: true, outputRankNumber: false }));
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

  it('keeps only the top rows: a row ranked after them is neither emitted nor stored', async () => {
    const h = await openRank(topNSpec({ strategy: 'AppendFast', range: constantRange(1, 2), generateUpdateBefore: true, outputRankNumber: false }));
    await feed(h, [I('a', 1, 1), I('a', 2, 2), I('a', 3, 3), I('a', 4, 4), I('a', 5, 0)]);
    expect(h.output()).toEqual([I('a', 1, 1), I('a', 2, 2), D('a', 2, 2), I('a', 5, 0)]);
    // State holds the partition's two kept rows, in rank order, as one value.
    const table = h.snapshot().state.tables.find((t) => t.name === APPEND_DATA_STATE);
    expect(table?.entries).toEqual([[encodeKey(['a']), [row('a', 5, 0), row('a', 1, 1)]]]);
  });

  it('rejects a retraction: AppendFast needs an insert-only input', async () => {
    const h = await openRank(topNSpec({ strategy: 'AppendFast', range: constantRange(1, 2), generateUpdateBefore: true, outputRankNumber: false }));
    await expect(h.processElement(D('a', 1, 1))).rejects.toThrow(PlanError);
    const h2 = await openRank(topNSpec({ strategy: 'AppendFast', range: constantRange(1, 2), generateUpdateBefore: true, outputRankNumber: false }));
    await expect(h2.processElement(D('a', 1, 1))).rejects.toThrow(/received a '-D' row but the AppendFast strategy needs an insert-only input/);
  });
});
