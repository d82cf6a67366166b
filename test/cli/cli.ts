/**
 * Helpers of the CLI end-to-end tests: spawn the real `flambda` command (`node bin/flambda.mjs`)
 * from the repository root, temp directories, temp pipeline modules, and an independent
 * changelog applier to check `--changelog` files against `--final` results.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { nexmarkTestData } from '../nexmark/test-data.ts';

/** The repository root (the CLI's working directory in every test). */
export const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** The project's generated Nexmark test data (test/nexmark/test-data.ts): files and reference results. */
export const NEXMARK = nexmarkTestData();

/** Its bid file (an absolute path). */
export const BID_FILE = NEXMARK.file('bid');

/** What a CLI run produced. */
export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `node bin/flambda.mjs ...args` with cwd = repo root (or `cwd`); never rejects on a non-zero exit. */
export function runCli(args: readonly string[], options: { cwd?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/flambda.mjs'), ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
  });
}

/** A temp directory, removed by `cleanup()`. */
export interface TempDir {
  readonly path: string;
  /** Writes `content` to `name` inside the directory; returns the absolute path. */
  write(name: string, content: string): string;
  /** Absolute path of `name` inside the directory (not created). */
  file(name: string): string;
  cleanup(): void;
}

/** Creates a temp directory with a `package.json` of `"type": "module"` so `.ts` pipelines load as ESM. */
export function makeTempDir(prefix: string): TempDir {
  const path = mkdtempSync(join(tmpdir(), `flambda-${prefix}-`));
  writeFileSync(join(path, 'package.json'), '{ "type": "module" }\n');
  return {
    path,
    write: (name, content) => {
      const file = join(path, name);
      writeFileSync(file, content);
      return file;
    },
    file: (name) => join(path, name),
    cleanup: () => rmSync(path, { recursive: true, force: true }),
  };
}

/** The module specifier of the engine's public API, for temp pipeline modules outside the repo. */
export const API_SPECIFIER = JSON.stringify(pathToFileURL(join(REPO_ROOT, 'shared/api/index.ts')).href);

/** Reads and parses a JSON file. */
export function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8')) as unknown;
}

/** Reads a JSON-lines file into parsed objects (blank lines skipped). */
export function readJsonLines(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Sorts rows by a canonical encoding, so two row sets can be compared regardless of order. */
export function sortRows<T>(rows: readonly T[]): T[] {
  const canonical = (row: T): string =>
    JSON.stringify(Object.entries(row as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return [...rows].sort((a, b) => {
    const ca = canonical(a);
    const cb = canonical(b);
    return ca < cb ? -1 : ca > cb ? 1 : 0;
  });
}

/**
 * Applies a `--changelog` file's rows (`{op, ...fields}`), written independently of the engine's
 * materialized view: by `key` (upsert: `+I`/`+U` replace, `-D` deletes, `-U` ignored) or, without
 * a key, by whole row (retract: `+I`/`+U` add a copy, `-U`/`-D` remove one). Throws on a
 * retraction of a row that is not there.
 */
export function applyChangelog(changes: readonly Record<string, unknown>[], key?: readonly string[]): Record<string, unknown>[] {
  const table = new Map<string, { row: Record<string, unknown>; copies: number }>();
  for (const change of changes) {
    const { op, ...row } = change;
    const id = JSON.stringify(key ? key.map((k) => row[k]) : Object.entries(row));
    const entry = table.get(id);
    if (op === '+I' || op === '+U') {
      if (key || !entry) table.set(id, { row, copies: 1 });
      else entry.copies += 1;
    } else if (op === '-U' || op === '-D') {
      if (key && op === '-U') continue;
      if (!entry) throw new Error(`changelog retracts a row that is not there: ${JSON.stringify(change)}`);
      if (key || entry.copies === 1) table.delete(id);
      else entry.copies -= 1;
    } else {
      throw new Error(`changelog row without a valid op: ${JSON.stringify(change)}`);
    }
  }
  return [...table.values()].flatMap(({ row, copies }) => Array.from({ length: copies }, () => row));
}

/**
 * Parses the table `--table` prints after the line `Final result of <pipeline> → sink '<sink>' (N rows)`:
 * returns the row count of that title line and the rows as objects of trimmed cell strings.
 */
export function parseTable(stdout: string, sink: string): { title: string; count: number; rows: Record<string, string>[] } {
  const lines = stdout.split('\n');
  const start = lines.findIndex((l) => l.startsWith('Final result of ') && l.includes(`→ sink '${sink}' (`));
  if (start < 0) throw new Error(`no table for sink '${sink}' in:\n${stdout}`);
  const title = lines[start] as string;
  const count = Number(/\((\d+) rows?\)$/.exec(title)?.[1]);
  const header = (lines[start + 1] ?? '').split('|').map((c) => c.trim());
  const rows: Record<string, string>[] = [];
  for (const line of lines.slice(start + 3)) {
    if (!line.includes('|')) break;
    const cells = line.split('|').map((c) => c.trim());
    rows.push(Object.fromEntries(header.map((h, i) => [h, cells[i] ?? ''])));
  }
  return { title, count, rows };
}
