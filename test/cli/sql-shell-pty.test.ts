/**
 * `flambda sql` on a terminal: the shell runs in a pseudo-terminal (node-pty) and its output is
 * read back as a screen (xterm's headless terminal), so what is checked is what a user sees —
 * the prompt, the result table updated live as rows arrive, errors with line and column that
 * leave the shell running, INSERT INTO as a background job stopped with STOP JOB, and the
 * history file.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import pty from '@lydell/node-pty';
import xterm from '@xterm/headless';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, makeTempDir } from './cli.ts';

const tmp = makeTempDir('sql-pty');
afterAll(() => tmp.cleanup());

/** A shell in a pseudo-terminal and the screen it draws. */
class TerminalSession {
  private readonly term = new xterm.Terminal({ cols: 110, rows: 45, allowProposedApi: true });
  private readonly proc: pty.IPty;
  private pending = Promise.resolve();
  exitCode: number | undefined;

  constructor(args: readonly string[], env: Record<string, string>) {
    this.proc = pty.spawn(process.execPath, ['bin/flambda.mjs', ...args], { cols: 110, rows: 45, cwd: REPO_ROOT, env: { ...process.env, ...env } as Record<string, string> });
    this.proc.onData((data) => {
      this.pending = this.pending.then(() => new Promise<void>((resolve) => this.term.write(data, resolve)));
    });
    this.proc.onExit((e) => (this.exitCode = e.exitCode));
  }

  /** The screen's lines, without trailing blanks. */
  async screen(): Promise<string[]> {
    await this.pending;
    const buffer = this.term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? '');
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return lines;
  }

  /** Types text (lines end with \r, as a terminal sends Enter). */
  type(text: string): void {
    this.proc.write(text.replace(/\n/g, '\r'));
  }

  /** Waits until the screen matches. */
  async waitFor(pattern: RegExp, timeoutMs = 20_000): Promise<string[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const lines = await this.screen();
      if (pattern.test(lines.join('\n'))) return lines;
      if (Date.now() > deadline || this.exitCode !== undefined) throw new Error(`screen never matched ${pattern}:\n${lines.join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async exited(timeoutMs = 10_000): Promise<number | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.exitCode === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    return this.exitCode;
  }

  kill(): void {
    if (this.exitCode === undefined) this.proc.kill();
  }
}

describe('flambda sql in a terminal', () => {
  it('shows a live result table, errors with positions, background jobs and history', async () => {
    const kv = tmp.write('kv.jsonl', '{"k":"a","v":1}\n{"k":"b","v":2}\n{"k":"a","v":4}\n');
    const live = tmp.file('live.jsonl');
    execFileSync('mkfifo', [live]);
    const history = tmp.file('history');
    const shell = new TerminalSession(['sql'], { FLAMBDA_SQL_HISTORY: history, NO_COLOR: '1' });
    let writer: FileHandle | undefined;
    try {
      await shell.waitFor(/Flambda SQL> $/m);
      shell.type(`CREATE TABLE kv (k STRING, v BIGINT) WITH ('connector' = 'filesystem', 'path' = '${kv}', 'format' = 'json');\n`);
      await shell.waitFor(/\[INFO\] Execute statement succeeded\./);

      // A statement over three lines: continuation prompts, then the table.
      shell.type('SELECT k, SUM(v) AS total\n  FROM kv\n  GROUP BY k;\n');
      let screen = await shell.waitFor(/2 rows \(4 changelog rows applied\); finished/);
      expect(screen).toContain('>   FROM kv');
      const table = screen.slice(screen.findIndex((l) => /^\| k +\| total \|$/.test(l)) - 1);
      expect(table.slice(0, 6)).toEqual(['+---+-------+', '| k | total |', '+---+-------+', '| a |     5 |', '| b |     2 |', '+---+-------+']);

      // An error names the line and column of the statement and the shell goes on.
      shell.type('SELECT k,\n  nope FROM kv;\n');
      screen = await shell.waitFor(/line 2:3: unknown column 'nope'/);
      expect(screen.join('\n')).toMatch(/ {4}\^/);
      shell.type('SHOW TABLES;\n');
      await shell.waitFor(/\| table name \|[\s\S]*\| +kv \|[\s\S]*1 row in set/);

      // A live query over a named pipe: the table follows the rows as they arrive.
      shell.type(`CREATE TABLE live (k STRING, v BIGINT) WITH ('connector' = 'filesystem', 'path' = '${live}', 'format' = 'json');\n`);
      await shell.waitFor(/(\[INFO\] Execute statement succeeded\.[\s\S]*){2}/);
      shell.type('SELECT k, COUNT(*) AS n, SUM(v) AS total FROM live GROUP BY k;\n');
      writer = await open(live, 'w');
      await writer.write('{"k":"x","v":10}\n{"k":"y","v":1}\n');
      screen = await shell.waitFor(/\| x \| +1 \| +10 \|[\s\S]*running for/);
      await writer.write('{"k":"x","v":5}\n');
      screen = await shell.waitFor(/\| x \| +2 \| +15 \|/);
      expect(screen.join('\n')).toMatch(/\| y \| +1 \| +1 \|/);
      // Ctrl-C stops the query and brings the prompt back.
      shell.type('\x03');
      screen = await shell.waitFor(/2 rows \(4 changelog rows applied\); stopped after[\s\S]*Flambda SQL> $/);
      await writer.close();
      writer = undefined;

      // INSERT INTO runs in the background until STOP JOB.
      shell.type(`CREATE TABLE res (k STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '${tmp.file('res.jsonl')}', 'format' = 'debezium-json');\n`);
      await shell.waitFor(/(\[INFO\] Execute statement succeeded\.[\s\S]*){3}/);
      shell.type('INSERT INTO res SELECT k, COUNT(*) FROM live GROUP BY k;\n');
      screen = await shell.waitFor(/Job ID: ([0-9a-f]{8})/);
      const id = /Job ID: ([0-9a-f]{8})/.exec(screen.join('\n'))?.[1] as string;
      writer = await open(live, 'w');
      await writer.write('{"k":"z","v":1}\n');
      shell.type('SHOW JOBS;\n');
      await shell.waitFor(new RegExp(`\\| ${id} \\| insert-into_res \\| RUNNING `));
      shell.type(`STOP JOB '${id}';\n`);
      await shell.waitFor(new RegExp(`The job '${id}' has been stopped`));
      shell.type('SHOW JOBS;\n');
      await shell.waitFor(new RegExp(`\\| ${id} \\| insert-into_res \\| CANCELED `));

      shell.type('QUIT;\n');
      await shell.waitFor(/Goodbye\./);
      expect(await shell.exited()).toBe(0);
      const saved = readFileSync(history, 'utf8');
      expect(saved).toContain('SELECT k, SUM(v) AS total');
      expect(saved).toContain('QUIT;');
    } finally {
      await writer?.close();
      shell.kill();
    }
  }, 90_000);
});
