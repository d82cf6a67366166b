/**
 * Renders rows as a plain text table for the terminal.
 */
import type { JsonValue } from '../core/codec.ts';

/** Renders `rows` with the given column order; numbers are right-aligned. */
export function renderTable(columns: readonly string[], rows: readonly Record<string, JsonValue>[]): string {
  const cells = rows.map((r) => columns.map((c) => formatCell(r[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => (row[i] as string).length)));
  const numeric = columns.map((c) => rows.length > 0 && rows.every((r) => typeof r[c] === 'number' || r[c] === null));
  const line = (values: readonly string[]): string =>
    values.map((v, i) => (numeric[i] ? v.padStart(widths[i] as number) : v.padEnd(widths[i] as number))).join(' | ');
  const rule = widths.map((w) => '-'.repeat(w)).join('-+-');
  return [line(columns), rule, ...cells.map(line)].join('\n');
}

function formatCell(value: JsonValue | undefined): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
