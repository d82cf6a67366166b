import { Buffer } from 'node:buffer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateQueueCommand, PurgeQueueCommand, ReceiveMessageCommand, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { Message, SQSClient, SendMessageBatchCommandInput, SendMessageBatchCommandOutput } from '@aws-sdk/client-sqs';
import { createSqsClient } from '../../shared/aws/stage-input/sqs-client.ts';
import { MAX_SQS_MESSAGE_BYTES, SqsDeadLetterQueue, deadLetterMessage } from '../../shared/aws/stage-input/sqs-dead-letter-queue.ts';
import type { SqsDeadLetterQueueOptions } from '../../shared/aws/stage-input/sqs-dead-letter-queue.ts';
import { SourceInputReader } from '../../shared/aws/stage-input/source-reader.ts';
import type { DeadLetter, DeadLetterStep } from '../../shared/aws/stage-input/types.ts';
import { FlambdaError, PlanError, TransientError } from '../../shared/core/errors.ts';
import { schemaOf } from '../../shared/core/type-parse.ts';
import { startMotoServer } from './dynamodb-emulator.ts';
import type { DynamoDbEmulator } from './dynamodb-emulator.ts';
import { STREAM, kinesisRecord, seq } from './stage-input-fixtures.ts';

const SHARD = 'shardId-000000000004';

let moto: DynamoDbEmulator;
let client: SQSClient;
let queueCounter = 0;

beforeAll(async () => {
  moto = await startMotoServer();
  client = createSqsClient({ endpoint: moto.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
});

afterAll(async () => {
  client?.destroy();
  await moto?.stop();
});

async function newQueue(fifo = false): Promise<string> {
  const name = `dlq-${++queueCounter}${fifo ? '.fifo' : ''}`;
  const out = await client.send(new CreateQueueCommand({ QueueName: name, Attributes: fifo ? { FifoQueue: 'true' } : {} }));
  return out.QueueUrl as string;
}

/** Every message in the queue (they stay invisible once received). */
async function drain(queueUrl: string): Promise<Message[]> {
  const all: Message[] = [];
  for (let empty = 0; empty < 2; ) {
    const out = await client.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'], VisibilityTimeout: 300, WaitTimeSeconds: 0 }),
    );
    const got = out.Messages ?? [];
    if (got.length === 0) empty++;
    all.push(...got);
  }
  return all;
}

/** Real dead letters from a source reader: records 1..n, every one schema-invalid. */
function letters(n: number, payload = 'x'): DeadLetter[] {
  const reader = new SourceInputReader({ stage: 'stage-0', shardId: SHARD, schema: schemaOf({ id: 'BIGINT NOT NULL' }) });
  const records = Array.from({ length: n }, (_, i) =>
    kinesisRecord({ data: { id: `${payload}${i}` }, shardId: SHARD, n: i + 1, arrivalMs: 1_700_000_000_000 + i, partitionKey: `user-${i}` }),
  );
  return reader
    .read(records)
    .steps.filter((s): s is DeadLetterStep => s.type === 'dead-letter')
    .map((s) => s.letter);
}

/** A letter with `bytes` of data, not truncated by a reader. */
function bigLetter(bytes: number, n = 1): DeadLetter {
  const data = Buffer.alloc(bytes, 0x61);
  data[0] = 0x7b;
  return {
    kind: 'undecodable',
    reason: `${SHARD}@${seq(n)}: invalid JSON`,
    stage: 'stage-0',
    stream: STREAM,
    shardId: SHARD,
    sequenceNumber: seq(n),
    approximateArrivalTimestamp: 1_700_000_000_000,
    partitionKey: 'pk',
    data: data.toString('base64'),
    dataBytes: bytes,
    truncated: false,
  };
}

type Send = (command: unknown) => Promise<unknown>;

/** A client whose `send` goes through `intercept` (given the real send). */
function wrapped(intercept: (command: unknown, send: Send) => Promise<unknown>): SQSClient {
  const real = client.send.bind(client) as unknown as Send;
  const wrapper = Object.create(client) as SQSClient;
  (wrapper as unknown as { send: Send }).send = (command) => intercept(command, real);
  return wrapper;
}

function dlq(queueUrl: string, options: Partial<SqsDeadLetterQueueOptions> = {}): SqsDeadLetterQueue {
  return new SqsDeadLetterQueue({ client, queueUrl, baseDelayMs: 1, maxDelayMs: 4, ...options });
}

describe('Class: SqsDeadLetterQueue', () => {
  it('sends letters 10 per call; each message carries the reason, stream, shard and sequence number', async () => {
    const queueUrl = await newQueue();
    const sent = letters(23);
    expect(sent).toHaveLength(23);
    const stats = await dlq(queueUrl).send(sent);
    expect(stats).toEqual({ messages: 23, calls: 3, retriedEntries: 0, cutToFit: 0 });
    const messages = await drain(queueUrl);
    expect(messages).toHaveLength(23);
    const bodies = messages.map((m) => JSON.parse(m.Body as string) as Record<string, unknown>).sort((a, b) => String(a['sequenceNumber']).localeCompare(String(b['sequenceNumber'])));
    expect(bodies[0]).toEqual({
      kind: 'schema-invalid',
      reason: `${SHARD}@${seq(1)}: field 'id' (BIGINT NOT NULL): expected an integer, got "x0"`,
      stage: 'stage-0',
      stream: STREAM,
      shardId: SHARD,
      sequenceNumber: seq(1),
      approximateArrivalTimestamp: 1_700_000_000_000,
      partitionKey: 'user-0',
      dataBytes: 11,
      dataTruncated: false,
      data: Buffer.from('{"id":"x0"}').toString('base64'),
    });
    const attributes = messages.find((m) => m.MessageAttributes?.['sequenceNumber']?.StringValue === seq(7))?.MessageAttributes;
    expect(attributes).toEqual({
      kind: { DataType: 'String', StringValue: 'schema-invalid' },
      stage: { DataType: 'String', StringValue: 'stage-0' },
      stream: { DataType: 'String', StringValue: STREAM },
      shardId: { DataType: 'String', StringValue: SHARD },
      sequenceNumber: { DataType: 'String', StringValue: seq(7) },
    });
  });

  it('cuts data that does not fit 256 KiB, says so in the message, and packs calls within 256 KiB', async () => {
    const queueUrl = await newQueue();
    const big = bigLetter(300_000);
    const message = deadLetterMessage(big);
    expect(message.bytes).toBeLessThanOrEqual(MAX_SQS_MESSAGE_BYTES);
    expect(message.bytes).toBeGreaterThan(MAX_SQS_MESSAGE_BYTES - 8);
    const stats = await dlq(queueUrl).send([big, bigLetter(300_000, 2), ...letters(3)]);
    expect(stats).toMatchObject({ messages: 5, cutToFit: 2 });
    // A near-limit message fills a call's 256 KiB on its own; the small ones share the third.
    expect(stats.calls).toBe(3);
    const [received] = (await drain(queueUrl)).filter((m) => m.MessageAttributes?.['sequenceNumber']?.StringValue === seq(1) && m.Body?.includes('"undecodable"'));
    const body = JSON.parse(received?.Body as string) as Record<string, unknown>;
    const shown = Buffer.from(body['data'] as string, 'base64');
    expect(body).toMatchObject({ dataBytes: 300_000, dataTruncated: true });
    expect(body['dataNote']).toBe(
      `data holds the first ${shown.length} of the record's 300000 bytes (base64), cut to fit the dead-letter message; ` +
        `the whole record is in stream ${STREAM}, shard ${SHARD}, at sequence number ${seq(1)} until the stream's retention period ends`,
    );
    expect(shown.equals(Buffer.from(big.data, 'base64').subarray(0, shown.length))).toBe(true);
    expect(shown.length).toBeGreaterThan(190_000);
  });

  it('notes data a reader already truncated', () => {
    const [letter] = letters(1, 'q'.repeat(300));
    const cut = { ...(letter as DeadLetter), data: (letter as DeadLetter).data.slice(0, 8), truncated: true };
    const body = JSON.parse(deadLetterMessage(cut).body) as Record<string, unknown>;
    expect(body).toMatchObject({ dataTruncated: true, dataBytes: 310 });
    expect(body['dataNote']).toMatch(/^data holds the first 6 of the record's 310 bytes/);
  });

  it('retries only the entries that failed, with backoff, until all arrive once', async () => {
    const queueUrl = await newQueue();
    const calls: string[][] = [];
    const sleeps: number[] = [];
    let failNext = true;
    const flaky = wrapped(async (command, send) => {
      if (!(command instanceof SendMessageBatchCommand)) return send(command);
      const input = command.input as SendMessageBatchCommandInput;
      const ids = (input.Entries ?? []).map((e) => e.Id as string);
      calls.push(ids);
      if (!failNext) return send(command);
      failNext = false;
      // Odd entries are throttled; the rest go through for real.
      const through = (input.Entries ?? []).filter((_, i) => i % 2 === 0);
      const out = (await send(new SendMessageBatchCommand({ ...input, Entries: through }))) as SendMessageBatchCommandOutput;
      return {
        ...out,
        Failed: ids.filter((_, i) => i % 2 === 1).map((Id) => ({ Id, SenderFault: false, Code: 'RequestThrottled', Message: 'slow down' })),
      };
    });
    const stats = await dlq(queueUrl, { client: flaky, random: () => 0.5, sleep: async (ms) => void sleeps.push(ms) }).send(letters(6));
    expect(calls).toEqual([
      ['m0', 'm1', 'm2', 'm3', 'm4', 'm5'],
      ['m1', 'm3', 'm5'],
    ]);
    expect(sleeps).toEqual([0]);
    expect(stats).toEqual({ messages: 6, calls: 2, retriedEntries: 3, cutToFit: 0 });
    const seqs = (await drain(queueUrl)).map((m) => m.MessageAttributes?.['sequenceNumber']?.StringValue).sort();
    expect(seqs).toEqual([1, 2, 3, 4, 5, 6].map(seq));
  });

  it('retries a whole call that failed retryably', async () => {
    const queueUrl = await newQueue();
    let first = true;
    const flaky = wrapped(async (command, send) => {
      if (command instanceof SendMessageBatchCommand && first) {
        first = false;
        throw Object.assign(new Error('service unavailable'), { name: 'ServiceUnavailable', $metadata: { httpStatusCode: 503 } });
      }
      return send(command);
    });
    const stats = await dlq(queueUrl, { client: flaky }).send(letters(2));
    expect(stats).toMatchObject({ messages: 2, calls: 2, retriedEntries: 2 });
    expect(await drain(queueUrl)).toHaveLength(2);
  });

  it('gives up with a TransientError after maxAttempts, so the handler fails the batch', async () => {
    const queueUrl = await newQueue();
    const sleeps: number[] = [];
    const stuck = wrapped(async (command, send) => {
      if (!(command instanceof SendMessageBatchCommand)) return send(command);
      const input = command.input as SendMessageBatchCommandInput;
      const [head, ...rest] = input.Entries ?? [];
      const out = rest.length > 0 ? ((await send(new SendMessageBatchCommand({ ...input, Entries: rest }))) as SendMessageBatchCommandOutput) : { Successful: [] };
      return { ...out, Failed: [{ Id: head?.Id, SenderFault: false, Code: 'InternalError', Message: 'try again' }] };
    });
    const error = await dlq(queueUrl, { client: stuck, maxAttempts: 4, random: () => 1, sleep: async (ms) => void sleeps.push(ms) })
      .send(letters(3))
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({ retry: 'retry', domain: 'external' });
    expect((error as Error).message).toBe(
      `SendMessageBatch to ${queueUrl}: the dead letter of ${SHARD}@${seq(1)} failed 4 times (last: InternalError: try again); 2 of 3 letters were sent before giving up`,
    );
    expect(sleeps).toEqual([1, 2, 4]);
  });

  it('stops on an entry rejected as the sender’s fault, and on a non-retryable call error', async () => {
    const queueUrl = await newQueue();
    const rejecting = wrapped(async (command, send) => {
      if (!(command instanceof SendMessageBatchCommand)) return send(command);
      return { Successful: [], Failed: [{ Id: 'm0', SenderFault: true, Code: 'InvalidMessageContents', Message: 'bad' }] };
    });
    const error = await dlq(queueUrl, { client: rejecting }).send(letters(1)).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(FlambdaError);
    expect(error).toMatchObject({ retry: 'fail' });
    const missing = await dlq(queueUrl.replace(/dlq-\d+$/, 'no-such-queue'))
      .send(letters(1))
      .catch((err: unknown) => err);
    expect(missing).toBeInstanceOf(FlambdaError);
    expect(missing).not.toBeInstanceOf(TransientError);
    expect(missing).toMatchObject({ retry: 'fail', domain: 'external' });
  });

  it('deduplicates a letter sent twice to a FIFO queue', async () => {
    const queueUrl = await newQueue(true);
    const sent = letters(2);
    await dlq(queueUrl).send(sent);
    await dlq(queueUrl).send(sent);
    const messages = await drain(queueUrl);
    expect(messages.map((m) => m.MessageAttributes?.['sequenceNumber']?.StringValue).sort()).toEqual([seq(1), seq(2)]);
    await client.send(new PurgeQueueCommand({ QueueUrl: queueUrl }));
  });

  it('makes no call for no letters', async () => {
    expect(await dlq('http://127.0.0.1:1/unused').send([])).toEqual({ messages: 0, calls: 0, retriedEntries: 0, cutToFit: 0 });
  });

  it('validates its options', () => {
    expect(() => dlq('')).toThrow(PlanError);
    expect(() => dlq('u', { maxMessageBytes: 300_000 })).toThrow('maxMessageBytes must be an integer 16384..262144 (given 300000)');
    expect(() => dlq('u', { maxAttempts: 0 })).toThrow('maxAttempts must be an integer 1..100 (given 0)');
    expect(() => dlq('u', { baseDelayMs: 10, maxDelayMs: 5 })).toThrow(PlanError);
  });
});
