/**
 * Values that do not fit their sink, and numeric overflow, in the embedded runtime: each in the
 * middle of a batch is a data error of its one record — dead-lettered with its reason, position,
 * operator and raw value, counted — and the rows before and after it reach the sink in order.
 * Under 'fail' the job stops with the message. (The DynamoDB and Kinesis limits exist only on the
 * AWS runtime: test/aws/handler-sink-fit.test.ts.)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSqlJob, type SqlJobRun } from './run-sql-job.ts';
import { compileSql } from '../../shared/sql/compile-sql.ts';

const dir = mkdtempSync(join(tmpdir(), 'flambda-sink-constraints-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `lines` to `<name>.jsonl` and runs `sql` over it as `src`. */
async function runSql(sql: string, lines: readonly string[], name: string): Promise<SqlJobRun & { path: string }> {
  const path = join(dir, `${name}.jsonl`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return { ...(await runSqlJob(sql, path)), path };
}

const SRC = "CREATE TABLE src (id BIGINT, v STRING) WITH ('connector' = 'filesystem', 'path' = 'in.jsonl', 'format' = 'json');\n";
const LINES = ['{"id":1,"v":"5"}', '{"id":2,"v":"6"}', '{"id":3,"v":"x"}', '{"id":4,"v":"7"}', '{"id":5,"v":"8"}'];

describe('Sink schema: a NULL into a NOT NULL column (Flink’s not-null enforcer, ERROR)', () => {
  const sql = `${SRC}CREATE TABLE out_t (id BIGINT, n INT NOT NULL) WITH ('connector' = 'print');
INSERT INTO out_t SELECT id, TRY_CAST(v AS INT) AS n FROM src;`;

  it('dead-letters the row with its reason, operator and value; the rows before and after reach the sink', async () => {
    const { rows, letters, deadLettered, path } = await runSql(sql, LINES, 'not-null');
    expect(rows).toEqual([
      { id: 1, n: 5 },
      { id: 2, n: 6 },
      { id: 4, n: 7 },
      { id: 5, n: 8 },
    ]);
    expect(deadLettered).toBe(1);
    expect(letters).toEqual([
      {
        source: 'src',
        // A row the chain's Calc derived from line 3: the executor traces it back to that line,
        // and the letter carries the line as it was read.
        position: `${path}:3`,
        reason: "column 'n' of sink 'out_t' is NOT NULL, but the row has a NULL there",
        raw: '{"id":3,"v":"x"}',
        operator: 'ConstraintEnforcer_out_t',
      },
    ]);
  });

  it("stops the job under 'fail', naming the column, sink and operator", async () => {
    await expect(runSql(`SET 'pipeline.error-policy' = 'fail';\n${sql}`, LINES, 'not-null-fail')).rejects.toThrow(
      `column 'n' of sink 'out_t' is NOT NULL, but the row has a NULL there (${join(dir, 'not-null-fail.jsonl')}:3, stage-0 shard 0, operator ConstraintEnforcer_out_t); pipeline.error-policy is 'fail'`,
    );
  });

  it('adds no check where the query cannot produce a NULL (as Flink plans no enforcer there)', () => {
    const graph = compileSql(`${SRC}CREATE TABLE out_t (id BIGINT, n INT NOT NULL) WITH ('connector' = 'print');
INSERT INTO out_t SELECT id, COALESCE(TRY_CAST(v AS INT), 0) AS n FROM src;`).pipeline.jobGraph();
    expect(graph.stages.flatMap((s) => s.operators.map((o) => o.type))).not.toContain('ConstraintEnforcer');
  });
});

describe('Numeric overflow and arithmetic errors, where Flink raises them', () => {
  const cases = [
    { kind: 'a CAST beyond INT', expr: 'CAST(v AS INT)', bad: '3000000000', reason: "cannot cast '3000000000' to INT" },
    { kind: 'integer division by zero', expr: 'CAST(100 / (CAST(v AS INT) - 9) AS INT)', bad: '9', reason: 'division by zero' },
    { kind: 'a DECIMAL result beyond its precision', expr: 'CAST(CAST(v AS DECIMAL(4, 0)) * 10 AS INT)', bad: '99999', reason: 'DECIMAL' },
  ];
  for (const c of cases) {
    it(`dead-letters ${c.kind} at its file:line; the rows around it go on`, async () => {
      const lines = ['{"id":1,"v":"2"}', `{"id":2,"v":"${c.bad}"}`, '{"id":3,"v":"3"}'];
      const { rows, letters, deadLettered, path } = await runSql(`${SRC}CREATE TABLE out_t (id BIGINT, n INT) WITH ('connector' = 'print');
INSERT INTO out_t SELECT id, ${c.expr} AS n FROM src;`, lines, c.kind.replace(/\W+/g, '-'));
      expect(rows.map((r) => r.id)).toEqual([1, 3]);
      expect(deadLettered).toBe(1);
      expect(letters).toHaveLength(1);
      expect(letters[0]).toMatchObject({ source: 'src', position: `${path}:2`, raw: lines[1], operator: expect.stringMatching(/^Calc_/) });
      expect(letters[0]!.reason).toContain(c.reason);
    });
  }
});

describe('Sink schema: a NULL through an implicit cast', () => {
  it('enforces NOT NULL after the widening cast INSERT adds (INT into BIGINT NOT NULL)', async () => {
    const { rows, letters, path } = await runSql(`${SRC}CREATE TABLE out_t (id BIGINT, n BIGINT NOT NULL) WITH ('connector' = 'print');
INSERT INTO out_t SELECT id, TRY_CAST(v AS INT) AS n FROM src;`, LINES, 'widening');
    expect(rows.map((r) => [r.id, r.n])).toEqual([
      [1, 5],
      [2, 6],
      [4, 7],
      [5, 8],
    ]);
    expect(letters.map((l) => [l.operator, l.position, l.raw])).toEqual([['ConstraintEnforcer_out_t', `${path}:3`, '{"id":3,"v":"x"}']]);
  });
});

describe('Sink schema: a bad row a stateful operator emitted from its state', () => {
  it('names the window operator and the watermark it fired on (no one input record made the row)', async () => {
    const sql = `CREATE TABLE src (k STRING, v STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = 'in.jsonl', 'format' = 'json');
CREATE TABLE out_t (k STRING, n INT NOT NULL, window_start TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO out_t SELECT k, SUM(TRY_CAST(v AS INT)) AS n, window_start FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end;`;
    // Window [0 s, 10 s): key a sums to 3, key b has only a bad number, so its SUM is NULL.
    const lines = [
      '{"k":"a","v":"1","ts":"1970-01-01 00:00:01"}',
      '{"k":"b","v":"x","ts":"1970-01-01 00:00:02"}',
      '{"k":"a","v":"2","ts":"1970-01-01 00:00:03"}',
      '{"k":"a","v":"5","ts":"1970-01-01 00:00:12"}',
    ];
    const { rows, letters } = await runSql(sql, lines, 'window-null');
    expect(rows.map((r) => [r.k, r.n])).toEqual([
      ['a', 3],
      ['a', 5],
    ]);
    expect(letters).toHaveLength(1);
    const letter = letters[0]!;
    expect(letter.reason).toBe("column 'n' of sink 'out_t' is NOT NULL, but the row has a NULL there");
    expect(letter.operator).toBe('ConstraintEnforcer_out_t');
    expect(letter.position).toMatch(/^stage-1 shard 0, emitted by WindowAggregate_\d+ on watermark 12000$/);
  });
});
