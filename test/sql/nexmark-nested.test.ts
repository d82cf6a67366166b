/**
 * Nexmark's own source DDL (examples/sql/nexmark/ddl-nested.sql): one table with `ROW<…>`
 * columns per event kind, a computed event time with a watermark on it, and the person /
 * auction / bid views. Over events from the project's generator written in that nested shape
 * (shared/nexmark/nested-events.ts), the views give the flat tables' rows and q5 over them gives
 * the result of examples/sql/nexmark/q5.sql over the flat files — on both runtimes.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { NexmarkOptions } from '../../shared/nexmark/config.ts';
import { generateTable } from '../../shared/nexmark/generator.ts';
import { nexmarkEventJsonLines } from '../../shared/nexmark/nested-events.ts';
import { NEXMARK_TABLES } from '../../shared/nexmark/schemas.ts';
import { nexmarkJsonLine } from '../../shared/nexmark/write-files.ts';
import { inputDir, runEmbeddedSql, runLocalSql } from './run-both.ts';

const files = inputDir('nexmark-nested');
afterAll(() => files.cleanup());

const example = (name: string): string => readFileSync(new URL(`../../examples/sql/nexmark/${name}`, import.meta.url), 'utf8');

/** The data set as the nested events file and the three flat files. */
function dataSet(options: NexmarkOptions, tag: string): { events: string; flat: Record<string, string> } {
  const events = files.file(`${tag}-events`, [...nexmarkEventJsonLines(options)]);
  const flat = Object.fromEntries(NEXMARK_TABLES.map((t) => [t, files.file(`${tag}-${t}`, [...generateTable(options, t)].map((r) => nexmarkJsonLine(r as unknown as Record<string, unknown>)))]));
  return { events, flat };
}

/** A script with each `'path' = 'x.jsonl'` bound to a file. */
const bind = (sql: string, paths: Record<string, string>): string => sql.replace(/'path' = '([a-z_]+)\.jsonl'/g, (_m, name: string) => `'path' = '${paths[name] ?? name}'`);

/** ddl-nested.sql's DDL and views, without its q5 INSERT. */
const nestedDdl = (events: string): string => {
  const text = bind(example('ddl-nested.sql'), { events });
  return text.slice(0, text.indexOf('CREATE TABLE q5'));
};

const FLAT_TABLES = (flat: Record<string, string>): string =>
  bind(
    `CREATE TABLE person (id BIGINT, name VARCHAR, email_address VARCHAR, credit_card VARCHAR, city VARCHAR, state VARCHAR, date_time TIMESTAMP(3), extra VARCHAR) WITH ('connector' = 'filesystem', 'path' = 'person.jsonl', 'format' = 'json');
     CREATE TABLE auction (id BIGINT, item_name VARCHAR, description VARCHAR, initial_bid BIGINT, reserve BIGINT, date_time TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra VARCHAR) WITH ('connector' = 'filesystem', 'path' = 'auction.jsonl', 'format' = 'json');
     CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time TIMESTAMP(3), extra VARCHAR) WITH ('connector' = 'filesystem', 'path' = 'bid.jsonl', 'format' = 'json');`,
    flat,
  );

/** Keys renamed to the flat tables' snake_case, so rows of the two forms compare. */
const snake = (rows: readonly string[]): string[] =>
  rows.map((r) => JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(r) as Record<string, unknown>).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v])))).sort();

describe("Nexmark's nested source DDL", () => {
  const big = dataSet({ events: 3000, seed: 7, firstEventRate: 50 }, 'big');

  it('loads: the views give the flat tables, the computed dateTime is the rowtime', async () => {
    const views = nestedDdl(big.events);
    const person = await runEmbeddedSql(`${views} SELECT id, name, emailAddress, creditCard, city, state, dateTime, extra FROM person`, { parallelism: 2, batchSize: 500 });
    const auction = await runEmbeddedSql(`${views} SELECT id, itemName, initialBid, reserve, dateTime, expires, seller, category FROM auction`, { parallelism: 2, batchSize: 500 });
    const flatPerson = await runEmbeddedSql(`${FLAT_TABLES(big.flat)} SELECT * FROM person`, { parallelism: 2, batchSize: 500 });
    const flatAuction = await runEmbeddedSql(`${FLAT_TABLES(big.flat)} SELECT id, item_name, initial_bid, reserve, date_time, expires, seller, category FROM auction`, { parallelism: 2, batchSize: 500 });
    expect(person.rows.length).toBe(60);
    expect(auction.rows.length).toBe(180);
    expect(snake(person.rows)).toEqual(snake(flatPerson.rows));
    expect(snake(auction.rows)).toEqual(snake(flatAuction.rows));
  }, 120_000);

  it('runs q5 over the views with the result of q5.sql over the flat tables (embedded, 3,000 events)', async () => {
    const nested = await runEmbeddedSql(bind(example('ddl-nested.sql'), { events: big.events }), { parallelism: 2, batchSize: 100 });
    const flat = await runEmbeddedSql(bind(example('q5.sql'), big.flat), { parallelism: 2, batchSize: 100 });
    expect(flat.rows.length).toBe(35);
    expect(nested.rows).toEqual(flat.rows);
  }, 120_000);

  it('runs q5 over the views on the AWS runtime too (300 events)', async () => {
    const small = dataSet({ events: 300, seed: 3, firstEventRate: 10 }, 'small');
    const nested = await runLocalSql(bind(example('ddl-nested.sql'), { events: small.events }), { parallelism: 2, batchSize: 50 });
    const flat = await runEmbeddedSql(bind(example('q5.sql'), small.flat), { parallelism: 2, batchSize: 50 });
    expect(flat.rows.length).toBe(19);
    expect(nested.rows).toEqual(flat.rows);
  }, 240_000);
});
