/**
 * In-process AWS emulators for `flambda local`: kinesalite (Kinesis) and dynalite (DynamoDB),
 * each listening on 127.0.0.1 on a free port, with instant stream and table state changes.
 */
import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** kinesalite's and dynalite's factories: an http.Server serving the service's JSON API. */
type EmulatorFactory = (options: Record<string, number>) => Server;

// Both are CommonJS without type declarations.
const load = (name: string): EmulatorFactory => createRequire(import.meta.url)(name) as EmulatorFactory;

/** A running emulator. */
export interface LocalEmulator {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** Stops the server and drops its in-memory data. */
  close(): Promise<void>;
}

async function listen(server: Server): Promise<LocalEmulator> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections?.();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** Starts kinesalite in-process on 127.0.0.1. */
export function startKinesalite(): Promise<LocalEmulator> {
  return listen(load('kinesalite')({ createStreamMs: 0, deleteStreamMs: 0, updateStreamMs: 0, shardLimit: 10_000 }));
}

/** Starts dynalite in-process on 127.0.0.1. */
export function startDynalite(): Promise<LocalEmulator> {
  return listen(load('dynalite')({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }));
}
