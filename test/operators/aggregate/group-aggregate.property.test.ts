/**
 * Property: for any valid changelog input, split into any batches and optionally restored from a
 * snapshot mid-stream, the operator's output is a well-formed changelog whose materialization is
 * exactly the aggregates recomputed from scratch over the rows still live.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import type { ChangeRow } from '../../../shared/core/row.ts';
import { schemaOf } from '../../../shared/core/type-parse.ts';
import type { Row, Value } from '../../../shared/core/types.ts';
import type { AggCallSpec } from '../../../shared/operators/aggregate/agg-call.ts';
import { createGroupAggregateOperator, type GroupAggregateSpec } from '../../../shared/operators/aggregate/group-aggregate.ts';
import { OperatorHarness, del, insert, materialize, updateAfter, updateBefore } from '../../harness/index.ts';

const schema = schemaOf({
  k: 'STRING',
  g: 'INT NOT NULL',
  v: 'INT',
  d: 'DECIMAL(10, 2)',
  x: 'DOUBLE',
  s: 'STRING',
  f: 'BOOLEAN',
  f2: 'BOOLEAN NOT NULL',
});

/** Every call the property may pick from; the test uses a random non-empty subset. */
const ALL_CALLS: readonly AggCallSpec[] = [
  { fn: 'COUNT', distinct: false, name: 'cnt' },
  { fn: 'COUNT', distinct: false, filterField: 'f', name: 'cnt_f' },
  { fn: 'COUNT', arg: 'v', distinct: false, name: 'cnt_v' },
  { fn: 'COUNT', arg: 's', distinct: true, name: 'cnt_ds' },
  { fn: 'COUNT', arg: 's', distinct: true, filterField: 'f', name: 'cnt_ds_f' },
  { fn: 'SUM', arg: 'v', distinct: false, name: 'sum_v' },
  { fn: 'SUM', arg: 'v', distinct: true, name: 'sum_dv' },
  { fn: 'SUM', arg: 'd', distinct: false, filterField: 'f2', name: 'sum_d_f2' },
  { fn: 'SUM', arg: 'x', distinct: false, name: 'sum_x' },
  { fn: 'MIN', arg: 'v', distinct: false, name: 'min_v' },
  { fn: 'MAX', arg: 'd', distinct: false, name: 'max_d' },
  { fn: 'MIN', arg: 's', distinct: false, filterField: 'f', name: 'min_s_f' },
  { fn: 'MAX', arg: 's', distinct: true, filterField: 'f2', name: 'max_ds_f2' },
  { fn: 'MIN', arg: 'x', distinct: true, name: 'min_dx' },
  { fn: 'AVG', arg: 'v', distinct: false, name: 'avg_v' },
  { fn: 'AVG', arg: 'd', distinct: false, name: 'avg_d' },
  { fn: 'AVG', arg: 'd', distinct: true, filterField: 'f2', name: 'avg_dd_f2' },
  { fn: 'AVG', arg: 'x', distinct: false, filterField: 'f', name: 'avg_x_f' },
];

const rowArb: fc.Arbitrary<Row> = fc.record({
  k: fc.constantFrom<Value>('a', 'b', 'c', null),
  g: fc.constantFrom(0, 1),
  v: fc.option(fc.integer({ min: -5, max: 5 }), { nil: null }),
  d: fc.option(fc.bigInt({ min: -500n, max: 500n }), { nil: null }),
  // Integer-valued doubles keep sums exact, so retraction restores them bit for bit.
  x: fc.option(fc.integer({ min: -100, max: 100 }), { nil: null }),
  s: fc.option(fc.constantFrom('p', 'q', 'r'), { nil: null }),
  f: fc.option(fc.boolean(), { nil: null }),
  f2: fc.boolean(),
});

type Command = { readonly op: 'insert'; readonly row: Row } | { readonly op: 'delete'; readonly i: number } | { readonly op: 'update'; readonly i: number; readonly row: Row };

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 3, arbitrary: rowArb.map((row): Command => ({ op: 'insert', row })) },
  { weight: 1, arbitrary: fc.nat().map((i): Command => ({ op: 'delete', i })) },
  { weight: 1, arbitrary: fc.tuple(fc.nat(), rowArb).map(([i, row]): Command => ({ op: 'update', i, row })) },
);

/** Turns commands into a valid changelog (only live rows are retracted) and the final live rows. */
function buildChangelog(commands: readonly Command[]): { changelog: ChangeRow[]; live: Row[] } {
  const live: Row[] = [];
  const changelog: ChangeRow[] = [];
  for (const command of commands) {
    if (command.op === 'insert' || live.length === 0) {
      const row = command.op === 'delete' ? undefined : command.row;
      if (row === undefined) continue;
      live.push(row);
      changelog.push(insert(row));
    } else {
      const [old] = live.splice(command.i % live.length, 1);
      if (command.op === 'delete') {
        changelog.push(del(old!));
      } else {
        changelog.push(updateBefore(old!), updateAfter(command.row));
        live.push(command.row);
      }
    }
  }
  return { changelog, live };
}

// ---- Reference model: every aggregate recomputed from scratch, independently of the operator. ----

function numericSum(values: readonly Value[]): number | bigint {
  return values.reduce<number | bigint>((a, b) => (typeof b === 'bigint' ? (a as bigint) + b : (a as number) + (b as number)), typeof values[0] === 'bigint' ? 0n : 0);
}

function extreme(values: readonly Value[], max: boolean): Value {
  return values.reduce<Value>((best, v) => (best === null || (max ? (v as number) > (best as number) : (v as number) < (best as number)) ? v : best), null);
}

/** DECIMAL(10, 2) average into scale 6, HALF_UP (ties away from zero). */
function decimalAvg(sum: bigint, count: number): bigint {
  const scaled = sum * 10_000n;
  const c = BigInt(count);
  const q = scaled / c;
  const r = scaled % c;
  const twice = (r < 0n ? -r : r) * 2n;
  return twice >= c ? q + (scaled < 0n ? -1n : 1n) : q;
}

function referenceAggregate(call: AggCallSpec, rows: readonly Row[]): Value {
  const filtered = call.filterField === undefined ? rows : rows.filter((r) => r[call.filterField!] === true);
  if (call.arg === undefined) return filtered.length;
  let values = filtered.map((r) => r[call.arg!] ?? null).filter((v) => v !== null);
  if (call.distinct) values = [...new Map(values.map((v) => [`${typeof v}:${String(v)}`, v])).values()];
  switch (call.fn) {
    case 'COUNT':
      return values.length;
    case 'SUM':
      return values.length === 0 ? null : numericSum(values);
    case 'MIN':
      return extreme(values, false);
    case 'MAX':
      return extreme(values, true);
    case 'AVG': {
      if (values.length === 0) return null;
      const sum = numericSum(values);
      if (typeof sum === 'bigint') return decimalAvg(sum, values.length);
      // Java's long division truncates toward zero and has no negative zero.
      return call.arg === 'v' ? Math.trunc(sum / values.length) || 0 : sum / values.length;
    }
    default:
      throw new Error(`no reference for ${call.fn}`);
  }
}

function referenceResult(spec: GroupAggregateSpec, live: readonly Row[]): Row[] {
  const groups = new Map<string, Row[]>();
  for (const row of live) {
    const id = JSON.stringify(spec.groupBy.map((c) => row[c]));
    groups.set(id, [...(groups.get(id) ?? []), row]);
  }
  return [...groups.values()].map((rows) => {
    const out: Record<string, Value> = {};
    for (const c of spec.groupBy) out[c] = rows[0]![c] ?? null;
    for (const call of spec.aggCalls) out[call.name] = referenceAggregate(call, rows);
    return out;
  });
}

const byGroup =
  (groupBy: readonly string[]) =>
  (a: Row, b: Row): number => {
    const ka = JSON.stringify(groupBy.map((c) => a[c]));
    const kb = JSON.stringify(groupBy.map((c) => b[c]));
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  };

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

describe('GroupAggregate property', () => {
  it('materializes to the aggregates of the live input rows', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(commandArb, { maxLength: 80 }),
        fc.constantFrom<readonly string[]>(['k'], ['k', 'g'], []),
        fc.subarray([...ALL_CALLS], { minLength: 1 }),
        fc.boolean(),
        fc.constantFrom<number | undefined>(undefined, 3_600_000),
        fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 5 }),
        fc.option(fc.nat(), { nil: undefined }),
        async (commands, groupBy, aggCalls, generateUpdateBefore, stateTtlMs, sizes, restoreAt) => {
          const spec: GroupAggregateSpec = {
            groupBy,
            aggCalls,
            generateUpdateBefore,
            ...(stateTtlMs !== undefined ? { stateTtlMs } : {}),
          };
          const factory = (): ReturnType<typeof createGroupAggregateOperator> => createGroupAggregateOperator(spec, schema);
          const { changelog, live } = buildChangelog(commands);
          const batches = split(changelog, sizes);
          const restoreBatch = restoreAt === undefined || batches.length === 0 ? -1 : restoreAt % batches.length;

          let harness = await OperatorHarness.open(factory);
          const output: ChangeRow[] = [];
          for (let b = 0; b < batches.length; b++) {
            if (b === restoreBatch) {
              output.push(...harness.extractOutput());
              harness = await OperatorHarness.restore(factory, harness.snapshot());
            }
            await harness.processBatch(batches[b]!);
          }
          output.push(...harness.extractOutput());

          const expected = referenceResult(spec, live).sort(byGroup(groupBy));
          expect(materialize(output, groupBy).sort(byGroup(groupBy))).toEqual(expected);
          if (generateUpdateBefore) {
            // A retract changelog must also be well formed as a multiset: every -U/-D matches a live row.
            expect(materialize(output).sort(byGroup(groupBy))).toEqual(expected);
          } else {
            expect(output.some((r) => r.kind === '-U')).toBe(false);
          }
          // No group state is left behind for groups without live rows.
          expect(harness.state.stats().entries).toBe(expected.length);
        },
      ),
      { numRuns: 200 },
    );
  });
});
