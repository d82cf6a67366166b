/**
 * AppendOnlyFirstN: Flink's AppendOnlyFirstNFunction case (ROW_NUMBER ordered by a
 * processing-time attribute ascending), after AppendOnlyFirstNFunctionTest: the first N rows of
 * each partition, then nothing.
 */
import { describe, expect, it } from 'vitest';
import { parseType } from '../../../shared/core/type-parse.ts';
import type { Row, Schema } from '../../../shared/core/types.ts';
import type { RankSpec } from '../../../shared/operators/rank/rank-spec.ts';
import { OperatorHarness, insert } from '../../harness/index.ts';
import { INPUT, VARIABLE_RANGE, constantRange, openRank, rankFactory } from './rank-test-kit.ts';

const schema: Schema = { fields: [...INPUT.fields, { name: 'pt', type: parseType('TIMESTAMP(3) NOT NULL'), timeAttribute: 'proctime' }] };

const spec = (range: RankSpec['rankRange'], rankNumber: boolean): RankSpec => ({
  strategy: 'AppendFast',
  rankType: 'ROW_NUMBER',
  partitionBy: ['category'],
  orderBy: [{ column: 'pt', direction: 'ASC', nullsFirst: true }],
  rankRange: range,
  ...(rankNumber ? { rankNumberColumn: 'rn' } : {}),
  generateUpdateBefore: true,
});

const r = (category: string, id: number): Row => ({ category, id, price: 0, pt: 0 });
const rn = (category: string, id: number, rank: number): Row => ({ ...r(category, id), rn: rank });

describe('Class: AppendOnlyFirstN', () => {
  it('emits the first N rows of each partition with their rank numbers', async () => {
    const h = await openRank(spec(constantRange(1, 2), true), schema);
    for (const row of [r('a', 1), r('a', 2), r('b', 3), r('a', 4), r('b', 5), r('b', 6)]) await h.processElement(insert(row));
    expect(h.output()).toEqual([insert(rn('a', 1, 1)), insert(rn('a', 2, 2)), insert(rn('b', 3, 1)), insert(rn('b', 5, 2))]);
  });

  it('honours the range start and a variable end, and survives a restore', async () => {
    const s = spec(constantRange(2, 3), false);
    const h = await openRank(s, schema);
    await h.processBatch([insert(r('a', 1)), insert(r('a', 2))]);
    const restored = await OperatorHarness.restore(rankFactory(s, schema), h.snapshot());
    await restored.processBatch([insert(r('a', 3)), insert(r('a', 4))]);
    expect([...h.output(), ...restored.output()]).toEqual([insert(r('a', 2)), insert(r('a', 3))]);

    // `rn <= id`: the first row of a partition fixes its end (2 here).
    const v = await openRank(spec(VARIABLE_RANGE, false), schema);
    await v.processBatch([insert(r('a', 2)), insert(r('a', 9)), insert(r('a', 1))]);
    expect(v.output()).toEqual([insert(r('a', 2)), insert(r('a', 9))]);
  });
});
