/**
 * A DynamoDB table as an upsert sink: each changelog batch is applied by the sink's upsert key —
 * `+I`/`+U` put the row, `-D` deletes it, `-U` is skipped (the `+U` that follows replaces the
 * row, as in Flink's upsert sinks). Within a batch only the last change of a key is written
 * (BatchWriteItem rejects two writes of one item in one call, and the last one wins anyway).
 *
 * Items: partition key `pk` = the upsert key values as a JSON array text (`["a",1]`), then one
 * attribute per column, encoded as the JSON codec renders them (numbers as N, strings —
 * timestamps as `YYYY-MM-DD hh:mm:ss.sss` — as S, booleans as BOOL, NULL as NULL).
 *
 * An item over 400 KB, a key over 2048 bytes or a DOUBLE DynamoDB cannot hold (NaN, ±Infinity)
 * never gets here: the stage's constraint enforcer (shared/operators/sink/constraint-enforcer.ts)
 * makes it a data error of its record, dead-lettered while the batch goes on.
 *
 * Replaying a batch after a crash (the stage handler re-sends it with the same rows) writes the
 * same items again: applying is idempotent, so the table ends as after one delivery.
 */
import type { AttributeValue, WriteRequest } from '@aws-sdk/client-dynamodb';
import { PlanError } from '../../core/errors.ts';
import { createRowEncoder } from '../../core/codec.ts';
import type { JsonValue, RowEncoder } from '../../core/codec.ts';
import type { ChangeRow } from '../../core/row.ts';
import type { Schema } from '../../core/types.ts';
import { batchWrite, newIoCounters } from '../state/table-io.ts';
import type { DynamoDbSender, IoCounters } from '../state/table-io.ts';
import { sleep } from '../../core/retry.ts';
import { dynamoDbItemKey } from '../../operators/sink/constraint-enforcer.ts';

/** Options of {@link DynamoDbUpsertSink}. */
export interface DynamoDbUpsertSinkOptions {
  readonly client: DynamoDbSender;
  readonly tableName: string;
  /** The sink's row schema. */
  readonly schema: Schema;
  /** The upsert key columns (required: a DynamoDB item needs a key). */
  readonly upsertKey: readonly string[];
}

/** Writes changelog batches to a DynamoDB table; see the module documentation. */
export class DynamoDbUpsertSink {
  /** Requests made. */
  readonly io: IoCounters = newIoCounters();
  private readonly encode: RowEncoder;

  /** @throws PlanError without an upsert key, or for a key column not in the schema. */
  constructor(private readonly options: DynamoDbUpsertSinkOptions) {
    if (options.upsertKey.length === 0) throw new PlanError(`DynamoDB sink table '${options.tableName}' needs an upsert key (the rows' primary key)`);
    const names = new Set(options.schema.fields.map((f) => f.name));
    for (const key of options.upsertKey) {
      if (!names.has(key)) throw new PlanError(`DynamoDB sink table '${options.tableName}': upsert key column '${key}' is not in the sink's schema (${[...names].join(', ')})`);
    }
    if (names.has('pk')) throw new PlanError(`DynamoDB sink table '${options.tableName}': a column may not be named 'pk' (the item key attribute)`);
    this.encode = createRowEncoder(options.schema);
  }

  /** Applies one batch. @throws TransientError when items stay unprocessed after the retries. */
  async write(rows: readonly ChangeRow[]): Promise<void> {
    const last = new Map<string, WriteRequest>();
    for (const change of rows) {
      if (change.kind === '-U') continue;
      const json = this.encode(change.row);
      const pk = dynamoDbItemKey(json, this.options.upsertKey);
      const key = { pk: { S: pk } };
      if (change.kind === '-D') {
        last.set(pk, { DeleteRequest: { Key: key } });
        continue;
      }
      const item: Record<string, AttributeValue> = { ...key };
      for (const [name, value] of Object.entries(json)) item[name] = attributeOf(value);
      last.set(pk, { PutRequest: { Item: item } });
    }
    if (last.size === 0) return;
    await batchWrite(
      [...last.values()],
      { client: this.options.client, tableName: this.options.tableName, concurrency: 4, maxAttempts: 8, baseMs: 50, maxMs: 5_000, random: Math.random, sleep },
      this.io,
    );
  }
}

function attributeOf(value: JsonValue | undefined): AttributeValue {
  if (value === null || value === undefined) return { NULL: true };
  if (typeof value === 'number') return { N: String(value) };
  if (typeof value === 'boolean') return { BOOL: value };
  if (typeof value === 'string') return { S: value };
  return { S: JSON.stringify(value) };
}
