/**
 * The sink's constraint enforcer (Flink's `ConstraintEnforcer` before a sink): the last operator
 * of a stage that writes a sink checks that each row fits that sink, so a row that does not is a
 * data error of its one record — dead-lettered with its reason, position and operator under the
 * `dead-letter` policy, the job stopped under `fail` (shared/runtime/stage-executor.ts) — rather
 * than a failed write that fails the whole batch on every retry and blocks the shard.
 *
 * What is checked, row by row:
 * - the sink schema: a NULL in a NOT NULL column (Flink's `table.exec.sink.not-null-enforcer`
 *   default, ERROR), and a value whose runtime type is not its column's (a user function's
 *   result; an INT beyond 32 bits, a BIGINT beyond a safe integer);
 * - a DynamoDB sink: the item (as shared/aws/sinks/dynamodb-upsert-sink.ts writes it) within
 *   400 KB, its key within 2048 bytes, and every DOUBLE a number DynamoDB can hold (NaN,
 *   ±Infinity and magnitudes beyond 1E+126 have no `N` form);
 * - a Kinesis sink: the record (data plus partition key, as kinesis-changelog-sink.ts writes it)
 *   within 1 MiB.
 *
 * Stateless; a batch with a bad row throws before emitting, as the operator contract asks.
 * The job graph (shared/plan/job-graph.ts) adds the operator only to stages whose sink has
 * something to check — a NOT NULL column, a DynamoDB or Kinesis target — so print and file
 * sinks without NOT NULL columns run as before.
 */
import { Buffer } from 'node:buffer';
import { RecordError } from '../../core/errors.ts';
import { createRowEncoder, type JsonValue, type RowEncoder } from '../../core/codec.ts';
import type { ChangeRow } from '../../core/row.ts';
import type { Field, Schema, Value } from '../../core/types.ts';
import { kinesisRecordKeys } from '../../partition/kinesis-hash.ts';
import type { Operator } from '../operator.ts';
import { createChangeEncoder } from '../../core/format-encoders.ts';
import type { RecordFormat } from '../../core/formats.ts';

/** DynamoDB's item size limit: 400 KB, attribute names included. */
export const DYNAMODB_MAX_ITEM_BYTES = 400 * 1024;
/** DynamoDB's partition key value limit. */
export const DYNAMODB_MAX_PARTITION_KEY_BYTES = 2048;
/** Kinesis's record limit: the data blob plus the partition key, 1 MiB. */
export const KINESIS_MAX_RECORD_BYTES = 1024 * 1024;
/** The largest magnitude a DynamoDB number holds (9.9999999999999999999999999999999999999E+125). */
const DYNAMODB_MAX_NUMBER = 1e126;
/** The smallest positive magnitude a DynamoDB number holds. */
const DYNAMODB_MIN_NUMBER = 1e-130;

/** Plain-data spec of the enforcer (in the job graph). */
export interface ConstraintEnforcerSpec {
  /** The sink the rows go to (for messages). */
  readonly sink: string;
  /** The sink's schema: what each row must fit. */
  readonly schema: Schema;
  /** NOT NULL columns of the sink the rows may hold a NULL in (the others need no check). */
  readonly notNull: readonly string[];
  /** Where the rows are written: the target's limits are checked. */
  readonly target: 'dynamodb' | 'kinesis' | 'other';
  /** The sink's upsert key (the DynamoDB item key, the Kinesis partition key). */
  readonly upsertKey?: readonly string[];
  /** A Kinesis sink's record format (core/format-encoders.ts); absent: the json changelog line. */
  readonly format?: RecordFormat;
}

/** The text the Kinesis sink hashes into a partition key: the upsert key's values, or the whole row. */
export function kinesisKeyText(json: Readonly<Record<string, JsonValue>>, upsertKey: readonly string[] | undefined): string {
  return JSON.stringify(upsertKey === undefined ? json : upsertKey.map((k) => json[k] ?? null));
}

/** The DynamoDB sink's item key: the upsert key values as a JSON array text. */
export function dynamoDbItemKey(json: Readonly<Record<string, JsonValue>>, upsertKey: readonly string[]): string {
  return JSON.stringify(upsertKey.map((k) => json[k] ?? null));
}

/**
 * The billed size of the DynamoDB sink's item of a row, as DynamoDB counts it: each attribute's
 * name plus its value — a string's UTF-8 bytes, a number's significant digits / 2 + 1, one byte
 * for a BOOL or NULL — and the `pk` attribute.
 */
export function dynamoDbItemBytes(pk: string, json: Readonly<Record<string, JsonValue>>): number {
  let bytes = 2 + Buffer.byteLength(pk, 'utf8');
  for (const [name, value] of Object.entries(json)) {
    bytes += Buffer.byteLength(name, 'utf8');
    if (value === null || value === undefined || typeof value === 'boolean') bytes += 1;
    else if (typeof value === 'number') bytes += numberBytes(value);
    else if (typeof value === 'string') bytes += Buffer.byteLength(value, 'utf8');
    else bytes += Buffer.byteLength(JSON.stringify(value), 'utf8');
  }
  return bytes;
}

function numberBytes(value: number): number {
  const digits = String(Math.abs(value)).replace(/e.*$/i, '').replace('.', '').replace(/^0+/, '').length;
  return Math.min(21, Math.ceil(Math.max(1, digits) / 2) + 1);
}

/** Creates the operator. */
export function createConstraintEnforcer(spec: ConstraintEnforcerSpec): Operator {
  const check = rowCheck(spec);
  return {
    open() {},
    processBatch(batch, out) {
      // Every row is checked before any is emitted: a bad row fails the batch unchanged.
      for (const change of batch) check(change);
      for (const change of batch) out.emit(change);
    },
  };
}

/** The check of one row; throws a RecordError saying what does not fit. */
function rowCheck(spec: ConstraintEnforcerSpec): (change: ChangeRow) => void {
  const fields = spec.schema.fields;
  const encode: RowEncoder | undefined = spec.target === 'other' ? undefined : createRowEncoder(spec.schema);
  // The Kinesis record as the sink writes it, in its format.
  const record = spec.target === 'kinesis' ? createChangeEncoder(spec.schema, spec.format) : (change: ChangeRow): string => change.kind;
  const notNull = new Set(spec.notNull);
  const doubles = fields.filter((f) => f.type.root === 'DOUBLE' || f.type.root === 'FLOAT').map((f) => f.name);
  const upsertKey = spec.upsertKey ?? [];
  const where = `sink '${spec.sink}'`;
  return (change) => {
    const row = change.row;
    for (const field of fields) {
      const value = row[field.name] ?? null;
      if (value === null) {
        if (notNull.has(field.name)) {
          throw new RecordError(`column '${field.name}' of ${where} is NOT NULL, but the row has a NULL there`, { field: field.name });
        }
        continue;
      }
      const mismatch = typeMismatch(field, value);
      if (mismatch !== undefined) throw new RecordError(`column '${field.name}' of ${where}: ${mismatch}`, { field: field.name });
    }
    if (encode === undefined) return;
    const json = encode(row);
    if (spec.target === 'dynamodb') {
      for (const name of doubles) {
        const value = row[name];
        if (typeof value !== 'number') continue;
        const magnitude = Math.abs(value);
        if (!Number.isFinite(value) || magnitude >= DYNAMODB_MAX_NUMBER || (magnitude > 0 && magnitude < DYNAMODB_MIN_NUMBER)) {
          throw new RecordError(`column '${name}' of ${where}: ${value} is not a number DynamoDB can hold (finite, magnitude 1E-130 to below 1E+126)`, { field: name });
        }
      }
      const pk = dynamoDbItemKey(json, upsertKey);
      const keyBytes = Buffer.byteLength(pk, 'utf8');
      if (keyBytes > DYNAMODB_MAX_PARTITION_KEY_BYTES) {
        throw new RecordError(`the item key of ${where} is ${keyBytes} bytes; DynamoDB takes at most ${DYNAMODB_MAX_PARTITION_KEY_BYTES}`);
      }
      // A delete writes only the key.
      if (change.kind === '-D' || change.kind === '-U') return;
      const bytes = dynamoDbItemBytes(pk, json);
      if (bytes > DYNAMODB_MAX_ITEM_BYTES) {
        throw new RecordError(`the item of ${where} is ${bytes} bytes; DynamoDB takes at most ${DYNAMODB_MAX_ITEM_BYTES} (400 KB)`);
      }
      return;
    }
    const { partitionKey } = kinesisRecordKeys(kinesisKeyText(json, spec.upsertKey));
    const bytes = Buffer.byteLength(record(change), 'utf8') + Buffer.byteLength(partitionKey, 'utf8');
    if (bytes > KINESIS_MAX_RECORD_BYTES) {
      throw new RecordError(`the record of ${where} is ${bytes} bytes with its partition key; Kinesis takes at most ${KINESIS_MAX_RECORD_BYTES} (1 MiB)`);
    }
  };
}

/** Why `value` is not a value of `field`'s type, or undefined when it is. */
function typeMismatch(field: Field, value: Value): string | undefined {
  const shown = typeof value === 'string' ? `'${value.length > 40 ? `${value.slice(0, 40)}…` : value}'` : String(value);
  switch (field.type.root) {
    case 'INT':
      if (typeof value !== 'number' || !Number.isInteger(value)) return `${shown} is not an INT`;
      if (value < -2147483648 || value > 2147483647) return `${shown} overflows INT`;
      return undefined;
    case 'BIGINT':
      if (typeof value !== 'number' || !Number.isInteger(value)) return `${shown} is not a BIGINT`;
      if (!Number.isSafeInteger(value)) return `${shown} overflows BIGINT (beyond ±2^53 − 1, the exact range)`;
      return undefined;
    case 'SMALLINT':
    case 'TINYINT': {
      const bits = field.type.root === 'SMALLINT' ? 16 : 24;
      if (typeof value !== 'number' || !Number.isInteger(value)) return `${shown} is not a ${field.type.root}`;
      if (((value << bits) >> bits) !== value) return `${shown} overflows ${field.type.root}`;
      return undefined;
    }
    case 'DOUBLE':
    case 'FLOAT':
      return typeof value === 'number' ? undefined : `${shown} is not a ${field.type.root}`;
    case 'TIMESTAMP':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : `${shown} is not a TIMESTAMP`;
    case 'TIMESTAMP_LTZ':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : `${shown} is not a TIMESTAMP_LTZ`;
    case 'DATE':
      return typeof value === 'number' && Number.isInteger(value) ? undefined : `${shown} is not a DATE`;
    case 'TIME':
      return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < 86_400_000 ? undefined : `${shown} is not a TIME`;
    case 'DECIMAL':
      return typeof value === 'bigint' ? undefined : `${shown} is not a DECIMAL`;
    case 'STRING':
      return typeof value === 'string' ? undefined : `${shown} is not a STRING`;
    case 'BOOLEAN':
      return typeof value === 'boolean' ? undefined : `${shown} is not a BOOLEAN`;
  }
}
