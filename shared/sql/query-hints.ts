/**
 * The query hints of a SELECT block (`SELECT /*+ BROADCAST(t), STATE_TTL('t' = '1d') *\/ …`),
 * checked as Flink checks them: the hint must be one Flink has, and every table it names must
 * be in the block's FROM — a hint that names no input is an error in Flink, not a hint that
 * silently does nothing.
 */
import type { SqlFrom, SqlSelect } from './ast.ts';
import { SqlError } from './errors.ts';

/** Flink's join strategy hints (batch strategies; a streaming join ignores the strategy). */
const JOIN_HINTS = new Set(['BROADCAST', 'SHUFFLE_HASH', 'SHUFFLE_MERGE', 'NEST_LOOP']);
/** Every query hint Flink has. */
const QUERY_HINTS = new Set([...JOIN_HINTS, 'LOOKUP', 'STATE_TTL']);

/** The names a FROM item can be referred to by in a hint: its tables and views, and aliases. */
function fromNames(from: SqlFrom): string[] {
  switch (from.k) {
    case 'table':
      return [from.name, ...(from.alias ? [from.alias] : [])];
    case 'join':
      return [...fromNames(from.left), ...fromNames(from.right)];
    case 'tvf':
      return [...fromNames(from.input), ...(from.alias ? [from.alias] : [])];
    default:
      return from.alias ? [from.alias] : [];
  }
}

/**
 * Checks the hints of `q`.
 *
 * @throws SqlError at the hint for an unknown hint, or a table it names that the FROM does not have.
 */
export function checkQueryHints(q: SqlSelect): void {
  if (q.hints.length === 0) return;
  const names = fromNames(q.from);
  const known = new Set(names.map((n) => n.toLowerCase()));
  for (const hint of q.hints) {
    if (!QUERY_HINTS.has(hint.name)) {
      throw new SqlError(hint.pos, `unknown query hint '${hint.name}' (Flink's query hints: ${[...QUERY_HINTS].join(', ')})`);
    }
    if (hint.name === 'LOOKUP' && !hint.options.has('table')) throw new SqlError(hint.pos, "hint LOOKUP needs the option 'table' (the lookup table's name)");
    // Join hints list tables (`BROADCAST(t1, t2)`), STATE_TTL keys them, LOOKUP names one in 'table'.
    const tables = JOIN_HINTS.has(hint.name) ? [...hint.options.values()] : hint.name === 'STATE_TTL' ? [...hint.options.keys()] : [hint.options.get('table') as string];
    for (const table of tables) {
      if (!known.has(table.toLowerCase())) {
        throw new SqlError(hint.pos, `hint ${hint.name} names '${table}', which is not a table of this query's FROM (${names.join(', ') || 'none'}); Flink rejects a hint that matches no input`);
      }
    }
  }
}
