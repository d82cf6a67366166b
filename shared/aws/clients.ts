/**
 * The one place Flambda builds a DynamoDB client (the Kinesis client is in kinesis/client.ts).
 *
 * What the SDK already does, verified against @aws-sdk/client-dynamodb 3.1169 / @smithy/core
 * (and by test/aws/clients.test.ts against an emulator), so there is no code for it here:
 *
 * - Endpoint: `AWS_ENDPOINT_URL_DYNAMODB`, then `AWS_ENDPOINT_URL` (and `endpoint_url` in the
 *   shared config file), unless `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` is set — smithy's
 *   `getEndpointFromConfig` with the service id "DynamoDB", read on the first request. An
 *   explicit `endpoint` option wins.
 * - Region: `AWS_REGION`, then the shared config file. Lambda always sets `AWS_REGION`.
 * - Retries: `AWS_MAX_ATTEMPTS` / `AWS_RETRY_MODE`; without them the DynamoDB client's own
 *   default of 4 attempts in the standard mode (exponential backoff with jitter and a retry
 *   quota) for throttling, 5xx, timeouts and dropped connections. That covers request-level
 *   failures; UnprocessedItems inside a successful BatchWriteItem response are not retried by
 *   the SDK, so the state store retries those itself (state/table-io.ts).
 * - HTTP/1.1 with keep-alive (`NodeHttpHandler`), which local emulators speak.
 *
 * What it does not do, and is added here:
 *
 * - Timeouts. Node's defaults never time a request out (the SDK's socket timeout is 5 minutes),
 *   so one stalled connection would burn a whole Lambda timeout. Every call the state store
 *   makes is idempotent (Query, and BatchWriteItem of whole-item puts and deletes), so a
 *   timed-out attempt is safe for the SDK to retry.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';

/** Defaults of {@link createDynamoDbClient}'s HTTP handler. */
export const DYNAMODB_HTTP_DEFAULTS = {
  /** Milliseconds to establish a TCP connection. */
  connectionTimeoutMs: 3_000,
  /**
   * Milliseconds for a whole request and response. The largest call, a BatchWriteItem of 25
   * items of up to 400 KB (10 MB), takes well under a second in-region; 15 s leaves room for a
   * slow emulator without hanging a Lambda.
   */
  requestTimeoutMs: 15_000,
} as const;

/** Options of {@link createDynamoDbClient}: any DynamoDB client config, plus timeouts. */
export interface DynamoDbClientOptions extends Omit<DynamoDBClientConfig, 'requestHandler'> {
  /**
   * Connection timeout in milliseconds (0 disables it).
   * @default DYNAMODB_HTTP_DEFAULTS.connectionTimeoutMs (3000)
   */
  readonly connectionTimeoutMs?: number;
  /**
   * Whole-request timeout in milliseconds (0 disables it); exceeding it fails the attempt with
   * a TimeoutError, which the SDK retries.
   * @default DYNAMODB_HTTP_DEFAULTS.requestTimeoutMs (15000)
   */
  readonly requestTimeoutMs?: number;
}

/**
 * A DynamoDB client with timeouts. Endpoint, region, credentials and retry settings come from
 * the options when given, else from the environment as any SDK v3 client reads them (see the
 * module header).
 *
 * @example
 * ```ts
 * // AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:4567 AWS_REGION=us-east-1 in the environment
 * const client = createDynamoDbClient();
 * ```
 */
export function createDynamoDbClient(options: DynamoDbClientOptions = {}): DynamoDBClient {
  const { connectionTimeoutMs, requestTimeoutMs, ...config } = options;
  return new DynamoDBClient({
    ...config,
    requestHandler: new NodeHttpHandler({
      connectionTimeout: connectionTimeoutMs ?? DYNAMODB_HTTP_DEFAULTS.connectionTimeoutMs,
      requestTimeout: requestTimeoutMs ?? DYNAMODB_HTTP_DEFAULTS.requestTimeoutMs,
      throwOnRequestTimeout: true,
    }),
  });
}
