/**
 * The sorted buffer of one partition: Flink's TopNBuffer (a TreeMap from sort key to the rows
 * with that key, in arrival order) made an order-statistic tree, so that the rank of a sort key
 * and the row at a rank are found in O(log n) instead of by walking the map from the top, as
 * TopNBuffer and the functions built on it do.
 *
 * Each {@link SortGroup} is one distinct sort key with its rows, and one node of a treap (a
 * binary search tree by key, heap-ordered by a random priority, so expected depth O(log n))
 * whose nodes also count the rows and groups below them. Retraction needs ordered deletion from
 * the middle, which is why this is a tree and not a heap (the seed article makes the same point
 * about RetractableTopNFunction's TreeMap).
 *
 * This module holds no state I/O: operators mirror the groups they change into keyed state.
 * A group's `rows` array is the very array stored in state, so it is never copied.
 */
import type { Row } from '../../core/types.ts';

/** One distinct sort key and its rows in arrival order; a node of the buffer's tree. */
export class SortGroup {
  /** The order-preserving sort key (see order-key.ts). */
  readonly key: string;
  /** The rows with this key, earliest first. Changed only through the buffer. */
  readonly rows: Row[];
  /** False once the group has been removed from its buffer. */
  attached = true;
  /** @internal tree links and aggregates */
  left: SortGroup | null = null;
  /** @internal */
  right: SortGroup | null = null;
  /** @internal */
  parent: SortGroup | null = null;
  /** @internal rows in this subtree */
  subtreeRows: number;
  /** @internal groups in this subtree */
  subtreeGroups = 1;
  /** @internal treap priority */
  readonly priority: number;

  constructor(key: string, rows: Row[], priority: number) {
    this.key = key;
    this.rows = rows;
    this.subtreeRows = rows.length;
    this.priority = priority;
  }
}

/**
 * Walks a buffer's rows in rank order from a given position. One cursor is reused for every
 * walk, so cascading emissions allocate nothing.
 */
export class RowCursor {
  private group: SortGroup | undefined;
  private index = 0;

  /** The current row, or undefined past the end. */
  get row(): Row | undefined {
    return this.group === undefined ? undefined : this.group.rows[this.index];
  }

  /** Moves to the row at 1-based `position` of `buffer`; returns it. */
  seek(buffer: TopNBuffer, position: number): Row | undefined {
    this.group = position >= 1 ? buffer.groupAtRow(position - 1) : undefined;
    this.index = buffer.offset;
    return this.row;
  }

  /** Moves to the next row; returns it. */
  advance(buffer: TopNBuffer): Row | undefined {
    const group = this.group;
    if (group === undefined) return undefined;
    if (++this.index >= group.rows.length) {
      this.group = buffer.next(group) ?? undefined;
      this.index = 0;
    }
    return this.row;
  }
}

/**
 * Builds a buffer from stored groups (sort key → rows) in any order: state is read whole, never
 * by range, so it need not be sorted, and sorting the keys here is cheaper than keeping them
 * sorted on every write.
 */
export function loadGroups(entries: Iterable<[string, Row[]]>): TopNBuffer {
  const groups = [...entries].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const buffer = new TopNBuffer();
  for (const [key, rows] of groups) buffer.insertGroup(key, rows);
  return buffer;
}

const rowsIn = (g: SortGroup | null): number => (g === null ? 0 : g.subtreeRows);
const groupsIn = (g: SortGroup | null): number => (g === null ? 0 : g.subtreeGroups);

/** A partition's rows ordered by sort key, with O(log n) rank and select. */
export class TopNBuffer {
  private root: SortGroup | null = null;
  /** The last group, kept because every append-only record compares against it. */
  private lastGroup: SortGroup | undefined;
  /**
   * Index within the group returned by the last {@link groupAtRow}: returned this way so that
   * the per-record path allocates nothing.
   */
  offset = 0;
  /** Whether the last {@link addRow} created its group. */
  created = false;

  /** Rows in the buffer. */
  get rowCount(): number {
    return rowsIn(this.root);
  }

  /** Distinct sort keys in the buffer. */
  get groupCount(): number {
    return groupsIn(this.root);
  }

  /** The group of `key`, if any. */
  find(key: string): SortGroup | undefined {
    let node = this.root;
    while (node !== null) {
      if (key === node.key) return node;
      node = key < node.key ? node.left : node.right;
    }
    return undefined;
  }

  /** Adds a group for a key that is not in the buffer yet; `rows` must not be empty. */
  insertGroup(key: string, rows: Row[]): SortGroup {
    const node = new SortGroup(key, rows, Math.random());
    if (this.lastGroup === undefined || key > this.lastGroup.key) this.lastGroup = node;
    if (this.root === null) {
      this.root = node;
      return node;
    }
    const added = rows.length;
    let parent = this.root;
    for (;;) {
      parent.subtreeRows += added;
      parent.subtreeGroups += 1;
      const next = key < parent.key ? parent.left : parent.right;
      if (next === null) break;
      parent = next;
    }
    this.attach(node, parent);
    return node;
  }

  /**
   * Appends `row` to the group of `key`, creating the group when there is none ({@link created}
   * tells which). One descent serves both the search and the insertion: this is the per-record
   * path of every insertion.
   */
  addRow(key: string, row: Row): SortGroup {
    let node = this.root;
    let parent: SortGroup | null = null;
    while (node !== null) {
      if (key < node.key) {
        parent = node;
        node = node.left;
      } else if (key === node.key) {
        this.created = false;
        this.appendRow(node, row);
        return node;
      } else {
        parent = node;
        node = node.right;
      }
    }
    this.created = true;
    const group = new SortGroup(key, [row], Math.random());
    if (this.lastGroup === undefined || key > this.lastGroup.key) this.lastGroup = group;
    if (parent === null) {
      this.root = group;
      return group;
    }
    for (let ancestor: SortGroup | null = parent; ancestor !== null; ancestor = ancestor.parent) {
      ancestor.subtreeRows += 1;
      ancestor.subtreeGroups += 1;
    }
    this.attach(group, parent);
    return group;
  }

  /** Appends a row to an attached group (ties keep arrival order). */
  appendRow(group: SortGroup, row: Row): void {
    group.rows.push(row);
    this.addRows(group, 1);
  }

  /** Replaces the row at `index` of a group by one with the same sort key. */
  replaceRow(group: SortGroup, index: number, row: Row): void {
    group.rows[index] = row;
  }

  /** Removes and returns the row at `index` of a group; an emptied group leaves the buffer. */
  removeRowAt(group: SortGroup, index: number): Row {
    const [row] = group.rows.splice(index, 1) as [Row];
    this.addRows(group, -1);
    if (group.rows.length === 0) this.removeGroup(group);
    return row;
  }

  /** Removes a whole group (its rows stay in its `rows` array). */
  removeGroup(group: SortGroup): void {
    if (group === this.lastGroup) this.lastGroup = this.prev(group) ?? undefined;
    // Rotate the node down until it has at most one child, then splice it out.
    while (group.left !== null && group.right !== null) {
      this.rotateUp(group.left.priority > group.right.priority ? group.left : group.right);
    }
    const child = group.left ?? group.right;
    const parent = group.parent;
    if (child !== null) child.parent = parent;
    if (parent === null) this.root = child;
    else if (parent.left === group) parent.left = child;
    else parent.right = child;
    const rows = group.rows.length;
    for (let node = parent; node !== null; node = node.parent) {
      node.subtreeRows -= rows;
      node.subtreeGroups -= 1;
    }
    group.parent = group.left = group.right = null;
    group.attached = false;
  }

  /** The first (best ranked) group. */
  first(): SortGroup | undefined {
    let node = this.root;
    if (node === null) return undefined;
    while (node.left !== null) node = node.left;
    return node;
  }

  /** The last group. */
  last(): SortGroup | undefined {
    return this.lastGroup;
  }

  /** The group after `group`, or null. */
  next(group: SortGroup): SortGroup | null {
    let node = group.right;
    if (node !== null) {
      while (node.left !== null) node = node.left;
      return node;
    }
    let child = group;
    while (child.parent !== null && child.parent.right === child) child = child.parent;
    return child.parent;
  }

  /** The group before `group`, or null. */
  prev(group: SortGroup): SortGroup | null {
    let node = group.left;
    if (node !== null) {
      while (node.right !== null) node = node.right;
      return node;
    }
    let child = group;
    while (child.parent !== null && child.parent.left === child) child = child.parent;
    return child.parent;
  }

  /** Number of rows in groups before `group` (its ROW_NUMBER is this + index + 1). */
  rowsBefore(group: SortGroup): number {
    let count = rowsIn(group.left);
    for (let node = group; node.parent !== null; node = node.parent) {
      if (node.parent.right === node) count += node.parent.rows.length + rowsIn(node.parent.left);
    }
    return count;
  }

  /** Number of groups before `group` (its DENSE_RANK minus 1). */
  groupsBefore(group: SortGroup): number {
    let count = groupsIn(group.left);
    for (let node = group; node.parent !== null; node = node.parent) {
      if (node.parent.right === node) count += 1 + groupsIn(node.parent.left);
    }
    return count;
  }

  /**
   * The group holding the row at 0-based position `index` (its index within the group is left
   * in {@link offset}), or undefined when the buffer has no such row.
   */
  groupAtRow(index: number): SortGroup | undefined {
    let node = this.root;
    let i = index;
    while (node !== null) {
      const left = rowsIn(node.left);
      if (i < left) {
        node = node.left;
        continue;
      }
      i -= left;
      if (i < node.rows.length) {
        this.offset = i;
        return node;
      }
      i -= node.rows.length;
      node = node.right;
    }
    return undefined;
  }

  /** The row at 1-based position `position` (its ROW_NUMBER), or undefined. */
  rowAt(position: number): Row | undefined {
    const group = this.groupAtRow(position - 1);
    return group === undefined ? undefined : group.rows[this.offset];
  }

  /** All groups in order (for loading, snapshots in tests and debugging; not the hot path). */
  *groups(): IterableIterator<SortGroup> {
    for (let g = this.first() ?? null; g !== null; g = this.next(g)) yield g;
  }

  /** Hangs a new leaf under `parent` (whose counts already include it), then restores the heap order. */
  private attach(node: SortGroup, parent: SortGroup): void {
    if (node.key < parent.key) parent.left = node;
    else parent.right = node;
    node.parent = parent;
    while (node.parent !== null && node.parent.priority < node.priority) this.rotateUp(node);
  }

  private addRows(group: SortGroup, delta: number): void {
    for (let node: SortGroup | null = group; node !== null; node = node.parent) node.subtreeRows += delta;
  }

  /** Rotates `node` above its parent, keeping key order and the subtree counts. */
  private rotateUp(node: SortGroup): void {
    const parent = node.parent!;
    const grand = parent.parent;
    if (parent.left === node) {
      parent.left = node.right;
      if (node.right !== null) node.right.parent = parent;
      node.right = parent;
    } else {
      parent.right = node.left;
      if (node.left !== null) node.left.parent = parent;
      node.left = parent;
    }
    parent.parent = node;
    node.parent = grand;
    if (grand === null) this.root = node;
    else if (grand.left === parent) grand.left = node;
    else grand.right = node;
    // The node now spans what its parent spanned; the parent keeps its own rows and children.
    node.subtreeRows = parent.subtreeRows;
    node.subtreeGroups = parent.subtreeGroups;
    parent.subtreeRows = parent.rows.length + rowsIn(parent.left) + rowsIn(parent.right);
    parent.subtreeGroups = 1 + groupsIn(parent.left) + groupsIn(parent.right);
  }
}
