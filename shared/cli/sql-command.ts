/**
 * `flambda sql [script.sql] [--input table=file.jsonl …] [--parallelism N]`: an interactive
 * SQL shell like Flink's SQL client. Statements end with `;` and may span lines; SELECT shows
 * its result as a table that updates while the query runs (Ctrl-C stops it); INSERT INTO runs
 * as a background job (SHOW JOBS, STOP JOB); errors show their line and column and the shell
 * goes on. A script given on the command line runs first.
 *
 * On a terminal the shell has line editing and a history (kept in `~/.flambda_sql_history`,
 * or `$FLAMBDA_SQL_HISTORY`). With statements piped in (no terminal) it runs them in order,
 * prints each SELECT's final table, waits for the INSERT jobs still running at the end of
 * input, and exits 1 if any statement failed.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PlanError } from '../core/errors.ts';
import { parseBindings } from './args.ts';
import { renderBoxTable } from './sql-shell/result-table.ts';
import { SqlSession, type Outcome, type RunningQuery } from './sql-shell/sql-session.ts';
import { StatementSplitter, type SplitStatement } from './sql-shell/statement-splitter.ts';

/** Options of the sql command, as parsed by the CLI. */
export interface SqlCommandOptions {
  readonly script?: string;
  readonly input: readonly string[];
  readonly parallelism?: number;
}

/** The streams of the shell; injectable for tests. */
export interface ShellIo {
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };
  readonly stderr: NodeJS.WritableStream;
}

const PROMPT = 'Flambda SQL> ';
const CONTINUATION = '> ';

/** Runs the shell; resolves to the exit code. */
export async function sqlCommand(options: SqlCommandOptions, io: ShellIo): Promise<number> {
  const inputs = parseBindings('--input', options.input);
  for (const [name, path] of inputs) {
    if (!existsSync(path)) throw new PlanError(`--input ${name}=${path}: file not found`);
  }
  if (options.script !== undefined && !(existsSync(options.script) && statSync(options.script).isFile())) {
    throw new PlanError(`script not found: ${options.script}`);
  }
  const session = new SqlSession({ inputs });
  const interactive = io.stdin.isTTY === true && io.stdout.isTTY === true;
  const shell = new Shell(session, io, interactive);
  if (options.parallelism !== undefined) await shell.run({ text: `SET 'parallelism.default' = '${options.parallelism}'`, line: 1, column: 1 }, 'quiet');
  if (options.script !== undefined) {
    const splitter = new StatementSplitter();
    const text = readFileSync(options.script, 'utf8');
    const statements = splitter.feed(text);
    const last = splitter.end();
    if (last) statements.push(last);
    for (const statement of statements) if ((await shell.run(statement, options.script)) === 'quit') return shell.exitCode();
  }
  if (interactive) await shell.terminal();
  else await shell.piped();
  return shell.exitCode();
}

/** Drives a session from a terminal or a pipe. */
class Shell {
  private failures = 0;
  private live: RunningQuery | undefined;

  constructor(
    private readonly session: SqlSession,
    private readonly io: ShellIo,
    private readonly onTerminal: boolean,
  ) {}

  exitCode(): number {
    return !this.onTerminal && this.failures > 0 ? 1 : 0;
  }

  private write(text: string): void {
    this.io.stdout.write(text);
  }

  /** Runs one statement and shows its outcome; `origin` names a script file in errors. */
  async run(statement: SplitStatement, origin?: string): Promise<'quit' | undefined> {
    const outcome: Outcome = await this.session.execute(statement);
    switch (outcome.kind) {
      case 'quit':
        return 'quit';
      case 'info':
        if (origin !== 'quiet') this.write(`${outcome.text.split('\n').map((l) => `[INFO] ${l}`).join('\n')}\n`);
        return undefined;
      case 'output':
        this.write(`${outcome.text}\n`);
        return undefined;
      case 'error':
        this.failures++;
        this.write(`[ERROR] Could not execute SQL statement${origin !== undefined && origin !== 'quiet' ? ` (${origin})` : ''}. Reason:\n${outcome.text}\n`);
        return undefined;
      case 'query':
        await this.show(outcome.query);
        return undefined;
    }
  }

  /** Shows a query: live on a terminal, its final table otherwise. */
  private async show(query: RunningQuery): Promise<void> {
    if (!this.onTerminal) {
      await query.done;
      this.write(`${resultLines(query, Infinity).join('\n')}\n`);
      if (query.status === 'failed') this.failures++;
      return;
    }
    this.live = query;
    let drawn = 0;
    const draw = (): void => {
      const height = Math.max(8, (this.io.stdout.rows ?? 24) - 4);
      const lines = resultLines(query, height - 4);
      // Move up over the previous drawing and clear it, then draw again.
      this.write(`${drawn > 0 ? `\x1b[${drawn}F` : ''}\x1b[J${lines.join('\n')}\n`);
      drawn = lines.length;
    };
    this.write('\x1b[?25l');
    draw();
    const timer = setInterval(draw, 200);
    try {
      await query.done;
    } finally {
      clearInterval(timer);
      draw();
      this.write('\x1b[?25h');
      this.live = undefined;
    }
  }

  /** Reads statements from a pipe until its end. */
  async piped(): Promise<void> {
    const splitter = new StatementSplitter();
    const lines = createInterface({ input: this.io.stdin, crlfDelay: Infinity, terminal: false });
    for await (const line of lines) {
      for (const statement of splitter.feed(`${line}\n`)) {
        if ((await this.run(statement)) === 'quit') {
          lines.close();
          await this.finishJobs(true);
          return;
        }
      }
    }
    const last = splitter.end();
    if (last && (await this.run(last)) === 'quit') {
      await this.finishJobs(true);
      return;
    }
    await this.finishJobs(false);
  }

  /** At the end: stop the running jobs (`stop`) or wait for them, and report each. */
  private async finishJobs(stop: boolean): Promise<void> {
    const running = this.session.runningJobs();
    if (running.length === 0) return;
    this.write(`[INFO] ${stop ? 'Stopping' : 'Waiting for'} ${running.length} running job${running.length === 1 ? '' : 's'}…\n`);
    if (stop) await this.session.stopAll();
    else await Promise.all(running.map((j) => j.done));
    for (const job of running) {
      if (job.status === 'FAILED') this.failures++;
      this.write(`[INFO] Job ${job.id} (${job.name}) ${job.status}: ${job.rowsWritten} rows written${job.error ? `; ${job.error}` : ''}\n`);
    }
  }

  /** The interactive loop on a terminal. */
  async terminal(): Promise<void> {
    const historyFile = process.env.FLAMBDA_SQL_HISTORY || join(homedir(), '.flambda_sql_history');
    const history = readHistory(historyFile);
    const rl = createInterface({ input: this.io.stdin, output: this.io.stdout, terminal: true, history, historySize: 1000, removeHistoryDuplicates: true, prompt: PROMPT });
    rl.on('history', (lines: string[]) => writeHistory(historyFile, lines));
    this.write("Flambda SQL shell. Statements end with ';' and may span lines. HELP; lists the statements, QUIT; leaves.\n\n");
    const splitter = new StatementSplitter();
    let queue: Promise<void> = Promise.resolve();
    let quitting = false;
    const closed = new Promise<void>((resolve) => rl.on('close', () => resolve()));
    rl.on('SIGINT', () => {
      if (this.live !== undefined) {
        this.live.cancel();
        return;
      }
      if (splitter.pending) {
        splitter.discard();
        this.write('^C\n');
      } else {
        this.write("\n(QUIT; or Ctrl-D leaves the shell)\n");
      }
      rl.setPrompt(PROMPT);
      rl.prompt();
    });
    rl.on('line', (line) => {
      const statements = splitter.feed(`${line}\n`);
      if (statements.length === 0) {
        if (this.live === undefined) {
          rl.setPrompt(splitter.pending ? CONTINUATION : PROMPT);
          rl.prompt();
        }
        return;
      }
      queue = queue.then(async () => {
        for (const statement of statements) {
          if (quitting) return;
          // On a terminal, positions count from the statement's first line, as typed.
          if ((await this.run({ text: statement.text, line: 1, column: 1 })) === 'quit') {
            quitting = true;
            rl.close();
            return;
          }
        }
        rl.setPrompt(splitter.pending ? CONTINUATION : PROMPT);
        rl.prompt();
      });
    });
    rl.prompt();
    await closed;
    await queue;
    const stopped = await this.session.stopAll();
    if (stopped > 0) this.write(`[INFO] Stopped ${stopped} running job${stopped === 1 ? '' : 's'}.\n`);
    this.write('Goodbye.\n');
  }
}

/** The lines showing a query: a status line, the table (at most `maxRows` rows) and a count. */
function resultLines(query: RunningQuery, maxRows: number): string[] {
  const seconds = (((query.endedAt ?? Date.now()) - query.startedAt) / 1000).toFixed(1);
  const state =
    query.status === 'running' ? `running for ${seconds} s (Ctrl-C stops it)` : query.status === 'finished' ? `finished in ${seconds} s` : query.status === 'canceled' ? `stopped after ${seconds} s` : `failed after ${seconds} s`;
  const lines: string[] = [];
  if (query.mode === 'changelog') {
    const rows = query.recent.map((r) => ({ op: r.op, ...r.row }));
    const shown = Number.isFinite(maxRows) ? rows.slice(-maxRows) : rows;
    lines.push(...renderBoxTable(['op', ...query.columns], shown));
    lines.push(`Received a total of ${query.changes} changelog rows; ${state}`);
  } else {
    const columns = query.columns;
    const rows = query.view.rows().map((r) => query.encode(r));
    rows.sort((a, b) => compareRows(a, b, columns));
    lines.push(...renderBoxTable(columns, rows, Number.isFinite(maxRows) ? { maxRows } : {}));
    lines.push(`${rows.length} row${rows.length === 1 ? '' : 's'} (${query.changes} changelog rows applied); ${state}`);
  }
  if (query.error !== undefined) lines.push(`[ERROR] The query failed: ${query.error}`);
  return lines;
}

function compareRows(a: Record<string, unknown>, b: Record<string, unknown>, columns: readonly string[]): number {
  for (const c of columns) {
    const x = a[c];
    const y = b[c];
    if (x === y) continue;
    if (x === null || x === undefined) return -1;
    if (y === null || y === undefined) return 1;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return 0;
}

/** History lines, newest first (readline's order). */
function readHistory(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').reverse().slice(0, 1000);
  } catch {
    return [];
  }
}

function writeHistory(file: string, newestFirst: readonly string[]): void {
  try {
    writeFileSync(file, `${[...newestFirst].reverse().join('\n')}\n`);
  } catch {
    // A history that cannot be saved (read-only home) must not stop the shell.
  }
}
