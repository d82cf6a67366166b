import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Pipeline, count, max, sum } from '../../shared/api/index.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import type { Row } from '../../shared/core/types.ts';
import type { Operator, OperatorContext, Output } from '../../shared/operators/operator.ts';
import { createOperator } from '../../shared/operators/registry.ts';
import type { JobOperator } from '../../shared/plan/job-graph.ts';
import { runEmbeddedJob, type DeadLetter } from '../../shared/runtime/embedded/embedded-runtime.ts';
import { MaterializedView } from '../../shared/runtime/materialized-view.ts';
import type { Timer } from '../../shared/state/state.ts';

const dir = mkdtempSync(join(tmpdir(), 'flambda-runtime-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs a pipeline and returns the final rows of its only sink. */
async function finalRows(p: Pipeline, parallelism: number, extra: Parameters<typeof runEmbeddedJob>[1] = {}): Promise<Row[]> {
  const graph = p.jobGraph({ parallelism });
  const sink = graph.sinks[0]!;
  const view = new MaterializedView({ ...(sink.upsertKey ? { key: sink.upsertKey } : {}), columns: sink.schema.fields.map((f) => f.name), strict: true });
  await runEmbeddedJob(graph, {
    code: { functions: p.userFunctions, generators: p.generators },
    observers: new Map([[sink.name, [{ write: (rows: readonly ChangeRow[]) => rows.forEach((r) => view.apply(r)) }]]]),
    ...extra,
  });
  return view.rows();
}

const byK = (a: Row, b: Row): number => Number(a.k) - Number(b.k);

describe('Function: runEmbeddedJob', () => {
  it('gives the same final result at every parallelism, equal to a plain recomputation', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ k: fc.integer({ min: 0, max: 12 }), v: fc.option(fc.integer({ min: -50, max: 50 }), { nil: null }) }), { maxLength: 120 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 17 }),
        async (input, parallelism, batchSize) => {
          const p = new Pipeline('prop');
          p.source('t', { schema: { k: 'INT NOT NULL', v: 'INT' }, generator: () => input })
            .groupBy('k')
            .aggregate({ n: count(), total: sum('v'), top: max('v') })
            .sinkTo('out');
          const expected = new Map<number, { k: number; n: number; total: number | null; top: number | null }>();
          for (const { k, v } of input) {
            const e = expected.get(k) ?? { k, n: 0, total: null, top: null };
            e.n += 1;
            if (v !== null) {
              e.total = (e.total ?? 0) + v;
              e.top = e.top === null ? v : Math.max(e.top, v);
            }
            expected.set(k, e);
          }
          const rows = await finalRows(p, parallelism, { batchSize });
          expect(rows.sort(byK)).toEqual([...expected.values()].sort(byK));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('delivers rows before the watermark that followed them, and watermarks in order, on every shard', async () => {
    // Event times rise by 10 ms per row with up to 90 ms of jitter: within the 100 ms bound.
    const input: Row[] = Array.from({ length: 400 }, (_, i) => ({ k: i % 7, ts: 1_000 + i * 10 - ((i * 37) % 90) }));
    const p = new Pipeline('order');
    p.source('t', { schema: { k: 'INT NOT NULL', ts: 'TIMESTAMP(3) NOT NULL' }, watermark: { column: 'ts', outOfOrdernessMs: 100 }, generator: () => input, parallelism: 3 })
      .groupBy('k')
      .aggregate({ n: count(), latest: max('ts') })
      .sinkTo('out', { upsertKey: ['k'] });
    const seen: { shard: number; event: 'row' | 'watermark'; value: number; watermark: number }[] = [];
    const instantiate = (op: JobOperator, shard: number): Operator => {
      const inner = createOperator(op, { functions: new Map() });
      if (op.type !== 'GroupAggregate') return inner;
      let context: OperatorContext;
      return {
        open: (ctx) => {
          context = ctx;
          return inner.open(ctx);
        },
        processBatch: (batch, out) => {
          for (const r of batch) seen.push({ shard, event: 'row', value: r.row.ts as number, watermark: context.timers.currentWatermark() });
          return inner.processBatch(batch, out);
        },
        onWatermark: (wm) => {
          seen.push({ shard, event: 'watermark', value: wm, watermark: wm });
        },
      };
    };
    const rows = await finalRows(p, 2, { instantiate, batchSize: 16 });
    expect(rows.map((r) => r.n).reduce((a, b) => Number(a) + Number(b), 0)).toBe(400);
    for (const shard of [0, 1]) {
      const events = seen.filter((e) => e.shard === shard);
      const marks = events.filter((e) => e.event === 'watermark').map((e) => e.value);
      expect(marks.length).toBeGreaterThan(5); // watermarks advanced during the run, not only at the end
      expect(marks.at(-1)).toBe(Infinity);
      for (let i = 1; i < marks.length; i++) expect(marks[i]).toBeGreaterThan(marks[i - 1]!);
      // No row arrives behind the watermark: the bound holds and rows precede later watermarks.
      for (const e of events.filter((x) => x.event === 'row')) expect(e.value).toBeGreaterThanOrEqual(e.watermark);
    }
  });

  it('fires event-time timers as the watermark passes them and forwards their output', async () => {
    const input: Row[] = [5, 1, 9, 3, 20, 15].map((ts, i) => ({ k: i % 2, ts }));
    const p = new Pipeline('timers');
    p.source('t', { schema: { k: 'INT NOT NULL', ts: 'TIMESTAMP(3) NOT NULL' }, watermark: { column: 'ts', outOfOrdernessMs: 0 }, generator: () => input })
      .groupBy('k')
      .aggregate({ n: max('ts') })
      .sinkTo('out');
    // Replace the aggregate by an operator that echoes each row when the watermark reaches it.
    const fired: number[] = [];
    const instantiate = (op: JobOperator): Operator => {
      if (op.type !== 'GroupAggregate') return createOperator(op, { functions: new Map() });
      let context: OperatorContext;
      return {
        open: (ctx) => {
          context = ctx;
        },
        processBatch: (batch: readonly ChangeRow[]) => {
          for (const r of batch) context.timers.registerEventTimeTimer(String(r.row.k), '', r.row.ts as number);
        },
        onTimer: (timer: Timer, out: Output) => {
          fired.push(timer.timestamp);
          out.emit({ kind: '+I', row: { k: Number(timer.key), n: timer.timestamp } });
        },
      };
    };
    const rows = await finalRows(p, 1, { instantiate, batchSize: 2 });
    // Batches of two: [5, 1] → watermark 5 fires 1 and 5; [9, 3] → 3 is already behind the
    // watermark, so (as in Flink) it fires with the next advance, before 9; [20, 15] → 15, 20.
    expect(fired).toEqual([1, 5, 3, 9, 15, 20]);
    expect(rows.map((r) => r.n).sort((a, b) => Number(a) - Number(b))).toEqual([1, 3, 5, 9, 15, 20]);
  });

  it('dead-letters bad records with their position and keeps the others flowing', async () => {
    const file = join(dir, 'mixed.jsonl');
    writeFileSync(file, ['{"k": 1, "v": 10}', '{"k": 1, "v": "ten"}', 'not json', '', '{"k": 2, "v": 5}', '{"v": 3}'].join('\n'));
    const p = new Pipeline('bad');
    p.source('t', { schema: { k: 'INT NOT NULL', v: 'INT' } }).groupBy('k').aggregate({ total: sum('v') }).sinkTo('out');
    const letters: DeadLetter[] = [];
    const rows = await finalRows(p, 2, { inputs: new Map([['t', file]]), onDeadLetter: (l) => letters.push(l) });
    expect(rows.sort(byK)).toEqual([
      { k: 1, total: 10 },
      { k: 2, total: 5 },
    ]);
    expect(letters.map((l) => [l.position, l.raw])).toEqual([
      [`${file}:2`, '{"k": 1, "v": "ten"}'],
      [`${file}:3`, 'not json'],
      [`${file}:6`, '{"v": 3}'],
    ]);
    expect(letters[0]!.reason).toMatch(/field 'v'.*"ten"/);
    expect(letters[2]!.reason).toMatch(/field 'k'/);
  });

  it('names what is missing: an unbound source, a missing file, an unknown sink observer', async () => {
    const p = new Pipeline('missing');
    p.source('t', { schema: { k: 'INT' } }).sinkTo('out');
    const graph = p.jobGraph();
    await expect(runEmbeddedJob(graph)).rejects.toThrow(/source 't' has no input: pass --input t=<file.jsonl>/);
    await expect(runEmbeddedJob(graph, { inputs: new Map([['t', join(dir, 'nope.jsonl')]]) })).rejects.toThrow(/input file not found/);
    await expect(runEmbeddedJob(graph, { observers: new Map([['nope', []]]) })).rejects.toThrow(/unknown sink 'nope' \(sinks: out\)/);
  });

  it('runs map and filter functions of the TypeScript API', async () => {
    const p = new Pipeline('udfs');
    p.source('t', { schema: { k: 'INT NOT NULL', v: 'INT NOT NULL' }, generator: () => [1, 2, 3, 4, 5, 6].map((v) => ({ k: v % 2, v })) })
      .filter((r) => r.v > 1, 'moreThanOne')
      .map({ k: 'INT NOT NULL', doubled: 'INT NOT NULL' }, (r) => ({ k: r.k, doubled: r.v * 2 }), 'double')
      .groupBy('k')
      .aggregate({ total: sum('doubled') })
      .sinkTo('out');
    expect(p.explain()).toContain('Map(function=[double], fields=[k, doubled])');
    expect((await finalRows(p, 3)).sort(byK)).toEqual([
      { k: 0, total: 24 },
      { k: 1, total: 16 },
    ]);
  });
});
