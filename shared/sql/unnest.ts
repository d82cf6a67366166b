/**
 * `FROM t CROSS JOIN UNNEST(t.arr) [WITH ORDINALITY] [AS] u (x [, n])` — also written as a comma
 * join, `JOIN … ON TRUE`, or `LEFT JOIN UNNEST(…) ON TRUE` to keep rows without elements — as
 * Flink compiles it: a correlate of each left row with the rows of its collection (the Unnest
 * node). The collection expression reads the left row; the element columns take the alias's
 * column names, or a ROW element's field names, `EXPR$0` for a scalar, `KEY`/`VALUE` for a MAP.
 * An ON condition of an inner join other than TRUE filters the joined rows.
 */
import { PlanError } from '../core/errors.ts';
import { inferType } from '../plan/expr-types.ts';
import { unnestDefaultColumns } from '../operators/unnest/unnest-operator.ts';
import type { SqlFrom } from './ast.ts';
import { SqlError, atPosition } from './errors.ts';
import { compileExpr } from './expressions.ts';
import type { JoinContext } from './joins.ts';
import type { Relation } from './relation.ts';

type JoinFrom = Extract<SqlFrom, { k: 'join' }>;

/** True for a join whose right side is UNNEST(…), which this module compiles. */
export function isUnnestJoin(from: JoinFrom): boolean {
  return from.right.k === 'unnest' && from.systemTime === undefined;
}

/** Compiles a join with UNNEST on its right; see the module header. */
export function compileUnnestJoin(from: JoinFrom, jc: JoinContext): Relation {
  const u = from.right;
  if (u.k !== 'unnest') throw new PlanError('internal: not an UNNEST join');
  const onTrue = from.on === undefined || (from.on.k === 'bool' && from.on.value);
  if (from.joinType === 'RIGHT' || from.joinType === 'FULL') throw new SqlError(from.pos, `${from.joinType} JOIN UNNEST is not supported (Flink allows CROSS, INNER and LEFT … ON TRUE)`);
  if (from.joinType === 'LEFT' && !onTrue) throw new SqlError(from.on?.pos ?? from.pos, 'LEFT JOIN UNNEST(…) needs ON TRUE (as in Flink)');
  if (from.using) throw new SqlError(from.pos, 'JOIN UNNEST(…) USING (…) is not supported: use ON TRUE');
  if (u.args.length !== 1) throw new SqlError(u.pos, `UNNEST of ${u.args.length} collections is not supported yet: unnest one ARRAY or MAP`);
  const left = jc.compileFrom(from.left);
  const expr = compileExpr(u.args[0]!, left.scope);
  const type = atPosition(u.pos, () => inferType(expr, left.scope.schema));
  if (type.root !== 'ARRAY' && type.root !== 'MAP') throw new SqlError(u.args[0]!.pos, `UNNEST takes an ARRAY or a MAP, not ${type.root}`);
  const defaults = unnestDefaultColumns(type);
  const names = u.columns?.map((c) => c.name) ?? [...defaults, ...(u.ordinality ? ['ORDINALITY'] : [])];
  const expected = defaults.length + (u.ordinality ? 1 : 0);
  if (names.length !== expected) {
    throw new SqlError(u.pos, `UNNEST(…)${u.ordinality ? ' WITH ORDINALITY' : ''} gives ${expected} column${expected === 1 ? '' : 's'}, but the alias names ${names.length} (${names.join(', ')})`);
  }
  const columns = names.slice(0, defaults.length);
  const ordinality = u.ordinality ? names[defaults.length] : undefined;
  // Element columns get fresh field names when they clash with a left column; the scope keeps the alias's names.
  const taken = new Set(left.stream.schema.fields.map((f) => f.name));
  const fresh = (name: string): string => {
    let field = name;
    for (let i = 0; taken.has(field); i++) field = `${name}${i}`;
    taken.add(field);
    return field;
  };
  const fields = columns.map(fresh);
  const ordinalityField = ordinality === undefined ? undefined : fresh(ordinality);
  const stream = atPosition(u.pos, () =>
    left.stream.unnest({
      expr,
      columns: fields,
      ...(ordinalityField !== undefined ? { ordinality: ordinalityField } : {}),
      ...(from.joinType === 'LEFT' ? { outer: true } : {}),
    }),
  );
  const qualifiers = u.alias !== undefined ? [u.alias] : [];
  const added = [...columns, ...(ordinality !== undefined ? [ordinality] : [])].map((name, i) => ({
    qualifiers,
    name,
    field: i < fields.length ? (fields[i] as string) : (ordinalityField as string),
  }));
  let joined: Relation = {
    stream,
    scope: { description: `${left.scope.description} joined with UNNEST`, schema: stream.schema, columns: [...left.scope.columns, ...added] },
  };
  if (!onTrue && from.on !== undefined) joined = jc.filter(joined, from.on);
  return joined;
}
