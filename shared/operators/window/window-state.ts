/**
 * The keyed state of a window operator: one map per key from window namespace (`start,end`) to
 * everything that window keeps — its contents, the rows it last emitted and its trigger state —
 * as one plain-data entry. One entry per window means cleanup is a single delete, a merge is a
 * move of entries, and the windows of a key (the merging window set of sessions) are simply the
 * entries of its map.
 */
import type { Row } from '../../core/types.ts';
import type { MapState } from '../../state/state.ts';
import type { TriggerState } from './triggers.ts';
import { parseWindowNamespace, windowNamespace, type TimeWindow } from './time-window.ts';

/** Everything one window of one key keeps; plain data (structuredClone- and DynamoDB-safe). */
export interface WindowEntry<C> extends TriggerState {
  /** The window contents (accumulators or rows); absent when empty or purged. */
  contents?: C;
  /**
   * The result rows of the last firing, so a re-firing can emit updates instead of duplicates.
   * Absent before the first firing and with purging triggers (whose firings are deltas).
   */
  emitted?: Row[];
}

/** Name of the operator's one keyed state. */
export const WINDOW_STATE = 'windows';

/** Typed access to the per-key window map. */
export class WindowStore<C> {
  constructor(private readonly state: MapState<WindowEntry<C>>) {}

  get(key: string, window: TimeWindow): WindowEntry<C> | undefined {
    return this.state.get(key, windowNamespace(window));
  }

  put(key: string, window: TimeWindow, entry: WindowEntry<C>): void {
    this.state.put(key, windowNamespace(window), entry);
  }

  delete(key: string, window: TimeWindow): void {
    this.state.delete(key, windowNamespace(window));
  }

  /** The windows a key has state for (for sessions: its merging window set). */
  windows(key: string): TimeWindow[] {
    const windows: TimeWindow[] = [];
    for (const [namespace] of this.state.entries(key)) {
      const window = parseWindowNamespace(namespace);
      if (window !== undefined) windows.push(window);
    }
    return windows;
  }
}
