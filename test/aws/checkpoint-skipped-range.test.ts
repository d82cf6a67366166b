/**
 * checkpoint/skipped-range.ts: which events show that the event source mapping discarded an
 * announced range (wholly, or its expired start), the letter that reports it, the order of
 * settling (letter first, then the checkpoint write, then the records of the range dropped), and
 * CheckpointStore.clearPending on dynalite (fenced like every other write).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KinesisStreamRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckpointStore, FencedError } from '../../shared/aws/checkpoint/checkpoint-store.ts';
import { findSkippedRange, settleSkippedRange, skippedRangeLetter } from '../../shared/aws/checkpoint/skipped-range.ts';
import { deadLetterMessage } from '../../shared/aws/stage-input/sqs-dead-letter-queue.ts';
import type { DeadLetter } from '../../shared/aws/stage-input/types.ts';
import { createStateTable } from '../../shared/aws/state/create-state-table.ts';
import { startDynalite } from './dynamodb-emulator.ts';
import type { DynamoDbEmulator } from './dynamodb-emulator.ts';

const SHARD = 'shardId-000000000001';
const ARN = 'arn:aws:kinesis:us-east-1:123456789012:stream/orders';

/** An event record with sequence number `seq` (small numbers keep the cases readable). */
function record(seq: number): KinesisStreamRecord {
  return {
    kinesis: { kinesisSchemaVersion: '1.0', partitionKey: 'k', sequenceNumber: String(seq), data: 'e30=', approximateArrivalTimestamp: 1_700_000_000 },
    eventSource: 'aws:kinesis',
    eventVersion: '1.0',
    eventID: `${SHARD}:${seq}`,
    eventName: 'aws:kinesis:record',
    invokeIdentityArn: 'arn:aws:iam::123456789012:role/stage',
    awsRegion: 'us-east-1',
    eventSourceARN: ARN,
  };
}

const records = (...seqs: number[]): KinesisStreamRecord[] => seqs.map(record);
const seqs = (rs: readonly KinesisStreamRecord[]): string[] => rs.map((r) => r.kinesis.sequenceNumber);

describe('findSkippedRange', () => {
  const pending = { first: '20', last: '40' };

  it.each<[string, number[]]>([
    ['the event replays the range from its first record', [20, 30, 40, 50]],
    ['the event starts before the range (records before it were not committed)', [10, 20, 30]],
    ['the event holds no new record', []],
  ])('finds nothing when %s', (_what, event) => {
    expect(findSkippedRange(pending, records(...event))).toBeUndefined();
  });

  it('finds the whole range skipped when the event starts after its last record', () => {
    expect(findSkippedRange(pending, records(41, 42))).toEqual({ range: pending, resumedAt: '41', whole: true });
  });

  it('finds the range skipped in part when the event starts inside it (its start expired)', () => {
    expect(findSkippedRange(pending, records(30, 40, 50))).toEqual({ range: pending, resumedAt: '30', whole: false });
  });

  it('compares sequence numbers numerically, not as text', () => {
    const long = { first: '9', last: '99' };
    expect(findSkippedRange(long, records(100))).toEqual({ range: long, resumedAt: '100', whole: true });
    expect(findSkippedRange(long, records(9))).toBeUndefined();
  });
});

describe('skippedRangeLetter', () => {
  it('reports the range by position and why, without data, and fits an SQS message with both ends as attributes', () => {
    const letter = skippedRangeLetter({ range: { first: '20', last: '40' }, resumedAt: '41', whole: true }, { stage: 'stage-1', stream: 'orders', shardId: SHARD });
    expect(letter).toMatchObject({ kind: 'skipped-range', stage: 'stage-1', stream: 'orders', shardId: SHARD, sequenceNumber: '20', lastSequenceNumber: '40', data: '', dataBytes: 0, truncated: false });
    expect(letter.reason).toContain(`announced range 20..40 of ${SHARD} was skipped`);
    expect(letter.reason).toContain('MaximumRetryAttempts exhausted');
    expect(letter.reason).toContain('AT_SEQUENCE_NUMBER 20');
    const message = deadLetterMessage(letter);
    expect(JSON.parse(message.body)).toMatchObject({ kind: 'skipped-range', sequenceNumber: '20', lastSequenceNumber: '40' });
    expect(message.attributes.lastSequenceNumber).toEqual({ DataType: 'String', StringValue: '40' });
    const expired = skippedRangeLetter({ range: { first: '20', last: '40' }, resumedAt: '30', whole: false }, { stage: 'stage-1', stream: 'orders', shardId: SHARD });
    expect(expired.reason).toContain('older than MaximumRecordAgeInSeconds');
  });

  it('leaves the range attribute out of an ordinary letter', () => {
    const letter: DeadLetter = { ...skippedRangeLetter({ range: { first: '1', last: '1' }, resumedAt: '2', whole: true }, { stage: 's', stream: 'o', shardId: SHARD }), kind: 'undecodable' };
    const { lastSequenceNumber: _dropped, ...plain } = letter;
    expect(deadLetterMessage(plain).attributes.lastSequenceNumber).toBeUndefined();
    expect(JSON.parse(deadLetterMessage(plain).body)).not.toHaveProperty('lastSequenceNumber');
  });
});

describe('settleSkippedRange', () => {
  it('sends the letter, then clears the range, then returns the records after it', async () => {
    const calls: string[] = [];
    const letters: DeadLetter[] = [];
    const settled = await settleSkippedRange({
      checkpoints: { clearPending: async () => void calls.push('clear') },
      pending: { first: '20', last: '40' },
      records: records(30, 40, 41, 45),
      stage: 'stage-2',
      onDeadLetters: (sent) => {
        calls.push('letter');
        letters.push(...sent);
      },
    });
    expect(calls).toEqual(['letter', 'clear']);
    expect(seqs(settled?.rest ?? [])).toEqual(['41', '45']);
    expect(settled).toMatchObject({ resumedAt: '30', whole: false });
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ kind: 'skipped-range', stage: 'stage-2', stream: 'orders', shardId: SHARD, sequenceNumber: '20', lastSequenceNumber: '40' });
  });

  it('changes nothing when the event replays the range', async () => {
    const calls: string[] = [];
    const settled = await settleSkippedRange({
      checkpoints: { clearPending: async () => void calls.push('clear') },
      pending: { first: '20', last: '40' },
      records: records(20, 40),
      stage: 'stage-2',
      onDeadLetters: () => void calls.push('letter'),
    });
    expect(settled).toBeUndefined();
    expect(calls).toEqual([]);
  });

  it('keeps the range when the letter cannot be sent, so the next delivery settles it again', async () => {
    let cleared = false;
    const attempt = settleSkippedRange({
      checkpoints: { clearPending: async () => void (cleared = true) },
      pending: { first: '20', last: '40' },
      records: records(50),
      stage: 'stage-2',
      onDeadLetters: () => {
        throw new Error('SQS is down');
      },
    });
    await expect(attempt).rejects.toThrow('SQS is down');
    expect(cleared).toBe(false);
  });

  it('clears the range without a dead-letter queue', async () => {
    let cleared = false;
    const settled = await settleSkippedRange({ checkpoints: { clearPending: async () => void (cleared = true) }, pending: { first: '20', last: '40' }, records: records(41), stage: 's' });
    expect(cleared).toBe(true);
    expect(seqs(settled?.rest ?? [])).toEqual(['41']);
  });
});

describe('CheckpointStore.clearPending (dynalite)', () => {
  let dynalite: DynamoDbEmulator;
  let client: DynamoDBClient;

  beforeAll(async () => {
    dynalite = await startDynalite();
    client = dynalite.client();
    await createStateTable(client, 'skip-state');
  });

  afterAll(async () => {
    client?.destroy();
    await dynalite?.stop();
  });

  it('removes the announced range for the next owner, and is refused once another invocation took the shard over', async () => {
    // A virtual lease clock: waiting for a lease takes no real time.
    let now = 1_000_000;
    const clock = { now: () => now, sleep: async (ms: number) => void (now += ms) };
    const store = (): CheckpointStore => new CheckpointStore({ client, tableName: 'skip-state', stage: 'stage-1', shardId: SHARD, graceMs: 0, ...clock });
    const a = store();
    await a.fence(now + 10_000);
    await a.announce({ first: '20', last: '40' });
    await a.release(undefined);

    const b = store();
    expect((await b.fence(now + 10_000)).pending).toEqual({ first: '20', last: '40' });
    await b.clearPending();
    await b.release(undefined);

    const c = store();
    expect((await c.fence(now + 10_000)).pending).toBeUndefined();
    await c.announce({ first: '50', last: '60' });
    // c hangs past its lease; d takes the shard over, and c must not clear d's range any more.
    now += 20_000;
    const d = store();
    expect((await d.fence(now + 10_000)).pending).toEqual({ first: '50', last: '60' });
    await expect(c.clearPending()).rejects.toBeInstanceOf(FencedError);
    await d.release(undefined);
    expect((await store().fence(now + 10_000)).pending).toEqual({ first: '50', last: '60' });
  });
});
