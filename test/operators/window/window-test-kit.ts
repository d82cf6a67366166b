/**
 * Shared fixtures of the window operator tests: an input schema, spec builders and a harness
 * opener.
 */
import { parseType } from '../../../shared/core/type-parse.ts';
import type { Row, Schema } from '../../../shared/core/types.ts';
import type { WindowSpec } from '../../../shared/plan/logical.ts';
import { createWindowAggregateOperator, type WindowAggregateSpec } from '../../../shared/operators/window/window-aggregate.ts';
import { OperatorHarness } from '../../harness/index.ts';

/** k STRING, v INT, f BOOLEAN, ts TIMESTAMP(3) rowtime. */
export const input: Schema = {
  fields: [
    { name: 'k', type: parseType('STRING') },
    { name: 'v', type: parseType('INT') },
    { name: 'f', type: parseType('BOOLEAN') },
    { name: 'ts', type: parseType('TIMESTAMP(3)'), timeAttribute: 'rowtime' },
  ],
};

export const tumble = (sizeMs: number, offsetMs?: number): WindowSpec => ({ type: 'TUMBLE', timeColumn: 'ts', sizeMs, offsetMs });
export const hop = (sizeMs: number, slideMs: number, offsetMs?: number): WindowSpec => ({ type: 'HOP', timeColumn: 'ts', sizeMs, slideMs, offsetMs });
export const cumulate = (maxSizeMs: number, stepMs: number, offsetMs?: number): WindowSpec => ({
  type: 'CUMULATE',
  timeColumn: 'ts',
  maxSizeMs,
  stepMs,
  offsetMs,
});
export const session = (gapMs: number): WindowSpec => ({ type: 'SESSION', timeColumn: 'ts', gapMs, partitionBy: ['k'] });

/** `SELECT k, COUNT(*) AS c, SUM(v) AS s, window_start, window_end, window_time … GROUP BY k, window`. */
export function countSum(window: WindowSpec, extra: Partial<WindowAggregateSpec> = {}): WindowAggregateSpec {
  return {
    window,
    groupBy: ['k'],
    aggCalls: [
      { fn: 'COUNT', distinct: false, name: 'c' },
      { fn: 'SUM', arg: 'v', distinct: false, name: 's' },
    ],
    generateUpdateBefore: true,
    ...extra,
  };
}

/** Opens a harness over the window aggregate. */
export function openAgg(spec: WindowAggregateSpec, schema: Schema = input, processingTime?: number): Promise<OperatorHarness> {
  return OperatorHarness.open(() => createWindowAggregateOperator(spec, schema), processingTime === undefined ? {} : { processingTime });
}

/** An input row. */
export const r = (k: string, v: number, ts: number, f: boolean | null = null): Row => ({ k, v, f, ts });

/** An output row of {@link countSum}. */
export const out = (k: string, c: number, s: number | null, start: number, end: number): Row => ({
  k,
  c,
  s,
  window_start: start,
  window_end: end,
  window_time: end - 1,
});

/** Total state entries and pending timers of a harness: both 0 once every window is gone. */
export function leftovers(h: OperatorHarness): { entries: number; eventTimers: number; processingTimers: number } {
  return {
    entries: h.state.stats().entries,
    eventTimers: h.timers.pendingTimers('event'),
    processingTimers: h.timers.pendingTimers('processing'),
  };
}

export const NOTHING_LEFT = { entries: 0, eventTimers: 0, processingTimers: 0 };
