/**
 * The stage executor's batch lifecycle (StageExecutor.runBatch): the durable part of a batch is
 * behind a port (begin, output, commit) that each runtime implements — the embedded driver's
 * commit does nothing, the Lambda driver's is the checkpoint protocol (test/aws/).
 */
import { describe, expect, it } from 'vitest';
import { RecordError } from '../../shared/core/errors.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import type { Operator } from '../../shared/operators/operator.ts';
import { OperatorRunner } from '../../shared/runtime/operator-runner.ts';
import { StageExecutor, type BatchPort, type ChainStep, type RecordFailure } from '../../shared/runtime/stage-executor.ts';

async function runnerOf(id: string, process: Operator['processBatch']): Promise<OperatorRunner> {
  const runner = new OperatorRunner(() => ({ open() {}, processBatch: process }), { operatorId: id, shard: 0, parallelism: 1, clock: () => 0 });
  await runner.open();
  return runner;
}
const rowsOf = (...ids: number[]): ChangeRow[] => ids.map((id) => ({ kind: '+I', row: { id } }));

/** A port that records what it is called with. */
function recordingPort<T>(): { port: BatchPort<T>; calls: string[]; outputs: [T, ChangeRow[]][] } {
  const calls: string[] = [];
  const outputs: [T, ChangeRow[]][] = [];
  return {
    calls,
    outputs,
    port: {
      begin: () => void calls.push('begin'),
      output: (rows, item) => {
        calls.push('output');
        outputs.push([item, [...rows]]);
      },
      commit: async () => void calls.push('commit'),
    },
  };
}

describe('StageExecutor.runBatch: the batch lifecycle behind a port', () => {
  it('begins, hands each item its output in input order (none for an item the driver keeps), then commits once', async () => {
    const doubled = await runnerOf('Double_1', (batch, out) => {
      for (const r of batch) out.emit({ kind: '+I', row: { id: (r.row.id as number) * 2 } });
    });
    const failures: RecordFailure[] = [];
    const executor = new StageExecutor([doubled], { onRecordFailure: (f) => failures.push(f) });
    type Item = { readonly name: string; readonly step: ChainStep | undefined };
    const items: Item[] = [
      { name: 'rows 1 2', step: { type: 'rows', rows: rowsOf(1, 2) } },
      { name: 'a decode dead letter', step: undefined },
      { name: 'watermark 10', step: { type: 'watermark', value: 10 } },
      { name: 'rows 3', step: { type: 'rows', rows: rowsOf(3) } },
    ];
    const { port, calls, outputs } = recordingPort<Item>();
    await executor.runBatch(items, (item) => item.step, port);
    expect(calls).toEqual(['begin', 'output', 'output', 'output', 'output', 'commit']);
    expect(outputs.map(([item, rows]) => [item.name, rows.map((r) => r.row.id)])).toEqual([
      ['rows 1 2', [2, 4]],
      ['a decode dead letter', []],
      ['watermark 10', []],
      ['rows 3', [6]],
    ]);
    expect(executor.inputWatermark).toBe(10);
    expect(failures).toEqual([]);
  });

  it('sets a data error aside and goes on; a fatal error propagates as it is, after the items before it, and nothing commits', async () => {
    const fatal = new Error('table not found');
    const runner = await runnerOf('Op_1', (batch, out) => {
      for (const r of batch) {
        if (r.row.id === 2) throw new RecordError('bad id 2');
        if (r.row.id === 9) throw fatal;
        out.emit(r);
      }
    });
    const failures: RecordFailure[] = [];
    const executor = new StageExecutor([runner], { onRecordFailure: (f) => failures.push(f) });
    const { port, calls, outputs } = recordingPort<ChainStep>();
    const steps: ChainStep[] = [
      { type: 'rows', rows: rowsOf(1, 2, 3) },
      { type: 'rows', rows: rowsOf(9) },
      { type: 'rows', rows: rowsOf(4) },
    ];
    let last: ChainStep | undefined;
    await expect(executor.runBatch(steps, (s) => (last = s), port)).rejects.toBe(fatal);
    expect(calls).toEqual(['begin', 'output']);
    expect(outputs.map(([, rows]) => rows.map((r) => r.row.id))).toEqual([[1, 3]]);
    expect(failures.map((f) => [f.reason, f.operator, f.row.row.id])).toEqual([['bad id 2', 'Op_1', 2]]);
    // The driver tells the failing item from the last one it was asked about.
    expect(last).toBe(steps[1]);
  });
});
