/** Full window functions (ProcessWindowFunction): all rows of the window, same timing rules. */
import { describe, it, expect } from 'vitest';
import { PlanError } from '../../../shared/core/errors.ts';
import { schemaOf } from '../../../shared/core/type-parse.ts';
import type { Row } from '../../../shared/core/types.ts';
import type { WindowSpec } from '../../../shared/plan/logical.ts';
import { createWindowProcessOperator, type WindowProcessFunction, type WindowProcessSpec } from '../../../shared/operators/window/window-aggregate.ts';
import { OperatorHarness, del, insert, updateAfter, updateBefore } from '../../harness/index.ts';
import { input, leftovers, NOTHING_LEFT, r, session, tumble } from './window-test-kit.ts';

/** The two largest values of the window, ranked. */
const top2: WindowProcessFunction = (key, window, rows) =>
  rows
    .map((row) => row['v'] as number)
    .sort((a, b) => b - a)
    .slice(0, 2)
    .map((v, i) => ({ k: key['k'] ?? null, rank: i + 1, v, start: window.start, end: window.end }));

const outputSchema = schemaOf({ k: 'STRING', rank: 'INT', v: 'INT', start: 'TIMESTAMP(3)', end: 'TIMESTAMP(3)' });

const spec = (window: WindowSpec, extra: Partial<WindowProcessSpec> = {}): WindowProcessSpec => ({
  window,
  groupBy: ['k'],
  outputSchema,
  generateUpdateBefore: true,
  ...extra,
});

const open = (s: WindowProcessSpec, fn: WindowProcessFunction = top2): Promise<OperatorHarness> =>
  OperatorHarness.open(() => createWindowProcessOperator(s, input, fn));

const t = (k: string, rank: number, v: number, start: number, end: number): Row => ({ k, rank, v, start, end });

describe('WindowProcess', () => {
  it('hands the function every row of the window on firing', async () => {
    const seen: unknown[] = [];
    const h = await open(spec(tumble(10)), (key, window, rows) => {
      seen.push({ key, window, rows });
      return top2(key, window, rows);
    });
    await h.processElements(insert(r('a', 1, 1)), insert(r('a', 5, 2)), insert(r('a', 3, 3)), insert(r('b', 2, 4)));
    expect(await h.processWatermark(9)).toEqual([insert(t('a', 1, 5, 0, 10)), insert(t('a', 2, 3, 0, 10)), insert(t('b', 1, 2, 0, 10))]);
    expect(seen[0]).toEqual({ key: { k: 'a' }, window: { start: 0, end: 10 }, rows: [r('a', 1, 1), r('a', 5, 2), r('a', 3, 3)] });
    expect(leftovers(h)).toEqual(NOTHING_LEFT);
  });

  it('re-fires on late rows within lateness: changed positions -U/+U, new ones +I, unchanged nothing', async () => {
    const h = await open(spec(tumble(10), { allowedLatenessMs: 10 }));
    await h.processElement(insert(r('a', 4, 1)));
    expect(await h.processWatermark(9)).toEqual([insert(t('a', 1, 4, 0, 10))]);
    expect(await h.processElement(insert(r('a', 2, 1)))).toEqual([insert(t('a', 2, 2, 0, 10))]);
    expect(await h.processElement(insert(r('a', 9, 1)))).toEqual([
      updateBefore(t('a', 1, 4, 0, 10)),
      updateAfter(t('a', 1, 9, 0, 10)),
      updateBefore(t('a', 2, 2, 0, 10)),
      updateAfter(t('a', 2, 4, 0, 10)),
    ]);
    expect(await h.processElement(insert(r('a', 1, 1)))).toEqual([]);
    // Retractions within lateness shrink the window; a vanished position is deleted.
    expect(await h.processElement(del(r('a', 9, 1)))).toEqual([
      updateBefore(t('a', 1, 9, 0, 10)),
      updateAfter(t('a', 1, 4, 0, 10)),
      updateBefore(t('a', 2, 4, 0, 10)),
      updateAfter(t('a', 2, 2, 0, 10)),
    ]);
    await h.processElements(del(r('a', 4, 1)), del(r('a', 2, 1)));
    h.clearOutput();
    expect(await h.processElement(del(r('a', 1, 1)))).toEqual([del(t('a', 1, 1, 0, 10))]);
    await h.processWatermark(19);
    expect(leftovers(h)).toEqual(NOTHING_LEFT);
  });

  it('sessions merge their row lists', async () => {
    const h = await open(spec(session(10)), (key, window, rows) => [{ k: key['k'] ?? null, rank: rows.length, v: rows.reduce((s, x) => s + (x['v'] as number), 0), start: window.start, end: window.end }]);
    await h.processElements(insert(r('a', 1, 0)), insert(r('a', 2, 20)), insert(r('a', 4, 10)));
    expect(await h.endInput()).toEqual([insert(t('a', 3, 7, 0, 30))]);
  });

  it('rejects an output schema without columns and invalid windows', () => {
    expect(() => createWindowProcessOperator({ ...spec(tumble(10)), outputSchema: { fields: [] } }, input, top2)).toThrow(PlanError);
    expect(() => createWindowProcessOperator(spec(tumble(-1)), input, top2)).toThrow(/got -1/);
  });
});
