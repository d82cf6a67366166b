/**
 * Which shards may be read, after SplitShard and MergeShards: a child shard is read only once
 * every parent is closed and fully processed, as the Lambda event source mapping and the KCL
 * do. A reshard closes the parent(s) and routes new records to the children; the records
 * already in a parent stay there, so reading a child early would process a key's newer records
 * before its older ones:
 *
 * ```
 *  time ─────────────────────────────────────────────────────────────────────────►
 *
 *  shard 0   k1@1 k2@2 k1@3 ┃closed (SplitShard)          GetRecords … end of shard
 *                           ┃                                        │ finished
 *  shard 2   (child, low)   ┗━━ k1@4 k1@6 ······ waiting ··········· ├─► read k1@4 k1@6
 *  shard 3   (child, high)  ┗━━ k2@5       ····· waiting ··········· └─► read k2@5
 *
 *  shard 1   k3@7 ┃closed ┓ (MergeShards 1 + 3, once shard 3 is finished too)
 *  shard 3   …    ┃closed ┫
 *  shard 4   (merged)     ┗━━ k3@8 ··· waits for BOTH parents (ParentShardId and
 *                                      AdjacentParentShardId) before it is read
 * ```
 *
 * Per key the order is preserved: k1@1, k1@3 (parent) are processed before k1@4, k1@6 (child).
 * A parent that ListShards no longer returns has aged out of the stream's retention; its
 * records are gone, so it does not hold its children back.
 *
 * Starting positions. With TRIM_HORIZON every shard is read from its first record, oldest
 * lineage first. With LATEST, the shards open when the mapping starts are read from their tip
 * and the closed ones are skipped (all their records are older than "latest"); shards created
 * later by resharding are read from TRIM_HORIZON, since every record in them arrived after the
 * mapping started. With AT_TIMESTAMP, every shard of the first listing, open or closed, is read
 * from the timestamp (Kinesis skips each shard's older records itself, and a closed shard whose
 * records are all older just ends); shards created later are read from TRIM_HORIZON, as with
 * LATEST.
 */
import type { ShardStatus, StartingPosition } from './types.ts';

/** A shard as ListShards describes it. */
export interface ShardDescription {
  readonly shardId: string;
  readonly parentShardId?: string | undefined;
  readonly adjacentParentShardId?: string | undefined;
  /** Whether the shard has an EndingSequenceNumber (it was split or merged). */
  readonly closed: boolean;
}

/** A shard under the mapping. */
export interface LineageEntry {
  readonly shard: ShardDescription;
  /** The iterator type its first iterator uses. */
  readonly start: StartingPosition;
  status: ShardStatus;
}

/** The shards of one stream, their parents and their statuses. */
export class ShardLineage {
  private readonly entries = new Map<string, LineageEntry>();

  /**
   * Adds the shards of a ListShards answer that are not known yet and returns them. `initial`
   * says whether this is the listing taken when the mapping starts (the only one where
   * `startingPosition` applies, see the module header).
   */
  addListing(shards: readonly ShardDescription[], startingPosition: StartingPosition, initial: boolean): LineageEntry[] {
    const added: LineageEntry[] = [];
    for (const shard of shards) {
      if (this.entries.has(shard.shardId)) continue;
      let entry: LineageEntry;
      if (initial && startingPosition === 'LATEST') {
        entry = { shard, start: 'LATEST', status: shard.closed ? 'finished' : 'waiting' };
      } else if (initial && startingPosition === 'AT_TIMESTAMP') {
        entry = { shard, start: 'AT_TIMESTAMP', status: 'waiting' };
      } else {
        entry = { shard, start: 'TRIM_HORIZON', status: 'waiting' };
      }
      this.entries.set(shard.shardId, entry);
      added.push(entry);
    }
    return added;
  }

  /** The waiting shards whose parents are all finished (or aged out), in shard id order. */
  eligible(): LineageEntry[] {
    const ready: LineageEntry[] = [];
    for (const entry of this.entries.values()) {
      if (entry.status !== 'waiting') continue;
      if (this.parentDone(entry.shard.parentShardId) && this.parentDone(entry.shard.adjacentParentShardId)) {
        ready.push(entry);
      }
    }
    return ready.sort((a, b) => compareIds(a.shard.shardId, b.shard.shardId));
  }

  /** The entry of a shard, if known. */
  get(shardId: string): LineageEntry | undefined {
    return this.entries.get(shardId);
  }

  /** Every known shard, in shard id order. */
  all(): LineageEntry[] {
    return [...this.entries.values()].sort((a, b) => compareIds(a.shard.shardId, b.shard.shardId));
  }

  private parentDone(parentId: string | undefined): boolean {
    if (parentId === undefined) return true;
    const parent = this.entries.get(parentId);
    return parent === undefined || parent.status === 'finished';
  }
}

/** Shard ids are `shardId-` plus 12 digits, so text order is creation order. */
function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
