/**
 * A DynamoDB dimension source, in one of two modes:
 *
 * - `get` (default): the lookup key is the table's primary key (partition key, plus the sort key
 *   when the table has one), so each key matches at most one item. One key is a GetItem; more are
 *   BatchGetItem calls of at most 100 keys. `UnprocessedKeys` (throttled or over the 16 MB
 *   response limit) are re-requested with full-jitter exponential backoff; keys still unprocessed
 *   after `maxAttempts` make the call fail with a TransientError (never a silent miss).
 * - `query`: the lookup key is the partition key (plus optionally the sort key) of the table or of
 *   the global secondary index `indexName`, where one key may match several items (a non-unique
 *   key). One paginated Query per key, at most `queryConcurrency` at a time.
 *
 * Items are projected to the schema's columns and converted exactly (see dynamodb-values.ts and
 * dimension-values.ts).
 */
import { BatchGetItemCommand, GetItemCommand, QueryCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDynamoDbClient } from '../aws/clients.ts';
import { PlanError, TransientError } from '../core/errors.ts';
import { requireField } from '../core/type-parse.ts';
import type { Field, Row, Schema } from '../core/types.ts';
import { backoffDelay, sleep as sleepMs, type RetryOptions } from '../core/retry.ts';
import type { DimensionSource } from './dimension-source.ts';
import { distinctKeys, groupRowsByKey, keyColumnsOf } from './dimension-source.ts';
import { dimensionRowConverter } from './dimension-values.ts';
import type { DynamoTimestampFormat } from './dynamodb-values.ts';
import { attributeToRaw, keyAttribute } from './dynamodb-values.ts';
import { mapConcurrent } from './concurrency.ts';

/** Configuration of {@link createDynamoDbSource}; plain data. */
export interface DynamoDbSourceConfig {
  /** The DynamoDB table name (also the dimension table's name in errors and metrics). */
  readonly table: string;
  /** The attributes read and their types; the lookup columns must be among them. */
  readonly schema: Schema;
  /** See the module header. @default 'get' */
  readonly mode?: 'get' | 'query';
  /** A global secondary index to query (mode `query` only). */
  readonly indexName?: string;
  /** How TIMESTAMP key values are stored. @default 'epoch-ms' */
  readonly timestampFormat?: DynamoTimestampFormat;
  /** Strongly consistent reads (not on a GSI). @default false */
  readonly consistentRead?: boolean;
  /** Parallel Query calls in `query` mode. @default 8 */
  readonly queryConcurrency?: number;
  /** Region, when not from the environment. */
  readonly region?: string;
  /** Endpoint override (local emulators), when not from the environment. */
  readonly endpoint?: string;
}

/** Runtime options of {@link createDynamoDbSource}. */
export interface DynamoDbSourceOptions {
  /** Use this client (the source does not destroy a client it did not create). */
  readonly client?: DynamoDBClient;
  /** Backoff for UnprocessedKeys. @default 8 attempts, base 50 ms, cap 2 s */
  readonly unprocessed?: RetryOptions;
}

/** BatchGetItem's limit of keys per request. */
const BATCH_GET_LIMIT = 100;

/**
 * Creates a DynamoDB dimension source (see the module header).
 *
 * @throws PlanError for an invalid config (unknown mode, an index without `query` mode, no columns).
 */
export function createDynamoDbSource(config: DynamoDbSourceConfig, options: DynamoDbSourceOptions = {}): DimensionSource {
  const mode = config.mode ?? 'get';
  if (mode !== 'get' && mode !== 'query') throw new PlanError(`lookup table '${config.table}': DynamoDB mode must be 'get' or 'query' (given ${String(mode)})`);
  if (config.indexName !== undefined && mode !== 'query') throw new PlanError(`lookup table '${config.table}': indexName needs mode 'query'`);
  if (config.schema.fields.length === 0) throw new PlanError(`lookup table '${config.table}': the dimension schema has no columns`);
  const ownsClient = options.client === undefined;
  const client = options.client ?? createDynamoDbClient({ region: config.region, endpoint: config.endpoint });
  const table = config.table;
  const timestamps = config.timestampFormat ?? 'epoch-ms';
  const convert = dimensionRowConverter(table, config.schema);
  const backoff = { maxAttempts: 8, baseDelayMs: 50, maxDelayMs: 2_000, ...options.unprocessed };
  const sleep = backoff.sleep ?? sleepMs;

  // Attribute names go through placeholders: many column names are DynamoDB reserved words.
  const names: Record<string, string> = {};
  config.schema.fields.forEach((f, i) => (names[`#c${i}`] = f.name));
  const projection = Object.keys(names).join(', ');
  const placeholderOf = (column: string): string => `#c${config.schema.fields.findIndex((f) => f.name === column)}`;

  const toRow = (item: Record<string, AttributeValue>): Row => {
    const raw: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(item)) raw[name] = attributeToRaw(value, table, name);
    return convert(raw);
  };

  /** The key attributes of a key, or undefined when no item can match it. */
  const keyItem = (key: Row, fields: readonly Field[]): Record<string, AttributeValue> | undefined => {
    const item: Record<string, AttributeValue> = {};
    for (const field of fields) {
      const attribute = keyAttribute(field, key[field.name]!, table, timestamps);
      if (attribute === undefined) return undefined;
      item[field.name] = attribute;
    }
    return item;
  };

  const batchGet = async (items: Record<string, AttributeValue>[]): Promise<Record<string, AttributeValue>[]> => {
    const found: Record<string, AttributeValue>[] = [];
    let pending: Record<string, AttributeValue>[] = items;
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > backoff.maxAttempts) {
        throw new TransientError(`lookup table '${table}': ${pending.length} keys still unprocessed by BatchGetItem after ${backoff.maxAttempts} attempts`);
      }
      if (attempt > 1) await sleep(backoffDelay(attempt - 1, backoff));
      const response = await client.send(
        new BatchGetItemCommand({
          RequestItems: { [table]: { Keys: pending, ProjectionExpression: projection, ExpressionAttributeNames: names, ConsistentRead: config.consistentRead } },
        }),
      );
      found.push(...(response.Responses?.[table] ?? []));
      pending = response.UnprocessedKeys?.[table]?.Keys ?? [];
    }
    return found;
  };

  const get = async (keys: Record<string, AttributeValue>[]): Promise<Record<string, AttributeValue>[]> => {
    if (keys.length === 1) {
      const response = await client.send(
        new GetItemCommand({ TableName: table, Key: keys[0], ProjectionExpression: projection, ExpressionAttributeNames: names, ConsistentRead: config.consistentRead }),
      );
      return response.Item === undefined ? [] : [response.Item];
    }
    const out: Record<string, AttributeValue>[] = [];
    for (let i = 0; i < keys.length; i += BATCH_GET_LIMIT) out.push(...(await batchGet(keys.slice(i, i + BATCH_GET_LIMIT))));
    return out;
  };

  const query = async (key: Record<string, AttributeValue>): Promise<Record<string, AttributeValue>[]> => {
    const conditions: string[] = [];
    const values: Record<string, AttributeValue> = {};
    Object.entries(key).forEach(([column, value], i) => {
      conditions.push(`${placeholderOf(column)} = :k${i}`);
      values[`:k${i}`] = value;
    });
    const out: Record<string, AttributeValue>[] = [];
    let start: Record<string, AttributeValue> | undefined;
    do {
      const response = await client.send(
        new QueryCommand({
          TableName: table,
          IndexName: config.indexName,
          KeyConditionExpression: conditions.join(' AND '),
          ProjectionExpression: projection,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ExclusiveStartKey: start,
          ConsistentRead: config.indexName === undefined ? config.consistentRead : undefined,
        }),
      );
      out.push(...(response.Items ?? []));
      start = response.LastEvaluatedKey;
    } while (start !== undefined);
    return out;
  };

  return {
    table,
    async lookupMany(keys) {
      const columns = keyColumnsOf(keys);
      if (columns.length === 0) return new Map();
      const fields = columns.map((c) => requireField(config.schema, c, `lookup keys of table '${table}'`));
      const { keys: distinct, encoded } = distinctKeys(keys, columns);
      const items = distinct.map((k) => keyItem(k, fields)).filter((k) => k !== undefined);
      if (items.length === 0) return new Map();
      const found =
        mode === 'get' ? await get(items) : (await mapConcurrent(items, config.queryConcurrency ?? 8, query)).flat();
      return groupRowsByKey(found.map(toRow), columns, encoded);
    },
    async loadAll() {
      const rows: Row[] = [];
      let start: Record<string, AttributeValue> | undefined;
      do {
        const response = await client.send(
          new ScanCommand({ TableName: table, ProjectionExpression: projection, ExpressionAttributeNames: names, ExclusiveStartKey: start }),
        );
        for (const item of response.Items ?? []) rows.push(toRow(item));
        start = response.LastEvaluatedKey;
      } while (start !== undefined);
      return rows;
    },
    async close() {
      if (ownsClient) client.destroy();
    },
  };
}
