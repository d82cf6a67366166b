/**
 * Starts kinesalite and dynalite (in-process, 127.0.0.1) for a test file and stops them after it:
 * `useEmulators((clients) => ({ kinesis, dynamoDb } = clients))` in the file's top level.
 */
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import { startDynalite } from './dynamodb-emulator.ts';
import type { DynamoDbEmulator } from './dynamodb-emulator.ts';
import { emulatorClient, startKinesalite } from './kinesis-emulator.ts';
import type { KinesaliteHandle } from './kinesis-emulator.ts';

/** Clients of the running emulators. */
export interface EmulatorClients {
  readonly kinesis: KinesisClient;
  readonly dynamoDb: DynamoDBClient;
}

/** Registers the file's beforeAll/afterAll hooks; `ready` receives the clients once both run. */
export function useEmulators(ready: (clients: EmulatorClients) => void): void {
  let kinesalite: KinesaliteHandle | undefined;
  let dynalite: DynamoDbEmulator | undefined;
  let clients: EmulatorClients | undefined;
  beforeAll(async () => {
    [kinesalite, dynalite] = await Promise.all([startKinesalite(), startDynalite()]);
    clients = { kinesis: emulatorClient(kinesalite.endpoint), dynamoDb: dynalite.client() };
    ready(clients);
  });
  afterAll(async () => {
    clients?.kinesis.destroy();
    clients?.dynamoDb.destroy();
    await Promise.all([kinesalite?.close(), dynalite?.stop()]);
  });
}
