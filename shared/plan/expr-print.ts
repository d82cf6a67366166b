/**
 * Prints expressions as Flink does in EXPLAIN: column references by name, operators and
 * functions prefix-style (`>(price, 10000)`, `AND(>(a, 1), <(b, 2))`, `IS NULL(x)`,
 * `DATE_FORMAT(dateTime, 'yyyy-MM-dd')`, `CASE(c1, v1, v2)`, `CAST(x AS BIGINT)`).
 *
 * Literals are printed readably rather than with Calcite's charset noise: strings single-quoted
 * (`'it''s'`), INT and BOOLEAN bare, other types suffixed with their type where the bare text would
 * be ambiguous (`10:BIGINT`, `1.5E0:DOUBLE`, `2015-07-15 00:00:00.000:TIMESTAMP(3)`,
 * `null:INT`); DECIMAL literals show all their scale digits (`0.90`).
 */
import { shortestFloat } from '../core/codec.ts';
import { formatDecimal } from '../core/decimal.ts';
import { formatType } from '../core/type-parse.ts';
import { formatDate, formatTime, formatTimestamp, isDateInRange, isTimestampInRange } from '../core/timestamp.ts';
import type { LogicalType } from '../core/types.ts';
import type { Expr, Literal } from './expr.ts';

/** A type as CAST and literal suffixes print it: Flink's spelling without `NOT NULL`. */
function castTypeText(t: LogicalType): string {
  return formatType(t.nullable ? t : { ...t, nullable: true });
}

/** Java's `Double.toString`-like scientific form Calcite uses for DOUBLE literals: `1.5E0`. */
function doubleText(value: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
  const [mantissa = '0', exponent = '0'] = value.toExponential().split('e');
  const withPoint = mantissa.includes('.') ? mantissa : `${mantissa}.0`;
  return `${withPoint}E${exponent.startsWith('+') ? exponent.slice(1) : exponent}`;
}

/** SQL string literal: single quotes, with embedded quotes doubled. */
export function quoteString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

function literalText(lit: Literal): string {
  const { value, type } = lit;
  if (lit.interval !== undefined) return `${String(value)}:INTERVAL ${lit.interval}`;
  if (value === null) return `null:${castTypeText(type)}`;
  switch (type.root) {
    case 'INT':
    case 'BOOLEAN':
      return String(value);
    case 'BIGINT':
    case 'SMALLINT':
    case 'TINYINT':
      return `${String(value)}:${type.root}`;
    case 'FLOAT':
      return typeof value === 'number' ? `${doubleText(shortestFloat(value))}:FLOAT` : `${String(value)}:FLOAT`;
    case 'DOUBLE':
      return typeof value === 'number' ? `${doubleText(value)}:DOUBLE` : `${String(value)}:DOUBLE`;
    case 'DECIMAL':
      return typeof value === 'bigint' ? formatDecimal(value, type.scale ?? 0) : String(value);
    case 'STRING':
      return quoteString(String(value));
    case 'VARBINARY':
      return `X'${String(value).toUpperCase()}'`;
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      // An out-of-range literal is a plan bug, but printing must never throw: EXPLAIN shows it raw.
      return typeof value === 'number' && isTimestampInRange(value)
        ? `${formatTimestamp(value)}:${castTypeText(type)}`
        : `${String(value)}:${castTypeText(type)}`;
    case 'DATE':
      return typeof value === 'number' && isDateInRange(value) ? formatDate(value) : `${String(value)}:DATE`;
    case 'TIME':
      return typeof value === 'number' && value >= 0 && value < 86_400_000 ? formatTime(value, type.precision ?? 0) : `${String(value)}:${castTypeText(type)}`;
    default:
      // Nested values are built by calls (ROW(…), ARRAY[…]), never literals; print them raw.
      return `${JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}:${castTypeText(type)}`;
  }
}

/** Prints an expression the way Flink's EXPLAIN shows it. */
export function printExpr(expr: Expr): string {
  switch (expr.kind) {
    case 'ref':
      return expr.name;
    case 'literal':
      return literalText(expr);
    case 'cast':
      return `${expr.safe === true ? 'TRY_CAST' : 'CAST'}(${printExpr(expr.expr)} AS ${castTypeText(expr.type)})`;
    case 'udf':
      return `${expr.display}(${(expr.args ?? []).map(printExpr).join(', ')})`;
    case 'call':
      return `${expr.fn}(${expr.args.map(printExpr).join(', ')})`;
  }
}
