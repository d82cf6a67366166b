import { describe, it, expect } from 'vitest';
import type { ChangeRow } from '../../shared/core/row.ts';
import type { Operator, OperatorContext, Output, Timer } from '../../shared/operators/operator.ts';
import type { StateTtlConfig, ValueState } from '../../shared/state/state.ts';
import { OperatorHarness, del, insert, materialize, updateAfter, updateBefore } from './index.ts';

/**
 * Counts live rows per `word` over a changelog input (+I/+U add one, -U/-D remove one) and
 * emits the count as an updating changelog, deleting a word whose count drops to zero.
 */
class CountPerWord implements Operator {
  private counts!: ValueState<number>;

  constructor(private readonly ttl?: StateTtlConfig) {}

  open(context: OperatorContext): void {
    this.counts = context.state.valueState<number>('count', { ttl: this.ttl });
  }

  processBatch(batch: readonly ChangeRow[], out: Output): void {
    for (const change of batch) {
      const word = String(change.row.word);
      const previous = this.counts.get(word) ?? 0;
      const next = previous + (change.kind === '+I' || change.kind === '+U' ? 1 : -1);
      if (next > 0) this.counts.put(word, next);
      else this.counts.delete(word);
      if (previous === 0) out.emit(insert({ word, n: next }));
      else if (next === 0) out.emit(del({ word, n: previous }));
      else {
        out.emit(updateBefore({ word, n: previous }));
        out.emit(updateAfter({ word, n: next }));
      }
    }
  }
}

/**
 * Emits `{ key, closedAt }` once a key has been idle for 10 ms of event time (re-arming its
 * timer on every row), reports processing-time `ping` timers, and sends late rows to `late`.
 */
class IdleDetector implements Operator {
  private context!: OperatorContext;
  private deadline!: ValueState<number>;

  open(context: OperatorContext): void {
    this.context = context;
    this.deadline = context.state.valueState<number>('deadline');
  }

  processBatch(batch: readonly ChangeRow[], out: Output): void {
    const timers = this.context.timers;
    for (const { row } of batch) {
      const key = String(row.key);
      if (row.ping !== undefined) {
        timers.registerProcessingTimeTimer(key, 'ping', Number(row.ping));
        continue;
      }
      const ts = Number(row.ts);
      if (ts <= timers.currentWatermark()) {
        out.emitSide('late', row);
        continue;
      }
      const previous = this.deadline.get(key);
      if (previous !== undefined) timers.deleteEventTimeTimer(key, '', previous);
      this.deadline.put(key, ts + 10);
      timers.registerEventTimeTimer(key, '', ts + 10);
    }
  }

  onTimer(timer: Timer, out: Output): void {
    if (timer.domain === 'processing') {
      out.emit(insert({ key: timer.key, pingAt: timer.timestamp }));
      return;
    }
    this.deadline.delete(timer.key);
    out.emit(insert({ key: timer.key, closedAt: timer.timestamp }));
  }
}

describe('OperatorHarness with a counting operator', () => {
  it('collects output per call and across calls', async () => {
    const h = await OperatorHarness.open(() => new CountPerWord());
    expect(await h.processElement(insert({ word: 'a' }))).toEqual([insert({ word: 'a', n: 1 })]);
    expect(await h.processElements(insert({ word: 'b' }), insert({ word: 'a' }))).toEqual([
      insert({ word: 'b', n: 1 }),
      updateBefore({ word: 'a', n: 1 }),
      updateAfter({ word: 'a', n: 2 }),
    ]);
    expect(h.output()).toEqual([
      insert({ word: 'a', n: 1 }),
      insert({ word: 'b', n: 1 }),
      updateBefore({ word: 'a', n: 1 }),
      updateAfter({ word: 'a', n: 2 }),
    ]);
    expect(h.extractOutput()).toHaveLength(4);
    expect(h.output()).toEqual([]);
    await h.processElement(del({ word: 'b' }));
    expect(h.output()).toEqual([del({ word: 'b', n: 1 })]);
    h.clearOutput();
    expect(h.output()).toEqual([]);
  });

  it('processes a batch in one call, matching element-at-a-time output', async () => {
    const input = [insert({ word: 'x' }), insert({ word: 'x' }), updateBefore({ word: 'x' }), insert({ word: 'y' })];
    const batched = await OperatorHarness.open(() => new CountPerWord());
    await batched.processBatch(input);
    const single = await OperatorHarness.open(() => new CountPerWord());
    await single.processElements(...input);
    expect(batched.output()).toEqual(single.output());
    expect(materialize(batched.output(), ['word'])).toEqual([
      { word: 'x', n: 1 },
      { word: 'y', n: 1 },
    ]);
    expect(batched.metrics.get('numRecordsIn')).toBe(4);
    expect(batched.state.stats().writes).toBe(4);
  });

  it('continues exactly after snapshot → restore, and the snapshot can be reused', async () => {
    const h = await OperatorHarness.open(() => new CountPerWord());
    await h.processElements(insert({ word: 'a' }), insert({ word: 'a' }), insert({ word: 'b' }));
    const snapshot = h.snapshot();
    await h.processElement(insert({ word: 'a' })); // not part of the snapshot

    for (let attempt = 0; attempt < 2; attempt++) {
      const restored = await OperatorHarness.restore(() => new CountPerWord(), structuredClone(snapshot));
      expect(restored.output()).toEqual([]);
      await restored.processElements(insert({ word: 'a' }), del({ word: 'b' }), insert({ word: 'c' }));
      expect(restored.extractOutput()).toEqual([
        updateBefore({ word: 'a', n: 2 }),
        updateAfter({ word: 'a', n: 3 }),
        del({ word: 'b', n: 1 }),
        insert({ word: 'c', n: 1 }),
      ]);
    }
  });

  it('forgets idle words after the state TTL, driven by the harness clock', async () => {
    const h = await OperatorHarness.open(() => new CountPerWord({ ttlMs: 100 }), { processingTime: 1000 });
    await h.processElement(insert({ word: 'a' }));
    await h.setProcessingTime(1099);
    await h.processElement(insert({ word: 'a' })); // write refreshes the timestamp to 1099
    await h.setProcessingTime(1198);
    await h.processElement(insert({ word: 'b' }));
    expect(h.extractOutput()).toEqual([
      insert({ word: 'a', n: 1 }),
      updateBefore({ word: 'a', n: 1 }),
      updateAfter({ word: 'a', n: 2 }),
      insert({ word: 'b', n: 1 }),
    ]);

    // The snapshot keeps TTL timestamps and the clock: in the original and in a restored copy
    // alike, 'a' (written at 1099) expires at 1199 while 'b' (written at 1198) lives on.
    const restored = await OperatorHarness.restore(() => new CountPerWord({ ttlMs: 100 }), h.snapshot());
    expect(restored.currentProcessingTime()).toBe(1198);
    for (const harness of [h, restored]) {
      await harness.setProcessingTime(1199);
      await harness.processElements(insert({ word: 'a' }), insert({ word: 'b' }));
      expect(harness.extractOutput()).toEqual([
        insert({ word: 'a', n: 1 }),
        updateBefore({ word: 'b', n: 1 }),
        updateAfter({ word: 'b', n: 2 }),
      ]);
      await harness.setProcessingTime(1298);
      expect(harness.state.purgeExpired()).toBe(0);
      await harness.setProcessingTime(1299);
      expect(harness.state.purgeExpired()).toBe(2);
      expect(harness.state.stats().entries).toBe(0);
    }
  });
});

describe('OperatorHarness with timers', () => {
  it('fires, re-arms and deletes event-time timers as the watermark advances', async () => {
    const h = await OperatorHarness.open(() => new IdleDetector());
    await h.processElements(
      insert({ key: 'a', ts: 1 }),
      insert({ key: 'b', ts: 2 }),
      insert({ key: 'a', ts: 5 }), // moves a's timer from 11 to 15
    );
    expect(h.timers.pendingTimers('event')).toBe(2);
    expect(await h.processWatermark(11)).toEqual([]);
    expect(await h.processWatermark(15)).toEqual([
      insert({ key: 'b', closedAt: 12 }),
      insert({ key: 'a', closedAt: 15 }),
    ]);
    expect(h.currentWatermark()).toBe(15);
  });

  it('routes late rows to a side output', async () => {
    const h = await OperatorHarness.open(() => new IdleDetector());
    await h.processWatermark(10);
    await h.processElements(insert({ key: 'a', ts: 3 }), insert({ key: 'b', ts: 11 }), insert({ key: 'c', ts: 10 }));
    expect(h.sideOutput('late')).toEqual([
      { key: 'a', ts: 3 },
      { key: 'c', ts: 10 },
    ]);
    expect(h.extractSideOutput('late')).toHaveLength(2);
    expect(h.sideOutput('late')).toEqual([]);
    expect(h.sideOutput('other')).toEqual([]);
    expect(h.output()).toEqual([]);
  });

  it('fires processing-time timers with setProcessingTime', async () => {
    const h = await OperatorHarness.open(() => new IdleDetector());
    await h.processElements(
      insert({ key: 'x', ping: 30 }),
      insert({ key: 'y', ping: 20 }),
      insert({ key: 'x', ping: 30 }), // deduplicated
    );
    expect(await h.setProcessingTime(25)).toEqual([insert({ key: 'y', pingAt: 20 })]);
    expect(await h.setProcessingTime(10)).toEqual([]); // the clock never goes back
    expect(h.currentProcessingTime()).toBe(25);
    expect(await h.setProcessingTime(30)).toEqual([insert({ key: 'x', pingAt: 30 })]);
  });

  it('restores pending timers and the watermark, then endInput fires the rest', async () => {
    const h = await OperatorHarness.open(() => new IdleDetector(), { operatorId: 'Idle_3', shard: 1, parallelism: 2 });
    await h.processElements(insert({ key: 'a', ts: 1 }), insert({ key: 'b', ts: 50 }));
    await h.processWatermark(20);
    expect(h.extractOutput()).toEqual([insert({ key: 'a', closedAt: 11 })]);

    const restored = await OperatorHarness.restore(() => new IdleDetector(), h.snapshot());
    expect(restored.runner.operatorId).toBe('Idle_3');
    expect(restored.currentWatermark()).toBe(20);
    await restored.processElement(insert({ key: 'late', ts: 19 }));
    expect(restored.sideOutput('late')).toEqual([{ key: 'late', ts: 19 }]);
    await restored.processElement(insert({ key: 'c', ts: 30 }));
    expect(await restored.endInput()).toEqual([
      insert({ key: 'c', closedAt: 40 }),
      insert({ key: 'b', closedAt: 60 }),
    ]);
    expect(restored.currentWatermark()).toBe(Infinity);
    await restored.close();
  });
});
