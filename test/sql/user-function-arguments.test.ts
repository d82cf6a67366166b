/**
 * The values user functions receive and give back in SQL, on both runtimes: declared parameter
 * types cast the arguments as Flink's implicit casts do (a DECIMAL into a DOUBLE parameter), a
 * declared DECIMAL arrives as its exact text and an undeclared one as a number, results convert
 * back to the declared type as CAST does (a number into a DECIMAL rounds HALF_UP), a result of
 * the wrong kind is dead-lettered with the function's name, and a call no signature takes is an
 * error at its position. Scalar calls over a subquery's computed column read it (the planner
 * merges the two projections into one).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { aggregateFunction, scalarFunction, tableFunction, type UserFunctionDefinition } from '../../shared/api/user-functions.ts';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { FUNCTIONS } from './conformance/functions.ts';
import { sqlError } from './helpers.ts';
import { inputDir, runEmbeddedSql, runLocalSql, type SqlRun } from './run-both.ts';

const files = inputDir('udf-arguments');
afterAll(() => files.cleanup());

const items = files.file('items', [
  { k: 'x', product: 'apple', price: '1.25', n: 2 },
  { k: 'y', product: 'pepper', price: '2.05', n: 1 },
  { k: 'x', product: 'plum', price: '10.10', n: 3 },
]);

/** Flink's SumFunction's varargs eval pasted without a declaration: its arguments are numbers. */
const sumUndeclared = scalarFunction('DOUBLE', (...values: (number | null)[]) => values.reduce<number>((sum, v) => sum + (v ?? 0), 0));

/** A price with 20 % tax as a JS number, declared DECIMAL(10, 2): rounded HALF_UP to cents, as CAST. */
const withTax = scalarFunction('DECIMAL(10, 2)', { input: ['DECIMAL(10, 2)'] }, (price) => (price === null ? null : Number(price) * 1.2));

/** The exact text a declared DECIMAL arrives as. */
const decimalText = scalarFunction('STRING', { input: ['DECIMAL(10, 2)'] }, (price) => price);

/** `n` equal shares of a price, each a JS number rounded to the DECIMAL(10, 2) column. */
const shares = tableFunction({ share: 'DECIMAL(10, 2)' }, { input: ['DECIMAL(10, 2)', 'INT'] }, function* (price, n) {
  if (price === null || n === null) return;
  for (let i = 0; i < n; i++) yield [Number(price) / n];
});

/** An exact sum of DECIMAL(10, 2) texts in whole cents (a JSON accumulator), its result the text of the sum. */
const exactSum = aggregateFunction<{ cents: number }>('DECIMAL(12, 2)', {
  input: ['DECIMAL(10, 2)'],
  createAccumulator: () => ({ cents: 0 }),
  accumulate: (acc, price) => void (price !== null && (acc.cents += Number((price as string).replace('.', '')))),
  retract: (acc, price) => void (price !== null && (acc.cents -= Number((price as string).replace('.', '')))),
  getValue: (acc) => `${Math.trunc(acc.cents / 100)}.${String(Math.abs(acc.cents % 100)).padStart(2, '0')}`,
});

/** Declared INT, but gives a string: a data error. */
const badResult = scalarFunction('INT', (s: string | null) => s);

const LOCAL_FUNCTIONS = new Map<string, UserFunctionDefinition>([
  ...FUNCTIONS,
  ['sum.ts#sumUndeclared', sumUndeclared],
  ['tax.ts#withTax', withTax],
  ['tax.ts#decimalText', decimalText],
  ['shares.ts#shares', shares],
  ['sum.ts#exactSum', exactSum],
  ['bad.ts#badResult', badResult],
]);

const DDL = `CREATE TABLE items (k STRING, product STRING, price DECIMAL(10, 2), n INT) WITH ('connector' = 'filesystem', 'path' = '${items}', 'format' = 'json');
CREATE FUNCTION count_char AS 'count-char.ts#countChar';
CREATE FUNCTION sum_of AS 'sum.ts#sumOf';
CREATE FUNCTION sum_undeclared AS 'sum.ts#sumUndeclared';
CREATE FUNCTION with_tax AS 'tax.ts#withTax';
CREATE FUNCTION decimal_text AS 'tax.ts#decimalText';
CREATE FUNCTION shares AS 'shares.ts#shares';
CREATE FUNCTION exact_sum AS 'sum.ts#exactSum';
CREATE FUNCTION bad_result AS 'bad.ts#badResult';
`;

/** The embedded run, after checking that the AWS runtime gives the same rows and dead-letters the same records. */
async function both(sql: string): Promise<SqlRun> {
  const embedded = await runEmbeddedSql(`${DDL}${sql}`, { functions: LOCAL_FUNCTIONS });
  const local = await runLocalSql(`${DDL}${sql}`, { functions: LOCAL_FUNCTIONS });
  expect(local.rows).toEqual(embedded.rows);
  // On AWS a reason starts with the record's shard position and ends with the operator.
  const reasons = embedded.deadLetters.map((l) => l.replace(/^items\.jsonl:\d+: /, ''));
  expect(local.deadLetters.length).toBe(reasons.length);
  for (const reason of reasons) expect(local.deadLetters.some((l) => l.includes(`: ${reason}, in operator `))).toBe(true);
  return embedded;
}

describe('user function arguments and results, on both runtimes', () => {
  it('casts DECIMAL arguments to declared DOUBLE varargs (SumFunction), and gives undeclared ones as numbers', async () => {
    const run = await both('SELECT k, sum_of(price, 1.5) AS declared, sum_undeclared(price, 1.5, n) AS undeclared FROM items');
    expect(run.rows).toEqual(['{"k":"x","declared":11,"undeclared":14.6}', '{"k":"x","declared":2,"undeclared":4.75}', '{"k":"y","declared":3,"undeclared":4.55}']);
  }, 120_000);

  it('gives a declared DECIMAL as its text and rounds a number result to the declared DECIMAL', async () => {
    const run = await both('SELECT product, decimal_text(price) AS text, with_tax(price) AS taxed, with_tax(n) AS taxed_int FROM items');
    expect(run.rows).toEqual([
      '{"product":"apple","text":"1.25","taxed":"1.50","taxed_int":"2.40"}',
      '{"product":"pepper","text":"2.05","taxed":"2.46","taxed_int":"1.20"}',
      '{"product":"plum","text":"10.10","taxed":"12.12","taxed_int":"3.60"}',
    ]);
  }, 120_000);

  it('casts a table function’s arguments and converts its rows, and sums exactly in an aggregate over texts', async () => {
    expect((await both('SELECT product, share FROM items, LATERAL TABLE(shares(price, n)) WHERE k = \'x\'')).rows).toEqual([
      '{"product":"apple","share":"0.63"}',
      '{"product":"apple","share":"0.63"}',
      '{"product":"plum","share":"3.37"}',
      '{"product":"plum","share":"3.37"}',
      '{"product":"plum","share":"3.37"}',
    ]);
    expect((await both('SELECT k, exact_sum(price) AS total FROM items GROUP BY k')).rows).toEqual(['{"k":"x","total":"11.35"}', '{"k":"y","total":"2.05"}']);
  }, 240_000);

  it('reads a subquery’s computed column (the merged projection substitutes into the call)', async () => {
    expect((await both("SELECT count_char(p, 'P') AS ps FROM (SELECT UPPER(product) AS p FROM items)")).rows).toEqual(['{"ps":1}', '{"ps":2}', '{"ps":3}']);
  }, 120_000);

  it('dead-letters a result of the wrong kind, naming the function', async () => {
    const run = await both("SELECT bad_result(product) AS b FROM items WHERE k = 'y'");
    expect(run.rows).toEqual([]);
    expect(run.deadLetters).toEqual(["items.jsonl:2: user function bad_result returned 'pepper' (a string) for its INT result"]);
  }, 120_000);
});

describe('calls no signature takes', () => {
  const error = (sql: string): string => sqlError(() => compileSql(`${DDL}${sql}`, { functions: LOCAL_FUNCTIONS })).message;

  it('are errors at the argument, naming the function, the argument and both types', () => {
    expect(error('SELECT with_tax(product) FROM items')).toBe('line 10:17: argument 1 of with_tax (product) is STRING, which does not cast implicitly to DECIMAL(10, 2), the declared parameter type of with_tax(DECIMAL(10, 2))');
    expect(error('SELECT * FROM items, LATERAL TABLE(shares(price, 1.5))')).toBe('line 10:50: argument 2 of shares (1.5) is DECIMAL(2, 1), which does not cast implicitly to INT, the declared parameter type of shares(DECIMAL(10, 2), INT)');
    expect(error('SELECT exact_sum(product) FROM items')).toBe('line 10:18: argument 1 of exact_sum (product) is STRING, which does not cast implicitly to DECIMAL(10, 2), the declared parameter type of exact_sum(DECIMAL(10, 2))');
    expect(error('SELECT with_tax(price, n) FROM items')).toBe('line 10:8: with_tax(DECIMAL(10, 2)) takes 1 argument, not 2');
  });

  it('ask for a declaration when an undeclared parameter gets a DECIMAL too wide for a JS number', () => {
    expect(error('SELECT sum_undeclared(SUM(price)) FROM items')).toBe(
      'line 10:23: argument 1 of sum_undeclared (EXPR$0) is DECIMAL(38, 2), which a JS number cannot hold exactly (more than 15 digits): declare the parameter types of sum_undeclared — DOUBLE for a number, DECIMAL(38, 2) for the exact value as a string',
    );
  });
});
