import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BundleCodec } from '../../shared/aws/kinesis/bundle-codec.ts';
import { createStageInputReader } from '../../shared/aws/stage-input/create-reader.ts';
import { SourceInputReader } from '../../shared/aws/stage-input/source-reader.ts';
import type { SourceInputReaderOptions } from '../../shared/aws/stage-input/source-reader.ts';
import type { DeadLetterStep, InputStep, RowsStep, StageInputBatch } from '../../shared/aws/stage-input/types.ts';
import { Pipeline, sum } from '../../shared/api/index.ts';
import { FlambdaError, PlanError } from '../../shared/core/errors.ts';
import { schemaOf } from '../../shared/core/type-parse.ts';
import type { JobStage } from '../../shared/plan/job-graph.ts';
import { STREAM, kinesisRecord, roundTrip, seq, splitAt } from './stage-input-fixtures.ts';

const SHARD = 'shardId-000000000001';
const schema = schemaOf({ id: 'BIGINT NOT NULL', name: 'STRING', ts: 'TIMESTAMP(3)' });
const T0 = 1_700_000_000_000;
const OOO = 1_000;
const IDLE = 60_000;

function reader(options: Partial<SourceInputReaderOptions> = {}): SourceInputReader {
  return new SourceInputReader({
    stage: 'stage-0',
    shardId: SHARD,
    schema,
    watermark: { column: 'ts', outOfOrdernessMs: OOO, idleTimeoutMs: IDLE },
    ...options,
  });
}

/** A record of this shard. */
function rec(n: number, data: Uint8Array | string | object, arrivalMs = T0 + n) {
  return kinesisRecord({ data, shardId: SHARD, n, arrivalMs });
}

/** A heartbeat record in the bundle codec's format. */
function heartbeat(n: number, at: number, to = SHARD, arrivalMs = at, watermark = -Infinity) {
  const encoded = new BundleCodec(schema).encodeHeartbeat(
    { producerStage: 'heartbeat', producerShard: 'scheduler', targetShard: to, partitionKey: 'hb' },
    at,
    watermark,
  );
  return kinesisRecord({ data: encoded.data, shardId: SHARD, n, arrivalMs });
}

function pos(n: number): string {
  return `${SHARD}@${seq(n)}`;
}

/** Steps without bulky fields, for exact comparisons. */
function brief(steps: readonly InputStep[]): unknown[] {
  return steps.map((s) => {
    switch (s.type) {
      case 'rows':
        return ['rows', s.channel, s.rows.map((r) => r.row['id']), s.first, s.last];
      case 'watermark':
        return ['wm', s.value];
      case 'processing-time':
        return ['pt', s.value];
      case 'dead-letter':
        return ['dl', s.letter.kind];
    }
  });
}

function deadLetters(batch: StageInputBatch): DeadLetterStep[] {
  return batch.steps.filter((s): s is DeadLetterStep => s.type === 'dead-letter');
}

describe('Class: SourceInputReader', () => {
  describe('Method: read', () => {
    it('decodes user JSON objects into +I rows on the shard channel, then the bounded-out-of-orderness watermark', () => {
      const r = reader();
      const input = [
        rec(1, { id: 1, name: 'a', ts: T0 + 5_000 }),
        rec(2, { id: 2, name: null, ts: '2023-11-14 22:13:25.000', extra: true }),
        rec(3, { id: '3', ts: T0 + 4_000 }),
      ];
      const batch = r.read(input);
      expect(batch.steps[0]).toEqual({
        type: 'rows',
        channel: SHARD,
        rows: [
          { kind: '+I', row: { id: 1, name: 'a', ts: T0 + 5_000 } },
          { kind: '+I', row: { id: 2, name: null, ts: Date.parse('2023-11-14T22:13:25Z') } },
          { kind: '+I', row: { id: 3, name: null, ts: T0 + 4_000 } },
        ],
        first: seq(1),
        last: seq(3),
        // Each row's own record: the position of a dead letter should an operator reject the row.
        records: input,
      });
      expect(batch.steps[1]).toEqual({ type: 'watermark', value: T0 + 5_000 - OOO, sequenceNumber: seq(3) });
      expect(batch.steps).toHaveLength(2);
      expect(batch.stats).toMatchObject({ records: 3, rowRecords: 3, rows: 3, redelivered: 0 });
      expect(batch.watermark).toBe(T0 + 4_000);
      expect(batch.lastSequenceNumber).toBe(seq(3));
    });

    it('emits a watermark only when it advances', () => {
      const r = reader();
      r.read([rec(1, { id: 1, ts: T0 })]);
      const batch = r.read([rec(2, { id: 2, ts: T0 - 10 }), rec(3, { id: 3, ts: null })]);
      expect(brief(batch.steps)).toEqual([['rows', SHARD, [2, 3], seq(2), seq(3)]]);
    });

    it('emits no watermarks without a watermark declaration', () => {
      const r = reader({ watermark: undefined });
      const batch = r.read([rec(1, { id: 1, ts: T0 }), heartbeat(2, T0 + 10 * IDLE)]);
      expect(brief(batch.steps)).toEqual([
        ['rows', SHARD, [1], seq(1), seq(1)],
        ['pt', T0 + 10 * IDLE],
      ]);
      expect(batch.watermark).toBe(-Infinity);
    });

    it('skips records its state already covers (a redelivered batch)', () => {
      const r = reader();
      const records = [rec(1, { id: 1, ts: T0 }), rec(2, { id: 2, ts: T0 })];
      r.read(records);
      const again = r.read([...records, rec(3, { id: 3, ts: T0 })]);
      expect(again.stats).toMatchObject({ records: 3, redelivered: 2, rows: 1 });
      expect(brief(again.steps)).toEqual([['rows', SHARD, [3], seq(3), seq(3)]]);
    });

    it('refuses a record of another shard: the handler picked the wrong reader', () => {
      const r = reader();
      const other = kinesisRecord({ data: { id: 1 }, shardId: 'shardId-000000000009', n: 1, arrivalMs: T0 });
      expect(() => r.read([other])).toThrow(FlambdaError);
      try {
        r.read([other]);
      } catch (err) {
        expect(err).toMatchObject({ domain: 'internal', retry: 'fail' });
      }
    });

    it('accepts a whole KinesisStreamEvent', () => {
      const batch = reader().read({ Records: [rec(1, { id: 1, ts: T0 })] });
      expect(batch.stats.rows).toBe(1);
    });
  });

  describe('Dead letters', () => {
    it('dead-letters each kind of bad record with its exact reason, in shard order, without blocking the shard', () => {
      const r = reader({ maxRecordBytes: 1_024 });
      let jsonError = '';
      try {
        JSON.parse('{"id": 1,');
      } catch (err) {
        jsonError = (err as Error).message;
      }
      const batch = r.read([
        rec(1, { id: 1, ts: T0 }),
        rec(2, Buffer.from([0x7b, 0xff, 0xfe, 0x7d])),
        rec(3, '{"id": 1,'),
        rec(4, '[1,2]'),
        rec(5, { id: 'abc' }),
        rec(6, { name: 'no id' }),
        rec(7, JSON.stringify({ id: 7, name: 'x'.repeat(2_000) })),
        rec(8, { v: 1, t: 'h', p: 'heartbeat' }),
        rec(9, { id: 9, ts: T0 + 2_000 }),
      ]);
      expect(deadLetters(batch).map((s) => [s.letter.kind, s.letter.reason])).toEqual([
        ['undecodable', `${pos(2)}: not UTF-8`],
        ['undecodable', `${pos(3)}: invalid JSON (${jsonError}): "{\\"id\\": 1,"`],
        ['undecodable', `${pos(4)}: expected a JSON object record, got [1,2]`],
        ['schema-invalid', `${pos(5)}: field 'id' (BIGINT NOT NULL): expected an integer, got "abc"`],
        ['schema-invalid', `${pos(6)}: field 'id' (BIGINT NOT NULL): expected a value, but the field is missing`],
        ['oversized', `${pos(7)}: record of 2018 bytes is over the 1024-byte limit for one record`],
        ['undecodable', `${pos(8)}: invalid stage record: "at" must be a finite number, got nothing`],
      ]);
      // Rows before and after the bad records are delivered, each run in its place.
      expect(brief(batch.steps)).toEqual([
        ['rows', SHARD, [1], seq(1), seq(1)],
        ['wm', T0 - OOO],
        ['dl', 'undecodable'],
        ['dl', 'undecodable'],
        ['dl', 'undecodable'],
        ['dl', 'schema-invalid'],
        ['dl', 'schema-invalid'],
        ['dl', 'oversized'],
        ['dl', 'undecodable'],
        ['rows', SHARD, [9], seq(9), seq(9)],
        ['wm', T0 + 2_000 - OOO],
      ]);
      expect(batch.stats.deadLetters).toEqual({
        oversized: 1,
        undecodable: 4,
        'schema-invalid': 2,
        'unexpected-producer': 0,
        'overlapping-range': 0,
      });
    });

    it('carries the stream, shard, sequence number, arrival time, partition key and the base64 data', () => {
      const raw = '{"id": "x"}';
      const record = kinesisRecord({ data: raw, shardId: SHARD, n: 42, arrivalMs: T0 + 987, partitionKey: 'user-7' });
      const [step] = deadLetters(reader().read([record]));
      expect(step?.sequenceNumber).toBe(seq(42));
      expect(step?.letter).toEqual({
        kind: 'schema-invalid',
        reason: `${pos(42)}: field 'id' (BIGINT NOT NULL): expected an integer, got "x"`,
        stage: 'stage-0',
        stream: STREAM,
        shardId: SHARD,
        sequenceNumber: seq(42),
        approximateArrivalTimestamp: T0 + 987,
        partitionKey: 'user-7',
        data: Buffer.from(raw).toString('base64'),
        dataBytes: raw.length,
        truncated: false,
      });
    });

    it('keeps at most maxDeadLetterDataBytes leading bytes, as valid base64', () => {
      const raw = Buffer.from(`{"id": "${'y'.repeat(500)}"}`);
      const [step] = deadLetters(reader({ maxDeadLetterDataBytes: 100 }).read([rec(1, raw)]));
      const kept = Buffer.from(step?.letter.data ?? '', 'base64');
      expect(kept.length).toBe(99);
      expect(kept.equals(raw.subarray(0, 99))).toBe(true);
      expect(step?.letter).toMatchObject({ dataBytes: raw.length, truncated: true });
    });
  });

  describe('Heartbeats and idle shards', () => {
    it('advances processing time, and moves an idle shard’s watermark with processing time from where the data left it', () => {
      const r = reader();
      const E = T0 - 30_000; // event time lags arrival by 30 s on this shard
      const first = r.read([rec(1, { id: 1, ts: E }, T0)]);
      expect(brief(first.steps)).toEqual([
        ['rows', SHARD, [1], seq(1), seq(1)],
        ['wm', E - OOO],
      ]);
      // 30 s of silence: not idle yet (timeout 60 s).
      expect(brief(r.read([heartbeat(2, T0 + 30_000)]).steps)).toEqual([['pt', T0 + 30_000]]);
      // Exactly the timeout: still not idle (idle means silent for longer than the timeout).
      expect(brief(r.read([heartbeat(3, T0 + IDLE)]).steps)).toEqual([['pt', T0 + IDLE]]);
      // 90 s: idle for 30 s beyond the timeout → the event clock ran 30 s past the data's watermark.
      expect(brief(r.read([heartbeat(4, T0 + 90_000)]).steps)).toEqual([
        ['pt', T0 + 90_000],
        ['wm', E - OOO + 30_000],
      ]);
      expect(brief(r.read([heartbeat(5, T0 + 120_000)]).steps)).toEqual([
        ['pt', T0 + 120_000],
        ['wm', E - OOO + 60_000],
      ]);
      // Data resumes with the same lag: the watermark does not go back, the row is delivered.
      const resumed = r.read([rec(6, { id: 6, ts: E + 121_000 }, T0 + 121_000)]);
      expect(brief(resumed.steps)).toEqual([
        ['rows', SHARD, [6], seq(6), seq(6)],
        ['wm', E + 121_000 - OOO],
      ]);
      // The shard is active again: a heartbeat soon after does not move the watermark.
      expect(brief(r.read([heartbeat(7, T0 + 150_000)]).steps)).toEqual([['pt', T0 + 150_000]]);
    });

    it('ends a bounded input at a heartbeat carrying watermark +∞, once', () => {
      const r = reader();
      expect(brief(r.read([rec(1, { id: 1, ts: T0 }, T0)]).steps)).toEqual([
        ['rows', SHARD, [1], seq(1), seq(1)],
        ['wm', T0 - OOO],
      ]);
      expect(brief(r.read([heartbeat(2, T0 + 5, SHARD, T0 + 5, Infinity)]).steps)).toEqual([
        ['pt', T0 + 5],
        ['wm', Infinity],
      ]);
      expect(r.watermark).toBe(Infinity);
      // A repeated end marker (a redelivery) changes nothing; the snapshot keeps +∞.
      expect(brief(r.read([heartbeat(3, T0 + 6, SHARD, T0 + 6, Infinity)]).steps)).toEqual([['pt', T0 + 6]]);
      expect(roundTrip(r.snapshot())).toMatchObject({ kind: 'source', watermark: Infinity });
    });

    it('starts the clock of a shard that never had data at the first processing time it saw', () => {
      const r = reader();
      const H = T0;
      expect(brief(r.read([heartbeat(1, H)]).steps)).toEqual([['pt', H]]);
      expect(brief(r.read([heartbeat(2, H + IDLE)]).steps)).toEqual([['pt', H + IDLE]]);
      expect(brief(r.read([heartbeat(3, H + IDLE + 1_000)]).steps)).toEqual([
        ['pt', H + IDLE + 1_000],
        ['wm', H + IDLE + 1_000 - IDLE - OOO],
      ]);
    });

    it('never moves the watermark on heartbeats without an idle timeout', () => {
      const r = reader({ watermark: { column: 'ts', outOfOrdernessMs: OOO } });
      r.read([rec(1, { id: 1, ts: T0 }, T0)]);
      expect(brief(r.read([heartbeat(2, T0 + 100 * IDLE)]).steps)).toEqual([['pt', T0 + 100 * IDLE]]);
      expect(r.watermark).toBe(T0 - OOO);
    });

    it('drops and counts heartbeats meant for another shard, and ignores time going backwards', () => {
      const r = reader();
      r.read([rec(1, { id: 1, ts: T0 }, T0)]);
      const batch = r.read([heartbeat(2, T0 + 10 * IDLE, 'shardId-000000000002'), heartbeat(3, T0 - 5)]);
      expect(batch.steps).toEqual([]);
      expect(batch.stats).toMatchObject({ heartbeats: 2, misrouted: 1 });
    });

    it('ends the open run of rows before a heartbeat', () => {
      const batch = reader().read([rec(1, { id: 1, ts: T0 }, T0), heartbeat(2, T0 + 1), rec(3, { id: 3, ts: T0 }, T0 + 2)]);
      expect(brief(batch.steps)).toEqual([
        ['rows', SHARD, [1], seq(1), seq(1)],
        ['wm', T0 - OOO],
        ['pt', T0 + 1],
        ['rows', SHARD, [3], seq(3), seq(3)],
      ]);
    });
  });

  describe('Method: snapshot / restore', () => {
    /** One input record: a row, a bad record or a heartbeat. */
    type Item = { readonly kind: 'row'; readonly ts: number | null } | { readonly kind: 'bad' } | { readonly kind: 'heartbeat'; readonly gap: number };

    const itemArb: fc.Arbitrary<Item> = fc.oneof(
      { weight: 6, arbitrary: fc.record({ kind: fc.constant('row' as const), ts: fc.option(fc.integer({ min: -50_000, max: 200_000 }), { freq: 8 }) }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'bad' as const }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('heartbeat' as const), gap: fc.integer({ min: 0, max: 3 * IDLE }) }) },
    );

    /** Records for the items: arrival times rise by 1 s per record plus heartbeat gaps. */
    function recordsOf(items: readonly Item[]) {
      let clock = T0;
      return items.map((item, i) => {
        const n = i + 1;
        if (item.kind === 'heartbeat') {
          clock += item.gap;
          return heartbeat(n, clock);
        }
        clock += 1_000;
        return item.kind === 'bad' ? rec(n, '{"id": "bad"}', clock) : rec(n, { id: n, ts: item.ts === null ? null : T0 + item.ts }, clock);
      });
    }

    it('reading on from a restored snapshot gives the same steps; the watermark only rises; every good row arrives once, in order', () => {
      fc.assert(
        fc.property(fc.array(itemArb, { maxLength: 60 }), fc.array(fc.nat(), { maxLength: 8 }), (items, cuts) => {
          const records = recordsOf(items);
          const straight = reader();
          const steps: InputStep[] = [];
          for (const batch of splitAt(records, cuts)) steps.push(...straight.read(batch).steps);

          let restored = reader();
          const stepsRestored: InputStep[] = [];
          for (const batch of splitAt(records, cuts)) {
            stepsRestored.push(...restored.read(batch).steps);
            const snapshot = roundTrip(restored.snapshot());
            restored = reader();
            restored.restore(snapshot);
          }
          expect(stepsRestored).toEqual(steps);
          expect(restored.snapshot()).toEqual(straight.snapshot());

          const marks = steps.filter((s) => s.type === 'watermark').map((s) => s.value);
          for (let i = 1; i < marks.length; i++) expect(marks[i]).toBeGreaterThan(marks[i - 1] as number);
          const ids = steps.filter((s): s is RowsStep => s.type === 'rows').flatMap((s) => s.rows.map((r) => r.row['id']));
          expect(ids).toEqual(items.flatMap((item, i) => (item.kind === 'row' ? [i + 1] : [])));
          // Replaying the whole input into the final state reads nothing new.
          expect(restored.read(records).stats.redelivered).toBe(records.length);
        }),
        { numRuns: 150 },
      );
    });

    it('refuses a snapshot of another shard or kind', () => {
      const other = new SourceInputReader({ stage: 'stage-0', shardId: 'shardId-000000000002', schema });
      expect(() => reader().restore(other.snapshot())).toThrow(/cannot restore a source reader snapshot/);
    });
  });

  describe('Options', () => {
    it('rejects a watermark column that is missing or not a TIMESTAMP, and bad limits', () => {
      expect(() => reader({ watermark: { column: 'nope', outOfOrdernessMs: 0 } })).toThrow(PlanError);
      expect(() => reader({ watermark: { column: 'id', outOfOrdernessMs: 0 } })).toThrow("watermark column 'id' must be a TIMESTAMP or TIMESTAMP_LTZ, not BIGINT NOT NULL");
      expect(() => reader({ maxRecordBytes: 0 })).toThrow('maxRecordBytes must be an integer 1..1048576 (given 0)');
    });
  });
});

describe('Function: createStageInputReader', () => {
  const p = new Pipeline('readers');
  p.source('bid', {
    schema: { auction: 'BIGINT', price: 'BIGINT', date_time: 'TIMESTAMP(3)' },
    watermark: { column: 'date_time', outOfOrdernessMs: 4_000, idleTimeoutMs: 30_000 },
  })
    .groupBy('auction')
    .aggregate({ total: sum('price') })
    .sinkTo('out');
  const graph = p.jobGraph({ parallelism: 3 });
  const [sourceStage, aggStage] = graph.stages as [JobStage, JobStage];

  it('builds a source reader with the source’s schema and watermark declaration', () => {
    const r = createStageInputReader(graph, sourceStage, { shardId: SHARD });
    expect(r).toBeInstanceOf(SourceInputReader);
    expect(r.stage).toBe(sourceStage.id);
    const batch = r.read([rec(1, { auction: 1, price: 5, date_time: T0 }, T0), heartbeat(2, T0 + 31_000)]);
    expect(brief(batch.steps).slice(1)).toEqual([
      ['wm', T0 - 4_000],
      ['pt', T0 + 31_000],
      ['wm', T0 - 4_000 + 1_000],
    ]);
  });

  it('builds an exchange reader waiting for the upstream stage’s shards, with the sources’ idle timeout', () => {
    const r = createStageInputReader(graph, aggStage, { shardId: 'shardId-000000000000' });
    expect(r.kind).toBe('exchange');
    const snapshot = r.snapshot();
    expect(snapshot.kind === 'exchange' && snapshot.watermarks).toMatchObject({ expected: 3, idleTimeoutMs: 30_000 });
    const overridden = createStageInputReader(graph, aggStage, { shardId: 'shardId-000000000000', idleTimeoutMs: 5 }).snapshot();
    expect(overridden.kind === 'exchange' && overridden.watermarks.idleTimeoutMs).toBe(5);
  });

  it('names a missing source or upstream stage', () => {
    expect(() => createStageInputReader({ ...graph, sources: [] }, sourceStage, { shardId: SHARD })).toThrow(
      `stage ${sourceStage.id} reads unknown source 'bid'`,
    );
    expect(() => createStageInputReader({ ...graph, stages: [aggStage] }, aggStage, { shardId: SHARD })).toThrow(PlanError);
  });
});
