/**
 * D1 end to end: a stage handler fed by the local event source mapping with a finite
 * MaximumRetryAttempts (and, in the second case, a MaximumRecordAgeInSeconds) and an SQS
 * on-failure destination. The sink keeps failing for one batch after its range was announced
 * (as a denied or missing sink table, or an item over 400 KB, would), so the mapping discards
 * that batch. The next event then starts after the announced range: the handler must settle it
 * (SkippedRanges, a `skipped-range` letter in the dead-letter queue, `pending` cleared) and go
 * on, so every later record of the shard still reaches the sink exactly once — instead of every
 * later event failing with "must replay its announced range first".
 *
 * Kinesis and DynamoDB are kinesalite and dynalite; both queues are SQS queues on moto_server.
 */
import { Buffer } from 'node:buffer';
import { PutRecordsCommand } from '@aws-sdk/client-kinesis';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pipeline } from '../../shared/api/index.ts';
import { CheckpointStore } from '../../shared/aws/checkpoint/checkpoint-store.ts';
import { LocalEventSourceMapping } from '../../shared/aws/esm/local-event-source-mapping.ts';
import { sqsOnFailureDestination } from '../../shared/aws/esm/on-failure-destination.ts';
import type { KinesisOnFailureRecord, LocalEventSourceMappingOptions } from '../../shared/aws/esm/types.ts';
import { StageHandler } from '../../shared/aws/handler/stage-handler.ts';
import type { CommitPolicy } from '../../shared/aws/handler/stage-handler.ts';
import { createSqsClient } from '../../shared/aws/stage-input/sqs-client.ts';
import { SqsDeadLetterQueue } from '../../shared/aws/stage-input/sqs-dead-letter-queue.ts';
import { createStateTable } from '../../shared/aws/state/create-state-table.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import { startDynalite, startMotoServer } from './dynamodb-emulator.ts';
import type { DynamoDbEmulator } from './dynamodb-emulator.ts';
import { createStream, emulatorClient, startKinesalite } from './kinesis-emulator.ts';
import type { KinesaliteHandle } from './kinesis-emulator.ts';

let kinesalite: KinesaliteHandle;
let dynalite: DynamoDbEmulator;
let moto: DynamoDbEmulator;
let kinesis: KinesisClient;
let dynamoDb: DynamoDBClient;
let sqs: SQSClient;

beforeAll(async () => {
  [kinesalite, dynalite, moto] = await Promise.all([startKinesalite(), startDynalite(), startMotoServer()]);
  kinesis = emulatorClient(kinesalite.endpoint);
  dynamoDb = dynalite.client();
  sqs = createSqsClient({ endpoint: moto.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
});

afterAll(async () => {
  kinesis?.destroy();
  dynamoDb?.destroy();
  sqs?.destroy();
  await Promise.all([kinesalite?.close(), dynalite?.stop(), moto?.stop()]);
});

/** The id whose batch the sink can never write. */
const POISON_ID = 13;

/** A one-stage pipeline: source `ev` → sink `out`. */
function pipeline(): Pipeline {
  const p = new Pipeline('skipped-range');
  p.source('ev', { schema: { id: 'INT NOT NULL' } }).sinkTo('out');
  return p;
}

/** Puts `{id}` records in order, in one call; returns their sequence numbers by id. */
async function put(stream: string, ids: readonly number[]): Promise<Map<number, string>> {
  const out = await kinesis.send(new PutRecordsCommand({ StreamName: stream, Records: ids.map((id) => ({ PartitionKey: String(id), Data: Buffer.from(JSON.stringify({ id }), 'utf8') })) }));
  return new Map(ids.map((id, i) => [id, out.Records?.[i]?.SequenceNumber as string]));
}

/** Every message of a queue, bodies parsed (moto returns at most 10 per receive). */
async function drainQueue(queueUrl: string): Promise<Record<string, unknown>[]> {
  const bodies: Record<string, unknown>[] = [];
  for (;;) {
    const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 600 }));
    const messages = out.Messages ?? [];
    if (messages.length === 0) return bodies;
    for (const m of messages) bodies.push(JSON.parse(m.Body ?? '{}') as Record<string, unknown>);
  }
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

interface Scenario {
  readonly name: string;
  readonly handler: StageHandler;
  readonly rows: number[];
  readonly dlqUrl: string;
  readonly onFailureUrl: string;
  readonly esm: (options: Partial<LocalEventSourceMappingOptions>) => LocalEventSourceMapping;
}

/** A stream, state table, two queues, a stage handler whose sink refuses the poison id, and a mapping factory. */
async function scenario(name: string, commit?: CommitPolicy): Promise<Scenario> {
  const p = pipeline();
  const planned = p.jobGraph({ parallelism: 1 });
  const graph = { ...planned, stages: planned.stages.map((s) => ({ ...s, parallelism: 1 })), sources: planned.sources.map((s) => ({ ...s, parallelism: 1 })) };
  const [stage] = graph.stages;
  if (stage === undefined || stage.output.type !== 'sink') throw new Error('expected one sink stage');
  await Promise.all([createStream(kinesis, name, 1), createStateTable(dynamoDb, `${name}-state`)]);
  const [dlq, failures] = await Promise.all([
    sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq` })),
    sqs.send(new CreateQueueCommand({ QueueName: `${name}-esm-failures` })),
  ]);
  const dlqUrl = dlq.QueueUrl as string;
  const onFailureUrl = failures.QueueUrl as string;
  const deadLetters = new SqsDeadLetterQueue({ client: sqs, queueUrl: dlqUrl });
  const rows: number[] = [];
  const handler = new StageHandler({
    graph,
    stageId: stage.id,
    code: { functions: p.userFunctions },
    dynamoDb,
    tableName: `${name}-state`,
    sink: (batch: readonly ChangeRow[]) => {
      if (batch.some((r) => r.row.id === POISON_ID)) throw new Error('ValidationException: Item size has exceeded the maximum allowed size');
      for (const r of batch) rows.push(r.row.id as number);
    },
    onDeadLetters: async (letters) => void (await deadLetters.send(letters)),
    onError: () => undefined,
    // Under commit intervals the handler re-reads its shard after a failure (and asks it whether a record follows an event).
    // A short lease: the container keeps its shard between invocations, and the test's own look at the checkpoint waits for it.
    ...(commit === undefined ? {} : { commit, kinesis, checkpoint: { leaseMs: 2_000 } }),
  });
  const esm = (options: Partial<LocalEventSourceMappingOptions>): LocalEventSourceMapping =>
    new LocalEventSourceMapping({
      client: kinesis,
      streamName: name,
      startingPosition: 'TRIM_HORIZON',
      batchSize: 5,
      pollIntervalMs: 10,
      shardDiscoveryIntervalMs: 50,
      retryDelayMs: 20,
      reportBatchItemFailures: true,
      onFailure: sqsOnFailureDestination({ client: sqs, queueUrl: onFailureUrl }),
      handler: (event) => handler.handle(event),
      ...options,
    });
  return { name, handler, rows, dlqUrl, onFailureUrl, esm };
}

/** The checkpoint of the scenario's only shard, as the next invocation would find it. */
async function checkpointOf(s: Scenario): Promise<{ pending: unknown }> {
  const store = new CheckpointStore({ client: dynamoDb, tableName: `${s.name}-state`, stage: s.handler.stage.id, shardId: 'shardId-000000000000' });
  const checkpoint = await store.fence(Date.now() + 10_000);
  await store.release(undefined);
  return checkpoint;
}

describe('a skipped announced range does not wedge its shard (D1)', () => {
  it('after MaximumRetryAttempts: the range is settled and every later record still reaches the sink once', async () => {
    const s = await scenario('skip-retries');
    const seq = await put(s.name, range(1, 30));
    const esm = s.esm({ maximumRetryAttempts: 2 });
    try {
      await esm.start();
      await esm.drain({ timeoutMs: 30_000 });
    } finally {
      await esm.stop();
    }

    // Batches of 5: 11..15 holds the poison id and was discarded; everything else arrived once.
    expect(s.rows).toEqual([...range(1, 10), ...range(16, 30)]);
    expect(s.handler.stats()).toMatchObject({ skippedRanges: 1, failedBatches: 3 });
    expect(esm.stats()).toMatchObject({ failures: 1, discardedRecords: 5 });
    expect((await checkpointOf(s)).pending).toBeUndefined();

    // The mapping's own on-failure record, as Lambda sends it to an SQS destination.
    const [failure, ...moreFailures] = (await drainQueue(s.onFailureUrl)) as unknown as KinesisOnFailureRecord[];
    expect(moreFailures).toEqual([]);
    expect(failure?.requestContext).toMatchObject({ condition: 'RetryAttemptsExhausted', approximateInvokeCount: 3 });
    expect(failure?.KinesisBatchInfo).toMatchObject({ shardId: 'shardId-000000000000', startSequenceNumber: seq.get(11), endSequenceNumber: seq.get(15), batchSize: 5 });

    // The handler's letter for the announced range it could not replay.
    const letters = await drainQueue(s.dlqUrl);
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ kind: 'skipped-range', stream: s.name, shardId: 'shardId-000000000000', sequenceNumber: seq.get(11), lastSequenceNumber: seq.get(15), dataBytes: 0 });
    expect(String(letters[0]?.reason)).toContain(`resumed at ${seq.get(16)}`);
  });

  it('under commit intervals: the whole interval of the discarded batch is settled, once, and later records reach the sink once', async () => {
    const s = await scenario('skip-interval', { everyBatches: 3, intervalMs: 600_000 });
    const seq = await put(s.name, range(1, 30));
    const esm = s.esm({ maximumRetryAttempts: 2 });
    try {
      await esm.start();
      await esm.drain({ timeoutMs: 30_000 });
    } finally {
      await esm.stop();
    }

    // 1..5 commits alone (a shard's first commit); 6..10 and 11..15 are held, 16..20 closes the
    // interval 6..20, whose sink call fails (id 13). Every retry of 16..20 re-reads 6..15 from the
    // stream and replays 6..20 whole; once the mapping discards 16..20, the next event (21..25)
    // settles 6..20 and commits; 26..30 is the stream's end, so it commits at once.
    expect(s.rows).toEqual([...range(1, 5), ...range(21, 30)]);
    expect(s.handler.stats()).toMatchObject({ skippedRanges: 1, failedBatches: 3, deferredBatches: 2, commits: 3, catchUpRecords: 20, maxCatchUpRecords: 10 });
    expect(esm.stats()).toMatchObject({ failures: 1, discardedRecords: 5 });
    expect((await checkpointOf(s)).pending).toBeUndefined();
    const letters = await drainQueue(s.dlqUrl);
    expect(letters.map((l) => [l.kind, l.sequenceNumber, l.lastSequenceNumber])).toEqual([['skipped-range', seq.get(6), seq.get(20)]]);
    expect(String(letters[0]?.reason)).toContain(`resumed at ${seq.get(21)}`);
  });

  it('after MaximumRecordAgeInSeconds: records that expired while their batch kept failing are settled the same way', async () => {
    const s = await scenario('skip-age');
    const seq = await put(s.name, range(1, 15));
    const esm = s.esm({ maximumRetryAttempts: -1, maximumRecordAgeMs: 1_500 });
    try {
      await esm.start();
      // The batch 11..15 fails until its records are older than the maximum age.
      const deadline = Date.now() + 20_000;
      while (esm.stats().failures === 0) {
        if (Date.now() > deadline) throw new Error(`the failing batch was never discarded: ${JSON.stringify(esm.stats())}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const later = await put(s.name, range(16, 30));
      for (const [id, sequenceNumber] of later) seq.set(id, sequenceNumber);
      await esm.drain({ timeoutMs: 30_000 });
    } finally {
      await esm.stop();
    }

    expect(s.rows).toEqual([...range(1, 10), ...range(16, 30)]);
    expect(s.handler.stats().skippedRanges).toBe(1);
    expect((await checkpointOf(s)).pending).toBeUndefined();
    const [failure] = (await drainQueue(s.onFailureUrl)) as unknown as KinesisOnFailureRecord[];
    expect(failure?.requestContext.condition).toBe('RecordAgeExceeded');
    expect(failure?.KinesisBatchInfo).toMatchObject({ startSequenceNumber: seq.get(11), endSequenceNumber: seq.get(15) });
    const letters = await drainQueue(s.dlqUrl);
    expect(letters.map((l) => [l.kind, l.sequenceNumber, l.lastSequenceNumber])).toEqual([['skipped-range', seq.get(11), seq.get(15)]]);
  });
});
