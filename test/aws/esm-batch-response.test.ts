import { describe, expect, it } from 'vitest';
import type { KinesisStreamRecord } from 'aws-lambda';
import { interpretBatchResponse } from '../../shared/aws/esm/batch-response.ts';
import { buildFailureRecord, parseStreamArn, recordPayloadBytes, toPolledRecord } from '../../shared/aws/esm/kinesis-event.ts';

const identity = {
  streamArn: 'arn:aws:kinesis:us-east-2:123456789012:stream/lambda-stream',
  region: 'us-east-2',
  roleArn: 'arn:aws:iam::123456789012:role/lambda-role',
};

/** Records with sequence numbers 100, 101, … on shard 6. */
function batch(n: number): KinesisStreamRecord[] {
  return Array.from(
    { length: n },
    (_, i) =>
      toPolledRecord(
        { SequenceNumber: String(100 + i), PartitionKey: `k${i}`, Data: new TextEncoder().encode(`d${i}`), ApproximateArrivalTimestamp: new Date(1_545_084_650_987) },
        'shardId-000000000006',
        identity,
      ).event,
  );
}

describe('Function: interpretBatchResponse', () => {
  const records = batch(5);

  it.each([
    ['nothing', undefined],
    ['null', null],
    ['an empty object', {}],
    ['a null list', { batchItemFailures: null }],
    ['an empty list', { batchItemFailures: [] }],
    ['a non-object', 'done'],
  ])('treats %s as complete success', (_, response) => {
    expect(interpretBatchResponse(response, records, true)).toEqual({ kind: 'success' });
  });

  it('retries from the lowest reported sequence number', () => {
    const response = { batchItemFailures: [{ itemIdentifier: '103' }, { itemIdentifier: '101' }, { itemIdentifier: '104' }] };
    expect(interpretBatchResponse(response, records, true)).toEqual({ kind: 'partial', index: 1 });
  });

  it.each([
    ['an empty itemIdentifier', { batchItemFailures: [{ itemIdentifier: '' }] }],
    ['a null itemIdentifier', { batchItemFailures: [{ itemIdentifier: null }] }],
    ['a misspelt key', { batchItemFailures: [{ itemIdentifer: '101' }] }],
    ['an unknown sequence number', { batchItemFailures: [{ itemIdentifier: '999' }] }],
    ['a list that is not a list', { batchItemFailures: 'oops' }],
  ])('treats %s as complete failure', (_, response) => {
    expect(interpretBatchResponse(response, records, true)).toMatchObject({ kind: 'failure' });
  });

  it('ignores the response when ReportBatchItemFailures is off, as Lambda does', () => {
    expect(interpretBatchResponse({ batchItemFailures: [{ itemIdentifier: '101' }] }, records, false)).toEqual({ kind: 'success' });
  });
});

describe('Function: toPolledRecord', () => {
  it('builds the record of AWS documentation example, with its payload size', () => {
    const polled = toPolledRecord(
      {
        SequenceNumber: '49590338271490256608559692538361571095921575989136588898',
        PartitionKey: '1',
        Data: new TextEncoder().encode('Hello, this is a test.'),
        ApproximateArrivalTimestamp: new Date(1_545_084_650_987),
      },
      'shardId-000000000006',
      identity,
    );
    expect(polled.event).toEqual({
      kinesis: {
        kinesisSchemaVersion: '1.0',
        partitionKey: '1',
        sequenceNumber: '49590338271490256608559692538361571095921575989136588898',
        data: 'SGVsbG8sIHRoaXMgaXMgYSB0ZXN0Lg==',
        approximateArrivalTimestamp: 1545084650.987,
      },
      eventSource: 'aws:kinesis',
      eventVersion: '1.0',
      eventID: 'shardId-000000000006:49590338271490256608559692538361571095921575989136588898',
      eventName: 'aws:kinesis:record',
      invokeIdentityArn: 'arn:aws:iam::123456789012:role/lambda-role',
      awsRegion: 'us-east-2',
      eventSourceARN: 'arn:aws:kinesis:us-east-2:123456789012:stream/lambda-stream',
    });
    // Exact for a millisecond timestamp: the serialized record plus its comma.
    expect(polled.payloadBytes).toBe(JSON.stringify(polled.event).length + 1);
    expect(recordPayloadBytes({ ...polled.event, kinesis: { ...polled.event.kinesis, partitionKey: 'ü"' } })).toBe(
      Buffer.byteLength(JSON.stringify({ ...polled.event, kinesis: { ...polled.event.kinesis, partitionKey: 'ü"' } })) + 1,
    );
  });
});

describe('Function: buildFailureRecord', () => {
  it('reports the shard, the sequence range and the arrival times of the discarded records', () => {
    const polled = [0, 1, 2].map((i) =>
      toPolledRecord(
        { SequenceNumber: String(200 + i), PartitionKey: 'k', Data: new Uint8Array(), ApproximateArrivalTimestamp: new Date(1_700_000_000_000 + i) },
        'shardId-000000000001',
        identity,
      ),
    );
    const record = buildFailureRecord({
      condition: 'RetryAttemptsExhausted',
      shardId: 'shardId-000000000001',
      streamArn: identity.streamArn,
      functionArn: 'arn:aws:lambda:us-east-2:123456789012:function:f',
      records: polled,
      invokeCount: 4,
      requestId: 'req-1',
      functionError: true,
    });
    expect(record).toEqual({
      requestContext: {
        requestId: 'req-1',
        functionArn: 'arn:aws:lambda:us-east-2:123456789012:function:f',
        condition: 'RetryAttemptsExhausted',
        approximateInvokeCount: 4,
      },
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      version: '1.0',
      timestamp: expect.any(String),
      KinesisBatchInfo: {
        shardId: 'shardId-000000000001',
        startSequenceNumber: '200',
        endSequenceNumber: '202',
        approximateArrivalOfFirstRecord: '2023-11-14T22:13:20.000Z',
        approximateArrivalOfLastRecord: '2023-11-14T22:13:20.002Z',
        batchSize: 3,
        streamArn: identity.streamArn,
      },
    });
  });
});

describe('Function: parseStreamArn', () => {
  it('splits a stream ARN', () => {
    expect(parseStreamArn('arn:aws-cn:kinesis:cn-north-1:123456789012:stream/s.1')).toEqual({
      partition: 'aws-cn',
      region: 'cn-north-1',
      account: '123456789012',
      streamName: 's.1',
    });
  });
});
