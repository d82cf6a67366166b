/**
 * `(a, b) IN (SELECT x, y …)` as a value — in the SELECT list, under NOT, under OR in WHERE,
 * correlated — planned as Calcite's SubQueryRemoveRule rewrites it and Flink runs it: mark joins
 * on every operand pair and the counts `c` (rows) and `ck` (rows without a NULL, Calcite's
 * `COUNT(x, y)`), read as
 *
 *   CASE WHEN c = 0 THEN FALSE WHEN a IS NULL OR b IS NULL THEN NULL
 *        WHEN some row equals (a, b) THEN TRUE WHEN ck < c THEN NULL ELSE FALSE END
 *
 * An exact test on both runtimes, and a property against a plain recomputation of that rule
 * over random changelogs on the embedded runtime.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { changelogs, commandArb, type R } from './two-table-changelogs.ts';
import { inputDir, runEmbeddedSql, runLocalSql } from './run-both.ts';

const files = inputDir('row-in-subquery');
afterAll(() => files.cleanup());

const t = files.file('t', [
  { id: 1, a: 1, b: 'x' }, // equals a row of s: TRUE
  { id: 2, a: 1, b: 'y' }, // no equal row, but s has a row with a NULL: NULL
  { id: 3, a: null, b: 'x' }, // a NULL operand: NULL
  { id: 4, a: 2, b: null }, // a NULL operand: NULL (even though no row of s has a = 2)
  { id: 5, a: 3, b: 'z' }, // no equal row: NULL, as s has a row with a NULL
]);
const s = files.file('s', [
  { x: 1, y: 'x' },
  { x: 1, y: 'x' },
  { x: 5, y: null },
]);
const sFull = files.file('s-full', [
  { x: 1, y: 'x' },
  { x: 3, y: 'y' },
]);

const script = (sPath: string, query: string): string => `
CREATE TABLE t (id INT, a INT, b STRING) WITH ('connector' = 'filesystem', 'path' = '${t}', 'format' = 'json');
CREATE TABLE s (x INT, y STRING) WITH ('connector' = 'filesystem', 'path' = '${sPath}', 'format' = 'json');
${query}`;

const SELECT_IN = 'SELECT id, (a, b) IN (SELECT x, y FROM s) AS m, NOT ((a, b) IN (SELECT x, y FROM s)) AS n FROM t';
const row = (id: number, m: boolean | null): string => JSON.stringify({ id, m, n: m === null ? null : !m });
const WITH_NULL_ROW = [row(1, true), row(2, null), row(3, null), row(4, null), row(5, null)];
// Without a NULL in s, an unmatched pair of non-NULL operands is FALSE.
const WITHOUT_NULL_ROW = [row(1, true), row(2, false), row(3, null), row(4, null), row(5, false)];

const OR_IN = "SELECT id FROM t WHERE b = 'z' OR (a, b) IN (SELECT x, y FROM s)";
const CORRELATED = 'SELECT id, (a, b) IN (SELECT s.x, s.y FROM s WHERE s.x = t.a) AS m FROM t';

describe('(a, b) IN (SELECT x, y …) inside an expression', () => {
  it.each([
    ['with a NULL row in the subquery', s, WITH_NULL_ROW],
    ['without one', sFull, WITHOUT_NULL_ROW],
  ])('gives three-valued results in the SELECT list and under NOT, %s (embedded runtime)', async (_, sPath, expected) => {
    expect((await runEmbeddedSql(script(sPath, SELECT_IN))).rows).toEqual(expected);
  });

  it('… and on the AWS runtime', async () => {
    expect((await runLocalSql(script(s, SELECT_IN))).rows).toEqual(WITH_NULL_ROW);
  }, 120_000);

  it('filters under OR in WHERE (embedded and AWS runtimes)', async () => {
    const expected = ['{"id":1}', '{"id":5}'];
    expect((await runEmbeddedSql(script(s, OR_IN))).rows).toEqual(expected);
    expect((await runLocalSql(script(s, OR_IN))).rows).toEqual(expected);
  }, 120_000);

  it('correlates by an equality: a row without subquery rows is FALSE (embedded runtime)', async () => {
    // id 1, 2: rows with x = 1 are (1, 'x') twice; id 3: a NULL a correlates with nothing (FALSE);
    // id 4: no row with x = 2 (FALSE); id 5: none with x = 3 (FALSE).
    expect((await runEmbeddedSql(script(s, CORRELATED))).rows).toEqual([
      '{"id":1,"m":true}',
      '{"id":2,"m":false}',
      '{"id":3,"m":false}',
      '{"id":4,"m":false}',
      '{"id":5,"m":false}',
    ]);
  });
});


/** Flink's (Calcite's) `(k, v) IN rows`, written out over plain arrays. */
function rowIn(r: R, rows: readonly R[]): boolean | null {
  if (rows.length === 0) return false;
  if (r.k === null || r.v === null) return null;
  if (rows.some((s) => s.k === r.k && s.v === r.v)) return true;
  return rows.some((s) => s.k === null || s.v === null) ? null : false;
}

const not = (b: boolean | null): boolean | null => (b === null ? null : !b);
type Out = Record<string, unknown>;

const QUERIES: Readonly<Record<string, { sql: string; expected: (a: readonly R[], b: readonly R[]) => Out[] }>> = {
  // Uncorrelated, the counts are one global row, INNER-joined: none while b is empty, so no row.
  'IN in the SELECT list': {
    sql: 'SELECT k, v, (k, v) IN (SELECT k, v FROM b) AS m FROM a',
    expected: (a, b) => (b.length === 0 ? [] : a.map((r) => ({ k: r.k, v: r.v, m: rowIn(r, b) }))),
  },
  'NOT IN in the SELECT list': {
    sql: 'SELECT k, v, NOT ((k, v) IN (SELECT k, v FROM b)) AS m FROM a',
    expected: (a, b) => (b.length === 0 ? [] : a.map((r) => ({ k: r.k, v: r.v, m: not(rowIn(r, b)) }))),
  },
  'IN under OR in WHERE': {
    sql: "SELECT k, v FROM a WHERE v = 'x' OR (k, v) IN (SELECT k, v FROM b)",
    expected: (a, b) => (b.length === 0 ? [] : a.filter((r) => r.v === 'x' || rowIn(r, b) === true).map((r) => ({ k: r.k, v: r.v }))),
  },
  'NOT IN under OR in WHERE': {
    sql: "SELECT k, v FROM a WHERE v = 'x' OR NOT ((k, v) IN (SELECT k, v FROM b))",
    expected: (a, b) => (b.length === 0 ? [] : a.filter((r) => r.v === 'x' || not(rowIn(r, b)) === true).map((r) => ({ k: r.k, v: r.v }))),
  },
  // Correlated, the counts are LEFT-joined per key: no rows for the key is FALSE.
  'correlated IN in the SELECT list': {
    sql: 'SELECT k, v, (k, v) IN (SELECT b.k, b.v FROM b WHERE b.k = a.k) AS m FROM a',
    expected: (a, b) => a.map((r) => ({ k: r.k, v: r.v, m: rowIn(r, r.k === null ? [] : b.filter((s) => s.k === r.k)) })),
  },
};

let runs = 0;

describe('Property: (k, v) IN (SELECT …) inside expressions = a plain recomputation over random changelogs', () => {
  it('holds in the SELECT list, under NOT and OR, correlated, at any parallelism and batching', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(QUERIES)),
        fc.array(commandArb, { maxLength: 20 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 4 }),
        async (name, commands, parallelism, batchSize) => {
          const query = QUERIES[name] as (typeof QUERIES)[string];
          const { events, live } = changelogs(commands);
          const n = runs++;
          const table = (name: 'a' | 'b'): string =>
            `CREATE TABLE ${name} (k INT, v STRING) WITH ('connector' = 'filesystem', 'path' = '${files.file(`${name}${n}`, events[name])}', 'format' = 'debezium-json');`;
          const run = await runEmbeddedSql(`${table('a')}\n${table('b')}\n${query.sql}`, { parallelism, batchSize });
          expect(run.deadLetters).toEqual([]);
          expect(run.rows).toEqual(query.expected(live.a, live.b).map((r) => JSON.stringify(r)).sort());
        },
      ),
      { numRuns: 200 },
    );
  }, 600_000);
});
