/**
 * The `sorted-btree` B+ tree class, loaded the same way under every loader.
 *
 * sorted-btree is CommonJS with `exports.default`: Node's ESM loader (and tsx) hand a default
 * import the whole `module.exports`, while Vite's interop unwraps `default`. Accept both.
 */
import BTreeModule from 'sorted-btree';

/** The BTree constructor. */
export const BTree: typeof BTreeModule.default =
  (BTreeModule as unknown as { default?: typeof BTreeModule.default }).default ??
  (BTreeModule as unknown as typeof BTreeModule.default);

/** A sorted tree of the shape both state backends use. */
type PairTree<V> = InstanceType<typeof BTree<string, V>>;

/**
 * The first pair at or beyond `from` (strictly beyond when not `inclusive`) in the given
 * direction; from the start or end when `from` is undefined.
 */
export function seekPair<V>(tree: PairTree<V>, from: string | undefined, descending: boolean, inclusive: boolean): [string, V] | undefined {
  if (from === undefined) return descending ? tree.nextLowerPair(undefined) : tree.nextHigherPair(undefined);
  if (inclusive) return descending ? tree.getPairOrNextLower(from) : tree.getPairOrNextHigher(from);
  return descending ? tree.nextLowerPair(from) : tree.nextHigherPair(from);
}

/**
 * Walks a sorted map with a cursor: each step re-seeks strictly past the last returned sub-key,
 * so the caller may insert or delete while iterating (e.g. a Top-N evicting its tail) and still
 * see one consistent ordered walk. `seek` returns the first live entry from a position.
 */
export function* walkSorted<V>(
  seek: (from: string | undefined, inclusive: boolean) => [string, V] | undefined,
  fromKey: string | undefined,
): IterableIterator<[string, V]> {
  let pair = seek(fromKey, true);
  while (pair !== undefined) {
    yield pair;
    pair = seek(pair[0], false);
  }
}
