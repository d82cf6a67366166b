/**
 * Bad input records: dead-lettered with the field, the value and `file:line`, counted, never
 * stopping the job; a source whose every record is rejected fails the run with `schema mismatch`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, readJson, readJsonLines, runCli, type CliResult } from './cli.ts';

const tmp = makeTempDir('cli-bad-data');
afterAll(() => tmp.cleanup());

const bid = (auction: number, bidder: number, price: unknown, dateTime: unknown): string =>
  JSON.stringify({ auction, bidder, price, channel: 'c', url: 'u', date_time: dateTime, extra: '' });

// Line numbers are 1-based; the blank line 8 is skipped, not rejected.
const lines = [
  /* 1 */ bid(1000, 1001, 500, '2015-07-15 00:00:01.000'),
  /* 2 */ bid(1000, 1002, 20_000, '2015-07-15 00:00:02.000'),
  /* 3 */ '{"auction": 1000, "bidder": 1001, "price": ',
  /* 4 */ bid(1001, 1003, 'abc', '2015-07-15 00:00:03.000'),
  /* 5 */ bid(1001, 1003, 5, 'yesterday'),
  /* 6 */ bid(1002, 1001, 2_000_000, '2015-07-16 09:30:00.000'),
  /* 7 */ '[1, 2]',
  /* 8 */ '',
  /* 9 */ bid(1001, 1004, 1.5, '2015-07-16 00:00:00.000'),
  /* 10 */ bid(1003, 1004, 42, 1436918405000),
  /* 11 */ bid(1003, 1005, 7, '2015-13-45 00:00:00'),
];
const mixed = tmp.write('mixed.jsonl', `${lines.join('\n')}\n`);
const allBad = tmp.write(
  'all-bad.jsonl',
  ['{"auction": 1, "bidder": 2, "price": "x", "date_time": "2015-07-15 00:00:01"}', 'not json', '{"auction": 1, "bidder": 2, "price": 3, "date_time": "noon"}', ''].join(
    '\n',
  ),
);

describe('flambda run over a file with bad records', () => {
  let r: CliResult;
  let quiet: CliResult;

  beforeAll(async () => {
    [r, quiet] = await Promise.all([
      runCli([
        'run',
        'examples/nexmark/q15.ts',
        '--input',
        `bid=${mixed}`,
        '--final',
        tmp.file('final.json'),
        '--dead-letter',
        tmp.file('dead.jsonl'),
        '-p',
        '3',
      ]),
      runCli(['run', 'examples/nexmark/q15.ts', '--input', mixed, '--quiet']),
    ]);
  });

  it('exits 0', () => {
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
  });

  it('counts only the good rows in --final', () => {
    // Good: lines 1, 2 (2015-07-15, plus line 10 at 00:00:05) and line 6 (2015-07-16).
    expect(readJson(tmp.file('final.json'))).toEqual(
      expect.arrayContaining([
        {
          day: '2015-07-15',
          total_bids: 3,
          rank1_bids: 2,
          rank2_bids: 1,
          rank3_bids: 0,
          total_bidders: 3,
          rank1_bidders: 2,
          rank2_bidders: 1,
          rank3_bidders: 0,
          total_auctions: 2,
          rank1_auctions: 2,
          rank2_auctions: 1,
          rank3_auctions: 0,
        },
        {
          day: '2015-07-16',
          total_bids: 1,
          rank1_bids: 0,
          rank2_bids: 0,
          rank3_bids: 1,
          total_bidders: 1,
          rank1_bidders: 0,
          rank2_bidders: 0,
          rank3_bidders: 1,
          total_auctions: 1,
          rank1_auctions: 0,
          rank2_auctions: 0,
          rank3_auctions: 1,
        },
      ]),
    );
    expect(readJson(tmp.file('final.json'))).toHaveLength(2);
  });

  it('says on stderr how many records were read and dead-lettered', () => {
    expect(r.stderr.split('\n')[0]).toMatch(/^flambda: read 4 records \(6 dead-lettered\) in \d+\.\d\d s \(\d+ records\/s\); sink 'q15': 4 changelog rows$/);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).toContain('(6 dead-lettered)');
  });

  it('shows the first five reasons, naming the field, the value and file:line', () => {
    const reasons = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('  dead letter: '))
      .map((l) => l.slice('  dead letter: '.length));
    expect(reasons).toHaveLength(5);
    expect(reasons[0]).toMatch(new RegExp(`^${escape(mixed)}:3: invalid JSON \\(.+\\): .*price`));
    expect(reasons[1]).toBe(`${mixed}:4: field 'price' (BIGINT): expected an integer, got "abc"`);
    expect(reasons[2]).toMatch(new RegExp(`^${escape(mixed)}:5: field 'date_time' \\(TIMESTAMP\\(3\\)\\): expected a timestamp .*, got "yesterday"$`));
    expect(reasons[3]).toBe(`${mixed}:7: expected a JSON object record, got [1,2]`);
    expect(reasons[4]).toMatch(new RegExp(`^${escape(mixed)}:9: field 'price' \\(BIGINT\\): .*1\\.5$`));
  });

  it('--dead-letter gets one JSON line per bad record with source, position, reason and raw', () => {
    const dead = readJsonLines(tmp.file('dead.jsonl'));
    expect(dead.map((d) => Object.keys(d).sort())).toEqual(Array<string[]>(6).fill(['position', 'raw', 'reason', 'source']));
    expect(dead.map((d) => d.source)).toEqual(Array<string>(6).fill('bid'));
    expect(dead.map((d) => d.position)).toEqual([3, 4, 5, 7, 9, 11].map((n) => `${mixed}:${n}`));
    expect(dead.map((d) => d.raw)).toEqual([3, 4, 5, 7, 9, 11].map((n) => lines[n - 1]));
    for (const d of dead) expect(d.reason).toMatch(new RegExp(`^${escape(d.position as string)}: `));
    expect(dead[1]?.reason).toContain("field 'price'");
    expect(dead[2]?.reason).toContain("field 'date_time'");
    expect(dead[5]?.reason).toMatch(/field 'date_time' .*2015-13-45/);
  });
});

describe('flambda run over a file where every record fails the schema', () => {
  let r: CliResult;

  beforeAll(async () => {
    r = await runCli(['run', 'examples/nexmark/q15.ts', '--input', `bid=${allBad}`, '--dead-letter', tmp.file('all-dead.jsonl')]);
  });

  it('exits 1 with schema mismatch, the source, its columns and the first error', () => {
    expect(r.code).toBe(1);
    const last = r.stderr.trimEnd().split('\n').at(-1);
    expect(last).toBe(
      "flambda: error: schema mismatch: none of the 3 records of source 'bid' matched its schema " +
        `(auction, bidder, price, channel, url, date_time, extra); first error: ${allBad}:1: field 'price' (BIGINT): expected an integer, got "x"`,
    );
    expect(r.stderr).toContain('flambda: read 0 records (3 dead-lettered)');
    expect(readJsonLines(tmp.file('all-dead.jsonl')).map((d) => d.position)).toEqual([`${allBad}:1`, `${allBad}:2`, `${allBad}:3`]);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
