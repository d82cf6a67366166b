/**
 * The input of an EXCHANGE stage: bundles (bundle-codec.ts) written by the upstream stage's
 * shards, one input channel per producer shard (`s`).
 *
 * Per record, in shard order:
 *
 * 1. Oversized, undecodable and schema-invalid records are dead-lettered (`BundleCodec.decode`
 *    validates the header, the schema fingerprint and every row with the JSON codec).
 * 2. A record whose `to` is not this shard is dropped and counted: it was misrouted by a
 *    producer with a stale shard map after a reshard, and the producer re-sends its rows to the
 *    right shard (bundle-codec.ts, "`to` is checked by receivers").
 * 3. A record from another stage than the upstream one is dead-lettered (`unexpected-producer`).
 * 4. Rows and watermark-only records pass the channel's high-water mark (high-water-mark.ts):
 *    duplicates and replays are dropped, a record overlapping applied input without being a
 *    replay is dead-lettered (`overlapping-range`). An applied bundle yields a `rows` step, then
 *    its watermark (last part only) goes into the channel watermarks.
 * 5. Heartbeats mark their channel active at their processing time `at` (they keep a producer
 *    that has nothing to send from being taken for idle) and may yield a `processing-time`
 *    step. Their `wm` is ignored: every watermark advance also reaches this shard as a rows or
 *    watermark-only record, which is range-identified, ordered and deduplicated, whereas a
 *    heartbeat has no input range — one written by a container whose previous write failed
 *    half-way would carry that write's watermark ahead of its undelivered rows.
 *
 * The combined watermark (channel-watermarks.ts) is the minimum over the channels, idle ones
 * excluded, and a `watermark` step is emitted whenever it advances.
 *
 * A two-input stage (a join) reads one stream both its producers write into: records of the
 * `rightUpstream` stage decode with that side's schema and their rows are tagged `right`, the
 * others' `left`. Its channels are then named `stage/shard` (both producers may use the same
 * shard ids), and the watermark is the minimum over the channels of both sides — a join's
 * watermark is the minimum over its two inputs, as the embedded runtime combines them. Processing time is the
 * largest of the records' arrival times (`approximateArrivalTimestamp`) and the heartbeats'
 * `at`: idleness is decided by the records themselves, so a replay decides the same, and a
 * shard read late (a high iterator age) does not take its channels for idle.
 *
 * The channel watermarks and high-water marks are plain data: `snapshot()` goes into the
 * runtime's checkpoint, `restore()` brings it back, and reading on from a restored reader gives
 * the same steps as reading on from the original.
 */
import { HEARTBEAT_PRODUCER } from '../heartbeat/heartbeat-writer.ts';
import type { KinesisStreamRecord } from 'aws-lambda';
import { FlambdaError, PlanError, RecordError } from '../../core/errors.ts';
import type { Schema } from '../../core/types.ts';
import { BundleCodec } from '../kinesis/bundle-codec.ts';
import type { BundleId, StageRecord } from '../kinesis/bundle-codec.ts';
import { ChannelWatermarks } from './channel-watermarks.ts';
import { classifyBundle, progressOf } from './high-water-mark.ts';
import type { ChannelProgress } from './high-water-mark.ts';
import { InputReaderBase, checkIntegerOption } from './input-reader.ts';
import type { BatchContext, InputReaderOptions } from './input-reader.ts';
import { arrivalMillisOf, compareSequenceNumbers, dataOf, isSequenceNumber } from './kinesis-records.ts';
import type { ExchangeInputSnapshot, RecordDeadLetterKind, StageInputReader, StageInputSnapshot } from './types.ts';

/** Options of {@link ExchangeInputReader}. */
export interface ExchangeInputReaderOptions extends InputReaderOptions {
  /** The exchange's row schema (`JobStage.inputSchema`). */
  readonly schema: Schema;
  /** The stage writing the exchange (`StageInput.fromStage`); records of other stages are dead-lettered. */
  readonly upstreamStage: string;
  /** The upstream stage's parallelism: how many channels the watermark waits for (1..10000). */
  readonly upstreamShards: number;
  /**
   * A channel silent for longer than this (ms of processing time) stops holding back the
   * watermark.
   * @default - never
   */
  readonly idleTimeoutMs?: number;
  /**
   * The second (right) input of a two-input stage: its producer stage, that stage's
   * parallelism and its rows' schema. `upstreamStage` / `upstreamShards` / `schema` are then the
   * left input's.
   * @default - a one-input stage
   */
  readonly rightUpstream?: { readonly stage: string; readonly shards: number; readonly schema: Schema };
}

/** `(s, f..l, n/of)` for messages. */
function describeId(id: Pick<BundleId, 'producerShard' | 'first' | 'last' | 'part' | 'parts'>): string {
  return `${id.producerShard} ${id.first}..${id.last} part ${id.part + 1}/${id.parts}`;
}

/** Reads the records of one exchange shard; see the module header. */
export class ExchangeInputReader extends InputReaderBase implements StageInputReader {
  /** Always `exchange`. */
  readonly kind = 'exchange' as const;

  private readonly codec: BundleCodec;
  private readonly upstreamStage: string;
  /** The right input of a two-input stage, with its codec. */
  private readonly right: { readonly stage: string; readonly codec: BundleCodec } | undefined;
  private readonly watermarks: ChannelWatermarks;
  private readonly progress = new Map<string, ChannelProgress>();

  /** @throws PlanError for bad options or a schema the row codec rejects. */
  constructor(options: ExchangeInputReaderOptions) {
    super(options);
    if (typeof options.upstreamStage !== 'string' || options.upstreamStage.length === 0) {
      throw new PlanError('upstreamStage must be a non-empty string');
    }
    checkIntegerOption('upstreamShards', options.upstreamShards, 1, 10_000);
    const timeout = options.idleTimeoutMs;
    if (timeout !== undefined && !(timeout >= 0 && Number.isFinite(timeout))) {
      throw new PlanError(`idleTimeoutMs must be a finite number >= 0 (given ${timeout})`);
    }
    this.codec = new BundleCodec(options.schema);
    this.upstreamStage = options.upstreamStage;
    const right = options.rightUpstream;
    if (right !== undefined) {
      if (typeof right.stage !== 'string' || right.stage.length === 0 || right.stage === options.upstreamStage) {
        throw new PlanError(`rightUpstream.stage must be a non-empty string other than upstreamStage (given ${JSON.stringify(right.stage)})`);
      }
      checkIntegerOption('rightUpstream.shards', right.shards, 1, 10_000);
      this.right = { stage: right.stage, codec: new BundleCodec(right.schema) };
    }
    const channels = options.upstreamShards + (right?.shards ?? 0);
    this.watermarks = new ChannelWatermarks(channels, timeout === undefined ? {} : { idleTimeoutMs: timeout });
  }

  /** The input a producer stage feeds: `right` for a two-input stage's right producer. */
  private sideOf(stage: string): 'left' | 'right' {
    return this.right !== undefined && stage === this.right.stage ? 'right' : 'left';
  }

  /** A producer shard's channel: its shard id, or `stage/shard` in a two-input stage. */
  private channelOf(stage: string, shard: string): string {
    return this.right === undefined ? shard : `${stage}/${shard}`;
  }

  /** Decodes a record with the codec of its producer's side. */
  private decodeRecord(data: Uint8Array | string, position: string): StageRecord {
    if (this.right === undefined) return this.codec.decode(data, position);
    const parsed = this.codec.parse(data, position);
    return (parsed['p'] === this.right.stage ? this.right.codec : this.codec).decodeParsed(parsed, position);
  }

  /** The combined input watermark. */
  get watermark(): number {
    return this.watermarks.current;
  }

  protected get processingTime(): number {
    return this.watermarks.processingTime;
  }

  /** Nothing to flush: every bundle is its own step. */
  protected flush(): void {}

  protected readRecord(record: KinesisStreamRecord, position: string, batch: BatchContext): void {
    // Every record read is a tick of processing time, even one that is then dropped; the first
    // one starts the clock of the channels not heard from yet.
    const before = this.watermarks.processingTime;
    const now = this.watermarks.advanceTime(arrivalMillisOf(record));
    let decoded: StageRecord;
    try {
      decoded = this.decodeRecord(dataOf(record), position);
    } catch (err) {
      if (!(err instanceof RecordError)) throw err;
      this.deadLetter(batch, record, this.errorKind(err, position), err.message);
      return;
    }
    const sequenceNumber = record.kinesis.sequenceNumber;
    if (decoded.type === 'heartbeat') {
      batch.stats.heartbeats++;
      if (decoded.targetShard !== this.shardId) {
        batch.stats.misrouted++;
        return;
      }
      if (decoded.producerStage === HEARTBEAT_PRODUCER.stage) {
        // The heartbeat schedule (functions/heartbeat.ts), not an upstream producer: a tick of
        // processing time (processing-time timers fire, idle channels are found idle), no channel.
        const at = this.watermarks.advanceTime(decoded.at);
        if (at > before) batch.steps.push({ type: 'processing-time', value: at, sequenceNumber });
        this.emitWatermark(batch, this.watermarks.recompute(at), sequenceNumber);
        return;
      }
      if (!this.fromUpstream(batch, record, position, decoded.producerStage, decoded.producerShard)) return;
      this.watermarks.markActive(this.channelOf(decoded.producerStage, decoded.producerShard), decoded.at);
      const at = this.watermarks.processingTime;
      if (at > before) batch.steps.push({ type: 'processing-time', value: at, sequenceNumber });
      this.emitWatermark(batch, this.watermarks.recompute(at), sequenceNumber);
      return;
    }

    const id = decoded.id;
    if (id.targetShard !== this.shardId) {
      batch.stats.misrouted++;
      return;
    }
    if (!this.fromUpstream(batch, record, position, id.producerStage, id.producerShard)) return;
    if (!isSequenceNumber(id.first) || !isSequenceNumber(id.last) || compareSequenceNumbers(id.first, id.last) > 0) {
      this.deadLetter(
        batch,
        record,
        'undecodable',
        `${position}: invalid stage record: "f" and "l" must be Kinesis sequence numbers with f <= l, got ${JSON.stringify(id.first)}..${JSON.stringify(id.last)}`,
      );
      return;
    }
    const channel = this.channelOf(id.producerStage, id.producerShard);
    const mark = this.progress.get(channel);
    const verdict = classifyBundle(mark, id);
    if (verdict.action === 'duplicate') {
      batch.stats.duplicates++;
      return;
    }
    if (verdict.action === 'overlap') {
      this.deadLetter(
        batch,
        record,
        'overlapping-range',
        `${position}: bundle ${describeId(id)} of ${id.producerStage} overlaps the input its channel already applied ` +
          `(last applied: ${describeId(mark as ChannelProgress)}) without replaying it; applying it could count rows twice`,
      );
      return;
    }
    if (verdict.gap) batch.stats.gaps++;
    this.progress.set(channel, progressOf(id));
    if (decoded.type === 'rows') {
      const side = this.sideOf(id.producerStage);
      batch.steps.push({ type: 'rows', channel, rows: decoded.rows, first: sequenceNumber, last: sequenceNumber, records: [record], bundle: id, ...(side === 'right' ? { side } : {}) });
      batch.stats.rowRecords++;
      batch.stats.rows += decoded.rows.length;
    } else {
      batch.stats.watermarkRecords++;
    }
    if (decoded.watermark === undefined) {
      this.watermarks.markActive(channel, now);
      this.emitWatermark(batch, this.watermarks.recompute(now), sequenceNumber);
    } else {
      this.emitWatermark(batch, this.watermarks.update(channel, decoded.watermark, now), sequenceNumber);
    }
  }

  /** Dead-letters a record of another stage; true when the record is from an upstream stage. */
  private fromUpstream(batch: BatchContext, record: KinesisStreamRecord, position: string, stage: string, shard: string): boolean {
    if (stage === this.upstreamStage || stage === this.right?.stage) return true;
    const reads = this.right === undefined ? JSON.stringify(this.upstreamStage) : `${JSON.stringify(this.upstreamStage)} and ${JSON.stringify(this.right.stage)}`;
    this.deadLetter(
      batch,
      record,
      'unexpected-producer',
      `${position}: record from stage ${JSON.stringify(stage)} (shard ${JSON.stringify(shard)}), but ${this.stage} reads the exchange of ${reads}`,
    );
    return false;
  }

  private emitWatermark(batch: BatchContext, advanced: number | undefined, sequenceNumber: string): void {
    if (advanced !== undefined) batch.steps.push({ type: 'watermark', value: advanced, sequenceNumber });
  }

  /**
   * `schema-invalid` or `undecodable`, from where the error arose rather than its message: the
   * bundle codec checks row values with the JSON codec's decoder, which it calls with the
   * position `<position> row <i>`, while header and structure errors carry `position` itself;
   * a schema fingerprint mismatch is blamed on field `sc`.
   */
  private errorKind(err: RecordError, position: string): RecordDeadLetterKind {
    if (err.position !== position || err.field === 'sc') return 'schema-invalid';
    return 'undecodable';
  }

  snapshot(): ExchangeInputSnapshot {
    return {
      version: 1,
      kind: 'exchange',
      stage: this.stage,
      shardId: this.shardId,
      lastSequenceNumber: this.lastSequenceNumber ?? null,
      watermarks: this.watermarks.snapshot(),
      progress: [...this.progress].map(([channel, p]) => ({ ...p, ...(channel === p.producerShard ? {} : { channel }) })),
    };
  }

  restore(snapshot: StageInputSnapshot): void {
    this.checkSnapshot(snapshot, 'exchange');
    const s = snapshot as ExchangeInputSnapshot;
    for (const p of s.progress) {
      if (!isSequenceNumber(p.first) || !isSequenceNumber(p.last) || !(p.part >= 0 && p.part < p.parts)) {
        throw new FlambdaError(`exchange reader snapshot has an invalid high-water mark ${JSON.stringify(p)}`, 'internal', 'fail');
      }
    }
    this.watermarks.restore(s.watermarks);
    this.progress.clear();
    for (const p of s.progress) {
      const { channel, ...mark } = p as ChannelProgress & { channel?: string };
      this.progress.set(channel ?? p.producerShard, mark);
    }
    this.lastSequenceNumber = s.lastSequenceNumber ?? undefined;
  }
}
