/**
 * Property: for any insert-only stream (random keys, rowtimes with ties, repeated rows), any
 * batch split and an optional snapshot → restore mid-stream, every Deduplicate variant emits a
 * well-formed changelog whose materialization by key is the first/last row per key by the rule
 * Flink applies, and the changelog is the same as processing the rows one by one.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import type { ChangeRow } from '../../../shared/core/row.ts';
import { parseType } from '../../../shared/core/type-parse.ts';
import type { Row, Schema, Value } from '../../../shared/core/types.ts';
import { createDeduplicateOperator, type DeduplicateSpec } from '../../../shared/operators/dedup/deduplicate-operator.ts';
import { encodeKey } from '../../../shared/partition/key-encoding.ts';
import { OperatorHarness, formatRow, insert, materialize } from '../../harness/index.ts';

const schema: Schema = {
  fields: [
    { name: 'k', type: parseType('STRING') },
    { name: 'g', type: parseType('INT NOT NULL') },
    { name: 'v', type: parseType('INT') },
    { name: 'ts', type: parseType('TIMESTAMP(3) NOT NULL'), timeAttribute: 'rowtime' },
    { name: 'pt', type: parseType('TIMESTAMP(3)'), timeAttribute: 'proctime' },
  ],
};

/** Few keys, values and rowtimes, so that duplicates, equal rows and rowtime ties are common. */
const rowArb: fc.Arbitrary<Row> = fc.record({
  k: fc.constantFrom<Value>('a', 'b', 'c', null),
  g: fc.constantFrom(0, 1),
  v: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
  ts: fc.integer({ min: 0, max: 4 }),
  pt: fc.constant(null),
});

/**
 * The kept row per key, stated as an ordering of each key's rows by (time, arrival): keep first
 * takes the smallest, keep last the largest. Processing time orders by arrival alone, so ties in
 * rowtime go to the earlier arrival for keep first and to the later arrival for keep last.
 */
function reference(rows: readonly Row[], spec: DeduplicateSpec): Map<string, Row> {
  const byKey = new Map<string, { row: Row; at: number }[]>();
  rows.forEach((row, at) => {
    const key = encodeKey(spec.keys.map((c) => row[c] ?? null));
    byKey.set(key, [...(byKey.get(key) ?? []), { row, at }]);
  });
  const time = (row: Row): number => (spec.timeDomain === 'event' ? (row['ts'] as number) : 0);
  const kept = new Map<string, Row>();
  for (const [key, candidates] of byKey) {
    const ordered = [...candidates].sort((x, y) => time(x.row) - time(y.row) || x.at - y.at);
    kept.set(key, (spec.keep === 'first' ? ordered[0] : ordered[ordered.length - 1])!.row);
  }
  return kept;
}

/**
 * Checks the changelog's shape per key: `+I` only for a key that is not live, `-U` only right
 * before a `+U` and retracting exactly the live row, `+U` only for a live key, no `-D`, no `-U`
 * without `generateUpdateBefore`, and nothing but `+I` from processing-time keep first.
 */
function checkShape(changelog: readonly ChangeRow[], spec: DeduplicateSpec): void {
  const live = new Map<string, Row>();
  const fail = (i: number, why: string): never => {
    throw new Error(`changelog[${i}] ${changelog[i]!.kind} ${formatRow(changelog[i]!.row)}: ${why}`);
  };
  changelog.forEach((change, i) => {
    const key = encodeKey(spec.keys.map((c) => change.row[c] ?? null));
    const current = live.get(key);
    switch (change.kind) {
      case '+I':
        if (current !== undefined) fail(i, 'insert of a live key');
        live.set(key, change.row);
        break;
      case '-U':
        if (!spec.generateUpdateBefore) fail(i, 'update-before without generateUpdateBefore');
        if (current === undefined || formatRow(current) !== formatRow(change.row)) fail(i, 'does not retract the live row');
        if (changelog[i + 1]?.kind !== '+U') fail(i, 'not followed by +U');
        break;
      case '+U':
        if (current === undefined) fail(i, 'update of a key that is not live');
        if (spec.generateUpdateBefore && changelog[i - 1]?.kind !== '-U') fail(i, 'not preceded by -U');
        live.set(key, change.row);
        break;
      case '-D':
        fail(i, 'deduplication never deletes');
    }
    if (spec.keep === 'first' && spec.timeDomain === 'processing' && change.kind !== '+I') fail(i, 'keep first on processing time is insert-only');
  });
}

/** Splits `rows` into consecutive batches whose sizes cycle through `sizes`. */
function split<T>(rows: readonly T[], sizes: readonly number[]): T[][] {
  const batches: T[][] = [];
  let at = 0;
  for (let i = 0; at < rows.length; i++) {
    const size = sizes[i % sizes.length]!;
    batches.push(rows.slice(at, at + size));
    at += size;
  }
  return batches;
}

const byKey =
  (keys: readonly string[]) =>
  (a: Row, b: Row): number => {
    const ka = encodeKey(keys.map((c) => a[c] ?? null));
    const kb = encodeKey(keys.map((c) => b[c] ?? null));
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  };

describe('Deduplicate property', () => {
  it('materializes to the first/last row per key, with a well-formed changelog, whatever the batches and restores', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowArb, { maxLength: 60 }),
        fc.constantFrom<readonly string[]>(['k'], ['k', 'g'], []),
        fc.constantFrom<'first' | 'last'>('first', 'last'),
        fc.constantFrom<'event' | 'processing'>('event', 'processing'),
        fc.boolean(),
        // A TTL that never elapses here still switches Flink's keep-last to emitting equal rows.
        fc.constantFrom<number | undefined>(undefined, 3_600_000),
        fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 5 }),
        fc.option(fc.nat(), { nil: undefined }),
        async (rows, keys, keep, timeDomain, generateUpdateBefore, stateTtlMs, sizes, restoreAt) => {
          const spec: DeduplicateSpec = {
            keys,
            keep,
            orderColumn: timeDomain === 'event' ? 'ts' : 'pt',
            timeDomain,
            generateUpdateBefore,
            ...(stateTtlMs === undefined ? {} : { stateTtlMs }),
          };
          const factory = (): ReturnType<typeof createDeduplicateOperator> => createDeduplicateOperator(spec, schema);
          const batches = split(rows.map(insert), sizes);
          const restoreBatch = restoreAt === undefined || batches.length === 0 ? -1 : restoreAt % batches.length;

          let harness = await OperatorHarness.open(factory);
          const output: ChangeRow[] = [];
          for (let b = 0; b < batches.length; b++) {
            if (b === restoreBatch) {
              output.push(...harness.extractOutput());
              harness = await OperatorHarness.restore(factory, structuredClone(harness.snapshot()));
            }
            await harness.processBatch(batches[b]!);
          }
          output.push(...harness.extractOutput());

          // Per-record semantics: batching and restoring change nothing in the changelog.
          const oneByOne = await OperatorHarness.open(factory);
          await oneByOne.processElements(...rows.map(insert));
          expect(output).toEqual(oneByOne.output());

          checkShape(output, spec);
          const expected = [...reference(rows, spec).values()].sort(byKey(keys));
          expect(materialize(output, keys).sort(byKey(keys))).toEqual(expected);
          if (generateUpdateBefore || (keep === 'first' && timeDomain === 'processing')) {
            // A retract changelog is also well formed as a multiset: every -U matches a live row.
            expect(materialize(output).sort(byKey(keys))).toEqual(expected);
          }
          expect(harness.state.stats().entries).toBe(expected.length);
        },
      ),
      { numRuns: 300 },
    );
  });
});
