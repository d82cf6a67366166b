import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Buffer } from 'node:buffer';
import { GetRecordsCommand, MergeShardsCommand, SplitShardCommand } from '@aws-sdk/client-kinesis';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import { LocalEventSourceMapping } from '../../shared/aws/esm/local-event-source-mapping.ts';
import type { KinesisOnFailureRecord, LocalEventSourceMappingOptions, OnFailureDetails } from '../../shared/aws/esm/types.ts';
import { FlambdaError } from '../../shared/core/errors.ts';
import { createStream, emulatorClient, listAllShards, readStream, startKinesalite, waitForActive } from './kinesis-emulator.ts';
import type { KinesaliteHandle } from './kinesis-emulator.ts';
import { deferred, delay, labelled, putLabelled, recordingHandler } from './esm-helpers.ts';
import type { Invocation, PutResult } from './esm-helpers.ts';

let emulator: KinesaliteHandle;
let client: KinesisClient;
let streamCounter = 0;
const running: LocalEventSourceMapping[] = [];

beforeAll(async () => {
  emulator = await startKinesalite();
  client = emulatorClient(emulator.endpoint);
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((esm) => esm.stop()));
});

afterAll(async () => {
  client.destroy();
  await emulator.close();
});

async function newStream(shards: number): Promise<string> {
  const name = `esm-${++streamCounter}`;
  await createStream(client, name, shards);
  return name;
}

/** A mapping with fast local timings; stopped after each test. */
function mapping(options: Partial<LocalEventSourceMappingOptions> & Pick<LocalEventSourceMappingOptions, 'handler' | 'streamName'>) {
  const esm = new LocalEventSourceMapping({
    client,
    startingPosition: 'TRIM_HORIZON',
    pollIntervalMs: 10,
    shardDiscoveryIntervalMs: 50,
    retryDelayMs: 1,
    ...options,
  });
  running.push(esm);
  return esm;
}

const DRAIN = { timeoutMs: 15_000 };

describe('Class: LocalEventSourceMapping', () => {
  describe('Method: start / drain', () => {
    it('delivers every record once, per shard in shard order, in batches of at most batchSize', async () => {
      const streamName = await newStream(3);
      const before = await putLabelled(client, streamName, labelled(150, 'a'));
      const rec = recordingHandler();
      const esm = mapping({ streamName, handler: rec.handler, batchSize: 7 });
      await esm.start();
      const after = await putLabelled(client, streamName, labelled(150, 'b'));
      await esm.drain(DRAIN);

      const truth = await readStream(client, streamName);
      expect(truth.size).toBe(3);
      for (const [shardId, records] of truth) {
        const invocations = rec.of(shardId);
        expect(invocations.flatMap((i) => i.sequenceNumbers)).toEqual(records.map((r) => r.sequenceNumber));
        for (const inv of invocations) {
          expect(inv.event.Records.length).toBeGreaterThan(0);
          expect(inv.event.Records.length).toBeLessThanOrEqual(7);
          // One batch holds one shard's records only.
          expect(inv.event.Records.every((r) => r.eventID.startsWith(`${shardId}:`))).toBe(true);
        }
      }
      expect(rec.delivered().sort()).toEqual([...before, ...after].map((r) => r.data).sort());
      // Records already in the stream are read in full batches.
      expect(rec.invocations.some((i) => i.event.Records.length === 7)).toBe(true);

      const stats = esm.stats();
      expect(stats).toMatchObject({ records: 300, retries: 0, failures: 0, invocations: rec.invocations.length });
      expect(Object.values(stats.shards).map((s) => s.status)).toEqual(['active', 'active', 'active']);
    });

    it('builds records exactly as AWS documents them, and a Lambda context', async () => {
      const streamName = await newStream(1);
      const [put] = await putLabelled(client, streamName, [{ partitionKey: 'order-7', data: 'Hello, this is a test.' }]);
      const rec = recordingHandler();
      const esm = mapping({ streamName, handler: rec.handler, functionName: 'stage-1' });
      const t0 = Date.now();
      await esm.start();
      await esm.drain(DRAIN);

      const p = put as PutResult;
      const [inv] = rec.invocations as [Invocation];
      const record = inv.event.Records[0];
      expect(Object.keys(inv.event)).toEqual(['Records']);
      // Same keys, in the order of AWS's example event.
      expect(Object.keys(record ?? {})).toEqual([
        'kinesis',
        'eventSource',
        'eventVersion',
        'eventID',
        'eventName',
        'invokeIdentityArn',
        'awsRegion',
        'eventSourceARN',
      ]);
      expect(Object.keys(record?.kinesis ?? {})).toEqual([
        'kinesisSchemaVersion',
        'partitionKey',
        'sequenceNumber',
        'data',
        'approximateArrivalTimestamp',
      ]);
      expect(record).toEqual({
        kinesis: {
          kinesisSchemaVersion: '1.0',
          partitionKey: 'order-7',
          sequenceNumber: p.sequenceNumber,
          data: 'SGVsbG8sIHRoaXMgaXMgYSB0ZXN0Lg==',
          approximateArrivalTimestamp: expect.any(Number),
        },
        eventSource: 'aws:kinesis',
        eventVersion: '1.0',
        eventID: `shardId-000000000000:${p.sequenceNumber}`,
        eventName: 'aws:kinesis:record',
        invokeIdentityArn: 'arn:aws:iam::000000000000:role/stage-1-role',
        awsRegion: 'us-east-1',
        eventSourceARN: `arn:aws:kinesis:us-east-1:000000000000:stream/${streamName}`,
      });
      // Epoch seconds with millisecond decimals, as in AWS's example (1545084650.987).
      const ts = record?.kinesis.approximateArrivalTimestamp ?? 0;
      expect(ts).toBeGreaterThan(t0 / 1000 - 60);
      expect(ts).toBeLessThan(Date.now() / 1000 + 1);
      expect(Math.round(ts * 1000)).toBe(ts * 1000);

      expect(inv.context).toMatchObject({
        functionName: 'stage-1',
        functionVersion: '$LATEST',
        invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:stage-1',
        awsRequestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        logGroupName: '/aws/lambda/stage-1',
      });
      expect(inv.context.getRemainingTimeInMillis()).toBeGreaterThan(0);
    });

    it('with LATEST delivers only records put after start()', async () => {
      const streamName = await newStream(2);
      await putLabelled(client, streamName, labelled(20, 'old'));
      const rec = recordingHandler();
      const esm = mapping({ streamName, handler: rec.handler, startingPosition: 'LATEST' });
      await esm.start();
      const fresh = await putLabelled(client, streamName, labelled(20, 'new'));
      await esm.drain(DRAIN);
      expect(rec.delivered().sort()).toEqual(fresh.map((r) => r.data).sort());
    });

    it('with AT_TIMESTAMP delivers the records that arrived at or after the timestamp, on every shard', async () => {
      const streamName = await newStream(2);
      await putLabelled(client, streamName, labelled(20, 'old'));
      // Arrival times have millisecond resolution: leave a clear gap on both sides of the timestamp.
      await delay(50);
      const at = Date.now();
      await delay(50);
      const fresh = await putLabelled(client, streamName, labelled(20, 'new'));
      const rec = recordingHandler();
      const esm = mapping({ streamName, handler: rec.handler, startingPosition: 'AT_TIMESTAMP', startingPositionTimestamp: new Date(at) });
      await esm.start();
      await esm.drain(DRAIN);
      expect(rec.delivered().sort()).toEqual(fresh.map((r) => r.data).sort());
      expect(new Set(rec.invocations.map((i) => i.shardId))).toEqual(new Set(fresh.map((r) => r.shardId)));
    });

    it('with a batching window, waits for more records before invoking', async () => {
      const streamName = await newStream(1);
      const rec = recordingHandler();
      const esm = mapping({ streamName, handler: rec.handler, maximumBatchingWindowMs: 500 });
      await esm.start();
      const t0 = Date.now();
      await putLabelled(client, streamName, [{ partitionKey: 'a', data: 'first' }]);
      await delay(150);
      await putLabelled(client, streamName, [
        { partitionKey: 'a', data: 'second' },
        { partitionKey: 'a', data: 'third' },
      ]);
      await esm.drain(DRAIN);
      expect(rec.invocations.map((i) => i.data)).toEqual([['first', 'second', 'third']]);
      expect((rec.invocations[0] as Invocation).startedAtMs - t0).toBeGreaterThanOrEqual(400);
    });

    it('with a batching window, invokes at once when a batch is full', async () => {
      const streamName = await newStream(1);
      const rec = recordingHandler();
      const esm = mapping({ streamName, handler: rec.handler, batchSize: 5, maximumBatchingWindowMs: 1_200 });
      await esm.start();
      const t0 = Date.now();
      await putLabelled(client, streamName, labelled(12));
      await esm.drain(DRAIN);
      expect(rec.invocations.map((i) => i.data.length)).toEqual([5, 5, 2]);
      const [a, b, c] = rec.invocations as [Invocation, Invocation, Invocation];
      expect(a.startedAtMs - t0).toBeLessThan(600);
      expect(b.startedAtMs - t0).toBeLessThan(600);
      expect(c.startedAtMs - t0).toBeGreaterThanOrEqual(1_000);
    });

    it('runs one batch per shard at a time, and different shards concurrently', async () => {
      const streamName = await newStream(4);
      const rec = recordingHandler(undefined, 15);
      const esm = mapping({ streamName, handler: rec.handler, batchSize: 10 });
      await putLabelled(client, streamName, labelled(240, 'c', 61));
      await esm.start();
      await esm.drain(DRAIN);
      expect(rec.delivered()).toHaveLength(240);
      expect(rec.maxActivePerShard.size).toBe(4);
      for (const max of rec.maxActivePerShard.values()) expect(max).toBe(1);
      expect(rec.maxActive()).toBeGreaterThanOrEqual(2);
      // Within a shard, each invocation ends before the next starts.
      for (const shardId of rec.maxActivePerShard.keys()) {
        const list = rec.of(shardId);
        for (let i = 1; i < list.length; i++) {
          expect((list[i] as Invocation).startTick).toBeGreaterThan((list[i - 1] as Invocation).endTick);
        }
      }
    });
  });

  describe('Partial batch responses and errors', () => {
    it('resumes at the lowest reported sequence number and never redelivers the records before it', async () => {
      const streamName = await newStream(1);
      const puts = await putLabelled(client, streamName, labelled(10));
      const seq = (i: number) => (puts[i] as PutResult).sequenceNumber;
      const rec = recordingHandler((inv) =>
        inv.index === 0 ? { batchItemFailures: [{ itemIdentifier: seq(6) }, { itemIdentifier: seq(4) }] } : undefined,
      );
      const esm = mapping({ streamName, handler: rec.handler });
      await esm.start();
      await esm.drain(DRAIN);
      expect(rec.invocations.map((i) => i.data)).toEqual([
        ['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8', 'r9'],
        ['r4', 'r5', 'r6', 'r7', 'r8', 'r9'],
      ]);
      expect(esm.stats()).toMatchObject({ invocations: 2, records: 10, retries: 1, failures: 0 });
      expect(esm.stats().shards['shardId-000000000000']?.checkpoint).toBe(seq(9));
    });

    it('treats an empty batchItemFailures list as success', async () => {
      const streamName = await newStream(1);
      await putLabelled(client, streamName, labelled(5));
      const rec = recordingHandler(() => ({ batchItemFailures: [] }));
      const esm = mapping({ streamName, handler: rec.handler });
      await esm.start();
      await esm.drain(DRAIN);
      expect(rec.invocations).toHaveLength(1);
      expect(esm.stats()).toMatchObject({ records: 5, retries: 0 });
    });

    it('retries the whole batch after a thrown error or an invalid itemIdentifier', async () => {
      const streamName = await newStream(1);
      await putLabelled(client, streamName, labelled(4));
      const rec = recordingHandler((inv) => {
        if (inv.index === 0) throw new Error('boom');
        if (inv.index === 1) return { batchItemFailures: [{ itemIdentifier: '' }] };
        return undefined;
      });
      const esm = mapping({ streamName, handler: rec.handler });
      await esm.start();
      await esm.drain(DRAIN);
      expect(rec.invocations).toHaveLength(3);
      const [a, b, c] = rec.invocations as [Invocation, Invocation, Invocation];
      expect(b.sequenceNumbers).toEqual(a.sequenceNumbers);
      expect(c.sequenceNumbers).toEqual(a.sequenceNumbers);
      expect(esm.stats()).toMatchObject({ invocations: 3, records: 4, retries: 2, failures: 0 });
    });

    it('stops after maximumRetryAttempts, reports the batch range to onFailure and moves on', async () => {
      const streamName = await newStream(1);
      const puts = await putLabelled(client, streamName, labelled(12));
      const failures: Array<[KinesisOnFailureRecord, OnFailureDetails]> = [];
      const rec = recordingHandler((inv) => {
        if (inv.data.includes('r6')) throw new Error('poison r6');
      });
      const esm = mapping({
        streamName,
        handler: rec.handler,
        batchSize: 5,
        maximumRetryAttempts: 2,
        onFailure: (record, details) => {
          failures.push([record, details]);
        },
      });
      await esm.start();
      await esm.drain(DRAIN);

      expect(rec.invocations.map((i) => i.data.join(','))).toEqual([
        'r0,r1,r2,r3,r4',
        'r5,r6,r7,r8,r9',
        'r5,r6,r7,r8,r9',
        'r5,r6,r7,r8,r9',
        'r10,r11',
      ]);
      expect(failures).toHaveLength(1);
      const [record, details] = failures[0] as [KinesisOnFailureRecord, OnFailureDetails];
      expect(record).toEqual({
        requestContext: {
          requestId: (rec.invocations[3] as Invocation).context.awsRequestId,
          functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:flambda-local-function',
          condition: 'RetryAttemptsExhausted',
          approximateInvokeCount: 3,
        },
        responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
        version: '1.0',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        KinesisBatchInfo: {
          shardId: 'shardId-000000000000',
          startSequenceNumber: (puts[5] as PutResult).sequenceNumber,
          endSequenceNumber: (puts[9] as PutResult).sequenceNumber,
          approximateArrivalOfFirstRecord: expect.stringMatching(/Z$/),
          approximateArrivalOfLastRecord: expect.stringMatching(/Z$/),
          batchSize: 5,
          streamArn: `arn:aws:kinesis:us-east-1:000000000000:stream/${streamName}`,
        },
      });
      expect((details.lastError as Error).message).toBe('poison r6');
      expect(details.records.map((r) => Buffer.from(r.kinesis.data, 'base64').toString())).toEqual(['r5', 'r6', 'r7', 'r8', 'r9']);
      expect(esm.stats()).toMatchObject({ invocations: 5, records: 7, retries: 2, failures: 1, discardedRecords: 5 });
    });

    it('with partial responses, discards only the unprocessed records after the last retry', async () => {
      const streamName = await newStream(1);
      const puts = await putLabelled(client, streamName, labelled(12));
      const failures: KinesisOnFailureRecord[] = [];
      const rec = recordingHandler((inv) => {
        const at = inv.data.indexOf('r6');
        return at < 0 ? undefined : { batchItemFailures: [{ itemIdentifier: inv.sequenceNumbers[at] as string }] };
      });
      const esm = mapping({
        streamName,
        handler: rec.handler,
        batchSize: 5,
        maximumRetryAttempts: 1,
        onFailure: (record) => {
          failures.push(record);
        },
      });
      await esm.start();
      await esm.drain(DRAIN);
      expect(rec.invocations.map((i) => i.data.join(','))).toEqual(['r0,r1,r2,r3,r4', 'r5,r6,r7,r8,r9', 'r6,r7,r8,r9', 'r10,r11']);
      expect(failures).toHaveLength(1);
      const f = failures[0] as KinesisOnFailureRecord;
      expect(f.requestContext).toMatchObject({ condition: 'RetryAttemptsExhausted', approximateInvokeCount: 2 });
      expect(f.responseContext).toEqual({ statusCode: 200, executedVersion: '$LATEST' });
      expect(f.KinesisBatchInfo).toMatchObject({
        startSequenceNumber: (puts[6] as PutResult).sequenceNumber,
        endSequenceNumber: (puts[9] as PutResult).sequenceNumber,
        batchSize: 4,
      });
      expect(esm.stats()).toMatchObject({ records: 8, discardedRecords: 4 });
    });

    it('discards records older than maximumRecordAgeMs without invoking them', async () => {
      const streamName = await newStream(1);
      const old = await putLabelled(client, streamName, labelled(3, 'old'));
      await delay(400);
      const failures: KinesisOnFailureRecord[] = [];
      const rec = recordingHandler();
      const esm = mapping({ streamName, handler: rec.handler, maximumRecordAgeMs: 300, onFailure: (r) => void failures.push(r) });
      await esm.start();
      await putLabelled(client, streamName, labelled(2, 'new'));
      await esm.drain(DRAIN);
      expect(rec.delivered()).toEqual(['new0', 'new1']);
      expect(failures).toHaveLength(1);
      expect(failures[0]).toMatchObject({
        requestContext: { condition: 'RecordAgeExceeded', approximateInvokeCount: 0 },
        KinesisBatchInfo: {
          startSequenceNumber: (old[0] as PutResult).sequenceNumber,
          endSequenceNumber: (old[2] as PutResult).sequenceNumber,
          batchSize: 3,
        },
      });
      expect(failures[0]?.responseContext).toBeUndefined();
    });

    it('retries forever by default, so drain() times out and names the stuck shard', async () => {
      const streamName = await newStream(1);
      await putLabelled(client, streamName, labelled(2));
      const rec = recordingHandler(() => {
        throw new Error('always');
      });
      const esm = mapping({ streamName, handler: rec.handler });
      await esm.start();
      await expect(esm.drain({ timeoutMs: 300 })).rejects.toThrow(/timed out.*shardId-000000000000=active.*pending=2/);
      expect(esm.stats().retries).toBeGreaterThan(3);
      expect(esm.stats().records).toBe(0);
    });
  });

  describe('Resharding', () => {
    it('after SplitShard and MergeShards mid-stream delivers every record exactly once, parents before children', async () => {
      const streamName = await newStream(2);
      // Slow enough that the parents still have a backlog when their children get records.
      const rec = recordingHandler(undefined, 10);
      const esm = mapping({ streamName, handler: rec.handler, batchSize: 5 });
      await esm.start();

      const counters = new Map<string, number>();
      const phase = (n: number, tag: string) =>
        Array.from({ length: n }, (_, i) => {
          const key = `key-${i % 23}`;
          const next = counters.get(key) ?? 0;
          counters.set(key, next + 1);
          return { partitionKey: key, data: `${key}#${next}#${tag}` };
        });

      const all: PutResult[] = [];
      all.push(...(await putLabelled(client, streamName, phase(120, 'p1'))));

      const [shard0] = await listAllShards(client, streamName);
      const start = BigInt(shard0?.HashKeyRange?.StartingHashKey ?? '0');
      const end = BigInt(shard0?.HashKeyRange?.EndingHashKey ?? '0');
      await client.send(
        new SplitShardCommand({
          StreamName: streamName,
          ShardToSplit: 'shardId-000000000000',
          NewStartingHashKey: ((start + end + 1n) / 2n).toString(),
        }),
      );
      const deliveredFromParentAtSplit = rec.of('shardId-000000000000').reduce((n, i) => n + i.data.length, 0);
      await waitForActive(client, streamName);
      all.push(...(await putLabelled(client, streamName, phase(120, 'p2'))));

      // Shard 3 (upper half of shard 0) is adjacent to shard 1.
      await client.send(
        new MergeShardsCommand({ StreamName: streamName, ShardToMerge: 'shardId-000000000003', AdjacentShardToMerge: 'shardId-000000000001' }),
      );
      await waitForActive(client, streamName);
      all.push(...(await putLabelled(client, streamName, phase(120, 'p3'))));
      await esm.drain(DRAIN);

      // Every record exactly once.
      const delivered = rec.delivered();
      expect(delivered).toHaveLength(all.length);
      expect(new Set(delivered).size).toBe(all.length);
      expect([...delivered].sort()).toEqual(all.map((r) => r.data).sort());

      // Each key's records in the order they were put, across parents and children.
      const lastSeen = new Map<string, number>();
      for (const d of delivered) {
        const [key, n] = d.split('#') as [string, string];
        expect(Number(n)).toBe((lastSeen.get(key) ?? -1) + 1);
        lastSeen.set(key, Number(n));
      }

      // The lineage: 0 → 2, 3; 3 + 1 → 4. A child's first invocation starts after every
      // invocation of its parents ended.
      const shards = await listAllShards(client, streamName);
      expect(shards.map((s) => s.ShardId)).toEqual([0, 1, 2, 3, 4].map((i) => `shardId-00000000000${i}`));
      let checkedChildren = 0;
      for (const child of shards) {
        const parents = [child.ParentShardId, child.AdjacentParentShardId].filter((p): p is string => p !== undefined);
        const childInvocations = rec.of(child.ShardId as string);
        if (parents.length === 0 || childInvocations.length === 0) continue;
        const firstStart = Math.min(...childInvocations.map((i) => i.startTick));
        for (const parent of parents) {
          const parentEnd = Math.max(...rec.of(parent).map((i) => i.endTick));
          expect(firstStart).toBeGreaterThan(parentEnd);
        }
        checkedChildren++;
      }
      expect(checkedChildren).toBe(3);
      // The split happened while shard 0 still had records to deliver: mid-stream.
      const parentTotal = all.filter((r) => r.shardId === 'shardId-000000000000').length;
      expect(deliveredFromParentAtSplit).toBeLessThan(parentTotal);

      const status = Object.fromEntries(Object.entries(esm.stats().shards).map(([id, s]) => [id.slice(-1), s.status]));
      expect(status).toEqual({ 0: 'finished', 1: 'finished', 2: 'active', 3: 'finished', 4: 'active' });
    });

    it('with LATEST, skips shards closed before start and reads children created later from their start', async () => {
      const streamName = await newStream(1);
      await client.send(
        new SplitShardCommand({ StreamName: streamName, ShardToSplit: 'shardId-000000000000', NewStartingHashKey: (2n ** 127n).toString() }),
      );
      await waitForActive(client, streamName);
      await putLabelled(client, streamName, labelled(10, 'before'));
      const rec = recordingHandler();
      const esm = mapping({ streamName, handler: rec.handler, startingPosition: 'LATEST' });
      await esm.start();
      const fresh = await putLabelled(client, streamName, labelled(10, 'after'));
      await client.send(
        new SplitShardCommand({ StreamName: streamName, ShardToSplit: 'shardId-000000000001', NewStartingHashKey: (2n ** 126n).toString() }),
      );
      await waitForActive(client, streamName);
      const later = await putLabelled(client, streamName, labelled(10, 'later'));
      await esm.drain(DRAIN);
      expect(rec.delivered().sort()).toEqual([...fresh, ...later].map((r) => r.data).sort());
      expect(esm.stats().shards['shardId-000000000000']?.status).toBe('finished');
      expect(esm.stats().shards['shardId-000000000000']?.invocations).toBe(0);
    });
  });

  describe('Kinesis read failures', () => {
    /** The shared client with GetRecords failing as `fail` decides (by call number, 1-based). */
    function flakyClient(fail: (call: number) => Error | undefined): KinesisClient {
      const flaky = emulatorClient(emulator.endpoint);
      const send = flaky.send.bind(flaky) as (command: unknown) => Promise<unknown>;
      let calls = 0;
      (flaky as unknown as { send: (command: unknown) => Promise<unknown> }).send = (command) => {
        if (command instanceof GetRecordsCommand) {
          const error = fail(++calls);
          if (error !== undefined) return Promise.reject(error);
        }
        return send(command);
      };
      return flaky;
    }

    function awsError(name: string): Error {
      const error = new Error(`${name} (injected)`);
      error.name = name;
      return error;
    }

    it('gets a new iterator after ExpiredIteratorException and loses or repeats nothing', async () => {
      const streamName = await newStream(1);
      const puts = await putLabelled(client, streamName, labelled(30));
      const rec = recordingHandler();
      const flaky = flakyClient((call) => (call === 2 ? awsError('ExpiredIteratorException') : undefined));
      try {
        const esm = mapping({ streamName, handler: rec.handler, client: flaky, batchSize: 10 });
        await esm.start();
        await esm.drain(DRAIN);
        expect(rec.delivered()).toEqual(puts.map((r) => r.data));
        expect(esm.stats().shards['shardId-000000000000']).toMatchObject({ iteratorRefreshes: 1, records: 30 });
      } finally {
        await Promise.all(running.splice(0).map((esm) => esm.stop()));
        flaky.destroy();
      }
    });

    it('backs off and retries throttled reads', async () => {
      const streamName = await newStream(1);
      const puts = await putLabelled(client, streamName, labelled(8));
      const rec = recordingHandler();
      const flaky = flakyClient((call) => (call <= 2 ? awsError('ProvisionedThroughputExceededException') : undefined));
      try {
        const esm = mapping({ streamName, handler: rec.handler, client: flaky });
        await esm.start();
        await esm.drain(DRAIN);
        expect(rec.delivered()).toEqual(puts.map((r) => r.data));
        expect(esm.stats().shards['shardId-000000000000']?.readErrors).toBe(2);
      } finally {
        await Promise.all(running.splice(0).map((esm) => esm.stop()));
        flaky.destroy();
      }
    });

    it('fails the mapping on an error no retry fixes, and drain() rejects with it', async () => {
      const streamName = await newStream(1);
      await putLabelled(client, streamName, labelled(3));
      const flaky = flakyClient(() => awsError('AccessDeniedException'));
      try {
        const esm = mapping({ streamName, handler: recordingHandler().handler, client: flaky });
        await esm.start();
        const error: unknown = await esm.drain(DRAIN).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(FlambdaError);
        expect((error as FlambdaError).message).toMatch(/GetRecords on esm-\d+\/shardId-000000000000 failed: AccessDeniedException/);
        expect((error as FlambdaError).domain).toBe('external');
      } finally {
        await Promise.all(running.splice(0).map((esm) => esm.stop()));
        flaky.destroy();
      }
    });
  });

  describe('Method: stop', () => {
    it('waits for the in-flight invocation, then invokes nothing more', async () => {
      const streamName = await newStream(1);
      await putLabelled(client, streamName, labelled(6));
      const release = deferred();
      const entered = deferred();
      const rec = recordingHandler(async () => {
        entered.resolve();
        await release.promise;
      });
      const esm = mapping({ streamName, handler: rec.handler, batchSize: 2 });
      await esm.start();
      await entered.promise;
      let stopped = false;
      const stopping = esm.stop().then(() => {
        stopped = true;
      });
      await delay(50);
      expect(stopped).toBe(false);
      release.resolve();
      await stopping;
      expect(rec.invocations).toHaveLength(1);
      await delay(50);
      expect(rec.invocations).toHaveLength(1);
      expect(esm.stats().records).toBe(2);
      await expect(esm.drain()).rejects.toThrow(/running mapping/);
      await expect(esm.start()).rejects.toThrow(/already called/);
    });
  });

  describe('Options', () => {
    it('rejects out-of-range settings, naming the value', () => {
      const base = { handler: async () => undefined, streamName: 's', startingPosition: 'LATEST' as const, client };
      expect(() => new LocalEventSourceMapping({ ...base, batchSize: 0 })).toThrow('batchSize must be 1..10000 (given 0)');
      expect(() => new LocalEventSourceMapping({ ...base, batchSize: 10_001 })).toThrow('batchSize must be 1..10000 (given 10001)');
      expect(() => new LocalEventSourceMapping({ ...base, maximumBatchingWindowMs: 300_001 })).toThrow(
        'maximumBatchingWindowMs must be 0..300000 (given 300001)',
      );
      expect(() => new LocalEventSourceMapping({ ...base, maximumRetryAttempts: -2 })).toThrow(
        'maximumRetryAttempts must be -1..10000 (given -2)',
      );
      expect(() => new LocalEventSourceMapping({ ...base, maximumRecordAgeMs: -5 })).toThrow(
        'maximumRecordAgeMs must be 0..604800000 or -1 (given -5)',
      );
      expect(() => new LocalEventSourceMapping({ ...base, startingPosition: 'AT_TIMESTAMP' })).toThrow(
        'startingPositionTimestamp goes with startingPosition AT_TIMESTAMP, and only with it (given AT_TIMESTAMP and undefined)',
      );
      expect(() => new LocalEventSourceMapping({ ...base, startingPositionTimestamp: 0 })).toThrow(/only with it \(given LATEST and 0\)/);
      expect(() => new LocalEventSourceMapping({ ...base, startingPosition: 'AT_TIMESTAMP', startingPositionTimestamp: new Date('x') })).toThrow(
        'startingPositionTimestamp must be a valid time',
      );
      expect(() => new LocalEventSourceMapping({ ...base, streamName: undefined })).toThrow('give streamName or streamArn');
      expect(() => new LocalEventSourceMapping({ ...base, streamName: undefined, streamArn: 'stream/x' })).toThrow(/streamArn must look like/);
      expect(
        () => new LocalEventSourceMapping({ ...base, streamArn: 'arn:aws:kinesis:us-east-1:000000000000:stream/other' }),
      ).toThrow(/does not match/);
    });

    it('accepts a stream ARN instead of a name', async () => {
      const streamName = await newStream(1);
      await putLabelled(client, streamName, labelled(3));
      const rec = recordingHandler();
      const streamArn = `arn:aws:kinesis:us-east-1:000000000000:stream/${streamName}`;
      const esm = new LocalEventSourceMapping({ client, streamArn, startingPosition: 'TRIM_HORIZON', handler: rec.handler, pollIntervalMs: 10 });
      running.push(esm);
      await esm.start();
      await esm.drain(DRAIN);
      expect(rec.delivered()).toEqual(['r0', 'r1', 'r2']);
      expect(rec.invocations[0]?.event.Records[0]?.eventSourceARN).toBe(streamArn);
    });
  });
});
