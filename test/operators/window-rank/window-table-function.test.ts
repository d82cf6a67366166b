/**
 * The window table functions: output schema, one row per window for TUMBLE, HOP and CUMULATE
 * (with offsets and negative timestamps), and every row assigned its windows whatever the watermark
 * (Flink's window table function; lateness is the next operator's).
 */
import { describe, expect, it } from 'vitest';
import { PlanError, RecordError } from '../../../shared/core/errors.ts';
import { schemaOf } from '../../../shared/core/type-parse.ts';
import type { Row, Schema } from '../../../shared/core/types.ts';
import type { WindowSpec } from '../../../shared/plan/logical.ts';
import {
  createWindowTableFunctionOperator,
  windowTableFunctionOutputSchema,
  type WindowTableFunctionSpec,
} from '../../../shared/operators/window-rank/window-table-function.ts';
import { OperatorHarness, del, insert } from '../../harness/index.ts';

const INPUT: Schema = {
  fields: [
    { name: 'id', type: { root: 'INT', nullable: false } },
    { name: 't', type: { root: 'TIMESTAMP', nullable: true, precision: 3 }, timeAttribute: 'rowtime' },
  ],
};

const open = (window: WindowSpec) => {
  const spec: WindowTableFunctionSpec = { window };
  return OperatorHarness.open(() => createWindowTableFunctionOperator(spec, INPUT));
};

/** The input row plus its window columns. */
const W = (id: number, t: number, start: number, end: number) =>
  insert({ id, t, window_start: start, window_end: end, window_time: end - 1 });
const R = (id: number, t: number): Row => ({ id, t });

describe('windowTableFunctionOutputSchema', () => {
  it('appends window_start, window_end and window_time, moving the rowtime attribute to window_time', () => {
    const schema = windowTableFunctionOutputSchema({ window: { type: 'TUMBLE', timeColumn: 't', sizeMs: 10 } }, INPUT);
    const ts3 = { root: 'TIMESTAMP', nullable: false, precision: 3 };
    expect(schema.fields).toEqual([
      { name: 'id', type: { root: 'INT', nullable: false } },
      { name: 't', type: { root: 'TIMESTAMP', nullable: true, precision: 3 } },
      { name: 'window_start', type: ts3 },
      { name: 'window_end', type: ts3 },
      { name: 'window_time', type: ts3, timeAttribute: 'rowtime' },
    ]);
  });

  it('is the same for SESSION; a processing-time window_time is no rowtime', () => {
    const session: WindowSpec = { type: 'SESSION', timeColumn: 't', gapMs: 5, partitionBy: ['id'] };
    expect(windowTableFunctionOutputSchema({ window: session }, INPUT)).toEqual(windowTableFunctionOutputSchema({ window: { type: 'TUMBLE', timeColumn: 't', sizeMs: 10 } }, INPUT));
    expect(windowTableFunctionOutputSchema({ window: session, timeDomain: 'processing' }, INPUT).fields.at(-1)).toEqual({ name: 'window_time', type: { root: 'TIMESTAMP', nullable: false, precision: 3 } });
    expect(windowTableFunctionOutputSchema({ window: { type: 'TUMBLE', timeColumn: 't', sizeMs: 10 }, timeDomain: 'processing' }, INPUT).fields.at(-1)).toEqual({ name: 'window_time', type: { root: 'TIMESTAMP', nullable: false, precision: 3 } });
    expect(() => windowTableFunctionOutputSchema({ window: { ...session, partitionBy: ['nope'] } }, INPUT)).toThrow(/Column 'nope' not found/);
  });

  it('rejects a non-TIMESTAMP or proctime time column and clashing columns', () => {
    expect(() => windowTableFunctionOutputSchema({ window: { type: 'TUMBLE', timeColumn: 'id', sizeMs: 10 } }, INPUT)).toThrow(
      /must be a TIMESTAMP or TIMESTAMP_LTZ, got INT/,
    );
    expect(() => windowTableFunctionOutputSchema({ window: { type: 'TUMBLE', timeColumn: 'x', sizeMs: 10 } }, INPUT)).toThrow(
      /Column 'x' not found/,
    );
    const proc: Schema = { fields: [{ name: 't', type: { root: 'TIMESTAMP', nullable: false, precision: 3 }, timeAttribute: 'proctime' }] };
    expect(() => createWindowTableFunctionOperator({ window: { type: 'TUMBLE', timeColumn: 't', sizeMs: 10 } }, proc)).toThrow(
      /processing-time/,
    );
    const clash = schemaOf({ t: 'TIMESTAMP(3)', window_end: 'TIMESTAMP(3)' });
    expect(() => windowTableFunctionOutputSchema({ window: { type: 'TUMBLE', timeColumn: 't', sizeMs: 10 } }, clash)).toThrow(
      PlanError,
    );
  });
});

describe('createWindowTableFunctionOperator', () => {
  it('TUMBLE with an offset: one row per input row, negative timestamps included', async () => {
    const h = await open({ type: 'TUMBLE', timeColumn: 't', sizeMs: 10, offsetMs: 3 });
    await h.processBatch([insert(R(1, 3)), insert(R(2, 12)), insert(R(3, 13)), insert(R(4, -8))]);
    expect(h.extractOutput()).toEqual([W(1, 3, 3, 13), W(2, 12, 3, 13), W(3, 13, 13, 23), W(4, -8, -17, -7)]);
  });

  it('HOP with an offset: one row per window, latest start first', async () => {
    const h = await open({ type: 'HOP', timeColumn: 't', sizeMs: 10, slideMs: 5, offsetMs: 1 });
    await h.processElement(insert(R(1, 7)));
    expect(h.extractOutput()).toEqual([W(1, 7, 6, 16), W(1, 7, 1, 11)]);
  });

  it('CUMULATE with an offset: one row per cumulating window', async () => {
    const h = await open({ type: 'CUMULATE', timeColumn: 't', maxSizeMs: 30, stepMs: 10, offsetMs: -5 });
    await h.processElement(insert(R(1, 7)));
    expect(h.extractOutput()).toEqual([W(1, 7, -5, 15), W(1, 7, -5, 25)]);
  });

  it('assigns a row all its windows even when they have fired at the watermark (Flink: the TVF never drops)', async () => {
    const h = await open({ type: 'HOP', timeColumn: 't', sizeMs: 10, slideMs: 5 });
    await h.processWatermark(14);
    // 3 belongs to [0,10) and [-5,5): both fired (end - 1 <= 14), both still come out.
    await h.processElement(insert(R(1, 3)));
    expect(h.extractOutput()).toEqual([W(1, 3, 0, 10), W(1, 3, -5, 5)]);
    expect(h.sideOutput('late')).toEqual([]);
    expect(h.metrics.get('numLateRecordsDropped')).toBeUndefined();
  });

  it('a partly fired row keeps every window', async () => {
    const h = await open({ type: 'HOP', timeColumn: 't', sizeMs: 10, slideMs: 5 });
    await h.processWatermark(9);
    await h.processElement(insert(R(1, 7)));
    expect(h.extractOutput()).toEqual([W(1, 7, 5, 15), W(1, 7, 0, 10)]);
  });

  it('in processing time: windows by the clock when the batch is processed, whatever the time column holds', async () => {
    const spec: WindowTableFunctionSpec = { window: { type: 'HOP', timeColumn: 't', sizeMs: 10, slideMs: 5 }, timeDomain: 'processing' };
    const h = await OperatorHarness.open(() => createWindowTableFunctionOperator(spec, INPUT));
    await h.setProcessingTime(7);
    await h.processBatch([insert(R(1, 100)), insert({ id: 2, t: null })]);
    await h.setProcessingTime(12);
    await h.processElement(insert(R(3, 0)));
    expect(h.extractOutput()).toEqual([W(1, 100, 5, 15), W(1, 100, 0, 10), insert({ id: 2, t: null, window_start: 5, window_end: 15, window_time: 14 }), insert({ id: 2, t: null, window_start: 0, window_end: 10, window_time: 9 }), W(3, 0, 10, 20), W(3, 0, 5, 15)]);
  });

  it('in processing time over an instant: windows on the zone’s wall clock, window_time the instant of window_end - 1', async () => {
    const ltz: Schema = { fields: [{ name: 'id', type: { root: 'INT', nullable: false } }, { name: 't', type: { root: 'TIMESTAMP_LTZ', nullable: false, precision: 3 } }] };
    const spec: WindowTableFunctionSpec = { window: { type: 'TUMBLE', timeColumn: 't', sizeMs: 3_600_000, timeZone: 'GMT+08:00' }, timeDomain: 'processing' };
    const h = await OperatorHarness.open(() => createWindowTableFunctionOperator(spec, ltz));
    // 2024-01-01 10:30 UTC is 18:30 at GMT+08:00: the window [18:00, 19:00) local.
    await h.setProcessingTime(Date.UTC(2024, 0, 1, 10, 30));
    await h.processElement(insert({ id: 1, t: 0 }));
    expect(h.extractOutput()).toEqual([insert({ id: 1, t: 0, window_start: Date.UTC(2024, 0, 1, 18), window_end: Date.UTC(2024, 0, 1, 19), window_time: Date.UTC(2024, 0, 1, 11) - 1 })]);
  });

  it('fails a batch with a null time (dead letter) or a non-insert row before emitting anything', async () => {
    const h = await open({ type: 'TUMBLE', timeColumn: 't', sizeMs: 10 });
    await expect(h.processBatch([insert(R(1, 1)), insert({ id: 2, t: null })])).rejects.toThrow(RecordError);
    const h2 = await open({ type: 'TUMBLE', timeColumn: 't', sizeMs: 10 });
    await expect(h2.processBatch([insert(R(1, 1)), del(R(1, 1))])).rejects.toThrow(/insert-only/);
    expect(h.output()).toEqual([]);
    expect(h2.output()).toEqual([]);
  });
});
