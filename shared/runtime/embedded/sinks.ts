/**
 * Sink writers of the embedded runtime. Every sink keeps counts; what else it does depends on
 * its connector: `print` writes Flink's print format (`+I[1001, 35]`), `jsonl` (a filesystem
 * table) appends one record per changelog row in its format — a JSON object with an `op` field,
 * a csv line or a Debezium change event (core/format-encoders.ts) — and `collect` and
 * `blackhole` write nothing.
 * Observers (the CLI's `--final` / `--changelog`, tests) can be attached to any sink.
 */
import { nestedText } from '../../plan/expr-cast.ts';
import { createWriteStream } from 'node:fs';
import { PlanError } from '../../core/errors.ts';
import type { ChangeRow } from '../../core/row.ts';
import type { Schema } from '../../core/types.ts';
import { createRowEncoder, type RowEncoder } from '../../core/codec.ts';
import { timeZoneOf, type TimeZone } from '../../core/time-zone.ts';
import { isDatetime } from '../../plan/expr-type-rules.ts';
import { createChangeEncoder, type ChangeEncoder } from '../../core/format-encoders.ts';
import type { RecordFormat } from '../../core/formats.ts';
import type { JobSink } from '../../plan/job-graph.ts';

/** Receives every changelog row a sink gets. */
export interface SinkObserver {
  write(rows: readonly ChangeRow[]): void;
  close?(): Promise<void> | void;
}

/** Writes one record per changelog row, one per line, in a sink format, to a stream or file. */
export class RecordLineWriter implements SinkObserver {
  private readonly encode: ChangeEncoder;
  private readonly out: NodeJS.WritableStream;
  private buffer: string[] = [];

  constructor(schema: Schema, target: string | NodeJS.WritableStream, format?: RecordFormat) {
    this.encode = createChangeEncoder(schema, format);
    this.out = typeof target === 'string' ? (createWriteStream(target) as NodeJS.WritableStream) : target;
  }

  write(rows: readonly ChangeRow[]): void {
    for (const r of rows) this.buffer.push(this.encode(r));
    if (this.buffer.length >= 4096) this.flush();
  }

  private flush(): void {
    if (this.buffer.length === 0) return;
    this.out.write(`${this.buffer.join('\n')}\n`);
    this.buffer = [];
  }

  async close(): Promise<void> {
    this.flush();
    const out = this.out;
    if (out === process.stdout || out === process.stderr) return;
    await new Promise<void>((resolve, reject) => {
      out.once('error', reject);
      out.end(() => resolve());
    });
  }
}

/** Writes one changelog row per line, `{"op":"+I", …fields}` (`--changelog`, json file sinks). */
export class JsonlChangelogWriter extends RecordLineWriter {
  constructor(schema: Schema, target: string | NodeJS.WritableStream) {
    super(schema, target);
  }
}

/**
 * Formats a row as Flink's print sink does: `+I[1001, 35, 2015-07-15 00:00:01.000]`; DATE, TIME
 * and TIMESTAMP_LTZ as their CAST to STRING shows them, a TIMESTAMP_LTZ in `zone` (the session
 * time zone).
 */
export function formatPrintRow(row: ChangeRow, encode: RowEncoder, schema: Schema, zone: TimeZone = timeZoneOf('UTC')): string {
  const json = encode(row.row);
  const values = schema.fields.map((f) => {
    const v = json[f.name];
    if (v === null || v === undefined) return 'NULL';
    // ROW, ARRAY and MAP print as Flink prints them: (a, b), [a, b], {k=v}; bytes as x'0a1b'.
    if (f.type.root === 'VARBINARY') return `x'${String(row.row[f.name])}'`;
    // DOUBLE and FLOAT as Java prints them (`2.0`, `1.0E7`), as the print connector's toString does.
    const javaText = typeof v === 'object' || isDatetime(f.type) || f.type.root === 'DOUBLE' || f.type.root === 'FLOAT';
    return javaText ? nestedText(row.row[f.name] ?? null, f.type, zone) : String(v);
  });
  return `${row.kind}[${values.join(', ')}]`;
}

/**
 * Encodes rows for a person to read (the CLI's `--table`, the SQL shell's result view): the JSON
 * codec's values, but a TIMESTAMP_LTZ as the wall-clock time of `timeZone` (the session time
 * zone), as Flink's SQL client shows it, rather than its UTC instant, and bytes as `x'0a1b'`
 * rather than base64.
 */
export function createDisplayEncoder(schema: Schema, timeZone = 'UTC'): RowEncoder {
  const encode = createRowEncoder(schema);
  const zone = timeZoneOf(timeZone);
  const instants = schema.fields.filter((f) => f.type.root === 'TIMESTAMP_LTZ').map((f) => f.name);
  // Bytes as the SQL client shows them, x'0a1b', not the json format's base64.
  const binaries = schema.fields.filter((f) => f.type.root === 'VARBINARY').map((f) => f.name);
  if (instants.length === 0 && binaries.length === 0) return encode;
  return (row) => {
    const json = encode(row);
    for (const name of instants) {
      const v = row[name];
      if (typeof v === 'number') json[name] = nestedText(v, { root: 'TIMESTAMP_LTZ', nullable: true, precision: 3 }, zone);
    }
    for (const name of binaries) {
      const v = row[name];
      if (typeof v === 'string') json[name] = `x'${v}'`;
    }
    return json;
  };
}

/**
 * Prints rows in Flink's print format, prefixed with the sink name. With a limit, only the
 * first `limit` rows are printed and the number of the others is reported at close.
 */
export class PrintWriter implements SinkObserver {
  private readonly encode: RowEncoder;
  private readonly zone: TimeZone;
  private printed = 0;
  private skipped = 0;

  constructor(
    private readonly schema: Schema,
    private readonly prefix: string,
    private readonly out: NodeJS.WritableStream = process.stdout,
    private readonly limit = Infinity,
    timeZone = 'UTC',
  ) {
    this.encode = createRowEncoder(schema);
    this.zone = timeZoneOf(timeZone);
  }

  write(rows: readonly ChangeRow[]): void {
    const room = Math.max(0, Math.min(rows.length, this.limit - this.printed));
    this.skipped += rows.length - room;
    if (room === 0) return;
    this.printed += room;
    const lines: string[] = [];
    for (let i = 0; i < room; i++) lines.push(`${this.prefix}${formatPrintRow(rows[i] as ChangeRow, this.encode, this.schema, this.zone)}`);
    this.out.write(`${lines.join('\n')}\n`);
  }

  close(): void {
    if (this.skipped > 0) this.out.write(`${this.prefix}… ${this.skipped} more changelog rows not printed (print limit ${this.limit})\n`);
  }
}

/** A sink of a running job: counts rows and forwards them to its writer and observers. */
export class SinkInstance {
  readonly observers: SinkObserver[] = [];
  rowsWritten = 0;

  constructor(readonly spec: JobSink) {}

  write(rows: readonly ChangeRow[]): void {
    this.rowsWritten += rows.length;
    for (const o of this.observers) o.write(rows);
  }

  async close(): Promise<void> {
    for (const o of this.observers) await o.close?.();
  }
}

/** Options for creating sink instances. */
export interface SinkSetup {
  /** Where `print` sinks write. @default process.stdout */
  readonly printTo?: NodeJS.WritableStream;
  /** Suppress `print` output (benchmarks, `--quiet`). @default false */
  readonly quiet?: boolean;
  /** Print at most this many rows per print sink. @default unlimited */
  readonly printLimit?: number;
}

/** Creates the sink instance of a job sink with its connector's writer attached. */
export function createSink(spec: JobSink, setup: SinkSetup = {}): SinkInstance {
  const sink = new SinkInstance(spec);
  switch (spec.connector.type) {
    case 'print':
      if (!setup.quiet) sink.observers.push(new PrintWriter(spec.schema, `${spec.name}> `, setup.printTo, setup.printLimit, spec.connector.timeZone));
      break;
    case 'jsonl':
      sink.observers.push(new RecordLineWriter(spec.schema, spec.connector.path, spec.connector.format));
      break;
    case 'collect':
    case 'blackhole':
      break;
    case 'kinesis':
    case 'dynamodb':
      throw new PlanError(
        `sink '${spec.name}' uses the ${spec.connector.type} connector, which needs the AWS runtime; ` +
          `the embedded runtime supports print, jsonl, collect and blackhole sinks`,
      );
  }
  return sink;
}
