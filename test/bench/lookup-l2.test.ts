/**
 * The lookup-l2 benchmark's figures on a short run: after the cold start the in-container
 * caches are empty, so without L2 every distinct key goes to the source once; with L2 none does,
 * and L2 answers exactly those keys.
 */
import { describe, expect, it } from 'vitest';
import { runLookupL2Suite } from '../../shared/bench/lookup-l2.ts';

describe('bench lookup-l2', () => {
  it('reports source lookups per 1,000 events after a cold start, with and without the DynamoDB L2', async () => {
    const [l1Only, l1L2] = await runLookupL2Suite(20_000);
    expect(l1Only).toMatchObject({ suite: 'lookup-l2', case: 'cold-l1-only', events: 20_000, keys: 10_000, shards: 4, l2_hits_per_1000: 0 });
    expect(l1L2).toMatchObject({ suite: 'lookup-l2', case: 'cold-l1-l2', source_lookups_per_1000: 0, reduction: 'every lookup served by L2' });
    // 20,000 uniform draws over 10,000 keys hit about 8,650 distinct keys: each goes to the source once.
    expect(l1Only?.source_lookups_per_1000).toBeGreaterThan(400);
    expect(l1Only?.source_lookups_per_1000).toBeLessThan(500);
    expect(l1L2?.l2_hits_per_1000).toBe(l1Only?.source_lookups_per_1000);
  }, 60_000);
});
