/**
 * Query composition and OVER aggregation through the SQL reader and both kinds of frames, with
 * hand-checked results (Flink's documentation examples reduced to a few rows): WITH, UNION [ALL],
 * VALUES (also on the AWS runtime), SELECT DISTINCT, uncorrelated IN, ORDER BY … LIMIT, OVER ROWS / RANGE, the window TVF
 * alone after its windows fired, narrowing INSERTs, unknown SET keys and METADATA columns.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChangeRow } from '../../shared/core/row.ts';
import { runEmbeddedJob } from '../../shared/runtime/embedded/embedded-runtime.ts';
import { MaterializedView } from '../../shared/runtime/materialized-view.ts';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { formatRow } from '../harness/index.ts';
import { sqlError } from './helpers.ts';
import { runEmbeddedSql, runLocalSql } from './run-both.ts';

const dir = mkdtempSync(join(tmpdir(), 'flambda-composition-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, rows: readonly Record<string, unknown>[]): string {
  const path = join(dir, `${name}.jsonl`);
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return path;
}

const fs = (name: string): string => `WITH ('connector' = 'filesystem', 'path' = '${file(name, DATA[name] ?? [])}', 'format' = 'json')`;

const DATA: Record<string, Record<string, unknown>[]> = {
  a: [{ id: 1, s: 'x' }, { id: 2, s: 'y' }, { id: 5, s: 'z' }],
  b: [{ id: 3, s: 'x' }, { id: 4, s: 'w' }],
  e: [
    { k: 'a', v: 1, ts: '2024-01-01 00:00:01.000' },
    { k: 'a', v: 2, ts: '2024-01-01 00:00:02.000' },
    { k: 'b', v: 5, ts: '2024-01-01 00:00:03.000' },
    { k: 'a', v: 3, ts: '2024-01-01 00:00:04.000' },
    { k: 'a', v: 4, ts: '2024-01-01 00:00:04.000' },
  ],
};

/** Runs the script's only INSERT/SELECT; its final rows as sorted `value, value` text. */
async function run(text: string, parallelism = 2, batchSize = 1): Promise<string[]> {
  const program = compileSql(text);
  const graph = program.pipeline.jobGraph({ parallelism });
  const sink = graph.sinks[0]!;
  const view = new MaterializedView({ ...(sink.upsertKey ? { key: sink.upsertKey } : {}), columns: sink.schema.fields.map((f) => f.name), strict: true });
  await runEmbeddedJob(graph, {
    code: { functions: program.pipeline.userFunctions, generators: program.pipeline.generators },
    observers: new Map([[sink.name, [{ write: (rows: readonly ChangeRow[]) => rows.forEach((r) => view.apply(r)) }]]]),
    batchSize,
  });
  return view
    .rows()
    .map((r) => Object.values(JSON.parse(formatRow(r)) as Record<string, unknown>).map(String).join(', '))
    .sort();
}

/** {@link run}, after checking that the AWS runtime's final rows equal the embedded runtime's (VALUES is a generator source: its producer puts the rows). */
async function both(text: string): Promise<string[]> {
  expect((await runLocalSql(text)).rows).toEqual((await runEmbeddedSql(text)).rows);
  return run(text);
}

const AB = () => `CREATE TABLE a (id BIGINT, s STRING) ${fs('a')}; CREATE TABLE b (id BIGINT, s STRING) ${fs('b')};`;
const E = () => `CREATE TABLE e (k STRING, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) ${fs('e')};`;

describe('query composition (Flink docs: WITH, set operations, VALUES, DISTINCT, IN)', () => {
  it('WITH, UNION ALL, VALUES, IN and DISTINCT together', async () => {
    const text = `${AB()} SELECT * FROM (WITH u AS (SELECT id, s FROM a UNION ALL SELECT id, s FROM b)
      SELECT DISTINCT s FROM u WHERE id IN (SELECT v FROM (VALUES (1), (2), (3)) AS t (v)))`;
    expect(await both(text)).toEqual(['x', 'y']);
  }, 120_000);

  it('UNION removes duplicates; NOT IN keeps the rows without a match', async () => {
    expect(await run(`${AB()} SELECT s FROM a UNION SELECT s FROM b`)).toEqual(['w', 'x', 'y', 'z']);
    expect(await both(`${AB()} SELECT id FROM a WHERE id NOT IN (VALUES (2), (9))`)).toEqual(['1', '5']);
  }, 120_000);

  it('names resolve where a view or WITH item is written, not where it is read', async () => {
    // The view reads view `big`, not the WITH item of that name around the query that reads it.
    const shadowed = `${AB()} CREATE VIEW big AS SELECT * FROM a WHERE id > 1; CREATE VIEW v AS SELECT id FROM big; WITH big AS (SELECT * FROM b) SELECT * FROM v`;
    expect(await run(shadowed)).toEqual(['2', '5']);
    // A WITH item named like the table it reads reads the table (it does not see itself).
    expect(await run(`${AB()} WITH a AS (SELECT * FROM a WHERE id > 1) SELECT id FROM a`)).toEqual(['2', '5']);
    // Only earlier views and WITH items are in scope, as Calcite resolves them.
    expect(sqlError(() => compileSql(`${AB()} CREATE VIEW v AS SELECT id FROM v; SELECT * FROM v`)).message).toMatch(/^line 1:\d+: unknown table 'v' \(declared: a, b\)$/);
    expect(sqlError(() => compileSql(`${AB()} WITH x AS (SELECT id FROM y), y AS (SELECT id FROM a) SELECT * FROM x`)).message).toMatch(/unknown table 'y'/);
  });

  it('a view column list and VALUES with mixed numeric types', async () => {
    expect(await both(`CREATE VIEW v (n, m) AS VALUES (1, 2), (2, 3000000000); SELECT n + 1, m FROM v`)).toEqual(['2, 2', '3, 3000000000']);
  }, 120_000);

  it('ORDER BY … LIMIT is a Top-N of the whole stream; ORDER BY alone needs a time attribute', async () => {
    expect(await run(`${AB()} SELECT id FROM a ORDER BY id DESC LIMIT 2`)).toEqual(['2', '5']);
    expect(sqlError(() => compileSql(`${AB()} SELECT id FROM a ORDER BY id`)).message).toMatch(/Sort on a non-time-attribute field is not supported/);
  });
});

describe('OVER aggregation (Flink docs: over-agg)', () => {
  it('a running total over ROWS, rows of one timestamp each with its own frame', async () => {
    const text = `${E()} SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM e`;
    expect(await run(text)).toEqual(['a, 1, 1', 'a, 2, 3', 'a, 3, 6', 'a, 4, 10', 'b, 5, 5']);
  });

  it('RANGE frames give peers of one timestamp one result; bounded frames keep their last rows or time', async () => {
    expect(await run(`${E()} SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY ts) FROM e`)).toEqual(['a, 1, 1', 'a, 2, 3', 'a, 3, 10', 'a, 4, 10', 'b, 5, 5']);
    expect(await run(`${E()} SELECT v, MAX(v) OVER (ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM e`)).toEqual(['1, 1', '2, 2', '3, 5', '4, 4', '5, 5']);
    const range = `${E()} SELECT v, COUNT(*) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW) FROM e`;
    expect(await run(range)).toEqual(['1, 1', '2, 2', '3, 3', '4, 3', '5, 1']);
  });

  it('partitions by an expression, computed into a hidden column', async () => {
    // Partitions by v > 2: 1, 2 | 5 (at 3 s), 3, 4; `*` is the table's columns only.
    expect(await run(`${E()} SELECT *, COUNT(*) OVER (PARTITION BY v > 2 ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS c FROM e`)).toEqual([
      'a, 1, 1704067201000, 1',
      'a, 2, 1704067202000, 2',
      'a, 3, 1704067204000, 2',
      'a, 4, 1704067204000, 3',
      'b, 5, 1704067203000, 1',
    ]);
  });

  it('names what it does not support', () => {
    expect(sqlError(() => compileSql(`${E()} SELECT SUM(v) OVER (ORDER BY v) FROM e`)).message).toMatch(/time attribute/);
    expect(sqlError(() => compileSql(`${E()} SELECT SUM(v) OVER (ORDER BY ts ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM e`)).message).toMatch(/CURRENT ROW/);
  });
});

describe('silent wrong results made right or errors', () => {
  it('a window TVF alone keeps a row whose window has fired (Flink assigns every row)', async () => {
    DATA.lt = [{ k: 'a', ts: '2024-01-01 00:00:01.000' }, { k: 'b', ts: '2024-01-01 00:00:12.000' }, { k: 'c', ts: '2024-01-01 00:00:03.000' }];
    const text = `CREATE TABLE lt (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) ${fs('lt')};
      SELECT k, window_start FROM TABLE(TUMBLE(TABLE lt, DESCRIPTOR(ts), INTERVAL '10' SECOND))`;
    expect(await run(text, 1, 1)).toEqual(['a, 1704067200000', 'b, 1704067210000', 'c, 1704067200000']);
  });

  it('casts a DECIMAL column to the precision and scale of its sink column (3 stays 3, not 0.03)', async () => {
    const text = `${AB()} CREATE TABLE o (id BIGINT, d DECIMAL(10, 2)) WITH ('connector' = 'print');
      INSERT INTO o SELECT id, CAST(id AS DECIMAL(5, 0)) FROM a`;
    const program = compileSql(text);
    const graph = program.pipeline.jobGraph({ parallelism: 1 });
    const rows: [unknown, unknown][] = [];
    await runEmbeddedJob(graph, {
      sinkSetup: { quiet: true },
      observers: new Map([['o', [{ write: (changes: readonly ChangeRow[]) => changes.forEach((c) => rows.push([c.row.id, c.row.d])) }]]]),
    });
    // DECIMAL(10, 2) values are held scaled by 10^2.
    expect(graph.sinks[0]?.schema.fields.map((f) => [f.name, f.type.root, f.type.scale])).toEqual([
      ['id', 'BIGINT', undefined],
      ['d', 'DECIMAL', 2],
    ]);
    expect(rows.sort((x, y) => Number(x[0]) - Number(y[0]))).toEqual([
      [1, 100n],
      [2, 200n],
      [5, 500n],
    ]);
  });

  it('rejects DOUBLE into an INT sink column, warns about unknown SET keys, reads file metadata', async () => {
    DATA.d = [{ x: 0.5 }];
    const d = () => `CREATE TABLE d (x DOUBLE, f STRING METADATA FROM 'file.name' VIRTUAL) ${fs('d')};`;
    expect(sqlError(() => compileSql(`${d()} CREATE TABLE o (n INT) WITH ('connector' = 'print'); INSERT INTO o SELECT x FROM d;`)).message).toMatch(
      /column 'x' is DOUBLE but the sink column 'n' is INT/,
    );
    expect(compileSql(`SET 'table.exec.no-such' = '1'; ${d()} SELECT x FROM d`).warnings.join()).toMatch(/SET 'table\.exec\.no-such' is not an option/);
    expect(await run(`${d()} SELECT x, f FROM d`)).toEqual(['0.5, d.jsonl']);
    expect(sqlError(() => compileSql(`CREATE TABLE k (x DOUBLE, t TIMESTAMP(3) METADATA FROM 'timestamp') WITH ('connector' = 'kinesis', 'stream' = 's', 'format' = 'json'); SELECT x FROM k`)).message).toMatch(/no readable metadata/);
  });
});
