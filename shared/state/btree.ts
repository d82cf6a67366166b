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
