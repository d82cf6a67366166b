/**
 * Session merging: Flink's `TimeWindow.mergeWindows` plus the bookkeeping of
 * `MergingWindowSet.addWindow`, as a pure function over the windows a key has now.
 *
 * Flink's MergingWindowSet also keeps a window → "state window" mapping so a merge never moves
 * state. Here a window's whole state is one state entry under the window's own namespace, so
 * the operator simply moves the merged entries into the result window's entry; the set of a
 * key's windows is the set of its state entries, and no separate mapping has to be persisted.
 */
import { cover, intersects, sameWindow, type TimeWindow } from './time-window.ts';

/** One merge: `merged` (existing windows, never the new one) collapse into `result`. */
export interface WindowMerge {
  readonly result: TimeWindow;
  readonly merged: readonly TimeWindow[];
}

/** What adding a window to a key's windows does. */
export interface AddWindowResult {
  /** The window the new element belongs to after merging. */
  readonly window: TimeWindow;
  /** Merges of existing windows to carry out, in start order. */
  readonly merges: readonly WindowMerge[];
  /** Whether `window` is a window the key did not have before (no state yet). */
  readonly isNew: boolean;
}

/**
 * Sorts the windows by start and merges every run of intersecting (or touching) windows into
 * their cover, as `TimeWindow.mergeWindows` does. Returns each cover with its members.
 */
export function mergeWindows(windows: readonly TimeWindow[]): { result: TimeWindow; members: TimeWindow[] }[] {
  const sorted = [...windows].sort((a, b) => a.start - b.start || a.end - b.end);
  const groups: { result: TimeWindow; members: TimeWindow[] }[] = [];
  for (const window of sorted) {
    const current = groups[groups.length - 1];
    if (current !== undefined && intersects(current.result, window)) {
      current.result = cover(current.result, window);
      current.members.push(window);
    } else {
      groups.push({ result: window, members: [window] });
    }
  }
  return groups;
}

/**
 * Adds `added` to a key's `existing` windows (which never intersect each other) and reports the
 * merges needed, following `MergingWindowSet.addWindow`:
 *
 * - a new window inside an existing one yields that window and no merge;
 * - a new window intersecting existing windows yields their cover, and the existing windows are
 *   merged into it (even a single one, since the cover is larger than it);
 * - otherwise the new window stands alone.
 */
export function addWindow(existing: readonly TimeWindow[], added: TimeWindow): AddWindowResult {
  const groups = mergeWindows([...existing, added]);
  const merges: WindowMerge[] = [];
  let window = added;
  let isNew = true;
  for (const group of groups) {
    const index = group.members.findIndex((w) => sameWindow(w, added));
    const containsAdded = index >= 0;
    const merged = containsAdded ? group.members.filter((_, i) => i !== index) : group.members;
    if (containsAdded) window = group.result;
    if (merged.length === 0) continue;
    // "don't merge the new window itself": one existing window that already is the result.
    if (merged.length === 1 && sameWindow(merged[0]!, group.result)) {
      if (containsAdded) isNew = false;
      continue;
    }
    merges.push({ result: group.result, merged });
    if (containsAdded) isNew = false;
  }
  return { window, merges, isNew };
}
