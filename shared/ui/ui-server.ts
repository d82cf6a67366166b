/**
 * The job page's HTTP server (`flambda run … --ui`, `flambda local … --ui`): serves the page
 * and the JSON endpoints of docs/ui.md on 127.0.0.1 only.
 *
 * ```
 *  GET /                       the page (index.html, app.js, app.css)
 *  GET /api/job                job, status, job graph, diagram nodes and edges
 *  GET /api/metrics            counters, rates, state, watermarks per channel and why
 *  GET /api/history            chart points: watermark lag and throughput over time
 *  GET /api/taps/<edge id>     the edge's latest changelog rows (?limit=N, at most 200)
 *  GET /api/dead-letters       dead letters with reasons and positions (?after=seq)
 *  GET /api/events             server-sent events: `metrics` every sample, `status` on change
 * ```
 *
 * The page script is bundled from shared/ui/page/ by esbuild when the server starts. Requests
 * whose Host is not this server's loopback address are refused, so a web page elsewhere
 * cannot read the job through DNS rebinding.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { PlanError } from '../core/errors.ts';
import { toJson, type JobMonitor } from './job-monitor.ts';

const PAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), 'page');
const UPLOT_CSS = fileURLToPath(new URL('../../node_modules/uplot/dist/uPlot.min.css', import.meta.url));

/** A running job page server. */
export interface UiServer {
  /** `http://127.0.0.1:<port>/`. */
  readonly url: string;
  readonly port: number;
  /** Stops serving (open event streams are ended). */
  close(): Promise<void>;
}

/** Options of {@link startUiServer}. */
export interface UiServerOptions {
  readonly monitor: JobMonitor;
  /** Port to listen on; 0 picks a free one. @default 0 */
  readonly port?: number;
  /** How often event streams get a `metrics` event (ms). @default 500 */
  readonly eventEveryMs?: number;
}

/** The page's static files, built once per process. */
interface PageAssets {
  readonly html: string;
  readonly js: string;
  readonly css: string;
}

let assets: Promise<PageAssets> | undefined;

/** Bundles the page (esbuild, in memory). */
export function pageAssets(): Promise<PageAssets> {
  assets ??= (async () => {
    const result = await build({
      entryPoints: [join(PAGE_DIR, 'main.ts')],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      write: false,
      logLevel: 'silent',
    });
    const js = result.outputFiles[0]?.text ?? '';
    const css = `${readFileSync(UPLOT_CSS, 'utf8')}\n${readFileSync(join(PAGE_DIR, 'styles.css'), 'utf8')}`;
    return { html: readFileSync(join(PAGE_DIR, 'index.html'), 'utf8'), js, css };
  })();
  return assets;
}

/**
 * Starts the server on 127.0.0.1.
 *
 * @throws PlanError when the port is taken or cannot be bound.
 */
export async function startUiServer(options: UiServerOptions): Promise<UiServer> {
  const page = await pageAssets();
  const monitor = options.monitor;
  const streams = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    try {
      handle(req, res, monitor, page, streams, server);
    } catch (error) {
      send(res, 500, 'application/json', toJson({ error: (error as Error).message }));
    }
  });
  const port = options.port ?? 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new PlanError(`--port ${port}: 127.0.0.1:${port} is in use (leave --port out to take a free port)`)
          : new PlanError(`cannot serve the job page on 127.0.0.1:${port}: ${error.message}`),
      );
    });
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  let lastStatus = monitor.status;
  const ticker = setInterval(() => {
    if (streams.size === 0) return;
    const events: string[] = [];
    if (monitor.status !== lastStatus) {
      lastStatus = monitor.status;
      events.push(`event: status\ndata: ${toJson({ status: monitor.status, error: monitor.error ?? null })}\n\n`);
    }
    events.push(`event: metrics\ndata: ${toJson(monitor.metricsJson())}\n\n`);
    for (const res of streams) res.write(events.join(''));
  }, options.eventEveryMs ?? 500);
  ticker.unref();
  return {
    url: `http://127.0.0.1:${bound}/`,
    port: bound,
    close: async () => {
      clearInterval(ticker);
      for (const res of streams) res.end();
      streams.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Idle keep-alive connections (a browser's) would otherwise hold close() open.
      server.closeAllConnections();
      await closed;
    },
  };
}

function handle(req: IncomingMessage, res: ServerResponse, monitor: JobMonitor, page: PageAssets, streams: Set<ServerResponse>, server: Server): void {
  const port = (server.address() as AddressInfo).port;
  const host = req.headers.host ?? '';
  if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
    send(res, 403, 'text/plain', `the job page answers requests for 127.0.0.1:${port} only\n`);
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    send(res, 405, 'text/plain', 'only GET\n');
    return;
  }
  const url = new URL(req.url ?? '/', `http://${host}`);
  const path = url.pathname;
  switch (path) {
    case '/':
    case '/index.html':
      return send(res, 200, 'text/html; charset=utf-8', page.html);
    case '/app.js':
      return send(res, 200, 'text/javascript; charset=utf-8', page.js);
    case '/app.css':
      return send(res, 200, 'text/css; charset=utf-8', page.css);
    case '/api/job':
      return json(res, monitor.jobJson());
    case '/api/metrics':
      return json(res, monitor.metricsJson());
    case '/api/history':
      return json(res, monitor.historyJson());
    case '/api/dead-letters':
      return json(res, monitor.deadLettersJson(intParam(url, 'after', 0)));
    case '/api/events': {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
      res.write(`event: status\ndata: ${toJson({ status: monitor.status, error: monitor.error ?? null })}\n\n`);
      res.write(`event: metrics\ndata: ${toJson(monitor.metricsJson())}\n\n`);
      streams.add(res);
      req.on('close', () => streams.delete(res));
      return;
    }
  }
  if (path.startsWith('/api/taps/')) {
    const edge = decodeURIComponent(path.slice('/api/taps/'.length));
    const tap = monitor.tapJson(edge, Math.min(200, Math.max(1, intParam(url, 'limit', 50))));
    if (tap === undefined) return send(res, 404, 'application/json', toJson({ error: `no edge '${edge}' (GET /api/job lists the edges)` }));
    return json(res, tap);
  }
  send(res, 404, 'application/json', toJson({ error: `no such path: ${path}` }));
}

function intParam(url: URL, name: string, fallback: number): number {
  const v = url.searchParams.get(name);
  const n = v === null ? NaN : Number(v);
  return Number.isSafeInteger(n) && n >= 0 ? n : fallback;
}

function json(res: ServerResponse, body: unknown): void {
  send(res, 200, 'application/json', toJson(body));
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
