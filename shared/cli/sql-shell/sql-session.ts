/**
 * The state and statements of a `flambda sql` session, apart from the terminal: the
 * declarations made so far (the statements that change the catalog — CREATE, DROP, ALTER,
 * USE — and SET), the shell's own settings, the jobs started by INSERT INTO and CREATE TABLE …
 * AS SELECT, and what each statement does.
 *
 * Every SQL statement goes through the SQL front end (shared/sql/compile-sql.ts) together with
 * the session's declarations, so the shell accepts and rejects exactly what `flambda run
 * script.sql` does, and SHOW / DESCRIBE print what they print in a script. Errors keep their
 * line and column, mapped back to where the statement was typed (or where it is in the script).
 */
import { randomBytes } from 'node:crypto';
import { FlambdaError, PlanError } from '../../core/errors.ts';
import type { Pipeline } from '../../api/pipeline.ts';
import type { JobGraph } from '../../plan/job-graph.ts';
import { runEmbeddedJob } from '../../runtime/embedded/embedded-runtime.ts';
import { MaterializedView } from '../../runtime/materialized-view.ts';
import { compileSql, type SqlProgram } from '../../sql/compile-sql.ts';
import { SqlError } from '../../sql/errors.ts';
import { resolveName } from '../../sql/catalog.ts';
import { showCreateTable } from '../../sql/catalog-output.ts';
import { formatStages } from '../explain-command.ts';
import { renderStatementOutputs } from '../statement-outputs.ts';
import { renderBoxTable } from './result-table.ts';
import type { SplitStatement } from './statement-splitter.ts';
import type { ChangeRow } from '../../core/row.ts';
import { type JsonValue, type RowEncoder } from '../../core/codec.ts';
import { createDisplayEncoder } from '../../runtime/embedded/sinks.ts';

/** Shell settings (`SET 'key' = 'value'`) the shell itself reads; other keys go to the SQL front end. */
export const SHELL_SETTINGS = {
  /** Shards per stage of the jobs the shell runs (Flink: `parallelism.default`). */
  parallelism: 'parallelism.default',
  /** `table` (default): the result materialized by key; `changelog`: every change as it arrives. */
  resultMode: 'sql-client.execution.result-mode',
} as const;

/** A declaration kept by the session: its text and where it was typed. */
interface Declaration {
  /** `catalog`: a statement that changes the catalog (CREATE, DROP, ALTER, USE); `set`: a SET of a front-end key. */
  readonly kind: 'catalog' | 'set';
  /** The key of a SET. */
  readonly name: string;
  readonly text: string;
  readonly origin: SplitStatement;
}

/** A SELECT running (or done): the driver shows it live or when it ends. */
export interface RunningQuery {
  readonly columns: readonly string[];
  /** The result so far: the changelog applied (by the sink's key when it has one). */
  readonly view: MaterializedView;
  /** The latest changelog rows (for the `changelog` result mode), oldest first. */
  readonly recent: { readonly op: string; readonly row: Record<string, JsonValue> }[];
  readonly mode: 'table' | 'changelog';
  readonly encode: RowEncoder;
  /** Changelog rows received. */
  changes: number;
  readonly startedAt: number;
  endedAt: number | undefined;
  status: 'running' | 'finished' | 'failed' | 'canceled';
  error: string | undefined;
  /** Resolves when the query has ended, whatever the outcome. */
  done: Promise<void>;
  /** Stops the query. */
  cancel(): void;
}

/** A job started by INSERT INTO. */
export interface ShellJob {
  readonly id: string;
  readonly name: string;
  readonly statement: string;
  readonly startedAt: number;
  endedAt: number | undefined;
  status: 'RUNNING' | 'FINISHED' | 'FAILED' | 'CANCELED';
  error: string | undefined;
  rowsWritten: number;
  /** Resolves when the job has ended, whatever the outcome. */
  done: Promise<void>;
  readonly controller: AbortController;
}

/** What a statement did. */
export type Outcome =
  | { readonly kind: 'info'; readonly text: string }
  | { readonly kind: 'output'; readonly text: string }
  | { readonly kind: 'error'; readonly text: string }
  | { readonly kind: 'query'; readonly query: RunningQuery }
  | { readonly kind: 'quit' };

/** Options of a session. */
export interface SqlSessionOptions {
  /** Table name → JSON-lines file, overriding a filesystem table's path (`--input`). */
  readonly inputs?: ReadonlyMap<string, string>;
  /** Recent changelog rows kept for the changelog result mode. @default 1000 */
  readonly recentRows?: number;
  /** Clock. @default Date.now */
  readonly clock?: () => number;
}

const HELP = `Statements end with ';' and may span lines.
  CREATE TABLE … WITH (…) [LIKE …];   CREATE VIEW name AS SELECT …;   CREATE FUNCTION …;
  CREATE DATABASE db;  USE db;  ALTER TABLE name …;  DROP TABLE | VIEW | FUNCTION | DATABASE name;
  SELECT …;                  the result as a table, updated live (Ctrl-C stops a query)
  INSERT INTO t SELECT …;    runs as a background job (so does CREATE TABLE t WITH (…) AS SELECT …)
  EXPLAIN [PLAN FOR | CHANGELOG_MODE, PLAN_ADVICE, JSON_EXECUTION_PLAN, ESTIMATED_COST] …;
  SHOW TABLES | VIEWS | FUNCTIONS | DATABASES | CATALOGS | COLUMNS FROM t | CREATE TABLE t;
  DESCRIBE name;  SHOW JOBS;  STOP JOB '<id>';
  SET;  SET 'key' = 'value';  RESET;  RESET 'key';
      'parallelism.default' = '2'                   shards per stage
      'sql-client.execution.result-mode' = 'table'  or 'changelog'
  HELP;  QUIT;`;

/** One shell session; see the module header. */
export class SqlSession {
  private readonly declarations: Declaration[] = [];
  private readonly shellSettings = new Map<string, string>();
  readonly jobs = new Map<string, ShellJob>();
  private readonly clock: () => number;

  constructor(private readonly options: SqlSessionOptions = {}) {
    this.clock = options.clock ?? Date.now;
  }

  /** Runs one statement. Never throws for a user error: it becomes an `error` outcome. */
  async execute(statement: SplitStatement): Promise<Outcome> {
    const text = statement.text;
    try {
      const word = (/^\s*([A-Za-z]+)(?:\s+([A-Za-z]+))?/.exec(text) ?? []).slice(1).map((w) => w?.toUpperCase());
      const [first, second] = word;
      switch (first) {
        case 'QUIT':
        case 'EXIT':
          return { kind: 'quit' };
        case 'HELP':
          return { kind: 'output', text: HELP };
        case 'SET':
          return this.set(statement);
        case 'RESET':
          return this.reset(text);
        case 'SHOW':
          if (second === 'JOBS') return this.showJobs();
          return await this.listing(statement);
        case 'STOP':
          return await this.stopJob(text);
        case 'DESCRIBE':
        case 'DESC':
          return await this.listing(statement);
        case 'CREATE':
        case 'DROP':
        case 'ALTER':
        case 'USE':
          return this.declare(statement);
        case 'EXPLAIN':
          return await this.explain(statement);
        case 'SELECT':
        case 'WITH':
        case 'VALUES':
          return this.select(statement);
        case 'INSERT':
        case 'EXECUTE':
          return this.insert(statement);
        default:
          throw new PlanError(`unknown statement '${first ?? text.slice(0, 20)}' (HELP; lists what the shell runs)`);
      }
    } catch (error) {
      return { kind: 'error', text: this.describeError(error, statement) };
    }
  }

  /** Stops every running job (the shell is leaving); resolves when they have ended. */
  async stopAll(): Promise<number> {
    const running = [...this.jobs.values()].filter((j) => j.status === 'RUNNING');
    for (const job of running) job.controller.abort(new Error('the shell is leaving'));
    await Promise.allSettled(running.map((j) => j.done));
    return running.length;
  }

  /** Jobs still running. */
  runningJobs(): ShellJob[] {
    return [...this.jobs.values()].filter((j) => j.status === 'RUNNING');
  }

  // ── statements ──────────────────────────────────────────────────────────────────

  private set(statement: SplitStatement): Outcome {
    const text = statement.text.trim();
    if (/^SET$/i.test(text)) {
      const rows = [
        ...[...this.shellSettings].map(([key, value]) => ({ key, value })),
        ...this.declarations.filter((d) => d.kind === 'set').map((d) => ({ key: d.name, value: settingValue(d.text) })),
      ];
      return { kind: 'output', text: rows.length === 0 ? 'Empty set' : renderBoxTable(['key', 'value'], rows).join('\n') };
    }
    const m = /^SET\s+'([^']+)'\s*=\s*'((?:[^']|'')*)'$/is.exec(text);
    if (!m) throw new PlanError("SET takes 'key' = 'value' (both quoted), e.g. SET 'parallelism.default' = '2'");
    const key = m[1] as string;
    const value = (m[2] as string).replace(/''/g, "'");
    if (key === SHELL_SETTINGS.parallelism) {
      if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 10_000) throw new PlanError(`'${key}' must be an integer 1..10000 (given '${value}')`);
      this.shellSettings.set(key, value);
    } else if (key === SHELL_SETTINGS.resultMode) {
      if (value !== 'table' && value !== 'changelog' && value !== 'tableau') throw new PlanError(`'${key}' must be 'table' or 'changelog' (given '${value}')`);
      this.shellSettings.set(key, value === 'tableau' ? 'changelog' : value);
    } else {
      // Other keys belong to the SQL front end: it checks them as `flambda run` would.
      this.check([...this.declarations.filter((d) => !(d.kind === 'set' && d.name === key)), { kind: 'set', name: key, text, origin: statement }]);
      this.replace({ kind: 'set', name: key, text, origin: statement });
    }
    return { kind: 'info', text: 'Execute statement succeeded.' };
  }

  private reset(text: string): Outcome {
    const m = /^RESET(?:\s+'([^']+)')?$/is.exec(text.trim());
    if (!m) throw new PlanError("RESET takes nothing or a quoted key: RESET 'parallelism.default'");
    const key = m[1];
    if (key === undefined) {
      this.shellSettings.clear();
      this.removeWhere((d) => d.kind === 'set');
    } else {
      this.shellSettings.delete(key);
      this.removeWhere((d) => d.kind === 'set' && d.name === key);
    }
    return { kind: 'info', text: 'Execute statement succeeded.' };
  }

  private showJobs(): Outcome {
    const rows = [...this.jobs.values()].map((j) => ({
      'job id': j.id,
      'job name': j.name,
      status: j.status,
      'start time': new Date(j.startedAt).toISOString().replace('T', ' ').replace('Z', ''),
      'rows written': j.rowsWritten,
    }));
    return { kind: 'output', text: rows.length === 0 ? 'Empty set' : renderBoxTable(['job id', 'job name', 'status', 'start time', 'rows written'], rows).join('\n') };
  }

  private async stopJob(text: string): Promise<Outcome> {
    const m = /^STOP\s+JOB\s+'([^']+)'(?:\s+WITH\s+SAVEPOINT)?$/is.exec(text.trim());
    if (!m) throw new PlanError("STOP JOB takes the quoted job id that SHOW JOBS lists: STOP JOB '1a2b3c4d'");
    const job = this.jobs.get(m[1] as string);
    if (job === undefined) throw new PlanError(`no job '${m[1]}' (SHOW JOBS lists them)`);
    if (/WITH\s+SAVEPOINT$/i.test(text.trim())) throw new PlanError('STOP JOB … WITH SAVEPOINT: the embedded runtime keeps no savepoints; STOP JOB without it stops the job');
    if (job.status !== 'RUNNING') return { kind: 'info', text: `Job '${job.id}' is already ${job.status}.` };
    job.controller.abort(new Error('stopped by STOP JOB'));
    await job.done;
    return { kind: 'info', text: `The job '${job.id}' has been stopped (${job.rowsWritten} rows written).` };
  }

  /** SHOW … and DESCRIBE: what the statement prints after the declarations, as in a script. */
  private async listing(statement: SplitStatement): Promise<Outcome> {
    const program = this.check([...this.declarations, { kind: 'catalog', name: '', text: statement.text, origin: statement }]);
    const last = program.outputs[program.outputs.length - 1];
    if (last?.kind !== 'result') throw new FlambdaError('internal: a SHOW or DESCRIBE statement printed nothing', 'internal', 'fail');
    const [text] = await renderStatementOutputs({ ...program, outputs: [last] });
    return { kind: 'output', text: text ?? '' };
  }

  /**
   * CREATE, DROP, ALTER and USE: checked with the declarations before them, then kept. A
   * CREATE TABLE … AS SELECT keeps the table it created (as SHOW CREATE TABLE prints it) and
   * runs its INSERT as a job, as INSERT INTO does.
   */
  private declare(statement: SplitStatement): Outcome {
    const declaration: Declaration = { kind: 'catalog', name: '', text: statement.text, origin: statement };
    const program = this.check([...this.declarations, declaration]);
    const last = program.statements[program.statements.length - 1];
    if (last?.k === 'createTable' && last.asQuery) {
      const before = this.check(this.declarations);
      const key = resolveName(before.catalog, last).key;
      const created = program.catalog.tables.get(key);
      if (!before.catalog.tables.has(key) && created) this.declarations.push({ ...declaration, text: showCreateTable(created.definition) });
      return this.startJob(program, `insert-into_${last.name}`, statement);
    }
    this.declarations.push(declaration);
    return { kind: 'info', text: 'Execute statement succeeded.' };
  }

  private async explain(statement: SplitStatement): Promise<Outcome> {
    // The one way an EXPLAIN statement is explained: compiled with the declarations before it,
    // as a script's EXPLAIN is for `flambda run` and `flambda explain` (statement-outputs.ts).
    const program = this.compile(statement);
    const last = program.outputs[program.outputs.length - 1];
    if (last?.kind !== 'explain') throw new FlambdaError('internal: an EXPLAIN statement compiled to no explained plan', 'internal', 'fail');
    const [text] = await renderStatementOutputs({ ...program, outputs: [last] });
    return { kind: 'output', text: `${text ?? ''}\n\n== Stages ==\n${formatStages(this.graphOf(last.explained.pipeline))}` };
  }

  private select(statement: SplitStatement): Outcome {
    const program = this.compile(statement);
    const graph = this.graphOf(program.pipeline);
    const sink = graph.sinks.find((s) => s.connector.type === 'print');
    if (sink === undefined) throw new FlambdaError('internal: a SELECT without its print sink', 'internal', 'fail');
    const view = new MaterializedView({ ...(sink.upsertKey ? { key: sink.upsertKey } : {}), columns: sink.schema.fields.map((f) => f.name) });
    // The session's time zone, which the print sink carries: a TIMESTAMP_LTZ shows on its clock.
    const encode = createDisplayEncoder(sink.schema, sink.connector.type === 'print' ? sink.connector.timeZone : undefined);
    const controller = new AbortController();
    const limit = this.options.recentRows ?? 1000;
    const query: RunningQuery = {
      columns: sink.schema.fields.map((f) => f.name),
      view,
      recent: [],
      mode: this.shellSettings.get(SHELL_SETTINGS.resultMode) === 'changelog' ? 'changelog' : 'table',
      encode,
      changes: 0,
      startedAt: this.clock(),
      endedAt: undefined,
      status: 'running',
      error: undefined,
      done: Promise.resolve(),
      cancel: () => controller.abort(new Error('canceled')),
    };
    const observer = {
      write: (rows: readonly ChangeRow[]) => {
        query.changes += rows.length;
        for (const r of rows) {
          view.apply(r);
          if (query.mode === 'changelog') {
            query.recent.push({ op: r.kind, row: encode(r.row) });
            if (query.recent.length > limit) query.recent.shift();
          }
        }
      },
    };
    query.done = this.runJob(program.pipeline, graph, new Map([[sink.name, [observer]]]), controller.signal).then(
      () => {
        query.status = 'finished';
        query.endedAt = this.clock();
      },
      (error: unknown) => {
        query.status = controller.signal.aborted ? 'canceled' : 'failed';
        if (!controller.signal.aborted) query.error = error instanceof Error ? error.message : String(error);
        query.endedAt = this.clock();
      },
    );
    return { kind: 'query', query };
  }

  private insert(statement: SplitStatement): Outcome {
    const program = this.compile(statement);
    const target = program.statements.find((s) => s.k === 'insert');
    return this.startJob(program, `insert-into_${target?.k === 'insert' ? target.table : (program.sinks[0]?.name ?? 'job')}`, statement);
  }

  /** Runs a compiled INSERT (or CTAS) as a background job. */
  private startJob(program: SqlProgram, name: string, statement: SplitStatement): Outcome {
    const graph = this.graphOf(program.pipeline);
    const controller = new AbortController();
    const id = randomBytes(4).toString('hex');
    const job: ShellJob = {
      id,
      name,
      statement: statement.text.replace(/\s+/g, ' ').slice(0, 200),
      startedAt: this.clock(),
      endedAt: undefined,
      status: 'RUNNING',
      error: undefined,
      rowsWritten: 0,
      controller,
      done: Promise.resolve(),
    };
    const counter = { write: (rows: readonly ChangeRow[]) => void (job.rowsWritten += rows.length) };
    const observers = new Map(graph.sinks.map((s) => [s.name, [counter]]));
    job.done = this.runJob(program.pipeline, graph, observers, controller.signal).then(
      () => {
        job.status = 'FINISHED';
        job.endedAt = this.clock();
      },
      (error: unknown) => {
        job.status = controller.signal.aborted ? 'CANCELED' : 'FAILED';
        if (!controller.signal.aborted) job.error = error instanceof Error ? error.message : String(error);
        job.endedAt = this.clock();
      },
    );
    this.jobs.set(id, job);
    return { kind: 'info', text: `Submitting SQL update statement to the embedded runtime…\nSQL update statement has been successfully submitted.\nJob ID: ${id}` };
  }

  // ── compiling ───────────────────────────────────────────────────────────────────

  private runJob(pipeline: Pipeline, graph: JobGraph, observers: ReadonlyMap<string, readonly { write(rows: readonly ChangeRow[]): void }[]>, signal: AbortSignal): Promise<unknown> {
    return runEmbeddedJob(graph, {
      code: { functions: pipeline.userFunctions, generators: pipeline.generators },
      ...(this.options.inputs ? { inputs: this.options.inputs } : {}),
      // A shell shows results itself; print sinks of INSERT jobs would write over the prompt.
      sinkSetup: { quiet: true },
      observers,
      signal,
    });
  }

  private graphOf(pipeline: Pipeline): JobGraph {
    const p = Number(this.shellSettings.get(SHELL_SETTINGS.parallelism) ?? '1');
    return pipeline.jobGraph({ parallelism: p });
  }

  private compileOptions(): { inputs?: ReadonlyMap<string, string>; name: string } {
    return { name: 'sql-shell', ...(this.options.inputs ? { inputs: this.options.inputs } : {}) };
  }

  /** Compiles the declarations plus `statement`; errors point into the statement. */
  private compile(statement: SplitStatement): SqlProgram {
    const text = this.withDeclarations(statement);
    try {
      return compileSql(text.text, this.compileOptions());
    } catch (error) {
      throw this.mapError(error, text.pieces);
    }
  }

  /** Compiles declarations only (checking a new one, or what a DROP leaves). */
  private check(declarations: readonly Declaration[]): SqlProgram {
    const pieces = declarations.map((d) => ({ text: d.text, origin: d.origin }));
    const text = joinPieces(pieces);
    try {
      return compileSql(text.text, { ...this.compileOptions(), allowNoQuery: true });
    } catch (error) {
      throw this.mapError(error, text.pieces);
    }
  }

  private withDeclarations(statement: SplitStatement): { text: string; pieces: Piece[] } {
    return joinPieces([...this.declarations.map((d) => ({ text: d.text, origin: d.origin })), { text: statement.text, origin: statement }]);
  }

  /** A SqlError's position in the joined text → the position where that statement was typed. */
  private mapError(error: unknown, pieces: readonly Piece[]): unknown {
    if (!(error instanceof SqlError)) return error;
    const piece = [...pieces].reverse().find((p) => p.startLine <= error.line);
    if (piece === undefined) return error;
    const rel = error.line - piece.startLine + 1;
    const line = piece.origin.line + rel - 1;
    const column = rel === 1 ? piece.origin.column + error.column - 1 : error.column;
    const message = error.message.replace(/^line \d+:\d+: /, '');
    const mapped = new SqlError({ line, column }, message, { cause: error });
    Object.defineProperty(mapped, 'source', { value: { piece, rel, column: error.column } });
    return mapped;
  }

  private describeError(error: unknown, statement: SplitStatement): string {
    if (!(error instanceof FlambdaError)) throw error;
    if (!(error instanceof SqlError)) return error.message;
    const source = (error as SqlError & { source?: { piece: Piece; rel: number; column: number } }).source;
    const where = source !== undefined && source.piece.origin !== statement ? ` (in the earlier statement at line ${source.piece.origin.line})` : '';
    const lines = (source?.piece.text ?? statement.text).split('\n');
    const shown = source === undefined ? undefined : lines[source.rel - 1];
    const caret = shown === undefined || source === undefined ? '' : `\n  ${shown}\n  ${' '.repeat(Math.max(0, source.column - 1))}^`;
    return `${error.message}${where}${caret}`;
  }

  private replace(declaration: Declaration): void {
    this.removeWhere((d) => d.kind === declaration.kind && d.name === declaration.name);
    this.declarations.push(declaration);
  }

  private removeWhere(predicate: (d: Declaration) => boolean): void {
    for (let i = this.declarations.length - 1; i >= 0; i--) if (predicate(this.declarations[i] as Declaration)) this.declarations.splice(i, 1);
  }
}

/** A statement inside a joined script: where it starts there, and where it was typed. */
interface Piece {
  readonly text: string;
  readonly origin: SplitStatement;
  /** 1-based line of the piece's first line in the joined text. */
  readonly startLine: number;
}

/** Joins statements into one script, one after another, remembering where each starts. */
function joinPieces(statements: readonly { text: string; origin: SplitStatement }[]): { text: string; pieces: Piece[] } {
  const pieces: Piece[] = [];
  let line = 1;
  const parts: string[] = [];
  for (const s of statements) {
    pieces.push({ text: s.text, origin: s.origin, startLine: line });
    parts.push(`${s.text};`);
    line += s.text.split('\n').length;
  }
  return { text: parts.join('\n'), pieces };
}

function settingValue(text: string): string {
  return /=\s*'((?:[^']|'')*)'\s*$/s.exec(text)?.[1]?.replace(/''/g, "'") ?? '';
}
