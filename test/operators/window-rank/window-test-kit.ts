/**
 * Shared fixtures of the window Top-N and deduplication tests: windowed input rows
 * `(p, id, score, ts, window_start, window_end)` as a window aggregate or a TVF would produce
 * them, partitioned by `p`.
 */
import type { ChangeRow } from '../../../shared/core/row.ts';
import { schemaOf } from '../../../shared/core/type-parse.ts';
import type { Row, Schema } from '../../../shared/core/types.ts';
import { createWindowDeduplicateOperator, type WindowDeduplicateSpec } from '../../../shared/operators/window-rank/window-deduplicate.ts';
import { createWindowRankOperator, type WindowRankSpec } from '../../../shared/operators/window-rank/window-rank.ts';
import { OperatorHarness, insert } from '../../harness/index.ts';

/** The windowed input schema. */
export const WINDOWED: Schema = schemaOf({
  p: 'STRING',
  id: 'INT NOT NULL',
  score: 'INT',
  ts: 'TIMESTAMP(3) NOT NULL',
  window_start: 'TIMESTAMP(3) NOT NULL',
  window_end: 'TIMESTAMP(3) NOT NULL',
});

/** A row of window `[ws, we)`; `ts` defaults to the window start. */
export function row(p: string | null, id: number, score: number | null, ws: number, we: number, ts = ws): Row {
  return { p, id, score, ts, window_start: ws, window_end: we };
}

/** `+I` of {@link row}. */
export function I(p: string | null, id: number, score: number | null, ws: number, we: number, ts = ws): ChangeRow {
  return insert(row(p, id, score, ws, we, ts));
}

/** `+I` of {@link row} plus the rank number column `rn`. */
export function IR(p: string | null, id: number, score: number | null, ws: number, we: number, rn: number, ts = ws): ChangeRow {
  return insert({ ...row(p, id, score, ws, we, ts), rn });
}

/** A window Top-N spec over {@link WINDOWED}: partition by `p`, order by `score DESC`. */
export function rankSpec(
  rankType: WindowRankSpec['rankType'],
  start: number,
  end: number,
  withNumber = true,
): WindowRankSpec {
  return {
    rankType,
    partitionBy: ['p'],
    orderBy: [{ column: 'score', direction: 'DESC', nullsFirst: false }],
    rankRange: { type: 'constant', start, end },
    ...(withNumber ? { rankNumberColumn: 'rn' } : {}),
    windowStartColumn: 'window_start',
    windowEndColumn: 'window_end',
  };
}

/** Opens a harness over a window Top-N. */
export function openWindowRank(spec: WindowRankSpec, schema: Schema = WINDOWED): Promise<OperatorHarness> {
  return OperatorHarness.open(() => createWindowRankOperator(spec, schema));
}

/** Opens a harness over a window deduplication. */
export function openWindowDedup(spec: WindowDeduplicateSpec, schema: Schema = WINDOWED): Promise<OperatorHarness> {
  return OperatorHarness.open(() => createWindowDeduplicateOperator(spec, schema));
}

/** Asserts the harness holds no state and no pending timers. */
export function stateLeft(h: OperatorHarness): { entries: number; timers: number } {
  return { entries: h.state.stats().entries, timers: h.timers.pendingTimers('event') };
}
