/**
 * The subquery forms Flink decorrelates beyond a plain correlated SELECT, on both runtimes:
 * correlated IN / EXISTS whose subquery groups, uses DISTINCT, joins or reads a correlated
 * derived table or WITH query (Flink's SubQueryDecorrelator); correlated scalar subqueries
 * (grouped by the correlation, LEFT joined; COUNT of no rows is 0); scalar subqueries that may be
 * more than one row (SINGLE_VALUE: a second row is a data error); IN / EXISTS inside expressions
 * and in HAVING (Calcite's mark joins) — with their plans as Flink prints them, results under
 * updates of the subquery's table, and the forms Flink rejects rejected by name. Results were
 * worked out by hand from the rows below.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { inputDir, runEmbeddedSql, runLocalSql } from './run-both.ts';

const files = inputDir('subqueries-correlated');
afterAll(() => files.cleanup());

const orders = files.file('orders', [
  { id: 1, product: 'apple', qty: 3 },
  { id: 2, product: 'pear', qty: 5 },
  { id: 3, product: null, qty: 2 },
  { id: 4, product: 'plum', qty: 1 },
  { id: 5, product: 'apple', qty: 8 },
  { id: 6, product: 'fig', qty: 4 },
]);
const products = files.file('products', [
  { name: 'apple', min_qty: 2, price: 10 },
  { name: 'pear', min_qty: 6, price: 20 },
  { name: null, min_qty: 1, price: 5 },
  { name: 'kiwi', min_qty: 1, price: 200 },
]);
// A Debezium changelog of stock rows: apple 4 → 9, pear 1 then deleted, plum 2 then 7 more.
const stock = files.file('stock', [
  { before: null, after: { product: 'apple', units: 4 }, op: 'c' },
  { before: null, after: { product: 'pear', units: 1 }, op: 'c' },
  { before: null, after: { product: 'plum', units: 2 }, op: 'c' },
  { before: { product: 'apple', units: 4 }, after: { product: 'apple', units: 9 }, op: 'u' },
  { before: { product: 'pear', units: 1 }, after: null, op: 'd' },
  { before: null, after: { product: 'plum', units: 7 }, op: 'c' },
]);

const TABLES = `CREATE TABLE orders (id BIGINT NOT NULL, product STRING, qty INT)
  WITH ('connector' = 'filesystem', 'path' = '${orders}', 'format' = 'json');
CREATE TABLE products (name STRING, min_qty INT, price INT)
  WITH ('connector' = 'filesystem', 'path' = '${products}', 'format' = 'json');
CREATE TABLE stock (product STRING, units INT)
  WITH ('connector' = 'filesystem', 'path' = '${stock}', 'format' = 'debezium-json');
`;

const plan = (sql: string): string => compileSql(TABLES + sql).pipeline.explain();

async function embedded(sql: string): Promise<string[]> {
  return (await runEmbeddedSql(TABLES + sql)).rows;
}

/** The same on both runtimes (the AWS one on emulators); checks they agree. */
async function both(sql: string): Promise<string[]> {
  const rows = await embedded(sql);
  expect((await runLocalSql(TABLES + sql)).rows).toEqual(rows);
  return rows;
}

const rows = (...objects: Record<string, unknown>[]): string[] => objects.map((o) => JSON.stringify(o)).sort();
const ids = (...n: number[]): string[] => rows(...n.map((id) => ({ id })));
const rejects = (sql: string): (() => unknown) => () => compileSql(TABLES + sql);

describe('correlated IN / EXISTS with GROUP BY, DISTINCT, joins and derived tables (Flink SubQueryDecorrelator)', () => {
  it('GROUP BY: the correlated column joins the group keys and the semi join keys', async () => {
    const q = `SELECT id FROM orders o WHERE 2 IN (SELECT MIN(min_qty) FROM products p WHERE p.name = o.product)`;
    expect(plan(q)).toBe(
      [
        'Sink(table=[print], fields=[id])',
        '+- Calc(select=[id])',
        '   +- Join(joinType=[LeftSemiJoin], where=[AND(=(product, name), =($f3, EXPR$0))], select=[id, product, qty, $f3], leftInputSpec=[NoUniqueKey], rightInputSpec=[JoinKeyContainsUniqueKey])',
        '      :- Exchange(distribution=[hash[product, $f3]])',
        '      :  +- Calc(select=[id, product, qty, 2 AS $f3])',
        '      :     +- Source(table=[orders], fields=[id, product, qty])',
        '      +- Exchange(distribution=[hash[name, EXPR$0]])',
        '         +- Calc(select=[EXPR$0, name])',
        '            +- GroupAggregate(groupBy=[name], select=[name, MIN(min_qty) AS EXPR$0])',
        '               +- Exchange(distribution=[hash[name]])',
        '                  +- Calc(select=[name, min_qty])',
        '                     +- Source(table=[products], fields=[name, min_qty, price])',
      ].join('\n'),
    );
    expect(await both(q)).toEqual(ids(1, 5));
  });

  it('follows the updates of an aggregating subquery: a row leaves and comes back as its group changes (Debezium source)', async () => {
    // Products whose stock sum exceeds the order's quantity: apple 9 (ids 1, 5), plum 9 (id 4); pear was deleted.
    const q = `SELECT id FROM orders o WHERE EXISTS (SELECT s.product FROM stock s WHERE s.product = o.product GROUP BY s.product HAVING SUM(s.units) > 5)`;
    expect(await both(q)).toEqual(ids(1, 4, 5));
    const run = await runEmbeddedSql(TABLES + q, { parallelism: 1, batchSize: 1 });
    // Orders come first (source order), then the stock changes. Apple's update retracts its group
    // (4) and adds a new one (9): +I passes HAVING. Plum's second row updates its group (2 → 9):
    // the +U passes HAVING, and the semi join emits the order with the right row's kind, as Flink's does.
    expect(run.changes.map((c) => `${c.kind}${String(c.row.id)}`)).toEqual(['+I1', '+I5', '+U4']);
  });

  it('DISTINCT and a join inside, correlated by a non-equality: the condition of the semi join (one shard)', async () => {
    const q = `SELECT id FROM orders o WHERE EXISTS (SELECT DISTINCT p.price FROM products p, orders o2 WHERE p.name = o2.product AND o2.qty > o.qty)`;
    expect(plan(q)).toContain(
      [
        '   +- Join(joinType=[LeftSemiJoin], where=[>(qty0, qty)], select=[id, product, qty], leftInputSpec=[NoUniqueKey], rightInputSpec=[NoUniqueKey])',
        '      :- Exchange(distribution=[single])',
        '      :  +- Source(table=[orders], fields=[id, product, qty])',
        '      +- Exchange(distribution=[single])',
        '         +- Calc(select=[qty])',
        '            +- GroupAggregate(groupBy=[price, qty], select=[price, qty])',
      ].join('\n'),
    );
    // Orders of a listed product: apple 3, pear 5, apple 8; every order below 8 has one above it.
    expect(await both(q)).toEqual(ids(1, 2, 3, 4, 6));
  });

  it('a correlated derived table and a correlated WITH query are decorrelated first', async () => {
    const derived = `SELECT id FROM orders o WHERE EXISTS (SELECT * FROM (SELECT * FROM products p WHERE p.name = o.product) x WHERE x.price > 15)`;
    expect(await both(derived)).toEqual(ids(2));
    const cte = `SELECT id FROM orders o WHERE product IN (WITH cheap AS (SELECT name FROM products p WHERE p.min_qty < o.qty) SELECT name FROM cheap)`;
    // apple needs 2 (orders of 3 and 8), pear 6 (the order of 5 is too small).
    expect(await embedded(cte)).toEqual(ids(1, 5));
    // `*` of a decorrelated derived table is its own columns, not the correlation's.
    expect(await embedded(`SELECT id FROM orders o WHERE product IN (SELECT * FROM (SELECT name FROM products p WHERE p.min_qty = o.qty - 1) x)`)).toEqual(ids(1));
  });

  it('rejects by name what Flink cannot decorrelate either', () => {
    expect(rejects(`SELECT id FROM orders o WHERE product IN (SELECT name FROM products p WHERE p.min_qty < o.qty UNION SELECT product FROM orders)`)).toThrow(
      'line 7:95: a correlated subquery cannot be a UNION query (Flink cannot decorrelate it either): refer to the outer query in a WHERE clause of a SELECT that reads the set operation as a derived table',
    );
    expect(rejects(`SELECT id FROM orders o WHERE product IN (SELECT MIN(name) FROM products p WHERE p.min_qty < o.qty)`)).toThrow(
      'line 7:92: a correlated subquery that aggregates can correlate by equalities of its columns with the outer query only (t.k = o.k), as in Flink: this condition is not one',
    );
    // Also when the non-equality comes up from a derived table the aggregate reads.
    expect(rejects(`SELECT id FROM orders o WHERE 2 IN (SELECT MAX(x.min_qty) FROM (SELECT * FROM products p WHERE p.min_qty < o.qty) x)`)).toThrow(
      'line 7:106: a correlated subquery that aggregates can correlate by equalities of its columns with the outer query only (t.k = o.k), as in Flink: this condition is not one',
    );
    expect(rejects(`SELECT id FROM orders o WHERE EXISTS (SELECT * FROM products p LEFT JOIN (SELECT * FROM orders o2 WHERE o2.id = o.id) x ON p.name = x.product)`)).toThrow(
      'line 7:74: a subquery correlated inside the side of a LEFT JOIN that the join pads with NULLs is not supported (Flink cannot decorrelate it either)',
    );
    expect(rejects(`SELECT id FROM orders o WHERE product IN (SELECT o.product FROM products p)`)).toThrow(
      /^line 7:50: unknown table or alias 'o' in table 'products' \(known: p, products\); a correlated subquery can refer to the outer query in its WHERE clause only/,
    );
  });
});

describe('correlated scalar subqueries', () => {
  it("in WHERE (Flink's example: orders above their product's average): grouped by the correlation, joined on it", async () => {
    const q = `SELECT id FROM orders o1 WHERE qty > (SELECT AVG(qty) FROM orders o2 WHERE o2.product = o1.product)`;
    expect(plan(q)).toBe(
      [
        'Sink(table=[print], fields=[id])',
        '+- Calc(select=[id], where=[>(qty, EXPR$0)])',
        '   +- Join(joinType=[InnerJoin], where=[=(product, product0)], select=[id, product, qty, EXPR$0, product0], leftInputSpec=[NoUniqueKey], rightInputSpec=[JoinKeyContainsUniqueKey])',
        '      :- Exchange(distribution=[hash[product]])',
        '      :  +- Source(table=[orders], fields=[id, product, qty])',
        '      +- Exchange(distribution=[hash[product]])',
        '         +- Calc(select=[EXPR$0, product])',
        '            +- GroupAggregate(groupBy=[product], select=[product, AVG(qty) AS EXPR$0])',
        '               +- Exchange(distribution=[hash[product]])',
        '                  +- Calc(select=[product, qty])',
        '                     +- Source(table=[orders], fields=[id, product, qty])',
      ].join('\n'),
    );
    // apple: AVG(3, 8) = 5 (INT), so 8 > 5; every other product has one order.
    expect(await both(q)).toEqual(ids(5));
  });

  it('COUNT of no rows is 0, not NULL (the count bug), in the SELECT list and in WHERE', async () => {
    const counted = `SELECT id, (SELECT COUNT(*) FROM products p WHERE p.name = o.product) AS n FROM orders o`;
    expect(plan(counted)).toContain('Calc(select=[id, CASE(IS NULL(EXPR$0), 0:BIGINT, EXPR$0) AS n])');
    expect(await both(counted)).toEqual(rows({ id: 1, n: 1 }, { id: 2, n: 1 }, { id: 3, n: 0 }, { id: 4, n: 0 }, { id: 5, n: 1 }, { id: 6, n: 0 }));
    // 0 = COUNT passes without a match, so the join stays LEFT (Flink's FilterJoinRule keeps it too).
    const none = `SELECT id FROM orders o WHERE 0 = (SELECT COUNT(*) FROM products p WHERE p.name = o.product)`;
    expect(plan(none)).toContain('Join(joinType=[LeftOuterJoin], where=[=(product, name)]');
    expect(await embedded(none)).toEqual(ids(3, 4, 6));
    // An expression of aggregates: COUNT + SUM is NULL without a row (SUM is), 10 + 1 for apple.
    expect(await embedded(`SELECT id, (SELECT COUNT(*) + SUM(price) FROM products p WHERE p.name = o.product) AS v FROM orders o WHERE id < 4`)).toEqual(
      rows({ id: 1, v: 11 }, { id: 2, v: 21 }, { id: 3, v: null }),
    );
    // Uncorrelated, nothing is decorrelated: the global COUNT of a table with no row (here: no row
    // passing its WHERE) has no row yet in streaming, so the value is NULL, as in Flink's
    // streaming mode (its batch mode gives 0).
    expect(await both(`SELECT id, (SELECT COUNT(*) FROM products WHERE price > 1000) AS n FROM orders WHERE id = 1`)).toEqual(rows({ id: 1, n: null }));
  });

  it('follows updates of the subquery table (Debezium source), on both runtimes', async () => {
    const q = `SELECT id, (SELECT SUM(units) FROM stock s WHERE s.product = o.product) AS units FROM orders o WHERE id <= 4`;
    expect(await both(q)).toEqual(rows({ id: 1, units: 9 }, { id: 2, units: null }, { id: 3, units: null }, { id: 4, units: 9 }));
  });

  it('in HAVING and in the SELECT list of an aggregate query', async () => {
    const q = `SELECT product, COUNT(*) AS n, (SELECT MAX(price) FROM products p WHERE p.name = o.product) AS price FROM orders o GROUP BY product HAVING COUNT(*) > (SELECT MIN(min_qty) FROM products)`;
    expect(await both(q)).toEqual(rows({ product: 'apple', n: 2, price: 10 }));
  });

  it('rejects a correlation that is not an equality with a subquery column, as Flink decorrelates by equalities', () => {
    expect(rejects(`SELECT id, (SELECT MAX(price) FROM products p WHERE p.min_qty < o.qty) FROM orders o`)).toThrow(
      'line 7:63: a correlated subquery that aggregates can correlate by equalities of its columns with the outer query only (t.k = o.k), as in Flink: this condition is not one',
    );
    expect(rejects(`SELECT id, (SELECT price FROM products p WHERE p.min_qty < o.qty) FROM orders o`)).toThrow(
      'line 7:58: a correlated scalar subquery can correlate by equalities of its columns with the outer query only (t.k = o.k), as Flink decorrelates it: this condition is not one',
    );
  });
});

describe('scalar subqueries that may be more than one row (SINGLE_VALUE)', () => {
  it('one row per correlation key: SINGLE_VALUE grouped by it, the value or NULL', async () => {
    const q = `SELECT id, (SELECT min_qty FROM products p WHERE p.name = o.product) AS m FROM orders o`;
    expect(plan(q)).toContain(
      [
        '      +- Exchange(distribution=[hash[name]])',
        '         +- GroupAggregate(groupBy=[name], select=[name, SINGLE_VALUE(min_qty) AS $f0])',
      ].join('\n'),
    );
    expect(await both(q)).toEqual(rows({ id: 1, m: 2 }, { id: 2, m: 6 }, { id: 3, m: null }, { id: 4, m: null }, { id: 5, m: 2 }, { id: 6, m: null }));
  });

  const MANY = `SELECT id, (SELECT min_qty FROM products WHERE price < 100) AS m FROM orders WHERE id <= 2`;

  it('a second row is a data error of that row: dead-lettered by default (the subquery keeps its one value), on both runtimes', async () => {
    const letter = 'more than one row returned by a subquery used as an expression: SINGLE_VALUE(min_qty) AS $f0 already holds a row (Flink fails with "SingleValueAggFunction received more than one element.")';
    const run = await runEmbeddedSql(TABLES + MANY);
    expect(run.rows).toEqual(rows({ id: 1, m: 2 }, { id: 2, m: 2 }));
    expect(run.deadLetters).toEqual([`stage-2 shard 0: ${letter}`, `stage-2 shard 0: ${letter}`]);
    const local = await runLocalSql(TABLES + MANY);
    expect(local.rows).toEqual(run.rows);
    // On AWS a dead letter names the exchange record (shard and sequence number) and the operator.
    expect(local.deadLetters.map((l) => l.replace(/^shardId-\d+@\d+: /, ''))).toEqual([`${letter}, in operator GroupAggregate_6`, `${letter}, in operator GroupAggregate_6`]);
  });

  it("under 'pipeline.error-policy' = 'fail' the job stops, as Flink's does", async () => {
    await expect(runEmbeddedSql(`${TABLES}SET 'pipeline.error-policy' = 'fail';\n${MANY}`)).rejects.toThrow(/more than one row returned by a subquery used as an expression: SINGLE_VALUE\(min_qty\) AS \$f0 already holds a row/);
  });
});

describe('IN / EXISTS inside expressions and in HAVING (mark joins)', () => {
  it("IN in the SELECT list has SQL's three-valued value: TRUE, FALSE, or NULL for a NULL operand or a NULL in the subquery", async () => {
    const q = `SELECT id, product IN (SELECT name FROM products) AS known FROM orders`;
    expect(plan(q)).toBe(
      [
        'Sink(table=[print], fields=[id, known])',
        '+- Calc(select=[id, CASE(OR(IS NULL(c), =(c, 0:BIGINT)), false, IS NOT NULL(i), true, IS NULL(product), null:BOOLEAN, <(ck, c), null:BOOLEAN, false) AS known])',
        '   +- Join(joinType=[LeftOuterJoin], where=[=(product, name)], select=[id, product, qty, c, ck, name, i], leftInputSpec=[NoUniqueKey], rightInputSpec=[HasUniqueKey])',
        '      :- Exchange(distribution=[hash[product]])',
        '      :  +- Join(joinType=[InnerJoin], where=[true], select=[id, product, qty, c, ck], leftInputSpec=[NoUniqueKey], rightInputSpec=[NoUniqueKey])',
        '      :     :- Exchange(distribution=[single])',
        '      :     :  +- Source(table=[orders], fields=[id, product, qty])',
        '      :     +- Exchange(distribution=[single])',
        '      :        +- GroupAggregate(select=[COUNT(*) AS c, COUNT(name) AS ck])',
        '      :           +- Exchange(distribution=[single])',
        '      :              +- Calc(select=[name])',
        '      :                 +- Source(table=[products], fields=[name, min_qty, price])',
        '      +- Exchange(distribution=[hash[name]])',
        '         +- GroupAggregate(groupBy=[name, i], select=[name, i])',
        '            +- Exchange(distribution=[hash[name, i]])',
        '               +- Calc(select=[name, true AS i])',
        '                  +- Source(table=[products], fields=[name, min_qty, price])',
      ].join('\n'),
    );
    // products holds a NULL name, so a product not listed is NULL, not FALSE.
    expect(await both(q)).toEqual(rows({ id: 1, known: true }, { id: 2, known: true }, { id: 3, known: null }, { id: 4, known: null }, { id: 5, known: true }, { id: 6, known: null }));
    // Without NULLs in the subquery they are FALSE. The counts of an uncorrelated subquery are one
    // global row, INNER-joined as Calcite plans it: while the subquery's table has no row there is
    // none, so no outer row comes out yet — Flink's streaming result (its batch mode gives FALSE).
    expect(await embedded(`SELECT id, product IN (SELECT name FROM products WHERE name IS NOT NULL) AS known FROM orders WHERE id >= 3`)).toEqual(
      rows({ id: 3, known: null }, { id: 4, known: false }, { id: 5, known: true }, { id: 6, known: false }),
    );
    expect(await both(`SELECT id, product IN (SELECT name FROM products WHERE price > 1000) AS known FROM orders WHERE id >= 3`)).toEqual([]);
    // Two NOT NULL sides cannot make IN NULL: no counts, only the distinct values.
    const big = `SELECT id, id IN (SELECT id FROM orders WHERE qty > 4) AS big FROM orders`;
    expect(plan(big)).toContain('+- Calc(select=[id, IS NOT NULL(i) AS big])\n   +- Join(joinType=[LeftOuterJoin], where=[=(id, id0)]');
    expect(await embedded(big)).toEqual(rows({ id: 1, big: false }, { id: 2, big: true }, { id: 3, big: false }, { id: 4, big: false }, { id: 5, big: true }, { id: 6, big: false }));
  });

  it('EXISTS under OR in WHERE, correlated: a LEFT join with the distinct keys, then the filter', async () => {
    const q = `SELECT id FROM orders o WHERE qty > 4 OR EXISTS (SELECT * FROM products p WHERE p.name = o.product)`;
    expect(plan(q)).toContain(
      [
        '+- Calc(select=[id], where=[OR(>(qty, 4), IS NOT NULL(i))])',
        '   +- Join(joinType=[LeftOuterJoin], where=[=(product, name)], select=[id, product, qty, name, i], leftInputSpec=[NoUniqueKey], rightInputSpec=[HasUniqueKey])',
      ].join('\n'),
    );
    expect(await both(q)).toEqual(ids(1, 2, 5));
  });

  it('NOT IN in a CASE and a correlated IN in the SELECT list, under updates of the subquery table', async () => {
    const q = `SELECT id, CASE WHEN product NOT IN (SELECT product FROM stock) THEN 'none' ELSE 'some' END AS s, qty IN (SELECT units FROM stock s WHERE s.product = o.product) AS exact FROM orders o WHERE id <> 3`;
    // stock holds apple 9, plum 2 and 7 (pear was deleted); no order's qty is one of its product's units.
    expect(await both(q)).toEqual(
      rows({ id: 1, s: 'some', exact: false }, { id: 2, s: 'none', exact: false }, { id: 4, s: 'some', exact: false }, { id: 5, s: 'some', exact: false }, { id: 6, s: 'none', exact: false }),
    );
  });

  it('over an updating outer query (Debezium source): its retractions retract the marked rows, on both runtimes', async () => {
    // stock ends as apple 9, plum 2, plum 7; order quantities are 3, 5, 2, 1, 8, 4.
    const q = `SELECT product, units, units IN (SELECT qty FROM orders) AS ordered, (SELECT COUNT(*) FROM orders o WHERE o.product = s.product) AS n FROM stock s`;
    expect(plan(q)).toContain('CASE(IS NULL(EXPR$0), 0:BIGINT, EXPR$0) AS n])');
    expect(plan(q)).toContain('Join(joinType=[LeftOuterJoin], where=[=(units, qty)], select=[product, units, c, ck, qty, i]');
    expect(await both(q)).toEqual(
      rows({ product: 'apple', units: 9, ordered: false, n: 2 }, { product: 'plum', units: 2, ordered: true, n: 1 }, { product: 'plum', units: 7, ordered: false, n: 1 }),
    );
  });

  it('an IN conjunct of HAVING is a semi join after the aggregate (Flink testInWithUncorrelated_Having)', async () => {
    const q = `SELECT SUM(qty) AS s FROM orders GROUP BY product HAVING COUNT(*) > 1 AND MAX(product) IN (SELECT name FROM products)`;
    expect(plan(q)).toContain('Join(joinType=[LeftSemiJoin], where=[=(EXPR$3, name)], select=[product, s, EXPR$2, EXPR$3]');
    expect(await both(q)).toEqual(rows({ s: 11 }));
    expect(await embedded(`SELECT product FROM orders GROUP BY product HAVING COUNT(*) = 1 OR product IN (SELECT name FROM products WHERE price > 5)`)).toEqual(
      rows({ product: null }, { product: 'apple' }, { product: 'fig' }, { product: 'pear' }, { product: 'plum' }),
    );
  });

  it('NOT is pushed through OR and AND, and (… IN …) IS TRUE read as IN, so those stay semi / anti joins as in Flink', () => {
    expect(plan(`SELECT id FROM orders WHERE NOT (qty > 4 OR product NOT IN (SELECT name FROM products))`)).toContain('Join(joinType=[LeftSemiJoin], where=[=(product, name)]');
    expect(plan(`SELECT id FROM orders WHERE (product IN (SELECT name FROM products)) IS TRUE`)).toContain('Join(joinType=[LeftSemiJoin], where=[=(product, name)]');
  });

  it('rejects a non-equality correlation inside an expression, by name', () => {
    expect(rejects(`SELECT id, EXISTS (SELECT * FROM products p WHERE p.min_qty < o.qty) FROM orders o`)).toThrow(
      "line 7:61: EXISTS (SELECT …) inside an expression can correlate by equalities of the subquery's columns with the outer query only (t.k = o.k), as Flink decorrelates it: this condition is not one",
    );
  });
});
