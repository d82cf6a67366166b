/**
 * The one place Flambda builds a Kinesis client.
 *
 * What the SDK already does, verified against @aws-sdk/client-kinesis 3.1143 / @smithy/core, so
 * there is no code for it here:
 *
 * - Endpoint: `AWS_ENDPOINT_URL_KINESIS`, then `AWS_ENDPOINT_URL` (and `endpoint_url` in the
 *   shared config file), unless `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` is set — smithy's
 *   `getEndpointFromConfig`, read on the first request. An explicit `endpoint` option wins.
 * - Region: `AWS_REGION`, then the shared config file (`NODE_REGION_CONFIG_OPTIONS`). Lambda
 *   always sets `AWS_REGION`.
 * - Retries: `AWS_MAX_ATTEMPTS` / `AWS_RETRY_MODE`, defaulting to the standard mode with 3
 *   attempts (exponential backoff with jitter, retry quota) for request-level failures:
 *   throttling, 5xx, timeouts. Entry-level failures inside a successful PutRecords response are
 *   not retried by the SDK; `KinesisStageWriter` retries those itself.
 *
 * What it does not do, and is added here:
 *
 * - HTTP/1.1. The Kinesis client defaults to `NodeHttp2Handler` (for SubscribeToShard), which
 *   fails against local emulators with "Protocol error"; PutRecords/GetRecords need no HTTP/2.
 * - Timeouts. Node's defaults never time a request out, so one stalled connection would burn a
 *   whole Lambda timeout; a timed-out PutRecords is retried by the SDK (duplicates it may cause
 *   carry the same bundle ids, which receivers drop).
 */
import { KinesisClient } from '@aws-sdk/client-kinesis';
import type { KinesisClientConfig } from '@aws-sdk/client-kinesis';
import { NodeHttpHandler } from '@smithy/node-http-handler';

/** Defaults of {@link createKinesisClient}'s HTTP handler. */
export const KINESIS_HTTP_DEFAULTS = {
  /** Milliseconds to establish a TCP connection. */
  connectionTimeoutMs: 3_000,
  /**
   * Milliseconds for a whole request and response. A PutRecords call of 5 MiB takes well under
   * a second in-region; 15 s leaves room for a slow emulator without hanging a Lambda.
   */
  requestTimeoutMs: 15_000,
} as const;

/** Options of {@link createKinesisClient}. */
export interface KinesisClientOptions extends Omit<KinesisClientConfig, 'requestHandler'> {
  /**
   * Connection timeout in milliseconds (0 disables it).
   * @default KINESIS_HTTP_DEFAULTS.connectionTimeoutMs (3000)
   */
  readonly connectionTimeoutMs?: number;
  /**
   * Whole-request timeout in milliseconds (0 disables it); exceeding it fails the attempt with
   * a TimeoutError, which the SDK retries.
   * @default KINESIS_HTTP_DEFAULTS.requestTimeoutMs (15000)
   */
  readonly requestTimeoutMs?: number;
}

/**
 * A Kinesis client speaking HTTP/1.1 with timeouts. Endpoint, region, credentials and retry
 * settings come from the options when given, else from the environment as any SDK v3 client
 * reads them (see the module header).
 */
export function createKinesisClient(options: KinesisClientOptions = {}): KinesisClient {
  const { connectionTimeoutMs, requestTimeoutMs, ...config } = options;
  return new KinesisClient({
    ...config,
    requestHandler: new NodeHttpHandler({
      connectionTimeout: connectionTimeoutMs ?? KINESIS_HTTP_DEFAULTS.connectionTimeoutMs,
      requestTimeout: requestTimeoutMs ?? KINESIS_HTTP_DEFAULTS.requestTimeoutMs,
      throwOnRequestTimeout: true,
    }),
  });
}
