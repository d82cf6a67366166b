/**
 * Feeds one stage handler from a source stream through a LocalEventSourceMapping until the stream
 * is drained, keeping every batch response: how the handler tests see what the mapping would.
 */
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { KinesisStreamBatchResponse } from 'aws-lambda';
import { LocalEventSourceMapping } from '../../shared/aws/esm/local-event-source-mapping.ts';
import type { StageHandler } from '../../shared/aws/handler/stage-handler.ts';

/** What the mapping is told: its batch size and retries (fast polling otherwise). */
export interface DrainOptions {
  readonly batchSize: number;
  readonly maximumRetryAttempts: number;
}

/** Runs `handler` over `streamName` from TRIM_HORIZON to its end; the responses, in order. */
export async function drainThroughMapping(kinesis: KinesisClient, streamName: string, handler: StageHandler, options: DrainOptions): Promise<KinesisStreamBatchResponse[]> {
  const responses: KinesisStreamBatchResponse[] = [];
  const esm = new LocalEventSourceMapping({
    client: kinesis,
    streamName,
    startingPosition: 'TRIM_HORIZON',
    batchSize: options.batchSize,
    pollIntervalMs: 10,
    shardDiscoveryIntervalMs: 50,
    retryDelayMs: 1,
    maximumRetryAttempts: options.maximumRetryAttempts,
    handler: async (event) => {
      const response = await handler.handle(event);
      responses.push(response);
      return response;
    },
  });
  try {
    await esm.start();
    await esm.drain({ timeoutMs: 30_000 });
  } finally {
    await esm.stop();
  }
  return responses;
}
