/**
 * Flink's Correlate in SQL, on both runtimes: UNNEST on its own in FROM (of an ARRAY, a MAP, a
 * ROW array, several collections zipped, WITH ORDINALITY), the joins page's `(VALUES …), UNNEST(…)`
 * examples, an inner join's ON condition inside the Correlate, and table user functions
 * (`LATERAL TABLE`) joined, with a condition, LEFT, alone in FROM and over an updating input —
 * one plan node for both.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { FUNCTIONS } from './conformance/functions.ts';
import { sqlError } from './helpers.ts';
import { inputDir, runEmbeddedSql, runLocalSql } from './run-both.ts';

const files = inputDir('correlate');
afterAll(() => files.cleanup());

const docs = files.file('docs', [
  { id: 1, line: 'aa b ccc', tags: ['x', 'y', 'z'], nums: [10, 20] },
  { id: 2, line: '', tags: [], nums: [30] },
  { id: 3, line: 'dd', tags: null, nums: null },
]);

const DOCS = `CREATE TABLE docs (id INT, line STRING, tags ARRAY<STRING>, nums ARRAY<INT>) WITH ('connector' = 'filesystem', 'path' = '${docs}', 'format' = 'json');
CREATE FUNCTION split_words AS 'split.ts#splitWords';
`;

/** Runs on both runtimes, checks they agree, returns the rows. */
async function both(sql: string): Promise<string[]> {
  const embedded = (await runEmbeddedSql(sql, { functions: FUNCTIONS })).rows;
  const local = (await runLocalSql(sql, { functions: FUNCTIONS })).rows;
  expect(local).toEqual(embedded);
  return embedded;
}

describe('Correlate (UNNEST and table functions), on both runtimes', () => {
  // UNNEST alone in FROM and the joins page's `(VALUES …), UNNEST(…)` read VALUES, a generator
  // source: on the AWS runtime its producer puts the rows into the source stream.
  it('UNNEST on its own in FROM: an ARRAY, a MAP, an ARRAY of ROW, several collections zipped', async () => {
    expect(await both('SELECT * FROM UNNEST(ARRAY[1, 2, 3]) AS t (x)')).toEqual(['{"x":1}', '{"x":2}', '{"x":3}']);
    expect(await both('SELECT x * 10 AS y FROM UNNEST(ARRAY[1, 2, 3]) AS t (x) WHERE x > 1')).toEqual(['{"y":20}', '{"y":30}']);
    expect(await both("SELECT * FROM UNNEST(MAP['a', 1, 'b', 2]) AS t (k, v)")).toEqual(['{"k":"a","v":1}', '{"k":"b","v":2}']);
    expect(await both("SELECT * FROM UNNEST(ARRAY[ROW(1, 'a'), ROW(2, 'b')])")).toEqual(['{"EXPR$0":1,"EXPR$1":"a"}', '{"EXPR$0":2,"EXPR$1":"b"}']);
    expect(await both("SELECT * FROM UNNEST(ARRAY[1, 2, 3], ARRAY['a', 'b']) WITH ORDINALITY AS t (n, s, o)")).toEqual(['{"n":1,"s":"a","o":1}', '{"n":2,"s":"b","o":2}', '{"n":3,"s":null,"o":3}']);
    expect(await both("SELECT * FROM (VALUES ('order_1')), UNNEST(ARRAY['shirt', 'pants', 'hat'])")).toEqual([
      '{"EXPR$0":"order_1","EXPR$00":"hat"}',
      '{"EXPR$0":"order_1","EXPR$00":"pants"}',
      '{"EXPR$0":"order_1","EXPR$00":"shirt"}',
    ]);
    expect(await both("SELECT * FROM (VALUES ('order_1')) AS o (id) CROSS JOIN UNNEST(ARRAY['shirt', 'pants', 'hat']) WITH ORDINALITY AS t (product_name, product_index)")).toEqual([
      '{"id":"order_1","product_name":"hat","product_index":3}',
      '{"id":"order_1","product_name":"pants","product_index":2}',
      '{"id":"order_1","product_name":"shirt","product_index":1}',
    ]);
  }, 120_000);

  it('constant and zipped collections correlated with a table', async () => {
    expect(await both(`${DOCS} SELECT id, c FROM docs, UNNEST(ARRAY['p', 'q']) AS u (c) WHERE id < 3`)).toEqual(['{"id":1,"c":"p"}', '{"id":1,"c":"q"}', '{"id":2,"c":"p"}', '{"id":2,"c":"q"}']);
    expect(await both(`${DOCS} SELECT id, tag, n, o FROM docs LEFT JOIN UNNEST(tags, nums) WITH ORDINALITY AS u (tag, n, o) ON TRUE`)).toEqual([
      '{"id":1,"tag":"x","n":10,"o":1}',
      '{"id":1,"tag":"y","n":20,"o":2}',
      '{"id":1,"tag":"z","n":null,"o":3}',
      '{"id":2,"tag":null,"n":30,"o":1}',
      '{"id":3,"tag":null,"n":null,"o":null}',
    ]);
  }, 120_000);

  it('a join on the left of a Correlate takes its WHERE keys', async () => {
    const sql = `${DOCS} SELECT d1.id, t FROM docs d1, docs d2, UNNEST(d1.tags) AS u (t) WHERE d1.id = d2.id AND t <> 'y'`;
    expect(await both(sql)).toEqual(['{"id":1,"t":"x"}', '{"id":1,"t":"z"}']);
    expect(compileSql(sql, { functions: FUNCTIONS }).pipeline.explain()).toContain("+- Join(joinType=[InnerJoin], where=[=(id, id0)]");
  }, 120_000);

  it('an inner join ON condition filters inside the Correlate, as Flink plans it', async () => {
    const sql = `${DOCS} SELECT id, n FROM docs JOIN UNNEST(nums) AS u (n) ON n > id * 10`;
    expect(await both(sql)).toEqual(['{"id":1,"n":20}', '{"id":2,"n":30}']);
    expect(compileSql(sql, { functions: FUNCTIONS }).pipeline.explain()).toBe(
      [
        'Sink(table=[print], fields=[id, n])',
        '+- Calc(select=[id, n])',
        '   +- Correlate(invocation=[$UNNEST_ROWS$1(nums)], correlate=[table($UNNEST_ROWS$1(nums))], select=[id,line,tags,nums,n], rowType=[RecordType(INT id, VARCHAR(2147483647) line, ARRAY<VARCHAR(2147483647)> tags, ARRAY<INT> nums, INT n)], joinType=[INNER], condition=[>(n, *(id, 10))])',
        '      +- Source(table=[docs], fields=[id, line, tags, nums])',
      ].join('\n'),
    );
  }, 120_000);

  it('a table function: joined with a condition, LEFT, alone in FROM, and over an updating input', async () => {
    expect(await both(`${DOCS} SELECT id, w FROM docs JOIN LATERAL TABLE(split_words(line)) AS T (w, l) ON l > 1`)).toEqual(['{"id":1,"w":"aa"}', '{"id":1,"w":"ccc"}', '{"id":3,"w":"dd"}']);
    expect(await both(`${DOCS} SELECT id, word FROM docs LEFT JOIN LATERAL TABLE(split_words(line)) ON TRUE WHERE id > 1`)).toEqual(['{"id":2,"word":null}', '{"id":3,"word":"dd"}']);
    expect(await both(`${DOCS} SELECT * FROM LATERAL TABLE(split_words('p qq'))`)).toEqual(['{"word":"p","len":1}', '{"word":"qq","len":2}']);
    // Every change of the aggregate's row reaches the Correlate with its kind: each word of the
    // old LISTAGG value is retracted, each of the new one added.
    const updating = `${DOCS} SELECT word FROM (SELECT LISTAGG(line, ' ') AS lines FROM docs), LATERAL TABLE(split_words(lines))`;
    expect(await both(updating)).toEqual(['{"word":"aa"}', '{"word":"b"}', '{"word":"ccc"}', '{"word":"dd"}']);
    const changes = (await runEmbeddedSql(updating, { functions: FUNCTIONS, parallelism: 1 })).changes.map((c) => `${c.kind}${String(c.row.word)}`);
    expect(changes).toEqual(['+Iaa', '+Ib', '+Iccc', '-Uaa', '-Ub', '-Uccc', '+Uaa', '+Ub', '+Uccc', '-Uaa', '-Ub', '-Uccc', '+Uaa', '+Ub', '+Uccc', '+Udd']);
  }, 120_000);

  it('names what Flink does not take', () => {
    expect(sqlError(() => compileSql(`${DOCS} SELECT id FROM docs LEFT JOIN UNNEST(tags) AS u (t) ON t <> 'x'`, { functions: FUNCTIONS })).message).toBe("line 3:59: LEFT JOIN with UNNEST(…) supports only ON TRUE (as in Flink)");
    expect(sqlError(() => compileSql(`${DOCS} SELECT id FROM docs RIGHT JOIN UNNEST(tags) AS u (t) ON TRUE`, { functions: FUNCTIONS })).message).toBe('line 3:22: RIGHT JOIN with UNNEST(…) is not supported (Flink supports INNER, CROSS and LEFT … ON TRUE)');
    expect(sqlError(() => compileSql('SELECT * FROM UNNEST(ARRAY[1], 2) AS t (a, b)')).message).toBe('line 1:32: UNNEST takes an ARRAY or a MAP, not INT');
    expect(sqlError(() => compileSql('SELECT * FROM UNNEST(x) AS t (a)')).message).toMatch(/^line 1:22: unknown column 'x'/);
  });
});
