/**
 * The input of a SOURCE stage: a user stream whose records are JSON objects, one row each,
 * plus heartbeat records that a scheduled job writes to every source shard.
 *
 * Records.
 * - A JSON object is decoded with the source schema's row decoder (`createRowDecoder`, the
 *   codec every runtime uses) into a `+I` row. Consecutive rows form one `rows` step whose
 *   channel is the source shard itself.
 * - A JSON object with `"v": 1` and `"t": "h"` is a heartbeat in the bundle codec's format
 *   (`{"v":1,"t":"h","p":…,"s":…,"to":<this shard>,"at":<epoch ms>,"wm":…}`); user records
 *   must not have that shape. A heartbeat whose `to` is another shard is dropped and counted
 *   as misrouted. Its `wm` is ignored: the scheduler that writes it knows nothing of the
 *   source's event time.
 * - Anything else is dead-lettered: `oversized`, `undecodable` (not UTF-8, not JSON, not an
 *   object, a malformed heartbeat) or `schema-invalid` (a field the schema rejects), with the
 *   codec's message naming the field, type and value.
 *
 * Processing time is the largest of the data and heartbeat records' arrival times
 * (`approximateArrivalTimestamp`) and the heartbeats' `at`. All come from the records, so a
 * replay of the same records after a failure makes the same decisions, and a shard read late (a
 * high iterator age) is not taken for idle.
 *
 * Watermarks. With a watermark declaration, the shard's watermark is
 * `max(rowtime) − outOfOrdernessMs` (BoundedOutOfOrderness, SQL's
 * `WATERMARK FOR ts AS ts - INTERVAL …`), emitted after each run of rows when it advanced.
 *
 * Idle shards (the target architecture, §4 "Timers and idle shards": heartbeats let idle
 * shards "still advance time"). Flink marks an idle split idle and downstream ignores it; here
 * the only thing a source shard sends downstream is its watermark, and the heartbeats that keep
 * the handler running also keep the downstream channel active, so an idle shard must move its
 * own watermark or it would hold every downstream window back forever. With
 * `idleTimeoutMs` declared, a heartbeat at processing time `now` finds the shard idle when no
 * data record arrived for longer than the timeout, and then sets
 *
 * ```
 *   idleFor   = now − lastDataAt                (lastDataAt: arrival of the last data record)
 *   watermark = max(watermark, maxRowtime − outOfOrdernessMs + (idleFor − idleTimeoutMs))
 * ```
 *
 * i.e. the shard's event-time clock keeps running at the speed of processing time from the
 * moment it became idle. At `idleFor = idleTimeoutMs` the formula equals the watermark the data
 * gave, so there is no jump. With `lag = arrival − rowtime`, a record arriving after an idle
 * advance is late only if its lag exceeds the shard's lag when it went idle (`lastDataAt −
 * maxRowtime`) by at least `outOfOrdernessMs + idleTimeoutMs`: the idle shard keeps the lag it
 * was observed to have (a backfill with old event times stays old) instead of jumping to the
 * wall clock.
 *
 * ```
 *  data ──●──●────●┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄ heartbeats ♥ every minute
 *                 │← idleTimeoutMs →│
 *  watermark  ────┘ max(rowtime)−ooo ╲___ then +1 ms per ms of processing time ╱╱╱
 * ```
 *
 * A shard that never had data has no rowtime to start from: its clock starts at the first
 * processing time the reader saw (as if event time were arrival time), so the formula becomes
 * `now − idleTimeoutMs − outOfOrdernessMs` once it has been silent for the timeout. Without
 * `idleTimeoutMs` heartbeats never move the watermark (Flink: no idleness unless declared).
 * Data that arrives after an idle advance never lowers the watermark; rows at or below it are
 * late for the operators downstream, as after an idle split in Flink.
 *
 * End of input. A heartbeat whose watermark is +∞ ends a bounded input: the shard's watermark
 * becomes +∞ (Flink's MAX_WATERMARK at the end of a bounded source), whatever the schema.
 */
import type { KinesisStreamRecord } from 'aws-lambda';
import { createRowDecoder } from '../../core/codec.ts';
import { createChangeDecoder, createLineDecoder, type ChangeDecoder, type LineDecoder, type RecordFormat } from '../../core/formats.ts';
import type { RowDecoder } from '../../core/codec.ts';
import { FlambdaError, PlanError, RecordError } from '../../core/errors.ts';
import type { ChangeRow } from '../../core/row.ts';
import { formatType } from '../../core/type-parse.ts';
import type { Row, Schema } from '../../core/types.ts';
import type { WatermarkSpec } from '../../plan/logical.ts';
import { BoundedOutOfOrderness, eventTimeReader } from '../../runtime/watermarks.ts';
import { BUNDLE_FORMAT_VERSION, BundleCodec } from '../kinesis/bundle-codec.ts';
import type { HeartbeatRecord } from '../kinesis/bundle-codec.ts';
import { InputReaderBase, excerpt } from './input-reader.ts';
import type { BatchContext, InputReaderOptions } from './input-reader.ts';
import { arrivalMillisOf, dataOf } from './kinesis-records.ts';
import type { SourceInputSnapshot, StageInputReader, StageInputSnapshot } from './types.ts';

/** Options of {@link SourceInputReader}. */
export interface SourceInputReaderOptions extends InputReaderOptions {
  /** The source's schema (`JobSource.schema`). */
  readonly schema: Schema;
  /**
   * The source's watermark declaration (`JobSource.watermark`): rowtime column (TIMESTAMP),
   * out-of-orderness and optional idle timeout.
   * @default - no watermarks
   */
  readonly watermark?: WatermarkSpec;
  /** The records' format (`JobSource.connector.format`). @default json */
  readonly format?: RecordFormat;
}

/** A plain JSON object (not an array, not null). */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads the records of one source shard; see the module header. */
export class SourceInputReader extends InputReaderBase implements StageInputReader {
  /** Always `source`. */
  readonly kind = 'source' as const;

  private readonly decoder: RowDecoder;
  /** The csv decoder, when the records are csv (heartbeats are JSON whatever the format). */
  private readonly csv: LineDecoder | undefined;
  /** The change decoder, when the records are change events (debezium-json). */
  private readonly changes: ChangeDecoder | undefined;
  /** Decodes heartbeats (whose format does not depend on the schema). */
  private readonly heartbeats: BundleCodec;
  private readonly utf8 = new TextDecoder('utf-8', { fatal: true });
  /** The event time of a row, for the watermark; absent without a watermark declaration. */
  private readonly rowtime: ((row: Row) => number | null) | undefined;
  private readonly outOfOrdernessMs: number;
  private readonly idleTimeoutMs: number | undefined;

  private generator: BoundedOutOfOrderness;
  private emitted = -Infinity;
  private lastDataAt: number | undefined;
  private since: number | undefined;
  private now = -Infinity;

  /** The open run of rows: records decoded since the last step. */
  private run: ChangeRow[] = [];
  private runFirst = '';
  /** The record of each row of `run`. */
  private runRecords: KinesisStreamRecord[] = [];
  private runLast = '';

  /** @throws PlanError for bad options or a watermark column that is not a TIMESTAMP of the schema. */
  constructor(options: SourceInputReaderOptions) {
    super(options);
    const standard = options.format?.type === 'json' ? options.format.timestampStandard : undefined;
    this.decoder = createRowDecoder(options.schema, standard !== undefined ? { timestampStandard: standard } : {});
    this.csv = options.format?.type === 'csv' ? createLineDecoder(options.schema, options.format) : undefined;
    this.changes = options.format?.type === 'debezium-json' ? createChangeDecoder(options.schema, options.format) : undefined;
    this.heartbeats = new BundleCodec(options.schema);
    const spec = options.watermark;
    if (spec !== undefined && spec.expr === undefined) {
      const field = options.schema.fields.find((f) => f.name === spec.column);
      if (field === undefined) throw new PlanError(`watermark column '${spec.column}' is not a column of the source schema`);
      if (field.type.root !== 'TIMESTAMP' && field.type.root !== 'TIMESTAMP_LTZ') {
        throw new PlanError(`watermark column '${spec.column}' must be a TIMESTAMP or TIMESTAMP_LTZ, not ${formatType(field.type)}`);
      }
    }
    if (spec !== undefined) {
      if (!(spec.outOfOrdernessMs >= 0 && Number.isFinite(spec.outOfOrdernessMs))) {
        throw new PlanError(`outOfOrdernessMs must be a finite number >= 0 (given ${spec.outOfOrdernessMs})`);
      }
      if (spec.idleTimeoutMs !== undefined && !(spec.idleTimeoutMs >= 0 && Number.isFinite(spec.idleTimeoutMs))) {
        throw new PlanError(`idleTimeoutMs must be a finite number >= 0 (given ${spec.idleTimeoutMs})`);
      }
    }
    // A watermark on a computed column evaluates its expression (a type error is a PlanError here).
    this.rowtime = spec === undefined ? undefined : eventTimeReader(spec, options.schema);
    this.outOfOrdernessMs = spec?.outOfOrdernessMs ?? 0;
    this.idleTimeoutMs = spec?.idleTimeoutMs;
    this.generator = new BoundedOutOfOrderness(this.outOfOrdernessMs);
  }

  /** The shard's watermark (−∞ before the first, and always without a watermark declaration). */
  get watermark(): number {
    return this.emitted;
  }

  protected get processingTime(): number {
    return this.now;
  }

  protected readRecord(record: KinesisStreamRecord, position: string, batch: BatchContext): void {
    let text: string;
    try {
      text = this.utf8.decode(dataOf(record));
    } catch {
      this.deadLetter(batch, record, 'undecodable', `${position}: not UTF-8`);
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      if (this.csv === undefined) {
        const why = err instanceof Error ? err.message : String(err);
        this.deadLetter(batch, record, 'undecodable', `${position}: invalid JSON (${why}): ${excerpt(text)}`);
        return;
      }
    }
    if (isObject(json) && json['v'] === BUNDLE_FORMAT_VERSION && json['t'] === 'h') {
      this.readHeartbeat(record, text, position, batch);
      return;
    }
    if (this.changes !== undefined) {
      let changes: ChangeRow[];
      try {
        changes = this.changes(text, position);
      } catch (err) {
        if (!(err instanceof RecordError)) throw err;
        this.deadLetter(batch, record, 'schema-invalid', err.message);
        return;
      }
      for (const change of changes) this.accept(record, change);
      return;
    }
    let row;
    try {
      row = this.csv === undefined ? this.decoder(json, position) : this.csv(text, position);
    } catch (err) {
      if (!(err instanceof RecordError)) throw err;
      this.deadLetter(batch, record, this.csv === undefined && !isObject(json) ? 'undecodable' : 'schema-invalid', err.message);
      return;
    }
    // A record the format skips (a csv comment, an ignored parse error) is no row.
    if (row === undefined) return;
    this.accept(record, { kind: '+I', row });
  }

  /** Adds one decoded change of `record` to the open run, observing its event time. */
  private accept(record: KinesisStreamRecord, change: ChangeRow): void {
    const row = change.row;
    const arrival = arrivalMillisOf(record);
    this.since ??= arrival;
    if (arrival > this.now) this.now = arrival;
    this.lastDataAt = arrival;
    if (this.rowtime !== undefined) this.generator.observe(this.rowtime(row));
    if (this.run.length === 0) this.runFirst = record.kinesis.sequenceNumber;
    this.runLast = record.kinesis.sequenceNumber;
    this.run.push(change);
    this.runRecords.push(record);
  }

  private readHeartbeat(record: KinesisStreamRecord, text: string, position: string, batch: BatchContext): void {
    let heartbeat: HeartbeatRecord;
    try {
      heartbeat = this.heartbeats.decode(text, position) as HeartbeatRecord;
    } catch (err) {
      if (!(err instanceof RecordError)) throw err;
      this.deadLetter(batch, record, 'undecodable', err.message);
      return;
    }
    batch.stats.heartbeats++;
    if (heartbeat.targetShard !== this.shardId) {
      batch.stats.misrouted++;
      return;
    }
    this.flush(batch);
    const sequenceNumber = record.kinesis.sequenceNumber;
    const at = Math.max(heartbeat.at, arrivalMillisOf(record));
    this.since ??= at;
    if (at > this.now) {
      this.now = at;
      batch.steps.push({ type: 'processing-time', value: at, sequenceNumber });
    }
    if (heartbeat.watermark === Infinity) {
      // End of a bounded input (flambda local writes it after the last record): as Flink's
      // MAX_WATERMARK, it fires every pending event-time timer downstream.
      if (this.emitted < Infinity) {
        this.emitted = Infinity;
        batch.steps.push({ type: 'watermark', value: Infinity, sequenceNumber });
      }
      return;
    }
    const timeout = this.idleTimeoutMs;
    if (this.rowtime === undefined || timeout === undefined) return;
    const reference = this.lastDataAt ?? (this.since as number);
    const idleFor = this.now - reference;
    if (idleFor <= timeout) return;
    const maxRowtime = this.maxEventTime();
    const anchor = Number.isFinite(maxRowtime) ? maxRowtime : reference;
    const candidate = anchor - this.outOfOrdernessMs + (idleFor - timeout);
    if (candidate > this.emitted) {
      this.emitted = candidate;
      batch.steps.push({ type: 'watermark', value: candidate, sequenceNumber });
    }
  }

  /** Emits the open run of rows, then the watermark if the rows advanced it. */
  protected flush(batch: BatchContext): void {
    if (this.run.length === 0) return;
    const rows = this.run;
    const records = this.runRecords;
    this.run = [];
    this.runRecords = [];
    batch.steps.push({ type: 'rows', channel: this.shardId, rows, first: this.runFirst, last: this.runLast, records });
    batch.stats.rowRecords += rows.length;
    batch.stats.rows += rows.length;
    const watermark = this.generator.current();
    if (watermark > this.emitted) {
      this.emitted = watermark;
      batch.steps.push({ type: 'watermark', value: watermark, sequenceNumber: this.runLast });
    }
  }

  /** Largest rowtime seen (−∞ before any): BoundedOutOfOrderness keeps it as `current() + delay`. */
  private maxEventTime(): number {
    return this.generator.current() + this.outOfOrdernessMs;
  }

  snapshot(): SourceInputSnapshot {
    return {
      version: 1,
      kind: 'source',
      stage: this.stage,
      shardId: this.shardId,
      lastSequenceNumber: this.lastSequenceNumber ?? null,
      maxEventTime: this.maxEventTime(),
      watermark: this.emitted,
      lastDataAt: this.lastDataAt ?? null,
      since: this.since ?? null,
      processingTime: this.now,
    };
  }

  restore(snapshot: StageInputSnapshot): void {
    this.checkSnapshot(snapshot, 'source');
    const s = snapshot as SourceInputSnapshot;
    if (Number.isNaN(s.maxEventTime) || Number.isNaN(s.watermark)) {
      throw new FlambdaError('source reader snapshot has a NaN watermark', 'internal', 'fail');
    }
    this.lastSequenceNumber = s.lastSequenceNumber ?? undefined;
    this.generator = new BoundedOutOfOrderness(this.outOfOrdernessMs);
    if (s.maxEventTime > -Infinity) this.generator.observe(s.maxEventTime);
    this.emitted = s.watermark;
    this.lastDataAt = s.lastDataAt ?? undefined;
    this.since = s.since ?? undefined;
    this.now = s.processingTime;
    this.run = [];
    this.runRecords = [];
  }
}
