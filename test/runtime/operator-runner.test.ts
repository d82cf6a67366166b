import { describe, it, expect } from 'vitest';
import { FlambdaError, PlanError } from '../../shared/core/errors.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import { insertRecord, updateAfterRecord, updateBeforeRecord } from '../../shared/core/row.ts';
import type { Operator, OperatorContext, Output, Timer } from '../../shared/operators/operator.ts';
import { MetricCounters, OperatorRunner, RUNNER_METRICS } from '../../shared/runtime/operator-runner.ts';
import type { ValueState } from '../../shared/state/state.ts';

/** Counts rows per `word` and emits the running count as an updating changelog. */
class WordCount implements Operator {
  private counts!: ValueState<number>;

  open(context: OperatorContext): void {
    this.counts = context.state.valueState<number>('count');
  }

  processBatch(batch: readonly ChangeRow[], out: Output): void {
    for (const { row } of batch) {
      const word = String(row.word);
      const previous = this.counts.get(word);
      const next = (previous ?? 0) + 1;
      this.counts.put(word, next);
      if (previous === undefined) {
        out.emit(insertRecord({ word, n: next }));
      } else {
        out.emit(updateBeforeRecord({ word, n: previous }));
        out.emit(updateAfterRecord({ word, n: next }));
      }
    }
  }
}

/** Records every lifecycle call; registers timers from row fields; routes late rows to a side output. */
class Recorder implements Operator {
  readonly calls: string[] = [];
  private context!: OperatorContext;

  async open(context: OperatorContext): Promise<void> {
    await Promise.resolve();
    this.context = context;
    this.calls.push(`open ${context.operatorId} ${context.shard}/${context.parallelism}`);
  }

  async processBatch(batch: readonly ChangeRow[], out: Output): Promise<void> {
    await Promise.resolve();
    for (const { row } of batch) {
      const key = String(row.key);
      const at = Number(row.at);
      if (row.domain === 'processing') {
        this.context.timers.registerProcessingTimeTimer(key, '', at);
      } else if (at <= this.context.timers.currentWatermark()) {
        out.emitSide('late', row);
        this.context.metrics.increment('late');
      } else {
        this.context.timers.registerEventTimeTimer(key, '', at);
      }
    }
    this.calls.push(`batch ${batch.length}`);
  }

  onTimer(timer: Timer, out: Output): void {
    this.calls.push(`timer ${timer.domain} ${timer.key}@${timer.timestamp}`);
    out.emit(insertRecord({ key: timer.key, fired: timer.timestamp }));
    // A timer that schedules a follow-up already due at the current watermark.
    if (timer.key === 'chain' && timer.domain === 'event') {
      this.context.timers.registerEventTimeTimer('chained', '', timer.timestamp);
    }
  }

  onWatermark(watermark: number, out: Output): void {
    this.calls.push(`watermark ${watermark}`);
    out.emit(insertRecord({ watermark }));
  }

  finish(out: Output): void {
    this.calls.push('finish');
    out.emit(insertRecord({ finished: true }));
  }

  close(): void {
    this.calls.push('close');
  }
}

const options = { operatorId: 'Op_1', shard: 2, parallelism: 4 };

async function openRunner<T extends Operator>(operator: T, clock?: () => number): Promise<[OperatorRunner, T]> {
  const runner = new OperatorRunner(() => operator, { ...options, clock });
  await runner.open();
  return [runner, operator];
}

describe('OperatorRunner', () => {
  it('opens the operator with its context and returns each batch output in order', async () => {
    const [runner] = await openRunner(new WordCount());
    expect(await runner.processBatch([insertRecord({ word: 'a' }), insertRecord({ word: 'a' })])).toEqual([
      insertRecord({ word: 'a', n: 1 }),
      updateBeforeRecord({ word: 'a', n: 1 }),
      updateAfterRecord({ word: 'a', n: 2 }),
    ]);
    expect(await runner.processBatch([])).toEqual([]);
    expect(runner.metrics.get(RUNNER_METRICS.recordsIn)).toBe(2);
    expect(runner.metrics.get(RUNNER_METRICS.recordsOut)).toBe(3);
  });

  it('passes operator id, shard and parallelism and supports async hooks', async () => {
    const [runner, op] = await openRunner(new Recorder());
    await runner.processBatch([insertRecord({ key: 'k', at: 5 })]);
    await runner.close();
    expect(op.calls).toEqual(['open Op_1 2/4', 'batch 1', 'close']);
  });

  it('fires due event timers in order, then onWatermark; regressions are ignored', async () => {
    const [runner, op] = await openRunner(new Recorder());
    await runner.processBatch([
      insertRecord({ key: 'b', at: 20 }),
      insertRecord({ key: 'a', at: 10 }),
      insertRecord({ key: 'c', at: 30 }),
    ]);
    expect(await runner.advanceWatermark(20)).toEqual([
      insertRecord({ key: 'a', fired: 10 }),
      insertRecord({ key: 'b', fired: 20 }),
      insertRecord({ watermark: 20 }),
    ]);
    expect(await runner.advanceWatermark(15)).toEqual([]);
    expect(await runner.advanceWatermark(20)).toEqual([]);
    expect(runner.currentWatermark()).toBe(20);
    expect(op.calls.slice(-3)).toEqual(['timer event a@10', 'timer event b@20', 'watermark 20']);
    expect(runner.metrics.get(RUNNER_METRICS.timersFired)).toBe(2);
  });

  it('fires timers registered during firing in the same advance', async () => {
    const [runner] = await openRunner(new Recorder());
    await runner.processBatch([insertRecord({ key: 'chain', at: 5 }), insertRecord({ key: 'z', at: 6 })]);
    expect(await runner.advanceWatermark(10)).toEqual([
      insertRecord({ key: 'chain', fired: 5 }),
      insertRecord({ key: 'chained', fired: 5 }),
      insertRecord({ key: 'z', fired: 6 }),
      insertRecord({ watermark: 10 }),
    ]);
  });

  it('routes rows to side outputs and drains them', async () => {
    const [runner] = await openRunner(new Recorder());
    await runner.advanceWatermark(100);
    await runner.processBatch([insertRecord({ key: 'x', at: 50 }), insertRecord({ key: 'y', at: 100 })]);
    expect(runner.sideOutputs()).toEqual(new Map([['late', [{ key: 'x', at: 50 }, { key: 'y', at: 100 }]]]));
    expect(runner.sideOutputs()).toEqual(new Map());
    expect(runner.metrics.get('late')).toBe(2);
    expect(runner.metrics.get(RUNNER_METRICS.sideRecordsOut)).toBe(2);
  });

  it('fires processing-time timers when processing time advances', async () => {
    let now = 1000;
    const [runner, op] = await openRunner(new Recorder(), () => now);
    expect(runner.timers.currentProcessingTime()).toBe(1000);
    await runner.processBatch([
      insertRecord({ key: 'p2', at: 1200, domain: 'processing' }),
      insertRecord({ key: 'p1', at: 1100, domain: 'processing' }),
    ]);
    now = 1150;
    expect(await runner.setProcessingTime(1150)).toEqual([insertRecord({ key: 'p1', fired: 1100 })]);
    expect(await runner.setProcessingTime(1300)).toEqual([insertRecord({ key: 'p2', fired: 1200 })]);
    expect(op.calls.filter((c) => c.startsWith('timer'))).toEqual([
      'timer processing p1@1100',
      'timer processing p2@1200',
    ]);
  });

  it('finish advances to +Infinity, then calls finish; processing timers are dropped', async () => {
    const [runner, op] = await openRunner(new Recorder(), () => 0);
    await runner.processBatch([
      insertRecord({ key: 'e', at: 1e15 }),
      insertRecord({ key: 'p', at: 10, domain: 'processing' }),
    ]);
    expect(await runner.finish()).toEqual([
      insertRecord({ key: 'e', fired: 1e15 }),
      insertRecord({ watermark: Infinity }),
      insertRecord({ finished: true }),
    ]);
    expect(op.calls.slice(-1)).toEqual(['finish']);
    await expect(runner.processBatch([])).rejects.toThrow(/finished/);
    await runner.close();
    expect(op.calls.slice(-1)).toEqual(['close']);
  });

  it('enforces the lifecycle and rejects overlapping calls', async () => {
    const runner = new OperatorRunner(() => new Recorder(), options);
    await expect(runner.processBatch([])).rejects.toThrow(FlambdaError);
    await runner.open();
    await expect(runner.open()).rejects.toThrow(/already open/);
    const first = runner.processBatch([insertRecord({ key: 'a', at: 1 })]);
    expect(() => runner.snapshot()).toThrow(/during a call/);
    const overlapping = runner.processBatch([]);
    await first;
    await expect(overlapping).rejects.toThrow(/not completed/);
    expect(await runner.processBatch([])).toEqual([]);
  });

  it('fails clearly when a timer fires on an operator without onTimer', async () => {
    const operator: Operator = {
      open(context) {
        context.timers.registerEventTimeTimer('k', '', 1);
      },
      processBatch() {},
    };
    const runner = new OperatorRunner(() => operator, options);
    await runner.open();
    await expect(runner.advanceWatermark(1)).rejects.toThrow(/no onTimer/);
  });

  it('snapshots state, timers and watermark, and restores them into a new runner', async () => {
    const runner = new OperatorRunner(() => new WordCount(), options);
    await runner.open();
    await runner.processBatch([insertRecord({ word: 'a' }), insertRecord({ word: 'b' })]);
    await runner.advanceWatermark(42);
    const snapshot = structuredClone(runner.snapshot());
    expect(snapshot).toMatchObject({ operatorId: 'Op_1', shard: 2, parallelism: 4 });
    expect(snapshot.timers.watermark).toBe(42);

    const restored = new OperatorRunner(() => new WordCount(), { ...options, snapshot });
    await restored.open();
    expect(restored.currentWatermark()).toBe(42);
    expect(await restored.processBatch([insertRecord({ word: 'a' })])).toEqual([
      updateBeforeRecord({ word: 'a', n: 1 }),
      updateAfterRecord({ word: 'a', n: 2 }),
    ]);
    // The original is unaffected by the restored copy.
    expect(await runner.processBatch([insertRecord({ word: 'a' })])).toEqual([
      updateBeforeRecord({ word: 'a', n: 1 }),
      updateAfterRecord({ word: 'a', n: 2 }),
    ]);
  });

  it('restores pending timers, firing overdue processing-time timers on the next tick', async () => {
    let now = 0;
    const first = new OperatorRunner(() => new Recorder(), { ...options, clock: () => now });
    await first.open();
    await first.processBatch([
      insertRecord({ key: 'e', at: 7 }),
      insertRecord({ key: 'p', at: 50, domain: 'processing' }),
    ]);
    const snapshot = first.snapshot();
    now = 100;
    const second = new OperatorRunner(() => new Recorder(), { ...options, clock: () => now, snapshot });
    await second.open();
    expect(await second.setProcessingTime(100)).toEqual([insertRecord({ key: 'p', fired: 50 })]);
    expect(await second.advanceWatermark(7)).toEqual([
      insertRecord({ key: 'e', fired: 7 }),
      insertRecord({ watermark: 7 }),
    ]);
  });

  it('refuses a snapshot of another operator or shard', async () => {
    const runner = new OperatorRunner(() => new WordCount(), options);
    const snapshot = runner.snapshot();
    expect(() => new OperatorRunner(() => new WordCount(), { ...options, shard: 1, snapshot })).toThrow(PlanError);
    expect(() => new OperatorRunner(() => new WordCount(), { ...options, operatorId: 'Op_2', snapshot })).toThrow(
      /cannot be restored/,
    );
  });
});

describe('MetricCounters', () => {
  it('accumulates named counters', () => {
    const m = new MetricCounters();
    m.increment('a');
    m.increment('a', 4);
    m.increment('b', 0);
    expect([...m]).toEqual([['a', 5], ['b', 0]]);
  });
});
