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
      return [e.expr];
    case 'between':
      return [e.expr, e.low, e.high];
    case 'in':
      return [e.expr, ...e.list];
    case 'inQuery':
      return [e.expr];
    case 'like':
      return [e.expr, e.pattern];
    default:
      return [];
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
