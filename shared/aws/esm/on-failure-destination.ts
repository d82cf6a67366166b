/**
 * The on-failure destination of a local event source mapping, as Lambda implements it for an SQS
 * queue (Lambda developer guide, "Retain discarded batch records for a Kinesis Data Streams event
 * source"): one message per discarded batch whose body is the invocation record as JSON —
 * `requestContext`, `responseContext`, `version`, `timestamp` and `KinesisBatchInfo` (shard and
 * sequence range, never the records) — sent with the mapping's (the function's) credentials.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { FlambdaError } from '../../core/errors.ts';
import type { KinesisOnFailureRecord, OnFailureCallback } from './types.ts';

/** Options of {@link sqsOnFailureDestination}. */
export interface SqsOnFailureDestinationOptions {
  /** A client with the function's credentials (e.g. `createSqsClient`). */
  readonly client: Pick<SQSClient, 'send'>;
  /** The queue's URL. */
  readonly queueUrl: string;
}

/** The JSON body Lambda sends for a discarded batch. */
export function onFailureMessageBody(record: KinesisOnFailureRecord): string {
  return JSON.stringify(record);
}

/**
 * An `onFailure` callback that sends each discarded batch's invocation record to an SQS queue.
 *
 * @throws FlambdaError (external, fail) from the callback when SendMessage fails: the mapping
 *   stops with it rather than drop the record of a discarded batch.
 */
export function sqsOnFailureDestination(options: SqsOnFailureDestinationOptions): OnFailureCallback {
  if (typeof options.queueUrl !== 'string' || options.queueUrl.length === 0) throw new FlambdaError('queueUrl must be a non-empty string', 'user', 'fail');
  return async (record) => {
    try {
      await options.client.send(new SendMessageCommand({ QueueUrl: options.queueUrl, MessageBody: onFailureMessageBody(record) }));
    } catch (error) {
      const info = record.KinesisBatchInfo;
      throw new FlambdaError(
        `sending the on-failure record of ${info.shardId} ${info.startSequenceNumber}..${info.endSequenceNumber} to ${options.queueUrl} failed: ${(error as Error).name}: ${(error as Error).message}`,
        'external',
        'fail',
        { cause: error },
      );
    }
  };
}
