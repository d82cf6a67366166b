/**
 * The conformance suite's one runner: compiles a case's script (its fixture tables' DDL, then
 * its SQL), runs it on the embedded runtime and returns the final rows of its one sink as
 * `v1, v2, …` text (sorted), or its changelog in order. Values are printed the way Flink's
 * SQL client prints them: TIMESTAMP(3) as `2024-01-01 10:00:00.000`, DATE as `2024-01-01`, TIME(0)
 * as `10:00:00`, TIMESTAMP_LTZ(3) in the session time zone, DECIMAL with its scale, NULL as `NULL`.
 */
import type { ChangeRow } from '../../../shared/core/row.ts';
import type { Field, LogicalType, Value } from '../../../shared/core/types.ts';
import { formatFloat, nestedText } from '../../../shared/plan/expr-cast.ts';
import { isDatetime, isNested } from '../../../shared/plan/expr-type-rules.ts';
import { timeZoneOf, type TimeZone } from '../../../shared/core/time-zone.ts';
import { runLocalJob } from '../../../shared/aws/local/local-job.ts';
import { runEmbeddedJob } from '../../../shared/runtime/embedded/embedded-runtime.ts';
import { MaterializedView } from '../../../shared/runtime/materialized-view.ts';
import { compileSql } from '../../../shared/sql/compile-sql.ts';
import { renderStatementOutputs } from '../../../shared/cli/statement-outputs.ts';
import type { UserFunctionDefinition } from '../../../shared/api/user-functions.ts';
import type { ConformanceCase } from './cases.ts';
import type { FixtureFiles } from './fixtures.ts';

/** A value as Flink's SQL client prints it (a TIMESTAMP_LTZ in the session time zone `zone`). */
export function formatValue(value: Value | undefined, type: LogicalType, zone: TimeZone = timeZoneOf('UTC')): string {
  if (value === null || value === undefined) return 'NULL';
  if (isDatetime(type) && type.root !== 'TIMESTAMP') return nestedText(value, type, zone);
  if (type.root === 'DOUBLE' && typeof value === 'number' && Number.isInteger(value)) return value.toFixed(1);
  // Bytes print as the SQL client shows them: x'466c696e6b'.
  if (type.root === 'VARBINARY' && typeof value === 'string') return `x'${value}'`;
  // A FLOAT prints as Java's Float.toString: its own digits (1.1, not the double 1.100000023841858).
  if (type.root === 'FLOAT' && typeof value === 'number') return formatFloat(value);
  if (type.root === 'TIMESTAMP' && typeof value === 'number') return new Date(value).toISOString().replace('T', ' ').replace('Z', '');
  if (type.root === 'DECIMAL' && typeof value === 'bigint') {
    const scale = type.scale ?? 0;
    const negative = value < 0n;
    const digits = (negative ? -value : value).toString().padStart(scale + 1, '0');
    const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
    return negative ? `-${text}` : text;
  }
  // ROW, ARRAY and MAP as Flink prints them: (1, a), [1, 2], {k=1}.
  if (isNested(type)) return nestedText(value, type);
  return String(value);
}

function formatRow(row: Readonly<Record<string, Value>>, fields: readonly Field[], zone: TimeZone): string {
  return fields.map((f) => formatValue(row[f.name], f.type, zone)).join(', ');
}

/** What a case produced: its final rows (sorted) and its changelog (in order). */
export interface CaseOutput {
  readonly rows: string[];
  readonly changelog: string[];
  /** What its EXPLAIN, SHOW and DESCRIBE statements print, in order. */
  readonly explains: string[];
}

/**
 * Runs `c` over the fixture files; throws what compiling or running throws. On the embedded
 * runtime by default; `runtime: 'aws'` runs it the AWS way on emulators (runLocalJob: Kinesis
 * streams, stage handlers, DynamoDB state; a generator source's rows put by its producer), one
 * record per batch as the embedded run reads one row per batch.
 */
export async function runCase(c: ConformanceCase, files: FixtureFiles, functions?: ReadonlyMap<string, UserFunctionDefinition>, runtime: 'embedded' | 'aws' = 'embedded'): Promise<CaseOutput> {
  const sql = c.sql.replace(/\{\{(\w+)\}\}/g, (_m, name: string) => files.path(name));
  const script = [...(c.tables ?? []).map((name) => files.ddl(name)), sql].join('\n');
  const program = compileSql(script, { ...(functions ? { functions } : {}) });
  const explains = await renderStatementOutputs(program);
  if (program.sinks.length === 0) return { rows: [], changelog: [], explains };
  const graph = program.pipeline.jobGraph({ parallelism: c.parallelism ?? 1 });
  // A statement set writes several sinks: their rows are then prefixed by the sink's name.
  const named = graph.sinks.length > 1;
  const rows: string[] = [];
  const changelog: string[] = [];
  const views: (() => void)[] = [];
  const observers = new Map(
    graph.sinks.map((sink) => {
      const fields = sink.schema.fields;
      // The SQL client shows a TIMESTAMP_LTZ in the session time zone, as the print sink does.
      const zone = timeZoneOf((sink.connector.type === 'print' ? sink.connector.timeZone : undefined) ?? program.settings.get('table.local-time-zone') ?? 'UTC');
      const prefix = named ? `${sink.name}: ` : '';
      const view = new MaterializedView({ ...(sink.upsertKey ? { key: sink.upsertKey } : {}), columns: fields.map((f) => f.name), strict: true });
      views.push(() => rows.push(...view.rows().map((r) => prefix + formatRow(r, fields, zone))));
      const write = (changes: readonly ChangeRow[]): void => {
        for (const change of changes) {
          changelog.push(`${prefix}${change.kind}[${formatRow(change.row, fields, zone)}]`);
          view.apply(change);
        }
      };
      return [sink.name, [{ write }]];
    }),
  );
  const code = { functions: program.pipeline.userFunctions, generators: program.pipeline.generators };
  if (runtime === 'aws') {
    const inputs = new Map(graph.sources.flatMap((s) => (s.connector.type === 'jsonl' && s.connector.path !== undefined ? [[s.name, s.connector.path] as const] : [])));
    const result = await runLocalJob({ graph, code, inputs, sink: (name, rows) => observers.get(name)?.forEach((o) => o.write(rows)), batchSize: 1, env: {} });
    if (result.errors.length > 0) throw new Error(`handler errors: ${result.errors.map(String).join('; ')}`);
  } else {
    await runEmbeddedJob(graph, { code, sinkSetup: { quiet: true }, observers, batchSize: 1 });
  }
  for (const collect of views) collect();
  return { rows: rows.sort(), changelog, explains };
}
