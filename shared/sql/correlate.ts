/**
 * Flink's Correlate in SQL: a FROM item joined with the rows of a table function, one plan node
 * (shared/operators/correlate/) for both of Flink's table functions:
 *
 * - `UNNEST(a [, b …]) [WITH ORDINALITY] [AS] u (x [, …])`, the built-in one: element columns
 *   take the alias's names, else a ROW element's field names, `EXPR$i` for a scalar, `KEY` /
 *   `VALUE` for a MAP; several collections are zipped (the shorter padded with NULLs);
 * - `LATERAL TABLE(f(x)) [AS] T (a, b)` with a table user function (`CREATE FUNCTION f AS
 *   'module.ts#export'` of a `tableFunction(…)`), its declared column names by default.
 *
 * Joined as `CROSS JOIN`, a comma, `[INNER] JOIN … ON cond` (the condition goes into the
 * Correlate, as Flink plans it) or `LEFT JOIN … ON TRUE` (a row the function gives nothing for
 * is kept, padded with NULLs; Flink takes no other LEFT condition). On its own in FROM
 * (`SELECT * FROM UNNEST(ARRAY[1, 2, 3]) AS t (x)`) it correlates one row of no columns, as
 * Calcite reads it over `VALUES ()`; its arguments are then constants.
 */
import type { CorrelateCall } from '../operators/correlate/correlate-operator.ts';
import { correlateOutputSchema } from '../operators/correlate/correlate-operator.ts';
import { unnestColumns } from '../operators/correlate/unnest-rows.ts';
import { inferType } from '../plan/expr-types.ts';
import { printExpr } from '../plan/expr-print.ts';
import type { SqlExpr, SqlFrom } from './ast.ts';
import { SqlError, atPosition, type SqlPosition } from './errors.ts';
import { compileExpr, type ScopeColumn } from './expressions.ts';
import { compileValues } from './query-compose.ts';
import type { QueryContext, Relation } from './relation.ts';
import { checkUserCall, userTableFunction } from './user-functions.ts';

type FunctionFrom = Extract<SqlFrom, { k: 'unnest' }> | Extract<SqlFrom, { k: 'tableFunction' }>;
type CorrelateJoinFrom = Extract<SqlFrom, { k: 'join' }> & { readonly right: FunctionFrom };

/** Whether `from` joins something with UNNEST(…) or a LATERAL TABLE(…), which this module compiles. */
export function isCorrelateJoin(from: SqlFrom): from is CorrelateJoinFrom {
  return from.k === 'join' && from.systemTime === undefined && (from.right.k === 'unnest' || from.right.k === 'tableFunction');
}

/**
 * Compiles the join of `left` (already compiled) with the function of `from.right`.
 *
 * @throws SqlError for RIGHT / FULL joins, USING, a LEFT join ON anything but TRUE, and as
 *   {@link correlate}.
 */
export function compileCorrelateJoin(from: CorrelateJoinFrom, left: Relation): Relation {
  const what = from.right.k === 'unnest' ? 'UNNEST(…)' : 'a table function';
  if (from.joinType === 'RIGHT' || from.joinType === 'FULL') throw new SqlError(from.pos, `${from.joinType} JOIN with ${what} is not supported (Flink supports INNER, CROSS and LEFT … ON TRUE)`);
  if (from.using) throw new SqlError(from.pos, `JOIN … USING with ${what} is not supported: use ON TRUE`);
  const onTrue = from.on === undefined || (from.on.k === 'bool' && from.on.value);
  if (from.joinType === 'LEFT' && !onTrue) throw new SqlError(from.on?.pos ?? from.pos, `LEFT JOIN with ${what} supports only ON TRUE (as in Flink)`);
  return correlate(left, from.right, from.joinType === 'LEFT' ? 'LEFT' : 'INNER', onTrue ? undefined : from.on, true);
}

/** Compiles UNNEST(…) or TABLE(f(…)) alone in FROM: the function over one row of no columns. */
export function compileCorrelateAlone(from: FunctionFrom, ctx: QueryContext): Relation {
  const one = compileValues({ k: 'values', rows: [[]], pos: from.pos }, ctx);
  return correlate({ stream: one.stream, scope: { ...one.scope, columns: [] } }, from, 'INNER', undefined, false);
}

/** The call, its column names (before freshening) and the scope qualifiers of its columns. */
function callOf(right: FunctionFrom, left: Relation): { call: CorrelateCall; names: string[]; qualifiers: string[] } {
  if (right.k === 'unnest') {
    const args = right.args.map((a) => compileExpr(a, left.scope));
    const types = args.map((a, i) => atPosition(right.args[i]?.pos ?? right.pos, () => inferType(a, left.scope.schema)));
    types.forEach((t, i) => {
      if (t.root !== 'ARRAY' && t.root !== 'MAP') throw new SqlError(right.args[i]?.pos ?? right.pos, `UNNEST takes an ARRAY or a MAP, not ${t.root}`);
    });
    const defaults = unnestColumns(types, right.ordinality, args.map(printExpr)).defaultNames;
    const names = right.columns?.map((c) => c.name) ?? [...defaults];
    if (names.length !== defaults.length) {
      throw new SqlError(right.pos, `UNNEST(…)${right.ordinality ? ' WITH ORDINALITY' : ''} gives ${defaults.length} column${defaults.length === 1 ? '' : 's'}, but the alias names ${names.length} (${names.join(', ')})`);
    }
    return { call: { fn: 'UNNEST', args, ...(right.ordinality ? { ordinality: true } : {}) }, names, qualifiers: right.alias !== undefined ? [right.alias] : [] };
  }
  const name = right.call.name;
  const user = userTableFunction(name);
  if (!user) throw new SqlError(right.call.pos, `unknown table function '${name}': declare it with CREATE FUNCTION ${name} AS 'module.ts#export' (a tableFunction(…) export)`);
  const args = right.call.args.map((a) => compileExpr(a, left.scope));
  const { fn, pipeline } = user;
  checkUserCall(name.toLowerCase(), right.call, fn.signatures, args, left.scope.schema);
  const names = right.columns?.map((c) => c.name) ?? fn.columns.map((c) => c.name);
  if (names.length !== fn.columns.length) {
    throw new SqlError(right.pos, `table function ${name} has ${fn.columns.length} columns (${fn.columns.map((c) => c.name).join(', ')}), but the alias names ${names.length} (${names.join(', ')})`);
  }
  // The function object goes into the registry once per call site: the operator finds it by reference.
  const ref = pipeline.registerFunction(fn as never);
  const call: CorrelateCall = { fn: 'USER', ref, name: name.toLowerCase(), args, columnTypes: fn.columns.map((c) => c.type), ...(fn.signatures !== undefined ? { input: fn.signatures } : {}) };
  return { call, names, qualifiers: [right.alias ?? name] };
}

/**
 * `left` correlated with the function of `right`; `on` (INNER only) filters the joined rows
 * inside the Correlate. `keepLeft` false leaves only the function's columns in scope.
 */
function correlate(left: Relation, right: FunctionFrom, joinType: 'INNER' | 'LEFT', on: SqlExpr | undefined, keepLeft: boolean): Relation {
  const { call, names, qualifiers } = callOf(right, left);
  // Function columns get fresh field names when they clash with an input field; the scope keeps the alias's names.
  const taken = new Set(left.stream.schema.fields.map((f) => f.name));
  const fields = names.map((name) => {
    let field = name;
    for (let i = 0; taken.has(field); i++) field = `${name}${i}`;
    taken.add(field);
    return field;
  });
  const added: ScopeColumn[] = names.map((name, i) => ({ qualifiers, name, field: fields[i] as string }));
  const pos: SqlPosition = right.pos;
  const spec = { call, columns: fields, joinType };
  const schema = atPosition(pos, () => correlateOutputSchema(spec, left.stream.schema));
  const description = `${left.scope.description} joined with ${right.k === 'unnest' ? 'UNNEST' : `${right.call.name}(…)`}`;
  const columns = [...(keepLeft ? left.scope.columns : []), ...added];
  const condition = on === undefined ? undefined : compileExpr(on, { description, schema, columns: [...left.scope.columns, ...added] });
  const stream = atPosition(on?.pos ?? pos, () => left.stream.correlate({ ...spec, ...(condition !== undefined ? { condition } : {}) }));
  return { stream, scope: { description, schema: stream.schema, columns } };
}
