/**
 * The aggregate functions of Flink's built-in functions page added with COLLECT: COLLECT
 * (MULTISET), ARRAY_AGG, JSON_ARRAYAGG, JSON_OBJECTAGG, PERCENTILE and VAR_* / STDDEV_* of a
 * DECIMAL — on both runtimes (the embedded one and the AWS one over emulators, where the
 * accumulators live in DynamoDB state and the results cross Kinesis), over an insert-only input
 * and over an updating one (retractions), with results worked out by hand.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { sqlError } from './helpers.ts';
import { inputDir, runEmbeddedSql, runLocalSql } from './run-both.ts';

const files = inputDir('aggregates');
afterAll(() => files.cleanup());

const orders = files.file('orders', [
  { product: 'apple', user: 'alice', amount: 3, price: '1.50', weight: 1, note: 'x' },
  { product: 'pear', user: 'bob', amount: 5, price: '2.00', weight: 2, note: null },
  { product: 'apple', user: 'carol', amount: 1, price: '1.25', weight: 1, note: 'y' },
  { product: 'plum', user: 'alice', amount: 4, price: '3.00', weight: 3, note: 'z' },
  { product: 'pear', user: 'alice', amount: 2, price: '2.50', weight: 1, note: 'x' },
  { product: 'apple', user: 'bob', amount: 7, price: '1.75', weight: 2, note: null },
]);

const TABLE = `CREATE TABLE orders (product STRING, \`user\` STRING, amount INT, price DECIMAL(10, 2), weight INT, note STRING)
  WITH ('connector' = 'filesystem', 'path' = '${orders}', 'format' = 'json');`;

/** A dead letter's reason without where it happened (the runtimes name positions differently). */
const reason = (letter: string): string => letter.replace(/^.*: /, '').replace(/, in operator \w+$/, '');

/**
 * Runs a script on both runtimes and expects the same final rows from each. One shard per stage,
 * so that ARRAY_AGG and JSON_ARRAYAGG see each group's rows in input order.
 */
async function expectBoth(sql: string, rows: readonly string[], deadLetters: readonly string[] = [], batchSize?: number): Promise<void> {
  const embedded = await runEmbeddedSql(sql, { parallelism: 1, ...(batchSize ? { batchSize } : {}) });
  expect(embedded.rows).toEqual(rows);
  expect(embedded.deadLetters.map(reason)).toEqual(deadLetters);
  const local = await runLocalSql(sql, { parallelism: 1, ...(batchSize ? { batchSize } : {}) });
  expect(local.rows).toEqual(rows);
  expect(local.deadLetters.map(reason)).toEqual(deadLetters);
}

describe('aggregate functions on both runtimes', () => {
  it('COLLECT, ARRAY_AGG, JSON_ARRAYAGG, JSON_OBJECTAGG over an insert-only input', async () => {
    await expectBoth(
      `${TABLE} SELECT product, COLLECT(amount) AS c, ARRAY_AGG(amount) AS a, ARRAY_AGG(note) AS n, ARRAY_AGG(note IGNORE NULLS) AS i,
         JSON_ARRAYAGG(note) AS j, JSON_ARRAYAGG(note NULL ON NULL) AS jn, JSON_OBJECTAGG(KEY \`user\` VALUE amount) AS o FROM orders GROUP BY product`,
      [
        '{"product":"apple","c":{"1":1,"3":1,"7":1},"a":[3,1,7],"n":["x","y",null],"i":["x","y"],"j":"[\\"x\\",\\"y\\"]","jn":"[\\"x\\",\\"y\\",null]","o":"{\\"alice\\":3,\\"bob\\":7,\\"carol\\":1}"}',
        '{"product":"pear","c":{"2":1,"5":1},"a":[5,2],"n":[null,"x"],"i":["x"],"j":"[\\"x\\"]","jn":"[null,\\"x\\"]","o":"{\\"alice\\":2,\\"bob\\":5}"}',
        '{"product":"plum","c":{"4":1},"a":[4],"n":["z"],"i":["z"],"j":"[\\"z\\"]","jn":"[\\"z\\"]","o":"{\\"alice\\":4}"}',
      ],
    );
  });

  it('PERCENTILE (with frequencies and several percentages) and STDDEV_SAMP / VAR_POP of a DECIMAL', async () => {
    // apple: amounts 1, 3, 7 → median 3; prices 1.25 ×1, 1.50 ×1, 1.75 ×2 → 25%: 1.4375, 75%: 1.75;
    // STDDEV_SAMP(1.50, 1.25, 1.75) = sqrt(0.125 / 2) = 0.25; VAR_POP = 0.125 / 3 = 0.041667.
    // pear: amounts 5, 2 → 3.5; prices 2.00 ×2, 2.50 ×1 → 2.0 and 2.25; sqrt(0.125) = 0.353553; 0.0625.
    await expectBoth(
      `${TABLE} SELECT product, PERCENTILE(amount, 0.5) AS med, PERCENTILE(price, ARRAY[0.25, 0.75], weight) AS q,
         STDDEV_SAMP(price) AS sd, VAR_POP(price) AS v FROM orders GROUP BY product`,
      [
        '{"product":"apple","med":3,"q":[1.4375,1.75],"sd":"0.250000","v":"0.041667"}',
        '{"product":"pear","med":3.5,"q":[2,2.25],"sd":"0.353553","v":"0.062500"}',
        '{"product":"plum","med":4,"q":[3,3],"sd":null,"v":"0.000000"}',
      ],
    );
  });

  it('retract exactly over an updating input (products move from count to count)', async () => {
    await expectBoth(
      `${TABLE} SELECT cnt, COLLECT(product) AS c, ARRAY_AGG(product) AS a, JSON_ARRAYAGG(product) AS j, JSON_OBJECTAGG(KEY product VALUE total) AS o,
         PERCENTILE(total, 0.5) AS med, STDDEV_POP(total) AS sd
       FROM (SELECT product, COUNT(*) AS cnt, SUM(price) AS total FROM orders GROUP BY product) GROUP BY cnt`,
      [
        '{"cnt":1,"c":{"plum":1},"a":["plum"],"j":"[\\"plum\\"]","o":"{\\"plum\\":3.00}","med":3,"sd":"0.000000"}',
        '{"cnt":2,"c":{"pear":1},"a":["pear"],"j":"[\\"pear\\"]","o":"{\\"pear\\":4.50}","med":4.5,"sd":"0.000000"}',
        '{"cnt":3,"c":{"apple":1},"a":["apple"],"j":"[\\"apple\\"]","o":"{\\"apple\\":4.50}","med":4.5,"sd":"0.000000"}',
      ],
    );
  });

  it('JSON_OBJECTAGG dead-letters a row with a NULL or repeated key and keeps the group as it was', async () => {
    // alice's third row repeats key x; bob's rows have no key. The whole input is one batch, so
    // the rejected rows come after accepted ones of the same batch, whose changes must survive.
    await expectBoth(
      `${TABLE} SELECT \`user\`, COLLECT(amount) AS c, JSON_OBJECTAGG(KEY note VALUE amount) AS o FROM orders GROUP BY \`user\``,
      ['{"user":"alice","c":{"3":1,"4":1},"o":"{\\"x\\":3,\\"z\\":4}"}', '{"user":"carol","c":{"1":1},"o":"{\\"y\\":1}"}'],
      ['a JSON_OBJECTAGG key is NULL', "Key 'x' is already present. Duplicate keys are not allowed in JSON_OBJECTAGG. Please ensure that keys are unique.", 'a JSON_OBJECTAGG key is NULL'],
      6,
    );
  });
});

const bids = files.file('bids', [
  { ts: '2024-01-01 08:01:00', item: 'A', price: '3.00' },
  { ts: '2024-01-01 08:04:00', item: 'B', price: '2.00' },
  { ts: '2024-01-01 08:06:00', item: 'A', price: '5.00' },
  { ts: '2024-01-01 08:12:00', item: 'C', price: '4.00' },
  { ts: '2024-01-01 08:14:00', item: 'C', price: '6.00' },
]);

describe('aggregate functions in window aggregation on both runtimes', () => {
  it('COLLECT, ARRAY_AGG, JSON_ARRAYAGG, PERCENTILE and STDDEV_POP of a DECIMAL per TUMBLE window', async () => {
    // 08:00: 3, 2, 5 → median 3, population stddev sqrt(14/9) = 1.247219; 08:10: 4, 6 → 5, 1.
    await expectBoth(
      `CREATE TABLE bids (ts TIMESTAMP(3), item STRING, price DECIMAL(10, 2), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
         WITH ('connector' = 'filesystem', 'path' = '${bids}', 'format' = 'json');
       SELECT window_start, COLLECT(item) AS c, ARRAY_AGG(item) AS a, JSON_ARRAYAGG(item) AS j, PERCENTILE(price, 0.5) AS med, STDDEV_POP(price) AS sd
       FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end`,
      [
        '{"window_start":"2024-01-01 08:00:00.000","c":{"A":2,"B":1},"a":["A","B","A"],"j":"[\\"A\\",\\"B\\",\\"A\\"]","med":3,"sd":"1.247219"}',
        '{"window_start":"2024-01-01 08:10:00.000","c":{"C":2},"a":["C","C"],"j":"[\\"C\\",\\"C\\"]","med":5,"sd":"1.000000"}',
      ],
    );
  });
});

describe('aggregate functions in EXPLAIN', () => {
  it('print as Flink names them, their projected arguments before the exchange', () => {
    const plan = compileSql(
      `${TABLE} SELECT product, JSON_OBJECTAGG(KEY note VALUE amount) AS o, JSON_ARRAYAGG(note) AS j, ARRAY_AGG(amount IGNORE NULLS) AS a, PERCENTILE(amount, ARRAY[0.5, 0.9]) AS p FROM orders GROUP BY product`,
    ).pipeline.explain();
    expect(plan).toContain('GroupAggregate(groupBy=[product], select=[product, JSON_OBJECTAGG_NULL_ON_NULL($f1) AS o, JSON_ARRAYAGG_ABSENT_ON_NULL($f2) AS j, ARRAY_AGG(amount IGNORE NULLS) AS a, PERCENTILE(amount, [0.5, 0.9]) AS p])');
    expect(plan).toContain('Calc(select=[product, ROW(note, JSON_STRING(amount)) AS $f1, JSON_STRING(note) AS $f2, amount])');
  });
});

describe('aggregate function errors', () => {
  const message = (sql: string): string => sqlError(() => compileSql(`${TABLE}\n${sql}`)).message;

  it('name the call and what it needs', () => {
    expect(message('SELECT PERCENTILE(amount, 1.5) FROM orders')).toBe("line 3:27: Percentage of PERCENTILE should be between [0.0, 1.0], but was '1.5'.");
    expect(message('SELECT PERCENTILE(amount, amount) FROM orders')).toBe("line 3:27: PERCENTILE's percentage must be a numeric literal between 0.0 and 1.0 (or an ARRAY of them)");
    expect(message('SELECT PERCENTILE(amount, 0.5, price) FROM orders')).toBe("line 3:32: PERCENTILE's frequency must be an integer, not DECIMAL");
    expect(message('SELECT JSON_OBJECTAGG(KEY amount VALUE note) FROM orders')).toBe('line 3:27: a JSON_OBJECTAGG key must be a STRING, not INT');
    expect(message('SELECT ARRAY_AGG(note ABSENT ON NULL) FROM orders')).toMatch(/^line 3:\d+: expected/);
    expect(message('SELECT COLLECT(note IGNORE NULLS) FROM orders')).toBe('line 3:21: IGNORE NULLS does not apply to COLLECT');
  });
});

describe('GROUPING, GROUPING_ID and GROUP_ID', () => {
  it('are constants per grouping set: bit vectors of the grouped-out expressions, the repetition of a set', async () => {
    const run = await runEmbeddedSql(
      `${TABLE} SELECT product, \`user\`, GROUPING(product) AS gp, GROUPING(\`user\`) AS gu, GROUPING_ID(product, \`user\`) AS gid, GROUP_ID() AS g, COUNT(*) AS n
       FROM orders WHERE product <> 'apple' GROUP BY CUBE (product, \`user\`) HAVING GROUPING(product) = 1 OR GROUP_ID() > 0`,
      { parallelism: 1 },
    );
    expect(run.rows).toEqual([
      '{"product":null,"user":"alice","gp":1,"gu":0,"gid":2,"g":0,"n":2}',
      '{"product":null,"user":"bob","gp":1,"gu":0,"gid":2,"g":0,"n":1}',
      '{"product":null,"user":null,"gp":1,"gu":1,"gid":3,"g":0,"n":3}',
    ]);
    const plain = await runEmbeddedSql(`${TABLE} SELECT product, GROUPING(product) AS g, GROUP_ID() AS i FROM orders GROUP BY product`, { parallelism: 1 });
    expect(plain.rows).toEqual(['{"product":"apple","g":0,"i":0}', '{"product":"pear","g":0,"i":0}', '{"product":"plum","g":0,"i":0}']);
  });

  it('take GROUP BY expressions, and need a GROUP BY', () => {
    const message = (sql: string): string => sqlError(() => compileSql(`${TABLE}\n${sql}`)).message;
    expect(message('SELECT GROUPING(amount), COUNT(*) FROM orders GROUP BY product')).toBe('line 3:17: the arguments of GROUPING must be GROUP BY expressions');
    expect(message('SELECT GROUP_ID(), COUNT(*) FROM orders')).toBe('line 3:8: GROUPING, GROUPING_ID and GROUP_ID need a GROUP BY');
  });
});
