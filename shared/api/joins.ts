/**
 * Building join nodes, shared by the TypeScript API (`stream.join`, `intervalJoin`,
 * `temporalJoin`, window `join`) and the Flink SQL front end, so both plan a join the same way.
 *
 * Which join an equi-join becomes follows Flink's physical rules:
 *
 * 1. Both inputs carry the same window (a window TVF or a window aggregate, through renaming
 *    projections) and the keys equate both window starts and both window ends → WindowJoin
 *    (StreamPhysicalWindowJoinRule); its state key is the other keys.
 * 2. The residual condition bounds one side's rowtime by the other's from below and above
 *    (`l.t BETWEEN r.t - INTERVAL … AND r.t + INTERVAL …`, or `>=` / `<=` / `>` / `<` forms)
 *    → IntervalJoin (IntervalJoinUtil.extractWindowBoundsFromPredicate); the bounds leave the
 *    residual condition.
 * 3. Otherwise a regular Join; SEMI and ANTI are regular joins too (Flink's
 *    StreamingSemiAntiJoinOperator), never interval joins: their time bounds stay in the
 *    condition, as Flink's interval join rule leaves semi and anti joins alone.
 */
import { PlanError } from '../core/errors.ts';
import type { Field, Row, Schema } from '../core/types.ts';
import { inferType } from '../plan/expr-types.ts';
import type { Expr } from '../plan/expr.ts';
import type { LogicalNode, WindowSpec } from '../plan/logical.ts';
import { SESSION_NOT_SUPPORTED, windowEmitsUpdates } from '../plan/window-planning.ts';
import { joinedFieldNames, joinedSchema, keyTypeProblem, type JoinType, type OuterJoinType } from '../operators/join/join-spec.ts';
import { intervalJoinOutputSchema } from '../operators/join/interval-join.ts';
import { streamingJoinOutputSchema } from '../operators/join/streaming-join.ts';
import { temporalJoinOutputSchema } from '../operators/join/temporal-join.ts';
import { windowJoinOutputSchema } from '../operators/join/window-join.ts';
import type { Stream } from './stream.ts';

/** What the builders read of a stream (any row type). */
export type JoinInput = Pick<Stream<unknown>, 'pipeline' | 'node' | 'schema' | 'derive'>;

/** An equi-join key pair: a left column equal to a right column. */
export interface JoinKeyPair {
  readonly left: string;
  readonly right: string;
  /** `IS NOT DISTINCT FROM` instead of `=`: NULL matches NULL (regular joins only). @default false */
  readonly nullSafe?: boolean;
}

/** What a join asks for, before the rules pick its kind. */
export interface JoinRequest {
  readonly type: JoinType;
  readonly keys: readonly JoinKeyPair[];
  /** Residual condition over the joined row (left columns, then right columns renamed on a clash). */
  readonly condition?: Expr;
  /** Idle-state retention of a regular join's sides, ms. */
  readonly leftStateTtlMs?: number;
  readonly rightStateTtlMs?: number;
  /** Where the request came from, for errors (`join`, `SQL JOIN`). */
  readonly what?: string;
}

/** The window a stream's rows carry, and the columns holding its start and end. */
export interface WindowProperties {
  readonly window: WindowSpec;
  readonly start: string;
  readonly end: string;
}

/**
 * The window properties of a node's rows (Flink's FlinkRelMdWindowProperties): rows of a window
 * table function, of a window aggregate that fires once, of a window Top-N or deduplication,
 * followed through projections that keep (and maybe rename) both window columns.
 */
export function windowPropertiesOf(node: LogicalNode): WindowProperties | undefined {
  switch (node.type) {
    case 'WindowTableFunction':
      // A SESSION table function's rows carry per-partition sessions, which no window join or
      // window Top-N after it plans by (they take the aligned windows); a processing-time one's
      // windows end on the clock, which the window join (firing on the watermark) does not follow.
      return node.window.type === 'SESSION' || node.timeDomain === 'processing' ? undefined : { window: node.window, start: 'window_start', end: 'window_end' };
    case 'WindowAggregate':
      return node.timeDomain !== 'processing' && !windowEmitsUpdates(node) ? { window: node.window, start: 'window_start', end: 'window_end' } : undefined;
    case 'WindowRank':
    case 'WindowDeduplicate':
      return node.window === undefined ? undefined : { window: node.window, start: node.windowStartColumn, end: node.windowEndColumn };
    case 'Exchange':
      return windowPropertiesOf(node.input);
    case 'Calc': {
      const inner = windowPropertiesOf(node.input);
      if (inner === undefined) return undefined;
      const renamed = (column: string): string | undefined => node.projection.find((p) => p.expr.kind === 'ref' && p.expr.name === column)?.name;
      const start = renamed(inner.start);
      const end = renamed(inner.end);
      return start !== undefined && end !== undefined ? { window: inner.window, start, end } : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * The window table function or window aggregate a node's rows come straight from (through
 * exchanges and projections keeping both window columns), or undefined.
 */
function windowSource(node: LogicalNode): Extract<LogicalNode, { type: 'WindowTableFunction' | 'WindowAggregate' }> | undefined {
  if (node.type === 'WindowTableFunction' || node.type === 'WindowAggregate') return node;
  if (node.type === 'Exchange') return windowSource(node.input);
  if (node.type !== 'Calc') return undefined;
  const keeps = (c: string): boolean => node.projection.some((p) => p.expr.kind === 'ref' && p.expr.name === c);
  return keeps('window_start') && keeps('window_end') ? windowSource(node.input) : undefined;
}

/**
 * Flink's refusals of a join on `window_start` and `window_end` of two windowed inputs that its
 * window join does not take: straight after SESSION table functions (the page's "Limitation"),
 * and over processing-time windows (StreamExecWindowJoin's check).
 */
function checkWindowJoinInputs(left: LogicalNode, right: LogicalNode, keys: readonly JoinKeyPair[]): void {
  const windowKey = (c: string): boolean => keys.some((k) => k.left === c && k.right === c);
  const l = windowSource(left);
  const r = windowSource(right);
  if (l === undefined || r === undefined || !windowKey('window_start') || !windowKey('window_end')) return;
  const session = (n: typeof l): boolean => n.type === 'WindowTableFunction' && n.window.type === 'SESSION';
  if (session(l) && session(r)) throw new PlanError(SESSION_NOT_SUPPORTED.join);
  if (l.timeDomain === 'processing' || r.timeDomain === 'processing') {
    throw new PlanError('Processing time Window Join is not supported yet, as in Flink (its window join takes event-time windows only)');
  }
}

function sameWindow(a: WindowSpec, b: WindowSpec): boolean {
  const { timeColumn: _a, ...ra } = a as WindowSpec & { timeColumn: string };
  const { timeColumn: _b, ...rb } = b as WindowSpec & { timeColumn: string };
  return JSON.stringify(ra, Object.keys(ra).sort()) === JSON.stringify(rb, Object.keys(rb).sort());
}

/** Checks the key pairs name columns of comparable types. */
function checkKeys(left: Schema, right: Schema, keys: readonly JoinKeyPair[], what: string): void {
  for (const k of keys) {
    const lf = left.fields.find((f) => f.name === k.left);
    const rf = right.fields.find((f) => f.name === k.right);
    if (!lf) throw new PlanError(`${what}: unknown left column '${k.left}' (columns: ${left.fields.map((f) => f.name).join(', ')})`);
    if (!rf) throw new PlanError(`${what}: unknown right column '${k.right}' (columns: ${right.fields.map((f) => f.name).join(', ')})`);
    const problem = keyTypeProblem(lf.type, rf.type);
    if (problem) throw new PlanError(`${what}: key ${k.left} = ${k.right} ${problem}`);
  }
}

/** Checks a residual condition is a BOOLEAN over the joined row. */
function checkCondition(condition: Expr | undefined, left: Schema, right: Schema, type: JoinType, what: string): void {
  if (condition === undefined) return;
  const t = inferType(condition, joinedSchema({ joinType: type, leftSchema: left, rightSchema: right }));
  if (t.root !== 'BOOLEAN') throw new PlanError(`${what}: the join condition must be BOOLEAN (it is ${t.root})`);
}

/** Splits a condition into its AND-ed conjuncts. */
export function conjunctsOf(e: Expr | undefined): Expr[] {
  if (e === undefined) return [];
  if (e.kind === 'call' && e.fn.toUpperCase() === 'AND') return e.args.flatMap(conjunctsOf);
  return [e];
}

/** Joins conjuncts back with AND; undefined for none. */
export function andOf(conjuncts: readonly Expr[]): Expr | undefined {
  if (conjuncts.length === 0) return undefined;
  return conjuncts.length === 1 ? conjuncts[0] : { kind: 'call', fn: 'AND', args: [...conjuncts] };
}

/** A time column plus a constant offset: `t`, `t + INTERVAL …`, `t - INTERVAL …`. */
function timeTerm(e: Expr): { column: string; offset: number } | undefined {
  if (e.kind === 'ref') return { column: e.name, offset: 0 };
  if (e.kind !== 'call' || e.args.length !== 2 || (e.fn !== '+' && e.fn !== '-')) return undefined;
  const [a, b] = e.args as [Expr, Expr];
  // A day-time interval's milliseconds (a YEAR or MONTH interval has no fixed length: no bound).
  const ms = (x: Expr): number | undefined =>
    x.kind === 'literal' && x.interval !== undefined && x.interval !== 'YEAR' && x.interval !== 'MONTH' && typeof x.value === 'number' ? x.value : undefined;
  if (a.kind === 'ref' && ms(b) !== undefined) return { column: a.name, offset: e.fn === '+' ? (ms(b) as number) : -(ms(b) as number) };
  if (e.fn === '+' && b.kind === 'ref' && ms(a) !== undefined) return { column: b.name, offset: ms(a) as number };
  return undefined;
}

const FLIP: Readonly<Record<string, string>> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/** Interval bounds found in a condition, and what is left of it. */
export interface IntervalBounds {
  readonly leftTime: string;
  /** The right time column under its name in the joined row. */
  readonly rightTime: string;
  readonly lower: number;
  readonly upper: number;
  /** The conjuncts that gave the bounds (shown in EXPLAIN). */
  readonly bounds: readonly Expr[];
  readonly rest: readonly Expr[];
}

/**
 * Extracts `rightTime + lower <= leftTime <= rightTime + upper` from conjuncts over the joined
 * row, for the given candidate time columns (joined names). Strict bounds move by one
 * millisecond. Undefined unless both a lower and an upper bound are found on one column pair.
 */
export function extractIntervalBounds(conjuncts: readonly Expr[], leftTimes: readonly string[], rightTimes: readonly string[]): IntervalBounds | undefined {
  let pair: { l: string; r: string } | undefined;
  let lower = -Infinity;
  let upper = Infinity;
  const rest: Expr[] = [];
  const used: Expr[] = [];
  for (const c of conjuncts) {
    const bound = c.kind === 'call' && c.args.length === 2 && FLIP[c.fn] !== undefined ? c : undefined;
    const a = bound ? timeTerm(bound.args[0] as Expr) : undefined;
    const b = bound ? timeTerm(bound.args[1] as Expr) : undefined;
    if (!bound || !a || !b) {
      rest.push(c);
      continue;
    }
    // Normalize to  leftTime (op) rightTime + d.
    let op = bound.fn;
    let l = a;
    let r = b;
    if (rightTimes.includes(a.column) && leftTimes.includes(b.column)) {
      op = FLIP[op] as string;
      l = b;
      r = a;
    }
    if (!leftTimes.includes(l.column) || !rightTimes.includes(r.column) || (pair && (pair.l !== l.column || pair.r !== r.column))) {
      rest.push(c);
      continue;
    }
    pair = { l: l.column, r: r.column };
    used.push(c);
    const d = r.offset - l.offset;
    if (op === '>=') lower = Math.max(lower, d);
    else if (op === '>') lower = Math.max(lower, d + 1);
    else if (op === '<=') upper = Math.min(upper, d);
    else upper = Math.min(upper, d - 1);
  }
  if (!pair || lower === -Infinity || upper === Infinity) return undefined;
  if (lower > upper) throw new PlanError(`the time bounds of the join keep no rows (${lower} ms > ${upper} ms)`);
  return { leftTime: pair.l, rightTime: pair.r, lower, upper, bounds: used, rest };
}

/** Names of a schema's rowtime attribute columns. */
function rowtimes(schema: Schema): string[] {
  return schema.fields.filter((f: Field) => f.timeAttribute === 'rowtime').map((f) => f.name);
}

/**
 * Builds the join of `left` and `right` the rules pick (see the module header).
 *
 * @throws PlanError for unknown or incomparable keys, a non-BOOLEAN condition, or inputs of
 *   another pipeline.
 */
export function buildJoin(left: JoinInput, right: JoinInput, request: JoinRequest): Stream<Row> {
  const what = request.what ?? 'join';
  if (left.pipeline !== right.pipeline) throw new PlanError(`${what}: both streams must belong to one pipeline`);
  const pipeline = left.pipeline;
  const ls = left.schema;
  const rs = right.schema;
  checkKeys(ls, rs, request.keys, what);
  checkCondition(request.condition, ls, rs, request.type, what);
  const base = { left: left.node, right: right.node } as const;
  // IS NOT DISTINCT FROM keys (INTERSECT, EXCEPT) are a regular join's: NULL rows stay NULL-safe.
  const nullSafeKeys = request.keys.some((k) => k.nullSafe === true) ? request.keys.map((k) => k.nullSafe === true) : undefined;

  const lw = windowPropertiesOf(left.node);
  const rw = windowPropertiesOf(right.node);
  checkWindowJoinInputs(left.node, right.node, request.keys);
  if (lw && rw && nullSafeKeys === undefined && sameWindow(lw.window, rw.window)) {
    const isStart = (k: JoinKeyPair): boolean => k.left === lw.start && k.right === rw.start;
    const isEnd = (k: JoinKeyPair): boolean => k.left === lw.end && k.right === rw.end;
    if (request.keys.some(isStart) && request.keys.some(isEnd)) {
      const keys = request.keys.filter((k) => !isStart(k) && !isEnd(k));
      const spec = {
        joinType: request.type,
        leftSchema: ls,
        rightSchema: rs,
        leftKeys: keys.map((k) => k.left),
        rightKeys: keys.map((k) => k.right),
        ...(request.condition !== undefined ? { condition: request.condition } : {}),
        leftWindowEndColumn: lw.end,
        rightWindowEndColumn: rw.end,
      };
      return left.derive<Row>({
        type: 'WindowJoin',
        id: pipeline.nextId(),
        ...base,
        joinType: request.type,
        leftKeys: spec.leftKeys,
        rightKeys: spec.rightKeys,
        ...(request.condition !== undefined ? { condition: request.condition } : {}),
        leftWindowStartColumn: lw.start,
        leftWindowEndColumn: lw.end,
        rightWindowStartColumn: rw.start,
        rightWindowEndColumn: rw.end,
        leftWindow: lw.window,
        rightWindow: rw.window,
        schema: windowJoinOutputSchema(spec),
      });
    }
  }
  const joinType = request.type;
  const keys = { leftKeys: request.keys.map((k) => k.left), rightKeys: request.keys.map((k) => k.right) };
  const rightNames = joinedFieldNames(ls, rs).right;
  const semiOrAnti = joinType === 'SEMI' || joinType === 'ANTI';
  const bounds = semiOrAnti || nullSafeKeys !== undefined ? undefined : extractIntervalBounds(
    conjunctsOf(request.condition),
    rowtimes(ls),
    rowtimes(rs).map((n) => rightNames[rs.fields.findIndex((f) => f.name === n)] as string),
  );
  if (bounds) {
    const rightTime = rs.fields[rightNames.indexOf(bounds.rightTime)]?.name as string;
    return intervalJoin(left, right, {
      joinType: joinType as OuterJoinType,
      ...keys,
      condition: andOf(bounds.rest),
      timeDomain: 'event',
      leftTimeColumn: bounds.leftTime,
      rightTimeColumn: rightTime,
      lower: bounds.lower,
      upper: bounds.upper,
      boundPredicates: bounds.bounds,
    });
  }
  const spec = {
    joinType,
    leftSchema: ls,
    rightSchema: rs,
    ...keys,
    ...(request.condition !== undefined ? { condition: request.condition } : {}),
    ...(nullSafeKeys !== undefined ? { nullSafeKeys } : {}),
    leftInput: { type: 'NoUniqueKey' } as const,
    rightInput: { type: 'NoUniqueKey' } as const,
  };
  return left.derive<Row>({
    type: 'Join',
    id: pipeline.nextId(),
    ...base,
    joinType,
    ...keys,
    ...(nullSafeKeys !== undefined ? { nullSafeKeys } : {}),
    ...(request.condition !== undefined ? { condition: request.condition } : {}),
    ...(request.leftStateTtlMs !== undefined ? { leftStateTtlMs: request.leftStateTtlMs } : {}),
    ...(request.rightStateTtlMs !== undefined ? { rightStateTtlMs: request.rightStateTtlMs } : {}),
    schema: streamingJoinOutputSchema(spec),
  });
}

/** An interval join node with explicit bounds (`right.t + lower <= left.t <= right.t + upper`). */
export function intervalJoin(
  left: JoinInput,
  right: JoinInput,
  o: {
    readonly joinType: OuterJoinType;
    readonly leftKeys: readonly string[];
    readonly rightKeys: readonly string[];
    readonly condition: Expr | undefined;
    readonly timeDomain: 'event' | 'processing';
    readonly leftTimeColumn?: string;
    readonly rightTimeColumn?: string;
    readonly lower: number;
    readonly upper: number;
    /** The conditions the bounds were read from, for EXPLAIN. */
    readonly boundPredicates?: readonly Expr[];
  },
): Stream<Row> {
  const pipeline = left.pipeline;
  const spec = {
    joinType: o.joinType,
    leftSchema: left.schema,
    rightSchema: right.schema,
    leftKeys: o.leftKeys,
    rightKeys: o.rightKeys,
    ...(o.condition !== undefined ? { condition: o.condition } : {}),
    timeDomain: o.timeDomain,
    ...(o.leftTimeColumn !== undefined ? { leftTimeColumn: o.leftTimeColumn } : {}),
    ...(o.rightTimeColumn !== undefined ? { rightTimeColumn: o.rightTimeColumn } : {}),
    leftLowerBoundMs: o.lower,
    leftUpperBoundMs: o.upper,
  };
  return left.derive<Row>({
    type: 'IntervalJoin',
    id: pipeline.nextId(),
    left: left.node,
    right: right.node,
    joinType: o.joinType,
    leftKeys: o.leftKeys,
    rightKeys: o.rightKeys,
    ...(o.condition !== undefined ? { condition: o.condition } : {}),
    timeDomain: o.timeDomain,
    ...(o.leftTimeColumn !== undefined ? { leftTimeColumn: o.leftTimeColumn } : {}),
    ...(o.rightTimeColumn !== undefined ? { rightTimeColumn: o.rightTimeColumn } : {}),
    leftLowerBoundMs: o.lower,
    leftUpperBoundMs: o.upper,
    ...(o.boundPredicates !== undefined && o.boundPredicates.length > 0 ? { boundPredicates: o.boundPredicates } : {}),
    schema: intervalJoinOutputSchema(spec),
  });
}

/** An event-time temporal join node; the right side is the versioned table. */
export function temporalJoin(
  left: JoinInput,
  right: JoinInput,
  o: {
    readonly joinType: 'INNER' | 'LEFT';
    readonly keys: readonly JoinKeyPair[];
    readonly condition?: Expr;
    readonly leftTimeColumn: string;
    readonly rightTimeColumn: string;
    readonly stateTtlMs?: number;
    readonly what?: string;
  },
): Stream<Row> {
  const what = o.what ?? 'temporalJoin';
  if (left.pipeline !== right.pipeline) throw new PlanError(`${what}: both streams must belong to one pipeline`);
  checkKeys(left.schema, right.schema, o.keys, what);
  checkCondition(o.condition, left.schema, right.schema, o.joinType, what);
  const pipeline = left.pipeline;
  const spec = {
    joinType: o.joinType,
    leftSchema: left.schema,
    rightSchema: right.schema,
    leftKeys: o.keys.map((k) => k.left),
    rightKeys: o.keys.map((k) => k.right),
    ...(o.condition !== undefined ? { condition: o.condition } : {}),
    leftTimeColumn: o.leftTimeColumn,
    rightTimeColumn: o.rightTimeColumn,
    ...(o.stateTtlMs !== undefined ? { stateTtlMs: o.stateTtlMs } : {}),
  };
  return left.derive<Row>({
    type: 'TemporalJoin',
    id: pipeline.nextId(),
    left: left.node,
    right: right.node,
    joinType: o.joinType,
    leftKeys: spec.leftKeys,
    rightKeys: spec.rightKeys,
    ...(o.condition !== undefined ? { condition: o.condition } : {}),
    leftTimeColumn: o.leftTimeColumn,
    rightTimeColumn: o.rightTimeColumn,
    ...(o.stateTtlMs !== undefined ? { stateTtlMs: o.stateTtlMs } : {}),
    schema: temporalJoinOutputSchema(spec),
  });
}
