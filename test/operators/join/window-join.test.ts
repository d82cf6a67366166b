/**
 * Window join operator: Flink's window-join documentation example (LeftTable and RightTable in
 * 5-minute tumbling windows) for INNER, LEFT, RIGHT, FULL, SEMI and ANTI, late rows, copies and
 * state cleanup.
 */
import { describe, expect, it } from 'vitest';
import type { Row, Schema } from '../../../shared/core/types.ts';
import { schemaOf } from '../../../shared/core/type-parse.ts';
import { createWindowJoinOperator, windowJoinOutputSchema, type WindowJoinSpec } from '../../../shared/operators/join/window-join.ts';
import type { JoinType } from '../../../shared/operators/join/join-spec.ts';
import { OperatorHarness, insert } from '../../harness/index.ts';

const ts = { root: 'TIMESTAMP', nullable: false, precision: 3 } as const;
/** A window TVF's output: row_time, num, id, window_start, window_end, window_time. */
const windowed: Schema = {
  fields: [
    { name: 'row_time', type: ts },
    ...schemaOf({ num: 'INT', id: 'STRING' }).fields,
    { name: 'window_start', type: ts },
    { name: 'window_end', type: ts },
    { name: 'window_time', type: ts, timeAttribute: 'rowtime' },
  ],
};

const spec = (joinType: JoinType): WindowJoinSpec => ({
  joinType,
  leftSchema: windowed,
  rightSchema: windowed,
  leftKeys: ['num'],
  rightKeys: ['num'],
  leftWindowEndColumn: 'window_end',
  rightWindowEndColumn: 'window_end',
});

const at = (hhmm: string): number => Date.UTC(2020, 3, 15, Number(hhmm.slice(0, 2)), Number(hhmm.slice(3, 5)));
const FIVE_MINUTES = 5 * 60_000;
/** A row of the docs' tables in its 5-minute tumbling window. */
const row = (time: string, num: number, id: string): Row => {
  const start = Math.floor(at(time) / FIVE_MINUTES) * FIVE_MINUTES;
  return { row_time: at(time), num, id, window_start: start, window_end: start + FIVE_MINUTES, window_time: start + FIVE_MINUTES - 1 };
};
const L1 = row('12:02', 1, 'L1');
const L2 = row('12:06', 2, 'L2');
const L3 = row('12:03', 3, 'L3');
const R2 = row('12:01', 2, 'R2');
const R3 = row('12:04', 3, 'R3');
const R4 = row('12:05', 4, 'R4');

/**
 * `SELECT L.num, L.id, R.num, R.id, COALESCE(L.window_start, R.window_start) …` of the docs, by
 * window and then by the first non-null id (the docs list the same rows).
 */
const view = (rows: readonly { row: Row }[]): (string | number | null)[][] =>
  rows
    .map(({ row: r }) => [r.num as number | null, r.id as string | null, (r.num0 ?? null) as number | null, (r.id0 ?? null) as string | null, ((r.window_start ?? r.window_start0) as number) - at('12:00')])
    .sort((a, b) => (a[4] as number) - (b[4] as number) || String(a[1] ?? a[3]).localeCompare(String(b[1] ?? b[3])));

async function run(joinType: JoinType): Promise<OperatorHarness> {
  const h = await OperatorHarness.open(() => createWindowJoinOperator(spec(joinType)));
  await h.processLeft(insert(L1), insert(L2), insert(L3));
  await h.processRight(insert(R2), insert(R3), insert(R4));
  await h.processWatermark(at('12:10') + 1000);
  return h;
}

describe('WindowJoin: Flink documentation example', () => {
  it('FULL OUTER JOIN', async () => {
    expect(view((await run('FULL')).output())).toEqual([
      [1, 'L1', null, null, 0],
      [3, 'L3', 3, 'R3', 0],
      [null, null, 2, 'R2', 0],
      [2, 'L2', null, null, FIVE_MINUTES],
      [null, null, 4, 'R4', FIVE_MINUTES],
    ]);
  });

  it('INNER, LEFT and RIGHT', async () => {
    expect(view((await run('INNER')).output())).toEqual([[3, 'L3', 3, 'R3', 0]]);
    expect(view((await run('LEFT')).output())).toEqual([[1, 'L1', null, null, 0], [3, 'L3', 3, 'R3', 0], [2, 'L2', null, null, FIVE_MINUTES]]);
    expect(view((await run('RIGHT')).output())).toEqual([[3, 'L3', 3, 'R3', 0], [null, null, 2, 'R2', 0], [null, null, 4, 'R4', FIVE_MINUTES]]);
  });

  it('SEMI (IN / EXISTS) keeps the left rows with a match in their window, ANTI the others', async () => {
    expect((await run('SEMI')).output().map((c) => c.row)).toEqual([L3]);
    expect((await run('ANTI')).output().map((c) => c.row).sort((a, b) => String(a.id).localeCompare(String(b.id)))).toEqual([L1, L2]);
    expect(windowJoinOutputSchema(spec('SEMI'))).toEqual(windowed);
  });
});

describe('WindowJoin: firing, lateness and state', () => {
  it('fires each window when the watermark reaches its last millisecond and drops its state', async () => {
    const h = await OperatorHarness.open(() => createWindowJoinOperator(spec('INNER')));
    await h.processLeft(insert(L3), insert(L3));
    await h.processRight(insert(R3));
    expect(await h.processWatermark(at('12:05') - 2)).toEqual([]);
    expect(await h.processWatermark(at('12:05') - 1)).toHaveLength(2);
    expect(h.state.stats().entries).toBe(0);
  });

  it('sends rows of a fired window to the late side output and counts them per side', async () => {
    const h = await OperatorHarness.open(() => createWindowJoinOperator(spec('LEFT')));
    await h.processWatermark(at('12:05'));
    expect(await h.processLeft(insert(L1))).toEqual([]);
    await h.processRight(insert(R2));
    expect(h.extractSideOutput('late')).toEqual([L1, R2]);
    expect(h.metrics.get('numLateRecordsDropped')).toBe(2);
    expect(h.metrics.get('leftNumLateRecordsDropped')).toBe(1);
    expect(h.metrics.get('rightNumLateRecordsDropped')).toBe(1);
  });

  it('NULL keys match nothing but are padded by an outer join', async () => {
    const h = await OperatorHarness.open(() => createWindowJoinOperator(spec('FULL')));
    const ln = { ...L1, num: null };
    const rn = { ...R2, num: null };
    await h.processLeft(insert(ln));
    await h.processRight(insert(rn));
    await h.endInput();
    expect(view(h.output())).toEqual([[null, 'L1', null, null, 0], [null, null, null, 'R2', 0]]);
  });
});
