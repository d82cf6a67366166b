/**
 * kinesalite and dynalite in a worker thread of the test process: the same emulators as
 * kinesis-emulator.ts and dynamodb-emulator.ts (on 127.0.0.1, free ports, instant state changes),
 * but on their own event loop, so a CPU-heavy test (many short pipeline runs) uses a second core
 * for the emulators while the handlers, mappings and SDK clients run on the main thread.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Emulators running in a worker thread. */
export interface WorkerEmulators {
  /** kinesalite's `http://127.0.0.1:<port>`. */
  readonly kinesisEndpoint: string;
  /** dynalite's `http://127.0.0.1:<port>`. */
  readonly dynamoDbEndpoint: string;
  /** Stops both servers and the worker. */
  close(): Promise<void>;
}

// CommonJS, evaluated in the worker: starts both servers and reports their ports.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const kinesalite = require(workerData.kinesalite);
const dynalite = require(workerData.dynalite);
const servers = [
  kinesalite({ createStreamMs: 0, deleteStreamMs: 0, updateStreamMs: 0, shardLimit: 10000 }),
  dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }),
];
Promise.all(servers.map((s) => new Promise((resolve, reject) => {
  s.once('error', reject);
  s.listen(0, '127.0.0.1', () => resolve(s.address().port));
}))).then(
  (ports) => parentPort.postMessage({ type: 'ready', ports }),
  (error) => parentPort.postMessage({ type: 'error', message: String(error && error.stack || error) }),
);
parentPort.on('message', (message) => {
  if (message !== 'close') return;
  for (const s of servers) s.closeAllConnections && s.closeAllConnections();
  Promise.all(servers.map((s) => new Promise((resolve) => s.close(() => resolve())))).then(() => parentPort.postMessage({ type: 'closed' }));
});
`;

/** Starts kinesalite and dynalite in one worker thread. */
export async function startEmulatorsInWorker(): Promise<WorkerEmulators> {
  const require = createRequire(import.meta.url);
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { kinesalite: require.resolve('kinesalite'), dynalite: require.resolve('dynalite') },
  });
  const ports = await new Promise<number[]>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (message: { type: string; ports?: number[]; message?: string }) => {
      if (message.type === 'ready' && message.ports !== undefined) resolve(message.ports);
      else reject(new Error(`emulator worker failed: ${message.message ?? JSON.stringify(message)}`));
    });
  });
  const [kinesisPort, dynamoPort] = ports as [number, number];
  return {
    kinesisEndpoint: `http://127.0.0.1:${kinesisPort}`,
    dynamoDbEndpoint: `http://127.0.0.1:${dynamoPort}`,
    close: async () => {
      const closed = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2_000);
        worker.on('message', (message: { type: string }) => {
          if (message.type === 'closed') {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      worker.postMessage('close');
      await closed;
      await worker.terminate();
    },
  };
}
