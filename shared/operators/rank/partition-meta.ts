/**
 * Per-partition bookkeeping of the buffered Top-N operators, in one small `meta` value per
 * partition: when the partition was last active, and the end of a variable rank range (Flink's
 * `rankEnd` ValueState).
 *
 * Idle-state retention, a partition at a time. Flink gives each MapState entry its own TTL
 * (OnCreateAndWrite), so a partition that keeps receiving rows can still lose the entries written
 * long ago and then logs "The state is cleared because of state ttl. This will result in
 * incorrect result." Here a partition lives or expires as a whole, and a cached buffer can never
 * outlive its state:
 *
 * - `meta` has TTL `ttl` and is rewritten whenever a batch touches the partition, so it expires
 *   exactly when the partition has received no row for `ttl`.
 * - Row entries have TTL `2·ttl` ({@link dataTtl}). Each touch that finds the last full rewrite
 *   (`at`) at least `ttl` old rewrites them all (O(rows) once per `ttl` of activity), so while
 *   `meta` is alive every row entry is younger than `2·ttl`:
 *
 *   ```
 *   rewrite at R ──── touch at t (t − R < ttl, no rewrite) ──── next touch before t + ttl
 *   entries ≥ R        meta alive until t + ttl               entries alive until ≥ R + 2·ttl > t + ttl
 *   ```
 * - A touch that finds `meta` gone reports the partition expired: the operator drops its cached
 *   buffer and the leftover row entries, and the partition starts empty, as after Flink's
 *   cleanup. Leftovers of partitions never touched again expire on their own within `2·ttl`.
 */
import type { KeyedStateStore, StateOptions, ValueState } from '../../state/state.ts';

/** The persisted bookkeeping of one partition. */
export interface PartitionMeta {
  /** Processing time of the last rewrite of the partition's entries (TTL only). */
  at: number;
  /** The variable rank end fixed by the partition's first row; null until then. */
  end: number | null;
}

/**
 * What a touch found: the partition's state is alive, is alive but due for a rewrite, or is gone
 * (expired, or the partition is new) so that any leftovers must be dropped.
 */
export type Liveness = 'alive' | 'refresh' | 'expired';

/** Name of the bookkeeping state. */
export const META_STATE = 'rank-meta';

/** Reads and writes partitions' {@link PartitionMeta}. */
export class PartitionMetaStore {
  private readonly state: ValueState<PartitionMeta> | undefined;

  /**
   * Declares the state when the operator needs it: with a TTL or a variable rank range.
   *
   * @param ttlMs idle-state retention, if any
   */
  constructor(
    store: KeyedStateStore,
    private readonly ttlMs: number | undefined,
    variableEnd: boolean,
  ) {
    if (ttlMs !== undefined || variableEnd) {
      this.state = store.valueState<PartitionMeta>(META_STATE, ttlMs === undefined ? undefined : { ttl: { ttlMs } });
    }
  }

  /** The state options of row entries: twice the retention (see the module documentation). */
  static dataTtl(ttlMs: number | undefined): StateOptions | undefined {
    return ttlMs === undefined ? undefined : { ttl: { ttlMs: 2 * ttlMs } };
  }

  /** Records activity of a partition at `now`; see {@link Liveness}. Always 'alive' without TTL. */
  touch(key: string, now: number): Liveness {
    const ttlMs = this.ttlMs;
    const state = this.state;
    if (ttlMs === undefined || state === undefined) return 'alive';
    const meta = state.get(key);
    if (meta === undefined) {
      state.put(key, { at: now, end: null });
      return 'expired';
    }
    const due = now - meta.at >= ttlMs;
    if (due) meta.at = now;
    state.put(key, meta);
    return due ? 'refresh' : 'alive';
  }

  /** The partition's variable rank end, if fixed. */
  rankEnd(key: string): number | undefined {
    return this.state?.get(key)?.end ?? undefined;
  }

  /** Fixes the partition's variable rank end. */
  setRankEnd(key: string, end: number, now: number): void {
    const state = this.state;
    if (state === undefined) return;
    const meta = state.get(key) ?? { at: now, end: null };
    meta.end = end;
    state.put(key, meta);
  }
}
