/**
 * Merges a Calc into the Calc below it (Flink's CalcMergeRule): the outer projection and
 * condition are rewritten over the inner Calc's input by substituting the inner expressions for
 * the columns they define. Merging is skipped when it would evaluate a non-trivial inner
 * expression more than once per row (e.g. a user function referenced twice), as Flink skips
 * merges that duplicate non-deterministic or expensive expressions.
 */
import type { Expr } from '../expr.ts';
import type { CalcNode } from '../logical.ts';

/** Replaces column references by the expressions that define them. */
export function substituteRefs(expr: Expr, definitions: ReadonlyMap<string, Expr>): Expr {
  switch (expr.kind) {
    case 'ref':
      return definitions.get(expr.name) ?? expr;
    case 'call':
      return { ...expr, args: expr.args.map((a) => substituteRefs(a, definitions)) };
    case 'cast':
      return { ...expr, expr: substituteRefs(expr.expr, definitions) };
    case 'udf':
      return expr.args === undefined ? expr : { ...expr, args: expr.args.map((a) => substituteRefs(a, definitions)) };
    default:
      return expr;
  }
}

function countRefs(expr: Expr, counts: Map<string, number>): void {
  switch (expr.kind) {
    case 'ref':
      counts.set(expr.name, (counts.get(expr.name) ?? 0) + 1);
      return;
    case 'call':
      for (const a of expr.args) countRefs(a, counts);
      return;
    case 'cast':
      countRefs(expr.expr, counts);
      return;
    case 'udf':
      for (const a of expr.args ?? []) countRefs(a, counts);
      return;
    default:
      return;
  }
}

/** Returns the merged Calc, or undefined when merging would duplicate work. */
export function mergeCalcs(outer: CalcNode, inner: CalcNode): CalcNode | undefined {
  const definitions = new Map(inner.projection.map((p) => [p.name, p.expr] as const));
  const uses = new Map<string, number>();
  for (const p of outer.projection) countRefs(p.expr, uses);
  if (outer.condition) countRefs(outer.condition, uses);
  for (const [name, n] of uses) {
    const def = definitions.get(name);
    if (def && n > 1 && def.kind !== 'ref' && def.kind !== 'literal') return undefined;
  }
  const projection = outer.projection.map((p) => ({ name: p.name, expr: substituteRefs(p.expr, definitions) }));
  const outerCondition = outer.condition ? substituteRefs(outer.condition, definitions) : undefined;
  // The inner filter runs first; SQL AND keeps that meaning (NULL/FALSE rows are dropped either way).
  const condition: Expr | undefined =
    inner.condition && outerCondition
      ? { kind: 'call', fn: 'AND', args: [inner.condition, outerCondition] }
      : (inner.condition ?? outerCondition);
  return {
    type: 'Calc',
    id: outer.id,
    input: inner.input,
    projection,
    ...(condition ? { condition } : {}),
    schema: outer.schema,
  };
}
