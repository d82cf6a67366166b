import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ListStreamsCommand } from '@aws-sdk/client-kinesis';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { KINESIS_HTTP_DEFAULTS, createKinesisClient } from '../../shared/aws/kinesis/client.ts';
import { createStream, emulatorClient, startKinesalite } from './kinesis-emulator.ts';
import type { KinesaliteHandle } from './kinesis-emulator.ts';

const ENV_KEYS = ['AWS_ENDPOINT_URL', 'AWS_ENDPOINT_URL_KINESIS', 'AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_IGNORE_CONFIGURED_ENDPOINT_URLS'];
const savedEnv = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));

let emulator: KinesaliteHandle;

beforeAll(async () => {
  emulator = await startKinesalite();
  const setup = emulatorClient(emulator.endpoint);
  await createStream(setup, 'client-test', 1);
  setup.destroy();
});

afterAll(async () => {
  await emulator.close();
});

afterEach(() => {
  for (const key of ENV_KEYS) {
    if (savedEnv[key] === undefined) delete process.env[key];
    else process.env[key] = savedEnv[key];
  }
});

/** Sets test credentials and region in the environment, as Lambda sets them. */
function setEnv(values: Record<string, string>): void {
  for (const key of ENV_KEYS) delete process.env[key];
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', ...values });
}

describe('Function: createKinesisClient', () => {
  it('speaks HTTP/1.1 through NodeHttpHandler with timeouts', async () => {
    const client = createKinesisClient({
      region: 'eu-west-1',
      endpoint: emulator.endpoint,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    try {
      expect(client.config.requestHandler).toBeInstanceOf(NodeHttpHandler);
      // The handler resolves its settings on the first request.
      await client.send(new ListStreamsCommand({}));
      const config = (client.config.requestHandler as NodeHttpHandler).httpHandlerConfigs();
      expect(config).toMatchObject({
        connectionTimeout: KINESIS_HTTP_DEFAULTS.connectionTimeoutMs,
        requestTimeout: KINESIS_HTTP_DEFAULTS.requestTimeoutMs,
        throwOnRequestTimeout: true,
      });
      expect(await client.config.region()).toBe('eu-west-1');
    } finally {
      client.destroy();
    }
  });

  it('honours AWS_ENDPOINT_URL_KINESIS and AWS_REGION from the environment (the SDK reads them)', async () => {
    setEnv({ AWS_ENDPOINT_URL_KINESIS: emulator.endpoint, AWS_ENDPOINT_URL: 'http://127.0.0.1:9', AWS_REGION: 'ap-southeast-2' });
    const client = createKinesisClient();
    try {
      expect(await client.config.region()).toBe('ap-southeast-2');
      // The service-specific variable wins over AWS_ENDPOINT_URL (port 9 would refuse).
      const out = await client.send(new ListStreamsCommand({}));
      expect(out.StreamNames).toContain('client-test');
    } finally {
      client.destroy();
    }
  });

  it('honours AWS_ENDPOINT_URL alone', async () => {
    setEnv({ AWS_ENDPOINT_URL: emulator.endpoint, AWS_REGION: 'us-east-1' });
    const client = createKinesisClient();
    try {
      expect((await client.send(new ListStreamsCommand({}))).StreamNames).toContain('client-test');
    } finally {
      client.destroy();
    }
  });

  it('lets an explicit endpoint option win over the environment', async () => {
    setEnv({ AWS_ENDPOINT_URL_KINESIS: 'http://127.0.0.1:9', AWS_REGION: 'us-east-1' });
    const client = createKinesisClient({ endpoint: emulator.endpoint, maxAttempts: 1 });
    try {
      expect((await client.send(new ListStreamsCommand({}))).StreamNames).toContain('client-test');
    } finally {
      client.destroy();
    }
  });
});
