/**
 * Flink SQL scripts through the CLI: `flambda explain file.sql` prints Flink's three EXPLAIN
 * sections (the seed's Top-N picks RetractStrategy above the hash exchange), `flambda run
 * file.sql` and `flambda local file.sql` give the references' results, and a bad script fails with
 * the line and column of the problem.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { BID_FILE, NEXMARK, makeTempDir, readJson, runCli, sortRows } from './cli.ts';
import { example, nexmarkExample } from '../sql/helpers.ts';

const tmp = makeTempDir('cli-sql');
afterAll(() => tmp.cleanup());

const expected = (query: string): Record<string, unknown>[] => sortRows(NEXMARK.expected(query));

describe('flambda explain <file.sql>', () => {
  it('prints the AST, the optimized plan and the physical plan of the seed Top-N script', async () => {
    const r = await runCli(['explain', 'examples/sql/top-n.sql']);
    expect(r.code, r.stderr).toBe(0);
    const sections = [...r.stdout.matchAll(/^== (.+) ==$/gm)].map((m) => m[1]);
    expect(sections).toEqual(['Abstract Syntax Tree', 'Optimized Logical Plan', 'Physical Execution Plan', 'Stages']);
    expect(r.stdout).toMatch(
      /Rank\(strategy=\[RetractStrategy\], rankType=\[ROW_NUMBER\], rankRange=\[rankStart=1, rankEnd=10\], partitionBy=\[merchandiseId\], orderBy=\[totalQuantity DESC\].*\n\s+\+- Exchange\(distribution=\[hash\[merchandiseId\]\]\)/,
    );
  });
});

describe('flambda run / local <file.sql>', () => {
  it.each(['q15', 'q19', 'q5'])('run the SQL example of %s equals the reference', async (query) => {
    const out = tmp.file(`${query}.json`);
    const r = await runCli(['run', `examples/sql/${nexmarkExample(query)}`, '--input', `bid=${BID_FILE}`, '--final', out, '--parallelism', '2']);
    expect(r.code, r.stderr).toBe(0);
    expect(sortRows(readJson(out) as Record<string, unknown>[])).toEqual(expected(query));
  });

  it('run examples/sql/nexmark/q13.sql joins with the side input given by --input', async () => {
    const out = tmp.file('q13.json');
    const r = await runCli(['run', 'examples/sql/nexmark/q13.sql', '--input', `bid=${BID_FILE}`, '--input', `side_input=${NEXMARK.file('side_input')}`, '--final', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(sortRows(readJson(out) as Record<string, unknown>[])).toEqual(expected('q13'));
  });

  it('local examples/sql/q7.sql closes its windows on the emulators and equals the reference', async () => {
    const out = tmp.file('q7-local.json');
    const r = await runCli(['local', 'examples/sql/q7.sql', '--input', `bid=${BID_FILE}`, '--final', out, '--quiet'], { timeoutMs: 90_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(sortRows(readJson(out) as Record<string, unknown>[])).toEqual(expected('q7'));
  });

  it('fails on a bad script with the line and column of the problem', async () => {
    const file = tmp.write('bad.sql', "CREATE TABLE t (a INT) WITH ('connector' = 'filesystem', 'format' = 'json', 'path' = 'x.jsonl');\nINSERT INTO print_sink SELECT b FROM t;\n");
    const r = await runCli(['run', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/flambda: error: .*line 2:\d+: /);
  });
});

describe('EXPLAIN statements in a script', () => {
  const explainBidders = 'EXPLAIN SELECT bidder, COUNT(*) AS n FROM bid GROUP BY bidder;\n';

  it('flambda run prints each EXPLAIN, Flink-style, and runs the rest of the script', async () => {
    const file = tmp.write('q15-explained.sql', `${example('nexmark/q15.sql')}\n${explainBidders}`);
    const out = tmp.file('q15-explained.json');
    const r = await runCli(['run', file, '--input', `bid=${BID_FILE}`, '--final', out]);
    expect(r.code, r.stderr).toBe(0);
    const sections = [...r.stdout.matchAll(/^== (.+) ==$/gm)].map((m) => m[1]);
    expect(sections).toEqual(['Abstract Syntax Tree', 'Optimized Logical Plan', 'Physical Execution Plan']);
    expect(r.stdout).toContain('Sink(table=[print], fields=[bidder, n])\n+- GroupAggregate(groupBy=[bidder], select=[bidder, COUNT(*) AS n])');
    // The explained SELECT does not run: the job's one sink is q15's.
    expect(r.stdout).not.toContain('print>');
    expect(sortRows(readJson(out) as Record<string, unknown>[])).toEqual(expected('q15'));
  });

  it('flambda explain of a script of declarations and EXPLAIN PLAN FOR INSERT prints that plan only', async () => {
    const q15 = example('nexmark/q15.sql');
    const insertAt = q15.indexOf('INSERT INTO');
    const file = tmp.write('q15-plan-for.sql', `${q15.slice(0, insertAt)}EXPLAIN PLAN FOR ${q15.slice(insertAt)}`);
    const [explained, plain] = await Promise.all([runCli(['explain', file]), runCli(['explain', 'examples/sql/nexmark/q15.sql'])]);
    expect(explained.code, explained.stderr).toBe(0);
    // The same three sections `flambda explain q15.sql` prints for the INSERT, without its stages.
    expect(explained.stdout).toBe(`${plain.stdout.slice(0, plain.stdout.indexOf('== Stages =='))}`);
    const run = await runCli(['run', file, '--input', `bid=${BID_FILE}`]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(explained.stdout);
  });

  it("EXPLAIN ESTIMATED_COST adds Flambda's AWS bill of the job, measured on the emulators over the table's own file", async () => {
    const data = tmp.write('kv.jsonl', Array.from({ length: 40 }, (_, i) => JSON.stringify({ k: `k${i % 4}`, v: i })).join('\n') + '\n');
    const file = tmp.write('cost.sql', `CREATE TABLE kv (k STRING, v BIGINT) WITH ('connector' = 'filesystem', 'path' = '${data}', 'format' = 'json');\nSET 'flambda.explain.cost-rate' = '2000';\nEXPLAIN ESTIMATED_COST SELECT k, SUM(v) FROM kv GROUP BY k;\n`);
    const r = await runCli(['explain', file]);
    expect(r.code, r.stderr).toBe(0);
    expect([...r.stdout.matchAll(/^== (.+) ==$/gm)].map((m) => m[1])).toEqual([
      'Abstract Syntax Tree',
      'Optimized Logical Plan',
      'Physical Execution Plan',
      "Estimated Cost: Flambda's AWS bill for this job, per stage and operator (not Calcite's cost model)",
      expect.stringMatching(/^Cost at 2,000 events\/s \(1024-byte events; us-east-1 prices of .+\)$/) as unknown,
    ]);
    expect(r.stdout).toContain('measured: 40 sample events through the stage handlers on the local emulators');
    expect(r.stdout).toMatch(/stage-1 \(1 shard measured\): .*GroupAggregate.*\n {2}invocations [\d.]+\/s, [\d.]+ GB-s\/s: Lambda \$[\d,.]+\/month\n {2}DynamoDB [\d.,]+ write \+ [\d.,]+ read units\/s/);
    expect(r.stdout).toMatch(/Flambda total: \$[\d,.]+\/month/);
    expect(r.stderr).toContain('measuring a sample of');
  });

  it('names a bad cost rate at the EXPLAIN', async () => {
    const file = tmp.write('bad-rate.sql', `${example('nexmark/q15.sql')}\nSET 'flambda.explain.cost-rate' = 'fast';\nEXPLAIN ESTIMATED_COST SELECT bidder FROM bid;\n`);
    const r = await runCli(['explain', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/line \d+:1: 'flambda.explain.cost-rate' must be a positive number of events per second \(given 'fast'\)/);
  });
});
