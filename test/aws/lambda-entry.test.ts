/**
 * The Lambda entry point (functions/stage-handler.ts) end to end on emulators: the environment
 * points the AWS endpoints at kinesalite and dynalite, the job graph is a file in a temp dir,
 * the module is imported fresh (a cold start) and invoked with a real KinesisStreamEvent built
 * from records put into the source stream and read back. Nexmark q15's first stage (a Calc over
 * bids) writes a 2-shard exchange stream; the test checks the batch response, the bundles in the
 * exchange stream and the EMF lines on stdout; a warm second invocation with a record that is not
 * JSON sends its dead letter to an SQS queue (moto). Also the environment parser and the state
 * request counting.
 */
import { Buffer } from 'node:buffer';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PutRecordsCommand } from '@aws-sdk/client-kinesis';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import { BatchWriteItemCommand, DescribeTableCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, KinesisStreamBatchResponse, KinesisStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Pipeline } from '../../shared/api/pipeline.ts';
import { STAGE_ENV, readStageEnvironment } from '../../shared/aws/env.ts';
import { createContext, toPolledRecord } from '../../shared/aws/esm/kinesis-event.ts';
import type { EventSourceIdentity } from '../../shared/aws/esm/kinesis-event.ts';
import { createSqsClient } from '../../shared/aws/stage-input/sqs-client.ts';
import { countingDynamoDb } from '../../shared/aws/stage-metrics.ts';
import { BundleCodec } from '../../shared/aws/kinesis/bundle-codec.ts';
import { createStateTable } from '../../shared/aws/state/create-state-table.ts';
import { serializeJobGraph } from '../../shared/plan/job-graph.ts';
import type { JobGraph } from '../../shared/plan/job-graph.ts';
import { nexmarkTestData } from '../nexmark/test-data.ts';
import { startDynalite, startMotoServer } from './dynamodb-emulator.ts';
import type { DynamoDbEmulator } from './dynamodb-emulator.ts';
import { createStream, emulatorClient, readShard, readStream, startKinesalite } from './kinesis-emulator.ts';
import type { KinesaliteHandle } from './kinesis-emulator.ts';

const Q15 = resolve(import.meta.dirname, '../../examples/nexmark/q15.ts');
const LINES = 40;

let kinesalite: KinesaliteHandle;
let dynalite: DynamoDbEmulator;
let moto: DynamoDbEmulator;
let sqs: SQSClient;
let kinesis: KinesisClient;
let dynamoDb: DynamoDBClient;
let dir: string;
const savedEnv = { ...process.env };

beforeAll(async () => {
  [kinesalite, dynalite, moto] = await Promise.all([startKinesalite(), startDynalite(), startMotoServer()]);
  kinesis = emulatorClient(kinesalite.endpoint);
  sqs = createSqsClient({ endpoint: moto.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  dynamoDb = dynalite.client();
  dir = mkdtempSync(join(tmpdir(), 'flambda-lambda-entry-'));
});

afterAll(async () => {
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  Object.assign(process.env, savedEnv);
  kinesis?.destroy();
  dynamoDb?.destroy();
  sqs?.destroy();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  await Promise.all([kinesalite?.close(), dynalite?.stop(), moto?.stop()]);
});

/** Runs `body` with everything written to stdout captured (and not printed). */
async function captureStdout<T>(body: () => Promise<T>): Promise<{ result: T; lines: string[] }> {
  const chunks: string[] = [];
  const original = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  }) as typeof process.stdout.write;
  try {
    const result = await body();
    return { result, lines: chunks.join('').split('\n').filter((line) => line.trim().length > 0) };
  } finally {
    process.stdout.write = original;
  }
}

type LambdaHandler = (event: KinesisStreamEvent, context: Context) => Promise<KinesisStreamBatchResponse>;

/** The EMF documents among the captured stdout lines. */
function emfDocuments(lines: readonly string[]): Record<string, unknown>[] {
  return lines.filter((line) => line.includes('"_aws"')).map((line) => JSON.parse(line) as Record<string, unknown>);
}

const identity: EventSourceIdentity = {
  streamArn: 'arn:aws:kinesis:us-east-1:123456789012:stream/bids',
  region: 'us-east-1',
  roleArn: 'arn:aws:iam::123456789012:role/stage',
};

/** The event of the shard's records from index `from` on, read back from the stream. */
async function eventOf(streamName: string, shardId: string, from: number): Promise<KinesisStreamEvent> {
  const records = (await readShard(kinesis, streamName, shardId)).slice(from);
  return {
    Records: records.map(
      (r) => toPolledRecord({ SequenceNumber: r.sequenceNumber, PartitionKey: r.partitionKey, Data: r.data, ApproximateArrivalTimestamp: new Date() }, shardId, identity).event,
    ),
  };
}

describe('functions/stage-handler.ts on kinesalite and dynalite', () => {
  it('processes a Kinesis event, writes the exchange stream and publishes EMF metrics', async () => {
    const pipeline = ((await import(Q15)) as { default: Pipeline }).default;
    const planned = pipeline.jobGraph({ parallelism: 2 });
    const graph: JobGraph = {
      ...planned,
      sources: planned.sources.map((s) => ({ ...s, parallelism: 1 })),
      stages: planned.stages.map((s) => (s.input.type === 'source' ? { ...s, parallelism: 1 } : s)),
    };
    const [stage0, stage1] = graph.stages as [JobGraph['stages'][number], JobGraph['stages'][number]];
    expect([stage0.input.type, stage0.output.type]).toEqual(['source', 'exchange']);
    const graphPath = join(dir, 'job-graph.json');
    writeFileSync(graphPath, serializeJobGraph(graph));
    await Promise.all([createStream(kinesis, 'bids', 1), createStream(kinesis, 'exchange', 2), createStateTable(dynamoDb, 'state')]);

    const lines = nexmarkTestData().bidLines.slice(0, LINES);
    const put = await kinesis.send(
      new PutRecordsCommand({ StreamName: 'bids', Records: lines.map((line, i) => ({ PartitionKey: String(i + 1), Data: Buffer.from(line, 'utf8') })) }),
    );
    expect(put.FailedRecordCount ?? 0).toBe(0);
    const shardId = put.Records?.[0]?.ShardId as string;
    const event = await eventOf('bids', shardId, 0);
    expect(event.Records).toHaveLength(LINES);
    const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'stage-dlq' }))).QueueUrl as string;

    Object.assign(process.env, {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_ENDPOINT_URL_KINESIS: kinesalite.endpoint,
      AWS_ENDPOINT_URL_DYNAMODB: dynalite.endpoint,
      AWS_ENDPOINT_URL_SQS: moto.endpoint,
      [STAGE_ENV.deadLetterQueueUrl]: queueUrl,
      [STAGE_ENV.jobGraphPath]: graphPath,
      [STAGE_ENV.stageId]: stage0.id,
      [STAGE_ENV.stateTable]: 'state',
      [STAGE_ENV.outputStreams]: JSON.stringify({ [stage1.id]: 'exchange' }),
      [STAGE_ENV.pipelineModule]: Q15,
    });
    delete process.env.POWERTOOLS_DEV;
    delete process.env.POWERTOOLS_METRICS_DISABLED;
    vi.resetModules();
    const context: Context = createContext({
      functionName: 'q15-stage-0',
      functionArn: 'arn:aws:lambda:us-east-1:123456789012:function:q15-stage-0',
      timeoutMs: 60_000,
      requestId: 'c6af9ac6-7b61-11e6-9a41-93e812345678',
    });
    let handler: LambdaHandler | undefined;
    const { result, lines: stdout } = await captureStdout(async () => {
      handler = ((await import('../../functions/stage-handler.ts')) as { handler: LambdaHandler }).handler;
      return handler(event, context);
    });
    expect(result).toEqual({ batchItemFailures: [] });

    const codec = new BundleCodec(stage1.inputSchema);
    const exchange = await readStream(kinesis, 'exchange');
    const rows = [...exchange.values()].flat().map((r) => codec.decode(r.data)).reduce((n, rec) => n + (rec.type === 'rows' ? rec.rows.length : 0), 0);
    expect(rows).toBe(LINES);

    const emf = emfDocuments(stdout);
    expect(emf).toHaveLength(1);
    const doc = emf[0] as Record<string, unknown> & { _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] } };
    const directive = doc._aws.CloudWatchMetrics[0]!;
    expect(directive.Namespace).toBe('Flambda');
    expect(directive.Dimensions.flat()).toEqual(expect.arrayContaining(['Pipeline', 'Stage']));
    expect(doc.Pipeline).toBe(graph.name);
    expect(doc.Stage).toBe(stage0.id);
    expect(directive.Metrics.map((m) => m.Name).sort()).toEqual(
      [
        'BatchDurationMs',
        'DeadLettered',
        'FailedBatches',
        'RecordsIn',
        'RecordsOut',
        'StateReads',
        'StateWrites',
        'LateRecords',
        'StateCacheHits',
        'StateCacheMisses',
        'LookupCacheHits',
        'LookupCacheMisses',
        'Replays',
        'SkippedRanges',
        'WatermarkLagMs',
        'LookupL2Hits',
        'LookupSourceLoads',
        'LookupLoads',
        'LookupLoadTimeMs',
        'LookupCacheEvictions',
      ].sort(),
    );
    // Event time trails processing time: the bids are from the past.
    expect(doc.WatermarkLagMs).toBeGreaterThan(0);
    expect(doc).toMatchObject({ LateRecords: 0, StateCacheHits: 0, StateCacheMisses: 0, Replays: 0, SkippedRanges: 0 });
    expect(doc).toMatchObject({ RecordsIn: LINES, RecordsOut: LINES, DeadLettered: 0, FailedBatches: 0 });
    expect(doc.BatchDurationMs).toBeGreaterThan(0);
    // A Calc stage keeps no state.
    expect(doc).toMatchObject({ StateReads: 0, StateWrites: 0 });

    // A warm invocation with a record that is not JSON: dead-lettered to SQS, counted in the EMF.
    await kinesis.send(new PutRecordsCommand({ StreamName: 'bids', Records: [{ PartitionKey: 'x', Data: Buffer.from('not json', 'utf8') }] }));
    const poison = await eventOf('bids', shardId, LINES);
    expect(poison.Records).toHaveLength(1);
    const warm = await captureStdout(() => (handler as LambdaHandler)(poison, context));
    expect(warm.result).toEqual({ batchItemFailures: [] });
    const [warmDoc] = emfDocuments(warm.lines);
    expect(warmDoc).toMatchObject({ RecordsIn: 1, RecordsOut: 0, DeadLettered: 1, FailedBatches: 0 });
    const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'] }));
    expect(received.Messages).toHaveLength(1);
    const letter = JSON.parse(received.Messages?.[0]?.Body ?? '{}') as Record<string, unknown>;
    expect(letter).toMatchObject({ stage: stage0.id, shardId, sequenceNumber: poison.Records[0]!.kinesis.sequenceNumber });
  });
});

describe('readStageEnvironment', () => {
  const base = { [STAGE_ENV.stageId]: 's0', [STAGE_ENV.stateTable]: 'table' };

  it('defaults the graph path next to the handler and parses the output streams', () => {
    const env = readStageEnvironment({ ...base, [STAGE_ENV.outputStreams]: '{"s1":"ex"}', [STAGE_ENV.deadLetterQueueUrl]: 'https://sqs/q' }, '/var/task');
    expect(env).toEqual({
      jobGraphPath: '/var/task/job-graph.json',
      stageId: 's0',
      tableName: 'table',
      outputStreams: new Map([['s1', 'ex']]),
      deadLetterQueueUrl: 'https://sqs/q',
      pipelineModule: undefined,
      sinkTargets: new Map(),
    });
  });

  it('names the missing or invalid variable', () => {
    expect(() => readStageEnvironment({ [STAGE_ENV.stateTable]: 't' })).toThrow(STAGE_ENV.stageId);
    expect(() => readStageEnvironment({ [STAGE_ENV.stageId]: 's0', [STAGE_ENV.stateTable]: ' ' })).toThrow(STAGE_ENV.stateTable);
    expect(() => readStageEnvironment({ ...base, [STAGE_ENV.outputStreams]: '{' })).toThrow(STAGE_ENV.outputStreams);
    expect(() => readStageEnvironment({ ...base, [STAGE_ENV.outputStreams]: '{"s1":3}' })).toThrow(STAGE_ENV.outputStreams);
  });
});

describe('countingDynamoDb', () => {
  it('counts Query as state reads and BatchWriteItem as state writes, and forwards every call', async () => {
    const sent: unknown[] = [];
    const { client, counts } = countingDynamoDb({ send: (async (command: unknown) => void sent.push(command)) as DynamoDBClient['send'] });
    await client.send(new QueryCommand({ TableName: 't' }));
    await client.send(new QueryCommand({ TableName: 't' }));
    await client.send(new BatchWriteItemCommand({ RequestItems: {} }));
    await client.send(new DescribeTableCommand({ TableName: 't' }));
    expect(counts).toEqual({ reads: 2, writes: 1 });
    expect(sent).toHaveLength(4);
  });
});
