/**
 * The Flink SQL front end: a script of CREATE TABLE / CREATE VIEW / INSERT INTO / SELECT / SET
 * statements → the sources, sinks and logical plan the TypeScript API would build, so
 * `planPipeline`, `jobGraph` and every runtime work unchanged.
 *
 * ```ts
 * const program = compileSql(readFileSync('top-n.sql', 'utf8'), { inputs: new Map([['orders', 'orders.jsonl']]) });
 * program.pipeline.jobGraph({ parallelism: 4 });
 * ```
 */
import { isChangelogFormat } from '../core/formats.ts';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { Pipeline } from '../api/pipeline.ts';
import type { Stream } from '../api/stream.ts';
import { DEFAULT_ERROR_POLICY, ERROR_POLICY_OPTION, parseErrorPolicy } from '../core/errors.ts';
import { formatType } from '../core/type-parse.ts';
import type { Field, LogicalType, Row, TypeRoot } from '../core/types.ts';
import type { Expr } from '../plan/expr.ts';
import { inTimeZone, lit } from '../plan/expr-build.ts';
import { inferType } from '../plan/expr-types.ts';
import { isNested, sameType, typeName } from '../plan/expr-type-rules.ts';
import { implicitlyCastable as implicitlyCastableParts } from '../plan/udf-signature.ts';
import type { CalcColumn } from '../operators/calc/calc-operator.ts';
import type { SinkConnector, SinkNode, SourceNode } from '../plan/logical.ts';
import { compileTable, newCatalog, resolveName, summaryName, withDynamicOptions, type Catalog, type CatalogTable } from './catalog.ts';
import { declareTable, declareView, runCatalogStatement, tableDefinition, type CatalogSession, type DeclaredFunction } from './catalog-statements.ts';
import type { StatementResult } from './catalog-output.ts';
import type { LookupTableSpec } from './connectors.ts';
import { SqlError, atPosition, type SqlPosition } from './errors.ts';
import { compileExpr, scopeOf } from './expressions.ts';
import { readScript } from './reader/read-script.ts';
import { compileQuery } from './query.ts';
import { streamColumnOrder, type QueryContext, type Relation, type SelectedColumn } from './relation.ts';
import type { SqlHint, SqlQuery, SqlStatement } from './ast.ts';
import { createDatagen } from './datagen.ts';
import { settingWarning } from './settings.ts';
import type { UserFunctionDefinition } from '../api/user-functions.ts';
import { withUserFunctions } from './user-functions.ts';
import { sessionTimeZone, setSessionTimeZone, withSessionTimeZone } from './session-time-zone.ts';
import { UTC_ZONE_ID } from '../core/time-zone.ts';

/** Options of {@link compileSql}. */
export interface CompileSqlOptions {
  /** Source table name → JSONL path, overriding a filesystem table's `path` (CLI `--input`). */
  readonly inputs?: ReadonlyMap<string, string>;
  /** Pipeline name. @default 'sql' */
  readonly name?: string;
  /**
   * Accept a script of declarations only (CREATE, SET) — the SQL shell checks each DDL
   * statement this way. @default false: such a script has nothing to run, an error
   */
  readonly allowNoQuery?: boolean;
  /**
   * The user functions `CREATE FUNCTION name AS 'module.ts#export'` names, by that quoted
   * identifier (the CLI imports the modules, relative to the script, before compiling).
   */
  readonly functions?: ReadonlyMap<string, UserFunctionDefinition>;
}

/** A compiled script. */
export interface SqlProgram {
  /** The pipeline holding the plan: `pipeline.plan()`, `.jobGraph()`, `.explain()`. */
  readonly pipeline: Pipeline;
  /** Declared source nodes, in the order the queries read them. */
  readonly sources: readonly SourceNode[];
  /** Declared sink nodes (one per INSERT INTO or SELECT): the roots handed to the planner. */
  readonly sinks: readonly SinkNode[];
  /** Dimension tables of the plan's LookupJoin nodes, by node id. */
  readonly lookupTables: ReadonlyMap<number, LookupTableSpec>;
  /** `SET 'key' = 'value'` options, in order. */
  readonly settings: ReadonlyMap<string, string>;
  /** Warnings, e.g. a literal JDBC password that is kept out of the job graph. */
  readonly warnings: readonly string[];
  /** The parsed statements (for explain's AST section). */
  readonly statements: readonly SqlStatement[];
  /**
   * The script's `EXPLAIN …` statements, each compiled on its own (against the declarations
   * before it) into a pipeline of its own: explained, never run (explain-sql.ts prints them).
   */
  readonly explained: readonly ExplainedStatement[];
  /**
   * What the script's statements print, in order: the results of SHOW and DESCRIBE (each taken
   * when the statement ran, so it sees the catalog as it was then) and the EXPLAIN statements.
   */
  readonly outputs: readonly StatementOutput[];
  /** The catalog as the script leaves it. */
  readonly catalog: Catalog;
}

/** What one statement prints. */
export type StatementOutput =
  | { readonly kind: 'result'; readonly pos: SqlPosition; readonly result: StatementResult }
  | { readonly kind: 'explain'; readonly pos: SqlPosition; readonly explained: ExplainedStatement };

/** The EXPLAIN details Flambda prints (Flink's ExplainDetail). */
export const EXPLAIN_DETAILS = ['CHANGELOG_MODE', 'ESTIMATED_COST', 'JSON_EXECUTION_PLAN', 'PLAN_ADVICE'] as const;

/** An `EXPLAIN [PLAN FOR | detail, …] statement` of a script, compiled apart from the job. */
export interface ExplainedStatement {
  /** Where the EXPLAIN starts. */
  readonly pos: SqlPosition;
  /** `CHANGELOG_MODE`, `ESTIMATED_COST`, … as written. */
  readonly details: readonly string[];
  /** The explained statement's pipeline and sinks (a print sink for a query). */
  readonly pipeline: Pipeline;
  readonly sinks: readonly SinkNode[];
  /** The `SET` options in force at the EXPLAIN (PLAN_ADVICE reads the state TTL). */
  readonly settings: ReadonlyMap<string, string>;
}

/**
 * Compiles a Flink SQL script.
 *
 * @throws SqlError (`line L:C: …`) for syntax errors, unknown tables/columns, type errors and
 *   unsupported constructs.
 */
export function compileSql(text: string, options: CompileSqlOptions = {}): SqlProgram {
  const statements = readScript(text);
  const pipeline = new Pipeline(options.name ?? 'sql');
  const catalog: Catalog = newCatalog();
  const sources: SourceNode[] = [];
  const sinks: SinkNode[] = [];
  const settings = new Map<string, string>();
  const ctx: QueryContext = {
    pipeline,
    catalog,
    usedSources: new Map(),
    lookups: new Map(),
    warnings: [],
    settings,
    source: (name, pos, hints) => declareSource(ctx, name, pos, sources, hints),
  };
  let prints = 0;
  const userFunctions = new Map<string, UserFunctionDefinition>();
  const declaredFunctions = new Map<string, DeclaredFunction>();
  const explained: ExplainedStatement[] = [];
  const outputs: StatementOutput[] = [];
  /** A query compiled apart from the job (DESCRIBE of a view): its columns only. */
  const columnsApart = (query: SqlQuery): readonly Field[] => {
    const apart = new Pipeline(`${pipeline.name}-describe`);
    const apartCtx: QueryContext = { ...ctx, pipeline: apart, usedSources: new Map(), lookups: new Map(), warnings: [], source: (name, pos, hints) => declareSource(apartCtx, name, pos, [], hints) };
    return withUserFunctions(userFunctions, apart, () => selectedFields(compileQuery(query, apartCtx)));
  };
  const session: CatalogSession = {
    catalog,
    functions: userFunctions,
    declaredFunctions,
    ...(options.inputs ? { inputs: options.inputs } : {}),
    viewFields: (_key, view) => {
      const fields = columnsApart(view.query);
      return view.columns ? fields.map((f, i) => ({ ...f, name: view.columns?.[i] ?? f.name })) : fields;
    },
  };
  /** The sinks of a query, INSERT or STATEMENT SET, compiled in `c`. */
  const sinksOf = (stmt: SqlStatement, c: QueryContext, nextPrint: () => string): SinkNode[] => {
    switch (stmt.k) {
      case 'select':
        return [addSink(resultOf(stmt.query, compileQuery(stmt.query, c)).stream, nextPrint(), printConnector(), undefined, stmt.pos)];
      case 'insert':
        return [insertInto(c, stmt, resultOf(stmt.query, compileQuery(stmt.query, c)))];
      case 'statementSet':
        // The INSERTs of a statement set run as one job, as every INSERT of a script does here.
        return stmt.inserts.map((insert) => insertInto(c, insert, resultOf(insert.query, compileQuery(insert.query, c))));
      default:
        throw new SqlError(stmt.pos, `EXPLAIN takes a query, an INSERT or a STATEMENT SET, not ${statementName(stmt)}`);
    }
  };
  withSessionTimeZone(() => withUserFunctions(userFunctions, pipeline, () => {
  for (const stmt of statements) {
    switch (stmt.k) {
      case 'createTable':
        if (stmt.asQuery) sinks.push(createTableAs(ctx, session, stmt, stmt.asQuery));
        else declareTable(stmt, session);
        break;
      case 'createView':
        declareView(stmt, session);
        break;
      case 'set': {
        // A batch job's result is its final rows; a streaming job's is a changelog. Running a
        // script written for batch mode as a stream would change what its sinks receive.
        if (stmt.key === 'execution.runtime-mode' && stmt.value.toLowerCase() !== 'streaming') {
          throw new SqlError(stmt.pos, `SET 'execution.runtime-mode' = '${stmt.value}' is not supported: Flambda runs every job in streaming mode`);
        }
        settings.set(stmt.key, stmt.value);
        const warning = settingWarning(stmt.key, stmt.pos);
        if (warning !== undefined) ctx.warnings.push(warning);
        // The one job-wide option the runtimes read (the others shape the plan, in query.ts).
        if (stmt.key === ERROR_POLICY_OPTION) pipeline.errorPolicy = atPosition(stmt.pos, () => parseErrorPolicy(stmt.value));
        if (stmt.key === 'table.local-time-zone') atPosition(stmt.pos, () => setSessionTimeZone(stmt.value));
        break;
      }
      case 'reset':
        // `RESET 'key'` (or `RESET`, every key): back to the default, as in Flink's SQL client.
        if (stmt.key === undefined) settings.clear();
        else settings.delete(stmt.key);
        if (stmt.key === undefined || stmt.key === ERROR_POLICY_OPTION) pipeline.errorPolicy = DEFAULT_ERROR_POLICY;
        break;
      case 'select':
      case 'insert':
        sinks.push(
          ...sinksOf(stmt, ctx, () => {
            prints++;
            return prints === 1 ? 'print' : `print_${prints}`;
          }),
        );
        break;
      case 'explain': {
        // Compiled now, so errors point into the script and see only the declarations above
        // it, but into a pipeline of its own: an explained statement does not run.
        const sub = new Pipeline(`${pipeline.name}-explain-${explained.length + 1}`);
        const subSources: SourceNode[] = [];
        const subCtx: QueryContext = { ...ctx, pipeline: sub, usedSources: new Map(), lookups: new Map(), warnings: ctx.warnings, source: (name, pos, hints) => declareSource(subCtx, name, pos, subSources, hints) };
        const subSinks = withUserFunctions(userFunctions, sub, () => sinksOf(stmt.statement, subCtx, () => 'print'));
        const entry: ExplainedStatement = { pos: stmt.pos, details: stmt.details, pipeline: sub, sinks: subSinks, settings: new Map(settings) };
        explained.push(entry);
        outputs.push({ kind: 'explain', pos: stmt.pos, explained: entry });
        break;
      }
      case 'createFunction': {
        const upper = stmt.name.toUpperCase();
        if (declaredFunctions.has(upper)) {
          if (stmt.ifNotExists) break;
          throw new SqlError(stmt.pos, `function '${stmt.name}' is declared twice`);
        }
        if (stmt.qualifier) resolveName(catalog, stmt);
        const fn = options.functions?.get(stmt.identifier);
        if (fn === undefined) {
          throw new SqlError(stmt.pos, `CREATE FUNCTION ${stmt.name}: '${stmt.identifier}' is not loaded (flambda run and explain import 'module.ts#export' relative to the script)`);
        }
        userFunctions.set(upper, fn);
        declaredFunctions.set(upper, { name: stmt.name, temporary: stmt.temporary ?? false, system: stmt.system ?? false });
        break;
      }
      case 'drop':
      case 'show':
      case 'describe':
      case 'use':
      case 'createDatabase':
      case 'alterTable':
      case 'alterView': {
        const result = runCatalogStatement(stmt, session);
        if (result !== undefined) outputs.push({ kind: 'result', pos: stmt.pos, result });
        break;
      }
      case 'statementSet':
        sinks.push(...sinksOf(stmt, ctx, () => 'print'));
        break;
    }
  }
  }));
  if (!options.allowNoQuery && sinks.length === 0 && outputs.length === 0) {
    throw new SqlError({ line: 1, column: 1 }, 'the script has no INSERT INTO or SELECT statement: nothing to run');
  }
  return { pipeline, sources, sinks, lookupTables: ctx.lookups, settings, warnings: ctx.warnings, statements, explained, outputs, catalog };
}

/**
 * `CREATE TABLE t WITH (…) AS query` (Flink's CTAS): the table takes the query's columns (names,
 * types and nullability; a time attribute becomes a plain TIMESTAMP(3) column) and the query's
 * rows go into it, as `CREATE TABLE t (…) WITH (…); INSERT INTO t query` would. With IF NOT EXISTS
 * and the table there already, Flink skips the creation and inserts into the table it finds.
 */
function createTableAs(ctx: QueryContext, session: CatalogSession, stmt: Extract<SqlStatement, { k: 'createTable' }>, as: NonNullable<Extract<SqlStatement, { k: 'createTable' }>['asQuery']>): SinkNode {
  const r = resultOf(as.query, compileQuery(as.query, ctx));
  const def = tableDefinition(stmt, session);
  if (def !== undefined) {
    const columns = r.stream.schema.fields.map((f) => ({ name: f.name, type: formatType(f.type), pos: as.pos }));
    const key = resolveName(ctx.catalog, stmt).key;
    ctx.catalog.tables.set(key, compileTable(key, { ...def, columns }, session.inputs));
  }
  const insert = { k: 'insert', table: stmt.name, ...(stmt.qualifier ? { qualifier: stmt.qualifier } : {}), query: as.query, pos: stmt.pos, text: as.text } as const;
  return insertInto(ctx, insert, r);
}

/** Why a PARTITIONED BY table is neither read nor written. */
function partitionedMessage(table: CatalogTable): string {
  return `table '${table.definition.name}' is PARTITIONED BY (${(table.definition.partitionedBy ?? []).join(', ')}): reading and writing partitioned tables is not supported yet`;
}

/** The print sink of a bare SELECT: it shows a TIMESTAMP_LTZ in the session time zone. */
function printConnector(): SinkConnector {
  const zone = sessionTimeZone();
  return zone === UTC_ZONE_ID ? { type: 'print' } : { type: 'print', timeZone: zone };
}

/**
 * A statement's result. PROCTIME() attributes its select list names (or its `*` takes in) are
 * virtual in the relation, so that windows, lookup joins and deduplication can read the clock;
 * written into a result, Flink materializes them as the TIMESTAMP_LTZ(3) time the row is
 * processed (its PROCTIME_MATERIALIZE), and so does this Calc, at their places in the select list.
 */
function resultOf(query: SqlQuery, r: Relation): Relation {
  // A WITH query's result is its body's.
  while (query.k === 'with') query = query.body;
  if (query.k !== 'select') return r;
  const order = selectedColumns(r);
  if (!order.some((o) => 'proctime' in o)) return r;
  const projection: CalcColumn[] = order.map((o) =>
    'column' in o ? { name: o.column, expr: { kind: 'ref', name: o.column } } : { name: o.proctime, expr: { kind: 'call', fn: 'CURRENT_TIMESTAMP', args: [] } },
  );
  const stream = atPosition(query.pos, () => r.stream.calc(projection));
  return { stream, scope: scopeOf(stream.schema, r.scope.description, r.scope.columns[0]?.qualifiers ?? []) };
}

/** A relation's columns as its select list orders them, its virtual PROCTIME() attributes included. */
function selectedColumns(r: Relation): readonly SelectedColumn[] {
  const columns = r.stream.schema.fields.map((f) => ({ column: f.name }));
  if (!r.scope.columns.some((c) => c.proctime)) return columns;
  return r.selectOrder ?? streamColumnOrder(r);
}

/**
 * The columns a view's query gives, as DESCRIBE and SHOW CREATE VIEW list them: a PROCTIME()
 * attribute at its place in the select list, typed `TIMESTAMP_LTZ(3) NOT NULL` (Flink's
 * `TIMESTAMP_LTZ(3) *PROCTIME*`).
 */
function selectedFields(r: Relation): Field[] {
  const fields = r.stream.schema.fields;
  return selectedColumns(r).map((o) =>
    'column' in o ? fields.find((f) => f.name === o.column)! : { name: o.proctime, type: { root: 'TIMESTAMP_LTZ', nullable: false, precision: 3 }, timeAttribute: 'proctime' },
  );
}

function declareSource(ctx: QueryContext, name: string, pos: SqlPosition, sources: SourceNode[], hints: readonly SqlHint[] = []): Relation {
  const declared = ctx.catalog.tables.get(name);
  if (!declared) {
    const known = [...ctx.catalog.tables.keys(), ...ctx.catalog.views.keys()];
    throw new SqlError(pos, `unknown table '${name}' (declared: ${known.join(', ') || 'none'})`);
  }
  const { table, key, sourceName } = hintedTable(ctx, declared, hints);
  const c = table.connector;
  if (table.definition.partitionedBy) throw new SqlError(pos, partitionedMessage(table));
  if (!c.source && !c.datagen) {
    throw new SqlError(pos, `table '${name}' (connector '${c.name}') cannot be read as a stream${c.lookup ? ': use it in JOIN … FOR SYSTEM_TIME AS OF' : ''}`);
  }
  // A table read again (a self-join, two INSERTs) is the same stream; the planner gives every
  // consumer after the first its own copy of the source (plan/rules/unshare.ts).
  const known = ctx.usedSources.get(key);
  if (known) return known;
  const columns = Object.fromEntries(table.physical.fields.map((f) => [f.name, f.type]));
  // Computed columns compile over the physical columns only, as in Flink.
  const physicalScope = scopeOf(table.physical, `table '${name}'`, [name]);
  const computedExprs = table.computed.map((col) => ({ name: col.name, expr: compileExpr(col.expr, physicalScope) }));
  // A watermark on a computed column: the source tracks event time by its expression.
  const rowtimeExpr = computedExprs.find((c) => c.name === table.watermark?.column)?.expr;
  if (rowtimeExpr !== undefined) {
    const type = atPosition(table.pos, () => inferType(rowtimeExpr, table.physical));
    if (type.root !== 'TIMESTAMP' && type.root !== 'TIMESTAMP_LTZ') throw new SqlError(table.pos, `watermark column '${table.watermark?.column}' of table '${name}' must be TIMESTAMP(3) or TIMESTAMP_LTZ(3) (its expression is ${type.root})`);
  }
  const watermark = table.watermark && rowtimeExpr ? { ...table.watermark, expr: rowtimeExpr } : table.watermark;
  const stream = atPosition(pos, () =>
    ctx.pipeline.source(sourceName, {
      schema: columns,
      ...(watermark ? { watermark } : {}),
      ...(c.source ? { connector: c.source } : {}),
      ...(c.datagen ? { generator: createDatagen(table.physical, c.datagen), rowsPerSecond: c.datagen.rowsPerSecond, ...(c.datagen.rows === undefined ? { unbounded: true } : {}) } : {}),
      // Change events must stay in order per key, which one source shard keeps (a Debezium
      // stream is ordered by its partitions; spreading it round-robin would reorder a key's changes).
      ...(table.parallelism !== undefined ? { parallelism: table.parallelism } : c.source?.type !== 'generator' && isChangelogFormat(c.source?.format) ? { parallelism: 1 } : {}),
      ...(table.primaryKey !== undefined ? { primaryKey: table.primaryKey } : {}),
    }),
  ) as unknown as Stream<Row>;
  sources.push(stream.node as SourceNode);
  // The columns in their declared order, as Flink's `*` takes them: computed columns and
  // PROCTIME() attributes at their places among the physical ones.
  const order = table.definition.columns.map((col) => col.name);
  const place = (n: string): number => order.indexOf(n);
  let rel: Relation = { stream, scope: scopeOf(stream.schema, `table '${name}'`, [name], table.proctime) };
  if (table.computed.length > 0) {
    const projection: CalcColumn[] = stream.schema.fields.map((f) => ({ name: f.name, expr: { kind: 'ref', name: f.name } }));
    for (const col of computedExprs) {
      projection.push(col.expr === rowtimeExpr ? { ...col, timeAttribute: 'rowtime' } : col);
    }
    projection.sort((a, b) => place(a.name) - place(b.name));
    const computed = atPosition(table.pos, () => stream.calc(projection));
    rel = { stream: computed, scope: scopeOf(computed.schema, `table '${name}'`, [name], table.proctime) };
  }
  rel = { ...rel, scope: { ...rel.scope, columns: [...rel.scope.columns].sort((a, b) => place(a.name) - place(b.name)) } };
  ctx.usedSources.set(key, rel);
  return rel;
}

/**
 * The table as `name /*+ OPTIONS(…) *\/` reads it (Flink's dynamic table options, the one kind of
 * table hint Flink has): when the options change what is read, a source of its own, named
 * `name_options<n>`, cached by the options so a table read twice with one hint is one stream.
 */
function hintedTable(ctx: QueryContext, table: CatalogTable, hints: readonly SqlHint[]): { table: CatalogTable; key: string; sourceName: string } {
  const plain = { table, key: table.name, sourceName: table.name };
  const options = new Map<string, string>();
  for (const hint of hints) {
    if (hint.name !== 'OPTIONS') throw new SqlError(hint.pos, `unknown table hint '${hint.name}' on table '${table.name}' (a table takes OPTIONS('key'='value', …))`);
    for (const [k, v] of hint.options) options.set(k, v);
  }
  if (options.size === 0) return plain;
  const hinted = withDynamicOptions(table, options, (hints[0] as SqlHint).pos);
  const shape = (t: CatalogTable): string => JSON.stringify([t.connector, t.parallelism, t.watermark, t.computed]);
  if (shape(hinted) === shape(table)) return plain;
  const key = `${table.name} ${JSON.stringify([...options])}`;
  const hintedBefore = [...ctx.usedSources.keys()].filter((k) => k.startsWith(`${table.name} `)).length;
  let sourceName = `${table.name}_options${hintedBefore + 1}`;
  while (ctx.catalog.tables.has(sourceName)) sourceName += '_';
  return { table: hinted, key, sourceName };
}

function insertInto(ctx: QueryContext, stmt: Extract<SqlStatement, { k: 'insert' }>, r: Relation): SinkNode {
  const target_ = resolveName(ctx.catalog, { name: stmt.table, ...(stmt.qualifier ? { qualifier: stmt.qualifier } : {}), pos: stmt.pos });
  const declared = ctx.catalog.tables.get(target_.key);
  if (!declared) throw new SqlError(stmt.pos, `unknown sink table '${stmt.table}' (declared: ${[...ctx.catalog.tables.keys()].join(', ')})`);
  const { table } = hintedTable(ctx, declared, stmt.hints ?? []);
  const sink = table.connector.sink;
  if (!sink) throw new SqlError(stmt.pos, `table '${stmt.table}' (connector '${table.connector.name}') cannot be written to`);
  if (stmt.overwrite) {
    // Flink has no INSERT OVERWRITE in streaming mode: its filesystem sink refuses it, other
    // sinks do not implement SupportsOverwrite.
    const reason =
      table.connector.name === 'filesystem'
        ? 'the filesystem sink refuses it in streaming mode (Flink: "Streaming mode not support overwrite.")'
        : `INSERT OVERWRITE requires that the underlying DynamicTableSink of table '${summaryName(target_.database, target_.name)}' implements the SupportsOverwrite interface.`;
    throw new SqlError(stmt.pos, `INSERT OVERWRITE is not supported: ${reason}`);
  }
  if (table.definition.partitionedBy) throw new SqlError(stmt.pos, partitionedMessage(table));
  const target = table.physical.fields;
  const got = r.stream.schema.fields;
  // Which query column feeds each target column: by position, or by the INSERT column list
  // (target columns not listed get NULL).
  let sourceOf: (number | undefined)[];
  if (stmt.columns) {
    const listed = stmt.columns.map((c) => {
      const i = target.findIndex((f) => f.name === c.name);
      if (i < 0) throw new SqlError(c.pos, `unknown column '${c.name}' in table '${stmt.table}' (columns: ${target.map((f) => f.name).join(', ')})`);
      return i;
    });
    if (listed.length !== got.length) {
      throw new SqlError(stmt.query.pos, `INSERT INTO ${stmt.table}: ${listed.length} target columns but the query has ${got.length} (${got.map((f) => f.name).join(', ')})`);
    }
    sourceOf = target.map((_, t) => {
      const i = listed.indexOf(t);
      return i < 0 ? undefined : i;
    });
  } else {
    if (target.length !== got.length) {
      throw new SqlError(stmt.query.pos, `INSERT INTO ${stmt.table}: the query has ${got.length} columns (${got.map((f) => f.name).join(', ')}) but the table has ${target.length} (${target.map((f) => f.name).join(', ')})`);
    }
    sourceOf = target.map((_, i) => i);
  }
  // Flink casts a query column to its sink column only where the cast is implicit (widening):
  // DOUBLE into an INT column is a rejected INSERT, not a silent truncation.
  target.forEach((f, t) => {
    const index = sourceOf[t];
    const from = index === undefined ? undefined : got[index];
    if (from && !implicitlyCastable(from.type, f.type)) {
      // A nested type by its whole text (its parts are what differ), others by their root.
      const shown = (t: LogicalType): string => (isNested(t) ? typeName(t) : t.root);
      const [a, b] = [shown(from.type), shown(f.type)];
      throw new SqlError(
        stmt.query.pos,
        `INSERT INTO ${stmt.table}: column '${from.name}' is ${a} but the sink column '${f.name}' is ${b}, ` +
          `which ${a} does not cast to implicitly; CAST it explicitly (CAST(${from.name} AS ${b}))`,
      );
    }
  });
  // Rename (and cast where the types differ); skip the Calc when nothing changes.
  let stream = r.stream;
  const same = target.every((f, i) => sourceOf[i] === i && f.name === got[i]?.name && got[i] !== undefined && sameSinkType(got[i].type, f.type));
  if (!same) {
    const projection = target.map((f, i) => {
      const index = sourceOf[i];
      if (index === undefined) return { name: f.name, expr: lit(null, { ...f.type, nullable: true }) as Expr };
      const from = got[index] as (typeof got)[number];
      const ref: Expr = { kind: 'ref', name: from.name };
      // The cast keeps the query column's nullability: a NULL into a NOT NULL column is the sink's check.
      // A cast between TIMESTAMP and TIMESTAMP_LTZ reads the wall clock in the session time zone.
      return { name: f.name, expr: sameSinkType(from.type, f.type) ? ref : inTimeZone({ kind: 'cast', expr: ref, type: { ...f.type, nullable: from.type.nullable } }, sessionTimeZone()) };
    });
    stream = atPosition(stmt.query.pos, () => r.stream.calc(projection));
  }
  const zone = sessionTimeZone();
  return addSink(stream, target_.key, sink.type === 'print' && zone !== UTC_ZONE_ID ? { ...sink, timeZone: zone } : sink, table.primaryKey, stmt.pos, target);
}

/**
 * Whether a query column's values are already the sink column's: the same root, for ROW, ARRAY
 * and MAP the same type with the same field names, and for DECIMAL the same precision and scale
 * (a DECIMAL value is held scaled by its type's scale, so DECIMAL(5, 0) into DECIMAL(10, 2) must
 * be cast, or 3 would read as 0.03).
 */
function sameSinkType(from: LogicalType, to: LogicalType): boolean {
  if (from.root !== to.root) return false;
  // A ROW's values are objects by field name, so a ROW into a ROW column is cast to its names
  // (and nested DECIMALs to their scales), as Flink's sink writes the declared fields.
  if (isNested(from)) return sameType(from, to);
  if (from.root === 'TIME') return (from.precision ?? 0) <= (to.precision ?? 0);
  return from.root !== 'DECIMAL' || (from.precision === to.precision && from.scale === to.scale);
}

/**
 * Flink's implicit casts into a sink column: the same root, a widening of numbers, among
 * date-time types a TIMESTAMP into a TIMESTAMP_LTZ, DATE or TIME column and a TIMESTAMP_LTZ into
 * a TIMESTAMP one, and a ROW, ARRAY or MAP into one of its kind whose parts cast implicitly, field
 * names aside (LogicalTypeCasts; the nested rule is udf-signature.ts's).
 */
function implicitlyCastable(fromType: LogicalType, toType: LogicalType): boolean {
  if (isNested(fromType) || isNested(toType)) return implicitlyCastableParts(fromType, toType);
  const [from, to] = [fromType.root, toType.root];
  if (from === to) return true;
  const widening: Partial<Record<TypeRoot, readonly TypeRoot[]>> = {
    TINYINT: ['SMALLINT', 'INT', 'BIGINT', 'DECIMAL', 'FLOAT', 'DOUBLE'],
    SMALLINT: ['INT', 'BIGINT', 'DECIMAL', 'FLOAT', 'DOUBLE'],
    INT: ['BIGINT', 'DECIMAL', 'FLOAT', 'DOUBLE'],
    BIGINT: ['DECIMAL', 'FLOAT', 'DOUBLE'],
    DECIMAL: ['FLOAT', 'DOUBLE'],
    FLOAT: ['DOUBLE'],
    TIMESTAMP: ['TIMESTAMP_LTZ', 'DATE', 'TIME'],
    TIMESTAMP_LTZ: ['TIMESTAMP'],
  };
  return widening[from]?.includes(to) ?? false;
}

/** Adds a sink node as `Stream.sinkTo` does, keeping the node (the planner's root). */
function addSink(stream: Stream<Row>, name: string, connector: SinkConnector, upsertKey: readonly string[] | undefined, pos: SqlPosition, declared?: readonly Field[]): SinkNode {
  // A declared NOT NULL column stays NOT NULL in the sink's schema: the job graph then enforces it.
  const notNull = new Set((declared ?? []).filter((f) => !f.type.nullable).map((f) => f.name));
  const schema = notNull.size === 0 ? stream.schema : { fields: stream.schema.fields.map((f) => (notNull.has(f.name) && f.type.nullable ? { ...f, type: { ...f.type, nullable: false } } : f)) };
  const node: SinkNode = {
    type: 'Sink',
    id: stream.pipeline.nextId(),
    input: stream.node,
    name,
    connector,
    schema,
    ...(upsertKey ? { upsertKey } : {}),
  };
  atPosition(pos, () => stream.pipeline.addSink(node));
  return node;
}

/**
 * Reads and compiles a `.sql` file; the pipeline is named after the file (`q15.sql` →
 * `q15`), as a TypeScript pipeline module names its own.
 *
 * @throws SqlError prefixed with the file name, e.g. `q15.sql: line 3:15: unknown column …`.
 */
export function compileSqlFile(path: string, options: Omit<CompileSqlOptions, 'name'> = {}): SqlProgram {
  const text = readFileSync(path, 'utf8');
  const base = basename(path).replace(/\.sql$/i, '');
  const name = /^[A-Za-z][A-Za-z0-9_-]*$/.test(base) ? base : `sql-${base.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  try {
    return compileSql(text, { ...options, name });
  } catch (e) {
    if (e instanceof SqlError) {
      const wrapped = new SqlError({ line: e.line, column: e.column }, e.message.replace(/^line \d+:\d+: /, ''), { cause: e });
      wrapped.message = `${basename(path)}: ${e.message}`;
      throw wrapped;
    }
    throw e;
  }
}

/** What users call a statement kind, for errors about it. */
function statementName(stmt: SqlStatement): string {
  switch (stmt.k) {
    case 'createFunction':
      return 'CREATE FUNCTION';
    case 'statementSet':
      return 'STATEMENT SET';
    case 'explain':
      return 'EXPLAIN';
    case 'reset':
      return 'RESET';
    default:
      return stmt.k;
  }
}
