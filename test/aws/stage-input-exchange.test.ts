import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { KinesisStreamRecord } from 'aws-lambda';
import { BundleCodec, stageRecordKey } from '../../shared/aws/kinesis/bundle-codec.ts';
import type { BundleAddress, EncodedRecord } from '../../shared/aws/kinesis/bundle-codec.ts';
import { ExchangeInputReader } from '../../shared/aws/stage-input/exchange-reader.ts';
import type { ExchangeInputReaderOptions } from '../../shared/aws/stage-input/exchange-reader.ts';
import type { DeadLetterStep, InputStep, StageInputSnapshot } from '../../shared/aws/stage-input/types.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import { schemaOf } from '../../shared/core/type-parse.ts';
import { InputWatermarks } from '../../shared/runtime/watermarks.ts';
import { kinesisRecord, roundTrip, seq, splitAt } from './stage-input-fixtures.ts';

const TARGET = 'shardId-000000000000';
const OTHER = 'shardId-000000000009';
const UPSTREAM = 'stage-0';
const schema = schemaOf({ k: 'BIGINT NOT NULL', v: 'STRING' });
/** Small records, so that bundles of a few rows split into several parts. */
const codec = new BundleCodec(schema, { maxRecordBytes: 1_024 });

function producer(i: number): string {
  return `shardId-00000000010${i}`;
}

function reader(options: Partial<ExchangeInputReaderOptions> = {}): ExchangeInputReader {
  return new ExchangeInputReader({ stage: 'stage-1', shardId: TARGET, schema, upstreamStage: UPSTREAM, upstreamShards: 2, ...options });
}

function address(from: number, first: number, last: number, to = TARGET, stage = UPSTREAM): BundleAddress {
  return { producerStage: stage, producerShard: producer(from), first: seq(first), last: seq(last), targetShard: to, partitionKey: `${stage}/${producer(from)}` };
}

function row(k: number, v: string | null = null, kind: ChangeRow['kind'] = '+I'): ChangeRow {
  return { kind, row: { k, v } };
}

/** The records of this shard: the n-th delivered record arrives at n·10 ms. */
function deliver(encoded: readonly (EncodedRecord | Buffer | string)[], start = 1): KinesisStreamRecord[] {
  return encoded.map((e, i) => {
    const data = Buffer.isBuffer(e) || typeof e === 'string' ? e : e.data;
    return kinesisRecord({ data, shardId: TARGET, n: start + i, arrivalMs: (start + i) * 10 });
  });
}

function pos(n: number): string {
  return `${TARGET}@${seq(n)}`;
}

/** Steps without bulky fields, for exact comparisons. */
function brief(steps: readonly InputStep[]): unknown[] {
  return steps.map((s) => {
    switch (s.type) {
      case 'rows':
        return ['rows', s.channel, s.rows.map((r) => `${r.kind}${String(r.row['k'])}`)];
      case 'watermark':
        return ['wm', s.value];
      case 'processing-time':
        return ['pt', s.value];
      case 'dead-letter':
        return ['dl', s.letter.kind];
    }
  });
}

function deadLetters(steps: readonly InputStep[]): [string, string][] {
  return steps.filter((s): s is DeadLetterStep => s.type === 'dead-letter').map((s) => [s.letter.kind, s.letter.reason]);
}

describe('Class: ExchangeInputReader', () => {
  describe('Method: read', () => {
    it('delivers each bundle as a rows step on its producer channel, then the minimum watermark over the channels', () => {
      const r = reader();
      const batch = r.read(
        deliver([
          ...codec.encodeRows(address(0, 1, 5), [row(1), row(2, null, '-U')], 100),
          ...codec.encodeRows(address(1, 1, 3), [row(3)], 50),
          codec.encodeWatermark(address(0, 6, 9), 200),
          codec.encodeWatermark(address(1, 4, 4), 300),
        ]),
      );
      expect(brief(batch.steps)).toEqual([
        ['rows', producer(0), ['+I1', '-U2']],
        ['rows', producer(1), ['+I3']],
        ['wm', 50],
        ['wm', 200],
      ]);
      const [first] = batch.steps;
      expect(first).toMatchObject({ first: seq(1), last: seq(1), bundle: { producerShard: producer(0), first: seq(1), last: seq(5), part: 0, parts: 1 } });
      expect(batch.stats).toMatchObject({ records: 4, rowRecords: 2, rows: 3, watermarkRecords: 2, duplicates: 0, misrouted: 0 });
      expect(batch.watermark).toBe(200);
    });

    it('applies the watermark of a split bundle after its last part only', () => {
      const rows = Array.from({ length: 40 }, (_, i) => row(i, 'x'.repeat(40)));
      const parts = codec.encodeRows(address(0, 1, 2), rows, 500);
      expect(parts.length).toBeGreaterThan(2);
      const r = reader({ upstreamShards: 1 });
      const steps = r.read(deliver(parts)).steps;
      expect(steps.map((s) => s.type)).toEqual([...parts.map(() => 'rows'), 'watermark']);
      expect(steps.flatMap((s) => (s.type === 'rows' ? s.rows : []))).toEqual(rows);
    });

    it('drops and counts records meant for another shard (misrouted after a reshard), without touching any state', () => {
      const r = reader({ upstreamShards: 1 });
      const before = r.snapshot();
      const batch = r.read(
        deliver([
          ...codec.encodeRows(address(0, 1, 2, OTHER), [row(1)], 100),
          codec.encodeWatermark(address(0, 3, 3, OTHER), 200),
          codec.encodeHeartbeat({ producerStage: UPSTREAM, producerShard: producer(0), targetShard: OTHER, partitionKey: 'p' }, 5, 300),
        ]),
      );
      expect(batch.steps).toEqual([]);
      expect(batch.stats).toMatchObject({ misrouted: 3, heartbeats: 1 });
      const after = r.snapshot();
      expect(after.kind === 'exchange' && after.progress).toEqual(before.kind === 'exchange' && before.progress);
      expect(after.kind === 'exchange' && after.watermarks.channels).toEqual([]);
      // The rows re-sent to the right shard are applied.
      expect(brief(r.read(deliver(codec.encodeRows(address(0, 1, 2), [row(1)], 100), 10)).steps)).toEqual([
        ['rows', producer(0), ['+I1']],
        ['wm', 100],
      ]);
    });

    it('drops a retried record, a replayed range and a sub-range of applied input as duplicates', () => {
      const r = reader({ upstreamShards: 1 });
      const a = codec.encodeRows(address(0, 1, 10), [row(1)], 100);
      const b = codec.encodeRows(address(0, 11, 20), [row(2)], 200);
      const batch = r.read(
        deliver([
          ...a,
          ...a, // PutRecords retried after an unknown outcome
          ...b,
          ...a, // the producer replayed its input from range 1..10
          ...b,
          ...codec.encodeRows(address(0, 1, 5), [row(1)], 100), // a bisected replay of part of 1..10
          codec.encodeWatermark(address(0, 12, 20), 999), // inside applied input: a replay too
          ...codec.encodeRows(address(0, 21, 30), [row(3)], 300),
        ]),
      );
      expect(brief(batch.steps)).toEqual([
        ['rows', producer(0), ['+I1']],
        ['wm', 100],
        ['rows', producer(0), ['+I2']],
        ['wm', 200],
        ['rows', producer(0), ['+I3']],
        ['wm', 300],
      ]);
      expect(batch.stats.duplicates).toBe(5);
    });

    it('dead-letters a bundle that overlaps applied input without replaying it, and keeps the high-water mark', () => {
      const r = reader({ upstreamShards: 1 });
      const rows = Array.from({ length: 30 }, (_, i) => row(i, 'y'.repeat(40)));
      const parts = codec.encodeRows(address(0, 1, 10), rows, 100);
      // The producer emitted part 1 of range 1..10, crashed, and re-processed 1..15 in one batch.
      const rebatched = codec.encodeRows(address(0, 1, 15), rows, 150);
      const batch = r.read(deliver([parts[0] as EncodedRecord, ...rebatched]));
      const parts0 = parts.length;
      expect(deadLetters(batch.steps)).toEqual(
        rebatched.map((_, i) => [
          'overlapping-range',
          `${pos(2 + i)}: bundle ${producer(0)} ${seq(1)}..${seq(15)} part ${i + 1}/${rebatched.length} of ${UPSTREAM} overlaps the input its ` +
            `channel already applied (last applied: ${producer(0)} ${seq(1)}..${seq(10)} part 1/${parts0}) without replaying it; applying it could count rows twice`,
        ]),
      );
      const snapshot = r.snapshot();
      expect(snapshot.kind === 'exchange' && snapshot.progress).toEqual([{ producerShard: producer(0), first: seq(1), last: seq(10), part: 0, parts: parts0 }]);
      // The rest of the original range still applies.
      const rest = r.read(deliver(parts.slice(1), 50));
      expect(rest.stats).toMatchObject({ rowRecords: parts0 - 1, gaps: 0 });
    });

    it('counts gaps: a missing part, or a new range before the previous one was complete', () => {
      const r = reader({ upstreamShards: 1 });
      const rows = Array.from({ length: 80 }, (_, i) => row(i, 'z'.repeat(40)));
      const parts = codec.encodeRows(address(0, 1, 10), rows, 100);
      expect(parts.length).toBeGreaterThan(3);
      const batch = r.read(deliver([parts[0] as EncodedRecord, parts[2] as EncodedRecord, ...codec.encodeRows(address(0, 11, 12), [row(99)], 200)]));
      expect(batch.stats).toMatchObject({ rowRecords: 3, gaps: 2 });
    });

    it('marks channels active on heartbeats, emits processing time, and ignores the heartbeat’s watermark', () => {
      const r = reader({ upstreamShards: 1 });
      const hb = codec.encodeHeartbeat({ producerStage: UPSTREAM, producerShard: producer(0), targetShard: TARGET, partitionKey: 'p' }, 5_000, 700);
      const batch = r.read(deliver([hb]));
      expect(brief(batch.steps)).toEqual([['pt', 5_000]]);
      expect(batch.stats.heartbeats).toBe(1);
      expect(batch.watermark).toBe(-Infinity);
      const snapshot = r.snapshot();
      expect(snapshot.kind === 'exchange' && snapshot.watermarks.channels).toEqual([{ channel: producer(0), watermark: -Infinity, lastActive: 5_000, idle: false }]);
    });
  });

  describe('Scheduled heartbeats', () => {
    it('take a scheduled heartbeat as a tick of processing time, with no channel, and find silent channels idle', () => {
      const r = reader({ upstreamShards: 1, idleTimeoutMs: 1_000 });
      const data = codec.encodeRows(address(0, 1, 1), [row(1)], 400)[0] as EncodedRecord;
      expect(r.read(deliver([data])).watermark).toBe(400);
      const scheduled = codec.encodeHeartbeat({ producerStage: 'heartbeat', producerShard: 'schedule', targetShard: TARGET, partitionKey: 'heartbeat' }, 9_000_000_000_000, -Infinity);
      const batch = r.read(deliver([scheduled], 2));
      // Processing time moves and the only channel, silent past the timeout, is found idle; the
      // schedule itself is no channel and no dead letter.
      expect(brief(batch.steps)).toEqual([['pt', 9_000_000_000_000]]);
      expect(batch.stats.deadLetters['unexpected-producer']).toBe(0);
      const snapshot = r.snapshot();
      expect(snapshot.kind === 'exchange' && snapshot.watermarks.channels.map((c) => [c.channel, c.idle])).toEqual([[producer(0), true]]);
    });
  });

  describe('Dead letters', () => {
    it('dead-letters each kind of bad record with its exact reason and goes on', () => {
      const r = reader({ upstreamShards: 1, maxRecordBytes: 2_000 });
      const foreign = new BundleCodec(schemaOf({ k: 'BIGINT NOT NULL' }));
      const good = codec.encodeRows(address(0, 1, 1), [row(1)], 10)[0] as EncodedRecord;
      const badValue = good.data.toString('utf8').replace('[[0,1,null]]', '[[0,"abc",null]]');
      const badKind = good.data.toString('utf8').replace('[[0,1,null]]', '[[7,1,null]]');
      const badRange = JSON.stringify({ ...JSON.parse(good.data.toString('utf8')), f: seq(9), l: seq(2) });
      const batch = r.read(
        deliver([
          'not json',
          Buffer.from([0xc3, 0x28]),
          '{"v":2}',
          foreign.encodeRows(address(0, 2, 2), [{ kind: '+I', row: { k: 1 } }], 10)[0] as EncodedRecord,
          badValue,
          badKind,
          badRange,
          'x'.repeat(2_001),
          codec.encodeRows(address(0, 3, 3, TARGET, 'stage-7'), [row(1)], 10)[0] as EncodedRecord,
          ...codec.encodeRows(address(0, 4, 4), [row(4)], 40),
        ]),
      );
      let jsonError = '';
      try {
        JSON.parse('not json');
      } catch (err) {
        jsonError = (err as Error).message;
      }
      expect(deadLetters(batch.steps)).toEqual([
        ['undecodable', `${pos(1)}: invalid stage record: not JSON (${jsonError}): not json`],
        ['undecodable', `${pos(2)}: invalid stage record: not UTF-8`],
        ['undecodable', `${pos(3)}: invalid stage record: unsupported format version 2 (this reader reads version 1)`],
        [
          'schema-invalid',
          `${pos(4)}: invalid stage record: schema fingerprint "${foreign.fingerprint}" does not match this exchange's schema (${codec.fingerprint}): producer and receiver disagree on the columns`,
        ],
        ['schema-invalid', `${pos(5)} row 0: field 'k' (BIGINT NOT NULL): expected an integer, got "abc"`],
        ['undecodable', `${pos(6)}: invalid stage record: row 0 has kind 7; expected 0 (+I), 1 (-U), 2 (+U) or 3 (-D)`],
        ['undecodable', `${pos(7)}: invalid stage record: "f" and "l" must be Kinesis sequence numbers with f <= l, got "${seq(9)}".."${seq(2)}"`],
        ['oversized', `${pos(8)}: record of 2001 bytes is over the 2000-byte limit for one record`],
        ['unexpected-producer', `${pos(9)}: record from stage "stage-7" (shard "${producer(0)}"), but stage-1 reads the exchange of "${UPSTREAM}"`],
      ]);
      expect(brief(batch.steps).slice(-2)).toEqual([
        ['rows', producer(0), ['+I4']],
        ['wm', 40],
      ]);
      expect(batch.stats.deadLetters).toEqual({ oversized: 1, undecodable: 5, 'schema-invalid': 2, 'unexpected-producer': 1, 'overlapping-range': 0 });
    });
  });

  describe('Idleness', () => {
    it('drops a silent channel out of the minimum after the timeout; it rejoins when it sends again, and the watermark never regresses', () => {
      const r = reader({ idleTimeoutMs: 100 });
      const steps = [
        ...r.read(deliver([codec.encodeWatermark(address(0, 1, 1), 1_000), codec.encodeWatermark(address(1, 1, 1), 500)], 1)).steps, // t=10,20
        ...r.read(deliver([codec.encodeWatermark(address(0, 2, 2), 2_000)], 11)).steps, // t=110: channel 1 silent 90 ms
        ...r.read(deliver([codec.encodeWatermark(address(0, 3, 3), 3_000)], 13)).steps, // t=130: silent 110 ms → idle
        ...r.read(deliver([codec.encodeWatermark(address(1, 2, 2), 600)], 14)).steps, // channel 1 is back, below
        ...r.read(deliver([codec.encodeWatermark(address(0, 4, 4), 4_000), codec.encodeWatermark(address(1, 3, 3), 5_000)], 15)).steps,
      ];
      expect(brief(steps)).toEqual([
        ['wm', 500],
        ['wm', 3_000],
        ['wm', 4_000],
      ]);
    });

    it('keeps a channel that only sends heartbeats active', () => {
      const r = reader({ idleTimeoutMs: 100 });
      const hb = (at: number) => codec.encodeHeartbeat({ producerStage: UPSTREAM, producerShard: producer(1), targetShard: TARGET, partitionKey: 'p' }, at, 0);
      const steps = r.read(
        deliver([
          codec.encodeWatermark(address(1, 1, 1), 500),
          codec.encodeWatermark(address(0, 1, 1), 1_000),
          hb(80),
          hb(160),
          codec.encodeWatermark(address(0, 2, 2), 2_000), // t=50 by arrival, 160 by the heartbeats
        ]),
      ).steps;
      expect(brief(steps).filter((s) => (s as string[])[0] === 'wm')).toEqual([['wm', 500]]);
    });

    it('waits for every upstream shard before the first watermark, unless the missing ones stay silent past the timeout', () => {
      const strict = reader({ upstreamShards: 3 });
      expect(strict.read(deliver([codec.encodeWatermark(address(0, 1, 1), 100), codec.encodeWatermark(address(1, 1, 1), 100)])).steps).toEqual([]);
      const idle = reader({ upstreamShards: 3, idleTimeoutMs: 100 });
      const steps = idle.read(
        deliver([codec.encodeWatermark(address(0, 1, 1), 100), codec.encodeWatermark(address(1, 1, 1), 200), codec.encodeWatermark(address(0, 2, 2), 300)], 1),
      ).steps;
      expect(steps).toEqual([]);
      // 110 ms after the first record: the third shard never spoke and drops out.
      expect(brief(idle.read(deliver([codec.encodeWatermark(address(0, 3, 3), 400)], 12)).steps)).toEqual([['wm', 200]]);
    });
  });

  describe('Property: random interleavings with duplicates, replays, misroutes and heartbeats', () => {
    /** One producer batch: rows for this shard and the producer's watermark after them. */
    interface ProducerBatch {
      readonly rows: number;
      readonly width: number;
      readonly advance: number;
    }
    /** One delivery action. */
    interface Action {
      readonly producer: number;
      readonly op: 'next' | 'dup' | 'replay' | 'misroute' | 'heartbeat';
      readonly back: number;
    }
    const batchArb: fc.Arbitrary<ProducerBatch> = fc.record({
      rows: fc.oneof({ weight: 1, arbitrary: fc.constant(0) }, { weight: 4, arbitrary: fc.integer({ min: 1, max: 25 }) }),
      width: fc.integer({ min: 0, max: 60 }),
      advance: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 500 })),
    });
    const actionArb: fc.Arbitrary<Action> = fc.record({
      producer: fc.nat({ max: 3 }),
      op: fc.constantFrom<Action['op']>('next', 'next', 'next', 'next', 'dup', 'replay', 'misroute', 'heartbeat'),
      back: fc.nat({ max: 3 }),
    });
    const scenarioArb = fc.record({
      producers: fc.array(fc.array(batchArb, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 4 }),
      actions: fc.array(actionArb, { maxLength: 80 }),
      cuts: fc.array(fc.nat(), { maxLength: 10 }),
      idleTimeoutMs: fc.option(fc.integer({ min: 20, max: 400 }), { freq: 2 }),
      failures: fc.array(fc.boolean(), { maxLength: 12 }),
      endWithInfinity: fc.boolean(),
    });

    /** Everything a producer shard emits to TARGET, in order, with where each input batch starts. */
    function producerOutput(index: number, batches: readonly ProducerBatch[], endWithInfinity: boolean) {
      const records: EncodedRecord[] = [];
      const starts: number[] = [];
      const rows: ChangeRow[] = [];
      let watermark = 0;
      let key = index * 10_000;
      batches.forEach((b, i) => {
        starts.push(records.length);
        watermark += b.advance;
        const wm = endWithInfinity && i === batches.length - 1 ? Infinity : watermark;
        const list = Array.from({ length: b.rows }, () => row(++key, 'w'.repeat(b.width), key % 3 === 0 ? '-D' : '+I'));
        rows.push(...list);
        const addr = address(index, i * 100 + 1, i * 100 + 50);
        records.push(...(list.length > 0 ? codec.encodeRows(addr, list, wm) : [codec.encodeWatermark(addr, wm)]));
      });
      return { records, starts, rows };
    }

    /** The same record, meant for another shard. */
    function misrouted(record: EncodedRecord): Buffer {
      return Buffer.from(JSON.stringify({ ...JSON.parse(record.data.toString('utf8')), to: OTHER }));
    }

    it('delivers every row exactly once per channel in order; watermarks rise and equal the minimum over active channels; failures and snapshots change nothing', () => {
      fc.assert(
        fc.property(scenarioArb, (scenario) => {
          const outputs = scenario.producers.map((batches, i) => producerOutput(i, batches, scenario.endWithInfinity));
          const n = outputs.length;
          // Build this shard's stream from the actions, then drain every producer.
          const stream: (EncodedRecord | Buffer)[] = [];
          const cursors = outputs.map(() => 0);
          const replays = outputs.map(() => 0);
          let clock = 0;
          for (const action of scenario.actions) {
            const p = action.producer % n;
            const out = outputs[p]!;
            const c = cursors[p]!;
            switch (action.op) {
              case 'next':
                if (c < out.records.length) stream.push(out.records[(cursors[p] = c + 1) - 1]!);
                break;
              case 'dup':
                if (c > 0) stream.push(out.records[c - 1]!);
                break;
              case 'replay': {
                // Re-process from an earlier input batch: its records come again, identical.
                const starts = out.starts.filter((s) => s <= c);
                if (replays[p]! < 3 && starts.length > 0) {
                  replays[p]!++;
                  cursors[p] = starts[Math.max(0, starts.length - 1 - action.back)]!;
                }
                break;
              }
              case 'misroute':
                if (c < out.records.length) stream.push(misrouted(out.records[c]!));
                break;
              case 'heartbeat':
                clock += 7;
                stream.push(codec.encodeHeartbeat({ producerStage: UPSTREAM, producerShard: producer(p), targetShard: TARGET, partitionKey: 'p' }, clock, 0).data);
                break;
            }
          }
          for (let progress = true; progress; ) {
            progress = false;
            outputs.forEach((out, p) => {
              if (cursors[p]! < out.records.length) {
                stream.push(out.records[cursors[p]!]!);
                cursors[p]!++;
                progress = true;
              }
            });
          }
          const records = deliver(stream.map((s) => (Buffer.isBuffer(s) ? s : s.data)), 1);
          const timeout = scenario.idleTimeoutMs ?? undefined;
          const options = { upstreamShards: n, ...(timeout === undefined ? {} : { idleTimeoutMs: timeout }) };

          // Reference: dedup by the full id with a set, watermarks by InputWatermarks over
          // channel indices, processing time = the largest arrival time or heartbeat `at`.
          const expected: unknown[] = [];
          const seen = new Set<string>();
          const model = new InputWatermarks(n, timeout);
          let now = -Infinity;
          // InputWatermarks starts every channel as last active at 0; the reader's clock starts
          // at the first record's arrival.
          for (let p = 0; p < n; p++) model.markActive(p, 10);
          for (const r of records) {
            const decoded = codec.decode(Buffer.from(r.kinesis.data, 'base64'));
            now = Math.max(now, Math.round(r.kinesis.approximateArrivalTimestamp * 1000));
            if (decoded.type === 'heartbeat') {
              const p = Number(decoded.producerShard.slice(-1));
              now = Math.max(now, decoded.at);
              model.markActive(p, now);
              const w = model.recompute(now);
              if (w !== undefined) expected.push(['wm', w]);
              continue;
            }
            if (decoded.id.targetShard !== TARGET || seen.has(stageRecordKey(decoded))) continue;
            seen.add(stageRecordKey(decoded));
            const p = Number(decoded.id.producerShard.slice(-1));
            if (decoded.type === 'rows') expected.push(['rows', producer(p), decoded.rows.map((x) => `${x.kind}${String(x.row['k'])}`)]);
            let w: number | undefined;
            if (decoded.watermark === undefined) {
              model.markActive(p, now);
              w = model.recompute(now);
            } else {
              w = model.update(p, decoded.watermark, now);
            }
            if (w !== undefined) expected.push(['wm', w]);
          }

          // The reader, batch by batch; some batches fail once (state restored from the last
          // commit, the batch read again); every commit goes through a JSON round trip.
          let current = reader(options);
          let committed: StageInputSnapshot = roundTrip(current.snapshot());
          const steps: InputStep[] = [];
          const batches = splitAt(records, scenario.cuts);
          batches.forEach((batch, i) => {
            if (scenario.failures[i] === true) {
              current.read(batch);
              current = reader(options);
              current.restore(committed);
            }
            steps.push(...current.read(batch).steps);
            committed = roundTrip(current.snapshot());
            if (scenario.failures[i + 1] === true) {
              // Committed, but Lambda delivers the batch again: nothing new is read.
              expect(current.read(batch).steps).toEqual([]);
            }
          });
          const straight = reader(options).read(records);
          const withoutTime = (list: readonly InputStep[]) => brief(list).filter((s) => (s as string[])[0] !== 'pt');
          expect(withoutTime(steps)).toEqual(expected);
          expect(withoutTime(straight.steps)).toEqual(expected);

          // Exactly once per channel, in order.
          outputs.forEach((out, p) => {
            const got = steps.flatMap((s) => (s.type === 'rows' && s.channel === producer(p) ? s.rows : []));
            expect(got).toEqual(out.rows);
          });
          // Watermarks only rise; without idleness they end at the minimum of the producers' last.
          const marks = steps.filter((s) => s.type === 'watermark').map((s) => s.value);
          for (let i = 1; i < marks.length; i++) expect(marks[i]).toBeGreaterThan(marks[i - 1] as number);
          if (timeout === undefined) {
            const lasts = scenario.producers.map((b) => (scenario.endWithInfinity ? Infinity : b.reduce((sum, x) => sum + x.advance, 0)));
            expect(current.watermark).toBe(Math.min(...lasts));
          }
          expect(steps.filter((s) => s.type === 'dead-letter')).toEqual([]);
        }),
        { numRuns: 200 },
      );
    });
  });
});
