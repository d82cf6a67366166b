/**
 * Kinesis, SQS and Lambda unit rules against AWS's documented examples, the metered Kinesis
 * client against kinesalite, and the monthly cost model against the figures of issue 17.
 */
import { Buffer } from 'node:buffer';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import { GetRecordsCommand, GetShardIteratorCommand, PutRecordCommand, PutRecordsCommand } from '@aws-sdk/client-kinesis';
import { describe, expect, it } from 'vitest';
import { flambdaMonthly, msfMonthly, shardsFor, usdPerMillionEvents } from '../../../shared/aws/billing/cost-model.ts';
import { meterKinesis } from '../../../shared/aws/billing/metered-kinesis.ts';
import { lambdaGbSeconds, onDemandIngestBytes, putPayloadUnits, sqsRequests } from '../../../shared/aws/billing/stream-units.ts';
import { createStream, listAllShards } from '../kinesis-emulator.ts';
import { useEmulators } from '../use-emulators.ts';

let kinesis: KinesisClient;
useEmulators((clients) => ({ kinesis } = clients));

describe('unit rules', () => {
  it('counts PUT payload units in 25 KB chunks: 5 KB is 1, 45 KB is 2, 1 MB (1,000 KB) is 40 (Kinesis pricing page)', () => {
    expect([putPayloadUnits(5 * 1024), putPayloadUnits(45 * 1024), putPayloadUnits(1000 * 1024), putPayloadUnits(0), putPayloadUnits(25 * 1024 + 1)]).toEqual([1, 2, 40, 1, 2]);
  });

  it('rounds on-demand data in up to 1 KB per record: 4.5 KB counts as 5 KB', () => {
    expect(onDemandIngestBytes(4.5 * 1024)).toBe(5 * 1024);
    expect(onDemandIngestBytes(10)).toBe(1024);
  });

  it('bills SQS per 64 KB chunk: a 256 KB payload is 4 requests', () => {
    expect([sqsRequests(256 * 1024), sqsRequests(1), sqsRequests(64 * 1024 + 1)]).toEqual([4, 1, 2]);
  });

  it('gives Lambda GB-seconds as the pricing example: 3M × 1 s at 512 MB = 1,500,000 GB-s', () => {
    expect(lambdaGbSeconds(1000, 512) * 3e6).toBe(1_500_000);
    expect(lambdaGbSeconds(0.2, 1024)).toBe(0.001);
  });
});

describe('metered Kinesis client', () => {
  it('counts payload units of the records PutRecords and PutRecord accepted, and the bytes GetRecords returned', async () => {
    const stream = `metered-${Date.now()}`;
    await createStream(kinesis, stream, 1);
    const meter = meterKinesis(kinesis);
    const big = Buffer.alloc(30 * 1024, 1);
    await meter.client.send(new PutRecordsCommand({ StreamName: stream, Records: [{ PartitionKey: 'a', Data: big }, { PartitionKey: 'b', Data: Buffer.from('hi') }] }));
    await meter.client.send(new PutRecordCommand({ StreamName: stream, PartitionKey: 'c', Data: Buffer.from('x') }));
    expect(meter.usage).toMatchObject({ putRequests: 2, recordsPut: 3, putPayloadUnits: 4, onDemandBytesIn: (31 + 1 + 1) * 1024 });
    const [shard] = await listAllShards(kinesis, stream);
    const it = await meter.client.send(new GetShardIteratorCommand({ StreamName: stream, ShardId: shard!.ShardId!, ShardIteratorType: 'TRIM_HORIZON' }));
    await meter.client.send(new GetRecordsCommand({ ShardIterator: it.ShardIterator! }));
    expect(meter.usage.getRequests).toBe(1);
    expect(meter.usage.bytesOut).toBe(30 * 1024 + 1 + 2 + 1 + 1 + 1);
  });
});

describe('cost model', () => {
  it('prices Managed Flink at 1 KPU + orchestration as ≈ $161/month of KPU-hours, plus storage and the source stream', () => {
    const msf = msfMonthly({ rate: 1000 });
    expect(msf.kpus).toBe(2);
    expect(msf.kpuHours).toBeCloseTo(160.6, 1);
    expect(msf.storage).toBe(10);
    // 1 shard (1,000 records/s of 1 KB) + 1,000 PUT units/s.
    expect(msf.sourceStream).toBeCloseTo(10.95 + 2.628e9 * 0.014e-6, 2);
    expect(msfMonthly({ rate: 100_000 }).kpus).toBe(21);
  });

  it('sizes shards by the per-shard write limits', () => {
    expect([shardsFor(0, 0), shardsFor(1000, 1000 * 1024), shardsFor(1001, 1), shardsFor(10, 3 * 1024 * 1024)]).toEqual([1, 1, 2, 3]);
  });

  it('makes one DynamoDB write unit per event at 1,000 events/s ≈ $1,640/month (issue 17)', () => {
    const usage = { writeUnits: 1000, readUnits: 0, lambdaInvocations: 0, lambdaGbSeconds: 0, exchangePutUnits: 0, sqsRequests: 0, exchanges: [] };
    const month = flambdaMonthly(usage, { rate: 1000 });
    expect(month.dynamoDb).toBeCloseTo(1642.5, 1);
    expect(month.shards).toEqual([1]);
    expect(usdPerMillionEvents(usage)).toBeCloseTo(0.625 + 0.014, 6);
  });
});
