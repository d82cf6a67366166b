/**
 * Property: for any dimension table, probe changelog, batching, join type, condition, cache and
 * chunking, the lookup join emits exactly what a naive nested-loop join emits, in the same order.
 */
import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import type { ChangeRow, RowKind } from '../../shared/core/row.ts';
import { schemaOf } from '../../shared/core/type-parse.ts';
import type { Row } from '../../shared/core/types.ts';
import type { LookupCacheSpec, LookupJoinSpec } from '../../shared/lookup/lookup-join.ts';
import { createLookupJoinOperator } from '../../shared/lookup/lookup-join.ts';
import { col, gt } from '../../shared/plan/expr-build.ts';
import { OperatorHarness } from '../harness/index.ts';
import { recordingSource } from './helpers.ts';

const probeSchema = schemaOf({ seq: 'BIGINT NOT NULL', a: 'INT', b: 'STRING', w: 'INT' });
const dimSchema = schemaOf({ ka: 'BIGINT NOT NULL', kb: 'STRING NOT NULL', v: 'INT' });

const dimRow = fc.record({ ka: fc.integer({ min: 0, max: 4 }), kb: fc.constantFrom('x', 'y'), v: fc.option(fc.integer({ min: 0, max: 9 }), { nil: null }) });
const probeRow = fc.record({
  kind: fc.constantFrom<RowKind>('+I', '-U', '+U', '-D'),
  a: fc.option(fc.integer({ min: 0, max: 5 }), { nil: null }),
  b: fc.option(fc.constantFrom('x', 'y', 'z'), { nil: null }),
  w: fc.integer({ min: 0, max: 9 }),
});
const cacheSpec: fc.Arbitrary<LookupCacheSpec> = fc.oneof(
  fc.constant<LookupCacheSpec>({ type: 'NONE' }),
  fc.integer({ min: 1, max: 4 }).map((maxRows): LookupCacheSpec => ({ type: 'PARTIAL', maxRows })),
  fc.constant<LookupCacheSpec>({ type: 'FULL' }),
);

/** The reference: for each probe row in order, each dimension row in table order. */
function nestedLoop(probe: readonly ChangeRow[], dims: readonly Row[], left: boolean, withCondition: boolean): ChangeRow[] {
  const out: ChangeRow[] = [];
  for (const { kind, row } of probe) {
    let matched = false;
    for (const d of dims) {
      if (row.a === null || row.b === null || d.ka !== row.a || d.kb !== row.b) continue;
      if (withCondition && !(d.v !== null && (d.v as number) > (row.w as number))) continue;
      out.push({ kind, row: { ...row, ...d } });
      matched = true;
    }
    if (!matched && left) out.push({ kind, row: { ...row, ka: null, kb: null, v: null } });
  }
  return out;
}

describe('lookup join vs nested-loop join', () => {
  test.prop(
    [
      fc.array(dimRow, { maxLength: 12 }),
      fc.array(probeRow, { maxLength: 30 }),
      fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1, maxLength: 6 }),
      fc.boolean(),
      fc.boolean(),
      cacheSpec,
      fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
    ],
    { numRuns: 150 },
  )('same rows, same order', async (dims, probes, batchSizes, left, withCondition, cache, batchSize) => {
    const probe: ChangeRow[] = probes.map(({ kind, ...r }, seq) => ({ kind, row: { seq, ...r } }));
    const spec: LookupJoinSpec = {
      table: 'dim',
      joinType: left ? 'LEFT' : 'INNER',
      keys: [
        { probe: 'a', lookup: 'ka' },
        { probe: 'b', lookup: 'kb' },
      ],
      dimensionSchema: dimSchema,
      cache,
      ...(batchSize === undefined ? {} : { batchSize, maxConcurrency: 2 }),
      ...(withCondition ? { condition: gt(col('v'), col('w')) } : {}),
    };
    const h = await OperatorHarness.open(() => createLookupJoinOperator(spec, probeSchema, recordingSource(dims, dimSchema)));
    const out: ChangeRow[] = [];
    let i = 0;
    for (let s = 0; i < probe.length; s++) {
      const size = batchSizes[s % batchSizes.length]!;
      out.push(...(await h.processBatch(probe.slice(i, i + size))));
      i += size;
    }
    expect(out).toEqual(nestedLoop(probe, dims, left, withCondition));
  });
});
