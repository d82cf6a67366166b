/**
 * CLI error cases: each exits non-zero (1 for errors, 2 for commander's usage errors) with a
 * `flambda: error: …` message on stderr that says what is wrong and what was expected, and
 * writes nothing to stdout.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_SPECIFIER, BID_FILE, NEXMARK, REPO_ROOT, makeTempDir, runCli, type CliResult } from './cli.ts';

const tmp = makeTempDir('cli-errors');
afterAll(() => tmp.cleanup());

const notPipeline = tmp.write('not-a-pipeline.ts', 'export default { name: "orders", sources: [] };\n');
const noDefault = tmp.write('no-default.ts', 'export const pipeline = 42;\n');
const twoSinks = tmp.write(
  'two-sinks.ts',
  `import { Pipeline, count } from ${API_SPECIFIER};
const p = new Pipeline('two-sinks');
p.source('left', { schema: { k: 'BIGINT' } }).groupBy('k').aggregate({ n: count() }).sinkTo('counts');
p.source('right', { schema: { k: 'BIGINT' } }).sinkTo('copies');
export default p;
`,
);
const rows = tmp.write('rows.jsonl', '{"k": 1}\n');
const twoSinkInputs = ['--input', `left=${rows}`, '--input', `right=${rows}`];

interface ErrorCase {
  readonly name: string;
  readonly args: readonly string[];
  readonly code: number;
  /** The exact first line of stderr. */
  readonly message: string | RegExp;
}

const Q15 = 'examples/nexmark/q15.ts';

const cases: readonly ErrorCase[] = [
  {
    name: 'missing pipeline file',
    args: ['run', 'examples/nosuch.ts', '--input', BID_FILE],
    code: 1,
    message: 'flambda: error: pipeline file not found: examples/nosuch.ts',
  },
  {
    name: 'pipeline file that is not a module',
    args: ['run', 'README.md', '--input', BID_FILE],
    code: 1,
    message: 'flambda: error: pipeline must be a .ts or .js module whose default export is a Pipeline, or a .sql script (given README.md)',
  },
  {
    name: 'module whose default export is not a Pipeline',
    args: ['run', notPipeline, '--input', BID_FILE],
    code: 1,
    message: `flambda: error: ${notPipeline} must default-export a Pipeline (export default pipeline), found an object (Object)`,
  },
  {
    name: 'module without a default export',
    args: ['explain', noDefault],
    code: 1,
    message: `flambda: error: ${noDefault} must default-export a Pipeline (export default pipeline), found no default export`,
  },
  {
    name: '--input naming a source the pipeline does not have lists the sources',
    args: ['run', Q15, '--input', `nosuch=${BID_FILE}`],
    code: 1,
    message: "flambda: error: --input nosuch=…: the pipeline has no source 'nosuch' (sources: bid)",
  },
  {
    name: 'bare --input when the pipeline has several sources',
    args: ['run', twoSinks, '--input', rows],
    code: 1,
    message: `flambda: error: --input expects <name>=<value>, e.g. --input bid=bid.jsonl (given '${rows}')`,
  },
  {
    name: 'missing input file',
    args: ['run', Q15, '--input', 'bid=data/nosuch.jsonl'],
    code: 1,
    message: 'flambda: error: --input bid=data/nosuch.jsonl: file not found',
  },
  {
    name: 'missing --input for a source',
    args: ['run', Q15],
    code: 1,
    message: "flambda: error: source 'bid' needs an input: pass --input bid=<file.jsonl>",
  },
  {
    name: 'missing --input for one of several sources',
    args: ['run', twoSinks, '--input', `left=${rows}`],
    code: 1,
    message: "flambda: error: source 'right' needs an input: pass --input right=<file.jsonl>",
  },
  {
    name: 'the same source bound twice',
    args: ['run', Q15, '--input', `bid=${BID_FILE}`, '--input', `bid=${BID_FILE}`],
    code: 1,
    message: "flambda: error: --input binds 'bid' twice",
  },
  {
    name: '--parallelism 0',
    args: ['run', Q15, '--input', BID_FILE, '--parallelism', '0'],
    code: 1,
    message: "flambda: error: --parallelism must be an integer 1..10000 (given '0')",
  },
  {
    name: '--parallelism abc',
    args: ['run', Q15, '--input', BID_FILE, '--parallelism', 'abc'],
    code: 1,
    message: "flambda: error: --parallelism must be an integer 1..10000 (given 'abc')",
  },
  {
    name: 'explain --parallelism 1.5',
    args: ['explain', Q15, '-p', '1.5'],
    code: 1,
    message: "flambda: error: --parallelism must be an integer 1..10000 (given '1.5')",
  },
  {
    name: '--print-limit 0',
    args: ['run', Q15, '--input', BID_FILE, '--print-limit', '0'],
    code: 1,
    message: "flambda: error: --print-limit must be an integer 1..1000000000 (given '0')",
  },
  {
    name: 'unknown command',
    args: ['frobnicate', Q15],
    code: 2,
    message: "flambda: error: unknown command 'frobnicate'",
  },
  {
    name: 'unknown option',
    args: ['run', Q15, '--input', BID_FILE, '--frobnicate'],
    code: 2,
    message: "flambda: error: unknown option '--frobnicate'",
  },
  {
    name: 'missing pipeline argument',
    args: ['run'],
    code: 2,
    message: "flambda: error: missing required argument 'pipeline'",
  },
  {
    name: '--final a=b=c naming no sink of a pipeline with several sinks lists the sinks',
    args: ['run', twoSinks, ...twoSinkInputs, '--final', `a=${tmp.file('b=c')}`],
    code: 1,
    message: /^flambda: error: --final a=\S+\/b=c: unknown sink 'a' \(sinks: counts, copies\)$/,
  },
  {
    name: '--final naming an unknown sink of a one-sink pipeline',
    args: ['run', Q15, '--input', BID_FILE, '--final', `other=${tmp.file('x.json')}`],
    code: 1,
    message: /^flambda: error: --final other=\S+x\.json: unknown sink 'other' \(sinks: q15\)$/,
  },
  {
    name: '--changelog without a sink name when there are several sinks',
    args: ['run', twoSinks, ...twoSinkInputs, '--changelog', tmp.file('changes.jsonl')],
    code: 1,
    message: 'flambda: error: --changelog: the pipeline has 2 sinks (counts, copies); write --changelog <sink>=<file>',
  },
  {
    name: '--final given twice for one sink',
    args: ['run', twoSinks, ...twoSinkInputs, '--final', `counts=${tmp.file('x.json')}`, '--final', `counts=${tmp.file('y.json')}`],
    code: 1,
    message: "flambda: error: --final given twice for sink 'counts'",
  },
  {
    name: 'unknown bench suite lists the suites',
    args: ['bench', 'nosuch', '--events', '10'],
    code: 1,
    message: "flambda: error: unknown benchmark suite 'nosuch' (suites: passthrough, group-agg, topn, windows, state-io, aws-cost, nexmark, lookup, lookup-l2)",
  },
];

/** Runs `fn` over `items` with at most `limit` at a time (the machines running CI have few cores). */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

describe('flambda error messages', () => {
  const results = new Map<string, CliResult>();
  let bare: CliResult;

  beforeAll(async () => {
    const all = await mapLimited([...cases.map((c) => c.args), ['run', Q15, '--input', BID_FILE, '-q']], 4, (args) => runCli(args));
    cases.forEach((c, i) => results.set(c.name, all[i] as CliResult));
    bare = all[cases.length] as CliResult;
    // Dozens of CLI processes, four at a time: generous for a loaded two-core machine.
  }, 300_000);

  for (const c of cases) {
    it(`${c.name}: exits ${c.code} with a message`, () => {
      const r = results.get(c.name) as CliResult;
      expect(r.code, r.stderr).toBe(c.code);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trimEnd().split('\n');
      // One line, no stack trace.
      expect(lines).toHaveLength(1);
      if (typeof c.message === 'string') expect(lines[0]).toBe(c.message);
      else expect(lines[0]).toMatch(c.message);
    });
  }

  it('a bare --input path is accepted when the pipeline has one source', () => {
    expect(bare.code, bare.stderr).toBe(0);
    expect(bare.stderr).toMatch(new RegExp(`^flambda: read ${NEXMARK.bids.length} records in `));
  });

  it('failed runs wrote no output files', () => {
    expect(readdirSync(tmp.path).sort()).toEqual(['no-default.ts', 'not-a-pipeline.ts', 'package.json', 'rows.jsonl', 'two-sinks.ts']);
    expect(existsSync(`${REPO_ROOT}/b=c`)).toBe(false);
  });
});

/* Unusable output paths and directories are reported before the job runs, never as a stack trace. */
describe('flambda error messages for unusable paths', () => {
  const missingDir = tmp.file('no/such/dir');
  // A directory is a partitioned input (one partition per file); an empty one has nothing to read.
  const emptyDir = mkdtempSync(join(tmpdir(), 'flambda-empty-input-'));
  afterAll(() => rmSync(emptyDir, { recursive: true, force: true }));

  it.each([
    ['--final', ['--final', `${missingDir}/out.json`]],
    ['--changelog', ['--changelog', `${missingDir}/changes.jsonl`]],
    ['--dead-letter', ['--dead-letter', `${missingDir}/dead.jsonl`]],
    ['--input <empty directory>', ['--input', `bid=${emptyDir}`]],
  ])('%s to a path that cannot be used exits 1 with flambda: error:', async (_name, extra) => {
    const args = extra[0] === '--input' ? ['run', Q15, ...extra] : ['run', Q15, '--input', BID_FILE, ...extra];
    const r = await runCli(args);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^flambda: error: .*(does not exist|not a file|holds no files)/im);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });
});

describe('pipeline modules outside an ESM package', () => {
  // tsx compiles a .ts file outside a "type": "module" package as CommonJS, which cannot load
  // the ESM API: the CLI says how to fix it, and the .mts spelling of the same file works.
  it('explains how to load a .ts pipeline from a plain directory, and loads it as .mts', async () => {
    const plain = makeTempDir('cli-plain');
    try {
      const file = plain.write('plain.ts', `import { Pipeline } from ${API_SPECIFIER};\nconst p = new Pipeline('plain');\np.source('s', { schema: { k: 'BIGINT' } }).sinkTo('out');\nexport default p;\n`);
      plain.write('package.json', '{}\n');
      const r = await runCli(['explain', file]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^flambda: error: cannot load .*plain\.ts: it is compiled as CommonJS .* rename it to \.mts/);
      const mts = plain.write('plain.mts', readFileSync(file, 'utf8'));
      const ok = await runCli(['explain', mts]);
      expect(ok.stderr).toBe('');
      expect(ok.code).toBe(0);
    } finally {
      plain.cleanup();
    }
  });
});
