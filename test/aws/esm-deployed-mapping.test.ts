/**
 * esm/deployed-mapping.ts: a deployed mapping's EventSourceMappingConfiguration becomes local
 * mapping options field by field (Lambda's defaults for absent fields), and settings the local
 * mapping does not model are refused by name; esm/on-failure-destination.ts names the batch and
 * queue when the destination cannot be written.
 */
import { describe, expect, it } from 'vitest';
import { deployedMappingOptions } from '../../shared/aws/esm/deployed-mapping.ts';
import type { DeployedMappingConfiguration } from '../../shared/aws/esm/deployed-mapping.ts';
import { onFailureMessageBody, sqsOnFailureDestination } from '../../shared/aws/esm/on-failure-destination.ts';
import type { KinesisOnFailureRecord } from '../../shared/aws/esm/types.ts';

const ARN = 'arn:aws:kinesis:us-east-1:123456789012:stream/orders';

/** What CloudFormation deploys for a Flambda stage (infra/lib/stream-pipeline.ts). */
const FLAMBDA_STAGE: DeployedMappingConfiguration = {
  UUID: 'b3f1',
  EventSourceArn: ARN,
  BatchSize: 500,
  MaximumBatchingWindowInSeconds: 1,
  StartingPosition: 'TRIM_HORIZON',
  MaximumRetryAttempts: -1,
  MaximumRecordAgeInSeconds: -1,
  FunctionResponseTypes: ['ReportBatchItemFailures'],
  ParallelizationFactor: 1,
  BisectBatchOnFunctionError: false,
  DestinationConfig: { OnFailure: { Destination: 'arn:aws:sqs:us-east-1:123456789012:dlq' } },
};

describe('deployedMappingOptions', () => {
  it('maps every modelled setting, in the units of the local mapping', () => {
    expect(deployedMappingOptions({ ...FLAMBDA_STAGE, MaximumRetryAttempts: 3, MaximumRecordAgeInSeconds: 3600 })).toEqual({
      options: {
        streamArn: ARN,
        startingPosition: 'TRIM_HORIZON',
        batchSize: 500,
        maximumBatchingWindowMs: 1000,
        reportBatchItemFailures: true,
        maximumRetryAttempts: 3,
        maximumRecordAgeMs: 3_600_000,
      },
      onFailureDestinationArn: 'arn:aws:sqs:us-east-1:123456789012:dlq',
    });
  });

  it("takes Lambda's defaults for absent fields: retry forever, keep records forever, no partial responses", () => {
    expect(deployedMappingOptions({ EventSourceArn: ARN, StartingPosition: 'LATEST' })).toEqual({
      options: { streamArn: ARN, startingPosition: 'LATEST', maximumBatchingWindowMs: 0, reportBatchItemFailures: false, maximumRetryAttempts: -1, maximumRecordAgeMs: -1 },
      onFailureDestinationArn: undefined,
    });
  });

  it('reads an AT_TIMESTAMP start as a Date (SDK) or epoch seconds (JSON)', () => {
    const at = Date.UTC(2026, 10, 11);
    expect(deployedMappingOptions({ ...FLAMBDA_STAGE, StartingPosition: 'AT_TIMESTAMP', StartingPositionTimestamp: new Date(at) }).options.startingPositionTimestamp).toBe(at);
    expect(deployedMappingOptions({ ...FLAMBDA_STAGE, StartingPosition: 'AT_TIMESTAMP', StartingPositionTimestamp: at / 1000 }).options.startingPositionTimestamp).toBe(at);
  });

  it.each<[string, DeployedMappingConfiguration, string]>([
    ['a parallelization factor', { ParallelizationFactor: 2 }, 'ParallelizationFactor is 2, which the local event source mapping does not model'],
    ['bisecting', { BisectBatchOnFunctionError: true }, 'BisectBatchOnFunctionError is on'],
    ['tumbling windows', { TumblingWindowInSeconds: 60 }, 'TumblingWindowInSeconds is 60'],
    ['filters', { FilterCriteria: { Filters: [{ Pattern: '{}' }] } }, 'it has FilterCriteria'],
    ['another event source', { EventSourceArn: 'arn:aws:sqs:us-east-1:123456789012:q' }, 'does not read a Kinesis stream (EventSourceArn arn:aws:sqs:us-east-1:123456789012:q)'],
    ['a missing starting position', { StartingPosition: undefined }, 'StartingPosition undefined is not TRIM_HORIZON, LATEST or AT_TIMESTAMP'],
  ])('refuses %s, naming the setting', (_what, change, message) => {
    expect(() => deployedMappingOptions({ ...FLAMBDA_STAGE, ...change })).toThrow(message);
  });
});

describe('sqsOnFailureDestination', () => {
  const record: KinesisOnFailureRecord = {
    requestContext: { requestId: 'r', functionArn: 'arn:aws:lambda:us-east-1:123456789012:function:f', condition: 'RetryAttemptsExhausted', approximateInvokeCount: 3 },
    version: '1.0',
    timestamp: '2026-11-11T00:00:00.000Z',
    KinesisBatchInfo: {
      shardId: 'shardId-000000000000',
      startSequenceNumber: '11',
      endSequenceNumber: '15',
      approximateArrivalOfFirstRecord: '2026-11-11T00:00:00.000Z',
      approximateArrivalOfLastRecord: '2026-11-11T00:00:00.000Z',
      batchSize: 5,
      streamArn: ARN,
    },
  };

  it('sends the invocation record as the message body', async () => {
    const sent: unknown[] = [];
    await sqsOnFailureDestination({ client: { send: async (command: { input: unknown }) => void sent.push(command.input) } as never, queueUrl: 'http://q/1/dlq' })(record, { records: [], lastError: undefined });
    expect(sent).toEqual([{ QueueUrl: 'http://q/1/dlq', MessageBody: onFailureMessageBody(record) }]);
    expect(JSON.parse(onFailureMessageBody(record))).toEqual(record);
  });

  it('names the discarded batch and the queue when the queue refuses it', async () => {
    const denied = Object.assign(new Error('not authorized to perform: sqs:SendMessage'), { name: 'AccessDenied' });
    const destination = sqsOnFailureDestination({ client: { send: async () => Promise.reject(denied) } as never, queueUrl: 'http://q/1/dlq' });
    await expect(destination(record, { records: [], lastError: undefined })).rejects.toThrow(
      'sending the on-failure record of shardId-000000000000 11..15 to http://q/1/dlq failed: AccessDenied: not authorized to perform: sqs:SendMessage',
    );
  });
});
