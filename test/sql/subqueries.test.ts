/**
 * Subqueries and set operations (Flink's docs: Queries › Set Operations, Joins), on both
 * runtimes: correlated and uncorrelated `[NOT] EXISTS` and `[NOT] IN` decorrelated into the
 * regular SEMI / ANTI join (the correlation's equalities its keys, other correlated conditions
 * its condition), NOT IN's three-valued NULL semantics, multi-column IN and expressions on either
 * side, subqueries that aggregate, uncorrelated scalar subqueries, and `INTERSECT` / `EXCEPT`
 * `[ALL]` with NULLs — with their plans as Flink prints them. Results were worked out by hand from the rows below.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { inputDir, runEmbeddedSql, runLocalSql } from './run-both.ts';

const files = inputDir('subqueries');
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

const TABLES = `CREATE TABLE orders (id BIGINT NOT NULL, product STRING, qty INT)
  WITH ('connector' = 'filesystem', 'path' = '${orders}', 'format' = 'json');
CREATE TABLE products (name STRING, min_qty INT, price INT)
  WITH ('connector' = 'filesystem', 'path' = '${products}', 'format' = 'json');
`;

const plan = (sql: string): string => compileSql(TABLES + sql).pipeline.explain();

/** The query's result rows on the embedded runtime, as sorted JSON texts. */
async function embedded(sql: string): Promise<string[]> {
  return (await runEmbeddedSql(TABLES + sql)).rows;
}

/** The same on both runtimes (the AWS one on emulators); checks they agree. */
async function both(sql: string): Promise<string[]> {
  const rows = await embedded(sql);
  expect((await runLocalSql(TABLES + sql)).rows).toEqual(rows);
  return rows;
}

const ids = (...n: number[]): string[] => n.map((id) => JSON.stringify({ id })).sort();

describe('EXISTS / NOT EXISTS (correlated)', () => {
  const exists = `SELECT id FROM orders o WHERE EXISTS (SELECT * FROM products p WHERE p.name = o.product AND o.qty >= p.min_qty)`;

  it('is a semi join: the equality its key, the other correlated condition its condition, the subquery pruned to what they read', () => {
    expect(plan(exists)).toBe(
      [
        'Sink(table=[print], fields=[id])',
        '+- Calc(select=[id])',
        '   +- Join(joinType=[LeftSemiJoin], where=[AND(=(product, name), >=(qty, min_qty))], select=[id, product, qty], leftInputSpec=[NoUniqueKey], rightInputSpec=[NoUniqueKey])',
        '      :- Exchange(distribution=[hash[product]])',
        '      :  +- Source(table=[orders], fields=[id, product, qty])',
        '      +- Exchange(distribution=[hash[name]])',
        '         +- Calc(select=[name, min_qty])',
        '            +- Source(table=[products], fields=[name, min_qty, price])',
      ].join('\n'),
    );
  });

  it('keeps the rows with a matching row, NOT EXISTS those without (both runtimes)', async () => {
    expect(await both(exists)).toEqual(ids(1, 5));
    expect(await both(exists.replace('EXISTS', 'NOT EXISTS'))).toEqual(ids(2, 3, 4, 6));
  });

  it('a correlated condition on outer columns only is the whole condition; the subquery side keeps no column (Calc(select=[]))', async () => {
    const q = `SELECT id FROM orders o WHERE EXISTS (SELECT * FROM products p WHERE o.qty > 6)`;
    expect(plan(q)).toContain(
      [
        '   +- Join(joinType=[LeftSemiJoin], where=[>(qty, 6)], select=[id, product, qty], leftInputSpec=[NoUniqueKey], rightInputSpec=[NoUniqueKey])',
        '      :- Exchange(distribution=[single])',
        '      :  +- Source(table=[orders], fields=[id, product, qty])',
        '      +- Exchange(distribution=[single])',
        '         +- Calc(select=[])',
      ].join('\n'),
    );
    expect(await both(q)).toEqual(ids(5));
  });

  it('an uncorrelated EXISTS is one row or none: a semi join on MIN(true) IS NOT NULL, as Flink plans it', async () => {
    const some = `SELECT id FROM orders WHERE EXISTS (SELECT * FROM products WHERE price > 100)`;
    expect(plan(some)).toContain(
      [
        '      +- Exchange(distribution=[single])',
        '         +- Calc(select=[m], where=[IS NOT NULL(m)])',
        '            +- GroupAggregate(select=[MIN(i) AS m])',
        '               +- Exchange(distribution=[single])',
        '                  +- Calc(select=[true AS i], where=[>(price, 100)])',
      ].join('\n'),
    );
    expect(plan(some)).toContain('Join(joinType=[LeftSemiJoin], where=[true], select=[id, product, qty]');
    expect(await both(some)).toEqual(ids(1, 2, 3, 4, 5, 6));
    expect(await embedded(some.replace('EXISTS', 'NOT EXISTS'))).toEqual([]);
    expect(await embedded(`SELECT id FROM orders WHERE NOT EXISTS (SELECT * FROM products WHERE price > 1000)`)).toEqual(ids(1, 2, 3, 4, 5, 6));
  });
});

describe('IN / NOT IN', () => {
  it('uncorrelated IN is a semi join on the column (a NULL matches nothing)', async () => {
    const q = `SELECT id FROM orders WHERE product IN (SELECT name FROM products)`;
    expect(plan(q)).toContain('Join(joinType=[LeftSemiJoin], where=[=(product, name)], select=[id, product, qty]');
    expect(await both(q)).toEqual(ids(1, 2, 5));
  });

  it("NOT IN has SQL's three-valued logic: a NULL in the subquery makes it never TRUE; a NULL value passes only an empty subquery", async () => {
    const q = `SELECT id FROM orders WHERE product NOT IN (SELECT name FROM products)`;
    // Flink's null-aware anti join: the nullable pair is a condition, so the join has no key.
    expect(plan(q)).toContain(
      [
        '   +- Join(joinType=[LeftAntiJoin], where=[OR(IS NULL(product), IS NULL(name), =(product, name))], select=[id, product, qty], leftInputSpec=[NoUniqueKey], rightInputSpec=[NoUniqueKey])',
        '      :- Exchange(distribution=[single])',
      ].join('\n'),
    );
    expect(await both(q)).toEqual([]);
    expect(await both(`SELECT id FROM orders WHERE product NOT IN (SELECT name FROM products WHERE name IS NOT NULL)`)).toEqual(ids(4, 6));
    expect(await embedded(`SELECT id FROM orders WHERE product NOT IN (SELECT name FROM products WHERE price > 1000)`)).toEqual(ids(1, 2, 3, 4, 5, 6));
    // NOT (x IN …) is NOT IN; NOT (x NOT IN …) is IN.
    expect(await embedded(`SELECT id FROM orders WHERE NOT (product IN (SELECT name FROM products WHERE name IS NOT NULL))`)).toEqual(ids(4, 6));
    expect(await embedded(`SELECT id FROM orders WHERE NOT (product NOT IN (SELECT name FROM products))`)).toEqual(ids(1, 2, 5));
  });

  it('a NOT NULL pair stays a key of the anti join', () => {
    expect(plan(`SELECT product FROM orders WHERE id NOT IN (SELECT CAST(min_qty AS BIGINT) FROM products WHERE min_qty IS NOT NULL)`)).toContain(
      'Join(joinType=[LeftAntiJoin], where=[OR(IS NULL($f3), =(id, $f3))]',
    );
    expect(plan(`SELECT product FROM orders o WHERE id NOT IN (SELECT id FROM orders)`)).toContain('Join(joinType=[LeftAntiJoin], where=[=(id, id0)]');
  });

  it('(a, b) IN (SELECT c, d …) pairs the columns; expressions on either side are projected first', async () => {
    const q = `SELECT id FROM orders WHERE (product, qty) IN (SELECT name, min_qty + 1 FROM products)`;
    expect(plan(q)).toContain('Join(joinType=[LeftSemiJoin], where=[AND(=(product, name), =(qty, $f3))]');
    expect(plan(q)).toContain('Calc(select=[name, +(min_qty, 1) AS $f3])');
    expect(await both(q)).toEqual(ids(1));
    // (NULL, 2) NOT IN S is NULL (not FALSE) because S holds (NULL, 2); every other pair differs.
    expect(await both(q.replace(' IN (', ' NOT IN ('))).toEqual(ids(2, 4, 5, 6));
  });

  it('a correlated IN adds the correlation to the keys; an expression of the outer row is projected and dropped again', async () => {
    const q = `SELECT id, qty FROM orders o WHERE qty - 1 IN (SELECT min_qty FROM products p WHERE p.name = o.product)`;
    expect(plan(q)).toBe(
      [
        'Sink(table=[print], fields=[id, qty])',
        '+- Calc(select=[id, qty])',
        '   +- Join(joinType=[LeftSemiJoin], where=[AND(=(product, name), =($f3, min_qty))], select=[id, product, qty, $f3], leftInputSpec=[NoUniqueKey], rightInputSpec=[NoUniqueKey])',
        '      :- Exchange(distribution=[hash[product, $f3]])',
        '      :  +- Calc(select=[id, product, qty, -(qty, 1) AS $f3])',
        '      :     +- Source(table=[orders], fields=[id, product, qty])',
        '      +- Exchange(distribution=[hash[name, min_qty]])',
        '         +- Calc(select=[name, min_qty])',
        '            +- Source(table=[products], fields=[name, min_qty, price])',
      ].join('\n'),
    );
    expect(await both(q)).toEqual([JSON.stringify({ id: 1, qty: 3 })]);
    // An empty subquery (no product, or none of that name) makes NOT IN TRUE.
    expect((await both(q.replace(' IN (', ' NOT IN ('))).map((r) => JSON.parse(r).id)).toEqual([2, 3, 4, 5, 6]);
  });

  it('a subquery that aggregates is compiled on its own (its updates retract and re-emit the outer rows)', async () => {
    const q = `SELECT id FROM orders WHERE product IN (SELECT product FROM orders GROUP BY product HAVING SUM(qty) > 5)`;
    expect(await both(q)).toEqual(ids(1, 5));
    const run = await runEmbeddedSql(`${TABLES}${q}`, { parallelism: 1, batchSize: 1 });
    // apple's sum passes 5 only with order 5 (the aggregate's +U): both apple orders come then,
    // with the right row's kind, as Flink's semi join emits them.
    expect(run.changes.map((c) => `${c.kind}${String(c.row.id)}`)).toEqual(['+U1', '+U5']);
  });

  it('a subquery in the subquery and IN over VALUES', async () => {
    expect(await embedded(`SELECT id FROM orders WHERE product IN (SELECT name FROM products WHERE min_qty IN (SELECT qty FROM orders))`)).toEqual(ids(1, 5));
    expect(await embedded(`SELECT id FROM orders WHERE qty IN (VALUES (1), (8))`)).toEqual(ids(4, 5));
  });

  it('IN over window TVFs correlated on the windows stays a window join', () => {
    const windowed = `CREATE TABLE w (k INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = 'w.jsonl', 'format' = 'json');
      SELECT k FROM TABLE(TUMBLE(TABLE w, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) a WHERE a.k IN (
        SELECT k FROM TABLE(TUMBLE(TABLE w, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) b WHERE a.window_start = b.window_start AND a.window_end = b.window_end)`;
    expect(compileSql(windowed).pipeline.explain()).toContain('WindowJoin(leftWindow=[TUMBLE(win_start=[window_start], win_end=[window_end], size=[1 min])]');
  });

  it("takes the state retention of 'table.exec.state.ttl' and names what it cannot decorrelate", () => {
    const graph = compileSql(`${TABLES}SET 'table.exec.state.ttl' = '1 h';\nSELECT id FROM orders WHERE product IN (SELECT name FROM products)`).pipeline.jobGraph({ parallelism: 1 });
    const join = graph.stages.flatMap((s) => s.operators).find((o) => o.type === 'Join');
    expect(join?.spec).toMatchObject({ joinType: 'SEMI', leftStateTtlMs: 3_600_000, rightStateTtlMs: 3_600_000 });
    expect(() => compileSql(`${TABLES}SELECT id FROM orders WHERE (product, qty) IN (SELECT name FROM products)`)).toThrow('IN compares 2 columns with a subquery of 1 column');
    // What Flink's SubQueryDecorrelator cannot decorrelate (subqueries-correlated.test.ts has the rest).
    expect(() => compileSql(`${TABLES}SELECT id FROM orders o WHERE qty IN (SELECT MAX(min_qty) FROM products p WHERE p.min_qty < o.qty)`)).toThrow(
      'line 5:91: a correlated subquery that aggregates can correlate by equalities of its columns with the outer query only (t.k = o.k), as in Flink: this condition is not one',
    );
  });
});

describe('scalar subqueries (uncorrelated)', () => {
  it('in WHERE: an INNER join with the one row of an aggregation without GROUP BY, on one shard', async () => {
    const q = `SELECT id FROM orders WHERE qty > (SELECT AVG(min_qty) FROM products)`;
    expect(plan(q)).toBe(
      [
        'Sink(table=[print], fields=[id])',
        '+- Calc(select=[id], where=[>(qty, EXPR$0)])',
        '   +- Join(joinType=[InnerJoin], where=[true], select=[id, product, qty, EXPR$0], leftInputSpec=[NoUniqueKey], rightInputSpec=[NoUniqueKey])',
        '      :- Exchange(distribution=[single])',
        '      :  +- Source(table=[orders], fields=[id, product, qty])',
        '      +- Exchange(distribution=[single])',
        '         +- GroupAggregate(select=[AVG(min_qty) AS EXPR$0])',
        '            +- Exchange(distribution=[single])',
        '               +- Calc(select=[min_qty])',
        '                  +- Source(table=[products], fields=[name, min_qty, price])',
      ].join('\n'),
    );
    // AVG of an INT is an INT, as in Flink: (2 + 6 + 1 + 1) / 4 = 2.
    expect(await both(q)).toEqual(ids(1, 2, 5, 6));
  });

  it('in the SELECT list: a LEFT join, NULL until the subquery has a row', async () => {
    const q = `SELECT id, (SELECT MAX(price) FROM products) AS top FROM orders WHERE id <= 2`;
    expect(plan(q)).toContain('Join(joinType=[LeftOuterJoin], where=[true], select=[id, product, qty, EXPR$0]');
    expect(await both(q)).toEqual([JSON.stringify({ id: 1, top: 200 }), JSON.stringify({ id: 2, top: 200 })]);
  });

  it('rejects by name one of two columns, and one where Flink has none', () => {
    expect(() => compileSql(`${TABLES}SELECT id FROM orders WHERE qty > (SELECT MAX(min_qty), MIN(min_qty) FROM products)`)).toThrow('a scalar subquery must select one column (this one selects 2)');
    expect(() => compileSql(`${TABLES}SELECT id FROM orders JOIN products ON qty > (SELECT MIN(min_qty) FROM products)`)).toThrow(
      'a scalar subquery ((SELECT …) as a value) is supported in WHERE, HAVING and the SELECT list, not here yet',
    );
  });
});

describe('INTERSECT / EXCEPT [ALL]', () => {
  const set = (op: string): string => `SELECT product FROM orders ${op} SELECT name FROM products`;
  const products = (...names: (string | null)[]): string[] => names.map((product) => JSON.stringify({ product })).sort();

  it('INTERSECT: a semi join on every column IS NOT DISTINCT FROM (NULL matches NULL), then distinct', async () => {
    expect(plan(set('INTERSECT'))).toBe(
      [
        'Sink(table=[print], fields=[product])',
        '+- GroupAggregate(groupBy=[product], select=[product])',
        '   +- Exchange(distribution=[hash[product]])',
        '      +- Join(joinType=[LeftSemiJoin], where=[IS NOT DISTINCT FROM(product, product0)], select=[product], leftInputSpec=[NoUniqueKey], rightInputSpec=[NoUniqueKey])',
        '         :- Exchange(distribution=[hash[product]])',
        '         :  +- Calc(select=[product])',
        '         :     +- Source(table=[orders], fields=[id, product, qty])',
        '         +- Exchange(distribution=[hash[product]])',
        '            +- Calc(select=[name AS product])',
        '               +- Source(table=[products], fields=[name, min_qty, price])',
      ].join('\n'),
    );
    expect(await both(set('INTERSECT'))).toEqual(products(null, 'apple', 'pear'));
    expect(await both(set('EXCEPT'))).toEqual(products('fig', 'plum'));
  });

  it('INTERSECT ALL / EXCEPT ALL count the copies (RewriteIntersectAllRule, RewriteMinusAllRule)', async () => {
    expect(plan(set('INTERSECT ALL'))).toContain(
      [
        'Sink(table=[print], fields=[product])',
        '+- Calc(select=[product0 AS product])',
        '   +- Correlate(invocation=[$REPLICATE_ROWS$1($f0, product)], correlate=[table($REPLICATE_ROWS$1($f0, product))], select=[$f0,product,product0], rowType=[RecordType(BIGINT NOT NULL $f0, VARCHAR(2147483647) product, VARCHAR(2147483647) product0)], joinType=[INNER])',
        '      +- Calc(select=[CASE(>(vcol_left_cnt, vcol_right_cnt), vcol_right_cnt, vcol_left_cnt) AS $f0, product], where=[AND(>=(vcol_left_cnt, 1), >=(vcol_right_cnt, 1))])',
        '         +- GroupAggregate(groupBy=[product], select=[product, COUNT(vcol_left_marker) AS vcol_left_cnt, COUNT(vcol_right_marker) AS vcol_right_cnt])',
        '            +- Exchange(distribution=[hash[product]])',
        '               +- Union(all=[true], union=[product, vcol_left_marker, vcol_right_marker])',
      ].join('\n'),
    );
    expect(plan(set('EXCEPT ALL'))).toContain('GroupAggregate(groupBy=[product], select=[product, SUM(vcol_marker) AS sum_vcol_marker])');
    // orders: apple ×2, pear, NULL, plum, fig; products: apple, pear, NULL, kiwi.
    expect(await both(set('INTERSECT ALL'))).toEqual(products(null, 'apple', 'pear'));
    expect(await both(set('EXCEPT ALL'))).toEqual(products('apple', 'fig', 'plum'));
    expect(await embedded(`SELECT name FROM products EXCEPT ALL SELECT product FROM orders`)).toEqual([JSON.stringify({ name: 'kiwi' })]);
    expect(await embedded(`SELECT product FROM orders INTERSECT ALL SELECT product FROM orders`)).toEqual(products(null, 'apple', 'apple', 'fig', 'pear', 'plum'));
  });
});
