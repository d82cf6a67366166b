/**
 * The checkpoint item's conditional protocol on dynalite: fencing bumps the epoch, a held lease
 * makes the next owner wait (until released, or expired plus grace), a fenced-out owner's
 * writes are refused, commits carry the reader data and the redo log (inline, or as chunk items
 * when large), and release forgets an applied redo log.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckpointStore, FencedError, REDO_CHUNK_CHARS } from '../../shared/aws/checkpoint/checkpoint-store.ts';
import { decodeRedo, encodeRedo } from '../../shared/aws/checkpoint/redo-codec.ts';
import { createStateTable } from '../../shared/aws/state/create-state-table.ts';
import { scanTable, startDynalite } from './dynamodb-emulator.ts';
import type { DynamoDbEmulator } from './dynamodb-emulator.ts';

let dynalite: DynamoDbEmulator;
let client: DynamoDBClient;
let tableCount = 0;

beforeAll(async () => {
  dynalite = await startDynalite();
  client = dynalite.client();
});

afterAll(async () => {
  client?.destroy();
  await dynalite?.stop();
});

/** A virtual clock: sleeping advances it, so lease waits take no real time. */
function virtualClock(start = 1_000_000): { now: () => number; sleep: (ms: number) => Promise<void>; slept: number[] } {
  let now = start;
  const slept: number[] = [];
  return {
    now: () => now,
    sleep: (ms) => {
      slept.push(ms);
      now += ms;
      return Promise.resolve();
    },
    slept,
  };
}

async function freshTable(): Promise<string> {
  const name = `ckpt-${++tableCount}`;
  await createStateTable(client, name);
  return name;
}

describe('Class: CheckpointStore', () => {
  it('fences with increasing epochs and starts at version 0 with nothing pending', async () => {
    const tableName = await freshTable();
    const clock = virtualClock();
    const a = new CheckpointStore({ client, tableName, stage: 'stage-1', shardId: 'shardId-000000000000', ...clock });
    const first = await a.fence(clock.now() + 10_000);
    expect(first).toEqual({ epoch: 1, version: 0, data: undefined, pending: undefined, redo: undefined });
    await a.release(undefined);
    const second = await a.fence(clock.now() + 10_000);
    expect(second.epoch).toBe(2);
    expect(clock.slept).toEqual([]);
  });

  it('waits for a held lease to expire (plus grace) before taking over, and fences the old owner out', async () => {
    const tableName = await freshTable();
    const clock = virtualClock();
    const old = new CheckpointStore({ client, tableName, stage: 's', shardId: 'sh', ...clock, graceMs: 100, pollMs: 1000 });
    await old.fence(clock.now() + 5_000);
    const next = new CheckpointStore({ client, tableName, stage: 's', shardId: 'sh', ...clock, graceMs: 100, pollMs: 1000 });
    const start = clock.now();
    const taken = await next.fence(clock.now() + 5_000);
    expect(taken.epoch).toBe(2);
    expect(clock.now() - start).toBeGreaterThanOrEqual(5_100);
    // The old owner's deadline has passed: it refuses to write on its own.
    await expect(old.announce({ first: '1', last: '2' })).rejects.toThrow(FencedError);
  });

  it('takes over at once when the holder released its lease', async () => {
    const tableName = await freshTable();
    const clock = virtualClock();
    const a = new CheckpointStore({ client, tableName, stage: 's', shardId: 'sh', ...clock });
    await a.fence(clock.now() + 60_000);
    await a.release(undefined);
    const b = new CheckpointStore({ client, tableName, stage: 's', shardId: 'sh', ...clock });
    expect((await b.fence(clock.now() + 60_000)).epoch).toBe(2);
    expect(clock.slept).toEqual([]);
  });

  it('refuses the commit of an owner whose epoch was taken over', async () => {
    const tableName = await freshTable();
    let now = 0;
    const sleep = (ms: number): Promise<void> => {
      now += ms;
      return Promise.resolve();
    };
    const a = new CheckpointStore({ client, tableName, stage: 's', shardId: 'sh', now: () => now, sleep, graceMs: 0, safetyMs: 0 });
    await a.fence(100);
    const b = new CheckpointStore({ client, tableName, stage: 's', shardId: 'sh', now: () => now, sleep, graceMs: 0, safetyMs: 0 });
    await b.fence(now + 1_000_000);
    now = 50; // A believes its lease still runs (a clock skew, or a stall): the condition stops it.
    await expect(a.commit(1, { x: 1 }, undefined)).rejects.toThrow(/fenced out/);
    await b.commit(1, { x: 2 }, undefined);
    await b.release(undefined);
    const c = new CheckpointStore({ client, tableName, stage: 's', shardId: 'sh', now: () => now, sleep });
    const seen = await c.fence(now + 1000);
    expect(seen.version).toBe(1);
    expect(seen.data).toEqual({ x: 2 });
  });

  it('announces a pending range, commits data with an inline redo log, and forgets it on release', async () => {
    const tableName = await freshTable();
    const clock = virtualClock();
    const store = new CheckpointStore({ client, tableName, stage: 's', shardId: 'sh', ...clock });
    await store.fence(clock.now() + 60_000);
    await store.announce({ first: '100', last: '200' });
    await store.release(undefined);
    const afterCrash = await store.fence(clock.now() + 60_000);
    expect(afterCrash.pending).toEqual({ first: '100', last: '200' });

    const redo = encodeRedo([[], [{ PutRequest: { Item: { pk: { S: 'op#1#k' }, sk: { S: 'v' }, v: { S: '1' } } } }], []]);
    const ref = await store.commit(1, { watermark: -Infinity, reader: { seq: '200' } }, redo);
    expect(ref).toEqual({ version: 1, inline: redo });
    await store.release(undefined);
    const committed = await store.fence(clock.now() + 60_000);
    expect(committed).toMatchObject({ version: 1, pending: undefined, redo: { version: 1, inline: redo }, data: { watermark: -Infinity, reader: { seq: '200' } } });
    await store.release(committed.redo);
    expect((await store.fence(clock.now() + 60_000)).redo).toBeUndefined();
  });

  it('stores a redo log larger than one item as chunk items and reads it back exactly', async () => {
    const tableName = await freshTable();
    const clock = virtualClock();
    const store = new CheckpointStore({ client, tableName, stage: 's', shardId: 'sh', ...clock });
    await store.fence(clock.now() + 60_000);
    const bytes = new Uint8Array(300_000).map((_, i) => (i * 7) % 256);
    const puts = Array.from({ length: 3 }, (_, i) => ({ PutRequest: { Item: { pk: { S: `op#1#k${i}` }, sk: { S: 'v' }, c: { B: bytes }, v: { S: 'é'.repeat(1000) } } } }));
    const redo = encodeRedo([puts, [], [{ DeleteRequest: { Key: { pk: { S: 'op#1#gone' }, sk: { S: 'v' } } } }]]);
    expect(redo.length).toBeGreaterThan(REDO_CHUNK_CHARS * 2);
    const ref = await store.commit(1, {}, redo);
    expect(ref).toMatchObject({ version: 1, chunks: Math.ceil(redo.length / REDO_CHUNK_CHARS) });
    await store.release(undefined);
    const seen = await store.fence(clock.now() + 60_000);
    const text = await store.readRedo(seen.redo!);
    expect(text).toBe(redo);
    const phases = decodeRedo(text);
    expect(phases[0]?.[2]?.PutRequest?.Item?.c?.B).toEqual(bytes);
    expect(phases[2]?.[0]).toEqual({ DeleteRequest: { Key: { pk: { S: 'op#1#gone' }, sk: { S: 'v' } } } });
    await store.release(seen.redo);
    const left = (await scanTable(client, tableName)).filter((item) => item.pk?.S?.startsWith('#redo#'));
    expect(left).toEqual([]);
  });
});
