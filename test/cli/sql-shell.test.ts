/**
 * `flambda sql` without a terminal (statements piped in), and its parts: the statement
 * splitter (`;` outside strings, quoted names and comments, with positions) and the session
 * (declarations, SET, SHOW, DESCRIBE, DROP, errors mapped to where the statement was written).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqlSession } from '../../shared/cli/sql-shell/sql-session.ts';
import { StatementSplitter } from '../../shared/cli/sql-shell/statement-splitter.ts';
import { REPO_ROOT, makeTempDir } from './cli.ts';

const tmp = makeTempDir('sql-shell');
afterAll(() => tmp.cleanup());
const kv = tmp.write('kv.jsonl', '{"k":"a","v":1}\n{"k":"b","v":2}\n{"k":"a","v":4}\n');
const KV = `CREATE TABLE kv (k STRING, v BIGINT) WITH ('connector' = 'filesystem', 'path' = '${kv}', 'format' = 'json')`;

/** Pipes `input` into `flambda sql …args`. */
function shell(input: string, args: readonly string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/flambda.mjs'), 'sql', ...args], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('StatementSplitter', () => {
  it("splits at ';' outside strings, quoted names and comments, keeping each statement's position", () => {
    const splitter = new StatementSplitter();
    const text = "SET 'a;b' = 'it''s;';  SELECT `x;y`, \"p;q\" -- not; here\nFROM t /* ; */;\n\n  SELECT 1";
    const done = splitter.feed(text);
    expect(done).toEqual([
      { text: "SET 'a;b' = 'it''s;'", line: 1, column: 1 },
      { text: 'SELECT `x;y`, "p;q" -- not; here\nFROM t /* ; */', line: 1, column: 24 },
    ]);
    expect(splitter.pending).toBe(true);
    expect(splitter.end()).toEqual({ text: 'SELECT 1', line: 4, column: 3 });
  });

  it('takes input a line at a time and ignores statements that are only comments', () => {
    const splitter = new StatementSplitter();
    expect(splitter.feed('SELECT a\n')).toEqual([]);
    expect(splitter.pending).toBe(true);
    expect(splitter.feed('FROM t;\n')).toEqual([{ text: 'SELECT a\nFROM t', line: 1, column: 1 }]);
    expect(splitter.feed('-- just a comment;\n')).toEqual([]);
    expect(splitter.feed(';\n')).toEqual([]);
    expect(splitter.pending).toBe(false);
    expect(splitter.end()).toBeUndefined();
  });
});

describe('SqlSession', () => {
  const at = (text: string, line = 1, column = 1) => ({ text, line, column });

  it('keeps declarations, lists and describes them, and drops them', async () => {
    const session = new SqlSession();
    expect(await session.execute(at(KV))).toEqual({ kind: 'info', text: 'Execute statement succeeded.' });
    expect(await session.execute(at('CREATE VIEW big AS SELECT k, v FROM kv WHERE v > 1'))).toMatchObject({ kind: 'info' });
    const tables = await session.execute(at('SHOW TABLES'));
    // Flink's SHOW TABLES lists the views too, sorted.
    expect(tables.kind === 'output' && tables.text.split('\n')).toEqual(['+------------+', '| table name |', '+------------+', '|        big |', '|         kv |', '+------------+', '2 rows in set']);
    const described = await session.execute(at('DESCRIBE big'));
    expect(described.kind === 'output' && described.text.split('\n')).toEqual([
      '+------+--------+------+-----+--------+-----------+',
      '| name |   type | null | key | extras | watermark |',
      '+------+--------+------+-----+--------+-----------+',
      '|    k | STRING | TRUE |     |        |           |',
      '|    v | BIGINT | TRUE |     |        |           |',
      '+------+--------+------+-----+--------+-----------+',
      '2 rows in set',
    ]);
    // As in Flink, a view over a dropped table fails when it is used.
    expect(await session.execute(at('DROP TABLE kv'))).toMatchObject({ kind: 'info' });
    const broken = await session.execute(at('SELECT * FROM big'));
    expect(broken.kind === 'error' && broken.text).toMatch(/unknown table 'kv'/);
    expect(await session.execute(at('DROP VIEW big'))).toMatchObject({ kind: 'info' });
    const again = await session.execute(at('DROP VIEW big', 4, 1));
    expect(again.kind === 'error' && again.text.split('\n')[0]).toBe("line 4:1: View with identifier 'default_catalog.default_database.big' does not exist.");
    expect(await session.execute(at('DROP TABLE IF EXISTS kv'))).toMatchObject({ kind: 'info' });
    expect(await session.execute(at('SHOW TABLES'))).toEqual({ kind: 'output', text: 'Empty set' });
  });

  it('creates databases, uses them and alters tables as a script does', async () => {
    const session = new SqlSession();
    await session.execute(at(KV));
    expect(await session.execute(at('CREATE DATABASE db1'))).toMatchObject({ kind: 'info' });
    expect(await session.execute(at('USE db1'))).toMatchObject({ kind: 'info' });
    const current = await session.execute(at('SHOW CURRENT DATABASE'));
    expect(current.kind === 'output' && current.text).toContain('|                   db1 |');
    expect(await session.execute(at('SHOW TABLES'))).toEqual({ kind: 'output', text: 'Empty set' });
    const unknown = await session.execute(at('USE CATALOG hive', 2, 1));
    expect(unknown.kind === 'error' && unknown.text.split('\n')[0]).toBe('line 2:13: A catalog with name [hive] does not exist.');
    expect(await session.execute(at('ALTER TABLE default_database.kv ADD total AS v * 10 AFTER k'))).toMatchObject({ kind: 'info' });
    const columns = await session.execute(at("SHOW COLUMNS FROM default_catalog.default_database.kv LIKE 't%'"));
    expect(columns.kind === 'output' && columns.text.split('\n')[3]).toBe('| total | BIGINT | TRUE |     | AS `v` * 10 |           |');
    const rows = await session.execute(at('SELECT k, total FROM default_database.kv WHERE total > 10'));
    if (rows.kind !== 'query') throw new Error(`not a query: ${JSON.stringify(rows)}`);
    await rows.query.done;
    expect(rows.query.view.rows().map((r) => rows.query.encode(r))).toEqual([{ k: 'b', total: 20 }, { k: 'a', total: 40 }]);
  });

  it('runs CREATE TABLE … AS SELECT as a job and keeps the table it created', async () => {
    const out = tmp.file('ctas.jsonl');
    const session = new SqlSession();
    await session.execute(at(KV));
    const submitted = await session.execute(at(`CREATE TABLE totals WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json') AS SELECT k, v * 10 AS v10 FROM kv`));
    expect(submitted).toMatchObject({ kind: 'info', text: expect.stringMatching(/Job ID: [0-9a-f]{8}$/) as unknown });
    await Promise.all([...session.jobs.values()].map((j) => j.done));
    expect([...session.jobs.values()].map((j) => [j.name, j.status, j.rowsWritten])).toEqual([['insert-into_totals', 'FINISHED', 3]]);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toEqual(['{"k":"a","v10":10}', '{"k":"b","v10":20}', '{"k":"a","v10":40}']);
    const ddl = await session.execute(at('SHOW CREATE TABLE totals'));
    expect(ddl.kind === 'output' && ddl.text).toBe(`CREATE TABLE \`default_catalog\`.\`default_database\`.\`totals\` (\n  \`k\` VARCHAR(2147483647),\n  \`v10\` BIGINT\n) WITH (\n  'connector' = 'filesystem',\n  'path' = '${out}',\n  'format' = 'json'\n)`);
  });

  it('points errors at the line and column where the statement was written, with a caret', async () => {
    const session = new SqlSession();
    await session.execute(at(KV));
    const error = await session.execute(at('SELECT k,\n  SUM(nope) FROM kv GROUP BY k', 7, 5));
    expect(error.kind).toBe('error');
    expect(error.kind === 'error' && error.text).toBe("line 8:7: unknown column 'nope' in table 'kv' (columns: k, v)\n    SUM(nope) FROM kv GROUP BY k\n        ^");
    const first = await session.execute(at('SELECT nope FROM kv', 3, 10));
    expect(first.kind === 'error' && first.text.split('\n')[0]).toBe("line 3:17: unknown column 'nope' in table 'kv' (columns: k, v)");
  });

  it('runs a SELECT to its materialized result, and SET changes the shell settings', async () => {
    const session = new SqlSession();
    await session.execute(at(KV));
    expect(await session.execute(at("SET 'parallelism.default' = '3'"))).toMatchObject({ kind: 'info' });
    expect(await session.execute(at("SET 'parallelism.default' = 'many'"))).toMatchObject({ kind: 'error', text: "'parallelism.default' must be an integer 1..10000 (given 'many')" });
    const outcome = await session.execute(at('SELECT k, SUM(v) AS total FROM kv GROUP BY k'));
    if (outcome.kind !== 'query') throw new Error(`not a query: ${JSON.stringify(outcome)}`);
    await outcome.query.done;
    expect(outcome.query.status).toBe('finished');
    expect(outcome.query.changes).toBe(4);
    expect(outcome.query.view.rows().map((r) => outcome.query.encode(r)).sort((a, b) => String(a.k).localeCompare(String(b.k)))).toEqual([
      { k: 'a', total: 5 },
      { k: 'b', total: 2 },
    ]);
    const explained = await session.execute(at('EXPLAIN SELECT k, SUM(v) FROM kv GROUP BY k'));
    expect(explained.kind === 'output' && explained.text).toMatch(/== Stages ==\nstage-0 \(parallelism 3\)/);
  });
});

describe('flambda sql with statements piped in', () => {
  it('prints the final table of a SELECT and exits 0 at the end of input', async () => {
    const r = await shell(`${KV};\nSELECT k, SUM(v) AS total\n  FROM kv GROUP BY k;\n`);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toBe(
      ['[INFO] Execute statement succeeded.', '+---+-------+', '| k | total |', '+---+-------+', '| a |     5 |', '| b |     2 |', '+---+-------+', ''].join('\n') +
        r.stdout.slice(r.stdout.indexOf('2 rows (4 changelog rows applied); finished in')),
    );
  });

  it('runs INSERT INTO as a job, waits for it at the end of input, and runs a script first', async () => {
    const out = tmp.file('counts.jsonl');
    const script = tmp.write('init.sql', `${KV};\nCREATE TABLE counts (k STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');\n`);
    const r = await shell("SET 'sql-client.execution.result-mode' = 'changelog';\nINSERT INTO counts SELECT k, COUNT(*) FROM kv GROUP BY k;\nSELECT k, COUNT(*) AS n FROM kv GROUP BY k;\n", [script]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\[INFO\] Job ID: [0-9a-f]{8}\n/);
    // The changelog result mode shows every change with its op.
    expect(r.stdout).toContain('| op | k | n |\n+----+---+---+\n| +I | a | 1 |\n| +I | b | 1 |\n| -U | a | 1 |\n| +U | a | 2 |');
    expect(r.stdout).toMatch(/\[INFO\] Job [0-9a-f]{8} \(insert-into_counts\) FINISHED: 4 rows written\n/);
    expect(readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as unknown)).toEqual([
      { before: null, after: { k: 'a', n: 1 }, op: 'c' },
      { before: null, after: { k: 'b', n: 1 }, op: 'c' },
      { before: { k: 'a', n: 1 }, after: null, op: 'd' },
      { before: null, after: { k: 'a', n: 2 }, op: 'c' },
    ]);
  });

  it('goes on after an error, with its position in the input, and exits 1', async () => {
    const r = await shell(`${KV};\nSELECT k,\n  nope FROM kv;\nSELECT COUNT(*) AS n FROM kv;\n`);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("[ERROR] Could not execute SQL statement. Reason:\nline 3:3: unknown column 'nope' in table 'kv' (columns: k, v)\n    nope FROM kv\n    ^\n");
    expect(r.stdout).toMatch(/\| n \|\n\+---\+\n\| 3 \|/);
  });

  it('binds --input files over a table path', async () => {
    const other = tmp.write('other.jsonl', '{"k":"z","v":7}\n');
    const r = await shell(`${KV};\nSELECT k, v FROM kv;\n`, ['--input', `kv=${other}`]);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain('| z | 7 |');
    expect((await shell('', ['--input', `kv=${tmp.file('missing.jsonl')}`])).stderr).toMatch(/flambda: error: --input kv=.*missing\.jsonl: file not found/);
  });
});
