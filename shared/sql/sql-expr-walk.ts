/** Walking SQL expressions (ast.ts): their direct children, and a condition's conjuncts. */
import type { SqlExpr } from './ast.ts';

/** The direct sub-expressions of `e` (a subquery's own expressions are not among them). */
export function sqlChildren(e: SqlExpr): SqlExpr[] {
  switch (e.k) {
    case 'bin':
      return [e.left, e.right];
    case 'not':
    case 'neg':
      return [e.arg];
    case 'call':
      return [...e.args, ...(e.filter ? [e.filter] : [])];
    case 'case':
      return [...(e.operand ? [e.operand] : []), ...e.whens.flat(), ...(e.otherwise ? [e.otherwise] : [])];
    case 'cast':
    case 'isnull':
    case 'isbool':
    case 'isjson':
    case 'field':
      return [e.expr];
    case 'index':
      return [e.expr, e.index];
    case 'distinctFrom':
      return [e.left, e.right];
    case 'constructor':
      return [...e.args];
    case 'between':
      return [e.expr, e.low, e.high];
    case 'in':
      return [e.expr, ...e.list];
    case 'inQuery':
      return [e.expr];
    case 'like':
      return [e.expr, e.pattern, ...(e.escape ? [e.escape] : [])];
    default:
      return [];
  }
}

/**
 * `e` with each direct child (those {@link sqlChildren} lists, plus a LIKE's escape) replaced by
 * `f` of it; a subquery's own expressions are left alone.
 */
export function sqlMapChildren(e: SqlExpr, f: (child: SqlExpr) => SqlExpr): SqlExpr {
  switch (e.k) {
    case 'bin':
      return { ...e, left: f(e.left), right: f(e.right) };
    case 'not':
    case 'neg':
      return { ...e, arg: f(e.arg) };
    case 'call':
      return { ...e, args: e.args.map(f), ...(e.filter ? { filter: f(e.filter) } : {}) };
    case 'case':
      return { ...e, ...(e.operand ? { operand: f(e.operand) } : {}), whens: e.whens.map(([w, t]) => [f(w), f(t)] as const), ...(e.otherwise ? { otherwise: f(e.otherwise) } : {}) };
    case 'cast':
    case 'isnull':
    case 'isbool':
    case 'isjson':
    case 'index':
    case 'field':
      return e.k === 'index' ? { ...e, expr: f(e.expr), index: f(e.index) } : { ...e, expr: f(e.expr) };
    case 'distinctFrom':
      return { ...e, left: f(e.left), right: f(e.right) };
    case 'between':
      return { ...e, expr: f(e.expr), low: f(e.low), high: f(e.high) };
    case 'in':
      return { ...e, expr: f(e.expr), list: e.list.map(f) };
    case 'inQuery':
      return { ...e, expr: f(e.expr) };
    case 'like':
      return { ...e, expr: f(e.expr), pattern: f(e.pattern), ...(e.escape ? { escape: f(e.escape) } : {}) };
    case 'constructor':
      return { ...e, args: e.args.map(f) };
    default:
      return e;
  }
}

/** The AND-ed conjuncts of a condition (none for an absent one). */
export function sqlConjuncts(e: SqlExpr | undefined): SqlExpr[] {
  if (e === undefined) return [];
  return e.k === 'bin' && e.op === 'AND' ? [...sqlConjuncts(e.left), ...sqlConjuncts(e.right)] : [e];
}

/** The conjuncts AND-ed back together (undefined for none). */
export function sqlAnd(conjuncts: readonly SqlExpr[]): SqlExpr | undefined {
  if (conjuncts.length === 0) return undefined;
  return conjuncts.reduce((a, b) => ({ k: 'bin', op: 'AND', left: a, right: b, pos: a.pos }));
}

/** Every column reference in `e`. */
export function sqlColumnRefs(e: SqlExpr): Extract<SqlExpr, { k: 'id' }>[] {
  if (e.k === 'id') return [e];
  return sqlChildren(e).flatMap(sqlColumnRefs);
}
