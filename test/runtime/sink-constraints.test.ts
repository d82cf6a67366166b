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
    const { rows, letters, deadLettered } = await runSql(sql, LINES, 'not-null');
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
        // A row the chain's Calc produced: its position is the stage shard.
        position: 'stage-0 shard 0',
        reason: "column 'n' of sink 'out_t' is NOT NULL, but the row has a NULL there",
        raw: '{"id":3,"n":null}',
        operator: 'ConstraintEnforcer_out_t',
      },
    ]);
  });

  it("stops the job under 'fail', naming the column, sink and operator", async () => {
    await expect(runSql(`SET 'pipeline.error-policy' = 'fail';\n${sql}`, LINES, 'not-null-fail')).rejects.toThrow(
      "column 'n' of sink 'out_t' is NOT NULL, but the row has a NULL there (stage-0 shard 0, operator ConstraintEnforcer_out_t); pipeline.error-policy is 'fail'",
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
    const { rows, letters } = await runSql(`${SRC}CREATE TABLE out_t (id BIGINT, n BIGINT NOT NULL) WITH ('connector' = 'print');
INSERT INTO out_t SELECT id, TRY_CAST(v AS INT) AS n FROM src;`, LINES, 'widening');
    expect(rows.map((r) => [r.id, r.n])).toEqual([
      [1, 5],
      [2, 6],
      [4, 7],
      [5, 8],
    ]);
    expect(letters.map((l) => [l.operator, l.raw])).toEqual([['ConstraintEnforcer_out_t', '{"id":3,"n":null}']]);
  });
});
