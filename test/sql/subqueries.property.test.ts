/**
 * Property: subqueries and set operations over random changelogs equal a batch recomputation.
 * Two tables are read as Debezium change streams (random inserts, deletes and updates, NULLs in
 * both columns); `INTERSECT`, `EXCEPT`, their `ALL` forms, `IN`, `NOT IN`, correlated
 * `[NOT] EXISTS` with a residual condition and a scalar subquery run on the embedded runtime at a random parallelism
 * and batch size, and the sink's changelog, applied strictly (a retraction of a row that is not
 * there fails), must give exactly the rows SQL's semantics give for the rows still live.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { inputDir, runEmbeddedSql } from './run-both.ts';

const files = inputDir('subqueries-property');
afterAll(() => files.cleanup());

interface R {
  readonly k: number | null;
  readonly v: string | null;
}

type Command = { readonly table: 'a' | 'b'; readonly op: 'insert' | 'delete' | 'update'; readonly pick: number; readonly row: R };

const rowArb: fc.Arbitrary<R> = fc.record({ k: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null, freq: 4 }), v: fc.option(fc.constantFrom('x', 'y'), { nil: null, freq: 4 }) });
const commandArb: fc.Arbitrary<Command> = fc.record({
  table: fc.constantFrom<'a' | 'b'>('a', 'b'),
  op: fc.constantFrom<Command['op']>('insert', 'insert', 'insert', 'delete', 'update'),
  pick: fc.nat(),
  row: rowArb,
});

/** Debezium events for each table (only live rows are deleted or updated) and the rows left live. */
function changelogs(commands: readonly Command[]): { events: Record<'a' | 'b', unknown[]>; live: Record<'a' | 'b', R[]> } {
  const live: Record<'a' | 'b', R[]> = { a: [], b: [] };
  const events: Record<'a' | 'b', unknown[]> = { a: [], b: [] };
  for (const c of commands) {
    const rows = live[c.table];
    if (c.op === 'insert' || rows.length === 0) {
      rows.push(c.row);
      events[c.table].push({ before: null, after: c.row, op: 'c' });
      continue;
    }
    const index = c.pick % rows.length;
    const old = rows[index] as R;
    if (c.op === 'delete') {
      rows.splice(index, 1);
      events[c.table].push({ before: old, after: null, op: 'd' });
    } else {
      rows[index] = c.row;
      events[c.table].push({ before: old, after: c.row, op: 'u' });
    }
  }
  return { events, live };
}

const same = (x: R, y: R): boolean => x.k === y.k && x.v === y.v;
const distinctRows = (rows: readonly R[]): R[] => rows.filter((r, i) => rows.findIndex((s) => same(r, s)) === i);
const countOf = (rows: readonly R[], r: R): number => rows.filter((s) => same(r, s)).length;

/** Each query with its batch semantics over the live rows of a and b. */
const QUERIES: Readonly<Record<string, { sql: string; expected: (a: readonly R[], b: readonly R[]) => R[] }>> = {
  INTERSECT: { sql: 'SELECT k, v FROM a INTERSECT SELECT k, v FROM b', expected: (a, b) => distinctRows(a).filter((r) => b.some((s) => same(r, s))) },
  EXCEPT: { sql: 'SELECT k, v FROM a EXCEPT SELECT k, v FROM b', expected: (a, b) => distinctRows(a).filter((r) => !b.some((s) => same(r, s))) },
  'INTERSECT ALL': {
    sql: 'SELECT k, v FROM a INTERSECT ALL SELECT k, v FROM b',
    expected: (a, b) => distinctRows(a).flatMap((r) => Array.from({ length: Math.min(countOf(a, r), countOf(b, r)) }, () => r)),
  },
  'EXCEPT ALL': {
    sql: 'SELECT k, v FROM a EXCEPT ALL SELECT k, v FROM b',
    expected: (a, b) => distinctRows(a).flatMap((r) => Array.from({ length: Math.max(0, countOf(a, r) - countOf(b, r)) }, () => r)),
  },
  IN: { sql: 'SELECT k, v FROM a WHERE k IN (SELECT k FROM b)', expected: (a, b) => a.filter((r) => r.k !== null && b.some((s) => s.k === r.k)) },
  // x NOT IN S: TRUE when S is empty; otherwise x must be non-NULL and differ from every value, none NULL.
  'NOT IN': { sql: 'SELECT k, v FROM a WHERE k NOT IN (SELECT k FROM b)', expected: (a, b) => a.filter((r) => b.every((s) => r.k !== null && s.k !== null && s.k !== r.k)) },
  EXISTS: {
    sql: 'SELECT k, v FROM a WHERE EXISTS (SELECT * FROM b WHERE b.k = a.k AND b.v <> a.v)',
    expected: (a, b) => a.filter((r) => b.some((s) => r.k !== null && s.k === r.k && r.v !== null && s.v !== null && s.v !== r.v)),
  },
  'NOT EXISTS': {
    sql: 'SELECT k, v FROM a WHERE NOT EXISTS (SELECT * FROM b WHERE b.k = a.k AND b.v <> a.v)',
    expected: (a, b) => a.filter((r) => !b.some((s) => r.k !== null && s.k === r.k && r.v !== null && s.v !== null && s.v !== r.v)),
  },
  // A streaming aggregate has no row while b is empty: the INNER join then keeps nothing.
  'scalar subquery': {
    sql: 'SELECT k, v FROM a WHERE k > (SELECT MIN(k) FROM b)',
    expected: (a, b) => {
      const ks = b.map((r) => r.k).filter((k): k is number => k !== null);
      return ks.length === 0 ? [] : a.filter((r) => r.k !== null && r.k > Math.min(...ks));
    },
  },
};

let runs = 0;

describe('Property: subqueries and set operations = batch recomputation over random changelogs', () => {
  it('holds for INTERSECT, EXCEPT [ALL], IN, NOT IN, [NOT] EXISTS and a scalar subquery at any parallelism and batching', async () => {
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
          expect(run.rows).toEqual(query.expected(live.a, live.b).map((r) => JSON.stringify({ k: r.k, v: r.v })).sort());
        },
      ),
      { numRuns: 150 },
    );
  });
});
