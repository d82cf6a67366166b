/**
 * The state and statements of a `flambda sql` session, apart from the terminal: the
 * declarations made so far (CREATE TABLE / VIEW, SET), the shell's own settings, the jobs
 * started by INSERT INTO, and what each statement does.
 *
 * Every SQL statement goes through the SQL front end (shared/sql/compile-sql.ts) together with
 * the session's declarations, so the shell accepts and rejects exactly what `flambda run
 * script.sql` does. Errors keep their line and column, mapped back to where the statement was
 * typed (or where it is in the script).
 */
import { randomBytes } from 'node:crypto';
import { FlambdaError, PlanError } from '../../core/errors.ts';
import { formatType } from '../../core/type-parse.ts';
import type { Pipeline } from '../../api/pipeline.ts';
import type { JobGraph } from '../../plan/job-graph.ts';
import { runEmbeddedJob } from '../../runtime/embedded/embedded-runtime.ts';
import { MaterializedView } from '../../runtime/materialized-view.ts';
import { compileSql, type SqlProgram } from '../../sql/compile-sql.ts';
import { SqlError } from '../../sql/errors.ts';
import { explainStatements } from '../../sql/explain-sql.ts';
import { formatStages } from '../explain-command.ts';
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
  readonly kind: 'table' | 'view' | 'set';
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
  CREATE TABLE … WITH (…);   CREATE VIEW name AS SELECT …;   DROP TABLE name;   DROP VIEW name;
  SELECT …;                  the result as a table, updated live (Ctrl-C stops a query)
  INSERT INTO t SELECT …;    runs as a background job
  EXPLAIN [PLAN FOR] …;      the plan of a SELECT or INSERT
  SHOW TABLES;  SHOW JOBS;  STOP JOB '<id>';  DESCRIBE name;
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
          if (second === 'TABLES') return this.showTables();
          if (second === 'JOBS') return this.showJobs();
          throw new PlanError(`SHOW ${second ?? ''}: the shell knows SHOW TABLES and SHOW JOBS`);
        case 'STOP':
          return this.stopJob(text);
        case 'DESCRIBE':
        case 'DESC':
          return this.describe(text);
        case 'DROP':
          return this.drop(text);
        case 'CREATE':
          return this.declare(statement);
        case 'EXPLAIN':
          return this.explain(statement);
        case 'SELECT':
        case 'WITH':
          return this.select(statement);
        case 'INSERT':
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

  private showTables(): Outcome {
    const rows = this.declarations.filter((d) => d.kind !== 'set').map((d) => ({ 'table name': d.name, kind: d.kind }));
    return { kind: 'output', text: rows.length === 0 ? 'Empty set' : renderBoxTable(['table name', 'kind'], rows).join('\n') };
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

  private describe(text: string): Outcome {
    const m = /^DESC(?:RIBE)?\s+`?([A-Za-z_][\w]*)`?$/is.exec(text.trim());
    if (!m) throw new PlanError('DESCRIBE takes a table or view name');
    const name = m[1] as string;
    const decl = this.declarations.find((d) => d.kind !== 'set' && d.name === name);
    if (decl === undefined) throw new PlanError(`no table or view '${name}' (SHOW TABLES lists them)`);
    if (decl.kind === 'table') {
      const program = this.check(this.declarations);
      const stmt = program.statements.find((s) => s.k === 'createTable' && s.name === name);
      if (stmt?.k === 'createTable') {
        const rows = stmt.columns.map((c) => ({ name: c.name, type: c.type ?? (c.computed ? '(computed)' : '?'), key: c.primaryKey || stmt.primaryKey?.includes(c.name) ? 'PRI' : '' }));
        return { kind: 'output', text: renderBoxTable(['name', 'type', 'key'], rows).join('\n') };
      }
    }
    const graph = this.graphOf(this.compile({ text: `SELECT * FROM ${name}`, line: 1, column: 1 }).pipeline);
    // Flink prints VARCHAR of the largest length as STRING.
    const rows = (graph.sinks[0]?.schema.fields ?? []).map((f) => ({ name: f.name, type: formatType(f.type).replace(/^VARCHAR\(2147483647\)/, 'STRING'), key: '' }));
    return { kind: 'output', text: renderBoxTable(['name', 'type', 'key'], rows).join('\n') };
  }

  private drop(text: string): Outcome {
    const m = /^DROP\s+(TABLE|VIEW)\s+(IF\s+EXISTS\s+)?`?([A-Za-z_][\w]*)`?$/is.exec(text.trim());
    if (!m) throw new PlanError('DROP takes TABLE or VIEW and a name: DROP TABLE orders');
    const kind = (m[1] as string).toLowerCase() as 'table' | 'view';
    const name = m[3] as string;
    const exists = this.declarations.some((d) => d.kind === kind && d.name === name);
    if (!exists) {
      if (m[2]) return { kind: 'info', text: 'Execute statement succeeded.' };
      throw new PlanError(`no ${kind} '${name}' (SHOW TABLES lists them)`);
    }
    // As in Flink, a view that reads the dropped table fails when it is next used.
    this.removeWhere((d) => d.kind === kind && d.name === name);
    return { kind: 'info', text: 'Execute statement succeeded.' };
  }

  private declare(statement: SplitStatement): Outcome {
    const program = this.check([...this.declarations, { kind: 'table', name: '', text: statement.text, origin: statement }]);
    const last = program.statements[program.statements.length - 1];
    if (last?.k !== 'createTable' && last?.k !== 'createView') throw new PlanError('CREATE: the shell runs CREATE TABLE and CREATE VIEW');
    this.declarations.push({ kind: last.k === 'createTable' ? 'table' : 'view', name: last.name, text: statement.text, origin: statement });
    return { kind: 'info', text: 'Execute statement succeeded.' };
  }

  private explain(statement: SplitStatement): Outcome {
    const m = /^EXPLAIN(\s+PLAN\s+FOR)?\s+/is.exec(statement.text);
    const skipped = m?.[0] ?? 'EXPLAIN ';
    const inner = shifted(statement, skipped);
    if (!/^(SELECT|WITH|INSERT)\b/i.test(inner.text)) throw new PlanError('EXPLAIN takes a SELECT or INSERT INTO statement');
    // The one way an EXPLAIN statement is explained: compiled with the declarations before it,
    // as a script's EXPLAIN is for `flambda run` and `flambda explain` (explainStatements).
    const program = this.compile(statement);
    const explained = program.explained[0];
    if (explained === undefined) throw new FlambdaError('internal: an EXPLAIN statement compiled to no explained plan', 'internal', 'fail');
    const out = `${explainStatements(program)[0] ?? ''}\n\n== Stages ==\n${formatStages(this.graphOf(explained.pipeline))}`;
    return { kind: 'output', text: out };
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
    const graph = this.graphOf(program.pipeline);
    const target = program.statements.find((s) => s.k === 'insert');
    const name = `insert-into_${target?.k === 'insert' ? target.table : graph.sinks[0]?.name}`;
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

/** The statement after its first `skip` characters (EXPLAIN's prefix), with its position moved. */
function shifted(statement: SplitStatement, skip: string): SplitStatement {
  const lines = skip.split('\n');
  const line = statement.line + lines.length - 1;
  const column = lines.length === 1 ? statement.column + skip.length : (lines[lines.length - 1] as string).length + 1;
  return { text: statement.text.slice(skip.length), line, column };
}

function settingValue(text: string): string {
  return /=\s*'((?:[^']|'')*)'\s*$/s.exec(text)?.[1]?.replace(/''/g, "'") ?? '';
}
