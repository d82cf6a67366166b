/**
 * The error policy on the AWS side, on emulators: records that fail with a data error in an
 * operator (a bad CAST, a division by zero) in the middle of a batch reach the SQS dead-letter
 * queue on their first attempt — with the reason, their Kinesis position, the operator and the
 * raw record — and the shard keeps flowing: every later record reaches the sink, exactly once.
 * Under 'fail' the same record fails its batch on every attempt and nothing after it is committed.
 */
import { Buffer } from 'node:buffer';
import { CreateQueueCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { Message, SQSClient } from '@aws-sdk/client-sqs';
import { PutRecordsCommand } from '@aws-sdk/client-kinesis';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KinesisStreamBatchResponse } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pipeline, call, cast, col } from '../../shared/api/index.ts';
import { StageHandler } from '../../shared/aws/handler/stage-handler.ts';
import { createSqsClient } from '../../shared/aws/stage-input/sqs-client.ts';
import { SqsDeadLetterQueue } from '../../shared/aws/stage-input/sqs-dead-letter-queue.ts';
import { createStateTable } from '../../shared/aws/state/create-state-table.ts';
import type { ErrorPolicy } from '../../shared/core/errors.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import type { Row } from '../../shared/core/types.ts';
import { startMotoServer, type DynamoDbEmulator } from './dynamodb-emulator.ts';
import { createStream } from './kinesis-emulator.ts';
import { drainThroughMapping } from './drain-mapping.ts';
import { useEmulators } from './use-emulators.ts';

let kinesis: KinesisClient;
let dynamoDb: DynamoDBClient;
useEmulators((clients) => ({ kinesis, dynamoDb } = clients));

let moto: DynamoDbEmulator;
let sqs: SQSClient;
beforeAll(async () => {
  moto = await startMotoServer();
  sqs = createSqsClient({ endpoint: moto.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
});
afterAll(async () => {
  sqs?.destroy();
  await moto?.stop();
});

/** Every message in the queue. */
async function received(queueUrl: string): Promise<Message[]> {
  const all: Message[] = [];
  for (let empty = 0; empty < 2; ) {
    const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 300, WaitTimeSeconds: 0 }));
    const got = out.Messages ?? [];
    if (got.length === 0) empty++;
    all.push(...got);
  }
  return all;
}

/** Ids 1..30; id 9 holds 'abc' (bad CAST), id 17 holds '0' (100 / 0). */
function payloads(): string[] {
  return Array.from({ length: 30 }, (_, i) => {
    const id = i + 1;
    return JSON.stringify({ id, v: id === 9 ? 'abc' : id === 17 ? '0' : String(id) });
  });
}

async function runShard(name: string, policy: ErrorPolicy): Promise<{ rows: Row[]; messages: Message[]; sequence: string[]; responses: KinesisStreamBatchResponse[]; handler: StageHandler; errors: unknown[] }> {
  const p = new Pipeline(name, { errorPolicy: policy });
  p.source('ev', { schema: { id: 'INT NOT NULL', v: 'STRING' } })
    .select({ id: 'id', q: call('/', 100, cast(col('v'), 'INT')) })
    .sinkTo('out');
  const graph = p.jobGraph({ parallelism: 1 });
  const stage = graph.stages[0]!;
  const queue = await sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }));
  await Promise.all([createStream(kinesis, `${name}-src`, 1), createStateTable(dynamoDb, `${name}-state`)]);
  const put = await kinesis.send(
    new PutRecordsCommand({ StreamName: `${name}-src`, Records: payloads().map((data, i) => ({ PartitionKey: String(i + 1), Data: Buffer.from(data, 'utf8') })) }),
  );
  const sequence = (put.Records ?? []).map((r) => r.SequenceNumber as string);
  const dlq = new SqsDeadLetterQueue({ client: sqs, queueUrl: queue.QueueUrl as string });
  const rows: Row[] = [];
  const errors: unknown[] = [];
  const handler = new StageHandler({
    graph,
    stageId: stage.id,
    code: { functions: p.userFunctions },
    dynamoDb,
    tableName: `${name}-state`,
    sink: (changes: readonly ChangeRow[]) => changes.forEach((c) => rows.push(c.row)),
    onDeadLetters: async (letters) => void (await dlq.send(letters)),
    onError: (error) => void errors.push(error),
  });
  const responses = await drainThroughMapping(kinesis, `${name}-src`, handler, { batchSize: 10, maximumRetryAttempts: 3 });
  return { rows, messages: await received(queue.QueueUrl as string), sequence, responses, handler, errors };
}

describe('StageHandler: poison records', () => {
  it("dead-letters each record that fails in an operator into SQS on its first attempt; the shard goes on ('dead-letter')", async () => {
    const { rows, messages, sequence, responses, handler } = await runShard('poison', 'dead-letter');
    // Every other record reached the sink once, in order.
    expect(rows.map((r) => r.id)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1).filter((id) => id !== 9 && id !== 17));
    expect(rows.find((r) => r.id === 20)).toEqual({ id: 20, q: 5 });
    // No batch failed: nothing was retried.
    expect(responses.flatMap((r) => r.batchItemFailures)).toEqual([]);
    expect(handler.stats().deadLetters).toBe(2);
    expect(handler.stats().failedBatches).toBe(0);
    const bodies = messages.map((m) => JSON.parse(m.Body as string) as Record<string, unknown>).sort((a, b) => String(a.sequenceNumber).localeCompare(String(b.sequenceNumber)));
    expect(bodies).toHaveLength(2);
    expect(bodies.map((b) => [b.kind, b.sequenceNumber, b.operator])).toEqual([
      ['data-error', sequence[8], expect.stringMatching(/^Calc_/)],
      ['data-error', sequence[16], expect.stringMatching(/^Calc_/)],
    ]);
    expect(bodies[0]!.reason).toContain(`@${sequence[8]}: cannot cast 'abc' to INT in CAST(v AS INT)`);
    expect(bodies[1]!.reason).toContain('division by zero');
    expect(Buffer.from(bodies[0]!.data as string, 'base64').toString('utf8')).toBe('{"id":9,"v":"abc"}');
  }, 90_000);

  it("fails the record's batch on every attempt under 'fail', naming the value; the record never reaches the sink", async () => {
    const { rows, messages, sequence, responses, errors } = await runShard('poison-fail', 'fail');
    expect(rows.some((r) => r.id === 9)).toBe(false);
    // The first batch (ids 1..10, one run of rows) fails whole, from its first record, on every attempt.
    const failures = responses.flatMap((r) => r.batchItemFailures.map((f) => f.itemIdentifier));
    expect(failures.slice(0, 4)).toEqual([sequence[0], sequence[0], sequence[0], sequence[0]]);
    expect(errors.length).toBeGreaterThanOrEqual(4);
    expect((errors[0] as Error).message).toContain(`cannot cast 'abc' to INT in CAST(v AS INT) (poison-fail-src/shardId-000000000000@${sequence[8]}, stage-0 shardId-000000000000, operator Calc_`);
    expect(messages.map((m) => (JSON.parse(m.Body as string) as { kind: string }).kind)).not.toContain('data-error');
  }, 90_000);
});
