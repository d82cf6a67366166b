/**
 * The SQS client for the dead-letter queue, built like the Kinesis and DynamoDB clients
 * (kinesis/client.ts, clients.ts): endpoint, region, credentials and retry settings come from
 * the options or the environment as any SDK v3 client reads them (`AWS_ENDPOINT_URL_SQS`, then
 * `AWS_ENDPOINT_URL`; `AWS_REGION`; `AWS_MAX_ATTEMPTS`), and the SDK's standard retry mode
 * retries whole-request failures (throttling, 5xx, timeouts). Per-entry failures inside a
 * successful SendMessageBatch response are not retried by the SDK; `SqsDeadLetterQueue` retries
 * those itself.
 *
 * The queue URL. Unlike the other clients, the SQS client does not send every request to its
 * resolved endpoint: @aws-sdk/middleware-sdk-sqs (`queueUrlMiddleware`, `useQueueUrlAsEndpoint`
 * defaulting to true) sends a request with a `QueueUrl` to the host of that URL instead, unless
 * the client's `endpoint` option is set — an endpoint from the environment does not count. On
 * AWS the two agree. On an emulator deployment they do not: CloudFormation on LocalStack or moto
 * hands the function `https://sqs.us-east-1.amazonaws.com/<account>/<queue>`, so every dead
 * letter would go to real AWS and fail, failing its batch and blocking its shard. So whenever an
 * endpoint is configured (the option, or the environment variables above, unless
 * `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` is set), requests go to that endpoint and the queue URL
 * only names the queue.
 *
 * Added here: HTTP/1.1 keep-alive (`NodeHttpHandler`, which local emulators speak) and
 * timeouts, since Node's defaults never time a request out and one stalled connection would
 * burn a whole Lambda timeout. A timed-out SendMessageBatch may deliver its messages twice;
 * dead letters are at-least-once.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSClientConfig } from '@aws-sdk/client-sqs';
import { NodeHttpHandler } from '@smithy/node-http-handler';

/** Defaults of {@link createSqsClient}'s HTTP handler. */
export const SQS_HTTP_DEFAULTS = {
  /** Milliseconds to establish a TCP connection. */
  connectionTimeoutMs: 3_000,
  /** Milliseconds for a whole request and response (a batch is at most 256 KiB). */
  requestTimeoutMs: 10_000,
} as const;

/** Options of {@link createSqsClient}: any SQS client config, plus timeouts. */
export interface SqsClientOptions extends Omit<SQSClientConfig, 'requestHandler'> {
  /**
   * Connection timeout in milliseconds (0 disables it).
   * @default SQS_HTTP_DEFAULTS.connectionTimeoutMs (3000)
   */
  readonly connectionTimeoutMs?: number;
  /**
   * Whole-request timeout in milliseconds (0 disables it).
   * @default SQS_HTTP_DEFAULTS.requestTimeoutMs (10000)
   */
  readonly requestTimeoutMs?: number;
}

/**
 * The endpoint the environment configures for SQS (`AWS_ENDPOINT_URL_SQS`, then
 * `AWS_ENDPOINT_URL`), as the SDK reads it; undefined when none is set or
 * `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` is true.
 */
export function configuredSqsEndpoint(env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  if (env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS?.trim().toLowerCase() === 'true') return undefined;
  const value = (env.AWS_ENDPOINT_URL_SQS ?? env.AWS_ENDPOINT_URL)?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** An SQS client speaking HTTP/1.1 with timeouts, sending to the configured endpoint; see the module header. */
export function createSqsClient(options: SqsClientOptions = {}): SQSClient {
  const { connectionTimeoutMs, requestTimeoutMs, ...config } = options;
  const endpointConfigured = config.endpoint !== undefined || configuredSqsEndpoint() !== undefined;
  return new SQSClient({
    useQueueUrlAsEndpoint: !endpointConfigured,
    ...config,
    requestHandler: new NodeHttpHandler({
      connectionTimeout: connectionTimeoutMs ?? SQS_HTTP_DEFAULTS.connectionTimeoutMs,
      requestTimeout: requestTimeoutMs ?? SQS_HTTP_DEFAULTS.requestTimeoutMs,
      throwOnRequestTimeout: true,
    }),
  });
}
