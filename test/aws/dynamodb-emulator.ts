/**
 * Local DynamoDB emulators for tests, started on 127.0.0.1 on a free port by the tests
 * themselves (the target architecture's §7, "Known pitfalls"):
 *
 * - dynalite: in-process, fast; no TransactWriteItems, no UpdateTimeToLive.
 * - moto_server: a child process (Python, on PATH); transactions and TTL; slower.
 *
 * Plus a client factory with dummy credentials, and a client wrapper counting commands.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDynamoDbClient } from '../../shared/aws/clients.ts';

/** dynalite's factory: an http.Server serving the DynamoDB JSON API. */
type DynaliteFactory = (options: { createTableMs: number; deleteTableMs: number; updateTableMs: number }) => Server;

// dynalite is CommonJS without type declarations.
const dynalite = createRequire(import.meta.url)('dynalite') as DynaliteFactory;

/** A running emulator. */
export interface DynamoDbEmulator {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** A new client for this emulator (dummy credentials, us-east-1). */
  client(): DynamoDBClient;
  /** Stops the emulator. */
  stop(): Promise<void>;
}

/** A client for an emulator at `endpoint`, with dummy credentials and region. */
export function emulatorClient(endpoint: string): DynamoDBClient {
  return createDynamoDbClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
}

/** Starts dynalite in-process on 127.0.0.1 on a free port, with instant table state changes. */
export async function startDynalite(): Promise<DynamoDbEmulator> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    client: () => emulatorClient(endpoint),
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections?.();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** A port that was free a moment ago (the OS picks it; the probe socket is closed again). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * Spawns `moto_server -H 127.0.0.1 -p <free port>`, waits until it answers HTTP, and stops it
 * by its own PID (SIGTERM, then SIGKILL after 5 s).
 *
 * @param timeoutMs how long to wait for it to answer
 * @param env the server's environment (moto reads its settings from it)
 */
export async function startMotoServer(timeoutMs = 20_000, env: NodeJS.ProcessEnv = process.env): Promise<DynamoDbEmulator> {
  const port = await freePort();
  const child = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'], env });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    if (stderr.length < 10_000) stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let spawnError: Error | undefined;
  child.once('error', (error) => (spawnError = error));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    process.kill(child.pid, 'SIGTERM');
    const timer = setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    }, 5_000);
    await exited;
    clearTimeout(timer);
  };
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (spawnError !== undefined) throw new Error(`moto_server did not start: ${spawnError.message}`);
    if (child.exitCode !== null) throw new Error(`moto_server exited with ${child.exitCode}: ${stderr}`);
    try {
      await fetch(endpoint + '/', { signal: AbortSignal.timeout(1_000) });
      break;
    } catch {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`moto_server did not answer on ${endpoint} within ${timeoutMs} ms: ${stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return { endpoint, client: () => emulatorClient(endpoint), stop };
}

/** Commands sent through a {@link countingClient}, by command name (e.g. `QueryCommand`). */
export type CommandCounts = Map<string, number>;

/** A command as the wrapper sees it. */
export interface SentCommand {
  readonly input: unknown;
  readonly constructor: { readonly name: string };
}

/**
 * Intercepts one command: return a promise of the response to replace the call (`send` sends
 * any command for real), or undefined to let the command through.
 */
export type Interceptor = (command: SentCommand, send: (command: SentCommand) => Promise<unknown>) => Promise<unknown> | undefined;

/** Wraps `client.send` to count commands by name, and optionally to intercept them. */
export function countingClient(client: DynamoDBClient, intercept?: Interceptor): { client: DynamoDBClient; counts: CommandCounts } {
  const counts: CommandCounts = new Map();
  const send = client.send.bind(client) as unknown as (command: SentCommand) => Promise<unknown>;
  const wrapped = Object.create(client) as DynamoDBClient;
  (wrapped as unknown as { send: (command: SentCommand) => Promise<unknown> }).send = (command) => {
    const name = command.constructor.name;
    counts.set(name, (counts.get(name) ?? 0) + 1);
    return intercept?.(command, send) ?? send(command);
  };
  return { client: wrapped, counts };
}

/** Every item of a table (Scan, paginated), for assertions on what was written. */
export async function scanTable(client: DynamoDBClient, tableName: string): Promise<Record<string, AttributeValue>[]> {
  const items: Record<string, AttributeValue>[] = [];
  let startKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey: startKey, ConsistentRead: true }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return items;
}
