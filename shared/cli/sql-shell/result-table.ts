/**
 * The SQL shell's tables, drawn as Flink's SQL client draws them in tableau mode:
 *
 * ```
 * +---+-------+
 * | k | total |
 * +---+-------+
 * | a |     5 |
 * +---+-------+
 * ```
 *
 * Numbers are right-aligned; NULL is printed as `<NULL>`, as Flink does.
 */
import type { JsonValue } from '../../core/codec.ts';
import type { StatementResult } from '../../sql/catalog-output.ts';

/** Options of {@link renderBoxTable}. */
export interface BoxTableOptions {
  /** Show at most this many rows (the rest are counted below the table). */
  readonly maxRows?: number;
  /** Cut cells wider than this many characters. @default 40 */
  readonly maxCellWidth?: number;
  /** Right-align every cell and the header, as Flink prints a statement's result. @default false: numbers only */
  readonly alignRight?: boolean;
}

/** Renders rows under a header as a box table; returns its lines. */
export function renderBoxTable(columns: readonly string[], rows: readonly Record<string, JsonValue>[], options: BoxTableOptions = {}): string[] {
  const maxCell = options.maxCellWidth ?? 40;
  const shown = options.maxRows === undefined ? rows : rows.slice(0, Math.max(0, options.maxRows));
  const cells = shown.map((r) => columns.map((c) => clip(formatCell(r[c]), maxCell)));
  const widths = columns.map((c, i) => Math.max(clip(c, maxCell).length, ...cells.map((row) => (row[i] as string).length)));
  const numeric = columns.map((c) => shown.length > 0 && shown.every((r) => typeof r[c] === 'number' || r[c] === null || r[c] === undefined));
  const rule = `+${widths.map((w) => '-'.repeat(w + 2)).join('+')}+`;
  const line = (values: readonly string[], header: boolean): string =>
    `|${values.map((v, i) => ` ${options.alignRight || (!header && numeric[i]) ? v.padStart(widths[i] as number) : v.padEnd(widths[i] as number)} `).join('|')}|`;
  const out = [rule, line(columns.map((c) => clip(c, maxCell)), true), rule, ...cells.map((row) => line(row, false))];
  if (cells.length > 0) out.push(rule);
  if (shown.length < rows.length) out.push(`… ${rows.length - shown.length} more rows`);
  return out;
}

function formatCell(value: JsonValue | undefined): string {
  if (value === null || value === undefined) return '<NULL>';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function clip(s: string, width: number): string {
  const flat = s.replace(/[\r\n\t]/g, ' ');
  return flat.length <= width ? flat : `${flat.slice(0, width - 1)}…`;
}

/**
 * A statement's result (SHOW, DESCRIBE) as Flink's SQL client prints it: a table with every
 * cell right-aligned, booleans as TRUE / FALSE, no value as a blank cell, then `N rows in set`;
 * `Empty set` for no rows. A text result (SHOW CREATE TABLE) prints as it is.
 */
export function renderStatementResult(result: StatementResult): string {
  if (result.kind === 'text') return result.text;
  if (result.rows.length === 0) return 'Empty set';
  const rows = result.rows.map((r) => Object.fromEntries(result.columns.map((c, i) => [c, cellText(r[i] ?? null)])));
  const table = renderBoxTable(result.columns, rows, { alignRight: true, maxCellWidth: Infinity });
  return `${table.join('\n')}\n${result.rows.length} row${result.rows.length === 1 ? '' : 's'} in set`;
}

function cellText(value: string | boolean | null): string {
  if (value === null) return '';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  return value;
}
