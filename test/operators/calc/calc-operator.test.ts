import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlanError, RecordError } from '../../../shared/core/errors.ts';
import type { ChangeRow } from '../../../shared/core/row.ts';
import { schemaFromFields, schemaOf } from '../../../shared/core/type-parse.ts';
import type { Row, Schema } from '../../../shared/core/types.ts';
import type { CalcSpec } from '../../../shared/operators/calc/calc-operator.ts';
import { calcOutputSchema, createCalcOperator } from '../../../shared/operators/calc/calc-operator.ts';
import type { Operator, OperatorContext, Output } from '../../../shared/operators/operator.ts';
import { add, cast, col, dateFormat, div, gt, lit, lt, mul } from '../../../shared/plan/expr-build.ts';
import type { UdfRegistry } from '../../../shared/plan/expr-compile.ts';

const bid: Schema = schemaFromFields([
  { name: 'auction', type: { root: 'BIGINT', nullable: false } },
  { name: 'bidder', type: { root: 'BIGINT', nullable: false } },
  { name: 'price', type: { root: 'BIGINT', nullable: false } },
  { name: 'dateTime', type: { root: 'TIMESTAMP', nullable: false, precision: 3 }, timeAttribute: 'rowtime' },
  { name: 'extra', type: { root: 'STRING', nullable: true } },
]);

/** Calc never touches state or timers, so the context only needs to exist. */
const context = {
  operatorId: 'Calc_1',
  shard: 0,
  parallelism: 1,
  metrics: { increment() {} },
} as unknown as OperatorContext;

async function runCalc(spec: CalcSpec, batch: readonly ChangeRow[], udfs: UdfRegistry = new Map(), schema = bid): Promise<ChangeRow[]> {
  const op: Operator = createCalcOperator(spec, schema, udfs);
  await op.open(context);
  const emitted: ChangeRow[] = [];
  const out: Output = { emit: (r) => emitted.push(r), emitSide: () => {} };
  await op.processBatch(batch, out);
  return emitted;
}

const row = (auction: number, price: number, extra: string | null = null): Row => ({
  auction,
  bidder: auction * 10,
  price,
  dateTime: 1_436_918_400_000 + auction,
  extra,
});

const identity: CalcSpec['projection'] = bid.fields.map((f) => ({ name: f.name, expr: col(f.name) }));

describe('Calc operator', () => {
  it('filters and projects each row, keeping its kind', async () => {
    const spec: CalcSpec = {
      projection: [
        { name: 'auction', expr: col('auction') },
        { name: 'price', expr: col('price') },
        { name: 'doubled', expr: mul(col('price'), 2) },
      ],
      condition: gt(col('price'), 10000),
    };
    const batch: ChangeRow[] = [
      { kind: '+I', row: row(1, 20000) },
      { kind: '+I', row: row(2, 5000) },
      { kind: '-U', row: row(3, 30000) },
      { kind: '+U', row: row(3, 40000) },
      { kind: '-D', row: row(4, 50000) },
    ];
    expect(await runCalc(spec, batch)).toEqual([
      { kind: '+I', row: { auction: 1, price: 20000, doubled: 40000 } },
      { kind: '-U', row: { auction: 3, price: 30000, doubled: 60000 } },
      { kind: '+U', row: { auction: 3, price: 40000, doubled: 80000 } },
      { kind: '-D', row: { auction: 4, price: 50000, doubled: 100000 } },
    ]);
  });

  it('emits output columns in projection order', async () => {
    const [out] = await runCalc({ projection: [{ name: 'p', expr: col('price') }, { name: 'a', expr: col('auction') }] }, [
      { kind: '+I', row: row(1, 2) },
    ]);
    expect(Object.keys(out!.row)).toEqual(['p', 'a']);
  });

  it('passes rows through unchanged for an identity projection without condition', async () => {
    const batch: ChangeRow[] = [{ kind: '+I', row: row(1, 1) }, { kind: '-D', row: row(2, 2) }];
    const out = await runCalc({ projection: identity }, batch);
    expect(out).toHaveLength(2);
    expect(out[0]).toBe(batch[0]);
    expect(out[1]).toBe(batch[1]);
  });

  it('passes kept rows through unchanged for an identity projection with a condition', async () => {
    const batch: ChangeRow[] = [{ kind: '+I', row: row(1, 1) }, { kind: '+I', row: row(2, 20000) }];
    const out = await runCalc({ projection: identity, condition: gt(col('price'), 10000) }, batch);
    expect(out).toEqual([batch[1]]);
    expect(out[0]).toBe(batch[1]);
  });

  it('copies rows when the projection renames or reorders columns', async () => {
    const renamed = identity.map((p, i) => (i === 0 ? { name: 'id', expr: p.expr } : p));
    const batch: ChangeRow[] = [{ kind: '+I', row: row(1, 1) }];
    const [out] = await runCalc({ projection: renamed }, batch);
    const { auction, ...rest } = row(1, 1);
    expect(out!.row).toEqual({ id: auction, ...rest });
    expect(Object.keys(out!.row)).toEqual(['id', 'bidder', 'price', 'dateTime', 'extra']);
  });

  it('drops rows whose condition is NULL', async () => {
    const out = await runCalc({ projection: identity, condition: lt(col('extra'), 'm') }, [
      { kind: '+I', row: row(1, 1, null) },
      { kind: '+I', row: row(2, 1, 'a') },
      { kind: '+I', row: row(3, 1, 'z') },
    ]);
    expect(out.map((c) => c.row.auction)).toEqual([2]);
  });

  it('computes Nexmark q1 (0.908 * price) exactly and q10-style DATE_FORMAT', async () => {
    const [out] = await runCalc(
      {
        projection: [
          { name: 'price', expr: mul(lit(908n, 'DECIMAL(3, 3) NOT NULL'), col('price')) },
          { name: 'dt', expr: dateFormat(col('dateTime'), 'yyyy-MM-dd') },
          { name: 'hm', expr: dateFormat(col('dateTime'), 'HH:mm') },
        ],
      },
      [{ kind: '+I', row: row(0, 1234) }],
    );
    expect(out!.row).toEqual({ price: 1120472n, dt: '2015-07-15', hm: '00:00' });
  });

  it('evaluates UDFs in projections and conditions', async () => {
    const udfs: UdfRegistry = new Map([['countC', (r: Row) => ((r.extra as string | null) ?? '').split('c').length - 1]]);
    const countC = { kind: 'udf', ref: 'countC', display: 'count_char', type: { root: 'INT', nullable: false } } as const;
    const out = await runCalc(
      { projection: [{ name: 'auction', expr: col('auction') }, { name: 'c_counts', expr: countC }], condition: gt(countC, 0) },
      [
        { kind: '+I', row: row(1, 1, 'abcc') },
        { kind: '+I', row: row(2, 1, 'ab') },
      ],
      udfs,
    );
    expect(out).toEqual([{ kind: '+I', row: { auction: 1, c_counts: 2 } }]);
  });

  it('lets record errors escape for the runtime to dead-letter', async () => {
    const spec: CalcSpec = { projection: [{ name: 'q', expr: div(col('price'), col('auction')) }] };
    await expect(runCalc(spec, [{ kind: '+I', row: row(0, 5) }])).rejects.toThrow(RecordError);
    await expect(runCalc(spec, [{ kind: '+I', row: row(0, 5) }])).rejects.toThrow('division by zero in /(price, auction)');
  });

  it('reports plan errors when the operator is created', () => {
    expect(() => createCalcOperator({ projection: [{ name: 'x', expr: col('prise') }] }, bid, new Map())).toThrow(/Column 'prise' not found/);
    expect(() => createCalcOperator({ projection: identity, condition: col('price') }, bid, new Map())).toThrow(
      'a Calc condition must be BOOLEAN, but price is BIGINT',
    );
    expect(() =>
      createCalcOperator({ projection: [{ name: 'x', expr: { kind: 'udf', ref: 'nope', display: 'nope', type: { root: 'INT', nullable: true } } }] }, bid, new Map()),
    ).toThrow(PlanError);
  });

  it('equals filter-then-map over random rows', async () => {
    const schema = schemaOf({ a: 'INT', b: 'INT' });
    const spec: CalcSpec = {
      projection: [
        { name: 's', expr: add(col('a'), col('b')) },
        { name: 'a', expr: col('a') },
      ],
      condition: gt(col('a'), col('b')),
    };
    const valueArb = fc.option(fc.integer({ min: -1000, max: 1000 }), { nil: null });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ a: valueArb, b: valueArb }), { maxLength: 20 }), async (rows) => {
        const batch = rows.map((r): ChangeRow => ({ kind: '+I', row: r }));
        const expected = rows
          .filter((r) => r.a !== null && r.b !== null && r.a > r.b)
          .map((r) => ({ kind: '+I', row: { s: r.a! + r.b!, a: r.a } }));
        expect(await runCalc(spec, batch, new Map(), schema)).toEqual(expected);
      }),
    );
  });
});

describe('calcOutputSchema', () => {
  it('infers column types and keeps time attributes of plain references only', () => {
    const schema = calcOutputSchema(
      {
        projection: [
          { name: 'ts', expr: col('dateTime') },
          { name: 'ts2', expr: cast(col('dateTime'), 'TIMESTAMP(3)') },
          { name: 'price', expr: mul(lit(908n, 'DECIMAL(3, 3) NOT NULL'), col('price')) },
          { name: 'extra', expr: col('extra') },
        ],
      },
      bid,
    );
    expect(schema.fields).toEqual([
      { name: 'ts', type: { root: 'TIMESTAMP', nullable: false, precision: 3 }, timeAttribute: 'rowtime' },
      { name: 'ts2', type: { root: 'TIMESTAMP', nullable: false, precision: 3 } },
      { name: 'price', type: { root: 'DECIMAL', nullable: false, precision: 23, scale: 3 } },
      { name: 'extra', type: { root: 'STRING', nullable: true } },
    ]);
  });

  it('rejects duplicate output names', () => {
    expect(() =>
      calcOutputSchema({ projection: [{ name: 'a', expr: col('price') }, { name: 'a', expr: col('bidder') }] }, bid),
    ).toThrow(/Duplicate column name 'a'/);
  });
});
