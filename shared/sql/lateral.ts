/**
 * `FROM t, LATERAL TABLE(f(x)) AS T(a, b)`, `CROSS JOIN LATERAL TABLE(…)`, `[INNER] JOIN LATERAL
 * TABLE(…) ON cond` and `LEFT JOIN LATERAL TABLE(…) ON TRUE` with a table user function
 * (`CREATE FUNCTION f AS 'module.ts#export'` of a `tableFunction(…)`): Flink's Correlate, one
 * flat Map over the left input (shared/api/lateral.ts).
 */
import { correlate } from '../api/lateral.ts';
import type { Stream } from '../api/stream.ts';
import type { Row } from '../core/types.ts';
import { compileExpr as compilePlanExpr } from '../plan/expr-compile.ts';
import { printExpr } from '../plan/expr-print.ts';
import type { SqlExpr, SqlFrom } from './ast.ts';
import { SqlError, atPosition } from './errors.ts';
import { compileExpr, scopeOf } from './expressions.ts';
import type { Relation } from './relation.ts';
import { userTableFunction } from './user-functions.ts';

/** Whether `from` joins something with a table function. */
export function isLateralJoin(from: SqlFrom): from is Extract<SqlFrom, { k: 'join' }> & { right: Extract<SqlFrom, { k: 'tableFunction' }> } {
  return from.k === 'join' && from.systemTime === undefined && from.right.k === 'tableFunction';
}

/**
 * Compiles the join of `left` (already compiled) with the table function of `from.right`; an
 * INNER join's ON condition is returned to filter the joined rows.
 */
export function compileLateralJoin(from: Extract<SqlFrom, { k: 'join' }> & { right: Extract<SqlFrom, { k: 'tableFunction' }> }, left: Relation): { relation: Relation; on?: SqlExpr } {
  const tf = from.right;
  const fn = userTableFunction(tf.call.name);
  if (!fn) throw new SqlError(tf.call.pos, `unknown table function '${tf.call.name}': declare it with CREATE FUNCTION ${tf.call.name} AS 'module.ts#export' (a tableFunction(…) export)`);
  if (from.joinType === 'RIGHT' || from.joinType === 'FULL') throw new SqlError(from.pos, `${from.joinType} JOIN with a table function is not supported (Flink supports INNER, CROSS and LEFT … ON TRUE)`);
  if (from.using) throw new SqlError(from.pos, 'JOIN … USING with a table function is not supported: use ON TRUE');
  const onTrue = from.on === undefined || (from.on.k === 'bool' && from.on.value);
  if (from.joinType === 'LEFT' && !onTrue) throw new SqlError(from.on?.pos ?? from.pos, 'LEFT JOIN with a table function supports only ON TRUE (as in Flink)');
  const args = tf.call.args.map((a) => compileExpr(a, left.scope));
  const evaluators = args.map((a, i) => atPosition(tf.call.args[i]?.pos ?? tf.pos, () => compilePlanExpr(a, left.stream.schema, new Map())));
  const columns = tf.columns?.map((c) => c.name);
  const stream = atPosition(tf.pos, () =>
    correlate(left.stream, fn, evaluators as ((row: Row) => ReturnType<(typeof evaluators)[number]>)[], {
      type: from.joinType === 'LEFT' ? 'left' : 'inner',
      ...(columns ? { columns } : {}),
      display: `${tf.call.name}(${args.map(printExpr).join(', ')})`,
    }),
  ) as Stream<Row>;
  const alias = tf.alias ?? tf.call.name;
  const leftColumns = left.scope.columns;
  const fnNames = stream.schema.fields.slice(left.stream.schema.fields.length);
  const scope = {
    ...scopeOf(stream.schema, `${left.scope.description} joined with ${tf.call.name}(…)`, []),
    columns: [...leftColumns, ...fnNames.map((f) => ({ qualifiers: [alias], name: f.name, field: f.name }))],
  };
  return { relation: { stream, scope }, ...(!onTrue && from.on ? { on: from.on } : {}) };
}
