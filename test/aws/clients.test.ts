/**
 * createDynamoDbClient: the endpoint and region come from the environment as the SDK reads them
 * (verified here against dynalite, not assumed), explicit options win, and requests time out.
 */
import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { createDynamoDbClient } from '../../shared/aws/clients.ts';
import { toStateError } from '../../shared/aws/state/errors.ts';
import { TransientError } from '../../shared/core/errors.ts';
import { startDynalite } from './dynamodb-emulator.ts';
import type { DynamoDbEmulator } from './dynamodb-emulator.ts';

const ENV_NAMES = ['AWS_ENDPOINT_URL', 'AWS_ENDPOINT_URL_DYNAMODB', 'AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_IGNORE_CONFIGURED_ENDPOINT_URLS'];
const saved = Object.fromEntries(ENV_NAMES.map((name) => [name, process.env[name]]));
let emulator: DynamoDbEmulator;

beforeAll(async () => {
  emulator = await startDynalite();
});

afterAll(async () => {
  await emulator?.stop();
});

afterEach(() => {
  for (const name of ENV_NAMES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

function setEnv(values: Record<string, string>): void {
  for (const name of ENV_NAMES) delete process.env[name];
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' }, values);
}

describe('Function: createDynamoDbClient', () => {
  it('reads AWS_ENDPOINT_URL_DYNAMODB and AWS_REGION from the environment', async () => {
    setEnv({ AWS_ENDPOINT_URL_DYNAMODB: emulator.endpoint, AWS_ENDPOINT_URL: 'http://127.0.0.1:9', AWS_REGION: 'eu-west-1' });
    const client = createDynamoDbClient();
    expect(await client.config.region()).toBe('eu-west-1');
    await expect(client.send(new ListTablesCommand({}))).resolves.toMatchObject({ TableNames: [] });
    client.destroy();
  });

  it('falls back to AWS_ENDPOINT_URL', async () => {
    setEnv({ AWS_ENDPOINT_URL: emulator.endpoint, AWS_REGION: 'us-east-1' });
    const client = createDynamoDbClient();
    await expect(client.send(new ListTablesCommand({}))).resolves.toMatchObject({ TableNames: [] });
    client.destroy();
  });

  it('lets an explicit endpoint and region win over the environment', async () => {
    setEnv({ AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:9', AWS_REGION: 'eu-west-1' });
    const client = createDynamoDbClient({ endpoint: emulator.endpoint, region: 'us-west-2' });
    expect(await client.config.region()).toBe('us-west-2');
    await expect(client.send(new ListTablesCommand({}))).resolves.toMatchObject({ TableNames: [] });
    client.destroy();
  });

  it('times a stalled request out with a retryable error', async () => {
    const hanging = createServer(() => {});
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', () => resolve()));
    const { port } = hanging.address() as AddressInfo;
    setEnv({});
    const client = createDynamoDbClient({
      endpoint: `http://127.0.0.1:${port}`,
      region: 'us-east-1',
      requestTimeoutMs: 200,
      maxAttempts: 1,
    });
    const started = Date.now();
    const error = await client.send(new ListTablesCommand({})).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(toStateError(error, 'ListTables')).toBeInstanceOf(TransientError);
    client.destroy();
    hanging.closeAllConnections();
    await new Promise<void>((resolve) => hanging.close(() => resolve()));
  });
});
