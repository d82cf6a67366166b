/**
 * ROW, ARRAY and MAP (Flink's docs: Data Types, Value Construction / Value Access / Collection
 * functions, and Queries › Joins › Array Expansion): nested JSON payloads read by the json
 * format, field access `info.name`, `arr[1]`, `map['k']`, CARDINALITY, the ROW(…) / ARRAY[…] /
 * MAP[…] constructors, and `CROSS JOIN UNNEST` (WITH ORDINALITY, LEFT JOIN … ON TRUE, ARRAY of
 * ROW, MAP). Every query runs on both runtimes; on the AWS one the nested values cross Kinesis
 * exchanges and live in DynamoDB state (the Top-N keeps ROW and MAP columns in state).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createRowDecoder, createRowEncoder } from '../../shared/core/codec.ts';
import { RecordError } from '../../shared/core/errors.ts';
import { formatType, parseType, schemaOf } from '../../shared/core/type-parse.ts';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { sqlError } from './helpers.ts';
import { inputDir, runEmbeddedSql, runLocalSql } from './run-both.ts';

const files = inputDir('nested');
afterAll(() => files.cleanup());

const t = files.file('t', [
  { id: 1, info: { name: 'ann', tags: ['x', 'y'] }, attrs: { color: 'red' }, items: [{ sku: 'a', price: '1.50' }, { sku: 'b', price: 2 }] },
  { id: 2, info: { name: 'bob', tags: [] }, attrs: {}, items: [] },
  { id: 3, info: { name: 'ann', tags: ['z'] }, attrs: { color: 'blue', size: 'L' }, items: [{ sku: 'a', price: '0.25' }] },
  { id: 4, info: null, attrs: null, items: null },
]);

const T = `CREATE TABLE t (
  id BIGINT,
  info ROW<name STRING, tags ARRAY<STRING>>,
  attrs MAP<STRING, STRING>,
  items ARRAY<ROW<sku STRING, price DECIMAL(10, 2)>>
) WITH ('connector' = 'filesystem', 'path' = '${t}', 'format' = 'json');
`;

/** Runs on both runtimes, checks they agree, returns the rows. */
async function both(sql: string): Promise<string[]> {
  const embedded = (await runEmbeddedSql(sql)).rows;
  const local = (await runLocalSql(sql)).rows;
  expect(local).toEqual(embedded);
  return embedded;
}

describe('ROW, ARRAY and MAP types', () => {
  it('parse and print as Flink spells them', () => {
    const row = parseType('ROW<name STRING, tags ARRAY<STRING NOT NULL>> NOT NULL');
    expect(formatType(row)).toBe('ROW<`name` VARCHAR(2147483647), `tags` ARRAY<VARCHAR(2147483647) NOT NULL>> NOT NULL');
    expect(parseType(formatType(row))).toEqual(row);
    expect(formatType(parseType('ROW(a INT, `b c` DECIMAL(5, 2))'))).toBe('ROW<`a` INT, `b c` DECIMAL(5, 2)>');
    expect(formatType(parseType('map<string, array<bigint>>'))).toBe('MAP<VARCHAR(2147483647), ARRAY<BIGINT>>');
    expect(() => parseType('MAP<INT, STRING>')).toThrow(/MAP keys must be STRING or VARCHAR here \(got INT\)/);
    expect(() => parseType('ARRAY<STRING')).toThrow(/expected '>' after the ARRAY element type/);
  });

  it('decode from nested JSON and encode back exactly (DECIMAL and TIMESTAMP inside)', () => {
    const schema = schemaOf({ r: 'ROW<d DECIMAL(10, 2), ts TIMESTAMP(3), xs ARRAY<INT>>', m: 'MAP<STRING, DECIMAL(4, 1)>' });
    const decode = createRowDecoder(schema);
    const row = decode({ r: { d: '1.5', ts: '2024-01-01 00:00:01', xs: [1, null, '3'] }, m: { a: 2, constructor: '0.5' } });
    expect(row).toEqual({ r: { d: 150n, ts: 1704067201000, xs: [1, null, 3] }, m: { a: 20n, constructor: 5n } });
    expect(createRowEncoder(schema)(row)).toEqual({ r: { d: '1.50', ts: '2024-01-01 00:00:01.000', xs: [1, null, 3] }, m: { a: '2.0', constructor: '0.5' } });
    expect(decode(createRowEncoder(schema)(row))).toEqual(row);
    const bad = (json: unknown): string => {
      try {
        decode(json, 'f.jsonl:3');
      } catch (e) {
        if (e instanceof RecordError) return e.message;
      }
      return 'no error';
    };
    expect(bad({ r: { d: 'x' } })).toBe("f.jsonl:3: field 'r.d' (DECIMAL(10, 2)): expected a decimal number, got \"x\"");
    expect(bad({ r: [1] })).toMatch(/field 'r' \(ROW<.*\): expected a JSON object, got \[1\]/);
    expect(bad({ r: { xs: 'no' } })).toMatch(/field 'r.xs' \(ARRAY<INT>\): expected a JSON array/);
  });
});

describe('nested values in queries, on both runtimes', () => {
  it('field access, [ ] on ARRAY and MAP, CARDINALITY and the constructors', async () => {
    const sql = `${T} SELECT id, info.name AS name, info.tags[1] AS first_tag, CARDINALITY(info.tags) AS n_tags, attrs['color'] AS color,
      CARDINALITY(attrs) AS n_attrs, ROW(id, info.name) AS r, ARRAY[id, id * 2] AS arr, MAP['k', info.name]['k'] AS m FROM t`;
    expect(await both(sql)).toEqual([
      '{"id":1,"name":"ann","first_tag":"x","n_tags":2,"color":"red","n_attrs":1,"r":{"EXPR$0":1,"EXPR$1":"ann"},"arr":[1,2],"m":"ann"}',
      '{"id":2,"name":"bob","first_tag":null,"n_tags":0,"color":null,"n_attrs":0,"r":{"EXPR$0":2,"EXPR$1":"bob"},"arr":[2,4],"m":"bob"}',
      '{"id":3,"name":"ann","first_tag":"z","n_tags":1,"color":"blue","n_attrs":2,"r":{"EXPR$0":3,"EXPR$1":"ann"},"arr":[3,6],"m":"ann"}',
      '{"id":4,"name":null,"first_tag":null,"n_tags":null,"color":null,"n_attrs":null,"r":{"EXPR$0":4,"EXPR$1":null},"arr":[4,8],"m":null}',
    ]);
  }, 120_000);

  it('CAST a ROW to a ROW of as many fields (by position, into its names), an ARRAY and a MAP by their parts', async () => {
    const sql = `${T} SELECT id, CAST(info AS ROW<who STRING, labels ARRAY<STRING>>) AS r,
      CAST(items AS ARRAY<ROW<s STRING, p DECIMAL(10, 3)>>) AS prices, CAST(MAP['n', id] AS MAP<STRING, DOUBLE>) AS m FROM t WHERE id < 3`;
    expect(await both(sql)).toEqual([
      '{"id":1,"r":{"who":"ann","labels":["x","y"]},"prices":[{"s":"a","p":"1.500"},{"s":"b","p":"2.000"}],"m":{"n":1}}',
      '{"id":2,"r":{"who":"bob","labels":[]},"prices":[],"m":{"n":2}}',
    ]);
    expect(sqlError(() => compileSql(`${T} SELECT CAST(info AS ROW<who STRING>) FROM t`)).message).toMatch(
      /cannot cast ROW<name STRING, tags ARRAY<STRING>> to ROW<who STRING> in .*: a ROW casts to a ROW of as many fields, an ARRAY or MAP to one of its kind/,
    );
  }, 120_000);

  it('CROSS JOIN UNNEST of a ROW field (the acceptance query) and LEFT JOIN UNNEST … ON TRUE', async () => {
    expect(await both(`${T} SELECT id, info.name, tag FROM t CROSS JOIN UNNEST(info.tags) AS u (tag)`)).toEqual([
      '{"id":1,"name":"ann","tag":"x"}',
      '{"id":1,"name":"ann","tag":"y"}',
      '{"id":3,"name":"ann","tag":"z"}',
    ]);
    expect(await both(`${T} SELECT t.id, u.tag FROM t LEFT JOIN UNNEST(t.info.tags) AS u (tag) ON TRUE`)).toEqual([
      '{"id":1,"tag":"x"}',
      '{"id":1,"tag":"y"}',
      '{"id":2,"tag":null}',
      '{"id":3,"tag":"z"}',
      '{"id":4,"tag":null}',
    ]);
  }, 120_000);

  it('UNNEST an ARRAY of ROW WITH ORDINALITY, a MAP, and aggregate the elements after a shuffle', async () => {
    expect(await both(`${T} SELECT id, sku, price, n FROM t CROSS JOIN UNNEST(items) WITH ORDINALITY AS u (sku, price, n)`)).toEqual([
      '{"id":1,"sku":"a","price":"1.50","n":1}',
      '{"id":1,"sku":"b","price":"2.00","n":2}',
      '{"id":3,"sku":"a","price":"0.25","n":1}',
    ]);
    expect(await both(`${T} SELECT id, k, v FROM t, UNNEST(attrs) AS u (k, v) WHERE v <> 'L'`)).toEqual([
      '{"id":1,"k":"color","v":"red"}',
      '{"id":3,"k":"color","v":"blue"}',
    ]);
    expect(await both(`${T} SELECT sku, SUM(price) AS total, COUNT(*) AS c FROM t CROSS JOIN UNNEST(items) AS u (sku, price) GROUP BY sku`)).toEqual([
      '{"sku":"a","total":"1.75","c":2}',
      '{"sku":"b","total":"2.00","c":1}',
    ]);
  }, 120_000);

  it('ROW and MAP columns through an exchange into Top-N state', async () => {
    const sql = `${T} SELECT id, name, info, attrs FROM (
      SELECT id, name, info, attrs, ROW_NUMBER() OVER (PARTITION BY name ORDER BY id DESC) AS rn
      FROM (SELECT id, info.name AS name, info, attrs FROM t WHERE info IS NOT NULL)) WHERE rn = 1`;
    expect(await both(sql)).toEqual([
      '{"id":2,"name":"bob","info":{"name":"bob","tags":[]},"attrs":{}}',
      '{"id":3,"name":"ann","info":{"name":"ann","tags":["z"]},"attrs":{"color":"blue","size":"L"}}',
    ]);
  }, 120_000);

  it('explains UNNEST as a Correlate and names what does not fit', () => {
    expect(compileSql(`${T} SELECT id, tag FROM t CROSS JOIN UNNEST(info.tags) AS u (tag)`).pipeline.explain()).toContain(
      "+- Correlate(invocation=[$UNNEST_ROWS$1(DOT(info, 'tags'))], correlate=[table($UNNEST_ROWS$1(DOT(info, 'tags')))], select=[id,info,attrs,items,tag], rowType=[RecordType(BIGINT id, ROW<`name` VARCHAR(2147483647), `tags` ARRAY<VARCHAR(2147483647)>> info, MAP<VARCHAR(2147483647), VARCHAR(2147483647)> attrs, ARRAY<ROW<`sku` VARCHAR(2147483647), `price` DECIMAL(10, 2)>> items, VARCHAR(2147483647) tag)], joinType=[INNER])",
    );
    expect(sqlError(() => compileSql(`${T} SELECT id FROM t CROSS JOIN UNNEST(id) AS u (x)`)).message).toMatch(/UNNEST takes an ARRAY or a MAP, not BIGINT/);
    expect(sqlError(() => compileSql(`${T} SELECT id FROM t CROSS JOIN UNNEST(items) AS u (x)`)).message).toMatch(/gives 2 columns, but the alias names 1 \(x\)/);
    expect(sqlError(() => compileSql(`${T} SELECT info.nope FROM t`)).message).toMatch(/has no field 'nope' \(fields: name, tags\)/);
    expect(sqlError(() => compileSql(`${T} SELECT id[1] FROM t`)).message).toMatch(/\[ \] applies to an ARRAY or a MAP, not BIGINT/);
  });
});
