/**
 * The stage executor's batch lifecycle (StageExecutor.runBatch): the durable part of a batch is
 * behind a port (begin, output, commit) that each runtime implements — the embedded driver's
 * commit does nothing, the Lambda driver's is the checkpoint protocol (test/aws/).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { RecordError } from '../../shared/core/errors.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import type { Operator } from '../../shared/operators/operator.ts';
import { OperatorRunner } from '../../shared/runtime/operator-runner.ts';
import { StageExecutor, type BatchPort, type ChainStep, type RecordFailure } from '../../shared/runtime/stage-executor.ts';
import { runSqlJob } from './run-sql-job.ts';

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

describe('StageExecutor: the origin of a bad row the stateless operators before it derived', () => {
  async function rowwise(id: string, process: Operator['processBatch']): Promise<OperatorRunner> {
    const runner = new OperatorRunner(() => ({ open() {}, rowwise: true, processBatch: process }), { operatorId: id, shard: 0, parallelism: 1, clock: () => 0 });
    await runner.open();
    return runner;
  }

  it('names the input record each failing row came from; the good rows go on in order; counters count each row once', async () => {
    // A flat map (id → id·10, id·10 + 1), a filter (drops 21), then a check that rejects 11 and 31.
    const split = await rowwise('Split_1', (batch, out) => {
      for (const r of batch) for (const k of [0, 1]) out.emit({ kind: '+I', row: { id: (r.row.id as number) * 10 + k } });
    });
    const filter = await rowwise('Filter_2', (batch, out) => {
      for (const r of batch) if (r.row.id !== 21) out.emit(r);
    });
    const check = await runnerOf('Check_3', (batch, out) => {
      for (const r of batch) if (r.row.id === 11 || r.row.id === 31) throw new RecordError(`bad ${String(r.row.id)}`);
      for (const r of batch) out.emit(r);
    });
    const failures: RecordFailure[] = [];
    const executor = new StageExecutor([split, filter, check], { onRecordFailure: (f) => failures.push(f) });
    const input = rowsOf(1, 2, 3);
    const out = await executor.process(input, 0, 'left', (row) => {
      const i = input.indexOf(row);
      return i < 0 ? undefined : { position: `in.jsonl:${i + 1}`, raw: JSON.stringify(row.row) };
    });
    expect(out.map((r) => r.row.id)).toEqual([10, 20, 30]);
    expect(failures.map((f) => [f.reason, f.operator, f.row.row.id, f.origin?.position, f.origin?.raw, f.producer])).toEqual([
      ['bad 11', 'Check_3', 11, 'in.jsonl:1', '{"id":1}', undefined],
      ['bad 31', 'Check_3', 31, 'in.jsonl:3', '{"id":3}', undefined],
    ]);
    // Running the stateless prefix again on the failure path is not counted as more records.
    expect([split.metrics.get('numRecordsIn'), split.metrics.get('numRecordsOut'), filter.metrics.get('numRecordsIn'), filter.metrics.get('numRecordsOut')]).toEqual([3, 6, 6, 5]);
  });

  it('names the stateful operator and its trigger for a bad row it fired from its state', async () => {
    const window = new OperatorRunner(
      () => ({
        open() {},
        processBatch() {},
        onWatermark(_wm, out) {
          out.emit({ kind: '+I', row: { id: 7 } });
        },
      }),
      { operatorId: 'Window_1', shard: 0, parallelism: 1, clock: () => 0 },
    );
    await window.open();
    const check = await runnerOf('Check_2', (batch) => {
      for (const r of batch) throw new RecordError(`bad ${String(r.row.id)}`);
    });
    const failures: RecordFailure[] = [];
    const executor = new StageExecutor([window, check], { onRecordFailure: (f) => failures.push(f) });
    expect(await executor.advance(5000)).toEqual([]);
    expect(failures.map((f) => [f.reason, f.origin, f.producer])).toEqual([['bad 7', undefined, 'emitted by Window_1 on watermark 5000']]);
  });
});

describe('the embedded runtime drives every loop through runBatch and its port', () => {
  const dir = mkdtempSync(join(tmpdir(), 'flambda-port-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  afterEach(() => vi.restoreAllMocks());

  it('source reads, exchange drains, watermarks, end of processing time and finish: begin, outputs, commit each', async () => {
    // Every batch the embedded runtime runs, as [stage label, step types, port calls]; and any
    // executor call made outside a batch (a loop that bypasses the lifecycle).
    const batches: { label: string; steps: string[]; calls: string[] }[] = [];
    const bypass: string[] = [];
    let depth = 0;
    const runBatch = StageExecutor.prototype.runBatch;
    vi.spyOn(StageExecutor.prototype, 'runBatch').mockImplementation(async function (
      this: StageExecutor,
      items: Iterable<unknown>,
      step: (item: unknown) => ChainStep | undefined,
      port: BatchPort<unknown>,
    ): Promise<void> {
      const label = (this as unknown as { options: { label: string } }).options.label;
      const batch = { label, steps: [] as string[], calls: [] as string[] };
      batches.push(batch);
      depth++;
      try {
        await runBatch.call(
          this,
          items,
          (item: unknown) => {
            const s = step(item);
            if (s !== undefined) batch.steps.push(s.type === 'rows' ? 'rows' : s.type === 'finish' ? 'finish' : `${s.type} ${s.value === Infinity ? '+∞' : s.value >= 8e15 ? 'end' : 'now'}`);
            return s;
          },
          {
            begin: () => (batch.calls.push('begin'), port.begin()),
            output: (rows, item) => (batch.calls.push(`output ${rows.length}`), port.output(rows, item)),
            commit: () => (batch.calls.push('commit'), port.commit()),
          },
        );
      } finally {
        depth--;
      }
    });
    for (const method of ['process', 'advance', 'tick', 'finish'] as const) {
      const original = StageExecutor.prototype[method] as (...args: unknown[]) => Promise<unknown>;
      vi.spyOn(StageExecutor.prototype, method).mockImplementation(function (this: StageExecutor, ...args: unknown[]) {
        if (depth === 0) bypass.push(method);
        return original.apply(this, args) as never;
      } as never);
    }
    const path = join(dir, 'in.jsonl');
    writeFileSync(path, ['{"k":"a","v":1}', '{"k":"b","v":2}', '{"k":"a","v":3}'].join('\n') + '\n');
    const sql = `CREATE TABLE src (k STRING, v BIGINT) WITH ('connector' = 'filesystem', 'path' = 'in.jsonl', 'format' = 'json');
CREATE TABLE out_t (k STRING, total BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'print');
INSERT INTO out_t SELECT k, SUM(v) AS total FROM src GROUP BY k;`;
    const { rows } = await runSqlJob(sql, path);
    expect(rows.at(-1)).toEqual({ k: 'a', total: 4 });
    expect(bypass).toEqual([]);
    // Every batch: begin, one output per step, commit — in that order.
    for (const b of batches) expect(b.calls).toEqual(['begin', ...b.steps.map(() => expect.stringMatching(/^output \d+$/) as unknown as string), 'commit']);
    expect(batches.map((b) => `${b.label}: ${b.steps.join(', ')}`)).toEqual([
      // The source stage reads its batch, then processing time.
      'stage-0 shard 0: rows, processing-time now',
      // The drain of the exchange into the aggregate stage.
      'stage-1 shard 0: rows, processing-time now',
      // End of input: +∞ on the source stage, then the drain carries it downstream.
      'stage-0 shard 0: watermark +∞',
      'stage-1 shard 0: processing-time now',
      'stage-1 shard 0: watermark +∞',
      // End of processing time, stage by stage, each drained before the next.
      'stage-0 shard 0: processing-time end',
      'stage-1 shard 0: processing-time now',
      'stage-1 shard 0: processing-time end',
      // Finish, stage by stage.
      'stage-0 shard 0: finish',
      'stage-1 shard 0: processing-time now',
      'stage-1 shard 0: finish',
    ]);
    // The drain batch hands the aggregate's changelog of the batch (three rows, two keys) to the port.
    expect(batches[1]?.calls).toEqual(['begin', 'output 3', 'output 0', 'commit']);
  });
});
