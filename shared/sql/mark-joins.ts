/**
 * `IN (SELECT …)` and `EXISTS (SELECT …)` as values — under OR, in a CASE, in the SELECT list, in
 * HAVING — as Calcite's SubQueryRemoveRule rewrites them and Flink runs them: LEFT joins that
 * mark each outer row ("mark joins") with what the subquery holds for it, then an expression of
 * the marks. Correlations must be equalities of a subquery column with the outer query (the
 * joins' keys), as Flink's decorrelator requires.
 *
 * ```
 * EXISTS (S):    LEFT JOIN (SELECT DISTINCT keys, true AS i FROM S) ON keys
 *                → i IS NOT NULL
 * x IN (S.y):    LEFT JOIN (SELECT keys, COUNT(*) AS c, COUNT(y) AS ck FROM S GROUP BY keys) ON keys
 *                LEFT JOIN (SELECT DISTINCT keys, y, true AS i FROM S) ON keys AND x = y
 *                → CASE WHEN c IS NULL OR c = 0 THEN FALSE     -- no row: FALSE, even for a NULL x
 *                       WHEN i IS NOT NULL THEN TRUE            -- x is one of the values
 *                       WHEN x IS NULL THEN NULL                -- NULL compared with some row
 *                       WHEN ck < c THEN NULL                   -- a NULL among the values
 *                       ELSE FALSE END
 * ```
 *
 * `(x1, x2) IN (S.y1, S.y2)` joins on every pair and counts as `ck` the rows with no NULL value
 * (Calcite's `COUNT(y1, y2)`); a NULL among the x's is NULL once S has a row — Calcite's rewrite,
 * which Flink runs, even where the standard's row comparison would find another pair unequal and
 * say FALSE (`(NULL, 1) IN ((2, 2))`). When neither the x's nor the y's can be NULL the counts
 * cannot change the answer and the first join is left out (`i IS NOT NULL`). The counts of an uncorrelated subquery are one global row, which
 * Calcite INNER-joins; in streaming that aggregate has no row while the subquery's table is empty,
 * so, as in Flink's streaming mode, the outer rows wait for the table's first row (Flink's batch
 * mode, where the global aggregate of nothing is a row of zeros, gives FALSE). NOT IN is NOT of IN.
 */
import { count } from '../api/aggregates.ts';
import { buildJoin, type JoinKeyPair } from '../api/joins.ts';
import type { Stream } from '../api/stream.ts';
import type { LogicalType, Row } from '../core/types.ts';
import { joinedFieldNames, keyTypeProblem } from '../operators/join/join-spec.ts';
import { call, col, lit } from '../plan/expr-build.ts';
import type { Expr } from '../plan/expr.ts';
import type { SqlExpr } from './ast.ts';
import { SqlError, atPosition } from './errors.ts';
import { compileExpr, type ExprHooks } from './expressions.ts';
import { correlationKeys, prune, withExpressions } from './decorrelate.ts';
import { stateTtls, type JoinContext } from './joins.ts';
import type { Relation } from './relation.ts';
import { inOperands, subqueryRows } from './subqueries.ts';

type Marked = Extract<SqlExpr, { k: 'inQuery' } | { k: 'exists' }>;

/**
 * Joins `input` with what an IN / EXISTS subquery holds for each row (see the module
 * documentation) and returns the joined relation (its scope still `input`'s columns) and the
 * predicate's three-valued value over its rows; `hooks` compile the outer side's expressions.
 *
 * @throws SqlError for sides of different widths, or a correlation that is not an equality with a
 *   subquery column.
 */
export function markJoin(input: Relation, e: Marked, jc: JoinContext, hooks: ExprHooks = {}): { relation: Relation; value: Expr } {
  const what = e.k === 'exists' ? 'EXISTS' : 'IN';
  const rows = subqueryRows(e.query, e.k === 'inQuery', jc);
  const operands = e.k === 'inQuery' ? inOperands(e) : [];
  if (operands.length !== rows.items.length) {
    throw new SqlError(e.pos, `IN compares ${operands.length} column${operands.length === 1 ? '' : 's'} with a subquery of ${rows.items.length} column${rows.items.length === 1 ? '' : 's'}`);
  }
  const correlation = correlationKeys(input, rows.sub, rows.correlated, hooks);
  const odd = correlation.residual[0];
  if (odd !== undefined) {
    throw new SqlError(odd.pos, `${what} (SELECT …) inside an expression can correlate by equalities of the subquery's columns with the outer query only (t.k = o.k), as Flink decorrelates it: this condition is not one`);
  }
  const left = withExpressions(input, [...correlation.keys.map((k) => k.outer), ...operands.map((x) => compileExpr(x, input.scope, hooks))], e.query.pos);
  const keys: JoinKeyPair[] = correlation.keys.map((k, i) => ({ left: left.columns[i] as string, right: k.sub }));
  const subKeys = [...new Set(keys.map((k) => k.right))];
  const items = withExpressions(rows.sub, rows.items, e.query.pos);
  const ttl = stateTtls(jc, input, rows.sub);
  const join = (l: Stream<Row>, r: Stream<Row>, on: readonly JoinKeyPair[], condition?: Expr, type: 'LEFT' | 'INNER' = 'LEFT'): Stream<Row> =>
    atPosition(e.query.pos, () => buildJoin(l, r, { type, keys: on, ...(condition ? { condition } : {}), ...ttl, what: `${what} subquery in an expression` }));
  const relationOf = (stream: Stream<Row>): Relation => ({ stream, scope: { ...input.scope, schema: stream.schema } });

  if (e.k === 'exists') {
    const dt = distinctMarked(items.relation.stream, subKeys, e.query.pos);
    const stream = join(left.relation.stream, dt.stream, keys);
    return { relation: relationOf(stream), value: call('IS NOT NULL', col(rightName(left.relation.stream, dt.stream, dt.marker))) };
  }

  const xs = left.columns.slice(keys.length);
  const ys = items.columns;
  const xTypes = xs.map((x) => typeOf(left.relation.stream, x));
  const yTypes = ys.map((y) => typeOf(items.relation.stream, y));
  let marked = left.relation.stream;
  let counts: { c: string; ck: string } | undefined;
  if (xTypes.some((t) => t.nullable) || yTypes.some((t) => t.nullable)) {
    const c = freeName('c', [...subKeys, ...ys]);
    const ck = freeName('ck', [...subKeys, ...ys, c]);
    let source = prune(items.relation, new Set([...subKeys, ...ys])).stream;
    // Calcite's COUNT(y1, y2, …): the rows whose values are all non-NULL, counted through a
    // column that is TRUE on those rows and NULL on the others.
    let counted = ys[0] as string;
    if (ys.length > 1) {
      counted = freeName('nn', [...subKeys, ...ys, c, ck]);
      const allKnown = ys.map((y) => call('IS NOT NULL', col(y))).reduce((a, b) => call('AND', a, b));
      const current = source;
      source = atPosition(e.query.pos, () =>
        current.calc([...subKeys.map((k) => ({ name: k, expr: col(k) as Expr })), { name: counted, expr: call('CASE', allKnown, lit(true), lit(null, 'BOOLEAN')) }]),
      );
    }
    const counting = source;
    const ct = atPosition(e.query.pos, () => counting.groupBy(...(subKeys as never[])).aggregate({ [c]: count(), [ck]: count(counted) }) as unknown as Stream<Row>);
    const before = marked;
    // Uncorrelated, the counts are one global row: INNER-joined, as Calcite's SubQueryRemoveRule does.
    marked = join(before, ct, keys, undefined, keys.length === 0 ? 'INNER' : 'LEFT');
    counts = { c: rightName(before, ct, c), ck: rightName(before, ct, ck) };
  }
  const dt = distinctMarked(items.relation.stream, [...new Set([...subKeys, ...ys])], e.query.pos);
  const names = joinedFieldNames(marked.schema, dt.stream.schema).right;
  const joinedName = (y: string): string => names[dt.stream.schema.fields.findIndex((f) => f.name === y)] as string;
  // Each operand pair is a join key, or (types the join cannot key on together) a condition.
  const pairKeys: JoinKeyPair[] = [];
  const pairConditions: Expr[] = [];
  xs.forEach((x, n) => {
    const y = ys[n] as string;
    if (keyTypeProblem(xTypes[n] as LogicalType, yTypes[n] as LogicalType) === undefined) pairKeys.push({ left: x, right: y });
    else pairConditions.push(call('=', col(x), col(joinedName(y))));
  });
  const before = marked;
  const pairCondition = pairConditions.length === 0 ? undefined : pairConditions.reduce((a, b) => call('AND', a, b));
  marked = join(before, dt.stream, [...keys, ...pairKeys], pairCondition);
  const i = col(rightName(before, dt.stream, dt.marker));
  let value: Expr = call('IS NOT NULL', i);
  if (counts !== undefined) {
    const c = col(counts.c);
    const unknown = lit(null, 'BOOLEAN');
    // Calcite's rewriteIn: a NULL among the operands is UNKNOWN unless there are no rows at all,
    // whether or not another operand already differs from every row.
    const nullableXs = xs.filter((_, n) => (xTypes[n] as LogicalType).nullable);
    const anyNull = nullableXs.length === 0 ? lit(false) : nullableXs.map((x) => call('IS NULL', col(x))).reduce((a, b) => call('OR', a, b));
    value = call(
      'CASE',
      call('OR', call('IS NULL', c), call('=', c, lit(0, 'BIGINT'))),
      lit(false),
      call('IS NOT NULL', i),
      lit(true),
      anyNull,
      unknown,
      call('<', col(counts.ck), c),
      unknown,
      lit(false),
    );
  }
  return { relation: relationOf(marked), value: e.not ? call('NOT', value) : value };
}

/** `SELECT DISTINCT columns, true AS i FROM rows`: one row per distinct key, marked. */
function distinctMarked(rows: Stream<Row>, columns: readonly string[], pos: SqlExpr['pos']): { stream: Stream<Row>; marker: string } {
  const marker = freeName('i', columns);
  const stream = atPosition(pos, () => {
    const projected = rows.calc([...columns.map((c) => ({ name: c, expr: col(c) as Expr })), { name: marker, expr: lit(true) }]);
    return projected.groupBy(...([...columns, marker] as never[])).aggregate({}) as unknown as Stream<Row>;
  });
  return { stream, marker };
}

/** The name a right column has in the joined row. */
function rightName(left: Stream<Row>, right: Stream<Row>, column: string): string {
  const names = joinedFieldNames(left.schema, right.schema).right;
  return names[right.schema.fields.findIndex((f) => f.name === column)] as string;
}

function freeName(base: string, taken: readonly string[]): string {
  let name = base;
  for (let n = 0; taken.includes(name); n++) name = `${base}${n}`;
  return name;
}

function typeOf(stream: Stream<Row>, column: string): LogicalType {
  const field = stream.schema.fields.find((f) => f.name === column);
  if (field === undefined) throw new SqlError({ line: 1, column: 1 }, `internal: no column '${column}'`);
  return field.type;
}
