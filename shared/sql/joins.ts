/**
 * SQL joins → join nodes (through shared/api/joins.ts, so SQL and the TypeScript API plan them
 * alike):
 *
 * - `a [INNER|LEFT|RIGHT|FULL [OUTER]] JOIN b ON …` and comma joins `FROM a, b WHERE …`. The
 *   condition is split as Flink's FilterJoinRule / JoinConditionPushRule do: equalities of a
 *   column of each side are the join keys; a conjunct on one side only is pushed below the join
 *   into that side when that keeps the meaning (never into the side an outer join preserves);
 *   the rest is the residual condition. A WHERE conjunct over both sides of an inner or comma
 *   join joins the condition. The rules of api/joins.ts then pick a window, interval or regular
 *   join.
 * - `JOIN versioned FOR SYSTEM_TIME AS OF left.rowtime ON …`: the event-time temporal join (a
 *   `PROCTIME()` attribute makes it a lookup join, query.ts).
 * - Subqueries (`IN`, `EXISTS`) become semi and anti joins in subqueries.ts.
 *
 * Idle-state retention of a regular join: the `STATE_TTL('a' = '1d', 'b' = '12 h')` hint per
 * input (by table name or alias), else `table.exec.state.ttl` for both.
 */
import { compileCorrelateJoin, isCorrelateJoin } from './correlate.ts';
import { buildJoin, conjunctsOf, extractIntervalBounds, intervalJoin, temporalJoin } from '../api/joins.ts';
import { parseDuration } from '../api/windows.ts';
import type { Stream } from '../api/stream.ts';
import type { Row } from '../core/types.ts';
import { PlanError } from '../core/errors.ts';
import { joinedFieldNames, joinedSchema, type JoinType } from '../operators/join/join-spec.ts';
import type { SqlExpr, SqlFrom, SqlHint, SqlQuery, SqlSelect } from './ast.ts';
import { SqlError, atPosition, type SqlPosition } from './errors.ts';
import { compileExpr, resolveColumn, type Scope, type ScopeColumn } from './expressions.ts';
import { sqlAnd, sqlColumnRefs, sqlConjuncts } from './sql-expr-walk.ts';
import { stateTtl, type QueryContext, type Relation } from './relation.ts';

/** What the join compiler needs from query.ts (passed in, so the modules stay acyclic at load). */
export interface JoinContext {
  readonly ctx: QueryContext;
  readonly hints: SqlSelect['hints'];
  /** Compiles a FROM item that is not a join handled here. */
  readonly compileFrom: (from: SqlFrom) => Relation;
  /** Filters a relation (keeps a pending window TVF pending). */
  readonly filter: (input: Relation, where: SqlExpr) => Relation;
  /** Compiles a whole query (an uncorrelated subquery). */
  readonly compileQuery: (query: SqlQuery) => Relation;
}

/** A right column of a joined scope: its joined name (`field`) and its name in the right input. */
interface JoinedScope {
  readonly scope: Scope;
  readonly left: ReadonlySet<ScopeColumn>;
  readonly right: ReadonlyMap<ScopeColumn, string>;
}

function joinedScope(left: Relation, right: Relation, joinType: JoinType): JoinedScope {
  const names = joinedFieldNames(left.scope.schema, right.scope.schema).right;
  const rightField = new Map(right.scope.schema.fields.map((f, i) => [f.name, names[i] as string]));
  const rightColumns = new Map<ScopeColumn, string>();
  const renamed = right.scope.columns.map((c) => {
    const column: ScopeColumn = { ...c, field: rightField.get(c.field) ?? c.field };
    rightColumns.set(column, c.field);
    return column;
  });
  const schema = joinedSchema({ joinType: joinType === 'SEMI' || joinType === 'ANTI' ? 'INNER' : joinType, leftSchema: left.scope.schema, rightSchema: right.scope.schema });
  return {
    scope: { description: `join of ${left.scope.description} and ${right.scope.description}`, schema, columns: [...left.scope.columns, ...renamed] },
    left: new Set(left.scope.columns),
    right: rightColumns,
  };
}

/** Which inputs a conjunct reads; `outside` when a column is in neither (an outer query's). */
function sidesOf(e: SqlExpr, j: JoinedScope): { left: boolean; right: boolean; outside: boolean } {
  const sides = { left: false, right: false, outside: false };
  for (const id of sqlColumnRefs(e)) {
    let column: ScopeColumn;
    try {
      column = resolveColumn(j.scope, id.parts, id.pos);
    } catch (error) {
      if (!(error instanceof SqlError) || !/unknown (column|table or alias)/.test(error.message)) throw error;
      sides.outside = true;
      continue;
    }
    if (j.left.has(column)) sides.left = true;
    else sides.right = true;
  }
  return sides;
}

/** `l = r` with a plain column of each side: the key pair (left field, right input field). */
function keyPair(e: SqlExpr, j: JoinedScope): { left: string; right: string } | undefined {
  if (e.k !== 'bin' || e.op !== '=' || e.left.k !== 'id' || e.right.k !== 'id') return undefined;
  const a = resolveColumn(j.scope, e.left.parts, e.left.pos);
  const b = resolveColumn(j.scope, e.right.parts, e.right.pos);
  if (a.proctime || b.proctime) return undefined;
  if (j.left.has(a) && j.right.has(b)) return { left: a.field, right: j.right.get(b) as string };
  if (j.left.has(b) && j.right.has(a)) return { left: b.field, right: j.right.get(a) as string };
  return undefined;
}

/** A `STATE_TTL` hint's or `table.exec.state.ttl`'s duration ('1d', '12 h', '30 min') in ms. */
export function ttlDurationMs(text: string, what: string, pos: SqlPosition): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]+)?\s*$/i.exec(text);
  if (!m) throw new SqlError(pos, `${what}: cannot read '${text}' as a duration (e.g. '1d', '12 h', '30 min')`);
  const unit = (m[2] ?? 'ms').toLowerCase();
  return atPosition(pos, () => parseDuration(`${m[1]} ${unit === 'd' ? 'day' : unit}`, what));
}

/**
 * Idle-state retention of a group aggregation: `table.exec.state.ttl`, overridden by a
 * `STATE_TTL` hint that names its input (by table name or alias), as Flink's hints page has it
 * for group aggregates (`SELECT /*+ STATE_TTL('orders' = '1d') *\/ … FROM orders GROUP BY …`).
 */
export function aggregateStateTtl(ctx: QueryContext, hints: readonly SqlHint[], input: Relation): { stateTtlMs?: number } {
  const qualifiers = new Set(input.scope.columns.flatMap((c) => c.qualifiers.map((q) => q.toLowerCase())));
  let out = stateTtl(ctx);
  for (const hint of hints.filter((h) => h.name === 'STATE_TTL')) {
    for (const [name, value] of hint.options) {
      if (!qualifiers.has(name.toLowerCase())) continue;
      const v = ttlDurationMs(value, `STATE_TTL('${name}')`, hint.pos);
      out = v > 0 ? { stateTtlMs: v } : {};
    }
  }
  return out;
}

/** `table.exec.state.ttl` and the `STATE_TTL` hint (by table name or alias) for the two inputs of a join. */
export function stateTtls(jc: JoinContext, left: Relation, right: Relation): { leftStateTtlMs?: number; rightStateTtlMs?: number } {
  const ms = ttlDurationMs;
  const out: { leftStateTtlMs?: number; rightStateTtlMs?: number } = {};
  const global = jc.ctx.settings.get('table.exec.state.ttl');
  if (global !== undefined) {
    const v = ms(global, "SET 'table.exec.state.ttl'", { line: 1, column: 1 });
    if (v > 0) {
      out.leftStateTtlMs = v;
      out.rightStateTtlMs = v;
    }
  }
  const qualifiers = (r: Relation): Set<string> => new Set(r.scope.columns.flatMap((c) => c.qualifiers.map((q) => q.toLowerCase())));
  const lq = qualifiers(left);
  const rq = qualifiers(right);
  for (const hint of jc.hints.filter((h) => h.name === 'STATE_TTL')) {
    for (const [name, value] of hint.options) {
      const v = ms(value, `STATE_TTL('${name}')`, hint.pos);
      if (lq.has(name.toLowerCase())) out.leftStateTtlMs = v;
      else if (rq.has(name.toLowerCase())) out.rightStateTtlMs = v;
    }
  }
  return out;
}

/** The relation of a joined stream over a joined scope. */
function joinedRelation(stream: Stream<Row>, j: JoinedScope, keepRight = true): Relation {
  const columns = keepRight ? j.scope.columns : j.scope.columns.filter((c) => j.left.has(c));
  return { stream, scope: { ...j.scope, schema: stream.schema, columns } };
}

/**
 * Compiles a join FROM item (not `FOR SYSTEM_TIME AS OF`), taking from `where` the conjuncts
 * that belong to it; returns the relation and the WHERE conjuncts left for after the join.
 *
 * @throws SqlError for unknown columns, incomparable keys and unsupported joins, at the clause.
 */
export function compileJoin(from: Extract<SqlFrom, { k: 'join' }>, where: readonly SqlExpr[], jc: JoinContext): { relation: Relation; where: SqlExpr[] } {
  // A correlate with UNNEST(…) or LATERAL TABLE(…): a join on its left takes the WHERE
  // conjuncts that belong to it (`FROM a, b, UNNEST(a.arr) WHERE a.id = b.id`); the rest stay
  // for after the correlate.
  if (isCorrelateJoin(from)) {
    if (from.left.k === 'join' && from.left.systemTime === undefined) {
      const inner = compileJoin(from.left, where, jc);
      return { relation: compileCorrelateJoin(from, inner.relation), where: inner.where };
    }
    return { relation: compileCorrelateJoin(from, jc.compileFrom(from.left)), where: [...where] };
  }
  let remaining = [...where];
  const input = (f: SqlFrom): Relation => {
    if (f.k === 'join' && f.systemTime === undefined) {
      const r = compileJoin(f, remaining, jc);
      remaining = r.where;
      return r.relation;
    }
    return jc.compileFrom(f);
  };
  let left = input(from.left);
  let right = input(from.right);
  const type: JoinType = from.joinType === 'CROSS' ? 'INNER' : from.joinType;
  const inner = type === 'INNER';
  const j0 = joinedScope(left, right, type);
  const keys: { left: string; right: string }[] = [];
  const residual: SqlExpr[] = [];
  const pushLeft: SqlExpr[] = [];
  const pushRight: SqlExpr[] = [];
  const place = (c: SqlExpr, fromOn: boolean): boolean => {
    const s = sidesOf(c, j0);
    if (s.outside) {
      if (fromOn) throw atPosition(c.pos, () => resolveEvery(c, j0.scope));
      return false;
    }
    const pair = s.left && s.right ? keyPair(c, j0) : undefined;
    if (pair && (inner || fromOn)) {
      keys.push(pair);
      return true;
    }
    // A conjunct on one side filters that side's rows before the join, unless the join keeps
    // that side's unmatched rows (ON of an outer join: the row survives, padded) or pads that
    // side (WHERE after an outer join: the padded NULL rows would pass the filter otherwise).
    const canPushLeft = fromOn ? type === 'INNER' || type === 'RIGHT' : type === 'INNER' || type === 'LEFT';
    const canPushRight = fromOn ? type === 'INNER' || type === 'LEFT' : type === 'INNER' || type === 'RIGHT';
    if (s.left && !s.right && canPushLeft) pushLeft.push(c);
    else if (s.right && !s.left && canPushRight) pushRight.push(c);
    else if (fromOn || (inner && s.left && s.right)) residual.push(c);
    else return false;
    return true;
  };
  if (from.using) keys.push(...usingKeys(from, left, right));
  for (const c of sqlConjuncts(from.on)) place(c, true);
  remaining = remaining.filter((c) => !place(c, false));
  if (pushLeft.length > 0) left = jc.filter(left, sqlAnd(pushLeft) as SqlExpr);
  if (pushRight.length > 0) right = jc.filter(right, sqlAnd(pushRight) as SqlExpr);
  const j = joinedScope(left, right, type);
  const proctimeBounds = residual.filter((c) => mentionsProctime(c, j.scope));
  if (proctimeBounds.length > 0) {
    const stream = processingTimeIntervalJoin(from, left, right, j, type, keys, proctimeBounds, residual.filter((c) => !proctimeBounds.includes(c)));
    return { relation: usingScope(joinedRelation(stream, j), from, j), where: remaining };
  }
  const condition = residual.length > 0 ? compileExpr(sqlAnd(residual) as SqlExpr, j.scope) : undefined;
  const stream = atPosition(from.pos, () =>
    buildJoin(left.stream, right.stream, {
      type,
      keys,
      ...(condition !== undefined ? { condition } : {}),
      ...stateTtls(jc, left, right),
      what: `${from.joinType === 'CROSS' ? 'comma' : type} join`,
    }),
  );
  return { relation: usingScope(joinedRelation(stream, j), from, j), where: remaining };
}

/** `USING (a, b)`: the key pairs `l.a = r.a`, `l.b = r.b` (by schema field, so unaliased subqueries work). */
function usingKeys(from: Extract<SqlFrom, { k: 'join' }>, left: Relation, right: Relation): { left: string; right: string }[] {
  if (from.joinType === 'FULL') throw new SqlError(from.pos, 'FULL JOIN … USING is not supported yet: use ON and COALESCE the columns');
  const field = (r: Relation, name: string, pos: SqlPosition, side: string): string => {
    const column = r.scope.columns.find((c) => !c.qualifiedOnly && !c.proctime && c.name.toLowerCase() === name.toLowerCase());
    if (!column) throw new SqlError(pos, `USING column '${name}' is not a column of the ${side} input (columns: ${r.scope.columns.filter((c) => !c.proctime).map((c) => c.name).join(', ')})`);
    return column.field;
  };
  return from.using!.map((u) => ({ left: field(left, u.name, u.pos, 'left'), right: field(right, u.name, u.pos, 'right') }));
}

/**
 * After `JOIN … USING (c)`, `c` and `*` name one column: the left input's (the right's for a
 * RIGHT JOIN); the other copy stays reachable qualified.
 */
function usingScope(r: Relation, from: Extract<SqlFrom, { k: 'join' }>, j: JoinedScope): Relation {
  if (!from.using) return r;
  const names = new Set(from.using.map((u) => u.name.toLowerCase()));
  const hideLeft = from.joinType === 'RIGHT';
  const columns = r.scope.columns.map((c) => (names.has(c.name.toLowerCase()) && j.left.has(c) === hideLeft ? { ...c, qualifiedOnly: true } : c));
  return { ...r, scope: { ...r.scope, columns } };
}

/** Whether a conjunct reads a `PROCTIME()` attribute. */
function mentionsProctime(e: SqlExpr, scope: Scope): boolean {
  return sqlColumnRefs(e).some((id) => {
    try {
      return resolveColumn(scope, id.parts, id.pos).proctime === true;
    } catch {
      return false;
    }
  });
}


/**
 * A processing-time interval join: conjuncts bounding one side's `PROCTIME()` attribute by the
 * other's (`l.pt BETWEEN r.pt - INTERVAL '5' SECOND AND r.pt`). Processing-time attributes
 * have no values to compare in a row, so these conjuncts only give the bounds, which must come
 * out as a lower and an upper one.
 *
 * @throws SqlError when the conjuncts do not bound the two attributes from both sides.
 */
function processingTimeIntervalJoin(
  from: Extract<SqlFrom, { k: 'join' }>,
  left: Relation,
  right: Relation,
  j: JoinedScope,
  type: JoinType,
  keys: readonly { left: string; right: string }[],
  bounds: readonly SqlExpr[],
  rest: readonly SqlExpr[],
): Stream<Row> {
  if (type === 'SEMI' || type === 'ANTI') throw new SqlError(from.pos, 'a processing-time interval join is INNER, LEFT, RIGHT or FULL');
  // The attributes read as TIMESTAMP columns of their own (`pt`, `pt0` on a clash), only to read the bounds.
  const ts = { root: 'TIMESTAMP', nullable: false, precision: 3 } as const;
  const taken = new Set(j.scope.schema.fields.map((f) => f.name));
  const stand = new Map<ScopeColumn, string>();
  const sides: string[][] = [[], []];
  for (const c of j.scope.columns) {
    if (!c.proctime) continue;
    let name = c.name;
    for (let n = 0; taken.has(name); n++) name = `${c.name}${n}`;
    taken.add(name);
    stand.set(c, name);
    (sides[j.left.has(c) ? 0 : 1] as string[]).push(name);
  }
  const columns = j.scope.columns.map((c) => (stand.has(c) ? { ...c, proctime: false, field: stand.get(c) as string } : c));
  const scope: Scope = { ...j.scope, columns, schema: { fields: [...j.scope.schema.fields, ...[...stand.values()].map((name) => ({ name, type: ts }))] } };
  const exprs = bounds.flatMap((c) => conjunctsOf(compileExpr(c, scope)));
  const found = atPosition(bounds[0]?.pos ?? from.pos, () => extractIntervalBounds(exprs, sides[0] as string[], sides[1] as string[]));
  if (found === undefined || found.rest.length > 0) {
    throw new SqlError(
      (bounds[0] as SqlExpr).pos,
      'a condition on PROCTIME() attributes must bound one side\'s by the other\'s from below and above (l.pt BETWEEN r.pt - INTERVAL … AND r.pt + INTERVAL …): that is a processing-time interval join',
    );
  }
  const condition = rest.length > 0 ? compileExpr(sqlAnd(rest) as SqlExpr, j.scope) : undefined;
  return atPosition(from.pos, () =>
    intervalJoin(left.stream, right.stream, {
      joinType: type,
      leftKeys: keys.map((k) => k.left),
      rightKeys: keys.map((k) => k.right),
      condition,
      timeDomain: 'processing',
      lower: found.lower,
      upper: found.upper,
      boundPredicates: found.bounds,
    }),
  );
}

/** Resolves every column of `e` in `scope`, so the first unknown one raises its SqlError. */
function resolveEvery(e: SqlExpr, scope: Scope): SqlError {
  for (const id of sqlColumnRefs(e)) resolveColumn(scope, id.parts, id.pos);
  return new SqlError(e.pos, 'internal: a join condition refers to no known column');
}

/**
 * `probe JOIN versioned FOR SYSTEM_TIME AS OF probe.rowtime [AS v] ON …`: the event-time
 * temporal join. `left` is the probe relation, already compiled.
 *
 * @throws SqlError when the time is not the probe's rowtime or the versioned side has no rowtime.
 */
export function compileTemporalJoin(from: Extract<SqlFrom, { k: 'join' }>, left: Relation, timeColumn: ScopeColumn, jc: JoinContext): Relation {
  if (from.joinType !== 'INNER' && from.joinType !== 'LEFT') {
    throw new SqlError(from.pos, `a temporal join is INNER or LEFT (given ${from.joinType}), as in Flink`);
  }
  const leftField = left.scope.schema.fields.find((f) => f.name === timeColumn.field);
  if (leftField?.timeAttribute !== 'rowtime') {
    throw new SqlError(from.systemTime?.pos ?? from.pos, `FOR SYSTEM_TIME AS OF needs a rowtime attribute (a column with a WATERMARK) or a PROCTIME() attribute; '${timeColumn.name}' is neither`);
  }
  const right = jc.compileFrom(from.right);
  const rowtimes = right.scope.schema.fields.filter((f) => f.timeAttribute === 'rowtime');
  if (rowtimes.length !== 1) {
    throw new SqlError(from.right.pos, `the versioned table of a temporal join needs one rowtime attribute (a WATERMARK), but it has ${rowtimes.length === 0 ? 'none' : rowtimes.map((f) => f.name).join(', ')}`);
  }
  const j = joinedScope(left, right, from.joinType);
  const keys: { left: string; right: string }[] = [];
  const residual: SqlExpr[] = [];
  for (const c of sqlConjuncts(from.on)) {
    const s = sidesOf(c, j);
    if (s.outside) throw atPosition(c.pos, () => resolveEvery(c, j.scope));
    const pair = s.left && s.right ? keyPair(c, j) : undefined;
    if (pair) keys.push(pair);
    else residual.push(c);
  }
  if (keys.length === 0) throw new SqlError(from.pos, 'a temporal join needs an equality between a probe column and the versioned table\'s primary key');
  const condition = residual.length > 0 ? compileExpr(sqlAnd(residual) as SqlExpr, j.scope) : undefined;
  const ttl = jc.ctx.settings.get('table.exec.state.ttl');
  const stream = atPosition(from.pos, () =>
    temporalJoin(left.stream, right.stream, {
      joinType: from.joinType as 'INNER' | 'LEFT',
      keys,
      ...(condition !== undefined ? { condition } : {}),
      leftTimeColumn: timeColumn.field,
      rightTimeColumn: (rowtimes[0] as { name: string }).name,
      ...(ttl !== undefined && parseTtl(ttl) > 0 ? { stateTtlMs: parseTtl(ttl) } : {}),
      what: 'temporal join',
    }),
  );
  return joinedRelation(stream, j);
}

function parseTtl(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]+)?\s*$/i.exec(text);
  if (!m) throw new PlanError(`SET 'table.exec.state.ttl': cannot read '${text}' as a duration`);
  const unit = (m[2] ?? 'ms').toLowerCase();
  return parseDuration(`${m[1]} ${unit === 'd' ? 'day' : unit}`, "SET 'table.exec.state.ttl'");
}
