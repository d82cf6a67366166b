/**
 * Event-time temporal join operator: Flink's documentation example (orders joined with the
 * currency rate valid at each order's time), deletions, the versioned side's update-before rows,
 * LEFT padding, emission by watermark and state cleanup.
 */
import { describe, expect, it } from 'vitest';
import type { Row, Schema } from '../../../shared/core/types.ts';
import { schemaOf } from '../../../shared/core/type-parse.ts';
import { createTemporalJoinOperator, temporalJoinOutputSchema, type TemporalJoinSpec } from '../../../shared/operators/join/temporal-join.ts';
import { OperatorHarness, del, insert, updateAfter, updateBefore } from '../../harness/index.ts';
import { gt, col, lit } from '../../../shared/plan/expr-build.ts';

const ts = { root: 'TIMESTAMP', nullable: false, precision: 3 } as const;
const orders: Schema = { fields: [...schemaOf({ order_id: 'BIGINT', price: 'BIGINT', currency: 'STRING' }).fields, { name: 'order_time', type: ts, timeAttribute: 'rowtime' }] };
const rates: Schema = { fields: [...schemaOf({ currency: 'STRING NOT NULL', conversion_rate: 'BIGINT' }).fields, { name: 'update_time', type: ts, timeAttribute: 'rowtime' }] };

const spec = (joinType: 'INNER' | 'LEFT' = 'INNER'): TemporalJoinSpec => ({
  joinType,
  leftSchema: orders,
  rightSchema: rates,
  leftKeys: ['currency'],
  rightKeys: ['currency'],
  leftTimeColumn: 'order_time',
  rightTimeColumn: 'update_time',
});

const at = (hhmm: string): number => Date.UTC(2020, 0, 1, Number(hhmm.slice(0, 2)), Number(hhmm.slice(3, 5)));
const order = (id: number, price: number, currency: string, time: string): Row => ({ order_id: id, price, currency, order_time: at(time) });
const rate = (currency: string, conversion: number, time: string): Row => ({ currency, conversion_rate: conversion, update_time: at(time) });
/** Rows of different keys fire with their keys' timers, in no particular order across keys. */
const byOrderId = (rows: readonly { kind: string; row: Row }[]): { kind: string; row: Row }[] => [...rows].sort((a, b) => (a.row.order_id as number) - (b.row.order_id as number));
const result = (o: Row, r: Row | null): Row => ({ ...o, currency0: r?.currency ?? null, conversion_rate: r?.conversion_rate ?? null, update_time: r?.update_time ?? null });

describe('TemporalJoin (event time)', () => {
  it("joins each order with the rate valid at the order's time, when the watermark passes it (Flink's docs example)", async () => {
    const h = await OperatorHarness.open(() => createTemporalJoinOperator(spec()));
    const yen = rate('Yen', 102, '09:00');
    const euro = rate('Euro', 114, '09:00');
    const usd = rate('USD', 1, '09:00');
    const euro2 = rate('Euro', 119, '11:15');
    await h.processRight(insert(yen), insert(euro), insert(usd));
    const o = [order(1, 2, 'Euro', '10:15'), order(2, 1, 'USD', '10:30'), order(3, 50, 'Yen', '10:32'), order(4, 3, 'Euro', '10:52'), order(5, 5, 'USD', '11:04'), order(6, 4, 'Euro', '11:20')];
    await h.processLeft(...o.map(insert));
    await h.processRight(updateBefore(euro), updateAfter(euro2));
    expect(byOrderId(await h.processWatermark(at('10:40')))).toEqual([insert(result(o[0]!, euro)), insert(result(o[1]!, usd)), insert(result(o[2]!, yen))]);
    expect(byOrderId(await h.processWatermark(at('12:00')))).toEqual([insert(result(o[3]!, euro)), insert(result(o[4]!, usd)), insert(result(o[5]!, euro2))]);
    // Only the latest version of each currency is left.
    expect(h.state.stats().entries).toBe(3);
  });

  it('a deleted version matches nothing from its time on; a LEFT join pads', async () => {
    const h = await OperatorHarness.open(() => createTemporalJoinOperator(spec('LEFT')));
    const v1 = rate('Euro', 114, '09:00');
    await h.processRight(insert(v1), del(rate('Euro', 114, '10:00')));
    const early = order(1, 1, 'Euro', '09:30');
    const late = order(2, 1, 'Euro', '10:30');
    const none = order(3, 1, 'Pound', '09:30');
    await h.processLeft(insert(early), insert(late), insert(none));
    await h.endInput();
    expect(byOrderId(h.output())).toEqual([insert(result(early, v1)), insert(result(late, null)), insert(result(none, null))]);
  });

  it('forwards the probe row kind and applies the residual condition', async () => {
    const h = await OperatorHarness.open(() => createTemporalJoinOperator({ ...spec('LEFT'), condition: gt(col('conversion_rate'), lit(100)) }));
    const low = rate('USD', 1, '09:00');
    await h.processRight(insert(low));
    const o = order(1, 1, 'USD', '10:00');
    await h.processLeft(insert(o), del(o));
    await h.endInput();
    expect(h.output()).toEqual([insert(result(o, null)), del(result(o, null))]);
  });

  it('keeps the probe side rowtime attribute only', () => {
    expect(temporalJoinOutputSchema(spec()).fields.filter((f) => f.timeAttribute !== undefined).map((f) => f.name)).toEqual(['order_time']);
  });
});
