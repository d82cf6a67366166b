/**
 * D9: dead letters go to the configured endpoint. A cdklocal deployment hands each function the
 * queue URL CloudFormation returns on an emulator (`https://sqs.us-east-1.amazonaws.com/…`) and
 * the endpoint in AWS_ENDPOINT_URL; createSqsClient must send to the endpoint (moto_server here),
 * where the SDK's default would send to the host in the queue URL.
 */
import { CreateQueueCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configuredSqsEndpoint, createSqsClient } from '../../shared/aws/stage-input/sqs-client.ts';
import { startMotoServer } from './dynamodb-emulator.ts';
import type { DynamoDbEmulator } from './dynamodb-emulator.ts';

let moto: DynamoDbEmulator;
const saved = { ...process.env };
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

beforeAll(async () => {
  moto = await startMotoServer();
});

afterAll(async () => {
  for (const key of ['AWS_ENDPOINT_URL', 'AWS_ENDPOINT_URL_SQS', 'AWS_IGNORE_CONFIGURED_ENDPOINT_URLS']) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
  await moto?.stop();
});

describe('configuredSqsEndpoint', () => {
  it('reads AWS_ENDPOINT_URL_SQS, then AWS_ENDPOINT_URL, unless configured endpoints are ignored', () => {
    expect(configuredSqsEndpoint({})).toBeUndefined();
    expect(configuredSqsEndpoint({ AWS_ENDPOINT_URL: 'http://localhost:1' })).toBe('http://localhost:1');
    expect(configuredSqsEndpoint({ AWS_ENDPOINT_URL: 'http://localhost:1', AWS_ENDPOINT_URL_SQS: 'http://localhost:2' })).toBe('http://localhost:2');
    expect(configuredSqsEndpoint({ AWS_ENDPOINT_URL: 'http://localhost:1', AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'true' })).toBeUndefined();
    expect(configuredSqsEndpoint({ AWS_ENDPOINT_URL: ' ' })).toBeUndefined();
  });
});

describe('createSqsClient', () => {
  it('sends to the endpoint in AWS_ENDPOINT_URL even when the queue URL names the AWS host', async () => {
    process.env.AWS_ENDPOINT_URL = moto.endpoint.replace('127.0.0.1', 'localhost');
    const client = createSqsClient({ region: 'us-east-1', credentials });
    try {
      await client.send(new CreateQueueCommand({ QueueName: 'd9' }));
      // What CloudFormation on an emulator puts into FLAMBDA_DEAD_LETTER_QUEUE_URL.
      const awsUrl = 'https://sqs.us-east-1.amazonaws.com/123456789012/d9';
      await client.send(new SendMessageCommand({ QueueUrl: awsUrl, MessageBody: 'dead letter' }));
      const received = await client.send(new ReceiveMessageCommand({ QueueUrl: awsUrl, MaxNumberOfMessages: 10 }));
      expect(received.Messages?.map((m) => m.Body)).toEqual(['dead letter']);
      expect(client.config.useQueueUrlAsEndpoint).toBe(false);
    } finally {
      client.destroy();
    }
  });

  it("would otherwise follow the queue URL's host (the SDK default, kept on AWS where no endpoint is configured)", async () => {
    process.env.AWS_ENDPOINT_URL = moto.endpoint;
    const sdkDefault = createSqsClient({ region: 'us-east-1', credentials, useQueueUrlAsEndpoint: true, maxAttempts: 1, connectionTimeoutMs: 1_000, requestTimeoutMs: 2_000 });
    try {
      await expect(sdkDefault.send(new SendMessageCommand({ QueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/d9', MessageBody: 'lost' }))).rejects.toThrow();
    } finally {
      sdkDefault.destroy();
    }
    delete process.env.AWS_ENDPOINT_URL;
    const onAws = createSqsClient({ region: 'us-east-1', credentials });
    expect(onAws.config.useQueueUrlAsEndpoint).toBe(true);
    onAws.destroy();
  });
});
