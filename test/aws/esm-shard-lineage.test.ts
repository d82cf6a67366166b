import { describe, expect, it } from 'vitest';
import { ShardLineage } from '../../shared/aws/esm/shard-lineage.ts';
import type { ShardDescription } from '../../shared/aws/esm/shard-lineage.ts';

const id = (i: number) => `shardId-${String(i).padStart(12, '0')}`;

/** Shards 0 and 1; 0 split into 2 and 3; 3 and 1 merged into 4. */
const resharded: ShardDescription[] = [
  { shardId: id(0), closed: true },
  { shardId: id(1), closed: true },
  { shardId: id(2), parentShardId: id(0), closed: false },
  { shardId: id(3), parentShardId: id(0), closed: true },
  { shardId: id(4), parentShardId: id(3), adjacentParentShardId: id(1), closed: false },
];

const ids = (entries: readonly { shard: ShardDescription }[]) => entries.map((e) => e.shard.shardId);

describe('Class: ShardLineage', () => {
  it('releases a child only when every parent is finished (TRIM_HORIZON)', () => {
    const lineage = new ShardLineage();
    lineage.addListing(resharded, 'TRIM_HORIZON', true);
    const finish = (i: number) => {
      const entry = lineage.get(id(i));
      if (entry) entry.status = 'finished';
    };
    expect(ids(lineage.eligible())).toEqual([id(0), id(1)]);
    finish(1);
    expect(ids(lineage.eligible())).toEqual([id(0)]);
    finish(0);
    expect(ids(lineage.eligible())).toEqual([id(2), id(3)]);
    finish(3);
    // Shard 4 needs both 3 (ParentShardId) and 1 (AdjacentParentShardId).
    expect(ids(lineage.eligible())).toEqual([id(2), id(4)]);
    expect(lineage.all().every((e) => e.start === 'TRIM_HORIZON')).toBe(true);
  });

  it('with LATEST skips the shards closed at start and reads later shards from TRIM_HORIZON', () => {
    const lineage = new ShardLineage();
    lineage.addListing(resharded, 'LATEST', true);
    expect(lineage.all().map((e) => [e.shard.shardId, e.status, e.start])).toEqual([
      [id(0), 'finished', 'LATEST'],
      [id(1), 'finished', 'LATEST'],
      [id(2), 'waiting', 'LATEST'],
      [id(3), 'finished', 'LATEST'],
      [id(4), 'waiting', 'LATEST'],
    ]);
    expect(ids(lineage.eligible())).toEqual([id(2), id(4)]);
    const added = lineage.addListing([...resharded, { shardId: id(5), parentShardId: id(2), closed: false }], 'LATEST', false);
    expect(added.map((e) => [e.shard.shardId, e.start])).toEqual([[id(5), 'TRIM_HORIZON']]);
  });

  it('does not hold children back for a parent that aged out of the listing', () => {
    const lineage = new ShardLineage();
    lineage.addListing(resharded.slice(2), 'TRIM_HORIZON', true);
    expect(ids(lineage.eligible())).toEqual([id(2), id(3)]);
  });
});
