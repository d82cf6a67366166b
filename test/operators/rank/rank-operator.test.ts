/**
 * createRankOperator / rankOutputSchema: the output schema, spec validation with errors that
 * name the bad values, and the choice of operator per strategy.
 */
import { describe, expect, it } from 'vitest';
import { PlanError } from '../../../shared/core/errors.ts';
import { parseType, schemaOf } from '../../../shared/core/type-parse.ts';
import type { Schema } from '../../../shared/core/types.ts';
import { AppendOnlyFirstN } from '../../../shared/operators/rank/append-only-first-n.ts';
import { AppendOnlyTopN } from '../../../shared/operators/rank/append-only-top-n.ts';
import { FastTop1 } from '../../../shared/operators/rank/fast-top1.ts';
import { createRankOperator, rankOutputSchema } from '../../../shared/operators/rank/rank-operator.ts';
import type { RankSpec } from '../../../shared/operators/rank/rank-spec.ts';
import { RetractableTopN } from '../../../shared/operators/rank/retractable-top-n.ts';
import { UpdatableTopN } from '../../../shared/operators/rank/updatable-top-n.ts';
import { RANK_METRICS } from '../../../shared/operators/rank/abstract-top-n.ts';
import { D, I, INPUT, constantRange, feed, openRank, topNSpec } from './rank-test-kit.ts';

const base = topNSpec({ strategy: 'Retract', range: constantRange(1, 3), generateUpdateBefore: true, outputRankNumber: true });

describe('rankOutputSchema', () => {
  it('is the input columns, then the rank number as BIGINT NOT NULL', () => {
    expect(rankOutputSchema(base, INPUT)).toEqual(schemaOf({ category: 'STRING', id: 'BIGINT', price: 'INT', rn: 'BIGINT NOT NULL' }));
  });

  it('is the input schema when the rank number is not output, time attributes included', () => {
    const input: Schema = { fields: [...INPUT.fields, { name: 'ts', type: parseType('TIMESTAMP(3)'), timeAttribute: 'rowtime' }] };
    const { rankNumberColumn: _, ...spec } = base;
    expect(rankOutputSchema(spec, input)).toEqual(input);
  });
});

describe('createRankOperator validation', () => {
  const rejects = (spec: RankSpec, message: RegExp): void => {
    expect(() => createRankOperator(spec, INPUT)).toThrow(PlanError);
    expect(() => createRankOperator(spec, INPUT)).toThrow(message);
  };

  it('names the bounds of an invalid constant range', () => {
    rejects({ ...base, rankRange: constantRange(3, 2) }, /range \[start=3, end=2\] is empty/);
    // `rn < 1` is [1, 0].
    rejects({ ...base, rankRange: constantRange(1, 0) }, /range \[start=1, end=0\] is empty/);
    rejects({ ...base, rankRange: constantRange(0, 5) }, /range \[start=0, end=5\] must start at 1/);
    rejects({ ...base, rankRange: constantRange(1, 2.5) }, /range \[start=1, end=2.5\] must have integer bounds/);
    rejects({ ...base, rankRange: constantRange(1, Infinity) }, /range \[start=1, end=Infinity\] has no end/);
    rejects({ ...base, rankRange: undefined as unknown as RankSpec['rankRange'] }, /a rank range is required/);
  });

  it('checks the variable range column', () => {
    rejects({ ...base, rankRange: { type: 'variable', endColumn: 'nope' } }, /Column 'nope' not found in Rank range end/);
    rejects({ ...base, rankRange: { type: 'variable', endColumn: 'category' } }, /must be INT or BIGINT, got STRING/);
  });

  it('checks columns, names and options', () => {
    rejects({ ...base, partitionBy: ['nope'] }, /Column 'nope' not found in Rank PARTITION BY/);
    rejects({ ...base, orderBy: [] }, /ORDER BY needs at least one column/);
    rejects({ ...base, rankNumberColumn: 'price' }, /rank number column 'price' clashes with an input column/);
    rejects({ ...base, strategy: 'Fast' as RankSpec['strategy'] }, /unknown strategy "Fast"/);
    rejects({ ...base, rankType: 'NTILE' as RankSpec['rankType'] }, /unknown rank type "NTILE"/);
    rejects({ ...base, cacheSize: 0 }, /cacheSize must be a positive integer number of partitions, got 0/);
    rejects({ ...base, stateTtlMs: NaN }, /stateTtlMs must be a finite number of milliseconds, got NaN/);
    rejects({ ...base, strategy: 'UpdateFast' }, /UpdateFast strategy needs the upsert key/);
  });
});

describe('createRankOperator dispatch (StreamExecRank)', () => {
  const proctimeInput: Schema = {
    fields: [...INPUT.fields, { name: 'pt', type: parseType('TIMESTAMP(3) NOT NULL'), timeAttribute: 'proctime' }],
  };
  const cases: [string, RankSpec, Schema, unknown][] = [
    ['AppendFast', { ...base, strategy: 'AppendFast' }, INPUT, AppendOnlyTopN],
    ['AppendFast in [1, 1]', { ...base, strategy: 'AppendFast', rankRange: constantRange(1, 1) }, INPUT, FastTop1],
    [
      'AppendFast by proctime ASC',
      { ...base, strategy: 'AppendFast', orderBy: [{ column: 'pt', direction: 'ASC', nullsFirst: true }] },
      proctimeInput,
      AppendOnlyFirstN,
    ],
    [
      'AppendFast RANK by proctime ASC',
      { ...base, strategy: 'AppendFast', rankType: 'RANK', orderBy: [{ column: 'pt', direction: 'ASC', nullsFirst: true }] },
      proctimeInput,
      AppendOnlyTopN,
    ],
    ['Retract', base, INPUT, RetractableTopN],
    ['Retract in [1, 1]', { ...base, rankRange: constantRange(1, 1) }, INPUT, RetractableTopN],
    ['UpdateFast', { ...base, strategy: 'UpdateFast', upsertKey: ['category', 'id'] }, INPUT, UpdatableTopN],
  ];
  for (const [name, spec, schema, type] of cases) {
    it(`${name} → ${(type as { name: string }).name}`, () => {
      expect(createRankOperator(spec, schema)).toBeInstanceOf(type as new (...args: never[]) => unknown);
    });
  }
});

describe('variable rank range (`rn <= column`)', () => {
  it('counts rows disagreeing with their partition’s end, and drops a first row without a usable end', async () => {
    const spec = topNSpec({ strategy: 'Retract', range: { type: 'variable', endColumn: 'id' }, generateUpdateBefore: true, outputRankNumber: false });
    const h = await openRank(spec);
    // id 0 cannot fix an end (ranks start at 1): dropped, counted.
    await feed(h, [I('a', 0, 5), I('a', 2, 5), I('a', 3, 4), I('a', 2, 3)]);
    expect(h.output()).toEqual([I('a', 2, 5), I('a', 3, 4), D('a', 2, 5), I('a', 2, 3)]);
    expect(h.metrics.get(RANK_METRICS.invalidRankEnd)).toBe(1);
    // Flink's topn.invalidTopSize: (a, 3, 4) says 3 where the partition's end is 2.
    expect(h.metrics.get(RANK_METRICS.invalidTopSize)).toBe(1);
  });
});
