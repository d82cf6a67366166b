/** Flink's rewrite rules in the SQL front end, checked on the plan and the EXPLAIN text. */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { ChangeRow } from '../../shared/core/row.ts';
import { runEmbeddedJob } from '../../shared/runtime/embedded/embedded-runtime.ts';
import { compileSql, compileSqlFile } from '../../shared/sql/compile-sql.ts';
import { explainSql } from '../../shared/sql/explain-sql.ts';
import { ORDERS, example, sqlError } from './helpers.ts';

const compile = (text: string) => compileSql(text);
const plan = (text: string): string => compile(text).pipeline.explain();

describe('Top-N', () => {
  it('plans the seed query as Rank with RetractStrategy over a hash exchange, in three EXPLAIN sections', () => {
    const text = explainSql(example('top-n.sql'));
    const sections = text.split('\n').filter((l) => l.startsWith('== '));
    expect(sections).toEqual(['== Abstract Syntax Tree ==', '== Optimized Logical Plan ==', '== Physical Execution Plan ==']);
    expect(text).toContain(
      'Rank(strategy=[RetractStrategy], rankType=[ROW_NUMBER], rankRange=[rankStart=1, rankEnd=10], partitionBy=[merchandiseId], orderBy=[totalQuantity DESC], select=[merchandiseId, totalQuantity, rownum])\n   +- Exchange(distribution=[hash[merchandiseId]])',
    );
    // The AST section is the plan before the planner: no strategy, no exchanges yet.
    const ast = text.slice(0, text.indexOf('== Optimized'));
    expect(ast).toContain('Rank(rankType=[ROW_NUMBER]');
    expect(ast).not.toContain('Exchange');
    const physical = text.slice(text.indexOf('== Physical'));
    expect(physical).toMatch(/Stage 4 : Operator\n\tcontent : Rank\(strategy=\[RetractStrategy\].*\n\tship_strategy : HASH/);
    expect(physical).toContain('Stage 1 : Data Source');
  });

  it('picks UpdateFastStrategy for count(*) without PARTITION BY (one shard)', () => {
    const text = explainSql(`${ORDERS}
      SELECT * FROM (SELECT *, ROW_NUMBER() OVER (ORDER BY cnt DESC) AS rn
        FROM (SELECT merchandiseId, count(*) AS cnt FROM orders GROUP BY merchandiseId)) WHERE rn <= 10;`);
    expect(text).toContain(
      'Rank(strategy=[UpdateFastStrategy[merchandiseId]], rankType=[ROW_NUMBER], rankRange=[rankStart=1, rankEnd=10], partitionBy=[], orderBy=[cnt DESC], select=[merchandiseId, cnt, rn])\n   +- Exchange(distribution=[single])',
    );
    expect(text).toContain('ship_strategy : GLOBAL');
  });

  it('reads <, =, BETWEEN, >= with <=, reversed bounds and extra conditions', () => {
    const topN = (where: string, fn = 'ROW_NUMBER'): string =>
      plan(`${ORDERS} SELECT * FROM (SELECT *, ${fn}() OVER (PARTITION BY merchandiseId ORDER BY quantity DESC) AS rn FROM orders) WHERE ${where};`);
    expect(topN('rn < 4')).toContain('rankStart=1, rankEnd=3');
    expect(topN('rn = 2')).toContain('rankStart=2, rankEnd=2');
    expect(topN('rn BETWEEN 2 AND 5')).toContain('rankStart=2, rankEnd=5');
    expect(topN('rn >= 3 AND rn <= 4')).toContain('rankStart=3, rankEnd=4');
    expect(topN('3 >= rn AND quantity > 1')).toMatch(/Calc\(select=.*where=\[>\(quantity, 1\)\]\)\n +\+- Rank/);
    expect(topN('rn <= 3', 'DENSE_RANK')).toContain('rankType=[DENSE_RANK]');
    expect(topN('rn <= 3', 'RANK')).toContain('rankType=[RANK]');
    expect(sqlError(() => topN('quantity > 1')).message).toMatch(/needs a filter on 'rn'/);
    expect(sqlError(() => topN('rn < 1')).message).toMatch(/keeps no rank/);
  });

  it('ranks by expressions, computed into hidden columns below the Rank as Calcite projects them', () => {
    const text = plan(`${ORDERS}\nSELECT merchandiseId FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY merchandiseId ORDER BY quantity * 2 DESC) AS rn FROM orders) WHERE rn <= 2;`);
    expect(text).toContain('Rank(strategy=[AppendFastStrategy], rankType=[ROW_NUMBER], rankRange=[rankStart=1, rankEnd=2], partitionBy=[merchandiseId], orderBy=[$rank0 DESC]');
    expect(text).toContain('Calc(select=[merchandiseId, quantity, log_ts, *(quantity, 2) AS $rank0])');
    // An aggregate in ORDER BY of a grouped subquery is the aggregate's column.
    expect(plan(`${ORDERS}\nSELECT * FROM (SELECT merchandiseId, ROW_NUMBER() OVER (ORDER BY SUM(quantity) DESC) AS rn FROM orders GROUP BY merchandiseId) WHERE rn = 1;`)).toMatch(/Rank\(.*orderBy=\[\$rank0 DESC\]/);
  });

  it('leaves the rank number out when the outer query does not select it', () => {
    const text = plan(`${ORDERS} SELECT merchandiseId, quantity FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY merchandiseId ORDER BY quantity DESC) AS rn FROM orders) WHERE rn <= 3;`);
    expect(text).toMatch(/Rank\(strategy=\[AppendFastStrategy\].*select=\[merchandiseId, quantity, log_ts\]\)/);
  });

  it('plans ROW_NUMBER = 1 by a rowtime column as Deduplicate, by another column as Rank', () => {
    const first = plan(`${ORDERS} SELECT merchandiseId, quantity FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY merchandiseId ORDER BY log_ts ASC) AS rn FROM orders) WHERE rn = 1;`);
    expect(first).toContain('Deduplicate(keep=[FirstRow], key=[merchandiseId], order=[ROWTIME(log_ts)])');
    const last = plan(`${ORDERS} SELECT merchandiseId FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY merchandiseId ORDER BY log_ts DESC) AS rn FROM orders) WHERE rn <= 1;`);
    expect(last).toContain('Deduplicate(keep=[LastRow]');
    const rank = plan(`${ORDERS} SELECT merchandiseId FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY merchandiseId ORDER BY quantity) AS rn FROM orders) WHERE rn = 1;`);
    expect(rank).toContain('Rank(strategy=[AppendFastStrategy]');
  });
});

describe('group aggregation', () => {
  it('projects FILTER predicates and expression keys into $f columns, as Flink does', () => {
    const text = plan(`${ORDERS}
      SELECT quantity % 3 AS bucket, count(*) AS n, count(DISTINCT merchandiseId) FILTER (WHERE quantity > 5) AS big, avg(quantity) AS a
      FROM orders WHERE merchandiseId <> 0 GROUP BY quantity % 3 HAVING count(*) > 1;`);
    expect(text).toContain('GroupAggregate(groupBy=[bucket], select=[bucket, COUNT(*) AS n, COUNT(DISTINCT merchandiseId) FILTER $f2 AS big, AVG(quantity) AS a])');
    expect(text).toMatch(/Calc\(select=\[bucket, n, big, a\], where=\[>\(n, 1\)\]\)/);
    expect(text).toContain('MOD(quantity, 3) AS bucket');
  });

  it('compiles CASE, CAST, string and time functions', () => {
    const text = plan(`${ORDERS}
      SELECT CASE WHEN quantity > 5 THEN 'big' ELSE 'small' END AS size, CAST(quantity AS BIGINT) AS q,
        UPPER(CONCAT('m', CAST(merchandiseId AS STRING))) AS name, CHAR_LENGTH('abc') AS len, SUBSTRING('abcdef' FROM 2 FOR 3) AS sub,
        DATE_FORMAT(log_ts, 'yyyy-MM-dd') AS d, HOUR(log_ts) AS h, quantity BETWEEN 1 AND 3 AS small, 1.50 AS price
      FROM orders WHERE quantity IN (1, 2, 3) AND NOT merchandiseId IS NULL;`);
    expect(text).toContain("CASE(>(quantity, 5), 'big', 'small') AS size");
    expect(text).toContain('CAST(quantity AS BIGINT) AS q');
    expect(text).toContain("DATE_FORMAT(log_ts, 'yyyy-MM-dd') AS d");
    expect(text).toContain('1.50 AS price');
    expect(text).toContain('where=[AND(IN(quantity, 1, 2, 3), NOT(IS NULL(merchandiseId)))]');
  });

  it('evaluates computed columns after the source and views inline', () => {
    const text = plan(`CREATE TABLE t (a INT, b AS a * 2, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen', 'number-of-rows' = '5');
      CREATE VIEW v AS SELECT a, b FROM t WHERE b > 2;
      SELECT * FROM v;`);
    expect(text).toContain('Calc(select=[a, b], where=[>(b, 2)])');
    expect(text).toContain('*(a, 2) AS b');
  });
});

describe('lookup joins', () => {
  it('compiles the seed: hash shuffle for the table with lookup.enable_hash only', () => {
    const program = compile(example('lookup-join.sql'));
    const text = program.pipeline.explain();
    const lines = text.split('\n');
    const j2 = lines.findIndex((l) => l.includes('LookupJoin(table=[jdbc_table2]'));
    const j3 = lines.findIndex((l) => l.includes('LookupJoin(table=[jdbc_table3]'));
    expect(lines[j3]).toContain('lookup=[id=user_id]');
    expect(lines[j3 + 1]).toContain('LookupJoin(table=[jdbc_table2]');
    expect(lines[j2 + 1]).toContain('Exchange(distribution=[hash[user_id]])');
    const specs = new Map([...program.lookupTables.values()].map((s) => [s.name, s]));
    expect(specs.get('jdbc_table2')).toMatchObject({
      shuffle: true,
      cache: { type: 'PARTIAL', maxRows: 10000, expireAfterWriteMs: 600000 },
      retry: { maxAttempts: 4 },
      store: { type: 'jdbc', dialect: 'mysql', table: 'test1', user: 'root', password: '123456' },
    });
    expect(specs.get('jdbc_table3')?.shuffle).toBe(false);
    expect(program.sinks[0]?.schema.fields.map((f) => f.name)).toEqual(['id', 'name', 's3Name', 'order_amount', 'description']);
    // The literal password stays out of the job graph (with a warning).
    expect(program.warnings.some((w) => w.includes("literal 'password'"))).toBe(true);
    const graph = JSON.stringify(program.pipeline.jobGraph());
    expect(graph).not.toContain('123456');
  });

  it('takes the shuffle from the LOOKUP hint, and secrets by reference', () => {
    const text = example('lookup-join.sql')
      .replaceAll("'lookup.enable_hash' = 'true'", "'lookup.enable_hash' = 'false'")
      .replaceAll("'password' = '123456'", "'password' = '${env:DB_PASSWORD}'")
      .replace('INSERT INTO fs_table select', "INSERT INTO fs_table select /*+ LOOKUP('table'='s3', 'shuffle'='true') */");
    const program = compile(text);
    const lines = program.pipeline.explain().split('\n');
    const j3 = lines.findIndex((l) => l.includes('LookupJoin(table=[jdbc_table3]'));
    expect(lines[j3 + 1]).toContain('Exchange(distribution=[hash[user_id]])');
    expect(lines.filter((l) => l.includes('Exchange'))).toHaveLength(1);
    expect(program.warnings).toEqual([]);
    const join = program.pipeline.jobGraph().stages.flatMap((s) => s.operators).find((o) => o.type === 'LookupJoin');
    expect(JSON.stringify(join)).toContain('"passwordFrom":"DB_PASSWORD"');
  });

  it('compiles LEFT joins against DynamoDB with extra conditions and probe key expressions', () => {
    const program = compile(`
      CREATE TABLE clicks (user_id BIGINT, page STRING, pt AS PROCTIME()) WITH ('connector' = 'kinesis', 'stream' = 'clicks');
      CREATE TABLE users (id BIGINT, name STRING, tier INT) WITH ('connector' = 'dynamodb', 'table-name' = 'users-table',
        'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '100', 'lookup.partial-cache.expire-after-access' = '30 s',
        'lookup.partial-cache.cache-missing-key' = 'false');
      CREATE TABLE out (user_id BIGINT, name STRING) WITH ('connector' = 'blackhole');
      INSERT INTO out SELECT c.user_id, u.name FROM clicks AS c LEFT JOIN users FOR SYSTEM_TIME AS OF c.pt AS u ON u.id = c.user_id + 1 AND u.tier > 2;`);
    const text = program.pipeline.explain();
    expect(text).toContain('LookupJoin(table=[users], joinType=[LeftOuterJoin], lookup=[id=$f2], where=[>(tier, 2)]');
    expect(text).toContain('+(user_id, 1) AS $f2');
    const join = program.pipeline.jobGraph().stages.flatMap((s) => s.operators).find((o) => o.type === 'LookupJoin');
    expect(join?.type === 'LookupJoin' && join.spec).toMatchObject({
      source: { type: 'dynamodb', table: 'users-table' },
      cache: { type: 'PARTIAL', maxRows: 100, expireAfterAccessMs: 30_000, cacheMissingKey: false },
    });
  });

  it('requires a PROCTIME attribute and a lookup-capable table', () => {
    const base = example('lookup-join.sql');
    expect(sqlError(() => compile(base.replace('FOR SYSTEM_TIME AS OF s1.proctime AS s2', 'FOR SYSTEM_TIME AS OF s1.log_ts AS s2'))).message).toMatch(
      /FOR SYSTEM_TIME AS OF needs a rowtime attribute \(a column with a WATERMARK\) or a PROCTIME\(\) attribute; 'log_ts' is neither/,
    );
    expect(sqlError(() => compile(base.replace('join jdbc_table2 FOR', 'join fs_table FOR'))).message).toMatch(/cannot be a lookup table/);
  });
});

describe('windows', () => {
  const BID = example('q7.sql').slice(0, example('q7.sql').indexOf(');') + 2);

  it('plans TUMBLE / HOP / CUMULATE / SESSION aggregates as WindowAggregate', () => {
    const agg = (tvf: string): string =>
      plan(`${BID} SELECT auction, count(*) AS n, window_start, window_end FROM TABLE(${tvf}) GROUP BY auction, window_start, window_end;`);
    expect(agg("TUMBLE(TABLE bid, DESCRIPTOR(date_time), INTERVAL '10' SECOND)")).toContain('window=[TUMBLE(time_col=[date_time], size=[10 s])]');
    expect(agg("HOP(TABLE bid, DESCRIPTOR(date_time), INTERVAL '2' SECOND, INTERVAL '10' SECOND)")).toContain('HOP(time_col=[date_time], size=[10 s], slide=[2 s])');
    expect(agg("CUMULATE(TABLE bid, DESCRIPTOR(date_time), INTERVAL '2' SECOND, INTERVAL '10' SECOND)")).toMatch(/CUMULATE\(time_col=\[date_time\]/);
    expect(agg("SESSION(TABLE bid PARTITION BY auction, DESCRIPTOR(date_time), INTERVAL '10' SECOND)")).toMatch(/SESSION\(time_col=\[date_time\]/);
  });

  it('pushes a WHERE below the window and materializes the TVF for a plain SELECT', () => {
    expect(plan(`${BID} SELECT auction, count(*) AS n, window_start, window_end FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(date_time), INTERVAL '10' SECOND)) WHERE price > 10 GROUP BY auction, window_start, window_end;`)).toMatch(
      /WindowAggregate[^\n]*\n.*Exchange[^\n]*\n.*Calc\(select=\[auction, date_time\], where=\[>\(price, 10\)\]\)/,
    );
    expect(plan(`${BID} SELECT auction, window_start FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(date_time), INTERVAL '10' SECOND));`)).toContain('WindowTableFunction');
  });

  it('plans window Top-N and window deduplication', () => {
    const top = plan(`${BID} SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, auction ORDER BY price DESC) AS rn FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(date_time), INTERVAL '10' SECOND))) WHERE rn <= 3;`);
    expect(top).toMatch(/WindowRank\(.*rankType=\[ROW_NUMBER\], rankRange=\[rankStart=1, rankEnd=3\], partitionBy=\[auction\]/);
    const dedup = plan(`${BID} SELECT auction, price FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, auction ORDER BY date_time DESC) AS rn FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(date_time), INTERVAL '10' SECOND))) WHERE rn = 1;`);
    expect(dedup).toContain('WindowDeduplicate');
  });

  it('rewrites legacy group windows (TUMBLE / HOP / SESSION with _START, _END) into window aggregates', () => {
    const tumble = plan(`${BID} SELECT auction, TUMBLE_START(date_time, INTERVAL '10' SECOND) AS ws, count(*) AS n FROM bid WHERE price > 5 GROUP BY TUMBLE(date_time, INTERVAL '10' SECOND), auction;`);
    expect(tumble).toContain('Calc(select=[auction, window_start AS ws, n])');
    expect(tumble).toContain('WindowAggregate(groupBy=[auction], window=[TUMBLE(time_col=[date_time], size=[10 s])]');
    expect(tumble).toContain('Calc(select=[auction, date_time], where=[>(price, 5)])');
    const hop = plan(`${BID} SELECT HOP_END(date_time, INTERVAL '2' SECOND, INTERVAL '10' SECOND) AS we, count(*) AS n FROM bid GROUP BY HOP(date_time, INTERVAL '2' SECOND, INTERVAL '10' SECOND);`);
    expect(hop).toContain('HOP(time_col=[date_time], size=[10 s], slide=[2 s])');
    const session = plan(`${BID} SELECT bidder, SESSION_START(date_time, INTERVAL '10' SECOND) AS s, count(*) AS n FROM bid GROUP BY bidder, SESSION(date_time, INTERVAL '10' SECOND);`);
    expect(session).toContain('partition keys=[bidder]');
    expect(sqlError(() => plan(`${BID} SELECT HOP_START(date_time, INTERVAL '1' SECOND, INTERVAL '2' SECOND) AS s, count(*) AS n FROM bid GROUP BY TUMBLE(date_time, INTERVAL '10' SECOND);`)).message).toMatch(
      /HOP_START does not match the group window TUMBLE/,
    );
    // Calcite matches TUMBLE_START to its group window by the arguments, not the name alone.
    expect(sqlError(() => plan(`${BID} SELECT TUMBLE_START(date_time, INTERVAL '5' SECOND) AS s, count(*) AS n FROM bid GROUP BY TUMBLE(date_time, INTERVAL '10' SECOND);`)).message).toBe(
      'line 15:11: TUMBLE_START must have the arguments of the group window TUMBLE(…) in GROUP BY (the same time column and intervals)',
    );
    expect(plan(`${BID} SELECT TUMBLE_END(date_time, INTERVAL '10' SECONDS) AS e, count(*) AS n FROM bid GROUP BY TUMBLE(date_time, INTERVAL '10000' MILLISECOND);`)).toContain('window_end AS e');
  });

  it('groups a window aggregate by expressions, computed below the window as $f columns', () => {
    const text = plan(`${BID} SELECT window_start, UPPER(channel) AS c, count(*) AS n FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(date_time), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, UPPER(channel);`);
    expect(text).toContain('WindowAggregate(groupBy=[$f0], window=[TUMBLE(time_col=[date_time], size=[10 s])]');
    expect(text).toContain('Calc(select=[UPPER(channel) AS $f0, date_time])');
    expect(sqlError(() => plan(`${BID} SELECT count(*) AS n FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(date_time), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, CAST(window_start AS STRING);`)).message).toMatch(
      /a window aggregate groups by window_start, window_end and columns or expressions of its input/,
    );
  });

  it('windows only a time attribute, as Flink does in streaming mode', () => {
    const tvf = (input: string, column: string): string => `SELECT window_start, count(*) AS n FROM TABLE(TUMBLE(TABLE ${input}, DESCRIPTOR(${column}), INTERVAL '10' SECOND)) GROUP BY window_start, window_end;`;
    // An expression over the rowtime, an aggregate of it and a TIMESTAMP without a WATERMARK are plain timestamps.
    expect(sqlError(() => plan(`${BID} ${tvf('(SELECT auction, date_time + INTERVAL \'1\' SECOND AS t FROM bid)', 't')}`)).message).toMatch(
      /^line 15:\d+: The window function TUMBLE requires the timecol to be a time attribute, but 't' is TIMESTAMP\(3\) \(declare a WATERMARK FOR it, or window a PROCTIME\(\) column\)$/,
    );
    expect(sqlError(() => plan(`${BID} ${tvf('(SELECT auction, MAX(date_time) AS t FROM bid GROUP BY auction)', 't')}`)).message).toMatch(/TUMBLE requires the timecol to be a time attribute, but 't' is TIMESTAMP\(3\)/);
    const plain = "CREATE TABLE clicks (id BIGINT, ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = 'c.jsonl', 'format' = 'json');";
    expect(sqlError(() => plan(`${plain} ${tvf('clicks', 'ts')}`)).message).toMatch(/TUMBLE requires the timecol to be a time attribute, but 'ts' is TIMESTAMP\(3\)/);
    expect(sqlError(() => plan(`${plain} SELECT TUMBLE_START(ts, INTERVAL '1' MINUTE) AS s, count(*) AS n FROM clicks GROUP BY TUMBLE(ts, INTERVAL '1' MINUTE);`)).message).toMatch(/TUMBLE requires the timecol/);
    // The rowtime passed on by name through a view or a subquery stays a time attribute.
    expect(plan(`${BID} ${tvf('(SELECT auction, date_time AS t FROM bid)', 't')}`)).toContain('WindowAggregate');
  });

  it('checks window arguments', () => {
    expect(sqlError(() => plan(`${BID} SELECT count(*) AS n, window_start, window_end FROM TABLE(HOP(TABLE bid, DESCRIPTOR(date_time), INTERVAL '2' SECOND)) GROUP BY window_start, window_end;`)).message).toMatch(
      /HOP takes TABLE t, DESCRIPTOR\(ts\), slide, size/,
    );
    expect(sqlError(() => plan(`${BID} SELECT count(*) AS n FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(dt), INTERVAL '2' SECOND)) GROUP BY window_start, window_end;`)).message).toMatch(
      /unknown column 'dt'/,
    );
  });
});

describe('SET options', () => {
  it('applies table.exec.state.ttl and table.exec.topn.cache-size to the operators that follow', () => {
    const program = compile(`${ORDERS}
      SET 'table.exec.state.ttl' = '1 h';
      SET 'table.exec.topn.cache-size' = '500';
      SELECT * FROM (SELECT *, ROW_NUMBER() OVER (ORDER BY total DESC) AS rn
        FROM (SELECT merchandiseId, SUM(quantity) AS total FROM orders GROUP BY merchandiseId)) WHERE rn <= 3;`);
    const rank = program.sinks[0]?.input;
    expect(rank).toMatchObject({ type: 'Rank', stateTtlMs: 3_600_000, cacheSize: 500 });
    expect(rank?.type === 'Rank' && rank.input).toMatchObject({ type: 'GroupAggregate', stateTtlMs: 3_600_000 });
    expect(program.settings.get('table.exec.topn.cache-size')).toBe('500');
  });

  it("RESETs a key or every key to its default, as Flink's SQL client does", () => {
    const query = 'SELECT * FROM (SELECT *, ROW_NUMBER() OVER (ORDER BY total DESC) AS rn FROM (SELECT merchandiseId, SUM(quantity) AS total FROM orders GROUP BY merchandiseId)) WHERE rn <= 3;';
    const rankOf = (text: string) => compile(text).sinks[0]?.input;
    const reset = compile(`${ORDERS} SET 'table.exec.state.ttl' = '1 h'; SET 'pipeline.error-policy' = 'fail'; RESET 'table.exec.state.ttl'; ${query}`);
    expect(reset.sinks[0]?.input).not.toHaveProperty('stateTtlMs');
    expect(reset.pipeline.errorPolicy).toBe('fail');
    const all = compile(`${ORDERS} SET 'table.exec.topn.cache-size' = '500'; SET 'pipeline.error-policy' = 'fail'; RESET; ${query}`);
    expect(all.sinks[0]?.input).not.toHaveProperty('cacheSize');
    expect(all.pipeline.errorPolicy).toBe('dead-letter');
    expect(rankOf(`${ORDERS} SET 'table.exec.state.ttl' = '1 h'; ${query} RESET;`)).toMatchObject({ stateTtlMs: 3_600_000 });
  });

  it('rejects batch mode rather than streaming a script written for it', () => {
    expect(sqlError(() => compile(`${ORDERS}SET 'execution.runtime-mode' = 'batch';\nSELECT * FROM orders;`)).message).toBe(
      "line 7:1: SET 'execution.runtime-mode' = 'batch' is not supported: Flambda runs every job in streaming mode",
    );
    expect(compile(`${ORDERS}SET 'execution.runtime-mode' = 'streaming';\nSELECT * FROM orders;`).warnings).toEqual(["line 7:1: SET 'execution.runtime-mode' has no effect in Flambda (every Flambda job is a streaming job)"]);
  });
});

describe('IF NOT EXISTS', () => {
  it('keeps the first declaration of a table or view, as Flink does', () => {
    const program = compile(`${ORDERS}CREATE TABLE IF NOT EXISTS orders (x INT) WITH ('connector' = 'print');
      CREATE VIEW big AS SELECT * FROM orders WHERE quantity > 5;
      CREATE VIEW IF NOT EXISTS big AS SELECT * FROM orders;
      SELECT merchandiseId FROM big;`);
    expect(program.pipeline.explain()).toContain('where=[>(quantity, 5)]');
    expect(sqlError(() => compile(`${ORDERS}CREATE VIEW big AS SELECT 1;\nCREATE VIEW big AS SELECT 2;\nSELECT * FROM big;`)).message).toBe("line 8:1: view 'big' is declared twice");
  });
});

describe('connectors', () => {
  it('maps kinesis, dynamodb, filesystem, print and blackhole', () => {
    const program = compile(`
      CREATE TABLE src (a INT, ts TIMESTAMP(3)) WITH ('connector' = 'kinesis', 'stream' = 'arn:aws:kinesis:eu-west-1:1:stream/in', 'format' = 'json');
      CREATE TABLE out (a INT, PRIMARY KEY (a) NOT ENFORCED) WITH ('connector' = 'dynamodb', 'table-name' = 'results');
      INSERT INTO out SELECT a FROM src;`);
    expect(program.sources[0]?.connector).toEqual({ type: 'kinesis', streamArn: 'arn:aws:kinesis:eu-west-1:1:stream/in' });
    expect(program.sinks[0]).toMatchObject({ connector: { type: 'dynamodb', tableName: 'results' }, upsertKey: ['a'] });
    const fs = compileSql(`${ORDERS} SELECT * FROM orders;`, { inputs: new Map([['orders', '/data/o.jsonl']]) });
    expect(fs.sources[0]?.connector).toEqual({ type: 'jsonl', path: '/data/o.jsonl' });
    expect(fs.sinks[0]?.connector).toEqual({ type: 'print' });
  });

  it('reads scan.parallelism and names a file pipeline after the file', () => {
    const program = compile(`${ORDERS.replace("'format' = 'json'", "'format' = 'json', 'scan.parallelism' = '3'")} SELECT * FROM orders;`);
    expect(program.sources[0]?.parallelism).toBe(3);
    expect(compileSqlFile(fileURLToPath(new URL('../../examples/sql/nexmark/q19.sql', import.meta.url))).pipeline.name).toBe('q19');
  });

  it('generates datagen rows in the embedded runtime', async () => {
    const program = compile(`CREATE TABLE g (id BIGINT, v INT, s STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '20', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100', 'fields.v.min' = '1', 'fields.v.max' = '3');
      SELECT v, count(*) AS n, IF(v > 1, 'big', 'small') AS size FROM g GROUP BY v;`);
    const graph = program.pipeline.jobGraph({ parallelism: 2 });
    const rows: Record<string, unknown>[] = [];
    await runEmbeddedJob(graph, {
      code: { functions: program.pipeline.userFunctions, generators: program.pipeline.generators },
      observers: new Map([['print', [{ write: (changes: readonly ChangeRow[]) => changes.forEach((c) => c.kind === '+I' || c.kind === '+U' ? rows.push(c.row) : undefined) }]]]),
    });
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => [1, 2, 3].includes(r['v'] as number))).toBe(true);
  });

  it('generates DATE, TIME and TIMESTAMP_LTZ columns: a day, a second and a second per row from 2026-01-01', async () => {
    const program = compile(`CREATE TABLE g (d DATE, t TIME, ltz TIMESTAMP_LTZ(3)) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
      SELECT CAST(d AS STRING) AS d, CAST(t AS STRING) AS t, CAST(ltz AS STRING) AS ltz FROM g;`);
    const graph = program.pipeline.jobGraph({ parallelism: 1 });
    const rows: Record<string, unknown>[] = [];
    await runEmbeddedJob(graph, {
      code: { functions: program.pipeline.userFunctions, generators: program.pipeline.generators },
      observers: new Map([['print', [{ write: (changes: readonly ChangeRow[]) => changes.forEach((c) => rows.push(c.row)) }]]]),
    });
    expect(rows).toEqual([
      { d: '2026-01-01', t: '00:00:00', ltz: '2026-01-01 00:00:00.000' },
      { d: '2026-01-02', t: '00:00:01', ltz: '2026-01-01 00:00:01.000' },
      { d: '2026-01-03', t: '00:00:02', ltz: '2026-01-01 00:00:02.000' },
    ]);
  });
});
