/** The SQL reader: tokens, every statement and construct as AST, and its error positions. */
import { readdirSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SqlExpr, SqlQuery, SqlStatement } from '../../shared/sql/ast.ts';
import { tokenize } from '../../shared/sql/reader/lexer.ts';
import { readScript } from '../../shared/sql/reader/read-script.ts';
import { ORDERS, example, sqlError } from './helpers.ts';

const EXAMPLES = readdirSync(new URL('../../examples/sql/', import.meta.url)).filter((f) => f.endsWith('.sql'));

/** The one statement of `text`. */
function one(text: string): SqlStatement {
  const all = readScript(text);
  expect(all).toHaveLength(1);
  return all[0]!;
}

/** The query of a one-statement SELECT script. */
function query(text: string): SqlQuery {
  const s = one(text);
  if (s.k !== 'select') throw new Error(`expected a SELECT, got ${s.k}`);
  return s.query;
}

/** The first select item of `SELECT <expr> FROM t`. */
function expr(text: string): SqlExpr {
  const q = query(`SELECT ${text} FROM t`);
  if (q.k !== 'select') throw new Error('expected a plain SELECT');
  return q.items[0]!.expr;
}

/** An AST without positions, for comparing shapes. */
function shape(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v, (k, x: unknown) => (k === 'pos' ? undefined : x instanceof Map ? Object.fromEntries(x) : x)));
}

const message = (text: string): string => sqlError(() => readScript(text)).message;

describe('tokenizer', () => {
  it('keeps positions, quoted names, doubled quotes and hints', () => {
    const tokens = tokenize("SELECT /*+ LOOKUP('table'='t') */ `day`,\n  'it''s' -- note\nFROM t");
    expect(tokens.map((t) => t.kind)).toEqual(['ident', 'hint', 'qident', 'op', 'string', 'ident', 'ident', 'eof']);
    expect(tokens[4]).toMatchObject({ text: "it's", line: 2, column: 3 });
    expect(tokens[5]).toMatchObject({ upper: 'FROM', line: 3, column: 1 });
  });

  it('reads doubled back-quotes inside quoted names', () => {
    expect(tokenize('SELECT `a``b`, `x` FROM t').filter((t) => t.kind === 'qident').map((t) => t.text)).toEqual(['a`b', 'x']);
    expect(sqlError(() => tokenize('SELECT `ab')).message).toBe('line 1:8: unterminated quoted identifier');
  });

  it('points at unterminated strings', () => {
    expect(sqlError(() => tokenize("SELECT 'abc")).message).toBe('line 1:8: unterminated string literal');
  });
});

describe('statements', () => {
  it('reads every statement kind', () => {
    const stmts = readScript(`${ORDERS}
      CREATE VIEW v AS SELECT merchandiseId, quantity FROM orders WHERE quantity > 1;
      SET 'table.exec.topn.cache-size' = '100';
      INSERT INTO out SELECT * FROM v;
      SELECT CASE WHEN a BETWEEN 1 AND 2 THEN 'x' ELSE 'y' END, CAST(b AS BIGINT), SUBSTRING(c FROM 1 FOR 2) FROM t WHERE d IN (1, 2) AND e LIKE 'a%' AND f IS NOT NULL;
      RESET 'table.exec.topn.cache-size';
      RESET;
      CREATE TEMPORARY SYSTEM FUNCTION count_char AS 'udf/count-char.ts#countChar' LANGUAGE TYPESCRIPT;`);
    expect(stmts.map((s) => s.k)).toEqual(['createTable', 'createView', 'set', 'insert', 'select', 'reset', 'reset', 'createFunction']);
    const table = stmts[0];
    expect(table?.k === 'createTable' && table.watermark?.column).toBe('log_ts');
    expect(table?.k === 'createTable' && table.options.get('connector')?.value).toBe('filesystem');
    expect(shape(stmts[7])).toMatchObject({ name: 'count_char', identifier: 'udf/count-char.ts#countChar', language: 'TYPESCRIPT' });
    expect(stmts[3]?.text).toBe('INSERT INTO out SELECT * FROM v');
  });

  it('reads computed columns, PROCTIME, metadata, comments and primary keys', () => {
    const t = one(
      "CREATE TABLE t (a INT COMMENT 'id', b AS a * 2, pt AS PROCTIME(), m STRING METADATA FROM 'k' VIRTUAL, n BIGINT METADATA, d DECIMAL(10, 2) NOT NULL, PRIMARY KEY (a) NOT ENFORCED) COMMENT 'c' WITH ('connector' = 'print')",
    );
    if (t.k !== 'createTable') throw new Error('expected CREATE TABLE');
    expect(t.columns.map((c) => [c.name, c.type ?? c.computed?.k])).toEqual([
      ['a', 'INT'],
      ['b', 'bin'],
      ['pt', 'call'],
      ['m', 'STRING'],
      ['n', 'BIGINT'],
      ['d', 'DECIMAL(10, 2) NOT NULL'],
    ]);
    expect(t.columns[0]?.comment).toBe('id');
    expect(t.columns[3]).toMatchObject({ metadata: true, metadataKey: 'k', virtual: true });
    expect(t.columns[4]).toMatchObject({ metadata: true });
    expect(t.columns[4]?.metadataKey).toBeUndefined();
    expect(t.primaryKey).toEqual(['a']);
  });

  it('reads nested types as the type parser takes them', () => {
    const t = one("CREATE TABLE t (info ROW<name STRING, tags ARRAY<STRING>>, m MAP<STRING, ARRAY<INT>>, r ROW(a INT, b STRING), ts TIMESTAMP(3) WITH LOCAL TIME ZONE, l TIMESTAMP_LTZ(3)) WITH ('connector' = 'print')");
    expect(t.k === 'createTable' && t.columns.map((c) => c.type)).toEqual([
      'ROW<name STRING, tags ARRAY<STRING>>',
      'MAP<STRING, ARRAY<INT>>',
      'ROW(a INT, b STRING)',
      'TIMESTAMP(3) WITH LOCAL TIME ZONE',
      'TIMESTAMP_LTZ(3)',
    ]);
  });

  it('reads CREATE TABLE … LIKE with its options, and PARTITIONED BY', () => {
    const t = one("CREATE TABLE derived (x INT) PARTITIONED BY (x) WITH ('path' = 'p') LIKE base (INCLUDING ALL EXCLUDING OPTIONS, OVERWRITING WATERMARKS)");
    expect(shape(t)).toMatchObject({
      k: 'createTable',
      partitionedBy: [{ name: 'x' }],
      like: { name: 'base', options: [{ strategy: 'INCLUDING', what: 'ALL' }, { strategy: 'EXCLUDING', what: 'OPTIONS' }, { strategy: 'OVERWRITING', what: 'WATERMARKS' }] },
    });
    expect(shape(one("CREATE TABLE d WITH ('path' = 'p') LIKE base"))).toMatchObject({ columns: [], like: { name: 'base', options: [] } });
  });

  it('checks the LIKE options as Flink does', () => {
    expect(message("CREATE TABLE d WITH ('a' = 'b') LIKE base (INCLUDING ALL EXCLUDING ALL)")).toBe('line 1:33: Each like option feature can be declared only once.');
    expect(message("CREATE TABLE d WITH ('a' = 'b') LIKE base (OVERWRITING PARTITIONS)")).toBe("line 1:33: Illegal merging strategy 'OVERWRITING' for 'PARTITIONS' option.");
    expect(message("CREATE TABLE d WITH ('a' = 'b') LIKE base (OVERWRITING ALL)")).toBe("line 1:33: Illegal merging strategy 'OVERWRITING' for 'ALL' option.");
  });

  it('reads CTAS, IF NOT EXISTS, TEMPORARY and qualified names', () => {
    expect(shape(one("CREATE TABLE IF NOT EXISTS cat.db.t WITH ('connector' = 'print') AS SELECT a FROM s"))).toMatchObject({
      k: 'createTable',
      name: 't',
      qualifier: ['cat', 'db'],
      ifNotExists: true,
      asQuery: { query: { k: 'select' }, text: 'SELECT a FROM s' },
    });
    expect(shape(one('CREATE TEMPORARY VIEW IF NOT EXISTS v AS SELECT 1'))).toMatchObject({ k: 'createView', temporary: true, ifNotExists: true, queryText: 'SELECT 1' });
    expect(shape(one("CREATE TEMPORARY SYSTEM FUNCTION IF NOT EXISTS f AS 'm.ts#f'"))).toMatchObject({ k: 'createFunction', temporary: true, system: true, ifNotExists: true });
    expect(shape(one('SELECT * FROM default_catalog.default_database.t'))).toMatchObject({ query: { from: { k: 'table', name: 't', qualifier: ['default_catalog', 'default_database'] } } });
  });

  it('reads the catalog statements', () => {
    expect(shape(one("SHOW TABLES FROM db1 NOT LIKE '%n'"))).toMatchObject({ k: 'show', what: 'TABLES', from: { name: 'db1' }, like: { pattern: '%n', not: true, ignoreCase: false } });
    expect(shape(one("SHOW USER FUNCTIONS ILIKE 'F%'"))).toMatchObject({ k: 'show', what: 'USER FUNCTIONS', like: { ignoreCase: true } });
    expect(shape(one('SHOW COLUMNS IN c.d.orders'))).toMatchObject({ k: 'show', what: 'COLUMNS', target: { name: 'orders', qualifier: ['c', 'd'] } });
    expect(shape(one('SHOW CREATE VIEW v'))).toMatchObject({ k: 'show', what: 'CREATE VIEW', target: { name: 'v' } });
    expect(shape(one('DESC orders'))).toMatchObject({ k: 'describe', target: { name: 'orders' }, extended: false });
    expect(shape(one('DROP TEMPORARY VIEW IF EXISTS v'))).toMatchObject({ k: 'drop', what: 'VIEW', temporary: true, ifExists: true });
    expect(shape(one('DROP DATABASE db1 CASCADE'))).toMatchObject({ k: 'drop', what: 'DATABASE', cascade: true });
    expect(shape(one('USE CATALOG default_catalog'))).toMatchObject({ k: 'use', catalog: true, target: { name: 'default_catalog' } });
    expect(shape(one("CREATE DATABASE IF NOT EXISTS db1 COMMENT 'x'"))).toMatchObject({ k: 'createDatabase', ifNotExists: true, comment: 'x', target: { name: 'db1' } });
    expect(shape(one("ALTER TABLE t ADD (ts TIMESTAMP(3), c STRING AFTER b, PRIMARY KEY (a) NOT ENFORCED, WATERMARK FOR ts AS ts - INTERVAL '1' HOUR)"))).toMatchObject({
      k: 'alterTable',
      action: {
        k: 'add',
        components: [
          { k: 'column', column: { name: 'ts', type: 'TIMESTAMP(3)' } },
          { k: 'column', column: { name: 'c' }, position: { after: { name: 'b' } } },
          { k: 'primaryKey', columns: [{ name: 'a' }] },
          { k: 'watermark', column: 'ts' },
        ],
      },
    });
    expect(shape(one('ALTER TABLE IF EXISTS t RENAME a TO b'))).toMatchObject({ k: 'alterTable', ifExists: true, action: { k: 'renameColumn', from: { name: 'a' }, to: { name: 'b' } } });
    expect(shape(one("ALTER TABLE t RESET ('k')"))).toMatchObject({ action: { k: 'resetOptions', keys: [{ value: 'k' }] } });
    expect(shape(one('ALTER VIEW v AS SELECT 2'))).toMatchObject({ k: 'alterView', action: { k: 'as', queryText: 'SELECT 2' } });
  });

  it('reads view column lists, INSERT … VALUES, INSERT OVERWRITE and column lists', () => {
    expect(shape(one('CREATE VIEW v (x, y) AS SELECT a, b FROM t'))).toMatchObject({ k: 'createView', columns: [{ name: 'x' }, { name: 'y' }] });
    const ins = one("INSERT INTO t (a, b) VALUES (1, 'x'), (2, 'y')");
    expect(shape(ins)).toMatchObject({ k: 'insert', table: 't', columns: [{ name: 'a' }, { name: 'b' }], query: { k: 'values', rows: [[{ k: 'num', text: '1' }, { k: 'str', value: 'x' }], [{ k: 'num' }, { k: 'str' }]] } });
    expect(shape(one('INSERT OVERWRITE t SELECT * FROM s'))).toMatchObject({ k: 'insert', overwrite: true });
    expect(shape(one('INSERT INTO t (SELECT * FROM s)'))).toMatchObject({ k: 'insert', query: { k: 'select' } });
  });

  it('reads statement sets in both forms, and EXPLAIN', () => {
    const both = readScript(`EXECUTE STATEMENT SET BEGIN
      INSERT INTO a SELECT * FROM s;
      INSERT INTO b SELECT * FROM s;
    END;
    BEGIN STATEMENT SET;
      INSERT INTO c SELECT * FROM s;
    END;`);
    expect(both.map((s) => (s.k === 'statementSet' ? s.inserts.map((i) => i.table) : s.k))).toEqual([['a', 'b'], ['c']]);
    const set = both[0];
    expect(set?.k === 'statementSet' && set.inserts[1]?.text).toBe('INSERT INTO b SELECT * FROM s');
    expect(shape(one('EXPLAIN PLAN FOR SELECT * FROM t'))).toMatchObject({ k: 'explain', details: [], statement: { k: 'select', text: 'SELECT * FROM t' } });
    expect(shape(one('EXPLAIN CHANGELOG_MODE, ESTIMATED_COST INSERT INTO o SELECT * FROM t'))).toMatchObject({ details: ['CHANGELOG_MODE', 'ESTIMATED_COST'], statement: { k: 'insert' } });
    expect(shape(one('EXPLAIN EXECUTE STATEMENT SET BEGIN INSERT INTO o SELECT * FROM t; END'))).toMatchObject({ statement: { k: 'statementSet' } });
  });

  it('reads every example script', () => {
    for (const f of EXAMPLES) expect(readScript(example(f)).length, f).toBeGreaterThan(1);
  });
});

describe('queries', () => {
  it('reads WITH, UNION ALL / UNION / INTERSECT / EXCEPT with their precedence', () => {
    const q = query('WITH u (x) AS (SELECT a FROM t UNION ALL SELECT a FROM s), w AS (SELECT 1) SELECT x FROM u');
    expect(shape(q)).toMatchObject({ k: 'with', ctes: [{ name: 'u', columns: [{ name: 'x' }], query: { k: 'setOp', op: 'UNION', all: true } }, { name: 'w' }], body: { k: 'select' } });
    const s = query('SELECT a FROM t UNION SELECT a FROM s INTERSECT SELECT a FROM r EXCEPT SELECT a FROM q');
    expect(shape(s)).toMatchObject({ k: 'setOp', op: 'EXCEPT', left: { k: 'setOp', op: 'UNION', all: false, right: { k: 'setOp', op: 'INTERSECT' } } });
  });

  it('reads VALUES as a query and as a FROM item with column aliases', () => {
    expect(shape(query('VALUES (1), (2)'))).toEqual({ k: 'values', rows: [[{ k: 'num', text: '1' }], [{ k: 'num', text: '2' }]] });
    const q = query('SELECT v FROM (VALUES (1), (2), (3)) AS t (v)');
    expect(shape(q)).toMatchObject({ k: 'select', from: { k: 'subquery', alias: 't', columns: [{ name: 'v' }], query: { k: 'values' } } });
  });

  it('reads SELECT without FROM as a SELECT from one empty row', () => {
    expect(shape(query("SELECT CHAR_LENGTH('abc')"))).toMatchObject({ from: { k: 'subquery', query: { k: 'values', rows: [[]] } } });
  });

  it('reads ORDER BY, LIMIT, OFFSET and FETCH', () => {
    expect(shape(query('SELECT a FROM t ORDER BY ts DESC NULLS FIRST, a LIMIT 3 OFFSET 1'))).toMatchObject({
      k: 'ordered',
      query: { k: 'select' },
      orderBy: [{ direction: 'DESC', nulls: 'FIRST' }, { direction: 'ASC' }],
      limit: { k: 'num', text: '3' },
      offset: { k: 'num', text: '1' },
    });
    expect(shape(query('SELECT a FROM t FETCH FIRST 5 ROWS ONLY'))).toMatchObject({ k: 'ordered', orderBy: [], limit: { text: '5' } });
  });

  it('expands GROUPING SETS, ROLLUP and CUBE to grouping sets', () => {
    const sets = (text: string): unknown => {
      const q = query(`SELECT count(*) FROM t GROUP BY ${text}`);
      if (q.k !== 'select') throw new Error('expected SELECT');
      return [q.groupBy.map((e) => (e.k === 'id' ? e.parts.join('.') : e.k)), q.groupingSets?.map((s) => s.map((e) => (e.k === 'id' ? e.parts.join('.') : e.k)))];
    };
    expect(sets('a, b')).toEqual([['a', 'b'], undefined]);
    expect(sets('GROUPING SETS ((a, b), (a), ())')).toEqual([['a', 'b'], [['a', 'b'], ['a'], []]]);
    expect(sets('ROLLUP (a, b)')).toEqual([['a', 'b'], [['a', 'b'], ['a'], []]]);
    expect(sets('CUBE (a, b)')).toEqual([['a', 'b'], [['a', 'b'], ['a'], ['b'], []]]);
    expect(sets('k, ROLLUP (a)')).toEqual([['k', 'a'], [['k', 'a'], ['k']]]);
    expect(sets('GROUPING SETS (a, ROLLUP (b))')).toEqual([['a', 'b'], [['a'], ['b'], []]]);
  });

  it('reads OVER windows with ROWS and RANGE frames, and named windows', () => {
    const e = expr('SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)');
    expect(shape(e)).toMatchObject({ k: 'call', name: 'SUM', over: { partitionBy: [{ k: 'id' }], orderBy: [{ direction: 'ASC' }], frame: { unit: 'ROWS', start: { kind: 'UNBOUNDED PRECEDING' }, end: { kind: 'CURRENT ROW' } } } });
    const r = expr("AVG(v) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW)");
    expect(shape(r)).toMatchObject({ over: { frame: { unit: 'RANGE', start: { kind: 'PRECEDING', offset: { k: 'interval', value: '1', unit: 'HOUR' } } } } });
    expect(shape(expr('COUNT(*) OVER (ORDER BY ts ROWS 2 PRECEDING)'))).toMatchObject({ over: { frame: { start: { kind: 'PRECEDING', offset: { text: '2' } }, end: { kind: 'CURRENT ROW' } } } });
    const named = query('SELECT SUM(v) OVER w AS s, MAX(v) OVER w FROM t WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)');
    if (named.k !== 'select') throw new Error('expected SELECT');
    expect(shape(named.items.map((i) => i.expr))).toMatchObject([{ over: { partitionBy: [{ parts: ['k'] }], frame: { unit: 'ROWS' } } }, { over: { frame: { unit: 'ROWS' } } }]);
    expect(message('SELECT SUM(v) OVER w FROM t')).toBe("line 1:20: unknown window 'w': declare it with WINDOW w AS (…)");
  });

  it('reads joins of every type, ON and USING, comma joins, lookups and hints', () => {
    const q = query(
      "SELECT /*+ STATE_TTL('o' = '1d') */ * FROM o JOIN p ON o.a = p.a LEFT OUTER JOIN q USING (a) RIGHT JOIN r ON TRUE FULL OUTER JOIN s ON 1 = 1 CROSS JOIN u, v AS w JOIN d FOR SYSTEM_TIME AS OF w.pt AS dd ON w.a = dd.a",
    );
    if (q.k !== 'select') throw new Error('expected SELECT');
    const types: string[] = [];
    for (let f = q.from; f.k === 'join'; f = f.left) types.unshift(f.joinType + (f.systemTime ? ' AS OF' : '') + (f.using ? ' USING' : ''));
    expect(types).toEqual(['INNER', 'LEFT USING', 'RIGHT', 'FULL', 'CROSS', 'CROSS', 'INNER AS OF']);
    expect(shape(q.hints)).toEqual([{ name: 'STATE_TTL', options: { o: '1d' } }]);
    expect(shape(query("SELECT * FROM t /*+ OPTIONS('k' = 'v') */ AS x"))).toMatchObject({ from: { k: 'table', name: 't', alias: 'x', hints: [{ name: 'OPTIONS', options: { k: 'v' } }] } });
  });

  it('reads window TVFs, positional and with named parameters, SESSION with PARTITION BY', () => {
    const tvf = (text: string): unknown => {
      const q = query(`SELECT * FROM TABLE(${text})`);
      return q.k === 'select' ? shape(q.from) : undefined;
    };
    expect(tvf("TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' MINUTES)")).toMatchObject({ k: 'tvf', fn: 'TUMBLE', input: { name: 't' }, timeColumn: { name: 'ts' }, args: [{ k: 'interval', value: '10', unit: 'MINUTES' }] });
    expect(tvf("HOP(DATA => TABLE t, TIMECOL => DESCRIPTOR(ts), SIZE => INTERVAL '10' MINUTE, SLIDE => INTERVAL '5' MINUTE)")).toMatchObject({ fn: 'HOP', args: [{ value: '5' }, { value: '10' }] });
    expect(tvf("TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' MINUTE, INTERVAL '-1' MINUTE)")).toMatchObject({ args: [{ value: '10' }, { value: '-1' }] });
    expect(tvf("SESSION(TABLE bid PARTITION BY (bidder, auction), DESCRIPTOR(date_time), INTERVAL '10' SECOND)")).toMatchObject({ fn: 'SESSION', partitionBy: [{ name: 'bidder' }, { name: 'auction' }] });
    expect(tvf("CUMULATE(TABLE (SELECT * FROM t), DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '1' HOUR)")).toMatchObject({ fn: 'CUMULATE', input: { k: 'subquery' } });
    expect(tvf("TUMBLE((SELECT * FROM t), DESCRIPTOR(ts), INTERVAL '1' MINUTE)")).toMatchObject({ input: { k: 'subquery' } });
    expect(message("SELECT * FROM TABLE(TUMBLE(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '1' SECOND))")).toMatch(/TUMBLE takes no PARTITION BY/);
  });

  it('reads table functions, LATERAL, UNNEST and IN / EXISTS subqueries', () => {
    expect(shape(query('SELECT * FROM t, LATERAL TABLE(split(s)) AS x (w, n)'))).toMatchObject({ from: { k: 'join', joinType: 'CROSS', right: { k: 'tableFunction', lateral: true, call: { name: 'SPLIT' }, alias: 'x', columns: [{ name: 'w' }, { name: 'n' }] } } });
    expect(shape(query('SELECT * FROM t LEFT JOIN LATERAL TABLE(f(s)) AS x (w) ON TRUE'))).toMatchObject({ from: { joinType: 'LEFT', right: { k: 'tableFunction' }, on: { k: 'bool', value: true } } });
    expect(shape(query('SELECT * FROM t CROSS JOIN UNNEST(t.tags) WITH ORDINALITY AS u (tag, n)'))).toMatchObject({ from: { joinType: 'CROSS', right: { k: 'unnest', ordinality: true, columns: [{ name: 'tag' }, { name: 'n' }] } } });
    const w = query('SELECT * FROM t WHERE a IN (SELECT b FROM s) AND NOT EXISTS (SELECT * FROM r WHERE r.x = t.x) AND c NOT IN (VALUES (1))');
    expect(shape(w)).toMatchObject({ where: { k: 'bin', left: { left: { k: 'inQuery', not: false }, right: { k: 'not', arg: { k: 'exists' } } }, right: { k: 'inQuery', not: true, query: { k: 'values' } } } });
  });
});

describe('expressions', () => {
  it('reads special function syntax into calls with keyword arguments', () => {
    const call = (text: string): unknown => shape(expr(text));
    const kw = (word: string) => ({ k: 'keyword', word });
    const id = (name: string) => ({ k: 'id', parts: [name] });
    expect(call('EXTRACT(HOUR FROM ts)')).toEqual({ k: 'call', name: 'EXTRACT', args: [kw('HOUR'), id('ts')], distinct: false, star: false });
    expect(call('FLOOR(ts TO HOUR)')).toMatchObject({ name: 'FLOOR', args: [id('ts'), kw('HOUR')] });
    expect(call('CEIL(ts TO DAY)')).toMatchObject({ name: 'CEIL', args: [id('ts'), kw('DAY')] });
    expect(call("TRIM(BOTH ' ' FROM s)")).toMatchObject({ name: 'TRIM', args: [kw('BOTH'), { k: 'str', value: ' ' }, id('s')] });
    expect(call('TRIM(LEADING FROM s)')).toMatchObject({ args: [kw('LEADING'), { value: ' ' }, id('s')] });
    expect(call("TRIM('x' FROM s)")).toMatchObject({ args: [kw('BOTH'), { value: 'x' }, id('s')] });
    expect(call('TRIM(s)')).toMatchObject({ args: [id('s')] });
    expect(call('SUBSTRING(s FROM 1 FOR 2)')).toMatchObject({ name: 'SUBSTRING', args: [id('s'), { text: '1' }, { text: '2' }] });
    expect(call("POSITION('b' IN s)")).toMatchObject({ name: 'POSITION', args: [{ value: 'b' }, id('s')] });
    expect(call("OVERLAY(s PLACING 'x' FROM 2 FOR 1)")).toMatchObject({ name: 'OVERLAY', args: [id('s'), { value: 'x' }, { text: '2' }, { text: '1' }] });
    expect(call('TIMESTAMPADD(SQL_TSI_HOUR, 2, ts)')).toMatchObject({ name: 'TIMESTAMPADD', args: [kw('HOUR'), { text: '2' }, id('ts')] });
    expect(call('TIMESTAMPDIFF(DAY, a, b)')).toMatchObject({ name: 'TIMESTAMPDIFF', args: [kw('DAY'), id('a'), id('b')] });
    expect(call('TRY_CAST(n AS INT)')).toEqual({ k: 'cast', expr: id('n'), type: 'INT', safe: true });
    expect(call('CAST(n AS DECIMAL(10, 2))')).toEqual({ k: 'cast', expr: id('n'), type: 'DECIMAL(10, 2)' });
  });

  it('reads the JSON functions with their clauses', () => {
    const call = (text: string): unknown => shape(expr(text));
    expect(call("JSON_VALUE(j, '$.a' RETURNING INT DEFAULT 0 ON EMPTY ERROR ON ERROR)")).toMatchObject({
      name: 'JSON_VALUE',
      returning: 'INT',
      args: [{ k: 'id' }, { value: '$.a' }, { k: 'keyword', word: 'DEFAULT ON EMPTY' }, { k: 'num', text: '0' }, { k: 'keyword', word: 'ERROR ON ERROR' }],
    });
    expect(call("JSON_QUERY(j, '$.a' WITH CONDITIONAL ARRAY WRAPPER EMPTY ARRAY ON EMPTY)")).toMatchObject({ args: [{}, {}, { word: 'WITH CONDITIONAL WRAPPER' }, { word: 'EMPTY ARRAY ON EMPTY' }] });
    expect(call("JSON_EXISTS(j, 'strict $.a' FALSE ON ERROR)")).toMatchObject({ args: [{}, {}, { word: 'FALSE ON ERROR' }] });
    expect(call("JSON_OBJECT(KEY 'a' VALUE 1, 'b' VALUE s ABSENT ON NULL)")).toMatchObject({ name: 'JSON_OBJECT', args: [{ value: 'a' }, { text: '1' }, { value: 'b' }, { k: 'id' }, { word: 'ABSENT ON NULL' }] });
    expect(call('JSON_OBJECT()')).toMatchObject({ name: 'JSON_OBJECT', args: [] });
    expect(call("JSON_ARRAY(1, 'a' NULL ON NULL)")).toMatchObject({ name: 'JSON_ARRAY', args: [{ text: '1' }, { value: 'a' }, { word: 'NULL ON NULL' }] });
    expect(call('s IS JSON OBJECT')).toEqual({ k: 'isjson', expr: { k: 'id', parts: ['s'] }, kind: 'OBJECT', not: false });
    expect(call('s IS NOT JSON')).toMatchObject({ k: 'isjson', kind: 'VALUE', not: true });
  });

  it('reads IS TRUE / FALSE / UNKNOWN / DISTINCT FROM, CASE value lists and niladic functions', () => {
    expect(shape(expr('(x > 0) IS TRUE'))).toMatchObject({ k: 'isbool', value: true, not: false, expr: { k: 'bin', op: '>' } });
    expect(shape(expr('b IS NOT FALSE'))).toMatchObject({ k: 'isbool', value: false, not: true });
    expect(shape(expr('b IS UNKNOWN'))).toMatchObject({ k: 'isnull', not: false });
    expect(shape(expr('a IS NOT DISTINCT FROM b'))).toMatchObject({ k: 'distinctFrom', not: true });
    expect(shape(expr("CASE x WHEN 1, 7 THEN 'a' WHEN 2 THEN 'c' ELSE 'b' END"))).toEqual({
      k: 'case',
      whens: [
        [{ k: 'in', expr: { k: 'id', parts: ['x'] }, list: [{ k: 'num', text: '1' }, { k: 'num', text: '7' }], not: false }, { k: 'str', value: 'a' }],
        [{ k: 'bin', op: '=', left: { k: 'id', parts: ['x'] }, right: { k: 'num', text: '2' } }, { k: 'str', value: 'c' }],
      ],
      otherwise: { k: 'str', value: 'b' },
    });
    expect(shape(expr('CASE x WHEN 1 THEN 2 END'))).toMatchObject({ k: 'case', operand: { k: 'id' } });
    for (const f of ['CURRENT_TIMESTAMP', 'LOCALTIMESTAMP', 'CURRENT_DATE', 'CURRENT_TIME', 'LOCALTIME', 'CURRENT_ROW_TIMESTAMP()']) {
      expect(shape(expr(f)), f).toEqual({ k: 'call', name: f.replace('()', ''), args: [], distinct: false, star: false });
    }
    expect(shape(expr('NOW()'))).toMatchObject({ k: 'call', name: 'NOW', args: [] });
  });

  it('reads literals, intervals, constructors, element access and aggregate clauses', () => {
    expect(shape(expr("TIME '10:00:00'"))).toEqual({ k: 'typed', type: 'TIME', value: '10:00:00' });
    expect(shape(expr("TIMESTAMP WITH LOCAL TIME ZONE '2020-01-01 00:00:00'"))).toEqual({ k: 'typed', type: 'TIMESTAMP_LTZ', value: '2020-01-01 00:00:00' });
    expect(shape(expr("INTERVAL '1 02:00' DAY TO MINUTE"))).toEqual({ k: 'interval', value: '1 02:00', unit: 'DAY', toUnit: 'MINUTE' });
    expect(shape(expr("INTERVAL -'5' SECOND"))).toEqual({ k: 'interval', value: '-5', unit: 'SECOND' });
    expect(shape(expr("ARRAY[1, 2][1]"))).toMatchObject({ k: 'index', expr: { k: 'constructor', type: 'ARRAY' }, index: { text: '1' } });
    expect(shape(expr("MAP['k', 1]"))).toMatchObject({ k: 'constructor', type: 'MAP' });
    expect(shape(expr('ROW(a, 1)'))).toMatchObject({ k: 'constructor', type: 'ROW' });
    expect(shape(expr('info.name'))).toEqual({ k: 'id', parts: ['info', 'name'] });
    expect(shape(expr("LISTAGG(s, ',') FILTER (WHERE x > 1)"))).toMatchObject({ name: 'LISTAGG', filter: { k: 'bin' } });
    expect(shape(expr('a NOT SIMILAR TO b ESCAPE c'))).toMatchObject({ k: 'like', similar: true, not: true, escape: { k: 'id' } });
    expect(shape(expr('a BETWEEN SYMMETRIC 2 AND 1'))).toMatchObject({ k: 'between', symmetric: true });
    expect(shape(expr('(SELECT max(a) FROM s)'))).toMatchObject({ k: 'scalarQuery', query: { k: 'select' } });
  });

  it('keeps the precedence of arithmetic, comparison and logic', () => {
    expect(shape(expr('NOT a = 1 OR b AND c'))).toMatchObject({ k: 'bin', op: 'OR', left: { k: 'not', arg: { k: 'bin', op: '=' } }, right: { op: 'AND' } });
    expect(shape(expr('1 + 2 * 3 - -x'))).toMatchObject({ op: '-', left: { op: '+', right: { op: '*' } }, right: { k: 'neg' } });
    expect(shape(expr("a || 'b' LIKE 'x%'"))).toMatchObject({ k: 'like', expr: { op: '||' } });
  });
});

/** Prints an expression fully parenthesized, in the syntax the reader reads. */
function print(e: SqlExpr): string {
  switch (e.k) {
    case 'num':
      return e.text;
    case 'id':
      return e.parts.join('.');
    case 'str':
      return `'${e.value.replace(/'/g, "''")}'`;
    case 'bin':
      return `(${print(e.left)} ${e.op} ${print(e.right)})`;
    case 'not':
      return `(NOT ${print(e.arg)})`;
    case 'isnull':
      return `(${print(e.expr)} IS ${e.not ? 'NOT ' : ''}NULL)`;
    case 'call':
      return `${e.name}(${e.args.map(print).join(', ')})`;
    default:
      throw new Error(`no printer for ${e.k}`);
  }
}

describe('reading back printed expressions (property)', () => {
  const at = { line: 1, column: 1 };
  const leaf = fc.oneof(
    fc.nat({ max: 999 }).map((n): SqlExpr => ({ k: 'num', text: String(n), pos: at })),
    fc.constantFrom('a', 'b', 't.c').map((n): SqlExpr => ({ k: 'id', parts: n.split('.'), pos: at })),
    fc.string({ maxLength: 4 }).map((v): SqlExpr => ({ k: 'str', value: v, pos: at })),
  );
  const tree = fc.letrec<{ e: SqlExpr }>((tie) => ({
    e: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.record({ op: fc.constantFrom('+', '-', '*', '/', '%', '||', '=', '<>', '<', '>=', 'AND', 'OR'), left: tie('e'), right: tie('e') }).map((r): SqlExpr => ({ k: 'bin', ...r, pos: at })),
      tie('e').map((arg): SqlExpr => ({ k: 'not', arg, pos: at })),
      fc.record({ expr: tie('e'), not: fc.boolean() }).map((r): SqlExpr => ({ k: 'isnull', ...r, pos: at })),
      fc.array(tie('e'), { maxLength: 3 }).map((args): SqlExpr => ({ k: 'call', name: 'F', args, distinct: false, star: false, pos: at })),
    ),
  }));

  it('gives the same tree, whatever the nesting', () => {
    fc.assert(
      fc.property(tree.e, (e) => {
        expect(shape(expr(print(e)))).toEqual(shape(e));
      }),
      { numRuns: 300 },
    );
  });
});

describe('errors', () => {
  it('points syntax errors at the token, with one message', () => {
    expect(message('SELECT a\nFROM t WHERE a = = 1')).toBe("line 2:18: expected an expression, found '='");
    expect(message("CREATE TABLE dbl (x DOUBLE) WITH ('connector' = 'print');\nSELEC x FROM dbl;")).toMatch(/^line 2:1: expected a statement \(CREATE TABLE, .*\), found 'SELEC'$/);
    expect(message('SELECT a FROM t WHERE')).toBe('line 1:22: expected an expression, found end of input');
    expect(message('SELECT a FROM t GROUP a')).toBe("line 1:23: expected BY, found 'a'");
  });

  it('keeps positions right after comments holding ; and quotes', () => {
    const text = "-- a comment; with 'quotes' and ;\n/* block; comment ; */ SELECT a FROM t;\nSELECT b FROM t WHERE = 1";
    expect(message(text)).toBe("line 3:23: expected an expression, found '='");
    const stmts = readScript("SELECT 'a;b' -- x;\n FROM t; SELECT 1");
    expect(stmts.map((s) => s.text)).toEqual(["SELECT 'a;b' -- x;\n FROM t", 'SELECT 1']);
  });

  it('names unsupported constructs and statements', () => {
    expect(message('SELECT * FROM e MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts MEASURES A.v AS v PATTERN (A) DEFINE A AS A.v > 0) AS m')).toBe('line 1:17: MATCH_RECOGNIZE is not supported');
    expect(message('SELECT * FROM a NATURAL JOIN b')).toMatch(/^line 1:17: NATURAL JOIN is not supported/);
    expect(message('LOAD MODULE hive')).toMatch(/^line 1:1: LOAD MODULE statements are not supported/);
    expect(message('SHOW PARTITIONS t')).toBe('line 1:6: SHOW PARTITIONS is not supported (Flambda does not write partitioned tables)');
    expect(message('ALTER FUNCTION f AS \'x\'')).toBe('line 1:7: ALTER FUNCTION is not supported (ALTER TABLE and ALTER VIEW are)');
    expect(message('CREATE CATALOG c WITH (\'type\' = \'x\')')).toMatch(/^line 1:8: CREATE CATALOG is not supported/);
    expect(message("CREATE TABLE t (a INT) WITH ('x' = 'y') AS SELECT 1")).toBe('line 1:1: CREATE TABLE AS SELECT syntax does not support to specify explicit columns yet.');
    expect(message("CREATE TEMPORARY TABLE t WITH ('x' = 'y') AS SELECT 1")).toBe('line 1:1: CREATE TABLE AS SELECT syntax does not support to create temporary table yet.');
    expect(message('INSERT INTO t PARTITION (p = 1) SELECT 1')).toMatch(/^line 1:15: INSERT … PARTITION \(…\) is not supported: it writes a partitioned table/);
    expect(message('SELECT /*+ A() */ a FROM t WHERE /*+ B() */ a > 1')).toBe('line 1:34: a hint /*+ … */ is read only right after SELECT or after a table name');
    expect(message('SELECT * FROM t FOR SYSTEM_TIME AS OF x')).toMatch(/FOR SYSTEM_TIME AS OF applies to the right side of a JOIN/);
  });
});
