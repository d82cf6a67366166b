/**
 * The record format between stages: one Kinesis record ("bundle") carries many changelog rows
 * bound for ONE target shard, the sender's watermark and a deterministic id, like KPL
 * aggregation but readable JSON. Fewer, fuller records cut PUT payload units (25 KiB each) and
 * per-shard record quotas (1,000 records/s), and the id lets a receiver drop duplicates that
 * at-least-once delivery and producer retries create.
 *
 * Body: UTF-8 JSON, one object, keys in this order (short keys: they repeat in every record).
 *
 * | key  | meaning                                                        | in      |
 * |------|----------------------------------------------------------------|---------|
 * | `v`  | format version, {@link BUNDLE_FORMAT_VERSION}                  | all     |
 * | `t`  | `"r"` rows, `"w"` watermark only, `"h"` heartbeat              | all     |
 * | `p`  | producer stage id                                              | all     |
 * | `s`  | producer shard (its input shard id)                            | all     |
 * | `f`  | first input sequence number the output derives from            | r, w    |
 * | `l`  | last input sequence number                                     | r, w    |
 * | `to` | the target shard the producer meant                            | all     |
 * | `n`  | part number, 0-based                                           | r       |
 * | `of` | number of parts for this target and input range                | r       |
 * | `wm` | watermark (epoch ms; `"Infinity"` / `"-Infinity"`)             | all (r: last part only) |
 * | `at` | heartbeat processing time (epoch ms)                           | h       |
 * | `sc` | schema fingerprint, {@link schemaFingerprint}                  | r       |
 * | `r`  | rows: `[kind, v1, v2, …]` in schema order                      | r       |
 *
 * ```
 * {"v":1,"t":"r","p":"stage-0","s":"shardId-000000000002","f":"4959…01","l":"4959…77",
 *  "to":"shardId-000000000001","n":0,"of":1,"wm":1436918401000,"sc":"5b1c0e7a",
 *  "r":[[0,1000,7,120,"2015-07-15"],[2,1001,8,99,null]]}
 * ```
 *
 * Row kinds are Flink's RowKind byte values (`RowKind.toByteValue`): 0 `+I`, 1 `-U`, 2 `+U`,
 * 3 `-D`. Values are exact: DECIMAL as its text with `scale` digits, TIMESTAMP(3) as epoch
 * milliseconds (shorter than the text, no parsing), non-finite DOUBLEs and `-0` as strings
 * (`"NaN"`, `"-Infinity"`, `"-0"`; JSON has no such numbers); ROW, ARRAY and MAP values as the JSON
 * codec writes them (objects and arrays, DECIMAL and TIMESTAMP inside as text). Decoding goes through the JSON
 * codec (`createRowDecoder`), so a bundle is validated exactly like any input record.
 *
 * Ids: `(p, s, f..l, to, n)` identifies a bundle, and is a pure function of the producer's
 * input, its output rows and the target shard map, so a replay of the same input produces
 * byte-identical records and receivers can drop the ones they have applied
 * ({@link stageRecordKey}). Watermarks ride on the LAST part only: a receiver applies the rows
 * of every part before the watermark that followed them in the producer, and earlier parts do
 * not depend on what the producer sent before (which a fresh container does not know).
 *
 * `to` is checked by receivers: a record whose `to` is not the shard it was read from was
 * misrouted (the producer's shard map was stale when the stream was resharded: ExplicitHashKey
 * then lands on a child or merged shard) and must be dropped — the producer detects the
 * mismatch from the PutRecords response and re-sends those rows to the right shards.
 *
 * Unknown keys are ignored, so fields can be added within a version; any change a version-1
 * reader would misread needs a new version number.
 */
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { createRowDecoder, createValueEncoder } from '../../core/codec.ts';
import type { JsonValue, RowDecoder } from '../../core/codec.ts';
import { formatDecimal } from '../../core/decimal.ts';
import { FlambdaError, PlanError, RecordError } from '../../core/errors.ts';
import { ROW_KINDS } from '../../core/row.ts';
import type { ChangeRow, RowKind } from '../../core/row.ts';
import { formatType } from '../../core/type-parse.ts';
import type { Field, Row, Schema, Value } from '../../core/types.ts';
import { isDatetime, isNested } from '../../plan/expr-type-rules.ts';

/** Version written in `v`; a reader rejects any other. */
export const BUNDLE_FORMAT_VERSION = 1;

/**
 * Kinesis's record size limit: data blob plus partition key at most 1 MiB (PutRecords API
 * reference: "The record size limit applies to the total size of the partition key and data
 * blob").
 */
export const MAX_KINESIS_RECORD_BYTES = 1_048_576;

/** Smallest `maxRecordBytes` accepted: room for a header and a few rows. */
const MIN_RECORD_BYTES = 1_024;

/** Where a bundle's rows come from: a producer shard's input range. */
export interface BundleOrigin {
  /** Producer stage id, e.g. `stage-0`. */
  readonly producerStage: string;
  /** Producer shard: the id of the input shard the producer reads, e.g. `shardId-000000000002`. */
  readonly producerShard: string;
  /** First input sequence number the output derives from. */
  readonly first: string;
  /** Last input sequence number the output derives from. */
  readonly last: string;
}

/** A bundle's deterministic id: origin, target shard and part. */
export interface BundleId extends BundleOrigin {
  /** The target shard the producer meant (see the module header on misrouting). */
  readonly targetShard: string;
  /** Part number, 0-based. */
  readonly part: number;
  /** Number of parts for this origin and target. */
  readonly parts: number;
}

/** A decoded bundle of rows. */
export interface RowBundle {
  readonly type: 'rows';
  readonly id: BundleId;
  /** The producer's watermark after these rows; only the last part carries it. */
  readonly watermark: number | undefined;
  readonly rows: readonly ChangeRow[];
}

/** A decoded watermark-only record (a target that received no rows from a batch). */
export interface WatermarkRecord {
  readonly type: 'watermark';
  /** Always part 0 of 1. */
  readonly id: BundleId;
  readonly watermark: number;
}

/** A decoded heartbeat: the producer is alive at processing time `at`, with this watermark. */
export interface HeartbeatRecord {
  readonly type: 'heartbeat';
  readonly producerStage: string;
  readonly producerShard: string;
  readonly targetShard: string;
  /** Processing time of the heartbeat, epoch ms. */
  readonly at: number;
  readonly watermark: number;
}

/** Any record a stage reads from an exchange stream. */
export type StageRecord = RowBundle | WatermarkRecord | HeartbeatRecord;

/** Where an encoded record goes: its origin, target shard and the Kinesis partition key. */
export interface BundleAddress extends BundleOrigin {
  readonly targetShard: string;
  /** The PutRecords partition key; its UTF-8 bytes count against the record size limit. */
  readonly partitionKey: string;
}

/** Where a heartbeat goes. */
export interface HeartbeatAddress {
  readonly producerStage: string;
  readonly producerShard: string;
  readonly targetShard: string;
  /** The PutRecords partition key. */
  readonly partitionKey: string;
}

/** One encoded record, ready for a PutRecords entry. */
export interface EncodedRecord {
  /** Deduplication key, as {@link stageRecordKey} returns for the decoded record. */
  readonly key: string;
  /** The UTF-8 JSON body. */
  readonly data: Buffer;
  /** The rows carried: `rows.slice(rowStart, rowEnd)` of the list given to `encodeRows`. */
  readonly rowStart: number;
  readonly rowEnd: number;
}

/** Options of {@link BundleCodec}. */
export interface BundleCodecOptions {
  /**
   * Largest record, body plus partition key, in bytes (1024..1048576). Smaller values are for
   * tests and for leaving headroom.
   * @default MAX_KINESIS_RECORD_BYTES (1 MiB)
   */
  readonly maxRecordBytes?: number;
}

/** Converts one non-null value for the `r` arrays. */
type ColumnEncoder = (value: Value) => JsonValue;

/** Row-kind byte values, Flink's `RowKind.toByteValue`: the index in ROW_KINDS. */
const KIND_CODE: Readonly<Record<RowKind, number>> = { '+I': 0, '-U': 1, '+U': 2, '-D': 3 };

/**
 * A short fingerprint of the column names and types, in order: rows are positional, so a
 * producer and receiver that disagree on the schema (a redeploy mid-stream) must not decode each
 * other's records silently.
 */
export function schemaFingerprint(schema: Schema): string {
  const text = JSON.stringify(schema.fields.map((f) => [f.name, formatType(f.type)]));
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 8);
}

/** The deduplication key of a decoded (or encoded) record: the id tuple as JSON text. */
export function stageRecordKey(record: StageRecord): string {
  if (record.type === 'heartbeat') {
    return heartbeatKey(record.producerStage, record.producerShard, record.targetShard, record.at);
  }
  return bundleKey(record.id, record.id.part);
}

function bundleKey(origin: BundleOrigin & { readonly targetShard: string }, part: number): string {
  return JSON.stringify([origin.producerStage, origin.producerShard, origin.first, origin.last, origin.targetShard, part]);
}

function heartbeatKey(stage: string, shard: string, target: string, at: number): string {
  return JSON.stringify(['heartbeat', stage, shard, target, at]);
}

/** JSON for a watermark: finite numbers as is, ±∞ as strings. */
function watermarkJson(watermark: number): string {
  if (Number.isFinite(watermark)) return JSON.stringify(watermark);
  if (watermark === Infinity) return '"Infinity"';
  if (watermark === -Infinity) return '"-Infinity"';
  throw new FlambdaError(`watermark must be a number or ±Infinity, got ${String(watermark)}`, 'internal', 'fail');
}

/** Checks an id component before encoding: ids must be non-empty strings. */
function checkIdPart(name: string, value: string): void {
  if (typeof value !== 'string' || value.length === 0) {
    throw new FlambdaError(`bundle ${name} must be a non-empty string, got ${JSON.stringify(value)}`, 'internal', 'fail');
  }
}

/** Raises an engine bug: a row value whose JS type does not match its column. */
function wrongRepresentation(field: Field, value: Value, expected: string): never {
  throw new FlambdaError(
    `cannot encode field '${field.name}' (${formatType(field.type)}): expected a ${expected} value, got ${typeof value} ${String(value)}`,
    'internal',
    'fail',
  );
}

/** The `r` conversion of a column; values the JSON codec's decoder reads back exactly. */
function columnEncoder(field: Field): ColumnEncoder {
  switch (field.type.root) {
    case 'DECIMAL': {
      const scale = field.type.scale ?? 0;
      return (v) => (typeof v === 'bigint' ? formatDecimal(v, scale) : wrongRepresentation(field, v, 'bigint'));
    }
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      // Epoch ms: the decoder accepts integers and range-checks them.
      return (v) => (typeof v === 'number' ? v : wrongRepresentation(field, v, 'number'));
    case 'DATE':
    case 'TIME':
      // `yyyy-MM-dd` and `HH:mm:ss[.fff]`, as the JSON codec writes and reads them.
      return createValueEncoder(field);
    case 'DOUBLE':
    case 'FLOAT':
      // JSON.stringify writes NaN/±Infinity as null and -0 as 0; the decoder reads these strings.
      // A FLOAT's exact double value reads back as the same float.
      return (v) => {
        if (typeof v !== 'number') return wrongRepresentation(field, v, 'number');
        if (Object.is(v, -0)) return '-0';
        return Number.isFinite(v) ? v : String(v);
      };
    case 'ROW':
    case 'ARRAY':
    case 'MAP':
    case 'MULTISET':
    case 'VARBINARY':
      // Nested values as the JSON codec writes them (DECIMAL and TIMESTAMP inside as text),
      // binary values as its base64 text.
      return createValueEncoder(field);
    default:
      return (v) => v as JsonValue;
  }
}

/** Text excerpt for error messages. */
function excerpt(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Encodes and decodes stage records for one exchange schema. */
export class BundleCodec {
  /** The exchange's row schema. */
  readonly schema: Schema;
  /** {@link schemaFingerprint} of the schema, written in `sc`. */
  readonly fingerprint: string;
  /** Largest record (body plus partition key) in bytes. */
  readonly maxRecordBytes: number;

  private readonly names: readonly string[];
  /** Column names that are also Object.prototype members: read own properties only. */
  private readonly inherited: readonly boolean[];
  private readonly encoders: readonly (ColumnEncoder | undefined)[];
  private readonly decoder: RowDecoder;
  private readonly utf8 = new TextDecoder('utf-8', { fatal: true });

  /** @throws PlanError for a bad `maxRecordBytes` or a schema the row codec rejects. */
  constructor(schema: Schema, options: BundleCodecOptions = {}) {
    const max = options.maxRecordBytes ?? MAX_KINESIS_RECORD_BYTES;
    if (!Number.isInteger(max) || max < MIN_RECORD_BYTES || max > MAX_KINESIS_RECORD_BYTES) {
      throw new PlanError(`maxRecordBytes must be an integer ${MIN_RECORD_BYTES}..${MAX_KINESIS_RECORD_BYTES} (given ${max})`);
    }
    this.schema = schema;
    this.maxRecordBytes = max;
    this.fingerprint = schemaFingerprint(schema);
    this.decoder = createRowDecoder(schema);
    this.names = schema.fields.map((f) => f.name);
    this.inherited = this.names.map((name) => name in Object.prototype);
    this.encoders = schema.fields.map((f) =>
      f.type.root === 'DECIMAL' || f.type.root === 'DOUBLE' || f.type.root === 'FLOAT' || f.type.root === 'VARBINARY' || isDatetime(f.type) || isNested(f.type) ? columnEncoder(f) : undefined,
    );
  }

  /** One row as its `r` entry: `[kind, v1, v2, …]` JSON text. */
  encodeRow(change: ChangeRow): string {
    const row: Row = change.row;
    const names = this.names;
    const out: JsonValue[] = new Array<JsonValue>(names.length + 1);
    out[0] = KIND_CODE[change.kind];
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      const value = this.inherited[i] && !Object.hasOwn(row, name) ? undefined : row[name];
      if (value === undefined || value === null) {
        out[i + 1] = null;
      } else {
        const encode = this.encoders[i];
        out[i + 1] = encode === undefined ? (value as JsonValue) : encode(value);
      }
    }
    return JSON.stringify(out);
  }

  /**
   * Packs rows for one target shard into as few records as fit, in order: greedy, so the split
   * depends only on the rows, the address and the watermark, and a replay yields the same parts
   * and ids byte for byte. Returns no records for no rows (send {@link encodeWatermark} instead).
   *
   * The size bound is exact: every part's body plus the partition key is at most
   * `maxRecordBytes` (1 MiB, Kinesis's limit). The header is budgeted with `n` and `of` as wide
   * as `rows.length` and with the watermark present, so the budget never depends on how the
   * split turns out.
   *
   * @param positions where each row sits in the caller's batch, for error messages; defaults
   *   to its index in `rows`.
   * @throws RecordError when one row alone does not fit in a record; the message names the
   *   row's position, its encoded size and the limit.
   */
  encodeRows(address: BundleAddress, rows: readonly ChangeRow[], watermark: number, positions?: readonly number[]): EncodedRecord[] {
    if (rows.length === 0) return [];
    const prefix = this.addressPrefix('r', address);
    const wm = watermarkJson(watermark);
    const widest = String(rows.length);
    const pkBytes = Buffer.byteLength(address.partitionKey, 'utf8');
    // `{…,"n":N,"of":N,"wm":W,"sc":"…","r":[` + `]}` + partition key, with N as wide as possible.
    const reserved = Buffer.byteLength(this.rowHeader(prefix, widest, widest, wm), 'utf8') + 2 + pkBytes;
    const budget = this.maxRecordBytes - reserved;
    if (budget <= 0) {
      throw new PlanError(
        `a bundle header for ${address.producerStage}/${address.producerShard} takes ${reserved} bytes with its partition key, ` +
          `leaving no room for rows in ${this.maxRecordBytes}-byte records`,
      );
    }

    const texts = rows.map((r) => this.encodeRow(r));
    const starts: number[] = [];
    let used = 0;
    for (let i = 0; i < texts.length; i++) {
      const size = Buffer.byteLength(texts[i] as string, 'utf8');
      if (size > budget) {
        const position = positions?.[i] ?? i;
        throw new RecordError(
          `row ${position} (${(rows[i] as ChangeRow).kind}) for shard ${address.targetShard} encodes to ${size} bytes; with the ` +
            `${reserved}-byte bundle header and partition key it exceeds the ${this.maxRecordBytes}-byte Kinesis record limit: ` +
            excerpt(texts[i] as string),
          { position: `row ${position}` },
        );
      }
      // A separating comma for every row after a part's first.
      if (starts.length === 0 || used + 1 + size > budget) {
        starts.push(i);
        used = size;
      } else {
        used += 1 + size;
      }
    }

    const parts = starts.length;
    const records: EncodedRecord[] = [];
    for (let n = 0; n < parts; n++) {
      const rowStart = starts[n] as number;
      const rowEnd = n + 1 < parts ? (starts[n + 1] as number) : rows.length;
      const header = this.rowHeader(prefix, String(n), String(parts), n === parts - 1 ? wm : undefined);
      const data = Buffer.from(`${header}${texts.slice(rowStart, rowEnd).join(',')}]}`, 'utf8');
      if (data.length + pkBytes > this.maxRecordBytes) {
        throw new FlambdaError(`bundle part ${n} is ${data.length + pkBytes} bytes, over the budget it was packed for`, 'internal', 'fail');
      }
      records.push({ key: bundleKey(address, n), data, rowStart, rowEnd });
    }
    return records;
  }

  /** A watermark-only record (part 0 of 1, no rows) for a target that got no rows from a batch. */
  encodeWatermark(address: BundleAddress, watermark: number): EncodedRecord {
    const data = Buffer.from(`${this.addressPrefix('w', address)},"wm":${watermarkJson(watermark)}}`, 'utf8');
    return { key: bundleKey(address, 0), data, rowStart: 0, rowEnd: 0 };
  }

  /**
   * A heartbeat record: the producer is alive at processing time `at` with this watermark. It
   * lets an otherwise idle target shard's handler run (fire processing-time timers, keep the
   * channel from being marked idle).
   */
  encodeHeartbeat(heartbeat: HeartbeatAddress, at: number, watermark: number): EncodedRecord {
    if (!Number.isFinite(at)) throw new FlambdaError(`heartbeat time must be finite, got ${at}`, 'internal', 'fail');
    checkIdPart('producer stage', heartbeat.producerStage);
    checkIdPart('producer shard', heartbeat.producerShard);
    checkIdPart('target shard', heartbeat.targetShard);
    const text =
      `{"v":${BUNDLE_FORMAT_VERSION},"t":"h","p":${JSON.stringify(heartbeat.producerStage)},` +
      `"s":${JSON.stringify(heartbeat.producerShard)},"to":${JSON.stringify(heartbeat.targetShard)},` +
      `"at":${JSON.stringify(at)},"wm":${watermarkJson(watermark)}}`;
    return {
      key: heartbeatKey(heartbeat.producerStage, heartbeat.producerShard, heartbeat.targetShard, at),
      data: Buffer.from(text, 'utf8'),
      rowStart: 0,
      rowEnd: 0,
    };
  }

  /**
   * Decodes and validates one record body (the Kinesis data blob, or its text).
   *
   * @param position where the record came from (e.g. `shardId-000000000001@4959…`), prefixed
   *   to error messages.
   * @throws RecordError for anything that is not a well-formed record of this format version
   *   and schema: invalid UTF-8 or JSON, a missing or mistyped header field, another schema
   *   fingerprint, a row of the wrong length, an unknown row kind, or a value the schema
   *   rejects. Such a record is dead-lettered.
   */
  decode(data: Uint8Array | string, position?: string): StageRecord {
    return this.decodeParsed(this.parse(data, position), position);
  }

  /**
   * The JSON object of a record body, not yet checked against a schema: a two-input stage reads
   * its producer (`p`) to pick the codec of that side's schema, then {@link decodeParsed}.
   *
   * @throws RecordError for invalid UTF-8, invalid JSON or a JSON value that is not an object.
   */
  parse(data: Uint8Array | string, position?: string): Record<string, unknown> {
    const where = position === undefined ? '' : `${position}: `;
    const fail = (message: string): never => {
      throw new RecordError(`${where}invalid stage record: ${message}`, { position });
    };
    let text: string;
    if (typeof data === 'string') {
      text = data;
    } else {
      try {
        text = this.utf8.decode(data);
      } catch (err) {
        throw new RecordError(`${where}invalid stage record: not UTF-8`, { position, cause: err });
      }
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new RecordError(`${where}invalid stage record: not JSON (${reason}): ${excerpt(text)}`, { position, cause: err });
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) fail(`expected a JSON object, got ${excerpt(text)}`);
    return json as Record<string, unknown>;
  }

  /**
   * Decodes and validates a record {@link parse} read.
   *
   * @throws RecordError as {@link decode}.
   */
  decodeParsed(record: Record<string, unknown>, position?: string): StageRecord {
    const where = position === undefined ? '' : `${position}: `;
    const fail = (message: string, field?: string): never => {
      throw new RecordError(`${where}invalid stage record: ${message}`, { position, field });
    };
    if (record['v'] !== BUNDLE_FORMAT_VERSION) {
      fail(`unsupported format version ${JSON.stringify(record['v']) ?? 'undefined'} (this reader reads version ${BUNDLE_FORMAT_VERSION})`, 'v');
    }
    const str = (key: string): string => {
      const value = record[key];
      if (typeof value !== 'string' || value.length === 0) {
        return fail(`"${key}" must be a non-empty string, got ${JSON.stringify(value) ?? 'nothing'}`, key);
      }
      return value;
    };
    const int = (key: string, min: number): number => {
      const value = record[key];
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
        return fail(`"${key}" must be an integer >= ${min}, got ${JSON.stringify(value) ?? 'nothing'}`, key);
      }
      return value;
    };
    const watermark = (): number => {
      const value = record['wm'];
      if (typeof value === 'number' && Number.isFinite(value)) return value;
      if (value === 'Infinity') return Infinity;
      if (value === '-Infinity') return -Infinity;
      return fail(`"wm" must be a finite number, "Infinity" or "-Infinity", got ${JSON.stringify(value) ?? 'nothing'}`, 'wm');
    };

    const type = record['t'];
    if (type === 'h') {
      const at = record['at'];
      if (typeof at !== 'number' || !Number.isFinite(at)) fail(`"at" must be a finite number, got ${JSON.stringify(at) ?? 'nothing'}`, 'at');
      return {
        type: 'heartbeat',
        producerStage: str('p'),
        producerShard: str('s'),
        targetShard: str('to'),
        at: at as number,
        watermark: watermark(),
      };
    }
    if (type !== 'r' && type !== 'w') return fail(`"t" must be "r", "w" or "h", got ${JSON.stringify(type) ?? 'nothing'}`, 't');

    const origin = { producerStage: str('p'), producerShard: str('s'), first: str('f'), last: str('l'), targetShard: str('to') };
    if (type === 'w') {
      return { type: 'watermark', id: { ...origin, part: 0, parts: 1 }, watermark: watermark() };
    }

    const parts = int('of', 1);
    const part = int('n', 0);
    if (part >= parts) fail(`part "n" ${part} is not below "of" ${parts}`, 'n');
    const last = part === parts - 1;
    if (last !== ('wm' in record)) fail(last ? 'the last part must carry "wm"' : `part ${part} of ${parts} must not carry "wm"`, 'wm');
    const sc = str('sc');
    if (sc !== this.fingerprint) {
      fail(`schema fingerprint "${sc}" does not match this exchange's schema (${this.fingerprint}): producer and receiver disagree on the columns`, 'sc');
    }
    const raw = record['r'];
    if (!Array.isArray(raw) || raw.length === 0) fail('"r" must be a non-empty array of rows', 'r');
    const rows = this.decodeRows(raw as unknown[], position, fail);
    return { type: 'rows', id: { ...origin, part, parts }, watermark: last ? watermark() : undefined, rows };
  }

  /** Decodes `r`: each entry `[kind, v1, …]` of exactly the schema's width. */
  private decodeRows(raw: readonly unknown[], position: string | undefined, fail: (message: string, field?: string) => never): ChangeRow[] {
    const names = this.names;
    const width = names.length + 1;
    const rows: ChangeRow[] = new Array<ChangeRow>(raw.length);
    for (let i = 0; i < raw.length; i++) {
      const entry = raw[i];
      if (!Array.isArray(entry) || entry.length !== width) {
        fail(`row ${i} must be an array [kind, ${names.length} values], got ${excerpt(JSON.stringify(entry) ?? 'nothing')}`, 'r');
      }
      const values = entry as unknown[];
      const code = values[0];
      const kind = typeof code === 'number' && Number.isInteger(code) ? ROW_KINDS[code] : undefined;
      if (kind === undefined) fail(`row ${i} has kind ${JSON.stringify(code)}; expected 0 (+I), 1 (-U), 2 (+U) or 3 (-D)`, 'r');
      const object: Record<string, unknown> = {};
      for (let c = 0; c < names.length; c++) object[names[c] as string] = values[c + 1];
      rows[i] = { kind: kind as RowKind, row: this.decoder(object, `${position ?? 'stage record'} row ${i}`) };
    }
    return rows;
  }

  /** `{"v":1,"t":T,"p":…,"s":…,"f":…,"l":…,"to":…` for an address. */
  private addressPrefix(type: 'r' | 'w', address: BundleAddress): string {
    checkIdPart('producer stage', address.producerStage);
    checkIdPart('producer shard', address.producerShard);
    checkIdPart('first sequence number', address.first);
    checkIdPart('last sequence number', address.last);
    checkIdPart('target shard', address.targetShard);
    return (
      `{"v":${BUNDLE_FORMAT_VERSION},"t":"${type}","p":${JSON.stringify(address.producerStage)},` +
      `"s":${JSON.stringify(address.producerShard)},"f":${JSON.stringify(address.first)},` +
      `"l":${JSON.stringify(address.last)},"to":${JSON.stringify(address.targetShard)}`
    );
  }

  /** A rows record's header up to and including `"r":[`. */
  private rowHeader(prefix: string, n: string, of: string, wm: string | undefined): string {
    return `${prefix},"n":${n},"of":${of}${wm === undefined ? '' : `,"wm":${wm}`},"sc":"${this.fingerprint}","r":[`;
  }
}
