/** The query forms of ast.ts a planner step takes: a plain SELECT, or an error naming the form. */
import type { SqlQuery, SqlSelect } from './ast.ts';
import { SqlError } from './errors.ts';

/** The name users know a query form by, for error messages. */
export function queryFormName(q: SqlQuery): string {
  switch (q.k) {
    case 'select':
      return 'SELECT';
    case 'setOp':
      return `${q.op}${q.all ? ' ALL' : ''}`;
    case 'values':
      return 'VALUES';
    case 'with':
      return 'WITH';
    case 'ordered':
      return q.limit === undefined ? 'ORDER BY' : 'ORDER BY … LIMIT';
  }
}

/**
 * `q` when it is a plain SELECT.
 *
 * @throws SqlError at the query naming its form (`UNION ALL is not supported here`) otherwise.
 */
export function plainSelect(q: SqlQuery, where = 'here'): SqlSelect {
  if (q.k === 'select') return q;
  throw new SqlError(q.pos, `${queryFormName(q)} is not supported ${where} yet`);
}
