/**
 * Property: subqueries and set operations over random changelogs equal a batch recomputation.
 * Two tables are read as Debezium change streams (random inserts, deletes and updates, NULLs in
 * both columns); `INTERSECT`, `EXCEPT`, their `ALL` forms, `IN`, `NOT IN`, correlated
 * `[NOT] EXISTS` with a residual condition, scalar subqueries (uncorrelated, correlated in WHERE,
 * a correlated COUNT that is 0 without rows, SINGLE_VALUE of a grouped one), correlated IN / NOT
 * IN of an aggregate or a GROUP BY, a correlated EXISTS with DISTINCT and a self-join, and IN /
 * EXISTS as three-valued values (SELECT list, OR, HAVING) run on the embedded runtime at a random parallelism
 * and batch size, and the sink's changelog, applied strictly (a retraction of a row that is not
 * there fails), must give exactly the rows SQL's semantics give for the rows still live.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { changelogs, commandArb, type R } from './two-table-changelogs.ts';
import { inputDir, runEmbeddedSql } from './run-both.ts';

const files = inputDir('subqueries-property');
afterAll(() => files.cleanup());


const same = (x: R, y: R): boolean => x.k === y.k && x.v === y.v;
const distinctRows = (rows: readonly R[]): R[] => rows.filter((r, i) => rows.findIndex((s) => same(r, s)) === i);
const countOf = (rows: readonly R[], r: R): number => rows.filter((s) => same(r, s)).length;

type Out = Record<string, unknown>;
const kv = (r: R): Out => ({ k: r.k, v: r.v });

/** SQL's three-valued `x IN values`: TRUE, FALSE, or NULL (a NULL x, or no match and a NULL among the values). */
function inValue(x: number | null, values: readonly (number | null)[]): boolean | null {
  if (values.length === 0) return false;
  if (x === null) return null;
  if (values.includes(x)) return true;
  return values.includes(null) ? null : false;
}

const not = (b: boolean | null): boolean | null => (b === null ? null : !b);
const nonNull = (values: readonly (number | null)[]): number[] => values.filter((k): k is number => k !== null);
/** The b rows a correlation `b.v = a.v` keeps for `r` (none for a NULL v). */
const sameV = (b: readonly R[], r: R): R[] => (r.v === null ? [] : b.filter((s) => s.v === r.v));

/** Each query with its batch semantics over the live rows of a and b. */
const QUERIES: Readonly<Record<string, { sql: string; expected: (a: readonly R[], b: readonly R[]) => Out[] }>> = {
  INTERSECT: { sql: 'SELECT k, v FROM a INTERSECT SELECT k, v FROM b', expected: (a, b) => distinctRows(a).filter((r) => b.some((s) => same(r, s))).map(kv) },
  EXCEPT: { sql: 'SELECT k, v FROM a EXCEPT SELECT k, v FROM b', expected: (a, b) => distinctRows(a).filter((r) => !b.some((s) => same(r, s))).map(kv) },
  'INTERSECT ALL': {
    sql: 'SELECT k, v FROM a INTERSECT ALL SELECT k, v FROM b',
    expected: (a, b) => distinctRows(a).flatMap((r) => Array.from({ length: Math.min(countOf(a, r), countOf(b, r)) }, () => kv(r))),
  },
  'EXCEPT ALL': {
    sql: 'SELECT k, v FROM a EXCEPT ALL SELECT k, v FROM b',
    expected: (a, b) => distinctRows(a).flatMap((r) => Array.from({ length: Math.max(0, countOf(a, r) - countOf(b, r)) }, () => kv(r))),
  },
  IN: { sql: 'SELECT k, v FROM a WHERE k IN (SELECT k FROM b)', expected: (a, b) => a.filter((r) => r.k !== null && b.some((s) => s.k === r.k)).map(kv) },
  // x NOT IN S: TRUE when S is empty; otherwise x must be non-NULL and differ from every value, none NULL.
  'NOT IN': { sql: 'SELECT k, v FROM a WHERE k NOT IN (SELECT k FROM b)', expected: (a, b) => a.filter((r) => b.every((s) => r.k !== null && s.k !== null && s.k !== r.k)).map(kv) },
  EXISTS: {
    sql: 'SELECT k, v FROM a WHERE EXISTS (SELECT * FROM b WHERE b.k = a.k AND b.v <> a.v)',
    expected: (a, b) => a.filter((r) => b.some((s) => r.k !== null && s.k === r.k && r.v !== null && s.v !== null && s.v !== r.v)).map(kv),
  },
  'NOT EXISTS': {
    sql: 'SELECT k, v FROM a WHERE NOT EXISTS (SELECT * FROM b WHERE b.k = a.k AND b.v <> a.v)',
    expected: (a, b) => a.filter((r) => !b.some((s) => r.k !== null && s.k === r.k && r.v !== null && s.v !== null && s.v !== r.v)).map(kv),
  },
  // A streaming aggregate has no row while b is empty: the INNER join then keeps nothing.
  'scalar subquery': {
    sql: 'SELECT k, v FROM a WHERE k > (SELECT MIN(k) FROM b)',
    expected: (a, b) => {
      const ks = nonNull(b.map((r) => r.k));
      return ks.length === 0 ? [] : a.filter((r) => r.k !== null && r.k > Math.min(...ks)).map(kv);
    },
  },
  'correlated scalar subquery in WHERE': {
    sql: 'SELECT k, v FROM a WHERE k > (SELECT MIN(k) FROM b WHERE b.v = a.v)',
    expected: (a, b) =>
      a
        .filter((r) => {
          const ks = nonNull(sameV(b, r).map((s) => s.k));
          return r.k !== null && ks.length > 0 && r.k > Math.min(...ks);
        })
        .map(kv),
  },
  'correlated COUNT in the SELECT list (0 without rows)': {
    sql: 'SELECT k, v, (SELECT COUNT(*) FROM b WHERE b.v = a.v) AS n FROM a',
    expected: (a, b) => a.map((r) => ({ ...kv(r), n: sameV(b, r).length })),
  },
  'scalar subquery of a GROUP BY (SINGLE_VALUE per key)': {
    sql: 'SELECT k, v, (SELECT MAX(k) FROM b WHERE b.v = a.v GROUP BY b.v) AS w FROM a',
    expected: (a, b) =>
      a.map((r) => {
        const ks = nonNull(sameV(b, r).map((s) => s.k));
        return { ...kv(r), w: ks.length === 0 ? null : Math.max(...ks) };
      }),
  },
  // Uncorrelated, the counts are one global row, INNER-joined: none while b is empty, so no row.
  'IN in the SELECT list (three-valued)': {
    sql: 'SELECT k, v, k IN (SELECT k FROM b) AS m FROM a',
    expected: (a, b) => (b.length === 0 ? [] : a.map((r) => ({ ...kv(r), m: inValue(r.k, b.map((s) => s.k)) }))),
  },
  'correlated NOT IN in the SELECT list': {
    sql: 'SELECT k, v, k NOT IN (SELECT b.k FROM b WHERE b.v = a.v) AS m FROM a',
    expected: (a, b) => a.map((r) => ({ ...kv(r), m: not(inValue(r.k, sameV(b, r).map((s) => s.k))) })),
  },
  'EXISTS under OR': {
    sql: "SELECT k, v FROM a WHERE v = 'x' OR EXISTS (SELECT * FROM b WHERE b.k = a.k)",
    expected: (a, b) => a.filter((r) => r.v === 'x' || (r.k !== null && b.some((s) => s.k === r.k))).map(kv),
  },
  'correlated IN of an aggregate': {
    sql: 'SELECT k, v FROM a WHERE k IN (SELECT MAX(k) FROM b WHERE b.v = a.v)',
    expected: (a, b) =>
      a
        .filter((r) => {
          const ks = nonNull(sameV(b, r).map((s) => s.k));
          return r.k !== null && ks.length > 0 && r.k === Math.max(...ks);
        })
        .map(kv),
  },
  'correlated NOT IN of a GROUP BY': {
    sql: 'SELECT k, v FROM a WHERE k NOT IN (SELECT COUNT(*) FROM b WHERE b.v = a.v GROUP BY b.k)',
    expected: (a, b) =>
      a
        .filter((r) => {
          const rows = sameV(b, r);
          const counts = distinctValues(rows.map((s) => s.k)).map((k) => rows.filter((s) => s.k === k).length);
          return not(inValue(r.k, counts)) === true;
        })
        .map(kv),
  },
  'correlated EXISTS with DISTINCT and a join': {
    sql: 'SELECT k, v FROM a WHERE EXISTS (SELECT DISTINCT b1.v FROM b b1 JOIN b b2 ON b1.k = b2.k WHERE b1.v = a.v AND b2.v <> a.v)',
    expected: (a, b) =>
      a.filter((r) => sameV(b, r).some((s1) => s1.k !== null && b.some((s2) => s2.k === s1.k && s2.v !== null && s2.v !== r.v))).map(kv),
  },
  // Uncorrelated too: no group passes while b is empty, whatever the OR's other side says.
  'IN in HAVING, under OR': {
    sql: 'SELECT v, COUNT(*) AS n FROM a GROUP BY v HAVING COUNT(*) > 1 OR MAX(k) IN (SELECT k FROM b)',
    expected: (a, b) =>
      (b.length === 0 ? [] : distinctValues(a.map((r) => r.v))).flatMap((v) => {
        const group = a.filter((r) => r.v === v);
        const ks = nonNull(group.map((r) => r.k));
        const max = ks.length === 0 ? null : Math.max(...ks);
        return group.length > 1 || inValue(max, b.map((s) => s.k)) === true ? [{ v, n: group.length }] : [];
      }),
  },
};

function distinctValues<T>(values: readonly T[]): T[] {
  return values.filter((x, i) => values.indexOf(x) === i);
}

let runs = 0;

describe('Property: subqueries and set operations = batch recomputation over random changelogs', () => {
  it('holds for INTERSECT, EXCEPT [ALL], IN, NOT IN, [NOT] EXISTS, scalar subqueries (correlated, COUNT, SINGLE_VALUE), correlated IN / EXISTS that aggregate, group or join, and IN / EXISTS inside expressions and HAVING, at any parallelism and batching', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(QUERIES)),
        fc.array(commandArb, { maxLength: 25 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 4 }),
        async (name, commands, parallelism, batchSize) => {
          const query = QUERIES[name] as (typeof QUERIES)[string];
          const { events, live } = changelogs(commands);
          const n = runs++;
          const table = (t: 'a' | 'b'): string =>
            `CREATE TABLE ${t} (k INT, v STRING) WITH ('connector' = 'filesystem', 'path' = '${files.file(`${t}${n}`, events[t])}', 'format' = 'debezium-json');`;
          const run = await runEmbeddedSql(`${table('a')}\n${table('b')}\n${query.sql}`, { parallelism, batchSize });
          expect(run.deadLetters).toEqual([]);
          expect(run.rows).toEqual(query.expected(live.a, live.b).map((r) => JSON.stringify(r)).sort());
        },
      ),
      { numRuns: 500 },
    );
  });
});
