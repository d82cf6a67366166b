/**
 * Idle-state retention and the buffer cache, for every strategy: an idle partition is forgotten
 * as a whole, an active one is kept as a whole however old its rows, and the cache size never
 * changes the output.
 */
import { describe, expect, it } from 'vitest';
import type { ChangeRow } from '../../../shared/core/row.ts';
import { RANK_METRICS } from '../../../shared/operators/rank/abstract-top-n.ts';
import type { RankStrategy } from '../../../shared/operators/rank/rank-spec.ts';
import { D, I, UA, UB, constantRange, feed, openRank, topNSpec } from './rank-test-kit.ts';

const TTL = 1_000;
const STRATEGIES: readonly RankStrategy[] = ['AppendFast', 'Retract', 'UpdateFast'];

describe('idle-state retention (stateTtlMs)', () => {
  for (const strategy of STRATEGIES) {
    for (const end of [1, 2]) {
      it(`forgets a partition idle for stateTtlMs, keeps the others (${strategy}, rn <= ${end})`, async () => {
        const h = await openRank(topNSpec({ strategy, range: constantRange(1, end), generateUpdateBefore: true, outputRankNumber: true, stateTtlMs: TTL }));
        await h.setProcessingTime(0);
        await feed(h, [I('idle', 1, 1), I('busy', 1, 1)]);
        await h.setProcessingTime(600);
        await h.processElement(I('busy', 2, 50));
        await h.setProcessingTime(1_200);
        h.clearOutput();
        // 'idle' saw nothing for 1,200 ms: a worse row now enters as if the partition were new.
        await h.processElement(I('idle', 2, 50));
        expect(h.extractOutput()).toEqual([I('idle', 2, 50, 1)]);
        // 'busy' was active 600 ms ago: its rows are all still there.
        await h.processElement(I('busy', 3, 60));
        expect(h.extractOutput()).toEqual([]);
        // Purging expired entries leaves the busy partition intact too: its top moves down.
        h.state.purgeExpired();
        await h.processElement(I('busy', 4, 0));
        expect(h.extractOutput()).toEqual(
          end === 1
            ? [UB('busy', 1, 1, 1), UA('busy', 4, 0, 1)]
            : [UB('busy', 1, 1, 1), UA('busy', 4, 0, 1), UB('busy', 2, 50, 2), UA('busy', 1, 1, 2)],
        );
      });
    }

    it(`keeps an active partition whole even when its rows are older than stateTtlMs (${strategy})`, async () => {
      const h = await openRank(topNSpec({ strategy, range: constantRange(1, 2), generateUpdateBefore: true, outputRankNumber: false, stateTtlMs: TTL }));
      await h.setProcessingTime(0);
      await feed(h, [I('a', 1, 1), I('a', 2, 2)]);
      // Rows ranked after the top keep the partition active without changing its top.
      for (let t = 600, id = 10; t <= 3_000; t += 600, id++) {
        await h.setProcessingTime(t);
        h.state.purgeExpired();
        await h.processElement(I('a', id, 99));
      }
      h.clearOutput();
      await h.processElement(I('a', 3, 0));
      expect(h.output()).toEqual([D('a', 2, 2), I('a', 3, 0)]);
    });

    it(`frees the state of idle partitions (${strategy})`, async () => {
      const h = await openRank(topNSpec({ strategy, range: constantRange(1, 3), generateUpdateBefore: true, outputRankNumber: false, stateTtlMs: TTL }));
      await h.setProcessingTime(0);
      await feed(h, [I('a', 1, 1), I('b', 2, 2), I('c', 3, 3)]);
      expect(h.state.stats().entries).toBeGreaterThan(0);
      await h.setProcessingTime(2 * TTL);
      h.state.purgeExpired();
      expect(h.state.stats().entries).toBe(0);
    });
  }
});

describe('buffer cache (cacheSize)', () => {
  /** Interleaves 40 partitions so that a one-partition cache misses on every row. */
  function input(strategy: RankStrategy): ChangeRow[] {
    const rows: ChangeRow[] = [];
    for (let round = 0; round < 6; round++) {
      for (let p = 0; p < 40; p++) {
        const price = (p * 7 + round * 13) % 10;
        if (strategy === 'UpdateFast') rows.push(round === 0 ? I(`p${p}`, round % 3, 100 - price) : UA(`p${p}`, round % 3, 90 - round - price));
        else rows.push(I(`p${p}`, round, price));
        if (strategy === 'Retract' && round === 4) rows.push(D(`p${p}`, 1, (p * 7 + 13) % 10));
      }
    }
    return rows;
  }

  for (const strategy of STRATEGIES) {
    for (const rankType of ['ROW_NUMBER', 'RANK', 'DENSE_RANK'] as const) {
      it(`a one-partition cache gives the same changelog as the default (${strategy}, ${rankType})`, async () => {
        const run = async (cacheSize: number | undefined): Promise<{ output: ChangeRow[]; misses: number }> => {
          const h = await openRank(
            topNSpec({
              strategy,
              rankType,
              range: constantRange(1, 3),
              generateUpdateBefore: true,
              outputRankNumber: true,
              ...(cacheSize !== undefined ? { cacheSize } : {}),
            }),
          );
          await h.processBatch(input(strategy));
          return { output: h.output(), misses: h.metrics.get(RANK_METRICS.cacheMisses) ?? 0 };
        };
        const cached = await run(undefined);
        const uncached = await run(1);
        expect(uncached.output).toEqual(cached.output);
        expect(cached.output.length).toBeGreaterThan(40);
        expect(cached.misses).toBe(40);
        expect(uncached.misses).toBeGreaterThan(200);
      });
    }
  }
});
