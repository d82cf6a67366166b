/**
 * GROUP BY items to grouping sets, as SQL defines them: `ROLLUP (a, b)` is the sets (a, b), (a),
 * (); `CUBE (a, b)` every subset, (a, b), (a), (b), (); `GROUPING SETS (…)` the union of its
 * elements' sets; several items the cross product of their sets (`GROUP BY a, ROLLUP (b)` is
 * (a, b), (a)).
 */
import type { SqlExpr } from '../ast.ts';

/** One GROUP BY item as written. */
export type GroupItem =
  | { readonly k: 'expr'; readonly expr: SqlExpr }
  /** `(a, b)` or `()`. */
  | { readonly k: 'set'; readonly exprs: readonly SqlExpr[] }
  | { readonly k: 'groupingSets'; readonly items: readonly GroupItem[] }
  | { readonly k: 'rollup' | 'cube'; readonly elements: readonly (readonly SqlExpr[])[] };

/** The shape of an expression without positions, to tell equal expressions apart from others. */
function shape(e: SqlExpr): string {
  return JSON.stringify(e, (k, v: unknown) => (k === 'pos' ? undefined : v));
}

function setsOf(item: GroupItem): SqlExpr[][] {
  switch (item.k) {
    case 'expr':
      return [[item.expr]];
    case 'set':
      return [[...item.exprs]];
    case 'groupingSets':
      return item.items.flatMap(setsOf);
    case 'rollup':
      return Array.from({ length: item.elements.length + 1 }, (_, n) => item.elements.slice(0, item.elements.length - n).flat());
    case 'cube': {
      const n = item.elements.length;
      const out: SqlExpr[][] = [];
      // Masks from all bits set down to none, the leftmost element the highest bit: (a, b), (a), (b), ().
      for (let mask = (1 << n) - 1; mask >= 0; mask--) {
        out.push(item.elements.filter((_, k) => (mask & (1 << (n - 1 - k))) !== 0).flat());
      }
      return out;
    }
  }
}

/** Removes repeated expressions of one set, keeping the first. */
function distinct(exprs: readonly SqlExpr[]): SqlExpr[] {
  const seen = new Set<string>();
  return exprs.filter((e) => {
    const key = shape(e);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The GROUP BY expressions and, when any item is a grouping construct, the grouping sets.
 * `groupBy` then lists every expression of any set, in order of first appearance.
 */
export function expandGroupingSets(items: readonly GroupItem[]): { groupBy: SqlExpr[]; groupingSets?: SqlExpr[][] } {
  if (items.every((i) => i.k === 'expr')) return { groupBy: items.map((i) => (i as { expr: SqlExpr }).expr) };
  let sets: SqlExpr[][] = [[]];
  for (const item of items) {
    const own = setsOf(item);
    sets = sets.flatMap((prefix) => own.map((s) => distinct([...prefix, ...s])));
  }
  // One set, `GROUP BY (a, b)`, is a plain GROUP BY.
  if (sets.length === 1) return { groupBy: sets[0] as SqlExpr[] };
  return { groupBy: distinct(sets.flat()), groupingSets: sets };
}
