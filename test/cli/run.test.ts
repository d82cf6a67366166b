/**
 * `flambda run` end to end: Nexmark q15 on the generated test data at parallelism 1 and 4, the
 * `--changelog` file against `--final`, `--table`, `--print-limit` and `--quiet`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  API_SPECIFIER,
  BID_FILE,
  NEXMARK,
  applyChangelog,
  makeTempDir,
  parseTable,
  readJson,
  readJsonLines,
  runCli,
  sortRows,
  type CliResult,
} from './cli.ts';

const tmp = makeTempDir('cli-run');
afterAll(() => tmp.cleanup());

const expectedQ15 = NEXMARK.expected('q15');
/** Bids in the test data: q15 emits one changelog row per bid. */
const BIDS = NEXMARK.bids.length;

/** The summary line the run prints last on stderr (before any dead-letter reasons). */
const SUMMARY = /^flambda: read (\d+) records in \d+\.\d\d s \(\d+ records\/s\); (.*)$/m;

describe('flambda run examples/nexmark/q15.ts', () => {
  const runs = new Map<number, CliResult>();

  beforeAll(async () => {
    const results = await Promise.all(
      [1, 4].map((p) =>
        runCli([
          'run',
          'examples/nexmark/q15.ts',
          '--input',
          `bid=${BID_FILE}`,
          '--parallelism',
          String(p),
          '--final',
          tmp.file(`q15-p${p}.json`),
          '--changelog',
          tmp.file(`q15-p${p}.changelog.jsonl`),
        ]),
      ),
    );
    runs.set(1, results[0] as CliResult);
    runs.set(4, results[1] as CliResult);
  });

  it('the test data spans one day: q15 has one result row', () => {
    expect(expectedQ15).toHaveLength(1);
    expect(BIDS).toBeGreaterThan(40);
  });

  for (const p of [1, 4]) {
    describe(`--parallelism ${p}`, () => {
      it('exits 0, prints nothing on stdout and the summary line on stderr', () => {
        const r = runs.get(p) as CliResult;
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toBe('');
        const summary = SUMMARY.exec(r.stderr);
        expect(summary?.[1]).toBe(String(BIDS));
        expect(summary?.[2]).toBe(`sink 'q15': ${BIDS} changelog rows`);
        expect(r.stderr).not.toContain('dead');
        expect(r.stderr).not.toContain('error');
      });

      it('--final equals the reference', () => {
        const actual = readJson(tmp.file(`q15-p${p}.json`)) as Record<string, unknown>[];
        expect(sortRows(actual)).toEqual(sortRows(expectedQ15));
      });

      it('--changelog has one JSON object per line with an op, an upsert changelog whose application by day gives --final', () => {
        const changes = readJsonLines(tmp.file(`q15-p${p}.changelog.jsonl`));
        // One row per bid: the first inserts the day, every later one updates it (no -U: upsert sink).
        expect(changes).toHaveLength(BIDS);
        expect(changes.map((c) => c.op)).toEqual(['+I', ...Array<string>(BIDS - 1).fill('+U')]);
        expect(changes.map((c) => c.total_bids)).toEqual(Array.from({ length: BIDS }, (_, i) => i + 1));
        for (const c of changes) expect(Object.keys(c)).toEqual(['op', ...Object.keys(expectedQ15[0] as object)]);
        const final = readJson(tmp.file(`q15-p${p}.json`)) as Record<string, unknown>[];
        expect(sortRows(applyChangelog(changes, ['day']))).toEqual(sortRows(final));
      });
    });
  }
});

describe('flambda run: input binding forms, --table', () => {
  let bare: CliResult;
  let table: CliResult;

  beforeAll(async () => {
    [bare, table] = await Promise.all([
      // q15 has one source, so `--input <file>` without `bid=` binds it.
      runCli(['run', 'examples/nexmark/q15.ts', '-i', BID_FILE, '--final', tmp.file('q15-bare.json'), '-p', '2']),
      runCli(['run', 'examples/nexmark/q15.ts', '--input', `bid=${BID_FILE}`, '--table']),
    ]);
  });

  it('a bare --input path binds the only source', () => {
    expect(bare.code, bare.stderr).toBe(0);
    expect(sortRows(readJson(tmp.file('q15-bare.json')) as Record<string, unknown>[])).toEqual(sortRows(expectedQ15));
  });

  it('--table prints the final result of the sink as a table', () => {
    expect(table.code, table.stderr).toBe(0);
    const parsed = parseTable(table.stdout, 'q15');
    expect(parsed.title).toBe("Final result of nexmark-q15 → sink 'q15' (1 rows)");
    expect(parsed.count).toBe(1);
    const expected = Object.fromEntries(Object.entries(expectedQ15[0] as object).map(([k, v]) => [k, String(v)]));
    expect(parsed.rows).toEqual([expected]);
    // Header, then a rule of dashes joined by -+-.
    const lines = table.stdout.split('\n');
    const title = lines.indexOf(parsed.title);
    expect(lines[title + 1]).toMatch(/^day\s+\| total_bids \| rank1_bids \|/);
    expect(lines[title + 2]).toMatch(/^-+(-\+-+)+$/);
    expect(SUMMARY.exec(table.stderr)?.[2]).toBe(`sink 'q15': ${BIDS} changelog rows`);
  });
});

describe('flambda run: print sinks, --print-limit, --quiet, retract changelogs, several sinks', () => {
  // A pipeline with a print sink (retract changelog) and a keyed sink, each on its own source.
  const pipeline = tmp.write(
    'two-sinks.ts',
    `import { Pipeline, count, max, sum } from ${API_SPECIFIER};
const p = new Pipeline('two-sinks');
p.source('left', { schema: { k: 'BIGINT', v: 'BIGINT', amount: 'DECIMAL(10, 2)', ts: 'TIMESTAMP(3)' } })
  .groupBy('k')
  .aggregate({ n: count(), top: max('v'), total: sum('amount'), last: max('ts') })
  .print();
p.source('right', { schema: { k: 'BIGINT', v: 'BIGINT' } })
  .filter((r) => (r.v ?? 0) > 1)
  .sinkTo('big', { upsertKey: ['k'] });
export default p;
`,
  );
  const left = tmp.write(
    'left.jsonl',
    [
      '{"k": 1, "v": 5, "amount": "1.10", "ts": "2015-07-15 00:00:01.5"}',
      '{"k": 2, "v": 1, "amount": 2, "ts": 1436918400000}',
      '{"k": 1, "v": 7, "amount": "0.05", "ts": "2015-07-15 00:00:00.000"}',
      '{"k": 1, "v": 3, "amount": "10.00", "ts": "2015-07-15 00:00:03.250"}',
      '',
    ].join('\n'),
  );
  const right = tmp.write('right.jsonl', '{"k": 1, "v": 5}\n{"k": 2, "v": 1}\n{"k": 3, "v": 7}\n');
  const inputs = ['--input', `left=${left}`, '--input', `right=${right}`];

  let full: CliResult;
  let limited: CliResult;
  let quiet: CliResult;

  beforeAll(async () => {
    [full, limited, quiet] = await Promise.all([
      runCli([
        'run',
        pipeline,
        ...inputs,
        '--final',
        `print=${tmp.file('print.json')}`,
        '--final',
        `big=${tmp.file('big.json')}`,
        '--changelog',
        `print=${tmp.file('print.changelog.jsonl')}`,
        '--changelog',
        `big=${tmp.file('big.changelog.jsonl')}`,
      ]),
      runCli(['run', pipeline, ...inputs, '--print-limit', '3', '--table']),
      runCli(['run', pipeline, ...inputs, '--quiet', '--final', `big=${tmp.file('big-quiet.json')}`]),
    ]);
  });

  const printRows = [
    'print> +I[1, 1, 5, 1.10, 2015-07-15 00:00:01.500]',
    'print> +I[2, 1, 1, 2.00, 2015-07-15 00:00:00.000]',
    'print> -U[1, 1, 5, 1.10, 2015-07-15 00:00:01.500]',
    'print> +U[1, 2, 7, 1.15, 2015-07-15 00:00:01.500]',
    'print> -U[1, 2, 7, 1.15, 2015-07-15 00:00:01.500]',
    'print> +U[1, 3, 7, 11.15, 2015-07-15 00:00:03.250]',
  ];

  it('prints every changelog row of the print sink in Flink print format', () => {
    expect(full.code, full.stderr).toBe(0);
    expect(full.stdout).toBe(`${printRows.join('\n')}\n`);
    expect(SUMMARY.exec(full.stderr)?.[1]).toBe('7');
    expect(SUMMARY.exec(full.stderr)?.[2]).toBe("sink 'print': 6 changelog rows, sink 'big': 2 changelog rows");
  });

  it('--final writes each named sink; timestamps as YYYY-MM-DD HH:MM:SS.fff and DECIMALs as strings with their scale', () => {
    expect(sortRows(readJson(tmp.file('print.json')) as Record<string, unknown>[])).toEqual(
      sortRows([
        { k: 1, n: 3, top: 7, total: '11.15', last: '2015-07-15 00:00:03.250' },
        { k: 2, n: 1, top: 1, total: '2.00', last: '2015-07-15 00:00:00.000' },
      ]),
    );
    expect(sortRows(readJson(tmp.file('big.json')) as Record<string, unknown>[])).toEqual([
      { k: 1, v: 5 },
      { k: 3, v: 7 },
    ]);
  });

  it('--changelog of a sink without upsertKey is a retract changelog; applied by whole row it gives --final', () => {
    const changes = readJsonLines(tmp.file('print.changelog.jsonl'));
    expect(changes.map((c) => c.op)).toEqual(['+I', '+I', '-U', '+U', '-U', '+U']);
    expect(changes[2]).toEqual({ op: '-U', k: 1, n: 1, top: 5, total: '1.10', last: '2015-07-15 00:00:01.500' });
    expect(sortRows(applyChangelog(changes))).toEqual(sortRows(readJson(tmp.file('print.json')) as Record<string, unknown>[]));
  });

  it('--changelog of an upsert sink applied by its key gives --final', () => {
    const changes = readJsonLines(tmp.file('big.changelog.jsonl'));
    expect(sortRows(changes)).toEqual(sortRows([{ op: '+I', k: 1, v: 5 }, { op: '+I', k: 3, v: 7 }]));
    expect(sortRows(applyChangelog(changes, ['k']))).toEqual(sortRows(readJson(tmp.file('big.json')) as Record<string, unknown>[]));
  });

  it('--print-limit prints the first n rows and says how many were not printed; --table prints every sink', () => {
    expect(limited.code, limited.stderr).toBe(0);
    const lines = limited.stdout.split('\n');
    expect(lines.slice(0, 4)).toEqual([
      ...printRows.slice(0, 3),
      'print> … 3 more changelog rows not printed (print limit 3)',
    ]);
    const print = parseTable(limited.stdout, 'print');
    expect(print.title).toBe("Final result of two-sinks → sink 'print' (2 rows)");
    expect(sortRows(print.rows)).toEqual(
      sortRows([
        { k: '1', n: '3', top: '7', total: '11.15', last: '2015-07-15 00:00:03.250' },
        { k: '2', n: '1', top: '1', total: '2.00', last: '2015-07-15 00:00:00.000' },
      ]),
    );
    const big = parseTable(limited.stdout, 'big');
    expect(big.title).toBe("Final result of two-sinks → sink 'big' (2 rows)");
    expect(sortRows(big.rows)).toEqual([
      { k: '1', v: '5' },
      { k: '3', v: '7' },
    ]);
  });

  it('--quiet prints no print-sink rows and no progress, only the summary line', () => {
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout).toBe('');
    expect(quiet.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(SUMMARY.exec(quiet.stderr)?.[2]).toBe("sink 'print': 6 changelog rows, sink 'big': 2 changelog rows");
    expect(readJson(tmp.file('big-quiet.json'))).toEqual(expect.arrayContaining([{ k: 1, v: 5 }, { k: 3, v: 7 }]));
  });
});

describe.each(['q18', 'q19', 'q5', 'q7', 'q11'])('flambda run examples/nexmark/%s.ts', (query) => {
  it.each([1, 4])('--final equals the reference at --parallelism %i', async (p) => {
    const out = tmp.file(`${query}-p${p}.json`);
    const r = await runCli(['run', `examples/nexmark/${query}.ts`, '--input', `bid=${BID_FILE}`, '--final', out, '--parallelism', String(p)]);
    expect(r.code, r.stderr).toBe(0);
    const expected = NEXMARK.expected(query);
    expect(sortRows(readJson(out) as Record<string, unknown>[])).toEqual(sortRows(expected));
  });

  it('--batch-size 1 at --parallelism 3 gives the same result', async () => {
    const out = tmp.file(`${query}-p3-b1.json`);
    const r = await runCli(['run', `examples/nexmark/${query}.ts`, '--input', `bid=${BID_FILE}`, '--final', out, '--parallelism', '3', '--batch-size', '1']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('late rows');
    const expected = NEXMARK.expected(query);
    expect(sortRows(readJson(out) as Record<string, unknown>[])).toEqual(sortRows(expected));
  });
});

describe('flambda run examples/nexmark/q13.ts (lookup join)', () => {
  const SIDE_INPUT = NEXMARK.file('side_input');

  it.each([1, 4])('--input side_input=… binds the lookup table; --final equals the reference at --parallelism %i', async (p) => {
    const out = tmp.file(`q13-p${p}.json`);
    const r = await runCli(['run', 'examples/nexmark/q13.ts', '--input', `bid=${BID_FILE}`, '--input', `side_input=${SIDE_INPUT}`, '--final', out, '--parallelism', String(p)]);
    expect(r.code, r.stderr).toBe(0);
    const expected = NEXMARK.expected('q13');
    expect(sortRows(readJson(out) as Record<string, unknown>[])).toEqual(sortRows(expected));
    // The summary reports the lookup cache: FULL cache, so every looked-up key is a hit.
    const summary = SUMMARY.exec(r.stderr);
    expect(summary?.[1]).toBe(String(BIDS));
    expect(summary?.[2]).toMatch(new RegExp(`^sink 'q13': ${BIDS} changelog rows; lookup cache: (\\d+) hits, 0 misses \\(hit rate 100\\.0 %\\)$`));
  });

  it('without the side table bound it fails before running, naming the --input to give', async () => {
    const r = await runCli(['run', 'examples/nexmark/q13.ts', '--input', `bid=${BID_FILE}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("flambda: error: lookup table 'side_input' needs a file: pass --input side_input=<file.jsonl>");
  });

  it('an unknown --input name lists the sources and the lookup tables', async () => {
    const r = await runCli(['run', 'examples/nexmark/q13.ts', '--input', `bid=${BID_FILE}`, '--input', `side=${SIDE_INPUT}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("--input side=…: the pipeline has no source 'side' (sources: bid; JSON-lines lookup tables: side_input)");
  });
});
