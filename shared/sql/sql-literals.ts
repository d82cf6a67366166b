/**
 * SQL literal text the engine reads the same way wherever it appears: INTERVAL literals (in
 * WATERMARK clauses, window TVFs, OVER frames and expressions).
 *
 * Split out so that imports point one way: catalog.ts (CREATE TABLE) and expressions.ts (SQL
 * expressions) both need these readers, and neither has to import the other for them.
 */
import type { SqlExpr } from './ast.ts';
import { SqlError } from './errors.ts';

const UNIT_MS: Readonly<Record<string, number>> = { MILLISECOND: 1, SECOND: 1000, MINUTE: 60_000, HOUR: 3_600_000, DAY: 86_400_000 };
const UNIT_ORDER = ['DAY', 'HOUR', 'MINUTE', 'SECOND'];

/**
 * Milliseconds of `INTERVAL 'n' UNIT` or `INTERVAL 'd hh:mm:ss.fff' DAY TO SECOND` (and the other
 * ranges of DAY, HOUR, MINUTE, SECOND); a leading `-` makes it negative.
 *
 * @throws SqlError for an unknown unit or a value that does not fit the unit.
 */
export function intervalMs(e: SqlExpr): number {
  if (e.k !== 'interval') throw new SqlError(e.pos, "expected an INTERVAL such as INTERVAL '10' SECOND");
  const from = e.unit.replace(/S$/, '');
  const to = e.toUnit?.replace(/S$/, '') ?? from;
  const bad = (): never => {
    throw new SqlError(e.pos, `cannot read INTERVAL '${e.value}' ${e.unit}${e.toUnit ? ` TO ${e.toUnit}` : ''}`);
  };
  if (UNIT_MS[from] === undefined || UNIT_MS[to] === undefined) throw new SqlError(e.pos, `unsupported interval unit ${UNIT_MS[from] === undefined ? e.unit : e.toUnit} (use MILLISECOND, SECOND, MINUTE, HOUR or DAY)`);
  const text = e.value.trim();
  const negative = text.startsWith('-');
  const body = negative || text.startsWith('+') ? text.slice(1) : text;
  const units = from === to ? [from] : UNIT_ORDER.slice(UNIT_ORDER.indexOf(from), UNIT_ORDER.indexOf(to) + 1);
  if (units.length === 0) bad();
  const fields = units.length === 1 ? [body] : body.split(/[ :]/);
  if (fields.length !== units.length) bad();
  let ms = 0;
  fields.forEach((f, i) => {
    const last = i === fields.length - 1;
    if (!(last ? /^\d+(\.\d+)?$/ : /^\d+$/).test(f)) bad();
    ms += Number(f) * (UNIT_MS[units[i] as string] as number);
  });
  ms = Math.round(ms);
  if (!Number.isSafeInteger(ms)) bad();
  return negative ? -ms : ms;
}

/**
 * Months of a year-month interval: `INTERVAL 'n' YEAR`, `INTERVAL 'n' MONTH` or `INTERVAL 'y-m'
 * YEAR TO MONTH` (a leading `-` makes it negative); undefined for a day-time interval.
 *
 * @throws SqlError for a value that does not fit the unit.
 */
export function intervalMonths(e: SqlExpr): number | undefined {
  if (e.k !== 'interval') return undefined;
  const from = e.unit.replace(/S$/, '');
  const to = e.toUnit?.replace(/S$/, '') ?? from;
  if ((from !== 'YEAR' && from !== 'MONTH') || (to !== 'YEAR' && to !== 'MONTH')) return undefined;
  const bad = (): never => {
    throw new SqlError(e.pos, `cannot read INTERVAL '${e.value}' ${e.unit}${e.toUnit ? ` TO ${e.toUnit}` : ''}`);
  };
  const text = e.value.trim();
  const negative = text.startsWith('-');
  const body = negative || text.startsWith('+') ? text.slice(1) : text;
  let months: number;
  if (from === 'YEAR' && to === 'MONTH') {
    const m = /^(\d+)-(\d{1,2})$/.exec(body);
    if (m === null || Number(m[2]) > 11) return bad();
    months = Number(m[1]) * 12 + Number(m[2]);
  } else {
    if (from !== to || !/^\d+$/.test(body)) return bad();
    months = Number(body) * (from === 'YEAR' ? 12 : 1);
  }
  if (!Number.isSafeInteger(months)) bad();
  return negative ? -months : months;
}
