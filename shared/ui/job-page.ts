/**
 * The `--ui` lifecycle shared by `flambda run` and `flambda local`: start the page server
 * before the job, print its address, stop the job on Ctrl-C while it runs, and after it ends
 * keep serving until Ctrl-C (or SIGTERM).
 */
import type { JobGraph } from '../plan/job-graph.ts';
import { JobMonitor } from './job-monitor.ts';
import { startUiServer, type UiServer } from './ui-server.ts';

/** A served job page. */
export interface JobPage {
  readonly monitor: JobMonitor;
  readonly server: UiServer;
  /** Aborted on Ctrl-C / SIGTERM: hand it to the runtime to stop the job. */
  readonly stop: AbortSignal;
  /** After the job: says the page stays, waits for Ctrl-C, then closes the server. */
  serveUntilStopped(): Promise<void>;
}

/** Starts the page of a job that is about to run; the address goes to `log` (stderr). */
export async function openJobPage(graph: JobGraph, runtime: 'embedded' | 'local', port: number, log: (line: string) => void): Promise<JobPage> {
  const monitor = new JobMonitor(graph, runtime);
  const server = await startUiServer({ monitor, port });
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    controller.abort(new Error(`stopped by ${signal}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  log(`flambda: job page at ${server.url} (Ctrl-C stops the job and the page)`);
  return {
    monitor,
    server,
    stop: controller.signal,
    serveUntilStopped: async () => {
      if (!controller.signal.aborted) {
        log(`flambda: the job has ended; its page stays at ${server.url} until Ctrl-C`);
        await new Promise<void>((resolve) => controller.signal.addEventListener('abort', () => resolve(), { once: true }));
      }
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      monitor.close();
      await server.close();
    },
  };
}
