import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Pipeline, col, tryCast } from '../../shared/api/index.ts';
import { call, cast } from '../../shared/plan/expr-build.ts';
import { RecordError, TransientError } from '../../shared/core/errors.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import type { Row } from '../../shared/core/types.ts';
import type { Operator } from '../../shared/operators/operator.ts';
import { runEmbeddedJob, type DeadLetter } from '../../shared/runtime/embedded/embedded-runtime.ts';
import { OperatorRunner } from '../../shared/runtime/operator-runner.ts';
import { StageExecutor, type RecordFailure } from '../../shared/runtime/stage-executor.ts';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { runSqlJob } from './run-sql-job.ts';

const dir = mkdtempSync(join(tmpdir(), 'flambda-error-policy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes JSON lines; returns the file's path. */
function input(name: string, lines: readonly string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** Runs a SQL script over `src`; returns what its sink got and the dead letters. */
const runSql = runSqlJob;

const TABLES = `
CREATE TABLE src (id BIGINT, v STRING) WITH ('connector' = 'filesystem', 'path' = 'in.jsonl', 'format' = 'json');
CREATE TABLE out_t (id BIGINT, n DECIMAL(10, 2)) WITH ('connector' = 'print');
`;

describe('Error policy: dead-letter (the default) in the embedded runtime', () => {
  // Each kind of data error in the middle of one batch; the rows around it must go through.
  const cases = [
    { kind: 'bad CAST', expr: 'CAST(v AS INT)', bad: 'abc', good: ['5', '7'], expected: [5, 7], reason: "cannot cast 'abc' to INT in CAST(v AS INT)" },
    { kind: 'division by zero', expr: '100 / CAST(v AS INT)', bad: '0', good: ['5', '4'], expected: [20, 25], reason: 'division by zero in' },
    { kind: 'DECIMAL overflow', expr: 'CAST(v AS DECIMAL(4, 2))', bad: '123.5', good: ['1.5', '99.99'], expected: [1.5, 99.99], reason: "cannot cast '123.5' to DECIMAL(4, 2)" },
  ];
  for (const c of cases) {
    it(`sets aside a ${c.kind} with its reason, position, operator and raw line; the rows before and after go on, in order`, async () => {
      const lines = [`{"id":1,"v":"${c.good[0]}"}`, `{"id":2,"v":"${c.bad}"}`, `{"id":3,"v":"${c.good[1]}"}`];
      const path = input(`${c.kind.replace(/\W+/g, '-')}.jsonl`, lines);
      const { rows, letters, deadLettered } = await runSql(`${TABLES}INSERT INTO out_t SELECT id, ${c.expr} FROM src;`, path);
      expect(rows.map((r) => [r.id, Number(r.n) / 100])).toEqual([
        [1, c.expected[0]],
        [3, c.expected[1]],
      ]);
      expect(deadLettered).toBe(1);
      expect(letters).toHaveLength(1);
      const letter = letters[0]!;
      expect(letter.position).toBe(`${path}:2`);
      expect(letter.reason).toContain(c.reason);
      expect(letter.raw).toBe(lines[1]);
      expect(letter.source).toBe('src');
      expect(letter.operator).toMatch(/^Calc_/);
    });
  }

  it('counts decode errors and operator errors together, at every parallelism and batch size', async () => {
    const lines: string[] = [];
    for (let i = 1; i <= 40; i++) lines.push(i % 10 === 3 ? `{"id":${i},"v":"x${i}"}` : i % 10 === 7 ? 'not json' : `{"id":${i},"v":"${i}"}`);
    const path = input('many.jsonl', lines);
    for (const [parallelism, batchSize] of [
      [1, 1024],
      [3, 4],
      [2, 1],
    ] as const) {
      const { rows, letters } = await runSql(`${TABLES}INSERT INTO out_t SELECT id, CAST(v AS INT) FROM src;`, path, { batchSize }, parallelism);
      expect(rows.map((r) => r.id).sort((a, b) => Number(a) - Number(b))).toEqual(
        Array.from({ length: 40 }, (_, i) => i + 1).filter((i) => i % 10 !== 3 && i % 10 !== 7),
      );
      expect(letters.filter((l) => l.operator !== undefined).map((l) => l.position).sort()).toEqual([3, 13, 23, 33].map((i) => `${path}:${i}`).sort());
      expect(letters.filter((l) => l.operator === undefined)).toHaveLength(4);
    }
  });

  it('sets aside a row an upstream stage produced, naming its stage and shard', async () => {
    const path = input('agg.jsonl', ['{"id":1,"v":"a"}', '{"id":1,"v":"b"}', '{"id":2,"v":"c"}']);
    const sql = `CREATE TABLE src (id BIGINT, v STRING) WITH ('connector' = 'filesystem', 'path' = 'in.jsonl', 'format' = 'json');
CREATE TABLE out_t (id BIGINT, n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_t SELECT id, 10 / (COUNT(*) - 2) FROM src GROUP BY id;`;
    const { rows, letters } = await runSql(sql, path);
    // id 1: count 1 → -10, then count 2 → division by zero (retraction of -10 still goes through).
    expect(letters).toHaveLength(1);
    expect(letters[0]!.reason).toContain('division by zero');
    // The failing row is the aggregate's update, made from its state: the position names it.
    expect(letters[0]!.position).toMatch(/^stage-1 shard 0, emitted by GroupAggregate_\d+ on input$/);
    expect(JSON.parse(letters[0]!.raw)).toMatchObject({ id: 1 });
    expect(rows.map((r) => [r.id, r.n])).toContainEqual([2, -10]);
  });
});

describe("Error policy: 'fail'", () => {
  const lines = ['{"id":1,"v":"5"}', '{"id":2,"v":"abc"}', '{"id":3,"v":"7"}'];

  it("stops the job at the bad record when SET 'pipeline.error-policy' = 'fail', naming value, position and operator", async () => {
    const path = input('fail.jsonl', lines);
    const sql = `SET 'pipeline.error-policy' = 'fail';${TABLES}INSERT INTO out_t SELECT id, CAST(v AS INT) FROM src;`;
    await expect(runSql(sql, path)).rejects.toThrow(new RegExp(`cannot cast 'abc' to INT in CAST\\(v AS INT\\) \\(${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:2, stage-0 shard 0, operator Calc_\\d+\\); pipeline.error-policy is 'fail'`));
  });

  it('is also a pipeline option of the API and a runtime option, and rejects unknown values', async () => {
    const path = input('fail-api.jsonl', lines);
    const p = new Pipeline('api', { errorPolicy: 'fail' });
    p.source('src', { schema: { id: 'BIGINT', v: 'STRING' } }).select({ id: 'id', n: cast(col('v'), 'INT') }).sinkTo('out');
    const graph = p.jobGraph();
    expect(graph.errorPolicy).toBe('fail');
    await expect(runEmbeddedJob(graph, { inputs: new Map([['src', path]]), sinkSetup: { quiet: true } })).rejects.toThrow(RecordError);
    // The runtime option overrides the graph's.
    const result = await runEmbeddedJob(graph, { inputs: new Map([['src', path]]), sinkSetup: { quiet: true }, errorPolicy: 'dead-letter' });
    expect(result.deadLettered).toBe(1);
    expect(() => new Pipeline('bad', { errorPolicy: 'skip' as never })).toThrow("errorPolicy must be 'dead-letter' or 'fail' (given 'skip')");
    expect(() => compileSql(`SET 'pipeline.error-policy' = 'ignore';${TABLES}INSERT INTO out_t SELECT id, 1 FROM src;`)).toThrow(
      /line 1:1: 'pipeline.error-policy' must be 'dead-letter' or 'fail' \(given 'ignore'\)/,
    );
  });

  it('leaves the default graph without the option (job graphs of existing pipelines do not change)', () => {
    const p = new Pipeline('plain');
    p.source('src', { schema: { id: 'BIGINT' } }).sinkTo('out');
    expect('errorPolicy' in p.jobGraph()).toBe(false);
  });
});

describe('TRY_CAST', () => {
  it('gives NULL where CAST would fail the record; a data error inside its operand still fails it', async () => {
    const path = input('try.jsonl', ['{"id":1,"v":"5"}', '{"id":2,"v":"abc"}', '{"id":3,"v":"0"}', '{"id":4}']);
    const p = new Pipeline('try');
    p.source('src', { schema: { id: 'BIGINT', v: 'STRING' } })
      .select({ id: 'id', n: tryCast(col('v'), 'INT'), q: tryCast(call('/', 10, cast(col('v'), 'INT')), 'STRING') })
      .sinkTo('out');
    const graph = p.jobGraph();
    expect(graph.sinks[0]!.schema.fields.map((f) => [f.name, f.type.nullable])).toEqual([
      ['id', true],
      ['n', true],
      ['q', true],
    ]);
    const rows: Row[] = [];
    const letters: DeadLetter[] = [];
    await runEmbeddedJob(graph, {
      inputs: new Map([['src', path]]),
      sinkSetup: { quiet: true },
      observers: new Map([['out', [{ write: (changes: readonly ChangeRow[]) => changes.forEach((c) => rows.push(c.row)) }]]]),
      onDeadLetter: (l) => letters.push(l),
    });
    // id 2: 'abc' fails the inner CAST (not the TRY_CAST); id 3: 10 / 0 fails inside the TRY_CAST.
    expect(rows).toEqual([
      { id: 1, n: 5, q: '2' },
      { id: 4, n: null, q: null },
    ]);
    expect(letters.map((l) => l.position)).toEqual([`${path}:2`, `${path}:3`]);
    expect(letters[1]!.reason).toContain('division by zero');
  });
});

describe('TRY_CAST in SQL', () => {
  it('reads TRY_CAST into a safe cast: NULL for the bad value, no dead letter', async () => {
    const path = input('try-sql.jsonl', ['{"id":1,"v":"5"}', '{"id":2,"v":"abc"}', '{"id":3}']);
    const sql = `CREATE TABLE src (id BIGINT, v STRING) WITH ('connector' = 'filesystem', 'path' = 'in.jsonl', 'format' = 'json');
CREATE TABLE out_t (id BIGINT, n INT) WITH ('connector' = 'print');
INSERT INTO out_t SELECT id, TRY_CAST(v AS INT) FROM src;`;
    const { rows, letters } = await runSql(sql, path);
    expect(rows).toEqual([
      { id: 1, n: 5 },
      { id: 2, n: null },
      { id: 3, n: null },
    ]);
    expect(letters).toEqual([]);
  });
});

describe('Class: StageExecutor', () => {
  /** A runner of an operator built from `process`. */
  async function runnerOf(id: string, process: Operator['processBatch']): Promise<OperatorRunner> {
    const runner = new OperatorRunner(() => ({ open() {}, processBatch: process }), { operatorId: id, shard: 0, parallelism: 1, clock: () => 0 });
    await runner.open();
    return runner;
  }
  const rowsOf = (...ids: number[]): ChangeRow[] => ids.map((id) => ({ kind: '+I', row: { id } }));

  it('retries a call that failed with a TransientError, with backoff, and gives up after the attempts', async () => {
    let failuresLeft = 2;
    const runner = await runnerOf('Flaky_1', (batch, out) => {
      if (failuresLeft-- > 0) throw new TransientError('throttled');
      for (const r of batch) out.emit(r);
    });
    const waits: number[] = [];
    const executor = new StageExecutor([runner], { onRecordFailure: () => {}, retry: { maxAttempts: 3, baseDelayMs: 100, random: () => 0.5, sleep: async (ms) => void waits.push(ms) } });
    expect(await executor.process(rowsOf(1, 2))).toEqual(rowsOf(1, 2));
    expect(waits).toEqual([50, 100]);
    expect(runner.metrics.get('numRecordsIn')).toBe(2);
    failuresLeft = 3;
    await expect(executor.process(rowsOf(3))).rejects.toThrow('throttled');
  });

  it('lets a fatal error through unchanged, and drops the side rows and output of a batch it runs again', async () => {
    const fatal = new Error('table not found');
    const runner = await runnerOf('Op_1', (batch, out) => {
      for (const r of batch) {
        out.emitSide('seen', r.row);
        if (r.row.id === 2) throw new RecordError('bad id 2');
        if (r.row.id === 9) throw fatal;
        out.emit(r);
      }
    });
    const failures: RecordFailure[] = [];
    const executor = new StageExecutor([runner], { onRecordFailure: (f) => failures.push(f) });
    expect(await executor.process(rowsOf(1, 2, 3), 0, 'left', (r) => ({ position: `f:${String(r.row.id)}`, raw: '' }))).toEqual(rowsOf(1, 3));
    expect(failures.map((f) => [f.operator, f.reason, f.origin?.position, f.row.row.id])).toEqual([['Op_1', 'bad id 2', 'f:2', 2]]);
    // Side rows of the failed batch are dropped; those of the rows run again are kept once.
    expect([...runner.sideOutputs()].map(([tag, rows]) => [tag, rows.map((r) => r.id)])).toEqual([['seen', [1, 3]]]);
    expect(runner.metrics.get('numRecordsIn')).toBe(2);
    await expect(executor.process(rowsOf(9))).rejects.toBe(fatal);
  });
});
