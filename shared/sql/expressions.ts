/**
 * SQL expressions (ast.ts) → the plan's expression IR (shared/plan/expr.ts), resolved against a
 * scope of visible columns. Names are resolved case-sensitively first and then
 * case-insensitively (Flink is case-sensitive, but a unique case-insensitive match is what the
 * user meant); an unknown column names the table and lists its columns.
 */
import { parseType } from '../core/type-parse.ts';
import { parseDate, parseTime, parseTimestamp } from '../core/timestamp.ts';
import { timeZoneOf, toInstant } from '../core/time-zone.ts';
import { sessionTimeZone } from './session-time-zone.ts';
import type { Schema } from '../core/types.ts';
import type { Expr } from '../plan/expr.ts';
import { call, inTimeZone, interval, lit, monthInterval } from '../plan/expr-build.ts';
import type { IntervalUnit } from '../plan/expr.ts';
import { intervalMonths, intervalMs } from './sql-literals.ts';
import { inferType } from '../plan/expr-types.ts';
import { checkUserCall, isUserAggregateName, userFunction } from './user-functions.ts';
import type { SqlExpr } from './ast.ts';
import { SqlError, atPosition, type SqlPosition } from './errors.ts';

/** A column visible in a query: its qualifier (table name or alias) and its name in the input row. */
export interface ScopeColumn {
  readonly qualifiers: readonly string[];
  readonly name: string;
  /** The column's name in the node's schema (differs after a join renames a clash). */
  readonly field: string;
  /** Processing-time attribute declared with `PROCTIME()`: usable only in FOR SYSTEM_TIME AS OF. */
  readonly proctime?: boolean;
  /**
   * The other side's copy of a `JOIN … USING (c)` column: reachable qualified only (`b.c`); `c`
   * and `*` name the merged column once.
   */
  readonly qualifiedOnly?: boolean;
}

/** What a query can see: the input node's schema plus qualified names. */
export interface Scope {
  /** Described in errors: `table 'orders'`, `subquery`. */
  readonly description: string;
  readonly columns: readonly ScopeColumn[];
  readonly schema: Schema;
}

/** Hooks for grouped queries: aggregate calls and group-key expressions become column refs. */
export interface ExprHooks {
  readonly replace?: (e: SqlExpr) => Expr | undefined;
}

/** A scope over a schema, all columns qualified by `qualifiers`. */
export function scopeOf(schema: Schema, description: string, qualifiers: readonly string[], proctime: readonly string[] = []): Scope {
  return {
    description,
    schema,
    columns: [
      ...schema.fields.map((f) => ({ qualifiers, name: f.name, field: f.name })),
      ...proctime.map((name) => ({ qualifiers, name, field: name, proctime: true })),
    ],
  };
}

/** A key identifying an expression's shape (positions ignored), to match GROUP BY expressions. */
export function exprKey(e: SqlExpr): string {
  return JSON.stringify(e, (k, v: unknown) => (k === 'pos' ? undefined : typeof v === 'string' && k === 'name' ? v.toUpperCase() : v));
}

/** Finds a column; throws `unknown column 'x' in table 't' (columns: …)` at the reference. */
export function resolveColumn(scope: Scope, parts: readonly string[], pos: SqlPosition): ScopeColumn {
  const name = parts[parts.length - 1] as string;
  const qualifier = parts.length > 1 ? parts[parts.length - 2] : undefined;
  const candidates = scope.columns.filter((c) => (qualifier === undefined ? !c.qualifiedOnly : c.qualifiers.includes(qualifier) || c.qualifiers.some((q) => q.toLowerCase() === qualifier.toLowerCase())));
  if (qualifier !== undefined && candidates.length === 0) {
    const known = [...new Set(scope.columns.flatMap((c) => c.qualifiers))];
    throw new SqlError(pos, `unknown table or alias '${qualifier}' in ${scope.description} (known: ${known.join(', ') || 'none'})`);
  }
  let found = candidates.filter((c) => c.name === name);
  if (found.length === 0) found = candidates.filter((c) => c.name.toLowerCase() === name.toLowerCase());
  if (found.length > 1) {
    throw new SqlError(pos, `column '${name}' is ambiguous in ${scope.description}: qualify it (${found.map((c) => `${c.qualifiers[0] ?? '?'}.${c.name}`).join(', ')})`);
  }
  const column = found[0];
  if (!column) {
    const where = qualifier !== undefined ? `'${qualifier}'` : scope.description;
    const columns = candidates.filter((c) => !c.proctime).map((c) => c.name);
    throw new SqlError(pos, `unknown column '${name}' in ${where} (columns: ${columns.join(', ')})`);
  }
  return column;
}

/**
 * Resolves `a.b.c`: a qualified column `t.col` first (Flink's rule: table names win), then a
 * column `a` with field accesses `.b.c` on a ROW, then `t.col` with fields after it.
 */
function resolveNested(scope: Scope, parts: readonly string[], pos: SqlPosition): { column: ScopeColumn; fields: readonly string[] } {
  if (parts.length <= 2) {
    try {
      return { column: resolveColumn(scope, parts, pos), fields: [] };
    } catch (err) {
      if (parts.length === 1 || !(err instanceof SqlError)) throw err;
      // `info.name` where `info` is a column, not a table: fall through.
      const asColumn = tryResolve(scope, parts.slice(0, 1), pos);
      if (asColumn === undefined) throw err;
      return { column: asColumn, fields: parts.slice(1) };
    }
  }
  const qualified = tryResolve(scope, parts.slice(0, 2), pos);
  if (qualified !== undefined) return { column: qualified, fields: parts.slice(2) };
  return { column: resolveColumn(scope, parts.slice(0, 1), pos), fields: parts.slice(1) };
}

/** {@link resolveColumn}, or `undefined` where it would throw. */
function tryResolve(scope: Scope, parts: readonly string[], pos: SqlPosition): ScopeColumn | undefined {
  try {
    return resolveColumn(scope, parts, pos);
  } catch (err) {
    if (err instanceof SqlError) return undefined;
    throw err;
  }
}

const FUNCTION_ALIASES: Readonly<Record<string, string>> = {
  CHARACTER_LENGTH: 'CHAR_LENGTH',
  CEILING: 'CEIL',
  DAY: 'DAYOFMONTH',
  SUBSTR: 'SUBSTRING',
};

/** The aggregate functions of group and window aggregation (STDDEV and VARIANCE are synonyms). */
const AGGREGATES = new Set([
  'COUNT', 'SUM', 'MIN', 'MAX', 'AVG', 'LISTAGG', 'FIRST_VALUE', 'LAST_VALUE', 'VAR_POP', 'VAR_SAMP', 'VARIANCE', 'STDDEV_POP', 'STDDEV_SAMP', 'STDDEV',
  'COLLECT', 'ARRAY_AGG', 'JSON_ARRAYAGG', 'JSON_OBJECTAGG', 'PERCENTILE',
]);

/** The names of the built-in aggregate functions (SHOW FUNCTIONS lists them). */
export function aggregateFunctionNames(): string[] {
  return [...AGGREGATES];
}

/** True for calls of aggregate functions (COUNT, SUM, …, LISTAGG, STDDEV; not window functions). */
export function isAggregateCall(e: SqlExpr): e is Extract<SqlExpr, { k: 'call' }> {
  return e.k === 'call' && (AGGREGATES.has(e.name) || isUserAggregateName(e.name)) && e.over === undefined;
}

/**
 * Compiles a SQL expression against a scope and checks its type.
 *
 * @throws SqlError at the offending sub-expression.
 */
export function compileExpr(e: SqlExpr, scope: Scope, hooks: ExprHooks = {}): Expr {
  // Calls and casts carry the session time zone they were written under (TIMESTAMP_LTZ casts,
  // CURRENT_DATE, …); replaced sub-expressions (aggregates, group keys) are column references.
  const expr = inTimeZone(build(e, scope, hooks), sessionTimeZone());
  atPosition(e.pos, () => inferType(expr, scope.schema));
  return expr;
}

function build(e: SqlExpr, scope: Scope, hooks: ExprHooks): Expr {
  const replaced = hooks.replace?.(e);
  if (replaced) return replaced;
  const sub = (x: SqlExpr): Expr => build(x, scope, hooks);
  switch (e.k) {
    case 'id': {
      const { column, fields } = resolveNested(scope, e.parts, e.pos);
      // A PROCTIME() attribute inside an expression is materialized, as Flink's
      // PROCTIME_MATERIALIZE: the TIMESTAMP_LTZ(3) time the row is processed.
      if (column.proctime) {
        if (fields.length > 0) throw new SqlError(e.pos, `'${column.name}' is a PROCTIME() attribute (a TIMESTAMP_LTZ), which has no field '${fields[0]}'`);
        return call('CURRENT_TIMESTAMP');
      }
      // `info.name.first`: field accesses on a ROW column, innermost first.
      return fields.reduce<Expr>((inner, name) => call('DOT', inner, lit(name)), { kind: 'ref', name: column.field });
    }
    case 'num':
      return numberLiteral(e.text, e.pos);
    case 'str':
      return lit(e.value);
    case 'bool':
      return lit(e.value);
    case 'null':
      throw new SqlError(e.pos, 'an untyped NULL needs a type: write CAST(NULL AS type)');
    case 'typed':
      return typedLiteral(e);
    case 'interval': {
      // A date-time shifted by it (`ts - INTERVAL '10' SECOND`) keeps its type; anything else is rejected by the type check.
      const months = atPosition(e.pos, () => intervalMonths(e));
      if (months !== undefined) return monthInterval(months, e.unit.toUpperCase().startsWith('YEAR') ? 'YEAR' : 'MONTH');
      const unit = e.unit.toUpperCase().replace(/S$/, '') as IntervalUnit;
      return atPosition(e.pos, () => interval(intervalMs(e), unit));
    }
    case 'inQuery':
    case 'exists':
      throw new SqlError(e.pos, `${e.k === 'exists' ? 'EXISTS' : 'IN'} (SELECT …) is supported in WHERE, HAVING and the SELECT list, not here yet`);
    case 'bin': {
      const op = e.op === '%' ? 'MOD' : e.op;
      if (op === 'AND' || op === 'OR') return call(op, ...flatten(e, op).map(sub));
      return call(op, sub(e.left), sub(e.right));
    }
    case 'not':
      return call('NOT', sub(e.arg));
    case 'neg':
      if (e.arg.k === 'num') return numberLiteral(`-${e.arg.text}`, e.pos);
      // Unary minus keeps its operand's type (-TINYINT is a TINYINT, wrapping as Java's byte).
      return call('-', sub(e.arg));
    case 'isnull':
      return call(e.not ? 'IS NOT NULL' : 'IS NULL', sub(e.expr));
    case 'between': {
      // Calcite's expansion: `x BETWEEN a AND b` is `x >= a AND x <= b`; SYMMETRIC also accepts
      // the bounds the other way round, `OR (x >= b AND x <= a)` (so a NULL bound gives UNKNOWN
      // unless the other order decides, as Flink's documented examples show).
      const x = sub(e.expr);
      const [low, high] = [sub(e.low), sub(e.high)];
      const ascending = call('AND', call('>=', x, low), call('<=', x, high));
      const inRange = e.symmetric ? call('OR', ascending, call('AND', call('>=', x, high), call('<=', x, low))) : ascending;
      return e.not ? call('NOT', inRange) : inRange;
    }
    case 'in': {
      const c = call('IN', sub(e.expr), ...e.list.map(sub));
      return e.not ? call('NOT', c) : c;
    }
    case 'like': {
      const c = call(e.similar ? 'SIMILAR TO' : 'LIKE', sub(e.expr), sub(e.pattern), ...(e.escape ? [sub(e.escape)] : []));
      return e.not ? call('NOT', c) : c;
    }
    case 'case': {
      const args: Expr[] = [];
      for (const [when, then] of e.whens) {
        args.push(e.operand ? call('=', sub(e.operand), sub(when)) : sub(when), sub(then));
      }
      if (e.otherwise) args.push(sub(e.otherwise));
      return call('CASE', ...args);
    }
    case 'cast': {
      const type = atPosition(e.pos, () => parseType(e.type));
      if (e.expr.k === 'null') return lit(null, type);
      return { kind: 'cast', expr: sub(e.expr), type, ...(e.safe === true ? { safe: true } : {}) };
    }
    case 'star':
      throw new SqlError(e.pos, '* is only allowed in the SELECT list and in COUNT(*)');
    case 'isbool':
      return call(`IS ${e.not ? 'NOT ' : ''}${e.value ? 'TRUE' : 'FALSE'}`, sub(e.expr));
    case 'distinctFrom': {
      const c = call('IS DISTINCT FROM', sub(e.left), sub(e.right));
      return e.not ? call('NOT', c) : c;
    }
    case 'isjson': {
      const c = call('IS JSON', sub(e.expr), lit(e.kind));
      return e.not ? call('NOT', c) : c;
    }
    case 'keyword':
      // A function's unit or mode (`HOUR` of EXTRACT, `BOTH` of TRIM): a constant the function reads.
      return lit(e.word);
    case 'scalarQuery':
      throw new SqlError(e.pos, 'a scalar subquery ((SELECT …) as a value) is supported in WHERE, HAVING and the SELECT list, not here yet');
    case 'index':
      return call('ITEM', sub(e.expr), sub(e.index));
    case 'field':
      return call('DOT', sub(e.expr), lit(e.name));
    case 'constructor':
      return call(e.type, ...e.args.map(sub));
    case 'call': {
      if (e.over) throw new SqlError(e.pos, `${e.name}() OVER (…) is supported only as ROW_NUMBER/RANK/DENSE_RANK in a subquery filtered on the rank (Top-N)`);
      if (AGGREGATES.has(e.name)) throw new SqlError(e.pos, `aggregate ${e.name}() is not allowed here`);
      if (e.filter) throw new SqlError(e.filter.pos, `FILTER (WHERE …) applies to aggregate functions only, not ${e.name}`);
      // Inside an expression PROCTIME() is materialized (a select item or computed column of its
      // own stays a time attribute: those never reach here).
      if (e.name === 'PROCTIME') {
        if (e.args.length > 0) throw new SqlError(e.pos, 'PROCTIME() takes no arguments');
        return call('CURRENT_TIMESTAMP');
      }
      if (e.withinGroup) throw new SqlError(e.pos, `${e.name}(…) WITHIN GROUP (ORDER BY …) is not supported yet`);
      if (e.name === 'IFNULL') {
        if (e.args.length !== 2) throw new SqlError(e.pos, 'IFNULL takes two arguments: IFNULL(value, replacement)');
        return call('COALESCE', ...e.args.map(sub));
      }
      if (e.returning !== undefined) return call(e.name, ...e.args.slice(0, 2).map(sub), lit(`RETURNING ${e.returning}`), ...e.args.slice(2).map(sub));
      // IF(c, a, b) is CASE WHEN c THEN a ELSE b END.
      if (e.name === 'IF') {
        if (e.args.length !== 3) throw new SqlError(e.pos, 'IF takes three arguments: IF(condition, then, else)');
        return call('CASE', ...e.args.map(sub));
      }
      const user = userFunction(e.name);
      if (user) return userCall(e, user, e.args.map(sub), scope.schema);
      const name = FUNCTION_ALIASES[e.name] ?? e.name;
      return call(name, ...e.args.map(sub));
    }
  }
}

/**
 * A call of a user function: a `udf` expression of its arguments, which the expression compiler
 * casts to the parameter types the call resolves to and hands the function as JS values
 * (shared/plan/udf-values.ts). Resolved here first, so that a call no signature takes is an
 * error at its SQL position.
 */
function userCall(e: Extract<SqlExpr, { k: 'call' }>, user: NonNullable<ReturnType<typeof userFunction>>, args: readonly Expr[], schema: Schema): Expr {
  const { fn, pipeline } = user;
  const name = e.name.toLowerCase();
  checkUserCall(name, e, fn.signatures, args, schema);
  const ref = pipeline.registerFunction(fn.eval as never);
  return { kind: 'udf', ref, display: name, type: fn.resultType, args, ...(fn.signatures !== undefined ? { input: fn.signatures } : {}) };
}

/**
 * `DATE '2024-03-05'`, `TIME '12:34:56'` (TIME(0), or TIME(p) with p fraction digits as Calcite
 * types it), `TIMESTAMP '2024-03-05 12:34:56'` and `TIMESTAMP WITH LOCAL TIME ZONE '…'` (a
 * wall-clock time of the session time zone, so an instant), a binary `X'…'`; NOT NULL, as Flink types a literal.
 */
function typedLiteral(e: Extract<SqlExpr, { k: 'typed' }>): Expr {
  const text = e.value.trim();
  switch (e.type) {
    case 'DATE': {
      const days = /^\d{4}-\d{1,2}-\d{1,2}$/.test(text) ? parseDate(text) : undefined;
      if (days === undefined) throw new SqlError(e.pos, `cannot read DATE '${e.value}' (expected 'yyyy-MM-dd', years 0000-9999)`);
      return lit(days, 'DATE NOT NULL');
    }
    case 'TIME': {
      const ms = parseTime(text);
      if (ms === undefined) throw new SqlError(e.pos, `cannot read TIME '${e.value}' (expected 'HH:mm:ss[.SSS]')`);
      const fraction = /\.(\d+)$/.exec(text)?.[1]?.length ?? 0;
      if (fraction > 3) throw new SqlError(e.pos, `TIME '${e.value}' has more than millisecond precision (TIME(3) is the most Flambda stores)`);
      return lit(ms, `TIME(${fraction}) NOT NULL`);
    }
    case 'BINARY': {
      // Flink types X'…' as BINARY(n) of its bytes (an empty one as BYTES here: no BINARY(0)).
      if (!/^(?:[0-9a-fA-F]{2})*$/.test(e.value)) throw new SqlError(e.pos, `cannot read X'${e.value}': a binary literal is an even number of hexadecimal digits`);
      const bytes = e.value.length / 2;
      return lit(e.value.toLowerCase(), bytes === 0 ? { root: 'VARBINARY', nullable: false } : { root: 'VARBINARY', nullable: false, length: bytes, fixedLength: true });
    }
    default: {
      const ms = parseTimestamp(text.length === 10 ? `${text} 00:00:00` : text);
      if (ms === undefined) throw new SqlError(e.pos, `cannot read ${e.type === 'TIMESTAMP' ? 'TIMESTAMP' : 'TIMESTAMP WITH LOCAL TIME ZONE'} '${e.value}' (expected 'yyyy-MM-dd HH:mm:ss[.SSS]')`);
      if (e.type === 'TIMESTAMP') return lit(ms, 'TIMESTAMP(3) NOT NULL');
      return lit(toInstant(ms, timeZoneOf(sessionTimeZone())), 'TIMESTAMP_LTZ(3) NOT NULL');
    }
  }
}

/** `a AND b AND c` as one flat call, as Flink prints it. */
function flatten(e: SqlExpr, op: string): SqlExpr[] {
  return e.k === 'bin' && e.op === op ? [...flatten(e.left, op), ...flatten(e.right, op)] : [e];
}

/** Integer → INT/BIGINT, decimal → DECIMAL(p, s), exponent → DOUBLE, as Flink types literals. */
function numberLiteral(text: string, pos: SqlPosition): Expr {
  if (/[eE]/.test(text)) return lit(Number(text), { root: 'DOUBLE', nullable: false });
  if (!text.includes('.')) {
    const n = Number(text);
    if (Number.isSafeInteger(n)) return lit(n);
    return atPosition(pos, () => lit(BigInt(text)));
  }
  const negative = text.startsWith('-');
  const [intPart = '', frac = ''] = text.replace('-', '').split('.');
  const digits = (intPart + frac).replace(/^0+(?=\d)/, '');
  const unscaled = BigInt(`${negative ? '-' : ''}${digits || '0'}`);
  return atPosition(pos, () => lit(unscaled, `DECIMAL(${Math.max(digits.length, frac.length, 1)}, ${frac.length}) NOT NULL`));
}
